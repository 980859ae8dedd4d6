//! A call looked up once: [`resolve`] finds the tool by its name and reads the arguments into
//! its type; every later stage (check, plan, judge, title, run) takes the [`Resolved`] handle.

use super::spec::{Run, Tool, ToolSpec};
use super::title::Title;
use super::{TOOLS, ToolOutput, find_tool};
use crate::agents::{AgentSendArgs, AgentSpawnArgs, SpawnSubagentArgs};
use crate::error::{ToolError, ToolResult};
use crate::skills::SkillActivateArgs;
use crate::toolbox::{CallContext, Toolbox};
use crate::workspace::Workspace;
use crate::write_file::Planned;
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::path::PathBuf;

/// What was worked out about a call before the policy judges it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Worked<'a> {
    /// A change's size in lines, when the call makes a planned change.
    pub diff_lines: u32,
    /// For a fetch: the addresses its host looks up to, where it will go.
    pub resolved: &'a [std::net::IpAddr],
}

/// A call of one of the engine's own tools (agents and skills), with its typed arguments.
#[derive(Debug, Clone)]
pub enum EngineCall {
    SpawnSubagent(SpawnSubagentArgs),
    AgentSpawn(AgentSpawnArgs),
    AgentSend(AgentSendArgs),
    SkillList,
    SkillActivate(SkillActivateArgs),
}

impl EngineCall {
    /// Whether it starts an agent (which an agent at the deepest level may not).
    pub fn spawns(&self) -> bool {
        matches!(
            self,
            EngineCall::SpawnSubagent(_) | EngineCall::AgentSpawn(_)
        )
    }
}

/// What each stage asks of a call, its arguments typed; see [`Tool`].
pub(crate) trait TypedCall: Send + Sync {
    fn policy<'a>(&'a self, name: &'static str, worked: &Worked<'a>) -> Vec<policy::ToolCall<'a>>;
    fn title(&self, words: &'static str) -> Title;
    fn check(&self, toolbox: &Toolbox) -> ToolResult<()>;
    fn plan(&self, ws: &Workspace) -> Option<ToolResult<Planned>>;
    fn run_on(&self, ws: &Workspace) -> Option<ToolResult<ToolOutput>>;
    fn run_with<'a>(
        &'a self,
        toolbox: &'a Toolbox,
        ctx: &'a CallContext,
    ) -> Option<BoxFuture<'a, ToolResult<ToolOutput>>>;
    fn on_saved(&self, toolbox: &Toolbox) -> ToolResult<Option<ToolOutput>>;
    fn engine(&self) -> Option<EngineCall>;
    fn finish(&self) -> Option<crate::TaskDoneArgs>;
    fn commits(&self, ws: &Workspace) -> Option<ToolResult<Vec<PathBuf>>>;
}

pub(crate) struct Typed<T: Tool>(T::Args);

impl<T: Tool> Typed<T> {
    pub(crate) fn new(args: T::Args) -> Self {
        Typed(args)
    }
}

impl<T: Tool> TypedCall for Typed<T> {
    fn policy<'a>(&'a self, name: &'static str, worked: &Worked<'a>) -> Vec<policy::ToolCall<'a>> {
        T::policy(name, &self.0, worked)
    }

    fn title(&self, words: &'static str) -> Title {
        T::title(words, &self.0)
    }

    fn check(&self, toolbox: &Toolbox) -> ToolResult<()> {
        T::check(toolbox, &self.0)
    }

    fn plan(&self, ws: &Workspace) -> Option<ToolResult<Planned>> {
        T::plan(ws, &self.0)
    }

    fn run_on(&self, ws: &Workspace) -> Option<ToolResult<ToolOutput>> {
        match T::RUN {
            Run::Project(run) => Some(run(ws, &self.0)),
            _ => None,
        }
    }

    fn run_with<'a>(
        &'a self,
        toolbox: &'a Toolbox,
        ctx: &'a CallContext,
    ) -> Option<BoxFuture<'a, ToolResult<ToolOutput>>> {
        match T::RUN {
            Run::Toolbox(run) => Some(Box::pin(std::future::ready(run(toolbox, &self.0, ctx)))),
            Run::Waits(run) => Some(run(toolbox, &self.0, ctx)),
            Run::Project(_) | Run::Engine(_) => None,
        }
    }

    fn on_saved(&self, toolbox: &Toolbox) -> ToolResult<Option<ToolOutput>> {
        T::on_saved(toolbox, &self.0)
    }

    fn engine(&self) -> Option<EngineCall> {
        match T::RUN {
            Run::Engine(call) => Some(call(&self.0)),
            _ => None,
        }
    }

    fn finish(&self) -> Option<crate::TaskDoneArgs> {
        T::finish(&self.0)
    }

    fn commits(&self, ws: &Workspace) -> Option<ToolResult<Vec<PathBuf>>> {
        T::commits(ws, &self.0)
    }
}

/// A call of a registry tool, its arguments read into the tool's type.
pub struct Resolved {
    pub spec: &'static ToolSpec,
    /// The arguments as the model sent them: for events, the log and the cache's key.
    pub input: Value,
    call: Box<dyn TypedCall>,
}

impl std::fmt::Debug for Resolved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resolved")
            .field("tool", &self.spec.name)
            .field("input", &self.input)
            .finish()
    }
}

/// Finds the registry's tool `name` and reads `input` into its arguments' type: the one place
/// a call is looked up by its name. An unknown name, or arguments that do not fit, is the
/// model's to fix.
pub fn resolve(name: &str, input: Value) -> ToolResult<Resolved> {
    let spec =
        find_tool(name).ok_or_else(|| ToolError::InvalidArgument(no_tool_named(name, &[])))?;
    let input = if input.is_null() {
        Value::Object(Default::default())
    } else {
        input
    };
    let call = spec.resolve_input(input.clone())?;
    Ok(Resolved { spec, input, call })
}

/// What the model hears for a name no tool has: the registry's tools and `others` (an active
/// skill's, a server's).
pub fn no_tool_named(name: &str, others: &[String]) -> String {
    let mut names: Vec<&str> = TOOLS.iter().map(|t| t.name).collect();
    names.extend(others.iter().map(String::as_str));
    format!(
        "There is no tool named `{name}`. The tools are: {}.",
        names.join(", ")
    )
}

impl Resolved {
    pub fn name(&self) -> &'static str {
        self.spec.name
    }

    /// The same tool with other arguments (a call put right before it is judged).
    pub fn with_input(&self, input: Value) -> ToolResult<Resolved> {
        let call = self.spec.resolve_input(input.clone())?;
        Ok(Resolved {
            spec: self.spec,
            input,
            call,
        })
    }

    /// What the policy engine is asked, in order; the strictest answer stands.
    pub fn policy<'a>(&'a self, worked: &Worked<'a>) -> Vec<policy::ToolCall<'a>> {
        self.call.policy(self.spec.name, worked)
    }

    /// The call in words for people.
    pub fn title(&self) -> Title {
        self.call.title(self.spec.words)
    }

    pub fn look(&self) -> protocol::CallLook {
        self.spec.call_look()
    }

    /// Why it cannot work whatever the person answers (a read outside the project, a command
    /// that is empty, a commit with nothing to commit).
    pub fn check(&self, toolbox: &Toolbox) -> ToolResult<()> {
        self.call.check(toolbox)
    }

    /// The change it would make, worked out without making it; `None` for a tool that makes
    /// no planned change.
    pub fn plan(&self, ws: &Workspace) -> Option<ToolResult<Planned>> {
        self.call.plan(ws)
    }

    /// For one of the engine's own tools: the call, typed.
    pub fn engine(&self) -> Option<EngineCall> {
        self.call.engine()
    }

    /// For a call that ends the task: what it says was done.
    pub fn finish(&self) -> Option<crate::TaskDoneArgs> {
        self.call.finish()
    }

    /// For a commit: the files it would record.
    pub fn commits(&self, ws: &Workspace) -> Option<ToolResult<Vec<PathBuf>>> {
        self.call.commits(ws)
    }

    /// The call of a project tool, run on `ws` alone.
    pub(crate) fn run_on(&self, ws: &Workspace) -> ToolResult<ToolOutput> {
        self.call
            .run_on(ws)
            .unwrap_or_else(|| Err(not_here(self.spec.name)))
    }

    /// The call of a tool that runs with the toolbox.
    pub(crate) async fn run_with(
        &self,
        toolbox: &Toolbox,
        ctx: &CallContext,
    ) -> ToolResult<ToolOutput> {
        match self.call.run_with(toolbox, ctx) {
            Some(running) => running.await,
            None => Err(not_here(self.spec.name)),
        }
    }

    pub(crate) fn on_saved(&self, toolbox: &Toolbox) -> ToolResult<Option<ToolOutput>> {
        self.call.on_saved(toolbox)
    }
}

fn not_here(name: &str) -> ToolError {
    ToolError::InvalidArgument(format!(
        "{name} is run by the agent engine, not the toolbox"
    ))
}
