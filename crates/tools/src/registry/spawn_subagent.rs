//! spawn_subagent: a sub-agent the caller waits for (the agent engine runs it).

use super::{EngineTool, Offered, PolicyView, Runner, ToolSpec, schema_of};
use crate::agents::SpawnSubagentArgs;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "spawn_subagent",
    "Hand work to a helper",
    "Hand a well-defined part of the task to a sub-agent with a fresh context (and the model of `model_role`); you wait for it and get its summary, the files it changed and its token use. It works under the same rules and approvals as you.",
    schema_of::<SpawnSubagentArgs>,
    PolicyView::Internal,
    Runner::Engine(EngineTool::SpawnSubagent),
)
.offered(Offered::WhenMaySpawn);
