//! The arguments of the tools that start and talk to sub-agents. The engine (`agent`) runs
//! them; this crate only describes them, so the registry stays the one list of tools.

use schemars::JsonSchema;
use serde::Deserialize;

/// Which model a sub-agent uses: the settings map each role to a provider and model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ModelRole {
    Fast,
    Coder,
    Architect,
    Default,
}

impl ModelRole {
    pub fn name(self) -> &'static str {
        match self {
            ModelRole::Fast => "fast",
            ModelRole::Coder => "coder",
            ModelRole::Architect => "architect",
            ModelRole::Default => "default",
        }
    }
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpawnSubagentArgs {
    /// A few words for the user, e.g. "Fix the failing parser test".
    pub title: String,
    /// The whole task: the sub-agent starts with nothing else (a fresh context).
    pub description: String,
    /// Which model it uses (default: the session's own).
    #[serde(default)]
    pub model_role: Option<ModelRole>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentSpawnArgs {
    /// Its name, to send it messages (`reviewer`); a taken name gets a number (`reviewer-2`).
    pub name: String,
    /// What it is for, in a few words.
    pub desc: String,
    /// Its instructions: who it is and how it works.
    pub prompt: String,
    /// A first task to start on; without one it waits for a message.
    #[serde(default)]
    pub task: Option<String>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentSendArgs {
    /// The named agent.
    pub to: String,
    /// The message; an idle agent starts working on it, a busy one reads it next.
    pub content: String,
}
