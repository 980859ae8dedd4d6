//! An agent's calls of tools: the pipeline every call goes through (`calls`) and what it is
//! made of — the rules it is judged by, the questions put to the person, commands and tools
//! from outside the registry, the loop breaker and the record a task_done is weighed against —
//! and `desk`, the same pipeline for one call made at the terminal.

pub(crate) mod approvals;
pub(crate) mod ask;
pub(crate) mod availability;
pub(crate) mod calls;
pub(crate) mod claims;
pub(crate) mod command;
pub(crate) mod desk;
pub(crate) mod external;
pub(crate) mod fetch_gate;
pub(crate) mod judge;
pub(crate) mod loop_breaker;
pub(crate) mod prepare;
pub(crate) mod reply;
pub(crate) mod round;
pub(crate) mod rules;
pub(crate) mod skills;
