//! The agent: the turn loop that streams a model's reply, has every tool call judged by the
//! policy engine, asks for approval, runs the tool and feeds the result back — and the session
//! log that makes a session resumable.
//!
//! Owns sessions and their lifecycle. Must not talk HTTP itself (that is `llm`), run tools
//! itself (that is `tools`) or decide what is allowed (that is `policy`); no Tauri.
//!
//! Front ends start a turn with [`Agent::run_turn`], read sessions back with
//! [`load_transcript`] / [`summary_info`], review a session's changes with
//! [`session_changes`], and find providers, keys and rules through `launch`'s helpers.

mod agent_loop;
mod changes;
mod fetch_gate;
mod keychain;
mod launch;
pub mod locations;
mod policy_call;
mod replay;
pub mod sandboxing;
mod session_log;
mod session_view;
mod settings;

pub use agent_loop::{Agent, AgentConfig, AgentError, ApprovalTx, LOOP_LIMIT, ModeSwitch, Outcome};
pub use changes::{ChangesError, record_baseline, session_changes};
pub use fetch_gate::{FetchJudge, resolve_fetch};
pub use keychain::{Keychain, KeychainError};
pub use launch::{
    KeyFile, LaunchError, Preset, StoredKeys, choose_provider, load_project_policy, read_settings,
};
pub use policy_call::policy_call;
pub use replay::replay_messages;
pub use session_log::{
    Entry, LogError, SessionHeader, SessionLog, SessionRead, SessionSummary, list_sessions,
    read_session, session_path,
};
pub use session_view::{
    load_transcript, session_info, session_state, summary_info, transcript_events,
};
pub use settings::{
    Kind, MemorySecrets, NoSecrets, ProviderSettings, ROLES, RoleSettings, SecretStore, Settings,
    SettingsError, default_key_env, default_url, is_loopback,
};
