//! Undo: bringing the project (its files, the conversation, or both) back to how it was when a
//! turn began. Every turn boundary is a checkpoint; a restore is previewed before it happens,
//! and is itself undone by restoring to the checkpoint taken just before it.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// What a restore brings back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum RestoreScope {
    /// The files and the conversation.
    Both,
    /// The files; the conversation goes on (the model is told).
    FilesOnly,
    /// The conversation; the files stay as they are now.
    ConversationOnly,
}

impl RestoreScope {
    pub fn files(self) -> bool {
        matches!(self, RestoreScope::Both | RestoreScope::FilesOnly)
    }

    pub fn conversation(self) -> bool {
        matches!(self, RestoreScope::Both | RestoreScope::ConversationOnly)
    }
}

/// Which moment to go back to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RestoreTarget {
    /// A checkpoint: the one a turn began at (carried by its `user_message` or `wake` event),
    /// or the one a restore was taken from (its `undo_checkpoint`).
    Checkpoint { id: u32 },
    /// The session's first checkpoint: how the project was before the session changed it
    /// (Revert file, Revert all).
    SessionStart,
}

/// Why a changed file cannot be brought back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum NotRestorableReason {
    /// A command changed it in a project that is not a git repository: what it held before is
    /// not known.
    OutsideGit,
    /// Git ignores it (build outputs, `node_modules`): changes commands make there are not kept.
    GitIgnored,
    /// Git converts it when checking it out (line endings, LFS, `ident`): its bytes before are
    /// not known exactly.
    GitFilter,
    /// Bigger than checkpoints keep.
    TooLarge,
    /// It changed while Tandem was not watching the project and what it held before is not
    /// known.
    NotTracked,
    /// A folder is in the way (or a file where a folder must be).
    FolderInTheWay,
    /// Its saved copy is missing or damaged.
    CopyMissing,
    /// Writing it failed (permissions, a full disk).
    WriteFailed,
    /// It could not be read when the checkpoint was made (no permission, an I/O error), so
    /// what it held then is not known. Every other file is kept.
    Unreadable,
    /// Git did not track it when the session began, and the project had too many such files to
    /// copy them all: only what the agent was about to change was copied, and this one changed
    /// another way (an editor, a command without a layer).
    NotCopied,
}

/// A changed file a restore leaves as it is, and why.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, TS)]
pub struct NotRestorable {
    pub path: String,
    pub reason: NotRestorableReason,
}

/// What a restore does to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum RestoreAction {
    /// It changes back.
    Modify,
    /// It is gone now and comes back.
    Create,
    /// It did not exist then and is removed.
    Delete,
}

/// One file a restore will change, as the preview shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RestoreFile {
    pub path: String,
    pub action: RestoreAction,
    /// Its text now and as it will be, for the diff; None when there is no file, or for
    /// content that is not text (or too big to show).
    pub current: Option<String>,
    pub restored: Option<String>,
    /// Not shown as text: not UTF-8, or too big.
    pub binary: bool,
    pub added_lines: u32,
    pub removed_lines: u32,
    /// A program made it, not a person: git ignores it, or it is a cache or build output
    /// (`__pycache__/`, `*.pyc`, `node_modules/`). The preview lists these after the person's
    /// own files, folded.
    pub generated: bool,
    /// Changed since then, but never by the agent (its tools or its commands): the person's
    /// own change, or another program's. Restoring takes it away too; the preview says so.
    #[serde(default)]
    pub not_by_agent: bool,
    /// The agent changed it, and it changed again after (the person's edit on top): going
    /// back takes both away.
    #[serde(default)]
    pub changed_after_agent: bool,
}

/// What a restore would do, shown before it happens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RestorePreview {
    pub checkpoint: u32,
    /// The turn (numbered from 1) that began at this checkpoint; None for one taken before a
    /// restore.
    pub turn: Option<u32>,
    pub scope: RestoreScope,
    /// Files that will change (empty for a conversation-only restore): the person's own
    /// first, then generated ones, each group in path order.
    pub files: Vec<RestoreFile>,
    /// Files changed since that will stay as they are, each with why.
    pub not_restorable: Vec<NotRestorable>,
    /// The project is a git repository: changes commands made come back too (git-ignored files
    /// do not). Outside one, only the tools' own writes do.
    pub git: bool,
    /// Turns the conversation loses (a conversation restore).
    pub turns_removed: u32,
    /// Background work the restore stops first (its titles).
    pub stops_tasks: Vec<String>,
}

/// A restore that happened: the transcript shows it, with the way to undo it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RestoreRecord {
    pub checkpoint: u32,
    pub turn: Option<u32>,
    /// The first words of the person's message that began that turn (older logs lack it; a
    /// wake-up has none): the window names the turn by them, as it shows no turn numbers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub turn_words: Option<String>,
    pub scope: RestoreScope,
    /// The files it changed.
    pub files: Vec<String>,
    pub not_restorable: Vec<NotRestorable>,
    pub turns_removed: u32,
    /// The checkpoint taken just before it: restoring there, with the same scope, undoes it.
    pub undo_checkpoint: u32,
}

/// Asks what a restore would do (`restore_preview`) or does it (`restore`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RestoreArgs {
    pub session: String,
    pub target: RestoreTarget,
    pub scope: RestoreScope,
    /// Only these files (project-relative), for Revert file / Revert all; None: every file.
    pub paths: Option<Vec<String>>,
}
