//! git_status: the working tree's status, like `git status --short`.

use super::title::{Title, plain};
use super::{Caching, NoArgs, Run, Tool, ToolOutput, ToolSpec, Worked, no_args_schema};
use crate::error::{ToolError, ToolResult};
use crate::git_status::git_status;
use crate::workspace::Workspace;
use policy::ToolCall;
use protocol::OutputForm;
use serde_json::Value;

pub(crate) struct GitStatus;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "git_status",
    "See what changed (git status)",
    "The working tree's status, like `git status --short`.",
    no_args_schema,
    &GitStatus,
)
.reads()
.cached(Caching::Kept)
.shows(OutputForm::Terminal);

impl Tool for GitStatus {
    type Args = NoArgs;
    const RUN: Run<NoArgs> = Run::Project(run);

    fn parse(_: &str, input: Value) -> ToolResult<NoArgs> {
        if input.as_object().is_some_and(|o| !o.is_empty()) {
            return Err(ToolError::InvalidArgument(
                "git_status takes no arguments".into(),
            ));
        }
        Ok(NoArgs)
    }

    fn policy<'a>(name: &'static str, _: &'a NoArgs, _: &Worked<'a>) -> Vec<ToolCall<'a>> {
        vec![ToolCall::Internal { name }]
    }

    fn title(words: &'static str, _: &NoArgs) -> Title {
        plain(words)
    }
}

fn run(ws: &Workspace, _: &NoArgs) -> ToolResult<ToolOutput> {
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
