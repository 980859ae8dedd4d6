//! git_status: the working tree's status, like `git status --short`.

use super::{PolicyView, Runner, ToolOutput, ToolSpec, no_args_schema};
use crate::error::{ToolError, ToolResult};
use crate::git_status::git_status;
use crate::workspace::Workspace;
use serde_json::Value;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "git_status",
    "See what changed (git status)",
    "The working tree's status, like `git status --short`.",
    no_args_schema,
    PolicyView::Internal,
    Runner::Project(run),
)
.reads()
.cached();

fn run(ws: &Workspace, args: Value) -> ToolResult<ToolOutput> {
    if args.as_object().is_some_and(|o| !o.is_empty()) {
        return Err(ToolError::InvalidArgument(
            "git_status takes no arguments".into(),
        ));
    }
    let Some(s) = git_status(ws.root())? else {
        return Err(ToolError::InvalidArgument(
            "the project is not inside a git repository, so it has no git status".into(),
        ));
    };
    let entries: Vec<Value> = s
        .entries()
        .map(|e| serde_json::json!({"path": e.path, "index": e.index.to_string(), "worktree": e.worktree.to_string(), "badge": e.badge}))
        .collect();
    Ok(ToolOutput::new(
        s.render(),
        serde_json::json!({"branch": s.branch, "entries": entries}),
    ))
}
