//! git: which sub-commands only read, which reach the network, which throw work away, which
//! run programs, which write git's configuration — and git's abbreviated options (`--har` is
//! `--hard`), spelled out before the rules see them.

use crate::command::{At, Facts, Judge};
use crate::decision::{Finding, Verdict};
use crate::paths::{Access, protections};
use crate::searches::Scope;
use crate::shell::Word;
use std::path::Path;

/// Global options that take the next word as their value.
const GLOBAL_VALUES: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--super-prefix",
    "--config-env",
    "--exec-path",
    "--list-cmds",
    "--attr-source",
];

/// Long options of interest per sub-command: an abbreviation of one of them is taken for it
/// (git accepts any unambiguous prefix; the dangerous reading wins a tie).
const LONG_OPTIONS: &[(&str, &[&str])] = &[
    (
        "reset",
        &["--hard", "--merge", "--keep", "--soft", "--mixed"],
    ),
    (
        "push",
        &[
            "--force",
            "--force-with-lease",
            "--force-if-includes",
            "--delete",
            "--mirror",
            "--prune",
            "--all",
            "--tags",
        ],
    ),
    (
        "checkout",
        &[
            "--force", "--ours", "--theirs", "--patch", "--detach", "--orphan",
        ],
    ),
    (
        "restore",
        &["--worktree", "--staged", "--source", "--patch"],
    ),
    (
        "switch",
        &["--discard-changes", "--force", "--force-create", "--create"],
    ),
    (
        "branch",
        &["--delete", "--force", "--move", "--copy", "--list"],
    ),
    ("clean", &["--force", "--dry-run"]),
    (
        "grep",
        &["--open-files-in-pager", "--untracked", "--no-index"],
    ),
    ("difftool", &["--extcmd", "--tool", "--tool-help"]),
    ("mergetool", &["--tool", "--tool-help"]),
    ("log", LOG_LONG),
    ("whatchanged", LOG_LONG),
    ("reflog", LOG_LONG),
    ("diff-tree", LOG_LONG),
    ("diff-index", LOG_LONG),
    ("range-diff", LOG_LONG),
    ("show", LOG_LONG),
    (
        "diff",
        &[
            "--output",
            "--no-index",
            "--cached",
            "--staged",
            "--merge-base",
            "--patch",
            "--patch-with-stat",
            "--patch-with-raw",
            "--cc",
            "--unified",
            "--word-diff",
            "--color-words",
            "--function-context",
            "--binary",
        ],
    ),
    ("format-patch", &["--output-directory", "--output"]),
    ("rebase", &["--exec"]),
    (
        "config",
        &[
            "--global",
            "--system",
            "--file",
            "--unset",
            "--unset-all",
            "--add",
            "--replace-all",
            "--get",
            "--get-all",
            "--get-regexp",
            "--list",
            "--edit",
            "--rename-section",
            "--remove-section",
            "--show-origin",
            "--show-scope",
            "--get-urlmatch",
            "--get-color",
            "--get-colorbool",
        ],
    ),
    ("gc", &["--prune"]),
    ("stash", &["--patch"]),
];

/// The long options of the log-like sub-commands of interest: where they write, and those
/// that print changes (see [`crate::git_history`]).
const LOG_LONG: &[&str] = &[
    "--output",
    "--patch",
    "--patch-with-stat",
    "--patch-with-raw",
    "--cc",
    "--full-diff",
    "--unified",
    "--word-diff",
    "--color-words",
    "--function-context",
    "--binary",
];

/// Options of the fetching sub-commands that name a program git runs (locally, for a local or
/// ssh remote), or hooks and configuration to start the new repository with.
const RUNS_PROGRAM: &[&str] = &[
    "--upload-pack",
    "--receive-pack",
    "--exec",
    "--template",
    "--config",
    "--separate-git-dir",
];

/// Sub-commands that only read (with the conditions checked in [`reads`]).
const READS: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "blame",
    "annotate",
    "rev-parse",
    "ls-files",
    "ls-tree",
    "describe",
    "shortlog",
    "grep",
    "cat-file",
    "rev-list",
    "for-each-ref",
    "merge-base",
    "name-rev",
    "count-objects",
    "check-ignore",
    "check-attr",
    "check-ref-format",
    "var",
    "version",
    "help",
    "whatchanged",
    "cherry",
    "range-diff",
    "show-ref",
    "show-branch",
    "verify-commit",
    "verify-tag",
    "diff-files",
    "diff-index",
    "diff-tree",
];

/// Sub-commands that reach the network.
const NETWORK: &[&str] = &[
    "fetch",
    "pull",
    "clone",
    "ls-remote",
    "push",
    "send-email",
    "request-pull",
    "daemon",
    "instaweb",
    "svn",
    "p4",
];

/// git as the rules see it: the sub-command and its options, abbreviations spelled out.
pub struct Invocation<'w> {
    pub sub: Option<&'w str>,
    /// Index of the sub-command in the words.
    pub at: usize,
    /// The arguments after the sub-command, long options spelled out in full.
    pub args: Vec<String>,
    /// `-C dir`: the folder git works in.
    pub chdir: Option<&'w Word>,
    /// An argument is only known when it runs (it could be `--output=…`).
    pub computed: bool,
}

pub fn parse(words: &[Word]) -> (Invocation<'_>, Vec<Finding>) {
    let mut findings = Vec::new();
    let mut i = 1;
    let mut chdir = None;
    while let Some(w) = words.get(i) {
        let Some(a) = w.literal() else {
            findings.push(Finding::floor(
                Verdict::Ask,
                format!("git is given “{}”, only known when it runs (it could be an option that makes git run a program)", w.shown()),
                "git configuration",
            ));
            i += 1;
            continue;
        };
        if !a.starts_with('-') {
            break;
        }
        let name = a.split('=').next().unwrap_or(a);
        if name.starts_with("-c") || name == "--config-env" || name == "--exec-path" {
            findings.push(Finding::floor(
                Verdict::Ask,
                "“git -c” can make git run any program (through its configuration)",
                "git configuration",
            ));
        }
        if a == "-C" {
            chdir = words.get(i + 1);
        }
        i += if GLOBAL_VALUES.contains(&a) { 2 } else { 1 };
    }
    let sub = words.get(i).and_then(Word::literal);
    let known: &[&str] = sub
        .and_then(|s| LONG_OPTIONS.iter().find(|(n, _)| *n == s))
        .map(|(_, o)| *o)
        .unwrap_or(&[]);
    let mut args = Vec::new();
    let mut options_done = false;
    let computed = words.iter().skip(i + 1).any(|w| w.literal().is_none());
    for w in words.iter().skip(i + 1) {
        let a = w.shown();
        if options_done || !a.starts_with("--") || w.literal().is_none() {
            options_done |= a == "--";
            args.push(a.to_string());
            continue;
        }
        if a == "--" {
            options_done = true;
            args.push(a.to_string());
            continue;
        }
        let (name, value) = a.split_once('=').map_or((a, None), |(n, v)| (n, Some(v)));
        let full = known
            .iter()
            .find(|o| **o == name)
            .or_else(|| {
                known
                    .iter()
                    .find(|o| name.len() >= 3 && o.starts_with(name))
            })
            .copied()
            .unwrap_or(name);
        args.push(match value {
            Some(v) => format!("{full}={v}"),
            None => full.to_string(),
        });
    }
    (
        Invocation {
            sub,
            at: i,
            args,
            chdir,
            computed,
        },
        findings,
    )
}

/// Judges a git command; leaves the rule lists and the mode to the caller.
pub fn judge(j: &mut Judge, words: &[Word], at: &At, facts: &mut Facts) {
    let (inv, findings) = parse(words);
    for f in findings {
        j.push(f);
    }
    let here = match inv.chdir {
        Some(d) => at.in_dir(j.dir(d, at)),
        None => at.clone(),
    };
    let mut rule_words: Vec<String> = words[..inv.at.min(words.len())]
        .iter()
        .map(|w| w.shown().to_string())
        .collect();
    if let Some(s) = inv.sub {
        rule_words.push(s.to_string());
    }
    rule_words.extend(inv.args.iter().cloned());
    facts.rule_words = Some(rule_words);
    let Some(sub) = inv.sub else {
        facts.read_only = Some(
            words.len() == 1
                || words
                    .iter()
                    .skip(1)
                    .filter_map(Word::literal)
                    .all(|a| matches!(a, "--version" | "--help" | "-h" | "--no-pager")),
        );
        return;
    };
    let args: Vec<&str> = inv.args.iter().map(String::as_str).collect();
    let operands: Vec<&str> = args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .copied()
        .collect();
    let has = |o: &str| {
        args.iter()
            .any(|a| *a == o || a.starts_with(&format!("{o}=")))
    };
    let short = |c: char| {
        args.iter()
            .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains(c))
    };
    let dashdash = args.iter().position(|a| *a == "--");

    revision_paths(j, &args, &here);
    crate::git_history::judge(j, sub, &args, &here);

    let network = NETWORK.contains(&sub)
        || (sub == "submodule"
            && operands
                .first()
                .is_some_and(|s| matches!(*s, "update" | "add" | "sync")))
        || (sub == "remote"
            && operands
                .first()
                .is_some_and(|s| matches!(*s, "update" | "show" | "prune")))
        || (sub == "archive" && has("--remote"))
        || (sub == "lfs"
            && operands
                .first()
                .is_some_and(|s| matches!(*s, "fetch" | "pull" | "push" | "clone")));
    facts.network |= network;

    let runs_program = RUNS_PROGRAM.iter().any(|o| has(o))
        || (sub == "clone" && (short('u') || short('c')))
        || (sub == "push" && (has("--receive-pack") || has("--exec")));
    if runs_program {
        j.ask(
            format!("“git {sub}” is told which program to run or which hooks and configuration to use, which can run any code"),
            "git configuration",
        );
    }
    let throws_away = |reason: &str, j: &mut Judge| {
        j.ask(format!("“git {sub}” {reason}"), "destructive git");
    };
    match sub {
        "reset" if has("--hard") || has("--merge") || has("--keep") => {
            throws_away("throws away uncommitted changes", j);
        }
        "checkout"
            if dashdash.is_some()
                || has("--force")
                || short('f')
                || has("--ours")
                || has("--theirs")
                || operands.iter().any(|o| *o == "." || o.starts_with(":/")) =>
        {
            throws_away(
                "overwrites files with their committed version, throwing away uncommitted changes",
                j,
            );
        }
        "restore" if has("--worktree") || short('W') || !(has("--staged") || short('S')) => {
            throws_away(
                "overwrites files with their committed version, throwing away uncommitted changes",
                j,
            );
        }
        "switch"
            if has("--discard-changes")
                || has("--force")
                || short('f')
                || short('C')
                || has("--force-create") =>
        {
            throws_away("throws away uncommitted changes or resets a branch", j);
        }
        "push"
            if has("--force")
                || short('f')
                || has("--force-with-lease")
                || has("--force-if-includes")
                || has("--delete")
                || short('d')
                || has("--mirror")
                || has("--prune")
                || operands
                    .iter()
                    .skip(1)
                    .any(|o| o.starts_with('+') || o.starts_with(':')) =>
        {
            throws_away("rewrites or deletes branches on the server", j);
        }
        "branch"
            if short('D')
                || ((has("--delete") || short('d')) && (has("--force") || short('f')))
                || short('M')
                || short('C') =>
        {
            throws_away(
                "deletes or overwrites a branch and the commits only it holds",
                j,
            );
        }
        "clean" => throws_away("deletes untracked files for good", j),
        "stash"
            if operands
                .first()
                .is_some_and(|s| matches!(*s, "drop" | "clear")) =>
        {
            throws_away("deletes stashed changes for good", j);
        }
        "reflog"
            if operands
                .first()
                .is_some_and(|s| matches!(*s, "expire" | "delete")) =>
        {
            throws_away("deletes the record that lets lost commits be found", j);
        }
        "gc" if has("--prune") => throws_away("deletes unreachable commits for good", j),
        "update-ref" if short('d') => throws_away("deletes a reference", j),
        "filter-branch" | "filter-repo" => throws_away("rewrites the whole history", j),
        "credential" | "credential-store" | "credential-cache" => {
            j.ask(
                "“git credential” reads or stores your passwords and tokens",
                "secrets",
            );
        }
        "config" => config(j, &args, &operands, at, facts),
        "submodule" if operands.first() == Some(&"foreach") => {
            j.ask(
                "“git submodule foreach” runs a shell command in every submodule",
                "program that runs commands",
            );
            let script: Vec<&str> = operands.iter().skip(1).copied().collect();
            j.source(&script.join(" "), &here.in_dir(None).deeper());
        }
        "difftool" | "mergetool" if has("--extcmd") || short('x') => {
            j.ask(
                format!("“git {sub} -x” runs the command it is given"),
                "program that runs commands",
            );
        }
        "grep" if has("--open-files-in-pager") || short('O') => {
            j.ask(
                "“git grep -O” opens the files in a program it is given",
                "program that runs commands",
            );
        }
        "rebase" if has("--exec") || short('x') => {
            j.ask(
                "“git rebase -x” runs a command after each commit",
                "program that runs commands",
            );
        }
        "bisect" if operands.first() == Some(&"run") => {
            let pos = words.iter().position(|w| w.literal() == Some("run"));
            if let Some(p) = pos.filter(|p| *p + 1 < words.len()) {
                j.words(&words[p + 1..], &here.deeper());
            }
        }
        "rm" => {
            let targets: Vec<Word> = operands
                .iter()
                .map(|o| Word::Literal((*o).to_string()))
                .collect();
            if !has("--cached") {
                let refs: Vec<&Word> = targets.iter().collect();
                if short('r') {
                    j.delete_tree("git rm -r", &refs, &here);
                } else {
                    for t in refs {
                        j.write(t, &here, "git rm");
                    }
                }
            }
        }
        "mv" => {
            for o in &operands {
                j.write(&Word::Literal((*o).to_string()), &here, "git mv");
            }
        }
        "clone" => {
            let target = operands.get(1).map(|d| Word::Literal((*d).to_string()));
            if let Some(t) = target {
                j.write(&t, &here, "git clone");
            }
        }
        "worktree" if operands.first() == Some(&"add") => {
            if let Some(p) = operands.get(1) {
                j.write(&Word::Literal((*p).to_string()), &here, "git worktree add");
            }
        }
        "init" => {
            if let Some(p) = operands.first() {
                j.write(&Word::Literal((*p).to_string()), &here, "git init");
            }
        }
        _ => {}
    }
    for a in &args {
        if let Some(file) = a
            .strip_prefix("--output=")
            .or_else(|| a.strip_prefix("--output-directory="))
        {
            j.write(&Word::Literal(file.to_string()), &here, "git");
        }
    }
    if let Some(p) = args.iter().position(|a| {
        matches!(*a, "--output" | "--output-directory" | "-o")
            && matches!(
                sub,
                "log" | "diff" | "show" | "format-patch" | "archive" | "bundle"
            )
    }) && let Some(file) = args.get(p + 1)
    {
        j.write(&Word::Literal(file.to_string()), &here, "git");
    }
    if sub == "grep" && (has("--untracked") || has("--no-index")) {
        j.reach(
            "git grep --untracked",
            &Word::Literal(".".into()),
            &here,
            Scope::default(),
        );
    }
    facts.read_only = Some(!network && !inv.computed && reads(sub, &args, &operands));
    facts.no_suggestions |= sub == "config";
}

/// Whether a sub-command with these arguments only reads.
fn reads(sub: &str, args: &[&str], operands: &[&str]) -> bool {
    let no_output = !args
        .iter()
        .any(|a| a.starts_with("--output") || a.starts_with("--ext-diff"));
    match sub {
        "grep" => !args.iter().any(|a| {
            a.starts_with("--open-files-in-pager")
                || a.starts_with("--untracked")
                || a.starts_with("--no-index")
                || (a.starts_with('-') && !a.starts_with("--") && a.contains('O'))
        }),
        "branch" => {
            operands.is_empty()
                || args.iter().any(|a| {
                    matches!(
                        *a,
                        "--list" | "-l" | "--contains" | "--merged" | "--no-merged" | "--points-at"
                    )
                }) && !args.iter().any(|a| {
                    a.starts_with("--delete")
                        || a.starts_with("--move")
                        || a.starts_with("--copy")
                        || (a.starts_with('-')
                            && !a.starts_with("--")
                            && a.contains(['d', 'D', 'm', 'M', 'c', 'C']))
                })
        }
        "tag" => operands.is_empty() || args.iter().any(|a| matches!(*a, "-l" | "--list")),
        "remote" => operands.is_empty() || operands.first() == Some(&"get-url"),
        "stash" => operands
            .first()
            .is_some_and(|s| matches!(*s, "list" | "show")),
        "worktree" => operands.first() == Some(&"list"),
        "reflog" => operands.first().is_none_or(|s| *s == "show"),
        "symbolic-ref" => {
            operands.len() <= 1 && !args.iter().any(|a| a.starts_with("-d") || *a == "--delete")
        }
        "config" => config_reads(args, operands),
        _ => READS.contains(&sub) && no_output,
    }
}

/// `git config` that only reads: `--get…`, `--list`, or a key alone.
fn config_reads(args: &[&str], operands: &[&str]) -> bool {
    let reading = args.iter().any(|a| {
        a.starts_with("--get") || matches!(*a, "--list" | "-l" | "--show-origin" | "--show-scope")
    }) || matches!(operands.first(), Some(&"get") | Some(&"list"));
    let writing = args.iter().any(|a| {
        a.starts_with("--unset")
            || a.starts_with("--add")
            || a.starts_with("--replace-all")
            || a.starts_with("--rename-section")
            || a.starts_with("--remove-section")
            || *a == "--edit"
            || *a == "-e"
    }) || matches!(
        operands.first(),
        Some(&"set")
            | Some(&"unset")
            | Some(&"edit")
            | Some(&"rename-section")
            | Some(&"remove-section")
    );
    !writing && (reading || operands.len() == 1)
}

/// `git config` that writes: git's configuration can make git run any program (a pager, an
/// fsmonitor, hooks elsewhere), and the sandbox keeps the repository's own read-only.
fn config(j: &mut Judge, args: &[&str], operands: &[&str], at: &At, facts: &mut Facts) {
    if config_reads(args, operands) {
        return;
    }
    facts.no_suggestions = true;
    if args.contains(&"--global") {
        if let Some(home) = j.ctx.home {
            let file = home.join(".gitconfig").to_string_lossy().into_owned();
            j.write_path(&file, at);
        } else {
            j.ask(
                "“git config --global” writes your git configuration",
                "git configuration",
            );
        }
        return;
    }
    if args.contains(&"--system") {
        j.write_path("/etc/gitconfig", at);
        return;
    }
    if let Some(p) = args.iter().position(|a| *a == "--file" || *a == "-f")
        && let Some(file) = args.get(p + 1)
    {
        j.write(&Word::Literal((*file).to_string()), at, "git config");
        return;
    }
    j.push(
        Finding::floor(
            Verdict::Ask,
            "“git config” writes the repository's configuration (“.git/config”), which can make git run programs; the sandbox keeps it read-only, so this command would have to run outside it",
            "git configuration",
        )
        .leaving_sandbox(),
    );
}

/// `REV:path` names a file's content in history (`git show HEAD:.env`): a protected path counts
/// as read.
fn revision_paths(j: &mut Judge, args: &[&str], at: &At) {
    for a in args {
        if a.starts_with('-') || a.contains("://") {
            continue;
        }
        let Some((rev, path)) = a.split_once(':') else {
            continue;
        };
        if path.is_empty() || rev.contains('@') && rev.contains('.') {
            continue;
        }
        // `HEAD:path` is from the top of the repository; `HEAD:./path` from here.
        let abs = if path.starts_with("./") || path.starts_with("../") {
            match &at.cwd {
                Some(c) => crate::call::normalize(&c.join(path)),
                None => continue,
            }
        } else {
            j.ctx.project_root.join(path)
        };
        if crate::private_tmp::contains(&abs) {
            continue;
        }
        let found = protections(j.policy, j.ctx, Path::new(&abs), Access::Read);
        for f in found.into_iter().filter(|f| f.verdict == Verdict::Deny) {
            j.push(Finding {
                reason: format!(
                    "“{a}” is the content of “{path}” in git's history: {}",
                    f.reason
                ),
                ..f
            });
        }
    }
}
