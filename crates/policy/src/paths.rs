//! Judging a path that is read or written: the hard floors (secrets, `.git/` internals, the
//! policy files, outside the project) and the user's protected paths.

use crate::call::Context;
use crate::decision::{Finding, Verdict};
use crate::rules::Policy;
use globset::{Glob, GlobSet, GlobSetBuilder};
use std::path::Path;
use std::sync::OnceLock;

/// Secret locations in a home folder, relative to it: keys, cloud and registry credentials,
/// password stores, shell and REPL histories (commands typed with tokens in them), browser
/// profiles (session cookies) and Tandem's own logs. What the OS sandbox hides from every
/// command; the same names are secret wherever they appear (`**/.aws/**`, …), so a project that
/// carries a `.aws/` or `.netrc` of its own is protected alike — but for [`HOME_ONLY_SECRETS`].
pub const HOME_SECRETS: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".config/gcloud",
    ".azure",
    ".kube",
    ".oci",
    // Registry tokens in config.json, the engine's socket under desktop/.
    ".docker",
    ".docker/config.json",
    ".netrc",
    ".git-credentials",
    // git's credential cache: the socket that hands out cached passwords.
    ".cache/git/credential",
    ".pypirc",
    ".npmrc",
    // Yarn's npmAuthToken.
    ".yarnrc.yml",
    ".gem/credentials",
    ".bundle/config",
    ".m2/settings.xml",
    ".m2/settings-security.xml",
    ".gradle/gradle.properties",
    ".config/gh",
    ".config/hub",
    ".config/glab-cli",
    ".config/doctl",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".cache/huggingface/token",
    ".cache/huggingface/stored_tokens",
    ".huggingface/token",
    ".ngrok2",
    ".config/ngrok",
    ".local/share/keyrings",
    ".password-store",
    ".1password",
    ".config/op",
    ".config/1Password",
    ".vault-token",
    ".pgpass",
    ".terraform.d/credentials.tfrc.json",
    ".config/composer/auth.json",
    ".bash_history",
    ".zsh_history",
    ".histfile",
    ".sh_history",
    ".local/share/fish/fish_history",
    ".python_history",
    ".node_repl_history",
    ".psql_history",
    ".mysql_history",
    ".sqlite_history",
    ".rediscli_history",
    ".lesshst",
    ".irb_history",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".thunderbird",
    ".local/share/dev.tandem.app",
];

/// Home secrets that are secret only in the home folder: in a project, `.docker/` holds build
/// files, `.yarnrc.yml` the settings Yarn must read to run at all (`yarnPath`), and
/// `.bundle/config` where Bundler installed the gems; hidden from the sandbox, the project's
/// own tools would break.
pub(crate) const HOME_ONLY_SECRETS: &[&str] = &[".docker", ".yarnrc.yml", ".bundle/config"];

/// Secret files by their own name, wherever they are.
pub(crate) const SECRET_NAMES: &[&str] = &[
    "**/.env",
    "**/.env.*",
    "**/*.pem",
    "**/*.key",
    "**/id_rsa*",
    "**/id_ed25519*",
    "**/id_ecdsa*",
    "**/id_dsa*",
    // direnv's: exports the project's keys into the shell.
    "**/.envrc",
    "**/credentials.json",
    "**/*service-account*.json",
    "**/*serviceaccount*.json",
    "**/.npmrc",
    "**/.pypirc",
    "**/.netrc",
    "**/.git-credentials",
    "**/*.p12",
    "**/*.pfx",
    "**/*.keystore",
    "**/*.jks",
    "**/.htpasswd",
    // Terraform keeps every secret it manages in its state, in plain text.
    "**/terraform.tfstate",
    "**/terraform.tfstate.backup",
    "**/*.tfvars",
    "**/*.tfvars.json",
];

/// The system's own secrets.
const SYSTEM_SECRETS: &[&str] = &[
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

/// The secret globs, one list: the names secret anywhere, then every home secret as a file or
/// a folder anywhere.
fn secret_patterns() -> Vec<String> {
    let mut v: Vec<String> = SECRET_NAMES.iter().map(|g| (*g).to_string()).collect();
    for entry in HOME_SECRETS
        .iter()
        .filter(|e| !HOME_ONLY_SECRETS.contains(e))
    {
        v.push(format!("**/{entry}"));
        v.push(format!("**/{entry}/**"));
    }
    v
}

/// The globs that name secret files (and the templates that are not), for the sandbox to hide
/// them inside a project and for [`is_secret`].
pub struct SecretGlobs {
    patterns: Vec<String>,
    secret: GlobSet,
    templates: GlobSet,
}

impl SecretGlobs {
    /// Globs of secret files, relative to any folder (`**/.env`, `**/.ssh/**`, …).
    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// Globs of files that look secret but are templates meant to be shared.
    pub fn exceptions(&self) -> &'static [&'static str] {
        SECRET_TEMPLATES
    }

    /// Whether a path (absolute, or relative to the project) names a secret file.
    pub fn is_secret(&self, path: &Path) -> bool {
        self.secret.is_match(path) && !self.templates.is_match(path)
    }
}

/// The secret globs the engine protects, compiled once.
pub fn project_secret_globs() -> &'static SecretGlobs {
    static GLOBS: OnceLock<SecretGlobs> = OnceLock::new();
    GLOBS.get_or_init(|| {
        let patterns = secret_patterns();
        let mut all: Vec<&str> = patterns.iter().map(String::as_str).collect();
        all.extend(SYSTEM_SECRETS);
        SecretGlobs {
            secret: set(&all),
            templates: set(SECRET_TEMPLATES),
            patterns,
        }
    })
}

/// Locations outside the project where a write changes how this machine starts programs or
/// the shell (startup files, autostart, the system folders): no command writes there unasked,
/// and no approval dialog offers it either.
const STARTUP_IN_HOME: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".bash_aliases",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
    ".kshrc",
    ".mkshrc",
    ".cshrc",
    ".tcshrc",
    ".login",
    ".logout",
    ".inputrc",
    ".xinitrc",
    ".xprofile",
    ".xsession",
    ".pam_environment",
    ".gitconfig",
    ".vimrc",
    ".emacs",
    ".config/fish/**",
    ".config/autostart/**",
    ".config/systemd/**",
    ".config/environment.d/**",
    ".config/git/**",
    ".config/nvim/**",
    ".config/tandem/**",
    ".config/direnv/**",
    ".emacs.d/**",
    ".local/bin/**",
    ".local/share/systemd/**",
    ".cargo/bin/**",
    ".cargo/config",
    ".cargo/config.toml",
    "bin/**",
    "Library/LaunchAgents/**",
];

const SYSTEM_FOLDERS: &[&str] = &[
    "/etc",
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/boot",
    "/dev",
    "/proc",
    "/sys",
    "/root",
    "/var/spool",
    "/Library",
    "/System",
];

/// Whether writing `abs` would change how the machine or the user's shell starts programs.
pub fn is_startup_location(abs: &Path, home: Option<&Path>) -> bool {
    if abs == Path::new("/") || SYSTEM_FOLDERS.iter().any(|f| abs.starts_with(f)) {
        return true;
    }
    static SET: OnceLock<GlobSet> = OnceLock::new();
    let startup = SET.get_or_init(|| set(STARTUP_IN_HOME));
    home.and_then(|h| abs.strip_prefix(h).ok())
        .is_some_and(|rel| startup.is_match(rel))
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
    project_secret_globs().is_secret(abs)
}

/// Whether the merged rules protect `abs` (the built-in, the person's and the project's
/// `paths.protected`, less their exceptions): matched against the path relative to `root`
/// inside the project, the absolute one outside, as the tools' judgements match them. Every
/// tool that shows files (a search, a diff, a listing) and the sandbox keep these out too.
pub fn is_protected(policy: &Policy, root: &Path, abs: &Path) -> bool {
    let subject = match abs.strip_prefix(root) {
        Ok(rel) => rel.to_string_lossy().into_owned(),
        Err(_) => abs.to_string_lossy().trim_start_matches('/').to_string(),
    };
    !subject.is_empty()
        && policy.paths.protected_set.is_match(&subject)
        && !policy.paths.exceptions_set.is_match(&subject)
}

/// Whether a path is, or is inside, a secret only the home folder holds (`~/.docker/`).
pub fn is_home_secret(abs: &Path, home: Option<&Path>) -> bool {
    home.and_then(|h| abs.strip_prefix(h).ok())
        .is_some_and(|rel| HOME_ONLY_SECRETS.iter().any(|s| rel.starts_with(s)))
}

/// Findings for one path access by a tool (read_file, write_file): the protections, and the
/// project's edge (writes outside are refused, reads outside ask).
pub fn judge_path(policy: &Policy, ctx: &Context, abs: &Path, access: Access) -> Vec<Finding> {
    let mut out = protections(policy, ctx, abs, access);
    let name = shown(ctx, abs);
    match (ctx.relative(abs), access) {
        (None, Access::Write) => out.push(Finding::floor(
            Verdict::Deny,
            format!("“{name}” is outside the project folder; the agent may only change files inside it (built-in rule)"),
            "outside the project",
        )),
        (None, Access::Read) if ctx.is_saved_output(abs) => out.push(Finding::floor(
            Verdict::Allow,
            format!("“{name}” is a file this session saved (a cut result, a command's output, a fetched page): the agent reads its own output back"),
            "session's saved output",
        )),
        (None, Access::Read) => out.push(read_outside(policy, ctx, abs, &name)),
        _ => {}
    }
    out
}

/// A read outside the project: allowed when granted (this session, or by a rule naming the
/// folder), a question otherwise.
pub fn read_outside(policy: &Policy, ctx: &Context, abs: &Path, name: &str) -> Finding {
    match policy
        .paths
        .allow_read
        .iter()
        .find(|r| r.covers(abs, ctx.home))
    {
        Some(r) => Finding::new(
            Verdict::Allow,
            match r.source {
                crate::source::Source::Session => {
                    format!("reading “{name}” was allowed this session")
                }
                _ => format!("your rules let the agent read “{}”", r.text),
            },
            format!("allow_read \"{}\"", r.text),
            r.source.clone(),
        )
        .with_specificity(10),
        None => Finding::floor(
            Verdict::Ask,
            format!("“{name}” is outside the project folder; reading it needs your approval (built-in rule)"),
            "outside the project",
        )
        .with_suggestions(crate::suggest::read(abs)),
    }
}

/// What protects a path wherever it is: secrets, the policy files, git's own folder and the
/// user's protected paths.
pub fn protections(policy: &Policy, ctx: &Context, abs: &Path, access: Access) -> Vec<Finding> {
    let mut out = Vec::new();
    let name = shown(ctx, abs);
    let verb = match access {
        Access::Read => "read",
        Access::Write => "change",
    };

    if is_secret(abs) || is_home_secret(abs, ctx.home) {
        out.push(Finding::floor(
            Verdict::Deny,
            format!("“{name}” holds secrets, so the agent may not {verb} it (built-in rule)"),
            "secrets",
        ));
    }
    let rel = ctx.relative(abs);
    let is_policy_file = rel.as_deref() == Some(".tandem/policy.toml")
        || ctx.user_policy_file.is_some_and(|u| u == abs);
    if is_policy_file && access == Access::Write {
        out.push(Finding::floor(
            Verdict::Deny,
            format!("“{name}” is a policy file: only you can change the rules, not the agent (built-in rule)"),
            "policy file",
        ));
    }
    if access == Access::Write
        && let Some(r) = &rel
        && (r == ".git" || r.starts_with(".git/"))
    {
        out.push(Finding::floor(
            Verdict::Deny,
            format!("“{name}” is inside git's own folder; changing it directly can corrupt the repository (built-in rule)"),
            ".git internals",
        ));
    }

    // The user's protected paths: matched against the project-relative path inside the
    // project, the absolute one outside.
    let subject = rel
        .clone()
        .unwrap_or_else(|| abs.to_string_lossy().trim_start_matches('/').to_string());
    let excepted = policy.paths.exceptions_set.is_match(&subject);
    if !excepted {
        // The set says whether any rule matched; the first matching one is named.
        if let Some(rule) = policy
            .paths
            .protected_set
            .matches(&subject)
            .first()
            .and_then(|&i| policy.paths.protected.get(i))
        {
            out.push(Finding::new(
                Verdict::Deny,
                format!(
                    "“{name}” is a protected path, so the agent may not {verb} it ({})",
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
            "/p/.envrc",
            "/p/config/credentials.json",
            "/p/keys/my-service-account-1234.json",
            "/p/gcp-serviceaccount.json",
            "/p/.npmrc",
            "/p/sub/.pypirc",
            "/p/.netrc",
            "/p/.git-credentials",
            "/p/certs/client.p12",
            "/p/certs/client.pfx",
            "/p/android/release.keystore",
            "/p/android/release.jks",
            "/p/deploy/.htpasswd",
            "/p/infra/terraform.tfstate",
            "/p/infra/terraform.tfstate.backup",
            "/p/infra/prod.tfvars",
            "/p/infra/prod.auto.tfvars",
            "/home/u/.npmrc",
            "/home/u/.cache/huggingface/token",
            "/home/u/.cache/huggingface/stored_tokens",
            "/home/u/.huggingface/token",
            "/home/u/.bash_history",
            "/home/u/.zsh_history",
            "/home/u/.histfile",
            "/home/u/.local/share/fish/fish_history",
            "/home/u/.python_history",
            "/home/u/.node_repl_history",
            "/home/u/.psql_history",
            "/home/u/.mysql_history",
            "/home/u/.lesshst",
            "/home/u/.docker/config.json",
            "/home/u/.1password/agent.sock",
            "/home/u/.cache/git/credential/socket",
            "/home/u/.config/op/config",
            "/home/u/.config/1Password/settings.json",
            "/home/u/.local/share/dev.tandem.app/sessions/x.log",
            "/home/u/.config/gh/hosts.yml",
            "/home/u/.config/gh/config.yml",
            "/home/u/.config/glab-cli/config.yml",
            "/home/u/.config/doctl/config.yaml",
            "/home/u/.oci/config",
            "/home/u/.ngrok2/ngrok.yml",
            "/home/u/.config/ngrok/ngrok.yml",
            "/home/u/.m2/settings.xml",
            "/home/u/.m2/settings-security.xml",
            "/home/u/.gradle/gradle.properties",
            "/home/u/.mozilla/firefox/x.default/cookies.sqlite",
            "/home/u/.config/google-chrome/Default/Cookies",
            "/home/u/.config/chromium/Default/Cookies",
            "/home/u/.thunderbird/x.default/logins.json",
        ] {
            assert!(is_secret(&PathBuf::from(p)), "{p}");
        }
        for p in [
            "/p/.env.example",
            "/p/id_rsa.pub",
            "/p/src/env.rs",
            "/p/.envrc.md/x",
            "/p/.envrc.example",
            "/p/infra/main.tf",
            "/p/infra/prod.tfvars.example",
            "/p/src/credentials.rs",
            "/p/package.json",
            "/p/.npmignore",
            "/p/.gradle/8.5/checksums/checksums.lock",
            "/home/u/.cache/huggingface/hub/models--x/config.json",
            // Secret in the home folder only: a project's own are its tools' settings.
            "/p/.docker/nginx.conf",
            "/p/.yarnrc.yml",
            "/p/.bundle/config",
        ] {
            assert!(!is_secret(&PathBuf::from(p)), "{p}");
        }
    }

    #[test]
    fn some_names_are_secret_only_in_the_home_folder() {
        let home = Some(Path::new("/home/u"));
        for p in [
            "/home/u/.docker",
            "/home/u/.docker/desktop/docker.sock",
            "/home/u/.yarnrc.yml",
            "/home/u/.bundle/config",
        ] {
            assert!(is_home_secret(Path::new(p), home), "{p}");
        }
        for p in [
            "/home/u/p/.docker/x",
            "/home/u/p/.yarnrc.yml",
            "/p/.bundle/config",
        ] {
            assert!(!is_home_secret(Path::new(p), home), "{p}");
        }
        assert!(!is_home_secret(Path::new("/home/u/.docker"), None));
        for home_only in HOME_ONLY_SECRETS {
            assert!(HOME_SECRETS.contains(home_only), "{home_only}");
        }
    }

    /// The model was told to read a cut result back from the session's folder, and reading
    /// it asked (and the tool refused it as outside the project). It is the agent's own
    /// output: allowed; anything beside it, or a secret's name inside it, is not.
    #[test]
    fn the_sessions_saved_outputs_are_read_without_a_question() {
        use crate::{ToolCall, Verdict, evaluate};
        let policy = Policy::builtin();
        let saved = [PathBuf::from("/data/sessions/s1/outputs")];
        let mut ctx = Context::new(Path::new("/p"));
        ctx.saved_outputs = &saved;
        let read = |path: &str| evaluate(&policy, &ToolCall::Read { path }, &ctx).decision;
        assert_eq!(
            read("/data/sessions/s1/outputs/result-call_1.txt"),
            Verdict::Allow
        );
        assert_eq!(read("/data/sessions/s1/outputs"), Verdict::Allow);
        assert_eq!(read("/data/sessions/s1/seen.jsonl"), Verdict::Ask);
        assert_eq!(
            read("/data/sessions/s1/outputs/../seen.jsonl"),
            Verdict::Ask
        );
        assert_eq!(read("/data/sessions/s1/outputs/.env"), Verdict::Deny);
        assert_eq!(
            read("/data/sessions/s2/outputs/result-call_1.txt"),
            Verdict::Ask
        );
    }
}
