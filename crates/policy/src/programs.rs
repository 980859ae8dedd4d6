//! The programs judged by name after the wrappers, shells, interpreters and git, each in the
//! module that holds its kind ([`crate::machine`], [`crate::runners`], [`crate::searches`],
//! [`crate::editors`], [`crate::archives`]), and what is left: `make`, `jq`, the shell's own
//! commands that run text or list the environment, and a guess at what an unknown program runs.

use crate::command::{At, Facts, Flow, Judge};
use crate::machine::{ADMIN, MACHINE_KILLERS, POWER, SYSTEM_CHANGERS};
use crate::readonly::{self, acts};
use crate::searches::{Scope, operands};
use crate::shell::{Word, basename};
use crate::{archives, editors, interpreters, machine, network, runners, searches, wrappers};

/// Programs whose options and operands this module or another knows; an unknown program's
/// arguments are searched for a command it may run.
const KNOWN: &[&str] = &[
    "make", "cmake", "cargo", "npm", "pnpm", "yarn", "go", "pytest", "docker", "kubectl", "rustc",
    "gcc", "clang", "tsc", "javac", "java", "mvn", "gradle", "dotnet", "pip", "pip3", "uv",
    "poetry", "ln", "rm", "mv", "cp", "mkdir", "touch", "chmod", "chown", "kill", "pkill",
    "killall", "zip", "unzip", "gzip", "gunzip", "patch", "echo", "printf",
];

pub const ENV_LISTING: &str = "lists the environment, which holds API keys and tokens";

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
                format!("“{name}” runs commands as the administrator; the agent never does that. Run it yourself in a terminal if it is needed."),
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
        "env" => Some(runners::env(j, words, at)),
        "busybox" => match first {
            Some(applet) if !applet.starts_with('-') => {
                j.words(&words[1..], &at.deeper());
                Some(Flow::Done)
            }
            _ => None,
        },
        "xargs" => Some(runners::xargs(j, words, at)),
        "parallel" => Some(runners::parallel(j, words, at)),
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
                "“eval” runs text as a command, which Tandem can only partly see through",
                "eval",
            );
            let parts: Option<Vec<&str>> = lit[1..].iter().copied().collect();
            if let Some(parts) = parts {
                j.source(&parts.join(" "), &at.deeper());
            }
            Some(Flow::Done)
        }
        // In the sandbox a sourced file is as confined as a script; outside it, what it defines
        // (a function named `git`, a new PATH) changes what every later command runs.
        "source" | "." if j.sandboxed() => {
            facts.read_only = Some(false);
            Some(Flow::Continue)
        }
        "source" | "." => {
            j.ask("“source” runs a file's commands in the shell", "source");
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
                    "“{name}” defines or replays a command to run later, which Tandem cannot follow"
                ),
                "deferred command",
            );
            Some(Flow::Done)
        }
        _ => None,
    }
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
        "find" => searches::find(j, words, at, facts),
        "fd" | "fdfind" => searches::fd(j, words, at, facts),
        "sed" | "gsed" => editors::sed(j, words, at, facts),
        "awk" | "gawk" | "mawk" | "nawk" => editors::awk(j, words, at, facts),
        "tar" | "bsdtar" | "gtar" => archives::tar(j, words, at, facts),
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
                    j.ask(format!("“jq” {ENV_LISTING}"), "environment listing");
                }
            }
        }
        "grep" | "egrep" | "fgrep" | "zgrep" => searches::grep(j, name, words, at),
        "rg" | "ag" | "ack" => searches::search(j, name, words, at),
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
        "printenv" => j.ask(format!("“printenv” {ENV_LISTING}"), "environment listing"),
        "set" if words.len() == 1 => j.ask(format!("“set” {ENV_LISTING}"), "environment listing"),
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
                j.ask(format!("“{name}” {ENV_LISTING}"), "environment listing");
            }
        }
        "kill" => machine::kill(j, words),
        "ssh" | "scp" | "sftp" | "rsync" | "wget" => remote_commands(j, name, words),
        "init" | "telinit" if words.len() > 1 => j.deny(
            format!("“{name}” changes the machine's run level: it can stop or restart it"),
            "power",
        ),
        "systemctl" | "loginctl" if sub.is_some_and(|s| POWER.contains(&s)) => j.deny(
            format!(
                "“{name} {}” stops or restarts the machine or ends sessions",
                sub.unwrap_or_default()
            ),
            "power",
        ),
        "loginctl" => j.ask(format!("“{name}” manages login sessions"), "system change"),
        _ if MACHINE_KILLERS.contains(&name) || name.starts_with("mkfs") => j.deny(
            format!("“{name}” formats, wipes or repartitions disks, or stops every process"),
            "disks and power",
        ),
        _ if SYSTEM_CHANGERS.contains(&name) => j.ask(
            format!("“{name}” changes the system itself, outside the project"),
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
                format!("“make --eval” adds makefile text (“{text}”), which can run any command"),
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
                format!("“make {var}=…” changes the program make runs its recipes with"),
                "program that runs commands",
            );
        }
    }
}

/// Options of the remote-access tools that run a local program (`ssh -o ProxyCommand=…`,
/// `rsync -e …`, `scp -S …`) or read a configuration that can (`ssh -F`, `wget -e`).
fn remote_commands(j: &mut Judge, name: &str, words: &[Word]) {
    const SSH_OPTIONS: &[&str] = &[
        "proxycommand",
        "localcommand",
        "permitlocalcommand",
        "knownhostscommand",
        "match",
        "include",
    ];
    let lit: Vec<&str> = words.iter().skip(1).filter_map(Word::literal).collect();
    let runs = lit.iter().enumerate().any(|(k, a)| {
        let next = lit.get(k + 1).copied().unwrap_or("");
        let option_value = |opt: &str| -> Option<String> {
            if *a == opt {
                Some(next.to_ascii_lowercase())
            } else {
                a.strip_prefix(opt)
                    .filter(|v| !v.is_empty())
                    .map(str::to_ascii_lowercase)
            }
        };
        match name {
            "ssh" | "scp" | "sftp" => {
                option_value("-o")
                    .is_some_and(|v| SSH_OPTIONS.iter().any(|o| v.trim_start().starts_with(o)))
                    || *a == "-F"
                    || (name != "ssh" && (*a == "-S" || a.starts_with("-S")))
            }
            "rsync" => {
                *a == "-e"
                    || acts(&["--rsh", "--rsync-path"], a)
                    || (a.starts_with('-') && !a.starts_with("--") && a.contains('e'))
            }
            _ => *a == "-e" || acts(&["--execute"], a),
        }
    });
    if runs {
        j.ask(
            format!(
                "this “{name}” option runs a program on this machine or reads settings that can"
            ),
            "program that runs commands",
        );
    }
}
