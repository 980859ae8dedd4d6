//! task_list: the background tasks and their states.

use super::{PolicyView, Runner, ToolOutput, ToolSpec, parse, schema_of, to_value};
use crate::error::ToolResult;
use crate::tasks::TaskRegistry;
use crate::toolbox::{CallContext, TaskListArgs, Toolbox};
use serde_json::Value;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "task_list",
    "List background tasks",
    "Background tasks: id, kind, title, state, runtime.",
    schema_of::<TaskListArgs>,
    PolicyView::Internal,
    Runner::Toolbox(run),
)
.reads()
.polls();

fn run(toolbox: &Toolbox, args: Value, _: &CallContext) -> ToolResult<ToolOutput> {
    let a: TaskListArgs = parse(TOOL.name, args)?;
    let list = toolbox.tasks.list(a.include_finished);
    Ok(ToolOutput::new(
        TaskRegistry::render_list(&list),
        to_value(&list),
    ))
}
