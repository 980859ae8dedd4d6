//! task_list: the background tasks and their states.

use super::title::{Title, plain};
use super::{Run, Step, Tool, ToolOutput, ToolSpec, Worked, schema_of, to_value};
use crate::error::ToolResult;
use crate::tasks::TaskRegistry;
use crate::toolbox::{CallContext, TaskListArgs, Toolbox};
use policy::ToolCall;

pub(crate) struct TaskList;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "task_list",
    "List background tasks",
    "Background tasks: id, kind, title, state, runtime.",
    schema_of::<TaskListArgs>,
    &TaskList,
)
.reads()
.step(Step::Polls)
.quiet();

impl Tool for TaskList {
    type Args = TaskListArgs;
    const RUN: Run<TaskListArgs> = Run::Toolbox(run);

    fn policy<'a>(name: &'static str, _: &'a TaskListArgs, _: &Worked<'a>) -> Vec<ToolCall<'a>> {
        vec![ToolCall::Internal { name }]
    }

    fn title(words: &'static str, _: &TaskListArgs) -> Title {
        plain(words)
    }
}

fn run(toolbox: &Toolbox, a: &TaskListArgs, _: &CallContext) -> ToolResult<ToolOutput> {
    let list = toolbox.tasks.list(a.include_finished);
    Ok(ToolOutput::new(
        TaskRegistry::render_list(&list),
        to_value(&list),
    ))
}
