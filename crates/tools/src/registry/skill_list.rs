//! skill_list: the skills there are (the agent engine lists them).

use super::{EngineTool, Offered, PolicyView, Runner, ToolSpec, no_args_schema};

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "skill_list",
    "List the skills",
    "The skills you can activate: each one's name, what it is for and its tools.",
    no_args_schema,
    PolicyView::Internal,
    Runner::Engine(EngineTool::SkillList),
)
.reads()
.offered(Offered::WithSkills);
