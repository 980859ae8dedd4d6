//! What one sandboxed command may do, as the caller describes it to the helper.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// One command's confinement. Paths are absolute with symlinks resolved; paths that do not
/// exist are skipped (there is nothing to hide or protect yet).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxSpec {
    /// The project folder: the command's working folder, writable unless `project_writable`
    /// is false (read-only mode).
    pub project: PathBuf,
    pub project_writable: bool,
    /// The session's private temporary folder (see [`SandboxSpec::tmp_inside`]). A file made
    /// by `mktemp` in one command is there for the next.
    pub tmp: PathBuf,
    /// Folders that must stay visible at their own path (a home folder in tests, say). When
    /// one of them, the project or `state_dir` lies under `/tmp`, the machine's `/tmp` stays
    /// in place (read-only) instead of being replaced by the private one.
    pub keep_visible: Vec<PathBuf>,
    /// Inside the project, kept read-only: `.git/hooks`, `.git/config`, `.tandem`, the
    /// policy's protected paths. A git hook or a project rule written by a command would run
    /// or apply later, outside any sandbox.
    pub read_only: Vec<PathBuf>,
    /// Files and folders that cannot be read at all: the user's keys and credentials,
    /// Tandem's own configuration and data, the session bus, the project's `.env` files.
    pub hidden: Vec<PathBuf>,
    /// Whether the command sees the machine's network. Without it, it sees only its own
    /// loopback interface.
    pub network: bool,
    /// A folder of the caller's outside the project for the helper's own files.
    pub state_dir: PathBuf,
}

impl SandboxSpec {
    /// Whether the private folder replaces `/tmp` (nothing the command must see lies there).
    pub fn replaces_tmp(&self) -> bool {
        let under = |p: &PathBuf| p.starts_with("/tmp");
        !(under(&self.project) || under(&self.state_dir) || self.keep_visible.iter().any(under))
    }

    /// The private temporary folder as the command sees it: what `TMPDIR` should say.
    pub fn tmp_inside(&self) -> PathBuf {
        if self.replaces_tmp() {
            PathBuf::from("/tmp")
        } else {
            self.tmp.clone()
        }
    }
}
