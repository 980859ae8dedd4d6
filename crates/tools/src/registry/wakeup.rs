//! wakeup: the agent woken after a delay, or sooner when a task finishes.

use super::title::{Title, plain};
use super::{Run, Step, Tool, ToolOutput, ToolSpec, Worked, schema_of};
use crate::error::ToolResult;
use crate::toolbox::{CallContext, Toolbox, WakeupArgs};
use policy::ToolCall;
use std::time::Duration;

pub(crate) struct Wakeup;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "wakeup",
    "Wait",
    "Be woken after `delay_ms` if nothing else wakes you first; a finished task wakes you sooner, and the hint still arrives.",
    schema_of::<WakeupArgs>,
    &Wakeup,
)
.reads()
.step(Step::Polls);

impl Tool for Wakeup {
    type Args = WakeupArgs;
    const RUN: Run<WakeupArgs> = Run::Toolbox(run);

    fn policy<'a>(name: &'static str, _: &'a WakeupArgs, _: &Worked<'a>) -> Vec<ToolCall<'a>> {
        vec![ToolCall::Internal { name }]
    }

    fn title(_: &'static str, a: &WakeupArgs) -> Title {
        let ms = a.delay_ms;
        plain(if ms >= 1000 {
            format!("Wait {} s", ms.saturating_add(500) / 1000)
        } else {
            format!("Wait {ms} ms")
        })
    }
}

fn run(toolbox: &Toolbox, a: &WakeupArgs, _: &CallContext) -> ToolResult<ToolOutput> {
    toolbox
        .tasks
        .wakeup(Duration::from_millis(a.delay_ms), a.hint.clone());
    Ok(ToolOutput::new(
        format!(
            "You will be woken in {} ms, or sooner if a task finishes.\n",
            a.delay_ms
        ),
        serde_json::json!({"delay_ms": a.delay_ms, "hint": a.hint}),
    ))
}
