//! Restoring a session to a checkpoint: its files (through the checkpoints), its conversation
//! (an entry in the log, see `rewind`), or both; previewed first, recorded in the log as a
//! `restored` event that says how to undo it, and finished at the next start when a crash cut
//! it short. The window's sessions and `tandem-cli restore` both come here.

use crate::history::entry::EngineEntry;
use crate::history::log::{Entry, LogError, SessionLog, read_session};
use crate::history::rewind::turn_starts;
use checkpoints::{CheckpointError, Checkpoints, FileState, Restored};
use protocol::{
    AgentEvent, NotRestorable, RestoreAction, RestoreFile, RestorePreview, RestoreRecord,
    RestoreScope, RestoreTarget,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    #[error(
        "this session has no checkpoints: it began before Tandem kept them, or none could be taken"
    )]
    NoCheckpoints,
    #[error("that turn has no checkpoint to go back to (it ran before Tandem kept them)")]
    TurnWithoutCheckpoint,
    #[error("there is no turn {asked}; the session has {turns}")]
    NoSuchTurn { asked: u32, turns: u32 },
    #[error("this session has no restore to undo")]
    NothingToUndo,
    #[error("the checkpoints of this session cannot be used: {0}")]
    Unavailable(String),
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error(transparent)]
    Log(#[from] LogError),
}

/// What a restore is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoreRequest {
    pub target: RestoreTarget,
    pub scope: RestoreScope,
    pub paths: Option<Vec<String>>,
}

/// Where a session's checkpoints are kept.
pub fn checkpoints_dir(session_dir: &Path) -> PathBuf {
    session_dir.join("checkpoints")
}

/// What the log part of a restore needs, kept in the checkpoints' journal so a restore a crash
/// cut short can be finished.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Pending {
    scope: RestoreScope,
    checkpoint: u32,
    turn: Option<u32>,
    /// The first words of the person's message that began that turn.
    #[serde(default)]
    turn_words: Option<String>,
    /// For a conversation restore: the log position the conversation goes back to.
    to_seq: Option<u64>,
    turns_removed: u32,
    /// Words for the model when files and conversation are left out of step.
    note: Option<String>,
}

/// The checkpoint a target names.
fn resolve(cps: &Checkpoints, target: RestoreTarget) -> Result<u32, RestoreError> {
    match target {
        RestoreTarget::Checkpoint { id } => Ok(id),
        RestoreTarget::SessionStart => cps.session_start().ok_or(RestoreError::NoCheckpoints),
    }
}

/// The turn (numbered from 1) that began at this checkpoint, and the first words of the
/// person's message that began it (a wake-up has none): what the window names it by, as it
/// numbers no turns.
fn turn_of(entries: &[Entry<Value>], checkpoint: u32) -> (Option<u32>, Option<String>) {
    let Some(start) = turn_starts(entries)
        .into_iter()
        .find(|t| t.checkpoint == Some(checkpoint))
    else {
        return (None, None);
    };
    let words = match &start.event {
        AgentEvent::UserMessage { text, .. } => Some(first_words(text)),
        _ => None,
    };
    (Some(start.number), words)
}

/// A message's first line, at most 60 characters.
fn first_words(text: &str) -> String {
    let line = text.trim().lines().next().unwrap_or_default();
    match line.char_indices().nth(60) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_string(),
    }
}

/// The checkpoint turn `number` began at (`tandem-cli restore --to N`).
pub fn turn_checkpoint(entries: &[Entry<Value>], number: u32) -> Result<u32, RestoreError> {
    let turns = turn_starts(entries);
    let turn = turns
        .iter()
        .find(|t| t.number == number)
        .ok_or(RestoreError::NoSuchTurn {
            asked: number,
            turns: turns.len() as u32,
        })?;
    turn.checkpoint.ok_or(RestoreError::TurnWithoutCheckpoint)
}

/// The last restore the session's conversation holds: restoring to its `undo_checkpoint` with
/// its scope undoes it.
pub fn last_restore(entries: &[Entry<Value>]) -> Option<RestoreRecord> {
    crate::history::rewind::effective(entries)
        .iter()
        .rev()
        .find_map(
            |e| match serde_json::from_value::<AgentEvent>(e.event.clone()) {
                Ok(AgentEvent::Restored { record }) => Some(record),
                _ => None,
            },
        )
}

/// "when turn 3 began", for the model's note.
fn moment(cps: &Checkpoints, checkpoint: u32, turn: Option<u32>) -> String {
    match turn {
        _ if cps.session_start() == Some(checkpoint) => "at the start of the session".into(),
        Some(n) => format!("when turn {n} began"),
        None => "before their last restore".into(),
    }
}

fn prepare(
    cps: &Checkpoints,
    entries: &[Entry<Value>],
    req: &RestoreRequest,
) -> Result<Pending, RestoreError> {
    let checkpoint = resolve(cps, req.target)?;
    let (turn, turn_words) = turn_of(entries, checkpoint);
    let (to_seq, turns_removed) = if req.scope.conversation() {
        let to = cps
            .log_seq(checkpoint)
            .ok_or(CheckpointError::NoCheckpoint(checkpoint))?;
        let removed = turn_starts(entries)
            .iter()
            .filter(|t| t.in_conversation && t.seq >= to)
            .count();
        (Some(to), removed as u32)
    } else {
        if cps.log_seq(checkpoint).is_none() {
            return Err(CheckpointError::NoCheckpoint(checkpoint).into());
        }
        (None, 0)
    };
    let when = moment(cps, checkpoint, turn);
    let note = match req.scope {
        RestoreScope::Both => None,
        RestoreScope::FilesOnly => Some(format!(
            "[Tandem] The user restored the project's files to how they were {when}. Files you read or changed since may be different now: read them again before relying on them."
        )),
        RestoreScope::ConversationOnly => Some(format!(
            "[Tandem] The user took the conversation back to how it was {when}; the project's files were left as they are now, with every change made since. Read files again before relying on them."
        )),
    };
    Ok(Pending {
        scope: req.scope,
        checkpoint,
        turn,
        turn_words,
        to_seq,
        turns_removed,
        note,
    })
}

/// What restoring would do now. Blocking: the project is looked at.
pub(crate) fn preview(
    cps: &Checkpoints,
    entries: &[Entry<Value>],
    req: &RestoreRequest,
    stops_tasks: Vec<String>,
) -> Result<RestorePreview, RestoreError> {
    let pending = prepare(cps, entries, req)?;
    let (files, not_restorable) = if req.scope.files() {
        let plan = cps.preview(pending.checkpoint, req.paths.as_deref())?;
        let mut files = plan
            .writes
            .iter()
            .map(|w| {
                let current = cps.text(&w.from);
                let restored = cps.text(&w.to);
                let binary = (matches!(w.from, FileState::File { .. }) && current.is_none())
                    || (matches!(w.to, FileState::File { .. }) && restored.is_none());
                let (added_lines, removed_lines) = tools::line_counts(
                    current.as_deref().unwrap_or(""),
                    restored.as_deref().unwrap_or(""),
                );
                RestoreFile {
                    path: w.path.clone(),
                    action: match (&w.from, &w.to) {
                        (FileState::Absent, _) => RestoreAction::Create,
                        (_, FileState::Absent) => RestoreAction::Delete,
                        _ => RestoreAction::Modify,
                    },
                    current,
                    restored,
                    binary,
                    added_lines,
                    removed_lines,
                    generated: cps.generated(&w.path),
                    not_by_agent: !cps.agent_changed_since(pending.checkpoint, &w.path),
                    changed_after_agent: cps.agent_changed_since(pending.checkpoint, &w.path)
                        && cps.changed_after_agent(&w.path),
                }
            })
            .collect::<Vec<RestoreFile>>();
        // The person's own files first: a cache file sorts before them by name
        // (`__pycache__`), and the first file listed is the one shown.
        files.sort_by_key(|f| f.generated);
        (files, plan.not_restorable)
    } else {
        (Vec::new(), Vec::new())
    };
    Ok(RestorePreview {
        checkpoint: pending.checkpoint,
        turn: pending.turn,
        scope: req.scope,
        files,
        not_restorable,
        git: cps.git(),
        turns_removed: pending.turns_removed,
        stops_tasks,
    })
}

/// The files' part of a restore (blocking), then what the log must get: the entries for the
/// engine and the event for everyone. `log_seq` is the log's next sequence number.
pub(crate) fn restore_files(
    cps: &Checkpoints,
    entries: &[Entry<Value>],
    req: &RestoreRequest,
    log_seq: u64,
) -> Result<Done, RestoreError> {
    let pending = prepare(cps, entries, req)?;
    let extra = serde_json::to_value(&pending).unwrap_or(Value::Null);
    let (undo, files, not_restorable) = if req.scope.files() {
        let r = cps.restore(pending.checkpoint, req.paths.as_deref(), log_seq, extra)?;
        let files = r.plan.writes.iter().map(|w| w.path.clone()).collect();
        (r.undo, files, r.plan.not_restorable)
    } else {
        // Nothing is written, but the moment is kept: restoring to it undoes this.
        (cps.checkpoint(log_seq)?, Vec::new(), Vec::new())
    };
    Ok(done(&pending, undo, files, not_restorable))
}

/// What the log gets for a restore.
pub(crate) struct Done {
    /// Entries for the engine (the conversation's position, the model's note), before the
    /// event.
    pub lines: Vec<Value>,
    pub note: Option<String>,
    pub record: RestoreRecord,
}

fn done(
    pending: &Pending,
    undo: u32,
    files: Vec<String>,
    not_restorable: Vec<NotRestorable>,
) -> Done {
    let mut lines = Vec::new();
    if let Some(to) = pending.to_seq {
        lines.push(EngineEntry::ConversationRestored { to_seq: to }.line());
    }
    if let Some(note) = &pending.note {
        lines.push(EngineEntry::ModelNote { text: note.clone() }.line());
    }
    Done {
        lines,
        note: pending.note.clone(),
        record: RestoreRecord {
            checkpoint: pending.checkpoint,
            turn: pending.turn,
            turn_words: pending.turn_words.clone(),
            scope: pending.scope,
            files,
            not_restorable,
            turns_removed: pending.turns_removed,
            undo_checkpoint: undo,
        },
    }
}

/// For a restore a crash cut short (its files were finished when the checkpoints opened): what
/// the log still needs, or None when it has it already.
pub(crate) fn recovered(entries: &[Entry<Value>], restored: &Restored) -> Option<Done> {
    let pending: Pending = serde_json::from_value(restored.extra.clone()).ok()?;
    let logged = entries.iter().any(|e| {
        matches!(
            serde_json::from_value::<AgentEvent>(e.event.clone()),
            Ok(AgentEvent::Restored { record }) if record.undo_checkpoint == restored.undo
        )
    });
    if logged {
        return None;
    }
    let files = restored
        .plan
        .writes
        .iter()
        .map(|w| w.path.clone())
        .collect();
    Some(done(
        &pending,
        restored.undo,
        files,
        restored.plan.not_restorable.clone(),
    ))
}

/// Writes a restore's entries and event to a log no engine holds (`tandem-cli`), synced.
fn log_done(log: &mut SessionLog, done: &Done) -> Result<(), RestoreError> {
    for line in &done.lines {
        log.append(line)?;
    }
    log.append(&AgentEvent::Restored {
        record: done.record.clone(),
    })?;
    log.sync()?;
    Ok(())
}

/// A session's log and checkpoints, opened without an engine (`tandem-cli restore`): one
/// writer at a time, as for a running session; a restore a crash cut short is finished.
pub struct OfflineSession {
    log: SessionLog,
    checkpoints: Checkpoints,
}

impl OfflineSession {
    pub fn open(sessions_dir: &Path, id: &str) -> Result<OfflineSession, RestoreError> {
        let (mut log, read) = SessionLog::reopen::<Value>(sessions_dir, id)?;
        let root = std::fs::canonicalize(&read.header.project).map_err(|e| {
            RestoreError::Unavailable(format!(
                "the project folder {} cannot be found ({e})",
                read.header.project
            ))
        })?;
        let dir = checkpoints_dir(&sessions_dir.join(id));
        if !dir.exists() {
            return Err(RestoreError::NoCheckpoints);
        }
        let (checkpoints, recovered) = Checkpoints::open(&dir, &root)?;
        if let Some(r) = recovered {
            if let Some(d) = self::recovered(&read.entries, &r) {
                log_done(&mut log, &d)?;
            }
            checkpoints.finish()?;
        }
        Ok(OfflineSession { log, checkpoints })
    }

    pub fn entries(&self) -> Result<Vec<Entry<Value>>, RestoreError> {
        Ok(read_session::<Value>(self.log.path())?.entries)
    }

    pub fn preview(&self, req: &RestoreRequest) -> Result<RestorePreview, RestoreError> {
        preview(&self.checkpoints, &self.entries()?, req, Vec::new())
    }

    pub fn restore(&mut self, req: &RestoreRequest) -> Result<RestoreRecord, RestoreError> {
        let entries = self.entries()?;
        let done = restore_files(&self.checkpoints, &entries, req, self.log.next_seq())?;
        log_done(&mut self.log, &done)?;
        self.checkpoints.finish()?;
        Ok(done.record)
    }
}
