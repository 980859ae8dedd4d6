//! skill_activate: a skill's tools and instructions joined to the agent's (the agent engine does it).

use super::{EngineTool, Offered, PolicyView, Runner, ToolSpec, schema_of};
use crate::skills::SkillActivateArgs;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "skill_activate",
    "Activate a skill",
    "Activate a skill by name: its tools join yours and its instructions apply until the task ends.",
    schema_of::<SkillActivateArgs>,
    PolicyView::Internal,
    Runner::Engine(EngineTool::SkillActivate),
)
.reads()
.offered(Offered::WithSkills);
