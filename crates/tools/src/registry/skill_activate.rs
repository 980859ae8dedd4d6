//! skill_activate: a skill's tools and instructions joined to the agent's (the agent engine does it).

use super::title::{Title, given, plain};
use super::{EngineCall, Offered, Run, Tool, ToolSpec, Worked, schema_of};
use crate::error::{ToolError, ToolResult};
use crate::skills::SkillActivateArgs;
use policy::ToolCall;

pub(crate) struct SkillActivate;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "skill_activate",
    "Activate a skill",
    "Activate a skill by name: its tools join yours and its instructions apply until the task ends.",
    schema_of::<SkillActivateArgs>,
    &SkillActivate,
)
.reads()
.offered(Offered::WithSkills);

impl Tool for SkillActivate {
    type Args = SkillActivateArgs;
    const RUN: Run<SkillActivateArgs> = Run::Engine(|a| EngineCall::SkillActivate(a.clone()));

    fn parse(_: &str, input: serde_json::Value) -> ToolResult<SkillActivateArgs> {
        serde_json::from_value(input).map_err(|e| {
            ToolError::InvalidArgument(format!(
                "the arguments for skill_activate are not valid ({e}); give the skill's name"
            ))
        })
    }

    /// Activating a skill does nothing by itself: each call of its tools is judged.
    fn policy<'a>(name: &'static str, _: &'a SkillActivateArgs, _: &Worked<'a>) -> Vec<ToolCall<'a>> {
        vec![ToolCall::Internal { name }]
    }

    fn title(words: &'static str, a: &SkillActivateArgs) -> Title {
        plain(given(&a.name).map_or(words.to_string(), |n| {
            format!("Activate the skill {n}")
        }))
    }
}
