//! The parts of an agent's turn besides its calls: the conversation (its messages, the system
//! prompt, compaction), the model it talks to (its provider, what its replies cost, a reply
//! streamed), and the sub-agents it starts.

pub(crate) mod compaction;
pub(crate) mod conversation;
pub(crate) mod model;
pub(crate) mod prompt;
pub(crate) mod reply_cap;
pub(crate) mod subagents;
