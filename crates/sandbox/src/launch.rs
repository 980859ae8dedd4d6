//! Wrapping a program so that it starts inside the sandbox.

use crate::spec::SandboxSpec;
use serde::{Deserialize, Serialize};
use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

/// The helper's exit code when the sandbox itself could not be set up (the status file then
/// says why). A command may exit with it too, so callers read the status file, not the code.
pub const SETUP_FAILED_EXIT: i32 = 125;

/// What the helper writes into the status file: nothing when all went well.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetupReport {
    /// Why the sandbox could not be set up; the command did not run.
    pub setup_error: Option<String>,
    /// What the command made that would have run programs at the user's next git command,
    /// and the helper removed (`.git/commondir`, `.git/config.worktree`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undone: Vec<String>,
    /// The setup failed because the project's file system would not be the folder below the
    /// command's copy-on-write layer (overlayfs refuses some file systems as its lower layer).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub layer_refused: bool,
}

/// A command that runs `program args…` inside the sandbox described by `spec`, through the
/// helper at `helper`. The helper writes a [`SetupReport`] to `status` when setting up fails
/// (read it with [`read_report`] once the process has ended). The caller sets the working
/// folder's, environment and standard streams on the returned command as for any other;
/// the working folder must be inside the project.
pub fn wrap<S: AsRef<OsStr>>(
    helper: &Path,
    spec: &SandboxSpec,
    status: &Path,
    program: impl AsRef<OsStr>,
    args: impl IntoIterator<Item = S>,
) -> Command {
    let mut cmd = Command::new(helper);
    // Serializing plain paths and booleans cannot fail; an empty spec would be refused by the
    // helper with a clear message anyway.
    let spec_json = serde_json::to_string(spec).unwrap_or_default();
    cmd.arg("run")
        .arg("--spec")
        .arg(spec_json)
        .arg("--status")
        .arg(status)
        .arg("--")
        .arg(program)
        .args(args);
    cmd
}

/// A command that runs `program args…` outside the sandbox, but through the helper at
/// `helper`, which adopts whatever the command leaves behind (a `setsid` daemon) and ends it
/// with the command.
pub fn wrap_outside<S: AsRef<OsStr>>(
    helper: &Path,
    program: impl AsRef<OsStr>,
    args: impl IntoIterator<Item = S>,
) -> Command {
    let mut cmd = Command::new(helper);
    cmd.arg("outside").arg("--").arg(program).args(args);
    cmd
}

/// The helper's report after the process ended: a `setup_error` when the sandbox could not be
/// set up and the command never ran, and what it undid. The file is removed.
pub fn read_report(status: &Path) -> SetupReport {
    let Ok(text) = std::fs::read_to_string(status) else {
        return SetupReport::default();
    };
    let _ = std::fs::remove_file(status);
    if text.trim().is_empty() {
        return SetupReport::default();
    }
    serde_json::from_str::<SetupReport>(&text).unwrap_or_else(|_| SetupReport {
        setup_error: Some(format!("the sandbox reported something unreadable: {text}")),
        undone: Vec::new(),
        layer_refused: false,
    })
}
