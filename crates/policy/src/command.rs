//! Judging a shell command: every simple command inside it on its own, looking through
//! wrappers (`env`, `xargs`, `find -exec`, `bash -c`, …), with its redirections and the paths
//! it names.

use crate::call::Context;
use crate::decision::{Finding, Verdict};
use crate::mode::Mode;
use crate::paths::{Access, judge_path};
use crate::pattern::Args;
use crate::readonly::is_read_only;
use crate::rules::Policy;
use crate::shell::{
    self, RedirectKind, SimpleCommand, Word, basename, is_inline_interpreter, is_shell,
};
use crate::suggest;
use unicode_normalization::UnicodeNormalization;

/// Beyond this a command cannot be reviewed by a person either.
pub const MAX_COMMAND_BYTES: usize = 64 * 1024;
/// `bash -c "bash -c '…'"` nesting beyond this is refused a look-through: ask.
const MAX_DEPTH: usize = 8;

pub fn judge_command(policy: &Policy, ctx: &Context, mode: Mode, command: &str) -> Vec<Finding> {
    if command.trim().is_empty() {
        return vec![Finding::floor(
            Verdict::Deny,
            "the command is empty: there is nothing to run",
            "empty command",
        )];
    }
    if command.contains('\0') {
        return vec![Finding::floor(
            Verdict::Deny,
            "the command contains a NUL byte, which no shell can run as written",
            "binary data",
        )];
    }
    if command.len() > MAX_COMMAND_BYTES {
        return vec![Finding::floor(
            Verdict::Deny,
            format!(
                "the command is {} KB long, too long for anyone to review; write it to a script file first",
                command.len() / 1024
            ),
            "command too long",
        )];
    }
    let mut out = Vec::new();
    if command
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t' && c != '\r')
    {
        out.push(Finding::floor(
            Verdict::Ask,
            "the command contains control characters that may hide what it really does",
            "control characters",
        ));
    }
    judge_source(policy, ctx, mode, command, 0, &mut out);
    out
}

fn judge_source(
    policy: &Policy,
    ctx: &Context,
    mode: Mode,
    source: &str,
    depth: usize,
    out: &mut Vec<Finding>,
) {
    // `((…))` is arithmetic to bash but two nested subshells to `sh` (dash): judge both readings.
    if source.contains("((") && depth < MAX_DEPTH {
        let as_subshells = source.replace("((", "( (").replace("))", ") )");
        judge_source(policy, ctx, mode, &as_subshells, depth + 1, out);
    }
    let parsed = shell::parse(source);
    if parsed.has_error {
        out.push(Finding::floor(
            Verdict::Ask,
            "the command could not be fully parsed, so Tandem cannot tell everything it would do",
            "unparsable command",
        ));
    }
    if parsed.pipes_into_shell {
        out.push(Finding::floor(
            Verdict::Ask,
            "the command pipes text into a shell or interpreter, which runs whatever arrives (like `curl … | sh`)",
            "pipe into a shell",
        ));
    }
    if parsed.recursive_function {
        out.push(Finding::floor(
            Verdict::Deny,
            "the command defines a function that calls itself, the pattern of a fork bomb that freezes the machine",
            "fork bomb",
        ));
    }
    if parsed.process_substitution {
        out.push(Finding::floor(
            Verdict::Ask,
            "the command uses process substitution `<(…)`, whose output may be run as code",
            "process substitution",
        ));
    }
    for r in &parsed.redirects {
        judge_redirect(policy, ctx, mode, r.kind, &r.target, out);
    }
    if parsed.commands.is_empty() && !parsed.has_error {
        // Only assignments, comments or control words: nothing runs.
        out.push(Finding::floor(
            Verdict::Allow,
            "the command runs nothing",
            "no command",
        ));
    }
    for cmd in &parsed.commands {
        judge_simple(policy, ctx, mode, cmd, depth, out);
    }
}

fn judge_redirect(
    policy: &Policy,
    ctx: &Context,
    mode: Mode,
    kind: RedirectKind,
    target: &Word,
    out: &mut Vec<Finding>,
) {
    let access = match kind {
        RedirectKind::Duplicate => return,
        RedirectKind::Read => Access::Read,
        RedirectKind::Write => Access::Write,
    };
    let Some(path) = target.literal() else {
        out.push(Finding::floor(
            Verdict::Ask,
            format!(
                "the command redirects to `{}`, a file name only known when it runs",
                target.shown()
            ),
            "computed redirect",
        ));
        return;
    };
    if is_sink(path) {
        return;
    }
    judge_named_path(policy, ctx, mode, path, access, true, out);
}

/// A path the command names (a redirect target or an argument). `certain` is false for plain
/// arguments, which may not be paths at all: they only count when they name something protected.
fn judge_named_path(
    policy: &Policy,
    ctx: &Context,
    mode: Mode,
    path: &str,
    access: Access,
    certain: bool,
    out: &mut Vec<Finding>,
) {
    let Some(abs) = ctx.resolve(path) else {
        out.push(Finding::floor(
            Verdict::Ask,
            format!("`{path}` is a path only the shell can resolve"),
            "unresolvable path",
        ));
        return;
    };
    let findings = judge_path(policy, ctx, &abs, access);
    if certain {
        let inside = ctx.relative(&abs).is_some();
        if access == Access::Write && inside {
            out.push(write_by_mode(ctx, mode, &abs));
        }
        out.extend(findings);
    } else {
        // An argument: only the refusals that protect secrets and the repository count, and a
        // mere mention outside the project is not a read.
        out.extend(findings.into_iter().filter(|f| {
            f.verdict == Verdict::Deny && !f.rule.name.ends_with("outside the project")
        }));
    }
}

/// A command writing a file inside the project, judged like an edit.
fn write_by_mode(ctx: &Context, mode: Mode, abs: &std::path::Path) -> Finding {
    let name = ctx.relative(abs).unwrap_or_default();
    match mode {
        Mode::ReadOnly => Finding::floor(
            Verdict::Deny,
            format!("read-only mode: the command would write `{name}`"),
            "read_only mode",
        ),
        Mode::Ask => Finding::floor(
            Verdict::Ask,
            format!("the command writes `{name}`"),
            "ask mode",
        )
        .with_suggestions(suggest::write(&name)),
        Mode::AutoEdit | Mode::FullAuto => Finding::floor(
            Verdict::Allow,
            format!("{mode} mode allows edits inside the project"),
            "mode",
        ),
    }
}

fn judge_simple(
    policy: &Policy,
    ctx: &Context,
    mode: Mode,
    cmd: &SimpleCommand,
    depth: usize,
    out: &mut Vec<Finding>,
) {
    for r in &cmd.redirects {
        judge_redirect(policy, ctx, mode, r.kind, &r.target, out);
    }
    let writes_files = cmd
        .redirects
        .iter()
        .any(|r| r.kind == RedirectKind::Write && !r.target.literal().is_some_and(is_sink));
    judge_words(policy, ctx, mode, &cmd.words, !writes_files, depth, out);
}

/// Judges a command given as words (the name first), looking through wrappers.
fn judge_words(
    policy: &Policy,
    ctx: &Context,
    mode: Mode,
    words: &[Word],
    no_writes: bool,
    depth: usize,
    out: &mut Vec<Finding>,
) {
    // A reserved word in command position means the grammar took a compound command for a
    // simple one (`! { sudo ls; }`): the shell runs what follows it, so judge that.
    let mut words = words;
    while let Some(w) = words.first() {
        if w.literal().is_some_and(is_reserved_word) {
            words = &words[1..];
        } else {
            break;
        }
    }
    let Some(first) = words.first() else { return };
    let Some(raw_name) = first.literal() else {
        out.push(Finding::floor(
            Verdict::Ask,
            format!(
                "the program to run, `{}`, is only known when the command runs",
                first.shown()
            ),
            "computed command name",
        ));
        return;
    };
    // Look-alike letters (`ｒｍ`, a Cyrillic `о`): judge what it normalizes to, and ask anyway.
    let normalized: String = raw_name
        .nfkc()
        .filter(|c| !matches!(c, '\u{00ad}' | '\u{200b}'..='\u{200f}' | '\u{2060}'..='\u{2064}' | '\u{feff}'))
        .collect();
    if !raw_name.is_ascii() {
        out.push(Finding::floor(
            Verdict::Ask,
            format!("the program name `{raw_name}` contains non-ASCII characters that can imitate another command"),
            "look-alike characters",
        ));
    }
    let name = basename(&normalized).to_string();

    // Every argument that names a secret, the repository's internals or a policy file counts,
    // whatever the program (`cat .env`, `cp x .git/hooks/pre-commit`); one that is plainly a
    // path outside the project is a read there, which needs approval.
    for w in &words[1..] {
        if let Some(a) = w.literal() {
            for candidate in path_candidates(a) {
                judge_named_path(policy, ctx, mode, candidate, Access::Read, false, out);
                judge_outside_mention(policy, ctx, candidate, out);
            }
        }
    }

    let args: Vec<&Word> = words[1..].iter().collect();
    let lit_args: Option<Vec<&str>> = args.iter().map(|w| w.literal()).collect();
    let deeper = |rest: &[Word], out: &mut Vec<Finding>| {
        if depth >= MAX_DEPTH {
            out.push(Finding::floor(
                Verdict::Ask,
                "the command wraps other commands too deeply to follow",
                "nesting",
            ));
        } else {
            judge_words(policy, ctx, mode, rest, no_writes, depth + 1, out);
        }
    };
    let shell_string = |s: &Word, out: &mut Vec<Finding>| match s.literal() {
        Some(src) if depth < MAX_DEPTH => judge_source(policy, ctx, mode, src, depth + 1, out),
        Some(_) => out.push(Finding::floor(
            Verdict::Ask,
            "the command nests shells too deeply to follow",
            "nesting",
        )),
        None => out.push(Finding::floor(
            Verdict::Ask,
            format!(
                "the shell script `{}` is only known when the command runs",
                s.shown()
            ),
            "computed script",
        )),
    };

    match name.as_str() {
        "sudo" | "doas" | "su" | "pkexec" | "run0" => {
            out.push(Finding::floor(
                Verdict::Deny,
                format!("`{name}` runs commands as the administrator; the agent never does that. Run it yourself in a terminal if it is needed."),
                "sudo",
            ));
            let skip = skip_options(
                &words[1..],
                &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-c"],
            );
            if let Some(rest) = words.get(1 + skip..).filter(|r| !r.is_empty()) {
                deeper(rest, out);
            }
            return;
        }
        "env" => {
            let mut i = 1;
            while let Some(w) = words.get(i) {
                match w.literal() {
                    Some("-S") | Some("--split-string") => {
                        if let Some(s) = words.get(i + 1) {
                            shell_string(s, out);
                        }
                        return;
                    }
                    Some("-u") | Some("--unset") | Some("-C") | Some("--chdir") => i += 2,
                    Some(a) if a.starts_with('-') || a.contains('=') => i += 1,
                    _ => break,
                }
            }
            match words.get(i..).filter(|r| !r.is_empty()) {
                Some(rest) => deeper(rest, out),
                None => out.push(Finding::floor(
                    Verdict::Allow,
                    "`env` alone prints the environment",
                    "read-only command",
                )),
            }
            return;
        }
        "command" | "builtin" | "exec" | "nohup" | "time" | "setsid" | "unbuffer" | "chronic" => {
            if name == "command"
                && lit_args
                    .as_ref()
                    .is_some_and(|a| a.first().is_some_and(|f| *f == "-v" || *f == "-V"))
            {
                out.push(Finding::floor(
                    Verdict::Allow,
                    "`command -v` only looks a program up",
                    "read-only command",
                ));
                return;
            }
            let skip = skip_options(&words[1..], &["-a"]);
            if let Some(rest) = words.get(1 + skip..).filter(|r| !r.is_empty()) {
                deeper(rest, out);
            }
            return;
        }
        "timeout" | "nice" | "ionice" | "stdbuf" | "taskset" | "chrt" | "flock" | "watch" => {
            // Options, then (for some) one operand that is not the command: a duration, a CPU
            // list, a lock file.
            let value_opts: &[&str] = match name.as_str() {
                "timeout" => &["-s", "--signal", "-k", "--kill-after"],
                "nice" => &["-n", "--adjustment"],
                "ionice" => &["-c", "-n", "-p"],
                "stdbuf" => &["-i", "-o", "-e"],
                "watch" => &["-n", "--interval", "-d"],
                _ => &[],
            };
            let mut i = 1 + skip_options(&words[1..], value_opts);
            if matches!(name.as_str(), "timeout" | "taskset" | "chrt" | "flock") {
                i += 1;
            }
            if name == "watch"
                || (name == "flock" && words.get(i).and_then(Word::literal) == Some("-c"))
            {
                let at = if name == "flock" { i + 1 } else { i };
                if words.len() == at + 1 {
                    if let Some(s) = words.get(at) {
                        shell_string(s, out);
                    }
                    return;
                }
            }
            if let Some(rest) = words.get(i..).filter(|r| !r.is_empty()) {
                deeper(rest, out);
            }
            return;
        }
        "xargs" => {
            let i = 1 + skip_options(
                &words[1..],
                &[
                    "-I",
                    "-i",
                    "-n",
                    "-P",
                    "-d",
                    "-L",
                    "-l",
                    "-s",
                    "-E",
                    "-e",
                    "-a",
                    "--arg-file",
                    "--delimiter",
                    "--max-args",
                    "--max-procs",
                    "--replace",
                ],
            );
            match words.get(i..).filter(|r| !r.is_empty()) {
                Some(rest) => {
                    // xargs appends what arrives on stdin: operands only known at run time.
                    let mut with_input = rest.to_vec();
                    with_input.push(Word::Dynamic("<input from xargs>".into()));
                    deeper(&with_input, out)
                }
                None => out.push(Finding::floor(
                    Verdict::Allow,
                    "`xargs` alone only echoes its input",
                    "read-only command",
                )),
            }
            return;
        }
        "eval" => {
            out.push(Finding::floor(
                Verdict::Ask,
                "`eval` runs text as a command, which Tandem can only partly see through",
                "eval",
            ));
            if let Some(parts) = lit_args.as_ref() {
                let joined = parts.join(" ");
                if depth < MAX_DEPTH {
                    judge_source(policy, ctx, mode, &joined, depth + 1, out);
                }
            }
            return;
        }
        "source" | "." => {
            out.push(Finding::floor(
                Verdict::Ask,
                "`source` runs a file's commands in the shell",
                "source",
            ));
            return;
        }
        "alias" | "trap" => {
            out.push(Finding::floor(
                Verdict::Ask,
                format!("`{name}` defines a command to run later, which Tandem cannot follow"),
                "deferred command",
            ));
            return;
        }
        "find" | "fd" => {
            judge_find(policy, ctx, mode, words, depth, out);
        }
        _ => {}
    }

    if is_shell(&name) {
        let lit = lit_args.clone().unwrap_or_default();
        if let Some(pos) = lit.iter().position(|a| {
            *a == "-c" || (a.starts_with('-') && !a.starts_with("--") && a.contains('c'))
        }) {
            match words.get(pos + 2) {
                Some(script) => shell_string(script, out),
                None => out.push(Finding::floor(
                    Verdict::Ask,
                    format!("`{name} -c` without a script"),
                    "shell",
                )),
            }
            return;
        }
        if lit_args.is_none() {
            out.push(Finding::floor(
                Verdict::Ask,
                format!("`{name}` runs a script only known when the command runs"),
                "computed script",
            ));
            return;
        }
        // `bash script.sh` runs a file: judged below like any program.
    }

    if is_inline_interpreter(&name) {
        let inline = args.iter().any(|w| {
            w.literal().is_none_or(|a| {
                matches!(
                    a,
                    "-c" | "-e" | "-E" | "-r" | "-p" | "--eval" | "--print" | "-" | "-x"
                ) || (a.starts_with("-e") && name == "perl")
            })
        });
        if inline || args.is_empty() {
            out.push(Finding::floor(
                Verdict::Ask,
                format!(
                    "`{name}` would run code given inline or on stdin, which Tandem cannot inspect"
                ),
                "inline code",
            ));
            return;
        }
    }

    if name == "git"
        && args.iter().any(|w| {
            matches!(w.literal(), Some("-c") | Some("--config-env") | None)
                || w.literal()
                    .is_some_and(|a| a.starts_with("--exec-path") || a.starts_with("-c"))
        })
    {
        out.push(Finding::floor(
            Verdict::Ask,
            "`git -c` can make git run any program (through its configuration)",
            "git configuration",
        ));
    }

    let Some(lit) = lit_args else {
        // Computed arguments are fine for most programs; destructive ones are judged below
        // with what is known.
        judge_destructive(policy, ctx, mode, &name, &args, out);
        judge_rules(
            policy,
            ctx,
            mode,
            &name,
            &words.iter().map(|w| w.shown()).collect::<Vec<_>>(),
            no_writes,
            false,
            out,
        );
        return;
    };
    judge_destructive(policy, ctx, mode, &name, &args, out);
    let mut all = vec![name.as_str()];
    all.extend(lit.iter().copied());
    judge_rules(policy, ctx, mode, &name, &all, no_writes, true, out);
}

/// An argument that resolves outside the project (absolute, `..`, `~`, or through a symlink)
/// is a reach outside it, which needs approval.
fn judge_outside_mention(policy: &Policy, ctx: &Context, path: &str, out: &mut Vec<Finding>) {
    if path.contains("://")
        || matches!(
            path,
            "/dev/null"
                | "/dev/stdout"
                | "/dev/stderr"
                | "/dev/tty"
                | "/dev/zero"
                | "/dev/urandom"
                | "/dev/random"
        )
    {
        return;
    }
    let Some(abs) = ctx.resolve(path) else { return };
    if ctx.relative(&abs).is_none() && !policy.allow_read.iter().any(|r| r.glob.is_match(&abs)) {
        out.push(
            Finding::floor(
                Verdict::Ask,
                format!("the command names `{}`, outside the project folder; reaching outside needs your approval (built-in rule)", abs.display()),
                "outside the project",
            )
            .with_suggestions(vec![suggest::read(&abs)]),
        );
    }
}

fn is_reserved_word(w: &str) -> bool {
    matches!(
        w,
        "{" | "}"
            | "!"
            | "[["
            | "]]"
            | "if"
            | "then"
            | "else"
            | "elif"
            | "fi"
            | "do"
            | "done"
            | "case"
            | "esac"
            | "while"
            | "until"
            | "for"
            | "in"
            | "select"
            | "function"
            | "coproc"
    )
}

/// Devices that swallow or show output: writing to them changes no file.
fn is_sink(path: &str) -> bool {
    matches!(
        path,
        "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty"
    )
}

/// Arguments that might be paths: the whole word, the value of `--opt=value` / `if=x`, and
/// curl's `@file` (upload a file's contents).
fn path_candidates(arg: &str) -> Vec<&str> {
    let mut v = Vec::new();
    if !arg.starts_with('-') {
        v.push(arg);
    }
    if let Some((_, value)) = arg.split_once('=')
        && !value.is_empty()
    {
        v.push(value);
    }
    let uploads: Vec<&str> = v
        .iter()
        .filter_map(|c| c.strip_prefix('@'))
        .filter(|c| !c.is_empty())
        .collect();
    v.extend(uploads);
    v
}

/// Counts leading options (and the values of those in `with_value`).
fn skip_options(words: &[Word], with_value: &[&str]) -> usize {
    let mut i = 0;
    while let Some(w) = words.get(i) {
        match w.literal() {
            Some("--") => return i + 1,
            Some(a) if a.starts_with('-') && a.len() > 1 => {
                i += if with_value.contains(&a) { 2 } else { 1 };
            }
            _ => break,
        }
    }
    i
}

/// `find` and `fd`: the commands given to `-exec`/`-x`, and `-delete` as a recursive delete.
fn judge_find(
    policy: &Policy,
    ctx: &Context,
    mode: Mode,
    words: &[Word],
    depth: usize,
    out: &mut Vec<Finding>,
) {
    let roots: Vec<&Word> = words[1..]
        .iter()
        .take_while(|w| {
            w.literal()
                .is_some_and(|a| !a.starts_with('-') && a != "(" && a != "!")
        })
        .collect();
    let mut i = 1;
    while i < words.len() {
        let a = words[i].literal().unwrap_or("");
        if matches!(
            a,
            "-exec" | "-execdir" | "-ok" | "-okdir" | "-x" | "--exec" | "-X" | "--exec-batch"
        ) {
            let start = i + 1;
            let mut end = start;
            while end < words.len()
                && !matches!(words[end].literal(), Some(";") | Some("+") | Some("\\;"))
            {
                end += 1;
            }
            if end > start {
                if depth >= MAX_DEPTH {
                    out.push(Finding::floor(
                        Verdict::Ask,
                        "the command wraps other commands too deeply to follow",
                        "nesting",
                    ));
                } else {
                    // `{}` stands for each file found: judge the command once per search root
                    // with the root in its place (it reaches at least that far).
                    let search_roots: Vec<Word> = if roots.is_empty() {
                        vec![Word::Literal(".".into())]
                    } else {
                        roots.iter().map(|w| (*w).clone()).collect()
                    };
                    for root in &search_roots {
                        let inner: Vec<Word> = words[start..end]
                            .iter()
                            .map(|w| match w.literal() {
                                Some(a) if a.contains("{}") => match root.literal() {
                                    Some(r) => Word::Literal(a.replace("{}", r)),
                                    None => Word::Dynamic(a.to_string()),
                                },
                                _ => w.clone(),
                            })
                            .collect();
                        judge_words(policy, ctx, mode, &inner, true, depth + 1, out);
                    }
                }
            }
            i = end + 1;
            continue;
        }
        if a == "-delete" {
            let targets: Vec<&Word> = if roots.is_empty() {
                Vec::new()
            } else {
                roots.clone()
            };
            judge_recursive_delete(policy, ctx, mode, "find -delete", &targets, true, out);
        }
        if matches!(a, "-fprint" | "-fprint0" | "-fprintf" | "-fls")
            && let Some(file) = words.get(i + 1)
        {
            judge_redirect(policy, ctx, mode, RedirectKind::Write, file, out);
        }
        i += 1;
    }
}

/// Programs that delete or write the paths they are given.
fn judge_destructive(
    policy: &Policy,
    ctx: &Context,
    mode: Mode,
    name: &str,
    args: &[&Word],
    out: &mut Vec<Finding>,
) {
    let lit: Vec<Option<&str>> = args.iter().map(|w| w.literal()).collect();
    let flags: Vec<String> = {
        let mut f = Vec::new();
        for a in lit.iter().flatten() {
            if a.starts_with('-') && a.len() > 1 && *a != "--" {
                crate::pattern::normalize_flag(name, a, &mut f);
            }
        }
        f
    };
    let operands: Vec<&Word> = {
        let mut v = Vec::new();
        let mut after = false;
        for w in args {
            match w.literal() {
                Some("--") if !after => after = true,
                Some(a) if !after && a.starts_with('-') && a.len() > 1 => {}
                _ => v.push(*w),
            }
        }
        v
    };
    match name {
        "rm" | "rmdir" | "shred" | "unlink" | "srm" => {
            let recursive = flags.iter().any(|f| f == "-r") || name == "rmdir";
            if recursive {
                judge_recursive_delete(policy, ctx, mode, name, &operands, false, out);
            } else {
                for o in operands {
                    judge_operand_write(policy, ctx, mode, name, o, out);
                }
            }
        }
        "mv" | "cp" | "install" | "ln" | "rsync" => {
            // The destination is written; `mv` also removes its sources.
            let targets: Vec<&Word> = match name {
                "mv" => operands.clone(),
                _ => operands.last().copied().into_iter().collect(),
            };
            let t_flag = args
                .iter()
                .position(|w| matches!(w.literal(), Some("-t") | Some("--target-directory")));
            for o in targets {
                judge_operand_write(policy, ctx, mode, name, o, out);
            }
            if let Some(t) = t_flag.and_then(|i| args.get(i + 1)) {
                judge_operand_write(policy, ctx, mode, name, t, out);
            }
        }
        "tee" | "touch" | "mkdir" | "truncate" | "chmod" | "chown" | "chgrp" | "setfacl"
        | "chattr" => {
            // chmod/chown's first operand is the mode or owner, not a path.
            let skip = usize::from(matches!(
                name,
                "chmod" | "chown" | "chgrp" | "setfacl" | "chattr"
            ));
            let recursive = flags.iter().any(|f| f == "-R");
            for o in operands.iter().skip(skip) {
                if recursive {
                    judge_recursive_delete(policy, ctx, mode, name, &[*o], false, out);
                } else {
                    judge_operand_write(policy, ctx, mode, name, o, out);
                }
            }
        }
        "sed" | "perl"
            if flags
                .iter()
                .any(|f| f == "-i" || f.starts_with("--in-place")) =>
        {
            for o in operands.iter().skip(1) {
                judge_operand_write(policy, ctx, mode, name, o, out);
            }
        }
        "dd" => {
            for w in args {
                if let Some(of) = w.literal().and_then(|a| a.strip_prefix("of=")) {
                    judge_named_path(policy, ctx, mode, of, Access::Write, true, out);
                }
            }
        }
        "git" if lit.first().copied().flatten() == Some("clean") => {
            out.push(Finding::floor(
                Verdict::Ask,
                "`git clean` deletes untracked files for good",
                "git clean",
            ));
        }
        _ => {}
    }
}

fn judge_operand_write(
    policy: &Policy,
    ctx: &Context,
    mode: Mode,
    name: &str,
    operand: &Word,
    out: &mut Vec<Finding>,
) {
    match operand.literal() {
        Some(p) if !has_glob(p) => judge_named_path(policy, ctx, mode, p, Access::Write, true, out),
        _ => out.push(Finding::floor(
            Verdict::Ask,
            format!(
                "`{name}` changes `{}`, which is only known when the command runs",
                operand.shown()
            ),
            "computed path",
        )),
    }
}

fn has_glob(p: &str) -> bool {
    p.contains(['*', '?', '[', '{'])
}

/// A recursive delete (or recursive permission change): a hard floor outside the project, and
/// always a question for the project root itself.
fn judge_recursive_delete(
    policy: &Policy,
    ctx: &Context,
    mode: Mode,
    what: &str,
    targets: &[&Word],
    find: bool,
    out: &mut Vec<Finding>,
) {
    let dot = Word::Literal(".".into());
    let targets: Vec<&Word> = if targets.is_empty() && find {
        vec![&dot]
    } else {
        targets.to_vec()
    };
    for word in targets {
        let t = word.shown().to_string();
        let t = &t;
        let known = word.literal().is_some() && !t.contains('$') && !t.contains('`');
        // A glob's fixed prefix says where it reaches: `/*` is the root, `src/*` is inside.
        let base = if has_glob(t) {
            let cut = t.find(['*', '?', '[', '{']).unwrap_or(t.len());
            let prefix = &t[..cut];
            match prefix.rfind('/') {
                Some(0) => "/".to_string(),
                Some(i) => prefix[..i].to_string(),
                None => ".".to_string(),
            }
        } else {
            t.clone()
        };
        let abs = if known { ctx.resolve(&base) } else { None };
        let Some(abs) = abs else {
            out.push(Finding::floor(
                Verdict::Ask,
                format!("`{what}` deletes `{t}`, which is only known when the command runs"),
                "recursive delete",
            ));
            continue;
        };
        match ctx.relative(&abs) {
            None => out.push(Finding::floor(
                Verdict::Deny,
                format!("`{what}` would delete or change `{}` and everything in it, outside the project folder (built-in rule)", abs.display()),
                "recursive delete outside the project",
            )),
            Some(rel) if rel.is_empty() => out.push(Finding::floor(
                Verdict::Ask,
                format!("`{what}` would delete or change the whole project folder"),
                "recursive delete of the project",
            )),
            Some(_) => {
                out.extend(judge_path(policy, ctx, &abs, Access::Write));
                out.push(write_by_mode(ctx, mode, &abs));
            }
        }
    }
}

/// The rule lists and the mode, for one literal command.
#[allow(clippy::too_many_arguments)]
fn judge_rules(
    policy: &Policy,
    ctx: &Context,
    mode: Mode,
    name: &str,
    words: &[&str],
    no_writes: bool,
    literal: bool,
    out: &mut Vec<Finding>,
) {
    let _ = ctx;
    let args = Args::split(name, &words[1..]);
    let shown = words.join(" ");
    let mut allowed: Option<Finding> = None;
    for rule in &policy.commands {
        match rule.verdict {
            Verdict::Deny | Verdict::Ask if rule.pattern.matches_lenient(name, &args) => {
                let reason = rule.reason.clone().unwrap_or_else(|| match rule.verdict {
                    Verdict::Deny => format!(
                        "`{shown}` is blocked by the rule `{}` ({})",
                        rule.pattern.text(),
                        rule.source.label()
                    ),
                    _ => format!(
                        "`{shown}` needs your approval: rule `{}` ({})",
                        rule.pattern.text(),
                        rule.source.label()
                    ),
                });
                let verdict = rule.verdict;
                let f = Finding::new(
                    verdict,
                    reason,
                    format!(
                        "commands.{} \"{}\"",
                        if verdict == Verdict::Deny {
                            "deny"
                        } else {
                            "ask"
                        },
                        rule.pattern.text()
                    ),
                    rule.source.clone(),
                );
                out.push(f);
            }
            Verdict::Allow if literal && rule.pattern.matches_strict(name, &args) => {
                let spec = rule.pattern.specificity();
                if allowed.as_ref().is_none_or(|a| spec > a.specificity) {
                    allowed = Some(
                        Finding::new(
                            Verdict::Allow,
                            format!(
                                "`{}` is allowed ({})",
                                rule.pattern.text(),
                                rule.source.label()
                            ),
                            format!("commands.allow \"{}\"", rule.pattern.text()),
                            rule.source.clone(),
                        )
                        .with_specificity(spec),
                    );
                }
            }
            _ => {}
        }
    }
    let read_only = literal && no_writes && is_read_only(name, &words[1..]);
    if mode == Mode::ReadOnly {
        if read_only {
            out.push(
                Finding::floor(
                    Verdict::Allow,
                    format!("`{name}` only reads"),
                    "read-only command",
                )
                .with_specificity(1),
            );
        } else {
            out.push(Finding::floor(
                Verdict::Deny,
                format!("read-only mode: `{shown}` could change things, so it does not run"),
                "read_only mode",
            ));
        }
        return;
    }
    if let Some(a) = allowed {
        out.push(a);
        return;
    }
    if read_only {
        out.push(
            Finding::floor(
                Verdict::Allow,
                format!("`{name}` only reads"),
                "read-only command",
            )
            .with_specificity(1),
        );
        return;
    }
    match mode {
        Mode::FullAuto => out.push(Finding::floor(
            Verdict::Allow,
            "full_auto mode runs commands that no rule stops",
            "full_auto mode",
        )),
        _ => {
            let suggestions = if literal {
                suggest::command_pattern(words)
                    .map(|p| suggest::command(&p))
                    .unwrap_or_default()
            } else {
                Vec::new()
            };
            out.push(
                Finding::floor(
                    Verdict::Ask,
                    format!("`{shown}` needs your approval ({mode} mode asks before commands)"),
                    &format!("{mode} mode"),
                )
                .with_suggestions(suggestions),
            );
        }
    }
}
