//! task_done: the task finished, with a summary for the user.

use super::title::{Title, first_line, given, plain};
use super::{Run, SmallModel, Step, Tool, ToolOutput, ToolSpec, Worked, schema_of, to_value};
use crate::error::ToolResult;
use crate::plan::{TaskDoneArgs, task_done};
use crate::toolbox::{CallContext, Toolbox};
use policy::ToolCall;

pub(crate) struct TaskDone;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "task_done",
    "Finish",
    "Finish the task with a summary for the user. The only way to end your work.",
    schema_of::<TaskDoneArgs>,
    &TaskDone,
)
.reads()
.step(Step::Finishes)
.small_model(SmallModel::AsIs);

impl Tool for TaskDone {
    type Args = TaskDoneArgs;
    const RUN: Run<TaskDoneArgs> = Run::Toolbox(run);

    fn policy<'a>(name: &'static str, _: &'a TaskDoneArgs, _: &Worked<'a>) -> Vec<ToolCall<'a>> {
        vec![ToolCall::Internal { name }]
    }

    fn title(words: &'static str, a: &TaskDoneArgs) -> Title {
        plain(given(&a.summary).map_or(words.to_string(), |s| {
            format!("Finish: {}", first_line(s, 80))
        }))
    }

    fn finish(a: &TaskDoneArgs) -> Option<TaskDoneArgs> {
        Some(a.clone())
    }
}

fn run(_: &Toolbox, a: &TaskDoneArgs, _: &CallContext) -> ToolResult<ToolOutput> {
    let d = task_done(a)?;
    Ok(ToolOutput::new(
        format!("Task complete: {}\n", d.summary),
        to_value(&d),
    ))
}
