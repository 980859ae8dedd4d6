//! What a tool declares: [`ToolSpec`], its facts as data, and [`Tool`], what each stage of a
//! call asks of its typed arguments.

use super::resolved::{EngineCall, Typed, TypedCall, Worked};
use super::title::Title;
use super::{ToolOutput, parse};
use crate::error::ToolResult;
use crate::toolbox::{CallContext, Toolbox};
use crate::workspace::Workspace;
use crate::write_file::Planned;
use futures_util::future::BoxFuture;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::path::PathBuf;

/// A tool, declared in its file under `registry/`: its arguments' type, and what each stage of
/// a call asks of them. How the policy sees a call and its title are functions of the typed
/// arguments, so a tool whose path is called something else cannot be judged as a read of ".".
pub(crate) trait Tool: Sync + 'static {
    type Args: DeserializeOwned + Send + Sync + 'static;

    /// How it runs.
    const RUN: Run<Self::Args>;

    /// Whether the session's saved files (a command's output, a fetched page), named by their
    /// absolute paths, are read through it.
    const READS_SAVED: bool = false;

    /// The arguments as the model sent them, read once. Bad ones are the model's to fix.
    fn parse(name: &str, input: Value) -> ToolResult<Self::Args> {
        parse(name, input)
    }

    /// What the policy engine is asked about this call, in order; the strictest answer stands.
    fn policy<'a>(
        name: &'static str,
        args: &'a Self::Args,
        worked: &Worked<'a>,
    ) -> Vec<policy::ToolCall<'a>>;

    /// The call in words for people ("Edit src/main.rs"); the tool's words when there is
    /// nothing more to say.
    fn title(words: &'static str, args: &Self::Args) -> Title;

    /// Why the call cannot work whatever the person answers, found before anyone is asked.
    fn check(_toolbox: &Toolbox, _args: &Self::Args) -> ToolResult<()> {
        Ok(())
    }

    /// The change the call would make, worked out without making it (the diff a person
    /// approves); `None` for a tool that makes no planned change.
    fn plan(_ws: &Workspace, _args: &Self::Args) -> Option<ToolResult<Planned>> {
        None
    }

    /// The call on one of the session's saved files, read where it is; `None` for any other.
    fn on_saved(_toolbox: &Toolbox, _args: &Self::Args) -> ToolResult<Option<ToolOutput>> {
        Ok(None)
    }

    /// What a call that ends the task says it did (weighed by the engine before it ends).
    fn finish(_args: &Self::Args) -> Option<crate::TaskDoneArgs> {
        None
    }

    /// The files a commit would record, for the engine to judge each one.
    fn commits(_ws: &Workspace, _args: &Self::Args) -> Option<ToolResult<Vec<PathBuf>>> {
        None
    }
}

pub type ProjectRun<A> = fn(&Workspace, &A) -> ToolResult<ToolOutput>;
pub type ToolboxRun<A> = fn(&Toolbox, &A, &CallContext) -> ToolResult<ToolOutput>;
pub type WaitingRun<A> =
    for<'a> fn(&'a Toolbox, &'a A, &'a CallContext) -> BoxFuture<'a, ToolResult<ToolOutput>>;

/// How a tool runs, with its typed arguments.
pub(crate) enum Run<A: 'static> {
    /// On the project alone (file and git tools).
    Project(ProjectRun<A>),
    /// With the session's toolbox: its tasks and plan.
    Toolbox(ToolboxRun<A>),
    /// With the session's toolbox, waiting on a process or the network (and ending on Stop).
    Waits(WaitingRun<A>),
    /// By the agent engine, which is handed the call.
    Engine(fn(&A) -> EngineCall),
}

/// How a tool runs, as a fact about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runs {
    Project,
    Toolbox,
    Waits,
    Engine,
}

/// What the registry knows of a tool without a call: its type, erased.
pub(crate) trait ErasedTool: Sync {
    fn resolve(&self, name: &'static str, input: Value) -> ToolResult<Box<dyn TypedCall>>;
    fn runs(&self) -> Runs;
    fn reads_saved(&self) -> bool;
}

impl<T: Tool> ErasedTool for T {
    fn resolve(&self, name: &'static str, input: Value) -> ToolResult<Box<dyn TypedCall>> {
        Ok(Box::new(Typed::<T>::new(T::parse(name, input)?)))
    }

    fn runs(&self) -> Runs {
        match T::RUN {
            Run::Project(_) => Runs::Project,
            Run::Toolbox(_) => Runs::Toolbox,
            Run::Waits(_) => Runs::Waits,
            Run::Engine(_) => Runs::Engine,
        }
    }

    fn reads_saved(&self) -> bool {
        T::READS_SAVED
    }
}

/// Whether results are kept until anything may have changed the project.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caching {
    Never,
    /// Kept until the project's watch reports a change.
    Kept,
    /// Also dropped as soon as the file the call names changes (its size or time), before the
    /// folder's watch reports it.
    PerFile,
}

/// What a call of it is to the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Work.
    Works,
    /// Calling it again and again is waiting, not going round in circles.
    Polls,
    /// A successful call ends the task (its summary is weighed first).
    Finishes,
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

/// Who is offered a tool, and what it needs.
#[derive(Debug, Clone, Copy)]
pub struct Offer {
    pub when: Offered,
    pub small_model: SmallModel,
    pub needs: Needs,
}

/// How front ends show a tool's calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Look {
    /// A quiet line once it succeeded (a read, a listing), not a card.
    pub quiet: bool,
    pub output: protocol::OutputForm,
}

/// One tool, as declared in its file under `registry/`.
pub struct ToolSpec {
    pub name: &'static str,
    /// Its name in words for people ("Hand work to a helper" for `spawn_subagent`): what
    /// front ends show when the call has nothing more particular to say.
    pub words: &'static str,
    pub description: &'static str,
    /// Whether it only reads: read-only mode and `tandem-cli run`'s reads-only check trust it.
    pub read_only: bool,
    pub caching: Caching,
    pub step: Step,
    pub offer: Offer,
    pub look: Look,
    schema: fn() -> Value,
    tool: &'static dyn ErasedTool,
}

impl ToolSpec {
    /// A tool that changes something, offered always, to big models only, shown as a card.
    pub(crate) const fn new<T: Tool>(
        name: &'static str,
        words: &'static str,
        description: &'static str,
        schema: fn() -> Value,
        tool: &'static T,
    ) -> Self {
        ToolSpec {
            name,
            words,
            description,
            read_only: false,
            caching: Caching::Never,
            step: Step::Works,
            offer: Offer {
                when: Offered::Always,
                small_model: SmallModel::Left,
                needs: Needs::Nothing,
            },
            look: Look {
                quiet: false,
                output: protocol::OutputForm::Plain,
            },
            schema,
            tool,
        }
    }

    pub(crate) const fn reads(mut self) -> Self {
        self.read_only = true;
        self
    }

    pub(crate) const fn cached(mut self, caching: Caching) -> Self {
        self.caching = caching;
        self
    }

    pub(crate) const fn step(mut self, step: Step) -> Self {
        self.step = step;
        self
    }

    pub(crate) const fn offered(mut self, when: Offered) -> Self {
        self.offer.when = when;
        self
    }

    pub(crate) const fn small_model(mut self, form: SmallModel) -> Self {
        self.offer.small_model = form;
        self
    }

    pub(crate) const fn needs(mut self, needs: Needs) -> Self {
        self.offer.needs = needs;
        self
    }

    /// A quiet line once it succeeded, not a card.
    pub(crate) const fn quiet(mut self) -> Self {
        self.look.quiet = true;
        self
    }

    pub(crate) const fn shows(mut self, output: protocol::OutputForm) -> Self {
        self.look.output = output;
        self
    }

    pub fn schema(&self) -> Value {
        (self.schema)()
    }

    pub fn runs(&self) -> Runs {
        self.tool.runs()
    }

    /// Whether the session's saved files are readable through it.
    pub fn reads_saved_files(&self) -> bool {
        self.tool.reads_saved()
    }

    /// How front ends show its calls.
    pub fn call_look(&self) -> protocol::CallLook {
        protocol::CallLook {
            quiet: self.look.quiet,
            output: self.look.output,
            ends_task: self.step == Step::Finishes,
        }
    }

    /// The description's first sentence: a line for a list of tools.
    pub fn summary(&self) -> &'static str {
        let d = self.description;
        // A sentence ends at ". " before a capital letter (not inside "e.g. (…").
        d.match_indices(". ")
            .find(|(i, _)| d[i + 2..].starts_with(|c: char| c.is_uppercase()))
            .map_or(d, |(i, _)| &d[..=i])
    }

    /// The one form a small model is offered of it, as its description and schema; `None`
    /// for a tool offered as it is.
    pub fn small_model_form(&self) -> Option<(&'static str, Value)> {
        match self.offer.small_model {
            SmallModel::Form(description, schema) => Some((description, schema())),
            SmallModel::Left | SmallModel::AsIs => None,
        }
    }

    pub(crate) fn resolve_input(&self, input: Value) -> ToolResult<Box<dyn TypedCall>> {
        self.tool.resolve(self.name, input)
    }
}
