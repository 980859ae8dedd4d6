//! agent_send: a message to a named agent (the agent engine delivers it).

use super::title::{Title, plain};
use super::{EngineCall, Run, Tool, ToolSpec, Worked, schema_of};
use crate::agents::AgentSendArgs;
use policy::ToolCall;

pub(crate) struct AgentSend;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "agent_send",
    "Send a helper a message",
    "Send a message to a named agent; an idle one starts working on it.",
    schema_of::<AgentSendArgs>,
    &AgentSend,
);

impl Tool for AgentSend {
    type Args = AgentSendArgs;
    const RUN: Run<AgentSendArgs> = Run::Engine(|a| EngineCall::AgentSend(a.clone()));

    /// A message changes nothing by itself: each call the agent then makes is judged.
    fn policy<'a>(name: &'static str, _: &'a AgentSendArgs, _: &Worked<'a>) -> Vec<ToolCall<'a>> {
        vec![ToolCall::Internal { name }]
    }

    fn title(words: &'static str, _: &AgentSendArgs) -> Title {
        plain(words)
    }
}
