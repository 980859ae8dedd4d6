//! task_stop: a background task's whole process group stopped.

use super::{PolicyView, Runner, ToolOutput, ToolSpec, parse, schema_of, to_value};
use crate::error::{ToolError, ToolResult};
use crate::toolbox::{CallContext, TaskIdArgs, Toolbox};
use serde_json::Value;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "task_stop",
    "Stop a background task",
    "Stop a background task (its whole process group). Stopping a finished task is fine.",
    schema_of::<TaskIdArgs>,
    PolicyView::Internal,
    Runner::Toolbox(run),
);

fn run(toolbox: &Toolbox, args: Value, _: &CallContext) -> ToolResult<ToolOutput> {
    let a: TaskIdArgs = parse(TOOL.name, args)?;
    let info = toolbox
        .tasks
        .stop(&a.id)
        .map_err(ToolError::InvalidArgument)?;
    toolbox.cache.clear();
    Ok(ToolOutput::new(
        format!("Stopping {} ({}).\n", info.id, info.title),
        to_value(&info),
    ))
}
