//! The app's configuration, shared by the window and `tandem-cli`: where Tandem keeps its files
//! (`locations`), the settings file and what the Settings screen saves into it, API keys (the
//! OS keychain, the opt-in key file, the environment), the launch preset and how a role's model
//! is found, the person's rule files, a project's skills and MCP servers (and their launch),
//! and the sandbox this machine gives commands and servers.
//!
//! Must not run a session or a tool call (that is `agent`, which reads what this crate finds);
//! no Tauri.

mod extension_edits;
mod extensions;
mod keychain;
mod launch;
pub mod locations;
pub mod machine_sandbox;
mod mcp_launch;
mod provider_table;
mod rule_files;
mod settings;
mod settings_screen;

pub use extension_edits::{
    ExtensionEditError, add_user_mcp_server, add_user_skill, remove_user_mcp_server,
    remove_user_skill,
};
pub use extensions::{
    Extensions, SkillSettingError, find_skills, origin_words, project_extensions, session_skills,
    set_skill_enabled, skills_view, user_skills_dir, with_skill_enabled,
};
pub use keychain::{Keychain, KeychainError};
pub use launch::{
    BuiltinLoader, KeyFile, LaunchError, Preset, PresetSlot, ProviderResolver, ResolvedModel,
    StoredKeys, choose_provider, default_model_path, launch_failure, load_builtin_if_default,
    load_project_policy, no_builtin, no_provider, provider_resolver, read_settings,
    web_search_from_settings, web_search_of,
};
pub use mcp_launch::{SandboxLauncher, machine_sandbox, mcp_hub};
pub use rule_files::{
    RuleFileError, add_rule_to_file, remove_rule_from_file, rules_view, set_default_in_file,
    set_project_trusted,
};
pub use settings::{
    CommandSettings, MemorySecrets, ModelFile, NoSecrets, NotificationSettings, ProviderSettings,
    ROLES, RoleSettings, SecretStore, Settings, SettingsError, SkillsSettings, WEB_SEARCH_KEY,
    WebSearchSettings, default_key_env, default_url, is_loopback,
};
pub use settings_screen::{
    BUILTIN_PROVIDER, ScreenSettingsError, settings_from_screen, with_builtin_model,
    with_default_model, with_web_search,
};
