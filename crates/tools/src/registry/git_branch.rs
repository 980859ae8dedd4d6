//! git_branch: list, create or switch branches.

use super::{PolicyView, Runner, ToolOutput, ToolSpec, parse, schema_of};
use crate::error::ToolResult;
use crate::git_tools::{GitBranchArgs, check_branch, git_branch};
use crate::workspace::Workspace;
use serde_json::Value;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "git_branch",
    "Branches",
    "`list` branches, `create` one at HEAD, or `switch` to one (refused with uncommitted changes).",
    schema_of::<GitBranchArgs>,
    PolicyView::GitBranch,
    Runner::Project(run),
)
.checked(check);

fn run(ws: &Workspace, args: Value) -> ToolResult<ToolOutput> {
    let a: GitBranchArgs = parse(TOOL.name, args)?;
    let t = git_branch(ws.root(), &a)?;
    Ok(ToolOutput::new(t.clone(), Value::String(t)))
}

fn check(ws: &Workspace, args: Value) -> ToolResult<()> {
    check_branch(ws.root(), &parse(TOOL.name, args)?)
}
