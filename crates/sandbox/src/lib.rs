//! The OS sandbox every process of the agent runs in.
//!
//! Owns the kernel's side of the boundary: which folders a command may write (the project and
//! a private temporary folder), which secret locations it cannot read at all, whether it sees a
//! network, and that its whole process tree ends with it. On Linux this is done by a small
//! helper program, `tandem-sandbox`, that puts the command into new user, mount, PID, IPC and
//! (without network) network namespaces, hides secrets behind empty mounts, drops every
//! capability and restricts itself with Landlock and a seccomp filter before it runs the
//! command. No setuid helper, no daemon.
//!
//! Must not decide *what* may run (that is the policy engine), parse shell, or talk to the
//! model; no tokio, no Tauri. Callers describe one command's confinement as a
//! [`SandboxSpec`], ask [`probe`] once whether the machine can sandboxes at all, and wrap the
//! command with [`wrap`].

mod cgroups;
mod launch;
mod probe;
mod spec;

#[cfg(target_os = "linux")]
pub mod helper;

pub use cgroups::{CgroupPlace, CommandCgroup, cgroup_place};
pub use launch::{SETUP_FAILED_EXIT, SetupReport, read_report, wrap, wrap_outside};
pub use probe::{
    Capabilities, Layers, Unavailable, cgroup_v2_controllers, find_helper, probe, probe_with,
};
pub use spec::{
    BIND_ROOT, Bind, Guarded, HomeView, Layer, Limits, Replacement, SYSTEM_FOLDERS, SandboxSpec,
    Shown, default_memory_limit,
};

/// The environment switch that turns the sandbox off (`TANDEM_SANDBOX=off`), to see how the
/// app behaves on a machine without one.
pub const SWITCH_ENV: &str = "TANDEM_SANDBOX";
/// Where the helper program is, when it is not beside the running program.
pub const HELPER_ENV: &str = "TANDEM_SANDBOX_HELPER";
/// The helper program's file name.
pub const HELPER_NAME: &str = "tandem-sandbox";
