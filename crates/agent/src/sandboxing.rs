//! The OS sandbox for a session's commands: whether this machine has one, the session's
//! private temporary folder, and the secret locations every command is kept away from.

use crate::locations;
use policy::{Decision, Mode};
use protocol::{Confinement, OutsideReason};
use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _};
use std::path::{Path, PathBuf};
use tools::{SandboxSetup, Toolbox};

pub use sandbox::{Capabilities, Unavailable};

/// What this machine offers, found once per process (`TANDEM_SANDBOX=off` turns it off).
pub fn capabilities() -> &'static Capabilities {
    sandbox::probe()
}

/// Sockets of services that would do for a command what the sandbox forbids it (start
/// containers as root, hand out secrets).
const SERVICE_SOCKETS: &[&str] = &[
    "/var/run/docker.sock",
    "/run/docker.sock",
    "/run/containerd/containerd.sock",
    "/run/podman/podman.sock",
    "/etc/shadow",
    "/etc/gshadow",
];

/// Everything every command is kept away from: the user's keys and credentials (the policy's
/// list), Tandem's own configuration (keys, rules) and data (other sessions' logs), and the
/// user's runtime folder (session bus, keyring, agent sockets).
pub fn hidden_locations(home: Option<&Path>) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = Vec::new();
    if let Some(home) = home {
        v.extend(policy::HOME_SECRETS.iter().map(|rel| home.join(rel)));
    }
    v.push(locations::config_dir());
    v.push(locations::data_dir());
    if let Some(run) = std::env::var_os("XDG_RUNTIME_DIR") {
        v.push(PathBuf::from(run));
    }
    v.push(PathBuf::from(format!(
        "/run/user/{}",
        std::fs::metadata("/proc/self")
            .map(|m| m.uid())
            .unwrap_or(0)
    )));
    v.extend(SERVICE_SOCKETS.iter().map(PathBuf::from));
    // Links are followed: a hidden link would hide nothing.
    let mut v: Vec<PathBuf> = v
        .into_iter()
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    v.sort();
    v.dedup();
    v
}

/// The session's private temporary folder: `/tmp/tandem-UID/SESSION`, made private to the
/// user. Not in the session folder, which is hidden from commands with the rest of Tandem's
/// data. A `/tmp/tandem-UID` that someone else owns is not used.
pub fn private_tmp(session_id: &str, session_dir: &Path) -> PathBuf {
    let uid = std::fs::metadata("/proc/self")
        .map(|m| m.uid())
        .unwrap_or(0);
    let base = std::env::temp_dir().join(format!("tandem-{uid}"));
    let _ = std::fs::DirBuilder::new().mode(0o700).create(&base);
    let ours = std::fs::symlink_metadata(&base)
        .is_ok_and(|m| m.is_dir() && m.uid() == uid && m.mode() & 0o077 == 0);
    if ours {
        base.join(session_id)
    } else {
        session_dir.join("tmp")
    }
}

/// What toolchains need of the home folder: version managers, compilers and interpreters
/// installed there, package caches (read-only: installs write the private temporary folder)
/// and git's own settings. Everything else in the home folder — keys, tokens, histories,
/// browser profiles, other programs' sockets, whatever they are called — is not there for a
/// command. Secret files inside these (`.cargo/credentials.toml` …) stay hidden.
pub const HOME_FOR_TOOLCHAINS: &[&str] = &[
    // git
    ".gitconfig",
    ".config/git",
    // Rust, Go, Zig, Haskell, OCaml, Lean, .NET, Julia, Swift
    ".cargo",
    ".rustup",
    "go",
    ".cache/go-build",
    ".config/go",
    ".cache/zig",
    ".ghcup",
    ".cabal",
    ".stack",
    ".opam",
    ".elan",
    ".dotnet",
    ".nuget/packages",
    ".julia",
    ".juliaup",
    ".swiftpm",
    // Python
    ".pyenv",
    ".local/bin",
    ".local/lib",
    ".local/pipx",
    ".local/share/uv",
    ".local/share/virtualenvs",
    ".virtualenvs",
    ".cache/pip",
    ".cache/uv",
    ".cache/pypoetry",
    ".conda",
    "miniconda3",
    "anaconda3",
    "miniforge3",
    "mambaforge",
    // JavaScript
    ".nvm",
    ".fnm",
    ".volta",
    ".bun",
    ".deno",
    ".cache/deno",
    ".npm",
    ".node-gyp",
    ".cache/node-gyp",
    ".cache/yarn",
    ".yarn/berry",
    ".pnpm-store",
    ".local/share/pnpm",
    ".cache/ms-playwright",
    ".cache/puppeteer",
    // JVM, Ruby
    ".sdkman",
    ".jdks",
    ".m2/repository",
    ".gradle/caches",
    ".gradle/wrapper",
    ".ivy2",
    ".sbt",
    ".rbenv",
    ".rvm",
    ".gem",
    ".local/share/gem",
    // Version managers for many languages, Nix
    ".asdf",
    ".tool-versions",
    ".local/share/mise",
    ".config/mise",
    ".nix-profile",
    // Build caches and formatters' settings
    ".ccache",
    ".cache/ccache",
    ".cache/bazel",
    ".cache/pre-commit",
    ".editorconfig",
];

/// The toolchain entries that exist under `home`.
pub fn home_for_toolchains(home: &Path) -> Vec<PathBuf> {
    HOME_FOR_TOOLCHAINS
        .iter()
        .map(|rel| home.join(rel))
        .filter(|p| p.exists())
        .collect()
}

/// Gives a session's toolbox its confinement: secret files kept out of searches, the
/// sandbox for commands (when this machine has one) and a private temporary folder. Nothing
/// is read yet: a session that lives long starts that with [`start_watching`].
pub fn confine(toolbox: &mut Toolbox, session_id: &str, session_dir: &Path) {
    toolbox.ws.hide_secrets(policy::is_secret);
    toolbox.history = Some(tools::HistorySecrets::new(
        toolbox.ws.root().path(),
        policy::is_secret,
    ));
    toolbox.commands.tmp_dir = private_tmp(session_id, session_dir);
    toolbox.scratch = Some(toolbox.commands.tmp_dir.clone());
    toolbox.commands.sandbox = sandbox_setup(session_dir.join("sandbox"));
    toolbox.commands.reaper = sandbox::find_helper().ok();
}

/// Starts reading the project (its secret files, its repositories, its history) in the
/// background, so the session's first command does not wait for it.
pub fn start_watching(toolbox: &Toolbox) {
    if let Some(setup) = &toolbox.commands.sandbox {
        setup.watch(toolbox.ws.root().path());
    }
    if let Some(h) = &toolbox.history {
        h.begin();
    }
}

/// The sandbox for a session's (or a tool server's) processes, with its helper's files in
/// `state_dir`; `None` on a machine without one.
pub fn sandbox_setup(state_dir: PathBuf) -> Option<SandboxSetup> {
    let caps = capabilities();
    match (&caps.helper, caps.sandboxed) {
        (Some(helper), true) => {
            let home = std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|h| h.is_absolute())
                .and_then(|h| h.canonicalize().ok());
            let setup = SandboxSetup::new(helper.clone(), state_dir, policy::is_secret)
                .hiding(hidden_locations(home.as_deref()));
            Some(match home {
                Some(h) => {
                    let visible = home_for_toolchains(&h);
                    setup.with_home(h, visible)
                }
                None => setup,
            })
        }
        _ => None,
    }
}

/// Where a command the policy let through runs: in the sandbox (with the network when the
/// policy grants it), outside only when the policy said it must leave — in which case it was
/// put to the user — or when this machine has no sandbox.
pub fn confinement(decision: &Decision, mode: Mode, sandboxed: bool) -> Confinement {
    if !sandboxed {
        Confinement::Outside {
            reason: OutsideReason::Unavailable,
        }
    } else if decision.sandbox.outside {
        Confinement::Outside {
            reason: OutsideReason::Approved,
        }
    } else {
        Confinement::Sandboxed {
            network: decision.sandbox.network,
            read_only: mode == Mode::ReadOnly,
        }
    }
}

/// The policy's decision, with what this machine's sandbox cannot promise put to the user
/// (see [`confine_network_grant`]).
pub fn checked_for_this_machine(decision: Decision, ctx: &policy::Context<'_>) -> Decision {
    if ctx.sandboxed {
        confine_network_grant(decision, capabilities())
    } else {
        decision
    }
}

/// A command the policy lets have the network runs in the machine's network namespace, where
/// other programs' abstract sockets (the X server's, a session bus's) live. Landlock keeps it
/// from them from ABI 6 on; on an older kernel nothing does, so a grant that would run without
/// a question is put to the user instead.
pub fn confine_network_grant(decision: Decision, caps: &Capabilities) -> Decision {
    if decision.decision != policy::Verdict::Allow
        || !decision.sandbox.network
        || !caps.sandboxed
        || caps.network_confined()
    {
        return decision;
    }
    Decision {
        decision: policy::Verdict::Ask,
        reason: format!(
            "{}; it would get the network, and this system's kernel cannot keep a command with the network away from other programs on this computer (Landlock older than ABI 6)",
            decision.reason
        ),
        rule: policy::RuleRef {
            name: "sandbox: network not confinable".into(),
            source: policy::Source::Builtin,
        },
        ..decision
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(abi: u32) -> Capabilities {
        Capabilities {
            sandboxed: true,
            helper: None,
            namespaces: true,
            network_namespace: true,
            landlock_abi: Some(abi),
            seccomp: true,
            layers: sandbox::Layers {
                abstract_sockets_scoped: abi >= 6,
                ..Default::default()
            },
            unavailable: None,
        }
    }

    #[test]
    fn a_network_grant_asks_where_abstract_sockets_cannot_be_scoped() {
        let policy = policy::Policy::builtin();
        let root = std::env::temp_dir();
        let resolver = |p: &Path| p.to_path_buf();
        let mut ctx = policy::Context::new(&root);
        ctx.mode = Some(Mode::FullAuto);
        ctx.sandboxed = true;
        ctx.resolver = &resolver;
        let d = policy::evaluate(
            &policy,
            &policy::ToolCall::Command {
                command: "git fetch origin",
            },
            &ctx,
        );
        assert!(d.is_allowed() && d.sandbox.network, "{d:?}");
        assert!(confine_network_grant(d.clone(), &caps(7)).is_allowed());
        let asked = confine_network_grant(d, &caps(5));
        assert_eq!(asked.decision, policy::Verdict::Ask);
        assert!(asked.reason.contains("ABI 6"), "{}", asked.reason);
    }
}
