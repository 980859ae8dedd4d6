//! Arguments of the app's commands. Each command takes one `args` object, so the UI's typed
//! `call(name, args)` and the Rust handlers read the same struct.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct OpenProjectArgs {
    pub path: String,
}

/// Something that went wrong in the window's own code (a part that failed to draw or load),
/// sent to the app's log so it is not lost with the page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct UiErrorArgs {
    /// Which part of the window: "window", "markdown", "diff", or "page" for an error no
    /// part caught.
    pub part: String,
    pub message: String,
    pub stack: Option<String>,
}

/// What the window did between its page starting and its first interactive frame, sent with
/// `ui_ready`: the log and the startup benchmark show where the time went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct UiReadyArgs {
    /// The page's `performance.timeOrigin`: milliseconds since the Unix epoch.
    pub time_origin_ms: f64,
    pub marks: Vec<StartupMark>,
}

/// One moment of the window's start, in milliseconds after the page's time origin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct StartupMark {
    pub name: String,
    pub at_ms: f64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RemoveRecentArgs {
    pub path: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ListDirArgs {
    pub root: String,
    /// Folder relative to the root; "" for the root.
    pub path: String,
    pub hidden: bool,
    /// Re-read git status now instead of reusing one a few moments old (the Refresh button).
    pub fresh: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ReadFileArgs {
    pub root: String,
    pub path: String,
    /// 1-based first line; negative counts from the end.
    pub offset: Option<i64>,
    pub limit: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ProjectArgs {
    pub root: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SessionArgs {
    pub session: String,
}

/// A picture a session's `web_fetch` saved (`ToolSummary::PageFetched.picture`), by its name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct FetchedPictureArgs {
    pub session: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CreateSessionArgs {
    pub root: String,
    /// The first task: the session's title.
    pub task: String,
}

/// Starts a turn. The command also takes `onEvent`, a `Channel<Array<AgentEvent>>` the turn's
/// events arrive on (text deltas coalesced), and resolves when the turn ends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SendMessageArgs {
    pub session: String,
    pub text: String,
    pub mode: crate::Mode,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct AnswerApprovalArgs {
    pub session: String,
    /// The request's id (the tool call's id).
    pub request: String,
    pub answer: crate::ApprovalAnswer,
}

/// Changes the running turn's mode (the next call is judged in it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SetModeArgs {
    pub session: String,
    pub mode: crate::Mode,
}

/// A background task of a session (to stop it, or to review its changes so far).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct StopTaskArgs {
    pub session: String,
    pub task: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ProviderInput {
    pub name: String,
    pub kind: crate::ProviderKind,
    pub base_url: Option<String>,
    pub num_ctx: Option<u32>,
    /// Whether calls a model writes as text (a ```json block, bare JSON, `<tool_call>` tags)
    /// are run; None: automatic (yes for a server on this computer).
    #[serde(default)]
    pub lenient_tool_calls: Option<bool>,
    /// Whether its models get the help small models need; None: automatic (yes for the
    /// built-in model and models of at most 4B parameters on a server on this computer).
    #[serde(default)]
    pub small_model: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SaveSettingsArgs {
    pub providers: Vec<ProviderInput>,
    pub roles: Vec<crate::RoleView>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SetApiKeyArgs {
    pub provider: String,
    /// Empty deletes the stored key.
    pub key: String,
    /// Where no keychain service runs: keep the key in a file only the user can read.
    pub allow_file: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TestConnectionArgs {
    pub kind: crate::ProviderKind,
    pub base_url: Option<String>,
    /// A key typed but not saved yet; otherwise the provider's stored key is used.
    pub api_key: Option<String>,
    /// The configured provider whose stored key to use.
    pub provider: Option<String>,
}

/// Sets where `web_search` searches (`provider: None` turns it off). The key is stored with
/// `set_api_key` under the name `web_search`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SaveWebSearchArgs {
    pub provider: Option<crate::SearchProviderKind>,
    pub base_url: Option<String>,
}

/// Tries a search through a provider, with a key typed but not saved yet, or the stored one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TestWebSearchArgs {
    pub provider: crate::SearchProviderKind,
    pub base_url: Option<String>,
    pub api_key: Option<String>,
}

/// What a test search found: the titles of the first results, or why it failed, in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct WebSearchTest {
    pub ok: bool,
    pub message: String,
    pub titles: Vec<String>,
}

/// New limits for one session (the person raised them where a limit stopped it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct RaiseLimitsArgs {
    pub session: String,
    pub limits: crate::SpendLimits,
}

/// The form a session is exported in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ExportKind {
    Markdown,
    Jsonl,
}

/// Writes a session out to a file the person chose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ExportSessionArgs {
    pub session: String,
    pub format: ExportKind,
    pub path: String,
}

/// Every command: its name, the type of its `args`, and the type it resolves to. The TypeScript
/// `Commands` interface is generated from this list, so the UI cannot call a command with the
/// wrong shape.
pub const COMMANDS: &[(&str, &str, &str)] = &[
    ("startup", "null", "Startup"),
    ("ui_ready", "UiReadyArgs", "null"),
    ("ui_error", "UiErrorArgs", "null"),
    ("open_project", "OpenProjectArgs", "ProjectInfo"),
    ("recent_projects", "null", "Array<RecentProject>"),
    ("remove_recent", "RemoveRecentArgs", "Array<RecentProject>"),
    ("close_project", "null", "null"),
    ("watch_project", "ProjectArgs", "null"),
    ("list_dir", "ListDirArgs", "FileListing"),
    ("project_files", "ProjectArgs", "Array<string>"),
    ("read_file", "ReadFileArgs", "FileContent"),
    ("list_sessions", "ProjectArgs", "Array<SessionInfo>"),
    ("load_session", "SessionArgs", "SessionTranscript"),
    ("create_session", "CreateSessionArgs", "SessionInfo"),
    ("send_message", "SendMessageArgs", "TurnOutcome"),
    ("answer_approval", "AnswerApprovalArgs", "null"),
    ("stop_turn", "SessionArgs", "null"),
    ("retry_turn", "SessionArgs", "TurnOutcome"),
    ("set_mode", "SetModeArgs", "null"),
    ("session_tasks", "SessionArgs", "Array<BackgroundTask>"),
    ("stop_task", "StopTaskArgs", "Array<BackgroundTask>"),
    ("review_task", "StopTaskArgs", "Array<BackgroundTask>"),
    ("session_changes", "SessionArgs", "Array<SessionFileChange>"),
    ("fetched_picture", "FetchedPictureArgs", "FileContent"),
    ("restore_preview", "RestoreArgs", "RestorePreview"),
    ("restore", "RestoreArgs", "RestoreRecord"),
    ("get_settings", "null", "SettingsView"),
    ("save_settings", "SaveSettingsArgs", "SettingsView"),
    ("set_api_key", "SetApiKeyArgs", "SettingsView"),
    ("test_connection", "TestConnectionArgs", "ConnectionTest"),
    ("save_web_search", "SaveWebSearchArgs", "SettingsView"),
    ("test_web_search", "TestWebSearchArgs", "WebSearchTest"),
    ("detect_local", "null", "Array<LocalServer>"),
    ("builtin_status", "null", "BuiltinStatus"),
    ("start_builtin_download", "null", "BuiltinStatus"),
    ("cancel_builtin_download", "null", "BuiltinStatus"),
    ("use_builtin", "UseBuiltinArgs", "SettingsView"),
    ("provider_models", "null", "Array<ProviderModels>"),
    ("use_model", "UseModelArgs", "SettingsView"),
    ("policy_rules", "ProjectArgs", "RulesView"),
    ("remove_rule", "RemoveRuleArgs", "RulesView"),
    ("add_rule", "AddRuleArgs", "RulesView"),
    ("trust_project", "TrustProjectArgs", "RulesView"),
    ("set_policy_default", "SetPolicyDefaultArgs", "RulesView"),
    ("sandbox_status", "null", "SandboxStatus"),
    ("skills_view", "ProjectArgs", "SkillsView"),
    ("set_skill_enabled", "SetSkillEnabledArgs", "SkillsView"),
    ("add_skill", "AddSkillArgs", "SkillsView"),
    ("remove_skill", "RemoveSkillArgs", "SkillsView"),
    ("mcp_view", "ProjectArgs", "McpView"),
    ("approve_mcp_server", "McpServerArgs", "McpView"),
    ("restart_mcp_server", "McpServerArgs", "McpView"),
    ("add_mcp_server", "AddMcpServerArgs", "McpView"),
    ("remove_mcp_server", "McpServerArgs", "McpView"),
    ("get_limits", "null", "SpendLimits"),
    ("save_limits", "SpendLimits", "SpendLimits"),
    ("spend_status", "SessionArgs", "SpendStatus"),
    ("raise_limits", "RaiseLimitsArgs", "SpendStatus"),
    ("export_session", "ExportSessionArgs", "string"),
    ("search_sessions", "SearchSessionsArgs", "Array<SearchHit>"),
    ("get_notifications", "null", "NotificationPrefs"),
    ("get_command_prefs", "null", "CommandPrefs"),
    ("save_command_prefs", "CommandPrefs", "CommandPrefs"),
    ("project_copies", "ProjectArgs", "boolean | null"),
    (
        "save_notifications",
        "NotificationPrefs",
        "NotificationPrefs",
    ),
];
