//! The agent engine: sessions it owns — their turn loop (a model's reply streamed, every tool
//! call judged by the policy engine, put to the user when the policy asks, run, and fed back),
//! their questions, background tasks, wake-ups and sub-agents — and the session log that makes
//! a session resumable.
//!
//! Must not talk HTTP itself (that is `llm`), run tools itself (that is `tools`) or decide what
//! is allowed (that is `policy`); no Tauri.
//!
//! From the top down: `session` (a session and its engine loop) drives an `agent` (one agent's
//! turn loop), made of owned parts: `turn` (its conversation, its model, its sub-agents),
//! `call` (the pipeline every tool call goes through), `assist` (help for small models),
//! `journal` (where its words go) and `history` (the session's log and what is read from it).
//! No module reaches up.
//!
//! Front ends (the window, `tandem-cli`, tests) create or open a [`Session`] and drive it only
//! through its operations; they read sessions back with [`load_transcript`] /
//! [`summary_info`] and review a session's changes with [`session_changes`]. What a session is
//! started with — the person's settings, keys, rules, skills and servers — the `config` crate
//! finds.

mod agent;
mod assist;
mod call;
mod event_sink;
mod failure;
mod history;
mod journal;
mod outcome;
pub mod sandboxing;
mod session;
pub mod spend;
mod turn;

pub use agent::{Agent, AgentConfig};
pub use call::approvals::{AnswerError, Approvals};
pub use call::availability::Unavailable;
pub use call::desk::{Desk, DeskCall, DeskOutcome, tool_list};
pub use call::judge::only_reads;
pub use failure::{engine_error, failure};
pub use history::changes::{ChangesError, session_changes};
pub use history::entry as log_entry;
pub use history::export::{ExportError, ExportFormat, export_session};
pub use history::log::{
    Entry, LogError, SessionHeader, SessionLog, SessionRead, SessionSummary, list_sessions,
    read_session, session_path,
};
pub use history::restore::{
    OfflineSession, RestoreError, RestoreRequest, checkpoints_dir, last_restore, turn_checkpoint,
};
pub use history::rewind::{TurnStart, effective, turn_starts};
pub use history::search::search_sessions;
pub use history::view::{
    load_transcript, session_info, session_state, spend_status, summary_info, transcript_events,
};
pub use outcome::{AgentError, AgentStats, Outcome};
pub use session::personal::PersonalSession;
pub use session::{Events, Sandboxing, Session, SessionError, SessionOptions, begin_session};
