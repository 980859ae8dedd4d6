//! agent_send: a message to a named agent (the agent engine delivers it).

use super::{EngineTool, PolicyView, Runner, ToolSpec, schema_of};
use crate::agents::AgentSendArgs;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "agent_send",
    "Send a helper a message",
    "Send a message to a named agent; an idle one starts working on it.",
    schema_of::<AgentSendArgs>,
    PolicyView::Internal,
    Runner::Engine(EngineTool::AgentSend),
);
