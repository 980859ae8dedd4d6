//! update_plan: the agent's task list, replaced whole, shown live.

use super::{Details, PolicyView, Runner, ToolOutput, ToolSpec, parse, schema_of, to_value};
use crate::error::ToolResult;
use crate::plan::{UpdatePlanArgs, render_plan, update_plan};
use crate::toolbox::{CallContext, Toolbox};
use protocol::{PlanStatus, ToolSummary};
use serde_json::Value;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "update_plan",
    "Update the plan",
    "Replace your task list: every item with its status (pending, in_progress, done). The user sees it live.",
    schema_of::<UpdatePlanArgs>,
    PolicyView::Internal,
    Runner::Toolbox(run),
)
.reads();

fn run(_: &Toolbox, args: Value, _: &CallContext) -> ToolResult<ToolOutput> {
    let a: UpdatePlanArgs = parse(TOOL.name, args)?;
    let items = update_plan(&a)?;
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
