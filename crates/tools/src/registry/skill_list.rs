//! skill_list: the skills there are (the agent engine lists them).

use super::title::{Title, plain};
use super::{EngineCall, NoArgs, Offered, Run, Tool, ToolSpec, Worked, no_args_schema};
use policy::ToolCall;

pub(crate) struct SkillList;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "skill_list",
    "List the skills",
    "The skills you can activate: each one's name, what it is for and its tools.",
    no_args_schema,
    &SkillList,
)
.reads()
.offered(Offered::WithSkills);

impl Tool for SkillList {
    type Args = NoArgs;
    const RUN: Run<NoArgs> = Run::Engine(|_| EngineCall::SkillList);

    // Whatever it is given: the list is the list.
    fn parse(_: &str, _: serde_json::Value) -> crate::error::ToolResult<NoArgs> {
        Ok(NoArgs)
    }

    fn policy<'a>(name: &'static str, _: &'a NoArgs, _: &Worked<'a>) -> Vec<ToolCall<'a>> {
        vec![ToolCall::Internal { name }]
    }

    fn title(words: &'static str, _: &NoArgs) -> Title {
        plain(words)
    }
}
