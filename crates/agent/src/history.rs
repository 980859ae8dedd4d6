//! A session's history on disk: its log (one JSONL file, append-only, the source of truth for
//! resuming), the typed entries in it, and what is read back from it — the transcript, the
//! conversation to continue, where each turn began, restores, the changed files, search and
//! export.

pub(crate) mod changes;
pub mod entry;
pub(crate) mod export;
pub(crate) mod found;
pub(crate) mod log;
pub(crate) mod received_task;
pub(crate) mod replay;
pub(crate) mod restore;
pub(crate) mod rewind;
pub(crate) mod search;
pub(crate) mod search_text;
pub(crate) mod turn_checkpoint;
pub(crate) mod view;
