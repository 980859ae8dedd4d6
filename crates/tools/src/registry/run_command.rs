//! run_command: a shell command in the project root, in the sandbox the engine chose.

use super::title::{Title, first_line, given, plain};
use super::{Details, Run, SmallModel, Tool, ToolOutput, ToolSpec, Worked, schema_of, to_value};
use crate::error::ToolResult;
use crate::run_command::{
    CommandOutcome, RunCommandArgs, RunContext, check_command, render_outcome, run_command,
};
use crate::toolbox::{CallContext, Toolbox};
use futures_util::future::BoxFuture;
use policy::ToolCall;
use protocol::{OutputForm, TitlePart, ToolSummary};

pub(crate) struct RunCommand;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "run_command",
    "Run a command",
    "Run a shell command (bash) in the project root. Output is cut to its head and tail, the full output saved to a file. Commands still running after 10 s, or started with `background: true`, become background tasks.",
    schema_of::<RunCommandArgs>,
    &RunCommand,
)
.small_model(SmallModel::AsIs)
.shows(OutputForm::Terminal);

impl Tool for RunCommand {
    type Args = RunCommandArgs;
    const RUN: Run<RunCommandArgs> = Run::Waits(run);

    fn policy<'a>(_: &'static str, a: &'a RunCommandArgs, _: &Worked<'a>) -> Vec<ToolCall<'a>> {
        vec![ToolCall::Command {
            command: &a.command,
        }]
    }

    fn title(words: &'static str, a: &RunCommandArgs) -> Title {
        let Some(command) = given(&a.command) else {
            return plain(words);
        };
        let mut title = vec![
            TitlePart::words("Run "),
            TitlePart::code(first_line(command, 80)),
        ];
        if a.background {
            title.push(TitlePart::words(" in the background"));
        }
        title
    }

    fn check(_: &Toolbox, a: &RunCommandArgs) -> ToolResult<()> {
        check_command(a)
    }
}

fn run<'a>(
    toolbox: &'a Toolbox,
    a: &'a RunCommandArgs,
    ctx: &'a CallContext,
) -> BoxFuture<'a, ToolResult<ToolOutput>> {
    Box::pin(async move {
        let confinement = ctx
            .confinement
            .unwrap_or_else(|| toolbox.commands.default_confinement(false));
        // A command may change anything: what was cached is stale before and after.
        toolbox.cache.clear();
        let outcome = run_command(
            &toolbox.ws,
            &toolbox.tasks,
            &toolbox.commands,
            a,
            &RunContext {
                confinement,
                owner: ctx.owner.clone(),
                cancel: ctx.cancel.clone(),
                binds: Vec::new(),
                readable: ctx.readable.clone(),
                on_started: ctx.on_started.clone(),
                landing: ctx.landing.unwrap_or(crate::Landing::UNREVIEWED),
                on_landed: ctx.on_landed.clone(),
            },
        )
        .await;
        toolbox.cache.clear();
        Ok(command_output(outcome?))
    })
}

/// A command's (or a skill tool's program's) result: the text, the outcome, and for people
/// how it ended or the task it became.
pub(crate) fn command_output(outcome: CommandOutcome) -> ToolOutput {
    ToolOutput::new(render_outcome(&outcome), to_value(&outcome))
        .summed(Some(summary(&outcome)))
        .with(Details::Command(outcome))
}

fn summary(outcome: &CommandOutcome) -> ToolSummary {
    match outcome {
        CommandOutcome::Finished {
            exit_code,
            timed_out,
            duration_ms,
            output,
            total_lines,
            bytes_total,
            bytes_kept,
            changes,
            ..
        } => ToolSummary::CommandRan {
            exit_code: *exit_code,
            timed_out: *timed_out,
            duration_ms: *duration_ms,
            // Its start and end stand for the whole when it printed more than is shown, or
            // more than the saved output keeps.
            cut: bytes_total > bytes_kept || output.lines().count() != *total_lines,
            output: output.clone(),
            // Only when there is something to show: a command that changed nothing has no list.
            changes: changes
                .clone()
                .filter(|c| !c.files.is_empty() || !c.ignored.is_empty())
                .map(Box::new),
        },
        CommandOutcome::Background { task_id, .. } => ToolSummary::CommandInBackground {
            task: task_id.clone(),
        },
    }
}
