//! spawn_subagent: a sub-agent the caller waits for (the agent engine runs it).

use super::title::{Title, first_line, given, plain};
use super::{EngineCall, Offered, Run, Tool, ToolSpec, Worked, schema_of};
use crate::agents::SpawnSubagentArgs;
use policy::ToolCall;

pub(crate) struct SpawnSubagent;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "spawn_subagent",
    "Hand work to a helper",
    "Hand a well-defined part of the task to a sub-agent with a fresh context (and the model of `model_role`); you wait for it and get its summary, the files it changed and its token use. It works under the same rules and approvals as you.",
    schema_of::<SpawnSubagentArgs>,
    &SpawnSubagent,
)
.offered(Offered::WhenMaySpawn);

impl Tool for SpawnSubagent {
    type Args = SpawnSubagentArgs;
    const RUN: Run<SpawnSubagentArgs> = Run::Engine(|a| EngineCall::SpawnSubagent(a.clone()));

    /// Starting an agent does nothing by itself: each call it then makes is judged.
    fn policy<'a>(name: &'static str, _: &'a SpawnSubagentArgs, _: &Worked<'a>) -> Vec<ToolCall<'a>> {
        vec![ToolCall::Internal { name }]
    }

    fn title(words: &'static str, a: &SpawnSubagentArgs) -> Title {
        plain(given(&a.title).map_or(words.to_string(), |t| {
            format!("Hand work to a helper: {}", first_line(t, 80))
        }))
    }
}
