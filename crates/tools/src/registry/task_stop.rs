//! task_stop: a background task's whole process group stopped.

use super::title::{Title, given, plain};
use super::{Run, Tool, ToolOutput, ToolSpec, Worked, schema_of, to_value};
use crate::error::{ToolError, ToolResult};
use crate::toolbox::{CallContext, TaskIdArgs, Toolbox};
use policy::ToolCall;

pub(crate) struct TaskStop;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "task_stop",
    "Stop a background task",
    "Stop a background task (its whole process group). Stopping a finished task is fine.",
    schema_of::<TaskIdArgs>,
    &TaskStop,
);

impl Tool for TaskStop {
    type Args = TaskIdArgs;
    const RUN: Run<TaskIdArgs> = Run::Toolbox(run);

    fn policy<'a>(name: &'static str, _: &'a TaskIdArgs, _: &Worked<'a>) -> Vec<ToolCall<'a>> {
        vec![ToolCall::Internal { name }]
    }

    fn title(words: &'static str, a: &TaskIdArgs) -> Title {
        plain(given(&a.id).map_or(words.to_string(), |id| {
            format!("Stop background task {id}")
        }))
    }
}

fn run(toolbox: &Toolbox, a: &TaskIdArgs, _: &CallContext) -> ToolResult<ToolOutput> {
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
