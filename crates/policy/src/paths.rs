//! Judging a path that is read or written: the hard floors (secrets, `.git/` internals, the
//! policy files, outside the project) and the user's protected paths.

use crate::call::Context;
use crate::decision::{Finding, Verdict};
use crate::rules::Policy;
use globset::{Glob, GlobSet, GlobSetBuilder};
use std::path::Path;
use std::sync::OnceLock;

/// Secret locations in a home folder, relative to it: what the OS sandbox hides from every
/// command (the globs below protect the same places by name).
pub const HOME_SECRETS: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".config/gcloud",
    ".azure",
    ".kube",
    ".docker/config.json",
    ".netrc",
    ".git-credentials",
    ".pypirc",
    ".config/gh/hosts.yml",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".local/share/keyrings",
    ".password-store",
];

/// Files that hold secrets wherever they are. No rule un-protects them.
const SECRET_ANYWHERE: &[&str] = &[
    "**/.env",
    "**/.env.*",
    "**/*.pem",
    "**/*.key",
    "**/id_rsa*",
    "**/id_ed25519*",
    "**/id_ecdsa*",
    "**/id_dsa*",
    "**/.ssh/**",
    "**/.aws/**",
    "**/.config/gcloud/**",
    "**/.azure/**",
    "**/.kube/config",
    "**/.docker/config.json",
    "**/.netrc",
    "**/.git-credentials",
    "**/.gnupg/**",
    "**/.pypirc",
    "**/.config/gh/hosts.yml",
    "**/.cargo/credentials*",
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/sudoers",
    "/etc/sudoers.d/**",
];

/// Templates of secret files are meant to be shared.
const SECRET_TEMPLATES: &[&str] = &[
    "**/.env.example",
    "**/.env.sample",
    "**/.env.template",
    "**/*.pub",
];

fn set(globs: &[&str]) -> GlobSet {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        if let Ok(glob) = Glob::new(g) {
            b.add(glob);
        }
    }
    b.build().unwrap_or_else(|_| GlobSet::empty())
}

fn secrets() -> &'static (GlobSet, GlobSet) {
    static SETS: OnceLock<(GlobSet, GlobSet)> = OnceLock::new();
    SETS.get_or_init(|| (set(SECRET_ANYWHERE), set(SECRET_TEMPLATES)))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

fn shown(ctx: &Context, abs: &Path) -> String {
    ctx.relative(abs)
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| abs.display().to_string())
}

/// Whether a path holds secrets (a hard floor, reads and writes alike).
pub fn is_secret(abs: &Path) -> bool {
    let (secret, templates) = secrets();
    secret.is_match(abs) && !templates.is_match(abs)
}

/// Findings for one path access. `asked` is the path as written, for the messages.
pub fn judge_path(policy: &Policy, ctx: &Context, abs: &Path, access: Access) -> Vec<Finding> {
    let mut out = Vec::new();
    let name = shown(ctx, abs);
    let verb = match access {
        Access::Read => "read",
        Access::Write => "change",
    };

    if is_secret(abs) {
        out.push(Finding::floor(
            Verdict::Deny,
            format!("`{name}` holds secrets, so the agent may not {verb} it (built-in rule)"),
            "secrets",
        ));
    }
    let rel = ctx.relative(abs);
    let is_policy_file = rel.as_deref() == Some(".tandem/policy.toml")
        || ctx.user_policy_file.is_some_and(|u| u == abs);
    if is_policy_file && access == Access::Write {
        out.push(Finding::floor(
            Verdict::Deny,
            format!("`{name}` is a policy file: only you can change the rules, not the agent (built-in rule)"),
            "policy file",
        ));
    }
    if access == Access::Write
        && let Some(r) = &rel
        && (r == ".git" || r.starts_with(".git/"))
    {
        out.push(Finding::floor(
                    Verdict::Deny,
                    format!("`{name}` is inside git's own folder; changing it directly can corrupt the repository (built-in rule)"),
                    ".git internals",
                ));
    }
    match (&rel, access) {
        (None, Access::Write) => out.push(Finding::floor(
            Verdict::Deny,
            format!("`{name}` is outside the project folder; the agent may only change files inside it (built-in rule)"),
            "outside the project",
        )),
        (None, Access::Read) => {
            let granted = policy.allow_read.iter().find(|r| r.glob.is_match(abs));
            match granted {
                Some(r) => out.push(
                    Finding::new(Verdict::Allow, format!("reading `{name}` was allowed this session"), format!("allow_read \"{}\"", r.text), r.source.clone())
                        .with_specificity(10),
                ),
                None => out.push(
                    Finding::floor(
                        Verdict::Ask,
                        format!("`{name}` is outside the project folder; reading it needs your approval (built-in rule)"),
                        "outside the project",
                    )
                    .with_suggestions(vec![crate::suggest::read(abs)]),
                ),
            }
        }
        _ => {}
    }

    // The user's protected paths: matched against the project-relative path inside the
    // project, the absolute one outside.
    let subject = rel
        .clone()
        .unwrap_or_else(|| abs.to_string_lossy().trim_start_matches('/').to_string());
    let excepted = policy.exceptions_set.is_match(&subject);
    if !excepted {
        // The set says whether any rule matched; the first matching one is named.
        if let Some(rule) = policy
            .protected_set
            .matches(&subject)
            .first()
            .and_then(|&i| policy.protected.get(i))
        {
            out.push(Finding::new(
                Verdict::Deny,
                format!(
                    "`{name}` is a protected path, so the agent may not {verb} it ({})",
                    rule.source.label()
                ),
                format!("paths.protected \"{}\"", rule.text),
                rule.source.clone(),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn secrets_and_templates() {
        for p in [
            "/p/.env",
            "/p/a/.env.local",
            "/home/u/.ssh/config",
            "/home/u/.aws/credentials",
            "/p/x.pem",
            "/p/id_rsa",
        ] {
            assert!(is_secret(&PathBuf::from(p)), "{p}");
        }
        for p in [
            "/p/.env.example",
            "/p/id_rsa.pub",
            "/p/src/env.rs",
            "/p/.envrc.md/x",
        ] {
            assert!(!is_secret(&PathBuf::from(p)), "{p}");
        }
    }
}
