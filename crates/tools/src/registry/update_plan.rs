//! update_plan: the agent's task list, replaced whole, shown live.

use super::title::{Title, plain};
use super::{Details, Run, Tool, ToolOutput, ToolSpec, Worked, schema_of, to_value};
use crate::error::ToolResult;
use crate::plan::{UpdatePlanArgs, render_plan, update_plan};
use crate::toolbox::{CallContext, Toolbox};
use policy::ToolCall;
use protocol::{PlanStatus, ToolSummary};

pub(crate) struct UpdatePlan;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "update_plan",
    "Update the plan",
    "Replace your task list: every item with its status (pending, in_progress, done). The user sees it live.",
    schema_of::<UpdatePlanArgs>,
    &UpdatePlan,
)
.reads();

impl Tool for UpdatePlan {
    type Args = UpdatePlanArgs;
    const RUN: Run<UpdatePlanArgs> = Run::Toolbox(run);

    fn policy<'a>(name: &'static str, _: &'a UpdatePlanArgs, _: &Worked<'a>) -> Vec<ToolCall<'a>> {
        vec![ToolCall::Internal { name }]
    }

    fn title(words: &'static str, _: &UpdatePlanArgs) -> Title {
        plain(words)
    }
}

fn run(_: &Toolbox, a: &UpdatePlanArgs, _: &CallContext) -> ToolResult<ToolOutput> {
    let items = update_plan(a)?;
    let summary = ToolSummary::PlanUpdated {
        steps: items.len() as u32,
        done: items
            .iter()
            .filter(|i| i.status == PlanStatus::Done)
            .count() as u32,
    };
    Ok(ToolOutput::new(render_plan(&items), to_value(&items))
        .summed(Some(summary))
        .with(Details::Plan(items)))
}
