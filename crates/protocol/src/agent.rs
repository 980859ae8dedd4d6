//! What the agent tells its front ends (the GUI, the CLI) while it works, and how they answer
//! its approval questions.

use crate::{ChangeReview, EngineError, Hunk, Message, PlanItem, TurnOutcome, Usage};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// Everything a reviewer needs to decide on one tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ApprovalRequest {
    /// The tool call's id.
    pub id: String,
    pub tool: String,
    pub input: Value,
    #[serde(flatten)]
    pub asked: Asked,
    #[serde(flatten)]
    pub change: ChangePreview,
    #[serde(flatten)]
    pub run: CommandPreview,
    /// The sub-agent that asks (its name), when it is not the session's own agent.
    #[serde(default)]
    pub agent: Option<String>,
    /// The call in words for people, as its tool puts it ("Edit src/main.rs").
    #[serde(default)]
    pub title: Vec<TitlePart>,
    /// The tool's name in words for people ("Edit a file").
    #[serde(default)]
    pub words: String,
    /// A command that has run: its changes, waiting for a yes before they land. Answered
    /// with `approve` (all), `deny` (none) or `approve_partial` (the pieces accepted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub review: Option<Box<ChangeReview>>,
    /// A commit: what goes in, file by file, with its diff (the call's JSON said only its
    /// message).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub commit: Option<CommitPreview>,
}

/// What a commit would record, for the person asked about it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
pub struct CommitPreview {
    pub message: String,
    pub files: Vec<CommitFile>,
    /// Files beyond those listed (a commit of very many).
    pub more: u32,
}

/// One file a commit would record: its change against HEAD and its diff.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct CommitFile {
    /// Relative to the project.
    pub path: String,
    pub change: CommitChange,
    pub added: u32,
    pub removed: u32,
    /// The unified diff's hunks (empty for a binary, very large or secret file), cut when
    /// very long.
    pub diff: String,
    /// A secret (`.env`, keys): its content is not shown, before or after.
    pub secret: bool,
    /// The session changed it, so the person saw the change in Tandem (as an edit or a
    /// command's changes); false for a change made outside Tandem or before the session.
    pub seen: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum CommitChange {
    Added,
    Modified,
    Deleted,
}

/// Why a call is asked about: the policy's reason, in plain words, and the rule that asked.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
pub struct Asked {
    pub reason: String,
    pub rule: String,
    /// Rules the user could grant instead of answering each time, in order.
    pub suggestions: Vec<ApprovalSuggestion>,
}

/// For writes and edits: the file, its content now and the proposed content, and the hunks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
pub struct ChangePreview {
    pub path: Option<String>,
    pub original: Option<String>,
    pub proposed: Option<String>,
    pub hunks: Vec<Hunk>,
}

/// For commands: what would run, and where.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
pub struct CommandPreview {
    /// The command line, and each simple command the policy found in it (what really runs,
    /// wrappers and substitutions included).
    pub command: Option<String>,
    pub commands: Vec<String>,
    /// Where it will run if approved (in the sandbox, with the network, or outside the
    /// sandbox).
    pub confinement: Option<Confinement>,
    /// Set when the sandbox stopped this command and the question is whether to run it once
    /// outside: what the sandbox refused.
    pub sandbox_denial: Option<SandboxDenial>,
}

/// One piece of a call's title: words, or code (a command, a pattern) that front ends set as
/// code instead of printing backticks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TitlePart {
    pub text: String,
    #[serde(default)]
    pub code: bool,
}

impl TitlePart {
    pub fn words(text: impl Into<String>) -> Self {
        TitlePart {
            text: text.into(),
            code: false,
        }
    }

    pub fn code(text: impl Into<String>) -> Self {
        TitlePart {
            text: text.into(),
            code: true,
        }
    }
}

/// How front ends show a call, as its tool declares it: a quiet line once it succeeded (a
/// read, a listing) or a card, and what its output is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
pub struct CallLook {
    pub quiet: bool,
    pub output: OutputForm,
    /// A successful call ends the task (task_done): shown as the task's end, not as a call.
    #[serde(default)]
    pub ends_task: bool,
}

/// What a call's output is, for how front ends draw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum OutputForm {
    #[default]
    Plain,
    /// A terminal's output, with its colours (commands, git).
    Terminal,
    /// `path:line: text` lines that open the file.
    SearchHits,
}

/// How a tool call ended, for the front ends (the model reads the text).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ToolOutcome {
    /// It ran and did what was asked.
    Ok,
    /// It ran and failed (a command's non-zero exit, a tool's error).
    Failed,
    /// The user denied it.
    Denied,
    /// The policy refused it; it never ran.
    Refused,
    /// The turn was stopped before it ran or finished.
    Stopped,
    /// A command that goes on as a background task (started so, or still running after the
    /// grace window): it has not ended yet, and the task list shows how it does.
    Background,
    /// A task_done the engine sent back to the model, because what happened contradicts it
    /// (a failed check, a rejected edit): the work goes on. Not a failure of anything.
    SentBack,
    /// Tandem did not run it: the agent had made the same calls before, round in a circle.
    /// It is asked to do something different, or the task pauses for the person.
    Repeated,
}

/// What a tool call came to, as facts a front end puts in words for people. The text the
/// model got (`output`) is written for the model; front ends fold it under "Details".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ToolSummary {
    /// A call Tandem stopped as a repeat of the agent's last ones: `paused` when the task
    /// paused for the person (the second circle), else the agent was asked to change course.
    Repeated { paused: bool },
    /// A command ended: its exit code (none when it was killed, at its timeout or by a
    /// signal), how long it ran, and what it printed (its start and end when long: `cut`).
    CommandRan {
        exit_code: Option<i32>,
        timed_out: bool,
        #[ts(type = "number")]
        duration_ms: u64,
        output: String,
        cut: bool,
        /// What it changed in the project (it ran over a layer), and what became of it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        changes: Option<Box<crate::CommandChanges>>,
    },
    /// A command goes on in the background as this task.
    CommandInBackground { task: String },
    /// Lines `from` to `to` of a text file of `total_lines`.
    FileRead {
        path: String,
        from: u32,
        to: u32,
        total_lines: u32,
    },
    /// A file that is not text (an image, a binary) was looked at.
    FileSeen { path: String },
    /// A file was written or edited (`created`: it is new), with the lines it gained and lost.
    FileChanged {
        path: String,
        created: bool,
        added_lines: u32,
        removed_lines: u32,
    },
    /// The user kept `kept` of an edit's `total` changes.
    ChangesKept { path: String, kept: u32, total: u32 },
    /// Files and folders listed (`more`: others matched and were left out).
    FilesListed { count: u32, more: u32 },
    /// Lines that matched a search of the project, in how many files.
    SearchMatches { matches: u32, files: u32 },
    /// A web page was fetched (its HTTP status). `picture`: the file name, among the
    /// session's fetched files, of the picture it was (shown on the card).
    PageFetched {
        url: String,
        status: u16,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        picture: Option<String>,
    },
    /// Results of a web search.
    WebResults { count: u32 },
    /// The plan now: how many steps, how many done.
    PlanUpdated { steps: u32, done: u32 },
    /// A helper (sub-agent) finished or stopped, with the files it changed.
    HelperReported {
        name: String,
        finished: bool,
        files_changed: u32,
    },
    /// The engine sent a task_done back: what contradicts it. The work goes on.
    SentBack { warnings: Vec<DoneWarning> },
    /// The user said no, with their words if any.
    Denied { message: Option<String> },
    /// The policy refused it before it ran, and why (in words for people).
    Refused { reason: String },
}

/// Where a task_done's claims do not match what happened, as far as the engine knows. Front
/// ends show these instead of a plain success.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DoneWarning {
    /// A file it names as changed is as it was: the user rejected its edit.
    EditRejected { path: String },
    /// A file it lists as changed that nothing changed during the session.
    FileUnchanged { path: String },
    /// The last check it ran (tests, a build, a linter) failed: a non-zero exit code, or
    /// none when it was killed (at its timeout, or by a signal).
    CheckFailed {
        command: String,
        exit_code: Option<i32>,
    },
    /// The task named a check (`command`, in backticks) and none ran after the last change
    /// (or none at all).
    CheckNotRun { command: String },
    /// A file it lists as changed does not exist, and nothing in the task changed it.
    FileMissing { path: String },
    /// The person denied a command in this task: it did not run.
    CommandDenied { command: String },
    /// The person said no to another call in this task (a fetch, a commit, a pull request).
    CallDenied { title: String },
    /// The person kept only some of the changes of an edit to `path`.
    EditPartlyKept { path: String, kept: u32, total: u32 },
    /// The person rejected changes a command made: they did not land.
    ChangesRejected { command: String, paths: Vec<String> },
}

impl DoneWarning {
    /// Whether it contradicts what the summary claims, so the model hears it before the task
    /// ends; the rest (what the person said no to) the model was told as it happened, and the
    /// person sees them beside the summary.
    pub fn contradicts_claim(&self) -> bool {
        matches!(
            self,
            DoneWarning::EditRejected { .. }
                | DoneWarning::FileUnchanged { .. }
                | DoneWarning::CheckFailed { .. }
                | DoneWarning::CheckNotRun { .. }
                | DoneWarning::FileMissing { .. }
        )
    }
}

/// Why the agent woke without a message from the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WakeReason {
    /// A background task (a command or a named agent) ended.
    TaskFinished {
        task: String,
        title: String,
        state: String,
    },
    /// The person asked to review what a background command changed so far (it still runs).
    ChangesAsked { task: String, title: String },
    /// The wake-up the agent asked for with `wakeup`.
    Timer { hint: Option<String> },
    /// The user asked to try the failed turn again.
    Retry,
}

/// Where a command runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Confinement {
    /// In the OS sandbox: it can write only the project (not in read-only mode) and a private
    /// temporary folder, cannot read secrets, and sees the network only when `network`.
    Sandboxed { network: bool, read_only: bool },
    /// With the user's own permissions.
    Outside { reason: OutsideReason },
}

impl Confinement {
    pub fn is_sandboxed(self) -> bool {
        matches!(self, Confinement::Sandboxed { .. })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum OutsideReason {
    /// The user approved running this command once outside the sandbox.
    Approved,
    /// This machine cannot sandbox commands.
    Unavailable,
}

/// Whether this machine sandboxes commands, for the mode selector.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SandboxStatus {
    pub sandboxed: bool,
    /// What that means, in a sentence for people.
    pub summary: String,
}

/// What the sandbox refused a command, as far as its output shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SandboxDenial {
    pub kind: DenialKind,
    /// The line of output that shows it.
    pub evidence: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum DenialKind {
    /// A file or folder it may not read or write.
    Files,
    /// The network, which it does not have.
    Network,
}

/// A rule offered as a button: approving with it grants it for the session
/// (`ApproveForSession`) or keeps it in the user's rules for the project (`ApproveAlways`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ApprovalSuggestion {
    pub label: String,
    /// True when the rule is meant to be kept for the project, not just this session.
    pub always: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub enum ApprovalAnswer {
    Approve,
    /// Approve, and grant the suggestion at this index for the rest of the session.
    ApproveForSession {
        suggestion: u32,
    },
    /// Approve, and keep the suggestion at this index as your rule for this project (in your
    /// own policy file, shown by `tandem-cli policy show`).
    ApproveAlways {
        suggestion: u32,
    },
    Deny {
        message: Option<String>,
    },
    /// For writes and edits: apply only these hunks (indices into `ApprovalRequest::hunks`).
    /// For a command's review: land only these pieces.
    ApprovePartial {
        accepted_hunks: Vec<u32>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    /// The user's message that starts a turn.
    UserMessage {
        text: String,
        /// The checkpoint taken as the turn began: "Restore to here" goes back to it. None in
        /// logs from before checkpoints, or when it could not be taken.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        checkpoint: Option<u32>,
    },
    StepStarted {
        step: u32,
    },
    TextDelta {
        text: String,
    },
    ThinkingDelta {
        text: String,
    },
    /// The model (one running in Tandem) is reading a long prompt before it answers:
    /// `evaluated` of `total` tokens. Not logged.
    PromptProgress {
        evaluated: u32,
        total: u32,
    },
    /// The model is writing a tool call: its name, and the arguments' length so far (the call
    /// itself follows as `tool_call_proposed` once the reply ends). Not logged.
    ToolCallWriting {
        name: String,
        chars: u32,
        /// The tool's name in words for people.
        #[serde(default)]
        words: String,
    },
    AssistantMessage {
        message: Message,
    },
    ToolCallProposed {
        id: String,
        name: String,
        input: Value,
        /// The call in words for people (older logs lack it; the engine's reader fills it in).
        #[serde(default)]
        title: Vec<TitlePart>,
        #[serde(default)]
        look: CallLook,
    },
    ApprovalNeeded {
        request: Box<ApprovalRequest>,
    },
    /// A command started: until it ends, its output is background task `task`'s, which a
    /// front end shows live (`session_tasks`). Not kept in the log: it only matters while the
    /// command runs.
    CommandStarted {
        id: String,
        task: String,
    },
    ToolFinished {
        id: String,
        name: String,
        output: String,
        is_error: bool,
        /// How it ended (for the front ends; older logs lack it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        outcome: Option<ToolOutcome>,
        /// For commands: where it ran.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        confinement: Option<Confinement>,
        /// For commands that finished: their exit code.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        exit_code: Option<i32>,
        /// For a command that went on in the background: its task, so a front end can show
        /// how it ended later.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        task: Option<String>,
        /// What it came to, for people (older logs lack it; so do results with nothing to
        /// add to the outcome).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        summary: Option<ToolSummary>,
    },
    Usage {
        usage: Usage,
        /// This call's cost, when the model's price is known.
        cost_usd: Option<f64>,
    },
    Notice {
        text: String,
    },
    /// The conversation fills this much of the model's context: at `compact_at` percent the
    /// older turns are summarised.
    ContextFilling {
        used_percent: u32,
        compact_at: u32,
    },
    /// Older turns were summarised to fit the model's context: the summary the model now has
    /// instead of them, and what was dropped (a line per message).
    Compacted {
        summary: String,
        dropped: Vec<String>,
        messages_before: u32,
        messages_after: u32,
    },
    Error {
        error: EngineError,
    },
    Done {
        summary: String,
        /// What contradicts the summary (older logs lack it; empty when nothing does).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[ts(as = "Option<Vec<DoneWarning>>", optional)]
        warnings: Vec<DoneWarning>,
    },
    /// The plan as `update_plan` left it.
    PlanUpdated {
        items: Vec<PlanItem>,
    },
    /// How the user answered an approval request.
    ApprovalAnswered {
        id: String,
        answer: ApprovalAnswer,
    },
    /// The turn is over; nothing more comes until the next message.
    TurnEnded {
        outcome: TurnOutcome,
    },
    /// A turn starts without a message from the user: something the agent waited for happened.
    Wake {
        reason: WakeReason,
        /// The checkpoint taken as the turn began, as for a user's message.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        checkpoint: Option<u32>,
    },
    /// The project (files, conversation or both) was brought back to a checkpoint.
    Restored {
        record: crate::RestoreRecord,
    },
    /// A skill became active for this task: its tools join the catalog and its instructions
    /// the system prompt until the next task.
    SkillActivated {
        name: String,
        origin: crate::ExtensionOrigin,
        activation: crate::SkillActivation,
        /// Its tools, by the names the model calls them.
        tools: Vec<String>,
    },
    /// A sub-agent started: its events follow as `subagent` events with this id.
    SubagentStarted {
        /// Unique in the session, e.g. `a1`.
        agent: String,
        /// Its name (`reviewer`, `reviewer-2`) or the title it was given.
        name: String,
        task: String,
        /// Runs in the background (a named agent) or while the parent waits.
        background: bool,
        model: String,
        #[ts(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent: Option<String>,
    },
    /// One event of a sub-agent's own transcript.
    Subagent {
        agent: String,
        event: Box<AgentEvent>,
    },
    /// A sub-agent stopped: how, with what it reports.
    SubagentEnded {
        agent: String,
        outcome: TurnOutcome,
        report: String,
        #[ts(type = "number")]
        steps: u32,
        #[ts(type = "number")]
        tokens: u64,
        cost_usd: Option<f64>,
    },
}
