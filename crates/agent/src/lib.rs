//! The agent: the turn loop that streams a model's reply, has every tool call judged by the
//! policy engine, asks for approval, runs the tool and feeds the result back — and the session
//! log that makes a session resumable.
//!
//! Owns sessions and their lifecycle. Must not talk HTTP itself (that is `llm`), run tools
//! itself (that is `tools`) or decide what is allowed (that is `policy`); no Tauri.
//!
//! Built so far: the loop ([`Agent::run_task`]) with policy, approvals (including partial
//! hunks), loop detection and a step limit; [`SessionLog`]; [`Settings`] for roles. Not yet:
//! compaction, a token budget, resuming a session into a running loop.

mod agent_loop;
mod keychain;
mod policy_call;
mod replay;
mod session_log;
mod settings;

pub use agent_loop::{Agent, AgentConfig, AgentError, ApprovalTx, LOOP_LIMIT, Outcome};
pub use keychain::{Keychain, KeychainError};
pub use policy_call::policy_call;
pub use replay::replay_messages;
pub use session_log::{
    Entry, LogError, SessionHeader, SessionLog, SessionRead, SessionSummary, list_sessions,
    read_session, session_path,
};
pub use settings::{
    Kind, MemorySecrets, NoSecrets, ProviderSettings, ROLES, RoleSettings, SecretStore, Settings,
    SettingsError,
};
