//! task_done: the task finished, with a summary for the user.

use super::{PolicyView, Runner, SmallModel, ToolOutput, ToolSpec, parse, schema_of, to_value};
use crate::error::ToolResult;
use crate::plan::{TaskDoneArgs, task_done};
use crate::toolbox::{CallContext, Toolbox};
use serde_json::Value;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "task_done",
    "Finish",
    "Finish the task with a summary for the user. The only way to end your work.",
    schema_of::<TaskDoneArgs>,
    PolicyView::Internal,
    Runner::Toolbox(run),
)
.reads()
.finishes_task()
.small_model(SmallModel::AsIs);

fn run(_: &Toolbox, args: Value, _: &CallContext) -> ToolResult<ToolOutput> {
    let a: TaskDoneArgs = parse(TOOL.name, args)?;
    let d = task_done(&a)?;
    Ok(ToolOutput::new(
        format!("Task complete: {}\n", d.summary),
        to_value(&d),
    ))
}
