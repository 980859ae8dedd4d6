//! task_poll: a background task's new output and its state.

use super::title::{Title, given, plain};
use super::{Run, Step, Tool, ToolOutput, ToolSpec, Worked, schema_of};
use crate::error::{ToolError, ToolResult};
use crate::tasks::TaskRegistry;
use crate::toolbox::{CallContext, TaskIdArgs, Toolbox};
use policy::ToolCall;
use protocol::OutputForm;

pub(crate) struct TaskPoll;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "task_poll",
    "Check a background task",
    "A background task's output since the last poll, and its state.",
    schema_of::<TaskIdArgs>,
    &TaskPoll,
)
.reads()
.step(Step::Polls)
.shows(OutputForm::Terminal);

impl Tool for TaskPoll {
    type Args = TaskIdArgs;
    const RUN: Run<TaskIdArgs> = Run::Toolbox(run);

    fn policy<'a>(name: &'static str, _: &'a TaskIdArgs, _: &Worked<'a>) -> Vec<ToolCall<'a>> {
        vec![ToolCall::Internal { name }]
    }

    fn title(words: &'static str, a: &TaskIdArgs) -> Title {
        plain(given(&a.id).map_or(words.to_string(), |id| {
            format!("Check background task {id}")
        }))
    }
}

fn run(toolbox: &Toolbox, a: &TaskIdArgs, _: &CallContext) -> ToolResult<ToolOutput> {
    let (mut info, output, more) = toolbox
        .tasks
        .poll(&a.id)
        .map_err(ToolError::InvalidArgument)?;
    if info.state.is_running()
        && let Some(view) = toolbox.tasks.layer_view(&info.id)
    {
        info.changes_so_far = view.waiting();
    }
    let mut text = format!(
        "{} is {}{}.\n",
        info.id,
        TaskRegistry::describe_state(&info.state),
        TaskRegistry::waiting_words(&info)
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
