//! agent_spawn: a named agent working in the background (the agent engine runs it).

use super::{EngineTool, Offered, PolicyView, Runner, ToolSpec, schema_of};
use crate::agents::AgentSpawnArgs;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "agent_spawn",
    "Start a named helper",
    "Start a named agent that works in the background (e.g. a reviewer); its report arrives when it stops, and you can message it with agent_send. task_list, task_poll and task_stop cover it.",
    schema_of::<AgentSpawnArgs>,
    PolicyView::Internal,
    Runner::Engine(EngineTool::AgentSpawn),
)
.offered(Offered::WhenMaySpawn);
