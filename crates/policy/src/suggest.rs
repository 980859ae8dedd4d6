//! Suggestions for Ask decisions: each a precise rule that would have allowed the call, never a
//! blanket one ("allow everything").

use crate::decision::{Grant, Scope, Suggestion};
use crate::shell::basename;
use std::path::Path;

/// Tools whose first argument is a sub-command (`cargo test`), and those whose sub-command
/// takes a script name as well (`npm run build`).
const SUBCOMMAND_TOOLS: &[&str] = &[
    "cargo", "git", "npm", "pnpm", "yarn", "bun", "go", "make", "just", "docker", "kubectl",
    "gradle", "mvn", "dotnet", "poetry", "uv", "pip", "pip3", "rustup", "deno", "mix", "bundle",
    "rake", "cmake",
];
const SCRIPT_RUNNERS: &[&str] = &["run", "exec", "x"];

/// The command pattern a user would grant for this command: the program and its sub-command.
pub fn command_pattern(words: &[&str]) -> Option<String> {
    let (program, args) = words.split_first()?;
    let name = basename(program);
    if name.is_empty() || name.contains(char::is_whitespace) {
        return None;
    }
    let mut parts = vec![name.to_string()];
    let sub = args.first().filter(|a| !a.starts_with('-'));
    match sub {
        // `cargo test --release` → `cargo test`: the sub-command is what the user judged.
        Some(sub) if SUBCOMMAND_TOOLS.contains(&name) => {
            parts.push((*sub).to_string());
            let script = args.get(1).filter(|a| !a.starts_with('-'));
            if let Some(script) = script.filter(|_| SCRIPT_RUNNERS.contains(sub)) {
                parts.push((*script).to_string());
            }
        }
        // Anything else is granted as written (`python manage.py migrate`, `make --version`,
        // `ls -la`): a bare program name would allow whatever it can be made to do.
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
    Some(parts.join(" "))
}

pub fn command(pattern: &str) -> Vec<Suggestion> {
    vec![
        Suggestion {
            label: format!("Always allow `{pattern}` in this project"),
            scope: Scope::Project,
            grant: Grant::AllowCommand(pattern.to_string()),
        },
        Suggestion {
            label: format!("Allow `{pattern}` for this session"),
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
            label: format!("Allow edits under `{dir}/` this session"),
            scope: Scope::Session,
            grant: Grant::AllowWrite(format!("{}/**", globset::escape(dir))),
        });
    }
    out.push(Suggestion {
        label: format!("Allow edits to `{rel}` this session"),
        scope: Scope::Session,
        grant: Grant::AllowWrite(escaped),
    });
    out
}

pub fn read(abs: &Path) -> Suggestion {
    let p = abs.display().to_string();
    Suggestion {
        label: format!("Allow reading `{p}` this session"),
        scope: Scope::Session,
        grant: Grant::AllowRead(p),
    }
}

pub fn domain(host: &str) -> Vec<Suggestion> {
    vec![
        Suggestion {
            label: format!("Always allow `{host}` in this project"),
            scope: Scope::Project,
            grant: Grant::AllowDomain(host.to_string()),
        },
        Suggestion {
            label: format!("Allow `{host}` for this session"),
            scope: Scope::Session,
            grant: Grant::AllowDomain(host.to_string()),
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
        assert_eq!(
            command_pattern(&["make", "--version"]).as_deref(),
            Some("make --version")
        );
        assert_eq!(
            command_pattern(&["python", "manage.py", "migrate"]).as_deref(),
            Some("python manage.py migrate")
        );
        assert_eq!(command_pattern(&["cat", "a b"]), None);
        assert_eq!(command_pattern(&["rm", "*"]), None);
    }
}
