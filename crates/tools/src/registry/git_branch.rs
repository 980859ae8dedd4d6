//! git_branch: list, create or switch branches.

use super::title::{Title, plain};
use super::{Run, Tool, ToolOutput, ToolSpec, Worked, schema_of};
use crate::error::ToolResult;
use crate::git_tools::{BranchAction, GitBranchArgs, check_branch, git_branch};
use crate::toolbox::Toolbox;
use crate::workspace::Workspace;
use policy::ToolCall;
use protocol::OutputForm;
use serde_json::Value;

pub(crate) struct GitBranch;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "git_branch",
    "Branches",
    "`list` branches, `create` one at HEAD, or `switch` to one (refused with uncommitted changes).",
    schema_of::<GitBranchArgs>,
    &GitBranch,
)
.shows(OutputForm::Terminal);

impl Tool for GitBranch {
    type Args = GitBranchArgs;
    const RUN: Run<GitBranchArgs> = Run::Project(run);

    fn policy<'a>(_: &'static str, a: &'a GitBranchArgs, _: &Worked<'a>) -> Vec<ToolCall<'a>> {
        vec![ToolCall::GitBranch {
            changes: a.action != BranchAction::List,
        }]
    }

    fn title(_: &'static str, a: &GitBranchArgs) -> Title {
        let name = a.name.as_deref().filter(|n| !n.trim().is_empty());
        plain(match (a.action, name) {
            (BranchAction::Create, Some(b)) => format!("Create branch {b}"),
            (BranchAction::Switch, Some(b)) => format!("Switch to branch {b}"),
            _ => "List the branches".to_string(),
        })
    }

    fn check(toolbox: &Toolbox, a: &GitBranchArgs) -> ToolResult<()> {
        check_branch(toolbox.ws.root(), a)
    }
}

fn run(ws: &Workspace, a: &GitBranchArgs) -> ToolResult<ToolOutput> {
    let t = git_branch(ws.root(), a)?;
    Ok(ToolOutput::new(t.clone(), Value::String(t)))
}
