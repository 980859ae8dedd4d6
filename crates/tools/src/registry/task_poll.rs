//! task_poll: a background task's new output and its state.

use super::{PolicyView, Runner, ToolOutput, ToolSpec, parse, schema_of};
use crate::error::{ToolError, ToolResult};
use crate::tasks::TaskRegistry;
use crate::toolbox::{CallContext, TaskIdArgs, Toolbox};
use serde_json::Value;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "task_poll",
    "Check a background task",
    "A background task's output since the last poll, and its state.",
    schema_of::<TaskIdArgs>,
    PolicyView::Internal,
    Runner::Toolbox(run),
)
.reads()
.polls();

fn run(toolbox: &Toolbox, args: Value, _: &CallContext) -> ToolResult<ToolOutput> {
    let a: TaskIdArgs = parse(TOOL.name, args)?;
    let (info, output, more) = toolbox
        .tasks
        .poll(&a.id)
        .map_err(ToolError::InvalidArgument)?;
    let mut text = format!(
        "{} is {}.\n",
        info.id,
        TaskRegistry::describe_state(&info.state)
    );
    if output.is_empty() {
        text.push_str("(no new output)\n");
    } else {
        text.push_str(&output);
        if !output.ends_with('\n') {
            text.push('\n');
        }
    }
    if more {
        text.push_str("(more output is waiting: poll again)\n");
    }
    Ok(ToolOutput::new(
        text,
        serde_json::json!({"task": info, "output": output, "more": more}),
    ))
}
