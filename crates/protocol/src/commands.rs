//! Arguments of the app's commands. Each command takes one `args` object, so the UI's typed
//! `call(name, args)` and the Rust handlers read the same struct.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct OpenProjectArgs {
    pub path: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RemoveRecentArgs {
    pub path: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ListDirArgs {
    pub root: String,
    /// Folder relative to the root; "" for the root.
    pub path: String,
    pub hidden: bool,
    /// Re-read git status now instead of reusing one a few moments old (the Refresh button).
    pub fresh: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ReadFileArgs {
    pub root: String,
    pub path: String,
    /// 1-based first line; negative counts from the end.
    pub offset: Option<i64>,
    pub limit: Option<u32>,
}

/// Every command: its name, the type of its `args`, and the type it resolves to. The TypeScript
/// `Commands` interface is generated from this list, so the UI cannot call a command with the
/// wrong shape.
pub const COMMANDS: &[(&str, &str, &str)] = &[
    ("startup", "null", "Startup"),
    ("open_project", "OpenProjectArgs", "ProjectInfo"),
    ("recent_projects", "null", "Array<RecentProject>"),
    ("remove_recent", "RemoveRecentArgs", "Array<RecentProject>"),
    ("list_dir", "ListDirArgs", "FileListing"),
    ("read_file", "ReadFileArgs", "FileContent"),
];
