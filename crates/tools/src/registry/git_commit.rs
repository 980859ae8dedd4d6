//! git_commit: every change, or only some files, staged and committed.

use super::{PolicyView, Runner, ToolOutput, ToolSpec, parse, schema_of, to_value};
use crate::error::ToolResult;
use crate::git_tools::{GitCommitArgs, check_commit, git_commit, render_commit};
use crate::workspace::Workspace;
use serde_json::Value;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "git_commit",
    "Commit",
    "Stage and commit: every change by default, or only `files`. Returns the hash and a summary.",
    schema_of::<GitCommitArgs>,
    PolicyView::GitCommit,
    Runner::Project(run),
)
.checked(check);

fn run(ws: &Workspace, args: Value) -> ToolResult<ToolOutput> {
    let a: GitCommitArgs = parse(TOOL.name, args)?;
    let c = git_commit(ws.root(), &a)?;
    Ok(ToolOutput::new(render_commit(&c, &a.message), to_value(&c)))
}

fn check(ws: &Workspace, args: Value) -> ToolResult<()> {
    check_commit(ws.root(), &parse(TOOL.name, args)?)
}
