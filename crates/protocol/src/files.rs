//! Results of the file-system tools, as the UI receives them.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// What a directory entry is. Symlinks are reported as what they point to, with `symlink` set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    File,
    Dir,
}

/// A file's state in git, as a one-letter badge in the tree. Folders show the strongest state
/// found beneath them (see [`GitBadge::rank`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum GitBadge {
    Conflicted,
    Modified,
    Added,
    Deleted,
    Renamed,
    Untracked,
}

impl GitBadge {
    /// Higher wins when several states roll up into one folder badge: a conflict needs the
    /// user's attention first, an untracked file least.
    pub fn rank(self) -> u8 {
        match self {
            GitBadge::Conflicted => 6,
            GitBadge::Modified => 5,
            GitBadge::Deleted => 4,
            GitBadge::Renamed => 3,
            GitBadge::Added => 2,
            GitBadge::Untracked => 1,
        }
    }

    /// The stronger of two badges.
    pub fn max(self, other: GitBadge) -> GitBadge {
        if other.rank() > self.rank() {
            other
        } else {
            self
        }
    }
}

/// One entry of a listing. `path` is relative to the project root, with `/` separators.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct FileEntry {
    pub path: String,
    pub name: String,
    pub kind: EntryKind,
    pub symlink: bool,
    pub hidden: bool,
    #[ts(type = "number | null")]
    pub size: Option<u64>,
    pub git: Option<GitBadge>,
}

/// The structured result of `list_files`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct FileListing {
    /// The listed folder, relative to the root ("" for the root itself).
    pub path: String,
    pub entries: Vec<FileEntry>,
    /// Entries that matched but were left out because of `limit`.
    pub omitted: u32,
    /// Folders that could not be read (permissions, symlink loops), with why.
    pub skipped: Vec<String>,
}

/// A kind of file whose text is extracted for reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ExtractedFrom {
    Pdf,
}

/// The structured result of `read_file`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FileContent {
    Text {
        path: String,
        /// 1-based number of the first line in `lines`.
        start_line: u32,
        lines: Vec<String>,
        /// Lines in the whole file.
        total_lines: u32,
        #[ts(type = "number")]
        size: u64,
        /// Whether the file uses CRLF line endings (the lines themselves never carry `\r`).
        crlf: bool,
        /// Where the text comes from when the file is not text itself (a PDF's extracted
        /// text); absent for a text file.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        extracted_from: Option<ExtractedFrom>,
    },
    Binary {
        path: String,
        #[ts(type = "number")]
        size: u64,
    },
    Image {
        path: String,
        mime: String,
        #[ts(type = "number")]
        size: u64,
        /// Base64 of the image bytes; empty when the image is over the inline limit.
        data_base64: String,
    },
}

/// The structured result of `write_file` and `edit_file`: what changed, for the UI's change list
/// and the session's diff counter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct FileChange {
    pub path: String,
    /// True when the file did not exist before.
    pub created: bool,
    pub added_lines: u32,
    pub removed_lines: u32,
    /// Size of the new content.
    pub chars: u32,
    pub lines: u32,
    /// The file already held exactly this text: nothing was written.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unchanged: bool,
}

/// One hunk of a proposed change, for per-hunk review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Hunk {
    pub index: u32,
    /// 1-based first line and line count in the original.
    pub old_start: u32,
    pub old_lines: u32,
    /// 1-based first line and line count in the proposed text.
    pub new_start: u32,
    pub new_lines: u32,
    /// The hunk as unified-diff text, header included.
    pub text: String,
    /// What the hunk changes, without its context: these lines of the original are taken
    /// out, and these lines of the proposed text put in their place. Everything outside the
    /// hunks is the same in both, so the file with any choice of hunks is a splice of the two.
    pub removed: LineRange,
    pub added: LineRange,
}

/// Lines `start..end` of a text: 0-based, `end` excluded (empty when they are equal).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct LineRange {
    pub start: u32,
    pub end: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlanStatus {
    Pending,
    InProgress,
    Done,
}

/// One item of the agent's plan (`update_plan`), shown live in the UI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, schemars::JsonSchema)]
pub struct PlanItem {
    pub text: String,
    pub status: PlanStatus,
}

/// The end of a task (`task_done`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TaskDone {
    pub summary: String,
    pub files_changed: Vec<String>,
}
