//! The tool registry: every tool the model can call, declared once, each in its own file under
//! `registry/` — its name and description, its arguments' schema, how the policy sees a call,
//! whether it only reads, is cached, polls or is offered to small models, what it needs, and
//! how it runs. Everything else (the toolbox, the agent, `tandem-cli tool`) asks the registry
//! about a tool instead of switching on its name. Adding a tool is one file in `registry/` and
//! its name in the `registry!` list below.

/// Declares each tool's module (`registry/<tool>.rs`, which holds its `TOOL`) and lists them
/// all in [`TOOLS`], so a tool is registered by its name alone.
macro_rules! registry {
    ($($tool:ident),* $(,)?) => {
        $(mod $tool;)*

        /// Every tool, in the order the model is shown them.
        pub const TOOLS: &[ToolSpec] = &[$($tool::TOOL),*];
    };
}

use crate::error::{ToolError, ToolResult};
use crate::run_command::CommandOutcome;
use crate::toolbox::{CallContext, Toolbox};
use crate::web::FetchResult;
use crate::workspace::Workspace;
use crate::write_file::Planned;
use futures_util::future::BoxFuture;
use protocol::{FileContent, PlanItem, ToolSummary};
pub(crate) use run_command::command_output;
use serde::de::DeserializeOwned;
use serde_json::Value;

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

/// How the policy engine sees a call of a tool (the agent turns it into a `policy::ToolCall`
/// with the call's arguments).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicyView {
    /// Reads what `path` names (and each of `paths`).
    Read,
    /// Changes the file `path` names, by the planned change's size.
    Write,
    /// Runs the shell command `command`.
    Command,
    /// Sends a request to `url` with `method`.
    Fetch,
    WebSearch,
    /// Records changes in git, by their size.
    GitCommit,
    /// Lists branches, or changes the checked-out one (`action`).
    GitBranch,
    PullRequest,
    /// Touches nothing outside the session (tasks, plans, agents, skills): judged by name.
    Internal,
}

/// When the model is offered a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offered {
    Always,
    /// Only when the session has skills.
    WithSkills,
    /// Only to an agent that may start other agents.
    WhenMaySpawn,
}

/// What a tool needs from the machine or the settings to be offered at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    Nothing,
    /// A web search provider in the settings.
    SearchService,
    /// The GitHub CLI (`gh`) on `PATH`.
    GitHubCli,
}

/// What a small model is offered of a tool.
#[derive(Debug, Clone, Copy)]
pub enum SmallModel {
    /// Not offered: a small model does better with fewer tools.
    Left,
    /// Offered as it is.
    AsIs,
    /// Offered in one simpler form (a description and the schema of its arguments): a small
    /// model filled the form of a two-form tool it did not use with empty values.
    Form(&'static str, fn() -> Value),
}

/// The tools the agent engine runs itself: they start or message agents, or list and activate
/// skills. No toolbox can run them alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineTool {
    SpawnSubagent,
    AgentSpawn,
    AgentSend,
    SkillList,
    SkillActivate,
}

impl EngineTool {
    /// Whether it starts an agent (which an agent at the deepest level may not).
    pub fn spawns(self) -> bool {
        matches!(self, EngineTool::SpawnSubagent | EngineTool::AgentSpawn)
    }

    pub fn is_skill_tool(self) -> bool {
        matches!(self, EngineTool::SkillList | EngineTool::SkillActivate)
    }

    pub fn is_agent_tool(self) -> bool {
        matches!(
            self,
            EngineTool::SpawnSubagent | EngineTool::AgentSpawn | EngineTool::AgentSend
        )
    }
}

pub type ProjectRun = fn(&Workspace, Value) -> ToolResult<ToolOutput>;
pub type ToolboxRun = fn(&Toolbox, Value, &CallContext) -> ToolResult<ToolOutput>;
pub type WaitingRun =
    for<'a> fn(&'a Toolbox, Value, &'a CallContext) -> BoxFuture<'a, ToolResult<ToolOutput>>;
/// Runs on a file the session saved (a command's output, a fetched page), named by the path
/// the model used: `(toolbox, asked path, arguments)`.
pub type SavedRun = fn(&Toolbox, String, Value) -> ToolResult<Option<ToolOutput>>;
pub type CheckRun = fn(&Workspace, Value) -> ToolResult<()>;
pub type PlanRun = fn(&Workspace, Value) -> ToolResult<Planned>;

/// How a tool runs.
#[derive(Clone, Copy)]
pub enum Runner {
    /// On the project alone: [`run_tool`] runs it (file and git tools).
    Project(ProjectRun),
    /// With the session's toolbox: its tasks and plan.
    Toolbox(ToolboxRun),
    /// With the session's toolbox, waiting on a process or the network (and ending on Stop).
    Waits(WaitingRun),
    /// By the agent engine.
    Engine(EngineTool),
}

/// One tool, as declared in its file under `registry/`.
pub struct ToolSpec {
    pub name: &'static str,
    /// Its name in words for people ("Hand work to a helper" for `spawn_subagent`): what
    /// front ends show (the UI gets them through the bindings).
    pub words: &'static str,
    pub description: &'static str,
    /// Whether it only reads: read-only mode and `tandem-cli run`'s reads-only check trust it.
    pub read_only: bool,
    pub policy: PolicyView,
    /// Whether results are kept until anything may have changed the project.
    pub cached: bool,
    /// Whether a cached result is also dropped as soon as the file `path` names changes (its
    /// size or time), before the folder's watch reports it.
    pub cached_per_file: bool,
    /// Whether calling it again and again is waiting, not going round in circles.
    pub polls: bool,
    /// Whether a successful call ends the task (its summary is weighed first).
    pub finishes: bool,
    pub offered: Offered,
    pub small_model: SmallModel,
    pub needs: Needs,
    pub run: Runner,
    schema: fn() -> Value,
    check: Option<CheckRun>,
    plan: Option<PlanRun>,
    saved: Option<SavedRun>,
}

impl ToolSpec {
    /// A tool that changes something, runs its own way, is offered always, to big models only.
    pub(crate) const fn new(
        name: &'static str,
        words: &'static str,
        description: &'static str,
        schema: fn() -> Value,
        policy: PolicyView,
        run: Runner,
    ) -> Self {
        ToolSpec {
            name,
            words,
            description,
            read_only: false,
            policy,
            cached: false,
            cached_per_file: false,
            polls: false,
            finishes: false,
            offered: Offered::Always,
            small_model: SmallModel::Left,
            needs: Needs::Nothing,
            run,
            schema,
            check: None,
            plan: None,
            saved: None,
        }
    }

    pub(crate) const fn reads(mut self) -> Self {
        self.read_only = true;
        self
    }

    pub(crate) const fn cached(mut self) -> Self {
        self.cached = true;
        self
    }

    pub(crate) const fn cached_per_file(mut self) -> Self {
        self.cached = true;
        self.cached_per_file = true;
        self
    }

    pub(crate) const fn polls(mut self) -> Self {
        self.polls = true;
        self
    }

    pub(crate) const fn finishes_task(mut self) -> Self {
        self.finishes = true;
        self
    }

    pub(crate) const fn offered(mut self, offered: Offered) -> Self {
        self.offered = offered;
        self
    }

    pub(crate) const fn small_model(mut self, form: SmallModel) -> Self {
        self.small_model = form;
        self
    }

    pub(crate) const fn needs(mut self, needs: Needs) -> Self {
        self.needs = needs;
        self
    }

    /// What is checked before anyone is asked: a call that cannot work whatever the person
    /// answers goes back to the model in words.
    pub(crate) const fn checked(mut self, check: CheckRun) -> Self {
        self.check = Some(check);
        self
    }

    /// Works out the change a call would make without making it (the diff a person approves).
    pub(crate) const fn plans(mut self, plan: PlanRun) -> Self {
        self.plan = Some(plan);
        self
    }

    /// Reads the session's saved files too (by the absolute path a result gave).
    pub(crate) const fn reads_saved(mut self, saved: SavedRun) -> Self {
        self.saved = Some(saved);
        self
    }

    pub fn schema(&self) -> Value {
        (self.schema)()
    }

    /// The description's first sentence: a line for a list of tools.
    pub fn summary(&self) -> &'static str {
        let d = self.description;
        // A sentence ends at ". " before a capital letter (not inside "e.g. (…").
        d.match_indices(". ")
            .find(|(i, _)| d[i + 2..].starts_with(|c: char| c.is_uppercase()))
            .map_or(d, |(i, _)| &d[..=i])
    }

    /// The engine's own tool this is, if it is one.
    pub fn engine_tool(&self) -> Option<EngineTool> {
        match self.run {
            Runner::Engine(t) => Some(t),
            _ => None,
        }
    }

    /// Whether the session's saved files are readable through it.
    pub fn reads_saved_files(&self) -> bool {
        self.saved.is_some()
    }

    pub(crate) fn run_on_saved(
        &self,
        toolbox: &Toolbox,
        path: String,
        args: Value,
    ) -> ToolResult<Option<ToolOutput>> {
        match self.saved {
            Some(run) => run(toolbox, path, args),
            None => Ok(None),
        }
    }
}

pub fn find_tool(name: &str) -> Option<&'static ToolSpec> {
    TOOLS.iter().find(|t| t.name == name)
}

/// Each tool's name with its words for people, for the UI's bindings.
pub fn tool_words() -> Vec<(&'static str, &'static str)> {
    TOOLS.iter().map(|t| (t.name, t.words)).collect()
}

/// How the policy sees a call of the registry's tool `name`; `None` for a name it does not
/// know (a skill's or a server's tool, or a mistake).
pub fn policy_view(name: &str) -> Option<PolicyView> {
    find_tool(name).map(|t| t.policy)
}

/// The one form a small model is offered of a tool that takes two, as its description and
/// schema; None for a tool offered as it is.
pub fn small_model_form(name: &str) -> Option<(&'static str, Value)> {
    match find_tool(name)?.small_model {
        SmallModel::Form(description, schema) => Some((description, schema())),
        SmallModel::Left | SmallModel::AsIs => None,
    }
}

/// Works out what a write or an edit with these arguments would write, without writing;
/// `None` for tools that make no planned change. Bad arguments are an error for the model.
pub fn plan_change(ws: &Workspace, name: &str, args: &Value) -> Option<ToolResult<Planned>> {
    let plan = find_tool(name)?.plan?;
    Some(plan(ws, args.clone()))
}

/// Writes a change worked out before — the diff a person approved — as the tool that planned
/// it reports a change; nothing is planned again, and a file that changed since is refused as
/// stale with nothing written.
pub fn apply_change(ws: &Workspace, planned: &Planned) -> ToolResult<ToolOutput> {
    let change = crate::write_file::apply_planned(ws, planned, &planned.content)?;
    Ok(edit_file::change_output(
        &change,
        if planned.whole { "Wrote" } else { "Edited" },
    ))
}

/// Why a call of `name` with `args` cannot run, found without running it; `Ok` for tools
/// with nothing to check. Writes and edits are checked (and worked out) by [`plan_change`].
pub fn check_before_asking(ws: &Workspace, name: &str, args: &Value) -> ToolResult<()> {
    match find_tool(name).and_then(|t| t.check) {
        Some(check) => check(ws, args.clone()),
        None => Ok(()),
    }
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

/// The tool's message when a project-only run is asked of a tool that needs more.
fn not_alone(name: &str) -> ToolError {
    ToolError::InvalidArgument(format!(
        "{name} runs through the toolbox (Toolbox::run), not run_tool"
    ))
}

fn unknown(name: &str) -> ToolError {
    ToolError::InvalidArgument(format!(
        "there is no tool named `{name}`; the tools are: {}",
        TOOLS.iter().map(|t| t.name).collect::<Vec<_>>().join(", ")
    ))
}

/// Runs a tool that works on the project alone by name, with JSON arguments.
pub fn run_tool(ws: &Workspace, name: &str, args: Value) -> ToolResult<ToolOutput> {
    let args = if args.is_null() {
        Value::Object(Default::default())
    } else {
        args
    };
    let spec = find_tool(name).ok_or_else(|| unknown(name))?;
    match spec.run {
        Runner::Project(run) => run(ws, args),
        // Commands, tasks, the network and Stop are the toolbox's.
        Runner::Toolbox(_) | Runner::Waits(_) => Err(not_alone(name)),
        Runner::Engine(_) => Err(ToolError::InvalidArgument(format!(
            "{name} is run by the agent engine, not the toolbox"
        ))),
    }
}

#[cfg(test)]
mod tests;
