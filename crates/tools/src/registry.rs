//! The tool registry: every tool the model can call, declared once, each in its own file under
//! `registry/` — its name, words and description, its arguments as a type, how the policy sees
//! a call and how people see it (both functions of the typed arguments), whether it only reads,
//! is cached, polls or is offered to small models, what it needs, and how it runs. A call is
//! looked up by name once ([`resolve`]) and carried as a [`Resolved`] handle through every
//! later stage; nothing else switches on a tool's name. Adding a tool is one file in
//! `registry/` and its name in the `registry!` list below.

/// Declares each tool's module (`registry/<tool>.rs`, which holds its `TOOL`) and lists them
/// all in [`TOOLS`], so a tool is registered by its name alone.
macro_rules! registry {
    ($($tool:ident),* $(,)?) => {
        $(mod $tool;)*

        /// Every tool, in the order the model is shown them.
        pub const TOOLS: &[ToolSpec] = &[$($tool::TOOL),*];
    };
}

mod resolved;
mod spec;
mod title;

use crate::error::{ToolError, ToolResult};
use crate::run_command::CommandOutcome;
use crate::web::FetchResult;
use crate::workspace::Workspace;
use protocol::{FileContent, PlanItem, ToolSummary};
pub use resolved::{EngineCall, Resolved, Worked, no_tool_named, resolve};
pub(crate) use run_command::command_output;
use serde::de::DeserializeOwned;
use serde_json::Value;
pub use spec::{Caching, Look, Needs, Offer, Offered, Runs, SmallModel, Step, ToolSpec};
pub(crate) use spec::{Run, Tool};
pub use title::{Title, title_of, words_for};

// Every tool, in the order the model is shown them: a tool's file, and its name here.
registry![
    read_file,
    list_files,
    search_codebase,
    write_file,
    edit_file,
    git_status,
    git_diff,
    git_log,
    git_commit,
    git_branch,
    run_command,
    task_list,
    task_poll,
    task_stop,
    wakeup,
    web_fetch,
    web_search,
    update_plan,
    task_done,
    spawn_subagent,
    agent_spawn,
    agent_send,
    skill_list,
    skill_activate,
    create_pull_request,
];

/// What a tool returns: text for the model, a structured value for the UI and scripts, what
/// it came to for people, and the typed result the engine acts on. The last two are built by
/// the tool from its typed result: nothing is parsed back out of `structured`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub text: String,
    pub structured: Value,
    pub summary: Option<ToolSummary>,
    pub details: Details,
}

/// The typed results the engine acts on (beyond the text and the summary).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Details {
    #[default]
    None,
    /// A command's outcome: how it ended, or the background task it became.
    Command(CommandOutcome),
    /// The plan as update_plan left it.
    Plan(Vec<PlanItem>),
    /// A file read_file read (an image or a PDF is attached for the model).
    File(FileContent),
    /// A page or a file web_fetch fetched.
    Fetched(Box<FetchResult>),
}

impl ToolOutput {
    pub(crate) fn new(text: String, structured: Value) -> Self {
        ToolOutput {
            text,
            structured,
            summary: None,
            details: Details::None,
        }
    }

    pub(crate) fn summed(mut self, summary: Option<ToolSummary>) -> Self {
        self.summary = summary;
        self
    }

    pub(crate) fn with(mut self, details: Details) -> Self {
        self.details = details;
        self
    }
}

pub fn find_tool(name: &str) -> Option<&'static ToolSpec> {
    TOOLS.iter().find(|t| t.name == name)
}

/// Writes a change worked out before — the diff a person approved — as the tool that planned
/// it reports a change; nothing is planned again, and a file that changed since is refused as
/// stale with nothing written.
pub fn apply_change(ws: &Workspace, planned: &crate::Planned) -> ToolResult<ToolOutput> {
    let change = crate::write_file::apply_planned(ws, planned, &planned.content)?;
    Ok(edit_file::change_output(
        &change,
        if planned.whole { "Wrote" } else { "Edited" },
    ))
}

pub(crate) fn parse<T: DeserializeOwned>(tool: &str, args: Value) -> ToolResult<T> {
    serde_json::from_value(args).map_err(|e| {
        ToolError::InvalidArgument(format!(
            "the arguments for {tool} are not valid ({e}); check them against its schema"
        ))
    })
}

pub(crate) fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

pub(crate) fn schema_of<T: schemars::JsonSchema>() -> Value {
    serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Null)
}

pub(crate) fn no_args_schema() -> Value {
    serde_json::json!({"type": "object", "properties": {}, "additionalProperties": false})
}

/// The arguments of a tool that takes none: an empty object (or none at all).
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct NoArgs;

/// Runs a tool that works on the project alone by name, with JSON arguments.
pub fn run_tool(ws: &Workspace, name: &str, args: Value) -> ToolResult<ToolOutput> {
    let runs = find_tool(name).map(ToolSpec::runs);
    match runs.unwrap_or(Runs::Project) {
        Runs::Project => resolve(name, args)?.run_on(ws),
        // Commands, tasks, the network and Stop are the toolbox's.
        Runs::Toolbox | Runs::Waits => Err(ToolError::InvalidArgument(format!(
            "{name} runs through the toolbox (Toolbox::run), not run_tool"
        ))),
        Runs::Engine => Err(ToolError::InvalidArgument(format!(
            "{name} is run by the agent engine, not the toolbox"
        ))),
    }
}

#[cfg(test)]
mod tests;
