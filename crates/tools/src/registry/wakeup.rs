//! wakeup: the agent woken after a delay, or sooner when a task finishes.

use super::{PolicyView, Runner, ToolOutput, ToolSpec, parse, schema_of};
use crate::error::ToolResult;
use crate::toolbox::{CallContext, Toolbox, WakeupArgs};
use serde_json::Value;
use std::time::Duration;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "wakeup",
    "Wait",
    "Be woken after `delay_ms` if nothing else wakes you first; a finished task wakes you sooner, and the hint still arrives.",
    schema_of::<WakeupArgs>,
    PolicyView::Internal,
    Runner::Toolbox(run),
)
.reads()
.polls();

fn run(toolbox: &Toolbox, args: Value, _: &CallContext) -> ToolResult<ToolOutput> {
    let a: WakeupArgs = parse(TOOL.name, args)?;
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
