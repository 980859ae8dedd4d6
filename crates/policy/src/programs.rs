//! Programs with a judgement of their own: those that run commands through their own options
//! (`sed e`, `awk 'system(…)'`, `tar --checkpoint-action=exec=…`, `make --eval`, `find -exec`,
//! `xargs`, `parallel`), the administrator's tools, what lists the environment, recursive
//! searches, and the machine's power and processes.

use crate::command::{At, Facts, Flow, Judge};
use crate::decision::{Finding, Verdict};
use crate::env_vars::{self, Risk};
use crate::interpreters;
use crate::readonly::{self, acts};
use crate::shell::{Word, basename};
use crate::{network, wrappers};

/// Programs that run commands as the administrator.
const ADMIN: &[&str] = &["sudo", "doas", "su", "pkexec", "run0", "runuser", "sg"];

/// Programs that format, wipe or repartition disks, or stop the machine.
const MACHINE_KILLERS: &[&str] = &[
    "mke2fs",
    "mkswap",
    "mkdosfs",
    "mkntfs",
    "mkfs",
    "wipefs",
    "fdisk",
    "sfdisk",
    "cfdisk",
    "gdisk",
    "sgdisk",
    "parted",
    "blkdiscard",
    "killall5",
];

/// Programs that change the system (mounts, modules, network setup, users, scheduled jobs):
/// always a question.
const SYSTEM_CHANGERS: &[&str] = &[
    "mount",
    "umount",
    "swapon",
    "swapoff",
    "modprobe",
    "insmod",
    "rmmod",
    "sysctl",
    "ip",
    "ifconfig",
    "iptables",
    "ip6tables",
    "nft",
    "ufw",
    "firewall-cmd",
    "useradd",
    "userdel",
    "usermod",
    "groupadd",
    "groupdel",
    "passwd",
    "chpasswd",
    "chsh",
    "visudo",
    "at",
    "batch",
    "systemd-run",
    "launchctl",
    "service",
    "update-rc.d",
    "chroot",
    "unshare",
    "nsenter",
    "setcap",
    "losetup",
    "cryptsetup",
    "dmsetup",
    "xdg-open",
    "open",
];

/// Commands of `systemctl` / `loginctl` that stop or restart the machine or end sessions.
const POWER: &[&str] = &[
    "poweroff",
    "reboot",
    "halt",
    "kexec",
    "suspend",
    "hibernate",
    "hybrid-sleep",
    "suspend-then-hibernate",
    "emergency",
    "rescue",
    "isolate",
    "default",
    "soft-reboot",
    "kill-session",
    "kill-user",
    "terminate-session",
    "terminate-user",
];

/// Programs whose options and operands this module or another knows; an unknown program's
/// arguments are searched for a command it may run.
const KNOWN: &[&str] = &[
    "make", "cmake", "cargo", "npm", "pnpm", "yarn", "go", "pytest", "docker", "kubectl", "rustc",
    "gcc", "clang", "tsc", "javac", "java", "mvn", "gradle", "dotnet", "pip", "pip3", "uv",
    "poetry", "ln", "rm", "mv", "cp", "mkdir", "touch", "chmod", "chown", "kill", "pkill",
    "killall", "zip", "unzip", "gzip", "gunzip", "patch", "echo", "printf",
];

const ENV_LISTING: &str = "lists the environment, which holds API keys and tokens";

/// Programs judged before the wrapper table: the administrator's, `env`, `busybox`, `xargs`,
/// `parallel` and the shell's own commands that run text.
pub fn before_wrappers(
    j: &mut Judge,
    name: &str,
    words: &[Word],
    at: &At,
    facts: &mut Facts,
) -> Option<Flow> {
    let lit: Vec<Option<&str>> = words.iter().map(Word::literal).collect();
    let first = lit.get(1).copied().flatten();
    match name {
        _ if ADMIN.contains(&name) => {
            j.deny(
                format!("`{name}` runs commands as the administrator; the agent never does that. Run it yourself in a terminal if it is needed."),
                "sudo",
            );
            let mut i = 1;
            while let Some(a) = lit.get(i).copied().flatten() {
                if !a.starts_with('-') {
                    break;
                }
                if a == "-c" && name == "su" {
                    if let Some(s) = words.get(i + 1) {
                        j.script(s, &at.deeper());
                    }
                    return Some(Flow::Done);
                }
                let takes = matches!(
                    a,
                    "-u" | "-g" | "-C" | "-D" | "-h" | "-p" | "-r" | "-t" | "-U"
                );
                i += if takes { 2 } else { 1 };
            }
            if let Some(rest) = words.get(i..).filter(|r| !r.is_empty()) {
                j.words(rest, &at.deeper());
            }
            Some(Flow::Done)
        }
        "env" => Some(env(j, words, at)),
        "busybox" => match first {
            Some(applet) if !applet.starts_with('-') => {
                j.words(&words[1..], &at.deeper());
                Some(Flow::Done)
            }
            _ => None,
        },
        "xargs" => Some(xargs(j, words, at)),
        "parallel" => Some(parallel(j, words, at)),
        "command" if matches!(first, Some("-v") | Some("-V")) => {
            facts.read_only = Some(true);
            Some(Flow::Continue)
        }
        "exec" if words.len() == 1 => {
            facts.read_only = Some(true);
            Some(Flow::Continue)
        }
        "eval" => {
            j.ask(
                "`eval` runs text as a command, which Tandem can only partly see through",
                "eval",
            );
            let parts: Option<Vec<&str>> = lit[1..].iter().copied().collect();
            if let Some(parts) = parts {
                j.source(&parts.join(" "), &at.deeper());
            }
            Some(Flow::Done)
        }
        "source" | "." => {
            j.ask("`source` runs a file's commands in the shell", "source");
            Some(Flow::Done)
        }
        "alias" | "trap" | "complete" | "bind" | "enable" | "hash" | "fc" => {
            let lists = words.len() == 1
                || (name == "trap" && matches!(first, Some("-l") | Some("-p")))
                || (name == "hash" && !lit.contains(&Some("-p")))
                || (name == "alias"
                    && lit[1..].iter().all(|a| a.is_some_and(|a| !a.contains('='))));
            if lists && name != "fc" {
                facts.read_only = Some(true);
                return Some(Flow::Continue);
            }
            j.ask(
                format!(
                    "`{name}` defines or replays a command to run later, which Tandem cannot follow"
                ),
                "deferred command",
            );
            Some(Flow::Done)
        }
        _ => None,
    }
}

/// `env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE…] [COMMAND…]`.
fn env(j: &mut Judge, words: &[Word], at: &At) -> Flow {
    let mut i = 1;
    let mut inner = at.deeper();
    while let Some(w) = words.get(i) {
        let Some(a) = w.literal() else {
            j.ask(
                format!(
                    "`env` is given `{}`, only known when the command runs",
                    w.shown()
                ),
                "computed command name",
            );
            return Flow::Done;
        };
        if a == "--" {
            i += 1;
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (opt, glued) = long
                .split_once('=')
                .map_or((long, None), |(o, v)| (o, Some(v)));
            let value = |i: &mut usize| -> Option<Word> {
                match glued {
                    Some(v) => Some(Word::Literal(v.to_string())),
                    None => {
                        *i += 1;
                        words.get(*i).cloned()
                    }
                }
            };
            match opt {
                "split-string" => {
                    if let Some(s) = value(&mut i) {
                        j.script(&s, &at.deeper());
                    }
                    return Flow::Done;
                }
                "chdir" => {
                    if let Some(d) = value(&mut i) {
                        inner = inner.in_dir(j.dir(&d, at));
                    }
                }
                "unset" => {
                    let _ = value(&mut i);
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        if a.starts_with('-') && a.len() > 1 {
            let letters: Vec<char> = a.chars().skip(1).collect();
            for (k, c) in letters.iter().enumerate() {
                if !matches!(c, 'S' | 'u' | 'C') {
                    continue;
                }
                let rest: String = letters[k + 1..].iter().collect();
                let value = if rest.is_empty() {
                    i += 1;
                    words.get(i).cloned()
                } else {
                    Some(Word::Literal(rest))
                };
                match (c, value) {
                    ('S', Some(s)) => {
                        j.script(&s, &at.deeper());
                        return Flow::Done;
                    }
                    ('C', Some(d)) => inner = inner.in_dir(j.dir(&d, at)),
                    _ => {}
                }
                break;
            }
            i += 1;
            continue;
        }
        if let Some((var, value)) = a.split_once('=') {
            match env_vars::risk(var, &Word::Literal(value.to_string())) {
                Risk::Code(why) => {
                    j.ask(
                        format!("setting `{var}` {why}"),
                        "environment that runs code",
                    );
                    inner.tainted = true;
                }
                Risk::Unknown => inner.tainted = true,
                Risk::Benign => {}
            }
            i += 1;
            continue;
        }
        break;
    }
    match words.get(i..).filter(|r| !r.is_empty()) {
        Some(rest) => j.words(rest, &inner),
        None => j.ask(format!("`env` {ENV_LISTING}"), "environment listing"),
    }
    Flow::Done
}

/// `xargs [options] [command [args]]`: the command runs with what arrives on its input, so its
/// operands (or the `-I` placeholder) are only known when it runs.
fn xargs(j: &mut Judge, words: &[Word], at: &At) -> Flow {
    const VALUES: &[&str] = &[
        "-I",
        "-n",
        "-P",
        "-d",
        "-L",
        "-s",
        "-E",
        "-a",
        "--arg-file",
        "--delimiter",
        "--max-args",
        "--max-procs",
        "--max-lines",
        "--max-chars",
        "--eof",
        "--process-slot-var",
    ];
    let mut i = 1;
    let mut replace: Option<String> = None;
    while let Some(a) = words.get(i).and_then(Word::literal) {
        if a == "--" {
            i += 1;
            break;
        }
        if !a.starts_with('-') || a.len() == 1 {
            break;
        }
        if a == "-I" {
            replace = words.get(i + 1).and_then(Word::literal).map(str::to_string);
        } else if let Some(r) = a
            .strip_prefix("-I")
            .or_else(|| a.strip_prefix("--replace="))
        {
            replace = Some(r.to_string());
        } else if a == "-i" || a == "--replace" {
            replace = Some("{}".into());
        } else if let Some(r) = a.strip_prefix("-i") {
            replace = Some(r.to_string());
        }
        i += if VALUES.contains(&a) { 2 } else { 1 };
    }
    let mut inner: Vec<Word> = match words.get(i..).filter(|r| !r.is_empty()) {
        Some(rest) => rest.to_vec(),
        None => vec![Word::Literal("echo".into())],
    };
    match &replace {
        Some(r) if !r.is_empty() => {
            for w in inner.iter_mut().skip(1) {
                if w.literal().is_some_and(|a| a.contains(r.as_str())) {
                    *w = Word::Dynamic(format!("<{} from xargs' input>", w.shown()));
                }
            }
            if inner
                .first()
                .and_then(Word::literal)
                .is_some_and(|a| a.contains(r.as_str()))
            {
                inner[0] = Word::Dynamic("<program from xargs' input>".into());
            }
        }
        _ => inner.push(Word::Dynamic("<input from xargs>".into())),
    }
    j.words(&inner, &at.deeper());
    Flow::Done
}

/// GNU `parallel`: its command template runs through a shell with each argument; without a
/// template, each argument is itself a command.
fn parallel(j: &mut Judge, words: &[Word], at: &At) -> Flow {
    const VALUES: &[&str] = &[
        "-j",
        "--jobs",
        "-S",
        "--sshlogin",
        "-a",
        "--arg-file",
        "-I",
        "-d",
        "--delimiter",
        "-N",
        "-n",
        "--max-args",
        "-L",
        "--max-lines",
        "--joblog",
        "--results",
        "--timeout",
        "--delay",
        "--tmpdir",
        "--workdir",
        "--wd",
        "--env",
        "--retries",
        "--halt",
        "--colsep",
        "-C",
        "--tag-string",
        "--tagstring",
        "-E",
        "--eof",
        "--load",
        "--memfree",
        "--nice",
        "-P",
    ];
    let mut i = 1;
    while let Some(a) = words.get(i).and_then(Word::literal) {
        if !a.starts_with('-') || a.starts_with(":::") || a == "--" {
            break;
        }
        if matches!(a, "-S" | "--sshlogin") || a.starts_with("--sshlogin=") {
            j.push(
                Finding::floor(
                    Verdict::Ask,
                    "`parallel -S` runs the commands on other machines over the network",
                    "network",
                )
                .with_network(true),
            );
        }
        i += if VALUES.contains(&a) { 2 } else { 1 };
    }
    let rest = words.get(i..).unwrap_or(&[]);
    let sep = rest
        .iter()
        .position(|w| w.literal().is_some_and(|a| a.starts_with(":::")));
    let (template, inputs) = match sep {
        Some(s) => (&rest[..s], Some(&rest[s + 1..])),
        None => (rest, None),
    };
    let template: Option<Vec<&str>> = template.iter().map(Word::literal).collect();
    let inputs: Option<Vec<&str>> = inputs.map(|ins| {
        ins.iter()
            .filter_map(Word::literal)
            .filter(|a| !a.starts_with(":::"))
            .collect()
    });
    let Some(template) = template else {
        j.ask(
            "`parallel` runs a command only known when it runs",
            "computed script",
        );
        return Flow::Done;
    };
    match (template.is_empty(), inputs) {
        (true, Some(cmds)) => {
            for c in cmds {
                j.source(c, &at.deeper());
            }
        }
        (false, Some(args)) if args.len() <= 64 => {
            let t = template.join(" ");
            for a in args {
                let line = if t.contains("{}") {
                    t.replace("{}", a)
                } else {
                    format!("{t} {a}")
                };
                j.source(&line, &at.deeper());
            }
        }
        (false, _) => {
            let mut inner: Vec<Word> = template
                .iter()
                .map(|a| Word::Literal((*a).to_string()))
                .collect();
            inner.push(Word::Dynamic("<input from parallel>".into()));
            j.words(&inner, &at.deeper());
            j.ask(
                "`parallel` runs its command through a shell with input only known when it runs",
                "computed script",
            );
        }
        (true, None) => j.ask(
            "`parallel` runs each line of its input as a command",
            "pipe into a shell",
        ),
    }
    Flow::Done
}

/// The programs judged after the wrappers, shells, interpreters and git.
pub fn judge(j: &mut Judge, name: &str, words: &[Word], at: &At, facts: &mut Facts) -> Flow {
    facts.network |= network::wants(name, words);
    let lit: Vec<Option<&str>> = words.iter().map(Word::literal).collect();
    let sub = lit
        .iter()
        .skip(1)
        .flatten()
        .find(|a| !a.starts_with('-'))
        .copied();
    match name {
        "find" => find(j, words, at, facts),
        "fd" | "fdfind" => fd(j, words, at, facts),
        "sed" | "gsed" => sed(j, words, at, facts),
        "awk" | "gawk" | "mawk" | "nawk" => awk(j, words, at, facts),
        "tar" | "bsdtar" | "gtar" => tar(j, words, at, facts),
        "make" | "gmake" => make(j, words),
        "jq" => {
            if let Some(program) = words
                .iter()
                .skip(1)
                .find(|w| w.literal().is_none_or(|a| !a.starts_with('-')))
            {
                let text = program.shown();
                if text.contains("$ENV")
                    || text
                        .split(|c: char| !c.is_alphanumeric() && c != '_')
                        .any(|t| t == "env")
                {
                    j.ask(format!("`jq` {ENV_LISTING}"), "environment listing");
                }
            }
        }
        "grep" | "egrep" | "fgrep" | "zgrep" => grep(j, name, words, at),
        "rg" | "ag" | "ack" => search(j, name, words, at),
        "diff"
            if lit.iter().flatten().any(|a| {
                *a == "-r"
                    || *a == "--recursive"
                    || (a.starts_with('-') && !a.starts_with("--") && a.contains('r'))
            }) =>
        {
            for w in operands(words, &[]) {
                j.reach("diff -r", w, at, Scope::default());
            }
        }
        "printenv" => j.ask(format!("`printenv` {ENV_LISTING}"), "environment listing"),
        "set" if words.len() == 1 => j.ask(format!("`set` {ENV_LISTING}"), "environment listing"),
        "set" | "shopt" | "ulimit" | "umask" | "unset" => facts.read_only = Some(true),
        "export" | "declare" | "typeset" | "readonly" | "local" => {
            let names = lit
                .iter()
                .skip(1)
                .flatten()
                .any(|a| !a.starts_with('-') && !a.starts_with('+'));
            if names || name == "local" {
                facts.read_only = Some(true);
            } else {
                j.ask(format!("`{name}` {ENV_LISTING}"), "environment listing");
            }
        }
        "kill" => kill(j, words),
        "init" | "telinit" if words.len() > 1 => j.deny(
            format!("`{name}` changes the machine's run level: it can stop or restart it"),
            "power",
        ),
        "systemctl" | "loginctl" if sub.is_some_and(|s| POWER.contains(&s)) => j.deny(
            format!(
                "`{name} {}` stops or restarts the machine or ends sessions",
                sub.unwrap_or_default()
            ),
            "power",
        ),
        "loginctl" => j.ask(format!("`{name}` manages login sessions"), "system change"),
        _ if MACHINE_KILLERS.contains(&name) || name.starts_with("mkfs") => j.deny(
            format!("`{name}` formats, wipes or repartitions disks, or stops every process"),
            "disks and power",
        ),
        _ if SYSTEM_CHANGERS.contains(&name) => j.ask(
            format!("`{name}` changes the system itself, outside the project"),
            "system change",
        ),
        _ => unknown(j, name, words, at),
    }
    Flow::Continue
}

/// An unknown program may be a wrapper nobody listed (`firejail rm -rf ~`): a known command
/// among its arguments is judged as if it ran, and only what it refuses or asks counts.
fn unknown(j: &mut Judge, name: &str, words: &[Word], at: &At) {
    if readonly::reader_named(name).is_some()
        || KNOWN.contains(&name)
        || wrappers::find(name, words).is_some()
        || network::wants(name, words)
    {
        return;
    }
    let runs = |a: &str| {
        let n = basename(a);
        interpreters::is_shell(n)
            || interpreters::interpreter_named(n).is_some()
            || ADMIN.contains(&n)
            || MACHINE_KILLERS.contains(&n)
            || matches!(
                n,
                "rm" | "dd"
                    | "shred"
                    | "chmod"
                    | "chown"
                    | "curl"
                    | "wget"
                    | "nc"
                    | "find"
                    | "xargs"
                    | "env"
                    | "eval"
                    | "mv"
                    | "cp"
                    | "git"
                    | "kill"
                    | "shutdown"
                    | "reboot"
                    | "poweroff"
                    | "halt"
            )
    };
    let Some(i) = words
        .iter()
        .skip(1)
        .position(|w| w.literal().is_some_and(runs))
        .map(|p| p + 1)
    else {
        return;
    };
    let mark = j.mark();
    j.words(&words[i..], &at.deeper());
    j.keep_questions_from(mark);
}

/// Which files a search opens, for [`Judge::reach`].
#[derive(Debug, Default, Clone, Copy)]
pub struct Scope {
    /// Only files whose names cannot be secret (`rg -t rust`).
    pub names_safe: bool,
    /// Hidden files and folders (`.env`, `.git/`) are skipped.
    pub skips_hidden: bool,
}

/// The operands of a command, skipping options and the values of those in `with_value`.
fn operands<'w>(words: &'w [Word], with_value: &[&str]) -> Vec<&'w Word> {
    let mut out = Vec::new();
    let mut i = 1;
    let mut options_done = false;
    while let Some(w) = words.get(i) {
        match w.literal() {
            Some("--") if !options_done => options_done = true,
            Some(a) if !options_done && a.starts_with('-') && a.len() > 1 => {
                if with_value.contains(&a) {
                    i += 1;
                }
            }
            _ => out.push(w),
        }
        i += 1;
    }
    out
}

/// `grep -r`: a recursive read of each folder it is given (the current one when none).
fn grep(j: &mut Judge, name: &str, words: &[Word], at: &At) {
    let lit: Vec<&str> = words.iter().skip(1).filter_map(Word::literal).collect();
    let recursive = lit.iter().any(|a| {
        matches!(
            *a,
            "--recursive" | "--dereference-recursive" | "--directories=recurse"
        ) || (a.starts_with('-') && !a.starts_with("--") && (a.contains('r') || a.contains('R')))
    }) || lit.windows(2).any(|w| w[0] == "-d" && w[1] == "recurse");
    if !recursive {
        return;
    }
    const VALUES: &[&str] = &[
        "-e",
        "-f",
        "-m",
        "-A",
        "-B",
        "-C",
        "-d",
        "-D",
        "--regexp",
        "--file",
        "--max-count",
        "--include",
        "--exclude",
        "--exclude-dir",
        "--label",
        "--context",
    ];
    let ops = operands(words, VALUES);
    let explicit_pattern = lit.iter().any(|a| {
        a.starts_with("-e")
            || a.starts_with("-f")
            || a.starts_with("--regexp")
            || a.starts_with("--file")
    });
    let roots: Vec<&Word> = ops
        .into_iter()
        .skip(usize::from(!explicit_pattern))
        .collect();
    let what = format!("{name} -r");
    if roots.is_empty() {
        j.reach(&what, &Word::Literal(".".into()), at, Scope::default());
    }
    for r in roots {
        j.reach(&what, r, at, Scope::default());
    }
}

/// File types whose names cannot be a secret's.
const SAFE_TYPES: &[&str] = &[
    "rust",
    "rs",
    "py",
    "python",
    "js",
    "ts",
    "typescript",
    "go",
    "c",
    "cpp",
    "h",
    "java",
    "kotlin",
    "swift",
    "ruby",
    "php",
    "md",
    "markdown",
    "html",
    "css",
    "sh",
    "toml",
    "yaml",
    "json",
    "lua",
    "zig",
    "elixir",
    "haskell",
    "scala",
    "csharp",
    "cs",
    "vue",
    "svelte",
    "sql",
];

/// `rg`, `ag`, `ack`: recursive by nature. `rg` and `ag` skip hidden files unless told; a type
/// filter keeps them to files that cannot be secrets.
fn search(j: &mut Judge, name: &str, words: &[Word], at: &At) {
    let lit: Vec<&str> = words.iter().skip(1).filter_map(Word::literal).collect();
    if name == "rg"
        && lit.iter().any(|a| {
            matches!(
                *a,
                "--files" | "--type-list" | "-l" | "--files-with-matches" | "--count" | "-c"
            )
        })
        && !lit.contains(&"--pre")
    {
        // Names and counts only: nothing of a file's content is printed.
        if lit.iter().any(|a| matches!(*a, "--files" | "--type-list")) {
            return;
        }
    }
    let hidden = lit.iter().any(|a| {
        matches!(
            *a,
            "--hidden"
                | "-."
                | "-uu"
                | "-uuu"
                | "--unrestricted"
                | "--all-types"
                | "-a"
                | "--no-ignore"
        )
    });
    let mut types: Vec<&str> = Vec::new();
    for (k, a) in lit.iter().enumerate() {
        if matches!(*a, "-t" | "--type") {
            if let Some(t) = lit.get(k + 1) {
                types.push(t);
            }
        } else if let Some(t) = a
            .strip_prefix("--type=")
            .or_else(|| a.strip_prefix("-t").filter(|t| !t.is_empty()))
        {
            types.push(t);
        }
    }
    let names_safe = !hidden && !types.is_empty() && types.iter().all(|t| SAFE_TYPES.contains(t));
    let scope = Scope {
        names_safe,
        skips_hidden: name != "ack" && !hidden,
    };
    const VALUES: &[&str] = &[
        "-e",
        "-f",
        "-g",
        "-t",
        "-T",
        "-m",
        "-A",
        "-B",
        "-C",
        "-j",
        "-M",
        "-r",
        "--regexp",
        "--file",
        "--glob",
        "--iglob",
        "--type",
        "--type-not",
        "--max-count",
        "--replace",
        "--context",
        "--max-columns",
        "--threads",
        "--max-depth",
        "--type-add",
        "--sort",
        "--sortr",
        "--encoding",
        "--color",
        "--colors",
        "--ignore-file",
        "--pre",
        "--pre-glob",
    ];
    let ops = operands(words, VALUES);
    let explicit_pattern = lit.iter().any(|a| {
        a.starts_with("-e") || *a == "-f" || a.starts_with("--regexp") || a.starts_with("--file")
    });
    let roots: Vec<&Word> = ops
        .into_iter()
        .skip(usize::from(!explicit_pattern))
        .collect();
    if roots.is_empty() {
        j.reach(name, &Word::Literal(".".into()), at, scope);
    }
    for r in roots {
        j.reach(name, r, at, scope);
    }
}

/// `kill`: job numbers of this shell are its own business; `-1` is every process you own.
fn kill(j: &mut Judge, words: &[Word]) {
    let lit: Vec<Option<&str>> = words.iter().skip(1).map(Word::literal).collect();
    if lit
        .iter()
        .any(|a| matches!(a, Some("-l") | Some("-L") | Some("--list")))
    {
        return;
    }
    let mut targets = Vec::new();
    let mut skip = false;
    for a in &lit {
        if skip {
            skip = false;
            continue;
        }
        match a {
            Some("-s") | Some("-n") => skip = true,
            Some("-1") if !targets.is_empty() || lit.len() == 1 => targets.push("-1"),
            Some(x) if x.starts_with('-') && targets.is_empty() => {}
            Some(x) => targets.push(x),
            None => targets.push("?"),
        }
    }
    // `kill -9 -1`: the `-1` after a signal is the target.
    if lit.len() >= 2 && lit.last() == Some(&Some("-1")) {
        targets.push("-1");
    }
    if targets.iter().any(|t| *t == "-1" || *t == "0") {
        j.deny(
            "`kill` with `-1` or `0` stops every process you own or the whole group",
            "kill everything",
        );
    } else if targets.iter().any(|t| !t.starts_with('%')) {
        j.ask(
            "`kill` stops a process that may not belong to this task",
            "stop a process",
        );
    }
}

/// `find`: options before the start folders (`-L`, `-H`, `-D …`, `-O3`), then the folders,
/// then the expression, whose `-exec` commands run with each file found and whose `-delete`
/// deletes them.
fn find(j: &mut Judge, words: &[Word], at: &At, facts: &mut Facts) {
    let mut i = 1;
    while let Some(a) = words.get(i).and_then(Word::literal) {
        match a {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            _ if a.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    let mut roots: Vec<Word> = Vec::new();
    while let Some(w) = words.get(i) {
        if w.literal()
            .is_some_and(|a| a.starts_with('-') || matches!(a, "(" | "!" | ")" | ","))
        {
            break;
        }
        roots.push(w.clone());
        i += 1;
    }
    if roots.is_empty() {
        roots.push(Word::Literal(".".into()));
    }
    let names = safe_name_filter(&words[i..]);
    let mut acts_itself = false;
    while i < words.len() {
        let a = words[i].literal().unwrap_or("");
        match a {
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let start = i + 1;
                let mut end = start;
                while end < words.len()
                    && !matches!(words[end].literal(), Some(";") | Some("+") | Some("\\;"))
                {
                    end += 1;
                }
                run_for_each(j, "find", &words[start..end], &roots, false, names, at);
                i = end + 1;
                continue;
            }
            "-delete" => {
                acts_itself = true;
                let targets: Vec<&Word> = roots.iter().collect();
                j.delete_tree("find -delete", &targets, at);
            }
            "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                acts_itself = true;
                if let Some(file) = words.get(i + 1) {
                    j.write(file, at, "find");
                }
            }
            _ => {}
        }
        i += 1;
    }
    facts.read_only = Some(!acts_itself);
}

/// Whether `find`'s expression keeps to names that cannot be secret (`-name '*.rs'`, with no
/// `-o` that would add others).
fn safe_name_filter(expr: &[Word]) -> bool {
    let lit: Vec<&str> = expr.iter().filter_map(Word::literal).collect();
    if lit.iter().any(|a| matches!(*a, "-o" | "-or" | ",")) {
        return false;
    }
    let names: Vec<&str> = lit
        .windows(2)
        .filter(|w| matches!(w[0], "-name" | "-iname"))
        .map(|w| w[1])
        .collect();
    !names.is_empty()
        && names.iter().all(|n| {
            [
                "x.env",
                ".env",
                "x.pem",
                "x.key",
                "id_rsa",
                "id_ed25519",
                "credentials",
                "config.json",
                "policy.toml",
                "config",
                "HEAD",
                "index",
                "packed-refs",
                "description",
                "pre-commit",
                "x.sample",
            ]
            .iter()
            .all(|s| !crate::expand::component_matches(n, s))
        })
}

/// The command a `find -exec` or `fd -x` runs for each file: `{}` stands for a file under each
/// start folder (the command is judged once per folder, with the folder in its place); when the
/// command prints files, it reads the whole tree.
fn run_for_each(
    j: &mut Judge,
    who: &str,
    inner: &[Word],
    roots: &[Word],
    append: bool,
    names_safe: bool,
    at: &At,
) {
    if inner.is_empty() {
        return;
    }
    let placeholder = |a: &str| {
        a.contains("{}")
            || a.contains("{/}")
            || a.contains("{//}")
            || a.contains("{.}")
            || a.contains("{/.}")
    };
    let uses = inner.iter().any(|w| w.literal().is_some_and(placeholder)) || append;
    if !uses {
        j.words(inner, &at.deeper());
        return;
    }
    let program = inner.first().and_then(Word::literal).map(basename);
    let prints = program
        .and_then(readonly::reader_named)
        .is_some_and(|r| r.prints_files);
    // A search inside a search multiplies: `find` in `find` with six folders each, seven deep,
    // is six to the seventh judgements. The inner one is judged once, for a file found anywhere.
    if roots.len() > 1
        && program.is_some_and(|p| matches!(p, "find" | "fd" | "fdfind" | "xargs" | "parallel"))
    {
        let cmd: Vec<Word> = inner
            .iter()
            .map(|w| match w.literal() {
                Some(a) if placeholder(a) => Word::Dynamic(format!("<file found by {who}>")),
                _ => w.clone(),
            })
            .collect();
        j.words(&cmd, &at.deeper());
        return;
    }
    for root in roots {
        let mut cmd: Vec<Word> = inner
            .iter()
            .map(|w| match w.literal() {
                Some(a) if placeholder(a) => match root.literal() {
                    Some(r) => Word::Literal(
                        a.replace("{//}", r)
                            .replace("{/.}", r)
                            .replace("{/}", r)
                            .replace("{.}", r)
                            .replace("{}", r),
                    ),
                    None => Word::Dynamic(a.to_string()),
                },
                _ => w.clone(),
            })
            .collect();
        if append && !inner.iter().any(|w| w.literal().is_some_and(placeholder)) {
            cmd.push(root.clone());
        }
        j.words(&cmd, &at.deeper());
        if prints {
            j.reach(
                &format!("{who} … {}", inner[0].shown()),
                root,
                at,
                Scope {
                    names_safe,
                    skips_hidden: false,
                },
            );
        }
    }
}

/// `fd [options] [pattern] [path…]`, `-x`/`-X` command (the path appended when it names no
/// placeholder).
fn fd(j: &mut Judge, words: &[Word], at: &At, facts: &mut Facts) {
    const VALUES: &[&str] = &[
        "-e",
        "-t",
        "-E",
        "-d",
        "-S",
        "-o",
        "-j",
        "-c",
        "--extension",
        "--type",
        "--exclude",
        "--max-depth",
        "--min-depth",
        "--exact-depth",
        "--size",
        "--changed-within",
        "--changed-before",
        "--owner",
        "--threads",
        "--color",
        "--path-separator",
        "--max-results",
        "--format",
        "--batch-size",
        "--ignore-file",
        "--max-buffer-time",
    ];
    let mut i = 1;
    let mut positionals: Vec<Word> = Vec::new();
    let mut exec: Option<(usize, usize)> = None;
    let mut here = at.clone();
    while let Some(w) = words.get(i) {
        match w.literal() {
            Some("-x") | Some("--exec") | Some("-X") | Some("--exec-batch") => {
                let start = i + 1;
                let mut end = start;
                while end < words.len() && words[end].literal() != Some(";") {
                    end += 1;
                }
                exec = Some((start, end));
                i = end + 1;
                continue;
            }
            Some("--base-directory") => {
                if let Some(d) = words.get(i + 1) {
                    here = here.in_dir(j.dir(d, at));
                }
                i += 2;
                continue;
            }
            Some("--search-path") => {
                if let Some(p) = words.get(i + 1) {
                    positionals.push(p.clone());
                }
                i += 2;
                continue;
            }
            Some(a) if VALUES.contains(&a) => i += 2,
            Some(a) if a.starts_with('-') && a.len() > 1 => i += 1,
            _ => {
                positionals.push(w.clone());
                i += 1;
            }
        }
    }
    let mut roots: Vec<Word> = positionals.into_iter().skip(1).collect();
    if roots.is_empty() {
        roots.push(Word::Literal(".".into()));
    }
    if let Some((start, end)) = exec {
        run_for_each(j, "fd", &words[start..end], &roots, true, false, &here);
    }
    facts.read_only = Some(true);
}

/// `sed`: its script is read for the commands that run a shell (`e`, `s///e`) or write files
/// (`w`, `s///w`); `-i` writes the files it edits.
fn sed(j: &mut Judge, words: &[Word], at: &At, facts: &mut Facts) {
    let mut scripts: Vec<Word> = Vec::new();
    let mut from_file = false;
    let mut in_place = false;
    let mut files: Vec<&Word> = Vec::new();
    let mut i = 1;
    let mut options_done = false;
    while let Some(w) = words.get(i) {
        let Some(a) = w.literal() else {
            files.push(w);
            i += 1;
            continue;
        };
        if options_done || !a.starts_with('-') || a == "-" {
            files.push(w);
            i += 1;
            continue;
        }
        if a == "--" {
            options_done = true;
            i += 1;
            continue;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (opt, glued) = long
                .split_once('=')
                .map_or((long, None), |(o, v)| (o, Some(v)));
            if "expression".starts_with(opt) && opt.len() >= 2 {
                match glued {
                    Some(v) => scripts.push(Word::Literal(v.to_string())),
                    None => {
                        i += 1;
                        scripts.extend(words.get(i).cloned());
                    }
                }
            } else if "file".starts_with(opt) && opt.len() >= 2 {
                from_file = true;
                if glued.is_none() {
                    i += 1;
                }
            } else if "in-place".starts_with(opt) && opt.len() >= 2 {
                in_place = true;
            } else if "line-length".starts_with(opt) && glued.is_none() {
                i += 1;
            }
            i += 1;
            continue;
        }
        let letters: Vec<char> = a.chars().skip(1).collect();
        for (k, c) in letters.iter().enumerate() {
            let rest: String = letters[k + 1..].iter().collect();
            match c {
                'e' | 'f' | 'l' => {
                    let value = if rest.is_empty() {
                        i += 1;
                        words.get(i).cloned()
                    } else {
                        Some(Word::Literal(rest))
                    };
                    match c {
                        'e' => scripts.extend(value),
                        'f' => from_file = true,
                        _ => {}
                    }
                    break;
                }
                'i' => {
                    in_place = true;
                    break;
                }
                _ => {}
            }
        }
        i += 1;
    }
    if scripts.is_empty() && !from_file && !files.is_empty() {
        scripts.push(files.remove(0).clone());
    }
    let mut only_reads = !in_place && !from_file;
    for s in &scripts {
        let Some(text) = s.literal() else {
            j.ask(
                format!("`sed` runs the script `{}`, only known when it runs (a sed script can run shell commands)", s.shown()),
                "computed script",
            );
            only_reads = false;
            continue;
        };
        match sed_script(text) {
            Some(found) => {
                if found.runs {
                    j.ask(
                        "the `sed` script runs text as a shell command (its `e` command)",
                        "program that runs commands",
                    );
                    only_reads = false;
                }
                for w in found.writes {
                    j.write(&Word::Literal(w), at, "sed");
                    only_reads = false;
                }
                for r in found.reads {
                    j.mention(&r, at);
                }
            }
            None => {
                j.ask(
                    format!("Tandem cannot read the `sed` script `{text}`, and a sed script can run shell commands"),
                    "program that runs commands",
                );
                only_reads = false;
            }
        }
    }
    if in_place {
        for f in &files {
            j.write(f, at, "sed -i");
        }
    }
    if files.iter().any(|f| f.literal().is_none()) && !j.sandboxed() {
        only_reads = false;
    }
    facts.read_only = Some(only_reads);
}

/// What a sed script does besides editing text.
#[derive(Default)]
struct SedScript {
    runs: bool,
    writes: Vec<String>,
    reads: Vec<String>,
}

/// Reads a sed script command by command. `None` when it is not one this reader follows.
fn sed_script(script: &str) -> Option<SedScript> {
    let mut found = SedScript::default();
    let c: Vec<char> = script.chars().collect();
    let mut i = 0;
    let rest_of_line = |i: &mut usize| -> String {
        let start = *i;
        while *i < c.len() && c[*i] != '\n' {
            *i += 1;
        }
        c[start..*i].iter().collect::<String>().trim().to_string()
    };
    // Reads a delimited part (`/re/`), the delimiter at `c[*i]`; leaves `*i` after the closing one.
    let delimited = |i: &mut usize, delim: char| -> Option<()> {
        while *i < c.len() {
            match c[*i] {
                '\\' => *i += 2,
                '\n' if delim != '\n' => return None,
                x if x == delim => {
                    *i += 1;
                    return Some(());
                }
                _ => *i += 1,
            }
        }
        None
    };
    while i < c.len() {
        // Separators and blanks.
        while i < c.len() && (c[i].is_whitespace() || c[i] == ';') {
            i += 1;
        }
        if i >= c.len() {
            break;
        }
        // Addresses: numbers, `$`, `/re/`, `\cREc`, `first~step`, `addr1,addr2`, `+N`, `!`.
        for _ in 0..2 {
            if i < c.len() && (c[i].is_ascii_digit() || c[i] == '$' || c[i] == '+' || c[i] == '~') {
                while i < c.len()
                    && (c[i].is_ascii_digit() || c[i] == '$' || c[i] == '+' || c[i] == '~')
                {
                    i += 1;
                }
            } else if i < c.len() && c[i] == '/' {
                i += 1;
                delimited(&mut i, '/')?;
                while i < c.len() && matches!(c[i], 'I' | 'M') {
                    i += 1;
                }
            } else if i + 1 < c.len() && c[i] == '\\' {
                let d = c[i + 1];
                i += 2;
                delimited(&mut i, d)?;
            }
            if i < c.len() && c[i] == ',' {
                i += 1;
                continue;
            }
            break;
        }
        while i < c.len() && (c[i] == ' ' || c[i] == '!') {
            i += 1;
        }
        let Some(&cmd) = c.get(i) else { break };
        i += 1;
        match cmd {
            '{' | '}' | '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x'
            | 'z' | 'F' => {}
            '#' | ':' | 'b' | 't' | 'T' | 'v' => {
                // A comment or label runs to the end of the line; a label may end at `;`.
                while i < c.len() && c[i] != '\n' && (cmd == '#' || c[i] != ';') {
                    i += 1;
                }
            }
            'a' | 'i' | 'c' => {
                while i < c.len() && c[i] != '\n' {
                    if c[i] == '\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            'l' | 'L' | 'q' | 'Q' => {
                while i < c.len() && (c[i].is_ascii_digit() || c[i] == ' ') {
                    i += 1;
                }
            }
            'r' | 'R' => found.reads.push(rest_of_line(&mut i)),
            'w' | 'W' => found.writes.push(rest_of_line(&mut i)),
            'e' => {
                found.runs = true;
                let _ = rest_of_line(&mut i);
            }
            's' | 'y' => {
                let d = *c.get(i)?;
                if d == '\\' || d == '\n' {
                    return None;
                }
                i += 1;
                delimited(&mut i, d)?;
                delimited(&mut i, d)?;
                if cmd == 's' {
                    while i < c.len() && !matches!(c[i], ';' | '\n' | '}') {
                        match c[i] {
                            'e' => found.runs = true,
                            'w' => {
                                i += 1;
                                found.writes.push(rest_of_line(&mut i));
                                break;
                            }
                            'g' | 'p' | 'i' | 'I' | 'm' | 'M' | ' ' => {}
                            x if x.is_ascii_digit() => {}
                            _ => return None,
                        }
                        i += 1;
                    }
                }
            }
            _ => return None,
        }
    }
    Some(found)
}

/// `awk`: its program may run commands (`system()`, `| getline`, `print | "cmd"`), read the
/// environment (`ENVIRON`) or write files (`print > "file"`); `-f` takes it from a file.
fn awk(j: &mut Judge, words: &[Word], at: &At, facts: &mut Facts) {
    let mut i = 1;
    let mut program: Option<Word> = None;
    let mut from_file = false;
    let mut writes = false;
    let mut files: Vec<&Word> = Vec::new();
    while let Some(w) = words.get(i) {
        let Some(a) = w.literal() else {
            if program.is_none() && !from_file {
                program = Some(w.clone());
            } else {
                files.push(w);
            }
            i += 1;
            continue;
        };
        match a {
            "--" => {}
            "-F" | "-v" | "--field-separator" | "--assign" => i += 1,
            "-f" | "--file" | "-i" | "--include" | "-E" | "--exec" => {
                from_file = true;
                i += 1;
            }
            "-e" | "--source" => {
                program = words.get(i + 1).cloned();
                i += 1;
            }
            "-l" | "--load" => {
                j.ask(
                    "`awk -l` loads a compiled extension, which runs any code",
                    "inline code",
                );
                from_file = true;
                i += 1;
            }
            _ if a.starts_with("-o")
                || a.starts_with("--pretty-print")
                || a.starts_with("-p")
                || a.starts_with("--profile")
                || a.starts_with("-d")
                || a.starts_with("--dump-variables") =>
            {
                writes = true;
            }
            _ if a.starts_with('-') && a.len() > 1 => {}
            _ if program.is_none() && !from_file => program = Some(w.clone()),
            _ => files.push(w),
        }
        i += 1;
    }
    let mut only_reads = !from_file && !writes;
    match &program {
        Some(Word::Dynamic(raw)) => {
            j.ask(
                format!("`awk` runs the program `{raw}`, only known when it runs"),
                "computed script",
            );
            only_reads = false;
        }
        Some(p) => {
            let text = p.shown();
            let code = strip_awk_strings(text);
            if code.contains("system")
                || code.replace("||", "").contains('|')
                || code.contains("@load")
                || code.contains("@include")
            {
                j.ask(
                    "the `awk` program runs commands (`system()` or a pipe)",
                    "program that runs commands",
                );
                only_reads = false;
            }
            if code.contains("ENVIRON") {
                j.ask(
                    format!("the `awk` program {ENV_LISTING}"),
                    "environment listing",
                );
                only_reads = false;
            }
            for target in awk_outputs(text) {
                only_reads = false;
                match target {
                    Some(file) => j.write(&Word::Literal(file), at, "awk"),
                    None => j.ask(
                        "the `awk` program writes to a file only known when it runs",
                        "computed path",
                    ),
                }
            }
        }
        None => {}
    }
    if files.iter().any(|f| f.literal().is_none()) && !j.sandboxed() {
        only_reads = false;
    }
    facts.read_only = Some(only_reads);
}

/// An awk program with its string literals blanked, so `"a|b"` is not a pipe.
fn strip_awk_strings(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    for ch in text.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if ch == '\\' {
                escaped = true;
            } else if ch == '"' {
                in_string = false;
                out.push('"');
            }
            continue;
        }
        if ch == '"' {
            in_string = true;
        }
        out.push(ch);
    }
    out
}

/// The files `print … > "file"` writes in an awk program (`None` for one it computes).
fn awk_outputs(text: &str) -> Vec<Option<String>> {
    let mut out = Vec::new();
    for statement in text.split([';', '\n', '{', '}']) {
        let s = statement.trim_start();
        if !(s.starts_with("print") || s.starts_with("printf")) {
            continue;
        }
        let code = strip_awk_strings(s);
        let Some(pos) = code.find('>') else { continue };
        let after = s[pos..].trim_start_matches('>').trim();
        match after.strip_prefix('"').and_then(|r| r.split_once('"')) {
            Some((file, _)) => out.push(Some(file.to_string())),
            None => out.push(None),
        }
    }
    out
}

/// `tar`: creating an archive reads every folder it is given and writes the archive;
/// extracting writes into `-C` (or here); a few options run programs.
fn tar(j: &mut Judge, words: &[Word], at: &At, facts: &mut Facts) {
    #[derive(PartialEq)]
    enum TarMode {
        Unknown,
        Create,
        Extract,
        List,
    }
    let mut mode = TarMode::Unknown;
    let mut archive: Option<Word> = None;
    let mut dir: Option<Word> = None;
    let mut operands: Vec<&Word> = Vec::new();
    let mut removes = false;
    let mut absolute = false;
    const RUNS: &[&str] = &[
        "--to-command",
        "--use-compress-program",
        "--info-script",
        "--new-volume-script",
        "--rsh-command",
        "--rmt-command",
        "--checkpoint-action",
    ];
    let mut pending: Vec<char> = Vec::new();
    for (k, w) in words.iter().enumerate().skip(1) {
        let Some(a) = w.literal() else {
            match pending.first() {
                Some(_) => {
                    let letter = pending.remove(0);
                    match letter {
                        'f' => archive = Some(w.clone()),
                        'C' => dir = Some(w.clone()),
                        'I' | 'F' => j.ask(
                            "`tar` runs a program named on its command line",
                            "program that runs commands",
                        ),
                        _ => {}
                    }
                }
                None => operands.push(w),
            }
            continue;
        };
        if let Some(letter) = (!pending.is_empty()).then(|| pending.remove(0)) {
            match letter {
                'f' => archive = Some(w.clone()),
                'C' => dir = Some(w.clone()),
                'I' | 'F' => j.ask(format!("`tar` runs `{a}`"), "program that runs commands"),
                _ => {}
            }
            continue;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (opt, value) = long
                .split_once('=')
                .map_or((long, None), |(o, v)| (o, Some(v)));
            let full = format!("--{opt}");
            if acts(RUNS, &full) {
                let v = value
                    .map(str::to_string)
                    .or_else(|| words.get(k + 1).and_then(Word::literal).map(str::to_string))
                    .unwrap_or_default();
                if !full.starts_with("--checkpoint-a") || v.contains("exec") || value.is_none() {
                    j.ask(
                        format!("`tar {full}` runs a program (`{v}`)"),
                        "program that runs commands",
                    );
                }
                if value.is_none() {
                    pending.push('?');
                }
                continue;
            }
            let is = |name: &str| name.starts_with(opt) && opt.len() >= 3;
            if is("create") || is("append") || is("update") || is("catenate") || is("concatenate") {
                mode = TarMode::Create;
            } else if is("extract") || is("get") {
                mode = TarMode::Extract;
            } else if is("list") || is("diff") || is("compare") {
                mode = TarMode::List;
            } else if is("remove-files") {
                removes = true;
            } else if is("absolute-names") {
                absolute = true;
            } else if is("file") {
                match value {
                    Some(v) => archive = Some(Word::Literal(v.to_string())),
                    None => pending.push('f'),
                }
            } else if is("directory") {
                match value {
                    Some(v) => dir = Some(Word::Literal(v.to_string())),
                    None => pending.push('C'),
                }
            } else if value.is_none()
                && (is("exclude")
                    || is("files-from")
                    || is("exclude-from")
                    || is("transform")
                    || is("xform")
                    || is("owner")
                    || is("group")
                    || is("mode")
                    || is("format")
                    || is("label")
                    || is("index-file"))
            {
                pending.push('?');
            }
            continue;
        }
        // Old style: the first word is a cluster without a dash (`tar czf out.tgz .`).
        let cluster = if let Some(c) = a.strip_prefix('-') {
            Some(c)
        } else if k == 1 && !a.contains(['/', '.', '=']) {
            Some(a)
        } else {
            None
        };
        match cluster {
            Some(c) => {
                for (n, letter) in c.chars().enumerate() {
                    match letter {
                        'c' | 'r' | 'u' | 'A' => mode = TarMode::Create,
                        'x' => mode = TarMode::Extract,
                        't' | 'd' => mode = TarMode::List,
                        'P' => absolute = true,
                        'f' | 'C' | 'I' | 'F' | 'T' | 'X' | 'b' | 'L' | 'V' | 'N' | 'K' | 'g'
                        | 'H' => {
                            let rest: String = c.chars().skip(n + 1).collect();
                            if a.starts_with('-') && !rest.is_empty() {
                                let v = Word::Literal(rest.clone());
                                match letter {
                                    'f' => archive = Some(v),
                                    'C' => dir = Some(v),
                                    'I' | 'F' => j.ask(
                                        format!("`tar` runs `{rest}`"),
                                        "program that runs commands",
                                    ),
                                    _ => {}
                                }
                                break;
                            }
                            pending.push(letter);
                        }
                        _ => {}
                    }
                }
            }
            None => operands.push(w),
        }
    }
    match mode {
        TarMode::Create => {
            if let Some(f) = &archive {
                j.write(f, at, "tar");
            }
            let here = match &dir {
                Some(d) => at.in_dir(j.dir(d, at)),
                None => at.clone(),
            };
            for o in &operands {
                j.reach("tar", o, &here, Scope::default());
            }
            if removes {
                j.delete_tree("tar --remove-files", &operands, &here);
            }
        }
        TarMode::Extract => {
            let target = dir.clone().unwrap_or(Word::Literal(".".into()));
            j.write(&target, at, "tar -x");
            if absolute {
                j.ask(
                    "`tar -P` extracts files to the absolute paths stored in the archive, anywhere on disk",
                    "write outside the project",
                );
            }
        }
        TarMode::List | TarMode::Unknown => {}
    }
    facts.read_only = Some(mode == TarMode::List);
}

/// `make`: runs its makefile's recipes (what any build does); `--eval` and variables such as
/// `SHELL=` add commands of the caller's choosing.
fn make(j: &mut Judge, words: &[Word]) {
    for (k, w) in words.iter().enumerate().skip(1) {
        let Some(a) = w.literal() else { continue };
        if a == "-E" || acts(&["--eval"], a) {
            let text = a
                .split_once('=')
                .map(|(_, v)| v.to_string())
                .or_else(|| words.get(k + 1).map(|w| w.shown().to_string()))
                .unwrap_or_default();
            j.ask(
                format!("`make --eval` adds makefile text (`{text}`), which can run any command"),
                "program that runs commands",
            );
        }
        if let Some((var, _)) = a.split_once('=')
            && !a.starts_with('-')
            && matches!(
                var,
                "SHELL" | ".SHELLFLAGS" | "MAKEFLAGS" | "MAKEFILES" | "MAKE" | "MAKESHELL"
            )
        {
            j.ask(
                format!("`make {var}=…` changes the program make runs its recipes with"),
                "program that runs commands",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sed_scripts_that_run_or_write() {
        let s = |t: &str| sed_script(t).map(|f| (f.runs, f.writes, f.reads));
        assert_eq!(s("1,40p"), Some((false, vec![], vec![])));
        assert_eq!(s("s/a/b/g;/x/d"), Some((false, vec![], vec![])));
        assert_eq!(s("e"), Some((true, vec![], vec![])));
        assert_eq!(s("1e rm -rf /"), Some((true, vec![], vec![])));
        assert_eq!(s("s/x/rm -rf ~/e"), Some((true, vec![], vec![])));
        assert_eq!(
            s("w out.txt"),
            Some((false, vec!["out.txt".to_string()], vec![]))
        );
        assert_eq!(
            s("s/a/b/w /etc/passwd"),
            Some((false, vec!["/etc/passwd".to_string()], vec![]))
        );
        assert_eq!(s("r .env"), Some((false, vec![], vec![".env".to_string()])));
        assert!(s("1~2{s/a/b/;p}").is_some());
        assert!(s("Xunknown").is_none());
    }

    #[test]
    fn awk_programs_that_write() {
        assert_eq!(awk_outputs("{print $1}"), Vec::<Option<String>>::new());
        assert_eq!(awk_outputs("$1 > 5 {print}"), Vec::<Option<String>>::new());
        assert_eq!(
            awk_outputs("{print > \"out.txt\"}"),
            vec![Some("out.txt".to_string())]
        );
        assert_eq!(awk_outputs("{print $1 > f}"), vec![None]);
        assert!(!strip_awk_strings("{print \"a|b\"}").contains('|'));
    }
}
