//! What a command changed in the project: read from its copy-on-write layer when it ended,
//! sorted by what the change could do, and what became of each change.

use crate::Hunk;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A command's changes, as they stood when it ended.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CommandChanges {
    /// Each changed path that is not git-ignored output, deletions and replaced folders first.
    pub files: Vec<CommandFileChange>,
    /// Git-ignored output (build folders, `node_modules`, caches), one line per folder it
    /// went into: these land without a question.
    pub ignored: Vec<IgnoredOutput>,
}

/// One path a command changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CommandFileChange {
    /// Relative to the project, `/`-separated.
    pub path: String,
    pub change: ChangeKind,
    pub item: ItemKind,
    pub class: ChangeClass,
    pub fate: Fate,
    /// For text files: lines added and removed against the project's copy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<LineCounts>,
    /// The person changed the file while the command ran, on other lines: it landed as the
    /// two merged (their lines and the command's), and `lines` count only the command's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub merged: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct LineCounts {
    pub added: u32,
    pub removed: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// Gone (a file, a link, or a folder with all it held).
    Deleted,
    /// A folder removed and made again: what it holds now is all there is.
    Replaced,
    Created,
    Modified,
    /// The same content with other permissions (made executable, say).
    ModeChanged,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    File,
    Folder,
    Symlink,
    /// A FIFO, a socket or a device: never landed in the project.
    Special,
}

/// What a change could do once it is in the project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ChangeClass {
    /// A project file: reviewed as an edit is.
    Project,
    /// Git's own work in the project's repository (objects, refs, the index, `HEAD`): lands
    /// with the rest of the command's changes, whole, or not at all.
    Git,
    /// A file that makes another program run code (git, VS Code, direnv, a hooks manager,
    /// Tandem itself): never lands without a person's yes.
    RunsCode { why: RunsCodeWhy },
}

/// Which program a file would make run code, so the words can say so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum RunsCodeWhy {
    /// `.git` beyond what git's own work writes (configuration, hooks, a rebase's to-do list).
    GitInternals,
    /// A folder shaped like a git repository (`HEAD`, `objects/`, `refs/`): git run in or
    /// below it would read its configuration.
    GitRepository,
    /// `.vscode/tasks.json`, `.vscode/settings.json`, `.vscode/launch.json`.
    Editor,
    /// `.idea/`: JetBrains IDEs run its tasks and tools.
    Jetbrains,
    /// `.envrc`: direnv runs it on entering the folder.
    Direnv,
    /// A git hooks folder of a hooks manager (`.husky/`, `.githooks/`).
    Hooks,
    /// `.tandem/`: Tandem's own rules and settings for this project.
    Tandem,
}

/// What became of a change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Fate {
    /// It is in the project now.
    Landed,
    /// It did not land: nobody could be asked about it, or it was refused.
    Refused,
    /// The person reviewed it and said no: the project keeps its own copy.
    Rejected,
    /// The project's copy changed while the command ran (the person, or another program):
    /// the command's change did not land over it.
    Conflict,
    /// A FIFO, socket or device is never made in the project.
    NotLandable,
    /// Landing it failed (a full disk, a permission): the project keeps its own copy.
    Failed { message: String },
}

/// Git-ignored output under one folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct IgnoredOutput {
    /// The folder (or file) at the top of what changed, `/`-separated.
    pub path: String,
    pub added: u32,
    pub modified: u32,
    pub deleted: u32,
    /// Whether it is in the project now.
    pub landed: bool,
}

/// A command's changes waiting for the person's yes before they land: each file with its
/// diff, answered piece by piece (a text file's hunks, or a change taken or left whole).
/// Git-ignored output has landed already, without a question.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ChangeReview {
    /// Deletions and replaced folders first, as in [`CommandChanges`].
    pub files: Vec<ReviewFile>,
    pub ignored: Vec<IgnoredOutput>,
    /// How many pieces the review has: an answer names the pieces it accepts by index.
    pub pieces: u32,
}

/// One path in a review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ReviewFile {
    pub path: String,
    pub change: ChangeKind,
    pub item: ItemKind,
    pub class: ChangeClass,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<LineCounts>,
    /// For a text file changed in place: the project's text now and the command's, and the
    /// hunks between them, each a piece (`Hunk::index` counts across the whole review).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposed: Option<String>,
    #[serde(default)]
    pub hunks: Vec<Hunk>,
    /// For a change taken or left whole (created, deleted, a folder, a link, a binary, a
    /// mode): its piece.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub whole: Option<u32>,
    /// For a folder the command made or replaced: what it holds.
    #[serde(flatten)]
    pub folder: FolderContents,
}

/// What a folder under review holds, so a yes is never blind.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct FolderContents {
    /// The first files, each with its text when it is short text.
    #[serde(default)]
    pub inside: Vec<InsideFile>,
    /// Files in the folder beyond those listed.
    #[serde(default)]
    pub more_inside: u32,
}

/// A file in a folder under review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct InsideFile {
    /// Relative to the project, `/`-separated.
    pub path: String,
    /// Its text, when it is text of at most 16 KB.
    pub text: Option<String>,
}
