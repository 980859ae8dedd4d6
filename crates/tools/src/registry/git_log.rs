//! git_log: recent commits, newest first.

use super::{PolicyView, Runner, ToolOutput, ToolSpec, parse, schema_of};
use crate::error::ToolResult;
use crate::git_tools::{GitLogArgs, git_log};
use crate::workspace::Workspace;
use serde_json::Value;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "git_log",
    "See the history (git log)",
    "Recent commits, newest first (`count` default 10, `oneline` default true).",
    schema_of::<GitLogArgs>,
    PolicyView::Internal,
    Runner::Project(run),
)
.reads()
.cached();

fn run(ws: &Workspace, args: Value) -> ToolResult<ToolOutput> {
    let a: GitLogArgs = parse(TOOL.name, args)?;
    let l = git_log(ws.root(), &a)?;
    Ok(ToolOutput::new(l.clone(), Value::String(l)))
}
