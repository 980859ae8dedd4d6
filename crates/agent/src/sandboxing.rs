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

/// Gives a session's toolbox its confinement: secret files kept out of searches, the
/// sandbox for commands (when this machine has one) and a private temporary folder.
pub fn confine(toolbox: &mut Toolbox, session_id: &str, session_dir: &Path) {
    toolbox.ws.hide_secrets(policy::is_secret);
    toolbox.commands.tmp_dir = private_tmp(session_id, session_dir);
    let caps = capabilities();
    toolbox.commands.sandbox = match (&caps.helper, caps.sandboxed) {
        (Some(helper), true) => {
            let home = std::env::var_os("HOME").map(PathBuf::from);
            Some(SandboxSetup::new(
                helper.clone(),
                session_dir.join("sandbox"),
                hidden_locations(home.as_deref()),
                home.into_iter().collect(),
                policy::is_secret,
            ))
        }
        _ => None,
    };
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
