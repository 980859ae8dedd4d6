//! Whether this machine can sandbox commands, found out once by really starting a sandboxed
//! process through the helper.

use crate::{HELPER_ENV, HELPER_NAME, SWITCH_ENV};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// What the kernel offers, as the helper found it by trying.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capabilities {
    /// Commands can be sandboxed: every part below that the sandbox needs works.
    pub sandboxed: bool,
    /// The helper program used, when one was found.
    pub helper: Option<PathBuf>,
    /// New user, mount, PID and IPC namespaces could be made without privileges.
    pub namespaces: bool,
    /// A network namespace could be made (a command then sees only its own loopback).
    pub network_namespace: bool,
    /// The Landlock ABI the kernel offers (none when Landlock is off or missing).
    pub landlock_abi: Option<u32>,
    /// Seccomp filters can be installed.
    pub seccomp: bool,
    /// What a sandboxed command was seen to get, layer by layer (all false when it could not
    /// run).
    #[serde(default)]
    pub layers: Layers,
    /// Why commands cannot be sandboxed, in words for people.
    pub unavailable: Option<Unavailable>,
}

/// The sandbox's layers as the probe's own sandboxed command saw them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layers {
    /// `/tmp` is the session's own folder, not the machine's.
    pub private_tmp: bool,
    /// `/run` holds no socket of the machine (system bus, container engines, databases, the
    /// user's runtime folder).
    pub private_run: bool,
    /// A terminal instance of its own (`/dev/pts`): the user's terminals are not there.
    pub private_terminals: bool,
    /// A socket of a program outside, bound to a path elsewhere, was not reachable.
    pub host_sockets_hidden: bool,
    /// The home folder is empty but for what toolchains need.
    pub home_hidden: bool,
    /// Processes one command may have (per command), when limited.
    pub process_limit: Option<u64>,
    /// Bytes of data memory one process may take, when limited.
    pub memory_limit: Option<u64>,
    /// Bytes one file a command writes may hold, when limited.
    #[serde(default)]
    pub file_limit: Option<u64>,
    /// The folders at the top of the machine (and in `/home`) a command could list: the
    /// allow-list as the probe's own sandboxed command saw it.
    #[serde(default)]
    pub readable: Vec<String>,
    /// Abstract sockets (the X server's, D-Bus's) of programs outside are unreachable even
    /// with the network granted (Landlock ABI 6 or later). Without it, a command that gets the
    /// network could reach them.
    pub abstract_sockets_scoped: bool,
    /// A command that may write works on a copy-on-write layer of the project (an
    /// unprivileged overlay), so its changes can be reviewed before they land.
    #[serde(default)]
    pub project_layer: bool,
}

/// Why there is no sandbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum Unavailable {
    /// `TANDEM_SANDBOX=off`.
    TurnedOff,
    /// Not Linux.
    UnsupportedSystem(String),
    /// The helper program is missing.
    NoHelper(String),
    /// The kernel refused a part the sandbox needs.
    Kernel(String),
}

impl Unavailable {
    pub fn explain(&self) -> String {
        match self {
            Unavailable::TurnedOff => format!(
                "the sandbox is turned off ({SWITCH_ENV}=off), so commands run with your own permissions"
            ),
            Unavailable::UnsupportedSystem(os) => format!(
                "commands cannot be sandboxed on {os} yet, so they run with your own permissions"
            ),
            Unavailable::NoHelper(why) => format!(
                "the sandbox helper `{HELPER_NAME}` is missing ({why}), so commands cannot be sandboxed"
            ),
            Unavailable::Kernel(why) => format!(
                "this system's kernel does not allow the sandbox ({why}), so commands run with your own permissions"
            ),
        }
    }
}

impl Capabilities {
    fn without(reason: Unavailable, helper: Option<PathBuf>) -> Self {
        Capabilities {
            sandboxed: false,
            helper,
            namespaces: false,
            network_namespace: false,
            landlock_abi: None,
            seccomp: false,
            layers: Layers::default(),
            unavailable: Some(reason),
        }
    }

    /// A command that gets the network can be kept from the machine's other programs: with
    /// Landlock older than ABI 6 their abstract sockets stay reachable, so granting the network
    /// must be put to the user.
    pub fn network_confined(&self) -> bool {
        self.sandboxed && self.layers.abstract_sockets_scoped
    }

    /// One line for the mode selector and `tandem-cli sandbox check`.
    pub fn summary(&self) -> String {
        match &self.unavailable {
            None => format!(
                "Commands run in a sandbox (namespaces, Landlock ABI {}, seccomp): they can change only the project and a private temporary folder, cannot read your keys, and have no network unless it is granted.",
                self.landlock_abi.unwrap_or(0)
            ),
            Some(u) => {
                let mut s = u.explain();
                s.push_str(". Without a sandbox, full_auto asks before running commands.");
                s
            }
        }
    }
}

/// Where the helper is: `TANDEM_SANDBOX_HELPER`, else beside the running program or one folder
/// up (test programs run from `target/debug/deps/`).
pub fn find_helper() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os(HELPER_ENV) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!(
                "{HELPER_ENV} names {}, which does not exist",
                p.display()
            ))
        };
    }
    let exe =
        std::env::current_exe().map_err(|e| format!("the running program is unknown: {e}"))?;
    let mut dir = exe.parent();
    for _ in 0..2 {
        let Some(d) = dir else { break };
        let candidate = d.join(HELPER_NAME);
        if candidate.is_file() {
            return Ok(candidate);
        }
        dir = d.parent();
    }
    Err(format!(
        "not found beside {}; build it with `cargo build -p sandbox` or set {HELPER_ENV}",
        exe.display()
    ))
}

/// What this machine offers, found once per process.
pub fn probe() -> &'static Capabilities {
    static CAPS: OnceLock<Capabilities> = OnceLock::new();
    CAPS.get_or_init(|| {
        let switch = std::env::var(SWITCH_ENV).ok();
        probe_with(switch.as_deref(), find_helper())
    })
}

/// The probe with its inputs given: the switch's value and the helper (or why it is missing).
pub fn probe_with(switch: Option<&str>, helper: Result<PathBuf, String>) -> Capabilities {
    if matches!(switch, Some("off" | "0" | "false" | "no")) {
        return Capabilities::without(Unavailable::TurnedOff, None);
    }
    if !cfg!(target_os = "linux") {
        return Capabilities::without(
            Unavailable::UnsupportedSystem(std::env::consts::OS.into()),
            None,
        );
    }
    let helper = match helper {
        Ok(h) => h,
        Err(why) => return Capabilities::without(Unavailable::NoHelper(why), None),
    };
    run_probe(&helper)
}

fn run_probe(helper: &Path) -> Capabilities {
    let out = Command::new(helper)
        .arg("probe")
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) => {
            return Capabilities::without(
                Unavailable::NoHelper(format!("{} cannot be started: {e}", helper.display())),
                Some(helper.to_path_buf()),
            );
        }
    };
    match serde_json::from_slice::<Capabilities>(&out.stdout) {
        Ok(mut caps) => {
            caps.helper = Some(helper.to_path_buf());
            caps
        }
        Err(e) => Capabilities::without(
            Unavailable::NoHelper(format!(
                "{} answered the probe with something unreadable ({e}): {}",
                helper.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            )),
            Some(helper.to_path_buf()),
        ),
    }
}

/// The cgroup v2 controllers this machine offers (`memory`, `pids` …), from the unified
/// hierarchy wherever it is mounted (`/sys/fs/cgroup`, or `/sys/fs/cgroup/unified` beside v1);
/// `None` without one. A command's memory and processes can be capped as a whole only where
/// both `memory` and `pids` are there (and delegated to this user); per-process limits
/// (`RLIMIT_DATA`, `RLIMIT_NPROC`, `pid_max`) hold everywhere.
pub fn cgroup_v2_controllers() -> Option<Vec<String>> {
    [
        "/sys/fs/cgroup/cgroup.controllers",
        "/sys/fs/cgroup/unified/cgroup.controllers",
    ]
    .iter()
    .find_map(|f| std::fs::read_to_string(f).ok())
    .map(|t| t.split_whitespace().map(str::to_string).collect())
}
