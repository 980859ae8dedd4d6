//! The agent engine: sessions it owns — their turn loop (a model's reply streamed, every tool
//! call judged by the policy engine, put to the user when the policy asks, run, and fed back),
//! their questions, background tasks, wake-ups and sub-agents — and the session log that makes
//! a session resumable.
//!
//! Must not talk HTTP itself (that is `llm`), run tools itself (that is `tools`) or decide what
//! is allowed (that is `policy`); no Tauri.
//!
//! Front ends (the window, `tandem-cli`, tests) create or open a [`Session`] and drive it only
//! through its operations; they read sessions back with [`load_transcript`] /
//! [`summary_info`], review a session's changes with [`session_changes`], and find providers,
//! keys and rules through `launch`'s helpers.

mod active_skills;
mod approvals;
mod call_repair;
mod call_round;
mod changes;
mod checks;
mod claims;
mod code_shape;
mod compaction;
mod echoed_numbers;
mod event_sink;
mod export;
mod extension_edits;
mod extensions;
mod external_call;
mod failure;
mod fetch_gate;
mod file_blocks;
mod function_edit;
mod keychain;
mod launch;
pub mod locations;
pub mod log_entry;
mod loop_breaker;
mod loose_match;
mod mcp_launch;
mod named_files;
mod policy_call;
mod prompt;
mod received_task;
mod replay;
mod reply;
mod restore;
mod rewind;
mod rule_files;
pub mod sandboxing;
mod session;
mod session_factory;
mod session_log;
mod session_search;
mod session_view;
mod settings;
mod settings_screen;
pub mod spend;
mod subagents;
mod tool_availability;
mod tool_call;
mod turn;
mod whole_file_draft;
mod write_guard;

pub use approvals::{AnswerError, Approvals};
pub use changes::{ChangesError, record_baseline, session_changes};
pub use export::{ExportError, ExportFormat, export_session};
pub use extension_edits::{
    ExtensionEditError, add_user_mcp_server, add_user_skill, remove_user_mcp_server,
    remove_user_skill,
};
pub use extensions::{
    Extensions, SkillSettingError, find_skills, origin_words, project_extensions, session_skills,
    set_skill_enabled, skills_view, user_skills_dir, with_skill_enabled,
};
pub use failure::{
    FailureContext, engine_error, failure, failure_at, launch_failure, model_failure, no_provider,
    retry_notice,
};
pub use fetch_gate::{FetchJudge, origin as fetch_origin, resolve_fetch};
pub use keychain::{Keychain, KeychainError};
pub use launch::{
    BuiltinLoader, KeyFile, LaunchError, Preset, PresetSlot, StoredKeys, choose_provider,
    default_model_path, load_project_policy, no_builtin, provider_resolver, read_settings,
    web_search_from_settings,
};
pub use loop_breaker::LOOP_LIMIT;
pub use mcp_launch::{SandboxLauncher, machine_sandbox, mcp_hub};
pub use policy_call::{judge_tool_call, policy_call};
pub use replay::replay_messages;
pub use restore::{
    OfflineSession, RestoreError, RestoreRequest, checkpoints_dir, last_restore, turn_checkpoint,
};
pub use rewind::{TurnStart, effective, turn_starts};
pub use rule_files::{
    RuleFileError, add_rule_to_file, remove_rule_from_file, rules_view, set_project_trusted,
};
pub use session::{Events, Sandboxing, Session, SessionError, SessionOptions, begin_session};
pub use session_factory::PersonalSession;
pub use session_log::{
    Entry, LogError, SessionHeader, SessionLog, SessionRead, SessionSummary, list_sessions,
    read_session, session_path,
};
pub use session_search::search_sessions;
pub use session_view::{
    load_transcript, session_info, session_state, summary_info, transcript_events,
};
pub use settings::{
    MemorySecrets, NoSecrets, NotificationSettings, ProviderSettings, ROLES, RoleSettings,
    SecretStore, Settings, SettingsError, SkillsSettings, WEB_SEARCH_KEY, WebSearchSettings,
    default_key_env, default_url, is_loopback,
};
pub use settings_screen::{
    BUILTIN_PROVIDER, ScreenSettingsError, settings_from_screen, with_builtin_model,
    with_default_model, with_web_search,
};
pub use subagents::{ProviderResolver, ResolvedModel};
pub use tool_availability::{Situation, Unavailable, on_path};
pub use turn::{Agent, AgentConfig, AgentError, AgentStats, ModeSwitch, Outcome};
