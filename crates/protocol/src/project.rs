//! The project the window has open, the recent projects, and how the app started.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// An opened project folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ProjectInfo {
    /// Canonical absolute path of the folder.
    pub root: String,
    /// The folder's name, for titles.
    pub name: String,
    /// Whether the folder is inside a git work tree (git badges are shown only then).
    pub is_git: bool,
    /// The checked-out branch, when there is one.
    pub branch: Option<String>,
}

/// The `project-changed` event: files in the open project changed outside the app.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ProjectChanged {
    pub root: String,
    /// Project-relative, `/`-separated; `.git` when the repository's state moved.
    pub paths: Vec<String>,
}

/// A project in the welcome screen's list, most recent first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RecentProject {
    pub path: String,
    pub name: String,
    /// Milliseconds since the Unix epoch.
    #[ts(type = "number")]
    pub opened_at_ms: u64,
    /// False when the folder no longer exists: the UI greys it out and offers "Remove".
    pub exists: bool,
}

/// What the window should show first: the project named on the command line, an error about
/// that path, or the welcome screen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Startup {
    Welcome,
    Project { project: ProjectInfo },
    Error { path: String, message: String },
}

/// The error every command returns: the one failure type that crosses to the window, as a
/// failed turn's is (its code, words for people, the technical detail, and the next step
/// decided from the code).
pub type CommandError = crate::EngineError;
