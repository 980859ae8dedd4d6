//! Suggestions for Ask decisions: each a precise rule that would have allowed the call, never a
//! blanket one ("allow everything").

use crate::decision::{Grant, Scope, Suggestion};
use crate::pattern::{Args, CommandPattern};
use crate::shell::basename;
use std::path::Path;

/// Sub-commands that may be allowed as a whole, whatever options follow (`cargo test`
/// covers `cargo test --release`): they build, test or check the project, which a user judges
/// once. `run`-like ones name their script too (`npm run build`).
const GENERAL: &[(&str, &[&str])] = &[
    (
        "cargo",
        &[
            "test", "build", "check", "clippy", "fmt", "doc", "bench", "run", "nextest",
        ],
    ),
    ("npm", &["test", "run", "run-script"]),
    ("pnpm", &["test", "run", "lint", "build"]),
    ("yarn", &["test", "run", "lint", "build"]),
    ("bun", &["test", "run"]),
    ("go", &["test", "build", "vet", "run"]),
    ("make", &[]),
    ("just", &[]),
    ("deno", &["test", "lint", "fmt", "check"]),
    ("mix", &["test", "compile"]),
    ("gradle", &["test", "build", "check"]),
    ("mvn", &["test", "compile", "verify"]),
    ("dotnet", &["test", "build"]),
    (
        "git",
        &[
            "add", "commit", "diff", "log", "show", "status", "fetch", "pull", "switch", "grep",
            "blame",
        ],
    ),
];
const SCRIPT_RUNNERS: &[&str] = &["run", "run-script"];

/// The command pattern a user could grant for this command: exactly the call as written, or for
/// the sub-commands in [`GENERAL`] the program and its sub-command. Never a bare program name
/// (`make`, `bash`, `git`), which would allow whatever it can be made to do, and only a pattern
/// that allows the call itself.
pub fn command_pattern(words: &[&str]) -> Option<String> {
    let (program, args) = words.split_first()?;
    let name = basename(program);
    if name.is_empty() || name.contains(char::is_whitespace) || args.is_empty() {
        return None;
    }
    let sub = args.first().filter(|a| !a.starts_with('-'));
    let general = GENERAL.iter().find(|(p, _)| *p == name).map(|(_, s)| *s);
    let mut parts = vec![name.to_string()];
    match (sub, general) {
        // `make check`, `just lint`: the target is the sub-command.
        (Some(sub), Some(subs)) if subs.is_empty() || subs.contains(sub) => {
            parts.push((*sub).to_string());
            let script = args.get(1).filter(|a| !a.starts_with('-'));
            if let Some(script) = script.filter(|_| SCRIPT_RUNNERS.contains(sub)) {
                parts.push((*script).to_string());
            }
        }
        _ => parts.extend(args.iter().map(|a| (*a).to_string())),
    }
    // A pattern is whitespace-separated: an operand with spaces or glob characters cannot be
    // expressed exactly, so no suggestion rather than a looser one.
    if parts
        .iter()
        .any(|p| p.contains(char::is_whitespace) || p.contains(['*', '?', '[', '{']))
    {
        return None;
    }
    let text = parts.join(" ");
    // Offered only when granting it would allow this very call.
    let pattern = CommandPattern::parse(&text).ok()?;
    pattern
        .matches_strict(name, &Args::split(name, args))
        .then_some(text)
}

/// A module's pattern (`unittest test_calc`) as the person ran it (`python3 -m unittest
/// test_calc`): what the offer says is what is granted, and it still allows this very call.
pub fn as_run(before: &[String], pattern: &str, name: &str, args: &Args) -> Option<String> {
    if before.iter().any(|w| {
        w.is_empty() || w.contains(char::is_whitespace) || w.contains(['*', '?', '[', '{'])
    }) {
        return None;
    }
    let text = format!("{} {pattern}", before.join(" "));
    CommandPattern::parse(&text)
        .ok()?
        .matches_strict(name, args)
        .then_some(text)
}

pub fn command(pattern: &str) -> Vec<Suggestion> {
    vec![
        Suggestion {
            label: format!("Always allow “{pattern}” in this project"),
            scope: Scope::Project,
            grant: Grant::AllowCommand(pattern.to_string()),
        },
        Suggestion {
            label: format!("Allow “{pattern}” for this session"),
            scope: Scope::Session,
            grant: Grant::AllowCommand(pattern.to_string()),
        },
    ]
}

/// For a write inside the project: its folder for the session, or the file itself.
pub fn write(rel: &str) -> Vec<Suggestion> {
    let escaped = globset::escape(rel);
    let mut out = Vec::new();
    if let Some((dir, _)) = rel.rsplit_once('/') {
        out.push(Suggestion {
            label: format!("Allow edits under “{dir}/” this session"),
            scope: Scope::Session,
            grant: Grant::AllowWrite(format!("{}/**", globset::escape(dir))),
        });
    }
    out.push(Suggestion {
        label: format!("Allow edits to “{rel}” this session"),
        scope: Scope::Session,
        grant: Grant::AllowWrite(escaped),
    });
    out
}

/// Reading a file outside the project: this file for the session, or its folder always in
/// this project (which lets the project's commands read that folder too).
pub fn read(abs: &Path) -> Vec<Suggestion> {
    let p = abs.display().to_string();
    let mut out = vec![Suggestion {
        label: format!("Allow reading “{p}” this session"),
        scope: Scope::Session,
        grant: Grant::AllowRead(p),
    }];
    if let Some(folder) = abs.parent().filter(|f| {
        f.parent().is_some()
            && !f
                .as_os_str()
                .to_string_lossy()
                .contains(['*', '?', '[', '{'])
    }) {
        let f = folder.display().to_string();
        out.push(Suggestion {
            label: format!(
                "Always let the agent and its commands read the folder “{f}” in this project"
            ),
            scope: Scope::Project,
            grant: Grant::AllowRead(f),
        });
    }
    out
}

pub fn domain(host: &str) -> Vec<Suggestion> {
    vec![
        Suggestion {
            label: format!("Always allow “{host}” in this project"),
            scope: Scope::Project,
            grant: Grant::AllowDomain(host.to_string()),
        },
        Suggestion {
            label: format!("Allow “{host}” for this session"),
            scope: Scope::Session,
            grant: Grant::AllowDomain(host.to_string()),
        },
    ]
}

/// For a server on this machine or the private network: that address and port, for the
/// session or always in this project (other local addresses still ask).
pub fn local_address(host_port: &str) -> Vec<Suggestion> {
    vec![
        Suggestion {
            label: format!("Allow “{host_port}” for this session"),
            scope: Scope::Session,
            grant: Grant::AllowDomain(host_port.to_string()),
        },
        Suggestion {
            label: format!("Always allow “{host_port}” in this project"),
            scope: Scope::Project,
            grant: Grant::AllowDomain(host_port.to_string()),
        },
    ]
}

/// For a tool of an MCP server: that one tool, always in this project or for the session.
pub fn tool(name: &str) -> Vec<Suggestion> {
    vec![
        Suggestion {
            label: format!("Always allow the tool “{name}” in this project"),
            scope: Scope::Project,
            grant: Grant::AllowTool(name.to_string()),
        },
        Suggestion {
            label: format!("Allow the tool “{name}” for this session"),
            scope: Scope::Session,
            grant: Grant::AllowTool(name.to_string()),
        },
    ]
}

pub fn search() -> Vec<Suggestion> {
    vec![Suggestion {
        label: "Allow web searches this session".into(),
        scope: Scope::Session,
        grant: Grant::AllowSearch,
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_name_the_program_and_its_subcommand() {
        assert_eq!(
            command_pattern(&["cargo", "test", "--release"]).as_deref(),
            Some("cargo test")
        );
        assert_eq!(
            command_pattern(&["npm", "run", "build"]).as_deref(),
            Some("npm run build")
        );
        assert_eq!(
            command_pattern(&["/usr/bin/make", "check"]).as_deref(),
            Some("make check")
        );
        assert_eq!(command_pattern(&["ls", "-la"]).as_deref(), Some("ls -la"));
        assert_eq!(command_pattern(&["make"]), None);
        assert_eq!(command_pattern(&["bash"]), None);
        assert_eq!(
            command_pattern(&["git", "config", "user.name", "x"]).as_deref(),
            Some("git config user.name x")
        );
        assert_eq!(
            command_pattern(&["git", "push", "origin", "main"]).as_deref(),
            Some("git push origin main")
        );
        // Options before the operands cannot be matched by an allow rule: nothing to offer.
        assert_eq!(command_pattern(&["curl", "-fsSL", "https://x"]), None);
        assert_eq!(
            command_pattern(&["python", "manage.py", "migrate"]).as_deref(),
            Some("python manage.py migrate")
        );
        assert_eq!(command_pattern(&["cat", "a b"]), None);
        assert_eq!(command_pattern(&["rm", "*"]), None);
    }
}
