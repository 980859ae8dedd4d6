//! git_diff: unstaged (or staged) changes as a unified diff.

use super::title::{Title, plain};
use super::{Caching, Run, Tool, ToolOutput, ToolSpec, Worked, schema_of};
use crate::error::ToolResult;
use crate::git_tools::{GitDiffArgs, git_diff};
use crate::workspace::Workspace;
use policy::ToolCall;
use protocol::OutputForm;
use serde_json::Value;

pub(crate) struct GitDiff;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "git_diff",
    "See the changes (git diff)",
    "The unstaged changes to tracked files as a unified diff, or the staged ones with `staged: true`.",
    schema_of::<GitDiffArgs>,
    &GitDiff,
)
.reads()
.cached(Caching::Kept)
.shows(OutputForm::Terminal);

impl Tool for GitDiff {
    type Args = GitDiffArgs;
    const RUN: Run<GitDiffArgs> = Run::Project(run);

    fn policy<'a>(name: &'static str, _: &'a GitDiffArgs, _: &Worked<'a>) -> Vec<ToolCall<'a>> {
        vec![ToolCall::Internal { name }]
    }

    fn title(words: &'static str, a: &GitDiffArgs) -> Title {
        if a.staged {
            plain("See the changes staged for commit (git diff)")
        } else {
            plain(words)
        }
    }
}

fn run(ws: &Workspace, a: &GitDiffArgs) -> ToolResult<ToolOutput> {
    let d = git_diff(ws.root(), a)?;
    Ok(ToolOutput::new(d.clone(), Value::String(d)))
}
