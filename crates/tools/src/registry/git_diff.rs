//! git_diff: unstaged (or staged) changes as a unified diff.

use super::{PolicyView, Runner, ToolOutput, ToolSpec, parse, schema_of};
use crate::error::ToolResult;
use crate::git_tools::{GitDiffArgs, git_diff};
use crate::workspace::Workspace;
use serde_json::Value;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "git_diff",
    "See the changes (git diff)",
    "The unstaged changes to tracked files as a unified diff, or the staged ones with `staged: true`.",
    schema_of::<GitDiffArgs>,
    PolicyView::Internal,
    Runner::Project(run),
)
.reads()
.cached();

fn run(ws: &Workspace, args: Value) -> ToolResult<ToolOutput> {
    let a: GitDiffArgs = parse(TOOL.name, args)?;
    let d = git_diff(ws.root(), &a)?;
    Ok(ToolOutput::new(d.clone(), Value::String(d)))
}
