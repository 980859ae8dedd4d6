//! agent_spawn: a named agent working in the background (the agent engine runs it).

use super::title::{Title, plain};
use super::{EngineCall, Offered, Run, Tool, ToolSpec, Worked, schema_of};
use crate::agents::AgentSpawnArgs;
use policy::ToolCall;

pub(crate) struct AgentSpawn;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "agent_spawn",
    "Start a named helper",
    "Start a named agent that works in the background (e.g. a reviewer); its report arrives when it stops, and you can message it with agent_send. task_list, task_poll and task_stop cover it.",
    schema_of::<AgentSpawnArgs>,
    &AgentSpawn,
)
.offered(Offered::WhenMaySpawn);

impl Tool for AgentSpawn {
    type Args = AgentSpawnArgs;
    const RUN: Run<AgentSpawnArgs> = Run::Engine(|a| EngineCall::AgentSpawn(a.clone()));

    /// Starting an agent does nothing by itself: each call it then makes is judged.
    fn policy<'a>(name: &'static str, _: &'a AgentSpawnArgs, _: &Worked<'a>) -> Vec<ToolCall<'a>> {
        vec![ToolCall::Internal { name }]
    }

    fn title(words: &'static str, _: &AgentSpawnArgs) -> Title {
        plain(words)
    }
}
