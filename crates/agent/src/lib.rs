//! The agent: the turn loop that streams a model's reply, has every tool call judged by the
//! policy engine, asks for approval, runs the tool and feeds the result back — and the session
//! log that makes a session resumable.
//!
//! Owns sessions and their lifecycle. Must not talk HTTP itself (that is `llm`), run tools
//! itself (that is `tools`) or decide what is allowed (that is `policy`); no Tauri.
//!
//! Built so far: [`SessionLog`], the append-only JSONL log, and [`Settings`], which maps roles
//! to providers and models. The loop is the next step.

mod session_log;
mod settings;

pub use session_log::{
    Entry, LogError, SessionHeader, SessionLog, SessionRead, SessionSummary, list_sessions,
    read_session, session_path,
};
pub use settings::{
    Kind, MemorySecrets, NoSecrets, ProviderSettings, ROLES, RoleSettings, SecretStore, Settings,
    SettingsError,
};
