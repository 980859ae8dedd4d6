//! Sessions as the desktop app sees them: the list, a transcript read back from the log, the
//! files a session changed, its background tasks, and the settings screens' shapes.

use crate::AgentEvent;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// How a turn ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TurnOutcome {
    /// The model called task_done.
    Done {
        summary: String,
    },
    /// The model stopped without calling task_done (it answered, or asks something).
    Ended,
    /// Paused for the user (a loop of identical calls).
    Paused {
        reason: String,
    },
    StepLimit,
    BudgetSpent {
        used: u64,
    },
    /// A spending limit stopped the turn before its next model call; the person may raise it
    /// for the session and go on.
    LimitReached {
        reached: crate::LimitReached,
    },
    /// The user pressed Stop (or the window went away).
    Cancelled,
    /// The model or the log failed: a code the front end acts on, and words for people.
    Failed {
        error: EngineError,
    },
}

impl TurnOutcome {
    /// Retry goes on from where this turn stopped: it failed, or a spending limit stopped it
    /// (and the person may have raised it).
    pub fn goes_on_with_retry(&self) -> bool {
        matches!(
            self,
            TurnOutcome::Failed { .. } | TurnOutcome::LimitReached { .. }
        )
    }
}

/// A failure as it crosses to a front end: a stable code, a message for people, and the next
/// step to offer (Retry, Settings), decided here from the code. Nobody reads meaning back out
/// of the message, and no front end keeps its own table of what a code allows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct EngineError {
    pub code: FailureCode,
    /// What happened and what to do, in words for people (built from the typed error).
    pub message: String,
    /// The technical cause (the server's own words, the connection error), for a "details"
    /// fold and bug reports; never the only thing shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub detail: Option<String>,
    /// Always `code.next_step()`: written for the front ends, never read back (a log written
    /// before it existed, or by another version, gets today's decision).
    pub next_step: NextStep,
}

impl EngineError {
    pub fn new(code: FailureCode, message: impl Into<String>, detail: Option<String>) -> Self {
        EngineError {
            code,
            message: message.into(),
            detail,
            next_step: code.next_step(),
        }
    }
}

impl<'de> Deserialize<'de> for EngineError {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Written {
            code: FailureCode,
            message: String,
            #[serde(default)]
            detail: Option<String>,
        }
        let w = Written::deserialize(d)?;
        Ok(EngineError::new(w.code, w.message, w.detail))
    }
}

/// What a front end offers for a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct NextStep {
    /// Sending again, unchanged, can help: offer Retry.
    pub retry: bool,
    /// The fix is in Settings: offer to open them.
    pub settings: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum FailureCode {
    /// No model provider is set up.
    NoProvider,
    /// The provider refused the key (401/403).
    Auth,
    /// The provider asks to slow down (429) or is overloaded.
    RateLimited,
    /// The provider had a server error (5xx).
    ServerError,
    /// The server could not be reached (wrong address, not running, no network).
    Unreachable,
    /// The address cannot be used at all (no `http://`): fix it in Settings.
    BadAddress,
    /// Something answered at the address, but not as a model API (a web page): the address is
    /// wrong.
    NotAModelServer,
    /// The reply stopped mid-way or was unreadable.
    StreamBroken,
    /// The provider named no such model (404).
    ModelNotFound,
    /// The conversation is too long for the model.
    ContextTooLong,
    /// The provider refused the request for another reason (4xx).
    BadRequest,
    /// The built-in model cannot run here (no AVX2, too little memory, a file it cannot load).
    BuiltinUnavailable,
    /// The built-in model has no file yet: it needs the download (Settings offers it).
    BuiltinNotDownloaded,
    /// The session's log could not be written.
    LogFailed,
    /// Another window or `tandem-cli` has this session open, or a turn runs in it.
    SessionBusy,
    /// A command named a file or folder, or a session, that does not exist.
    NotFound,
    NotADirectory,
    NotAFile,
    PermissionDenied,
    /// A command named a path outside the project.
    OutsideProject,
    /// A command cannot be carried out as asked; the message says why and what to do.
    InvalidArgument,
    /// Reading or writing a file failed.
    Io,
    Git,
    /// Anything else.
    Internal,
}

impl FailureCode {
    /// What to offer for this failure. A bad request is offered both, as a provider's 4xx is
    /// sometimes passing (a proxy, an overloaded gateway) and sometimes a setting; anything
    /// else unknown may pass on a second try.
    pub fn next_step(self) -> NextStep {
        let (retry, settings) = match self {
            FailureCode::NoProvider
            | FailureCode::Auth
            | FailureCode::BadAddress
            | FailureCode::NotAModelServer
            | FailureCode::ModelNotFound
            | FailureCode::BuiltinUnavailable
            | FailureCode::BuiltinNotDownloaded => (false, true),
            FailureCode::RateLimited
            | FailureCode::ServerError
            | FailureCode::StreamBroken
            | FailureCode::LogFailed
            | FailureCode::SessionBusy
            | FailureCode::Internal => (true, false),
            // A command's failure: from the transcript, sending again is what there is to try
            // (as the window offered before these failures were typed).
            FailureCode::NotFound
            | FailureCode::NotADirectory
            | FailureCode::NotAFile
            | FailureCode::PermissionDenied
            | FailureCode::OutsideProject
            | FailureCode::InvalidArgument
            | FailureCode::Io
            | FailureCode::Git => (true, false),
            FailureCode::Unreachable | FailureCode::BadRequest => (true, true),
            FailureCode::ContextTooLong => (false, false),
        };
        NextStep { retry, settings }
    }
}

/// Where a session stands, for the session list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SessionState {
    /// A turn is running in this app now.
    Running,
    /// A turn is waiting for the user's approval.
    Waiting,
    Done,
    /// The agent called task_done, but what it saw contradicts its summary (a command failed
    /// after its last change, an edit was rejected…): the user should check.
    DoneWithWarnings,
    /// The last turn ended without task_done, or hit a limit: continue it.
    Ended,
    /// Tandem paused the last turn (the agent went round in circles): the person tells it how
    /// to go on.
    Paused,
    Stopped,
    Failed,
    /// The app died (or was killed) mid-turn: resumable.
    Interrupted,
}

/// How much the agent may do on its own, from strictest to loosest: the one mode type of the
/// workspace (the policy engine judges in it, the window and the CLI pick it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    ReadOnly,
    Ask,
    AutoEdit,
    FullAuto,
}

impl Mode {
    pub const ALL: [Mode; 4] = [Mode::ReadOnly, Mode::Ask, Mode::AutoEdit, Mode::FullAuto];

    pub fn name(self) -> &'static str {
        match self {
            Mode::ReadOnly => "read_only",
            Mode::Ask => "ask",
            Mode::AutoEdit => "auto_edit",
            Mode::FullAuto => "full_auto",
        }
    }

    /// Its name as the mode selector shows it ("Auto edit").
    pub fn label(self) -> &'static str {
        match self {
            Mode::ReadOnly => "Read only",
            Mode::Ask => "Ask",
            Mode::AutoEdit => "Auto edit",
            Mode::FullAuto => "Full auto",
        }
    }

    /// One line a non-programmer can read in the mode selector.
    pub fn explanation(self) -> &'static str {
        match self {
            Mode::ReadOnly => {
                "The agent can look but not touch: no edits, no commands that change anything."
            }
            Mode::Ask => {
                "The agent reads freely and asks before every edit, command and web access."
            }
            Mode::AutoEdit => {
                "The agent edits files in the project without asking; commands still ask."
            }
            Mode::FullAuto => {
                "The agent works on its own; only blocked and dangerous actions stop it."
            }
        }
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Mode::ALL
            .into_iter()
            .find(|m| m.name() == s || m.name().replace('_', "-") == s)
            .ok_or_else(|| {
                format!("unknown mode `{s}`; use read_only, ask, auto_edit or full_auto")
            })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct SessionInfo {
    pub id: String,
    pub project: String,
    /// From the first task.
    pub title: String,
    pub model: String,
    pub started_ms: u64,
    pub updated_ms: u64,
    pub state: SessionState,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// None when the model's price is unknown (local models cost nothing and say 0).
    pub cost_usd: Option<f64>,
}

/// Where a search's words were found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SearchHitKind {
    /// The person's message.
    User,
    /// The model's words.
    Assistant,
    /// A tool's result.
    Tool,
    /// A file or command a call named.
    File,
}

/// A session whose text holds every word searched for, with its first such message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SearchHit {
    pub session: String,
    pub title: String,
    /// The log entry of the first match (the transcript opens there).
    pub seq: u64,
    pub kind: SearchHitKind,
    /// The words around the first match.
    pub snippet: String,
    /// How many messages match.
    pub matches: u32,
    pub updated_ms: u64,
}

/// Searches a project's sessions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SearchSessionsArgs {
    pub root: String,
    pub query: String,
}

/// A session read back from its log: the same events the live stream carried.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct SessionTranscript {
    pub info: SessionInfo,
    pub events: Vec<AgentEvent>,
    /// Lines of the log that could not be read (a torn last line after a crash).
    pub warnings: Vec<String>,
}

/// One file the session changed, against its content when the session first touched it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SessionFileChange {
    pub path: String,
    /// None when the session created the file.
    pub before: Option<String>,
    /// None when the file is gone now.
    pub after: Option<String>,
    pub added_lines: u32,
    pub removed_lines: u32,
}

/// A background task (a command started with `background`), for the task list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct BackgroundTask {
    pub id: String,
    /// "command" or "agent".
    pub kind: String,
    pub title: String,
    pub running: bool,
    /// Its state in plain words ("running", "exited with code 1", "stopped").
    pub state: String,
    pub runtime_ms: u64,
    /// The end of its output so far.
    pub output_tail: String,
    /// It ended and some of its changes wait for the person's review (asked when the agent
    /// hears it ended).
    #[serde(default)]
    pub changes_waiting: bool,
    /// It still runs, and this many of its changes wait in its layer (nothing of them is in
    /// the project yet); the person may review them now.
    #[serde(default)]
    pub changes_so_far: u32,
}

/// The address a model server on this computer is offered at when none is typed yet (the
/// Settings screen, the first-run screen, error messages): Ollama's. One constant, shared with
/// the UI through the bindings.
pub const DEFAULT_LOCAL_URL: &str = "http://127.0.0.1:11434/v1";

/// Model servers looked for on this computer, by name, at their usual addresses.
pub const LOCAL_SERVERS: [(&str, &str); 3] = [
    ("Ollama", DEFAULT_LOCAL_URL),
    ("llama.cpp server", "http://127.0.0.1:8080/v1"),
    ("LM Studio", "http://127.0.0.1:1234/v1"),
];

/// A configured provider as the Settings screen shows it. Never carries the key itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ProviderView {
    pub name: String,
    pub kind: crate::ProviderKind,
    pub base_url: Option<String>,
    pub num_ctx: Option<u32>,
    /// Whether calls written as text are run; None: automatic (yes for a server on this
    /// computer).
    pub lenient_tool_calls: Option<bool>,
    /// Whether its models get the help small models need; None: automatic (yes for the
    /// built-in model and models of at most 4B parameters on a server on this computer).
    pub small_model: Option<bool>,
    /// Where its key comes from: "keychain", "file", "environment (ANTHROPIC_API_KEY)", or
    /// None when there is none (fine for local servers).
    pub key_source: Option<String>,
}

/// A web search API `web_search` can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SearchProviderKind {
    Brave,
    Tavily,
    /// A self-hosted SearXNG (no key; its address).
    Searxng,
}

/// The web search setting as Settings shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct WebSearchView {
    pub provider: SearchProviderKind,
    pub base_url: Option<String>,
    /// Where its key comes from ("keychain", "file", "environment (BRAVE_API_KEY)"), if any.
    pub key_source: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RoleView {
    /// default, fast, coder or architect.
    pub role: String,
    pub provider: String,
    pub model: String,
}

/// Whether API keys can go to the OS keychain here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct KeychainStatus {
    pub available: bool,
    /// Why not, in plain words, when it is not.
    pub message: Option<String>,
    /// The user opted in to keeping keys in a file only they can read.
    pub file_fallback: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SettingsView {
    /// The settings file (`~/.config/tandem/settings.toml`).
    pub file: String,
    pub providers: Vec<ProviderView>,
    pub roles: Vec<RoleView>,
    pub keychain: KeychainStatus,
    /// True when a model for the default role is set (or preset by TANDEM_PROVIDER): the
    /// first-run screen is shown otherwise.
    pub configured: bool,
    /// The provider preset by TANDEM_PROVIDER / TANDEM_BASE_URL / TANDEM_MODEL, described.
    pub preset: Option<String>,
    /// The model new turns use, if any.
    pub in_use: Option<ModelInUse>,
    /// A problem reading the settings file, with where.
    pub error: Option<String>,
    /// Where `web_search` searches, if anywhere.
    pub web_search: Option<WebSearchView>,
}

/// The built-in model as the first-run screen and Settings show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct BuiltinStatus {
    /// Why it cannot run on this computer (no AVX2, too little memory), in words; `None`
    /// when it can.
    pub unavailable: Option<String>,
    /// The default model, in words.
    pub model_name: String,
    /// Its download size in bytes.
    pub download_size: u64,
    /// Where the downloaded file goes (and is looked for).
    pub model_path: String,
    /// The file is there, checked against its sha256.
    pub downloaded: bool,
    /// A GGUF file of the user's own chosen in Settings, if any.
    pub own_file: Option<String>,
    pub download: BuiltinDownload,
    /// The built-in model serves the default role.
    pub in_use: bool,
}

/// The download of the built-in model's file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct BuiltinDownload {
    pub running: bool,
    /// Bytes on disk (a stopped download continues from here).
    pub done: u64,
    pub total: Option<u64>,
    /// Why the last attempt failed.
    pub error: Option<DownloadFailure>,
}

/// Why the built-in model's download stopped: a code the front end picks its next step by
/// (Resume, or a model file of the person's own), words for people that say what to do, and
/// the technical cause for a "Details" fold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct DownloadFailure {
    pub code: DownloadFailureCode,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub detail: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum DownloadFailureCode {
    /// The server could not be reached (offline, no name lookup, refused): Resume once online.
    Unreachable,
    /// The connection broke partway; the bytes so far are kept and Resume carries on.
    Interrupted,
    /// The server answered with an error (the file moved, too many requests).
    Refused,
    /// What arrived is not the expected file; it was deleted.
    WrongFile,
    /// The file could not be saved (a full disk, a folder it may not write).
    CannotSave,
}

/// Use the built-in model for the default role: the downloaded file, or `model_path`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct UseBuiltinArgs {
    pub model_path: Option<String>,
}

/// A model server answering on this machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct LocalServer {
    pub name: String,
    pub base_url: String,
    pub models: Vec<String>,
}

/// What "Test connection" found: the models the server lists, or what went wrong in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ConnectionTest {
    Connected { models: Vec<String> },
    Failed { error: EngineError },
}

/// The model new turns use, and where that choice comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ModelInUse {
    /// The provider's name in the settings (for a launch preset: `anthropic` or `openai`).
    pub provider: String,
    pub model: String,
    /// Chosen at launch (TANDEM_PROVIDER), not in the settings: picking a model replaces it.
    pub preset: bool,
}

/// One configured provider's models, for the model picker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ProviderModels {
    pub provider: String,
    pub models: Vec<String>,
    /// Why the list could not be read (the server is off, the key is wrong).
    pub error: Option<EngineError>,
}

/// Makes a provider's model the one new turns use (the default role).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct UseModelArgs {
    pub provider: String,
    pub model: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_read_back_gets_the_next_step_of_its_code() {
        // As logs before next_step existed wrote it, and with a stale decision in it.
        let old: EngineError = serde_json::from_str(
            r#"{"code":"auth","message":"The key was refused.","detail":"401"}"#,
        )
        .expect("old shape");
        assert_eq!(
            old.next_step,
            NextStep {
                retry: false,
                settings: true
            }
        );
        let stale: EngineError = serde_json::from_str(
            r#"{"code":"rate_limited","message":"Slow down.","next_step":{"retry":false,"settings":true}}"#,
        )
        .expect("stale decision");
        assert_eq!(stale.next_step, FailureCode::RateLimited.next_step());
        assert!(stale.next_step.retry);
        let written = serde_json::to_value(&stale).expect("json");
        assert_eq!(written["next_step"]["retry"], true);
    }
}
