//! git_commit: every change, or only some files, staged and committed.

use super::title::{Title, first_line, given, plain};
use super::{Run, Tool, ToolOutput, ToolSpec, Worked, schema_of, to_value};
use crate::error::ToolResult;
use crate::git_tools::{GitCommitArgs, check_commit, commit_files, git_commit, render_commit};
use crate::toolbox::Toolbox;
use crate::workspace::Workspace;
use policy::ToolCall;
use protocol::OutputForm;
use std::path::PathBuf;

pub(crate) struct GitCommit;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "git_commit",
    "Commit",
    "Stage and commit: every change by default, or only `files`. Returns the hash and a summary.",
    schema_of::<GitCommitArgs>,
    &GitCommit,
)
.shows(OutputForm::Terminal);

impl Tool for GitCommit {
    type Args = GitCommitArgs;
    const RUN: Run<GitCommitArgs> = Run::Project(run);

    fn policy<'a>(_: &'static str, _: &'a GitCommitArgs, w: &Worked<'a>) -> Vec<ToolCall<'a>> {
        vec![ToolCall::GitCommit {
            diff_lines: w.diff_lines,
        }]
    }

    fn title(words: &'static str, a: &GitCommitArgs) -> Title {
        plain(given(&a.message).map_or(words.to_string(), |m| {
            format!("Commit: {}", first_line(m, 80))
        }))
    }

    fn check(toolbox: &Toolbox, a: &GitCommitArgs) -> ToolResult<()> {
        check_commit(toolbox.ws.root(), a)
    }

    fn commits(ws: &Workspace, a: &GitCommitArgs) -> Option<ToolResult<Vec<PathBuf>>> {
        Some(commit_files(ws.root(), a))
    }
}

fn run(ws: &Workspace, a: &GitCommitArgs) -> ToolResult<ToolOutput> {
    let c = git_commit(ws.root(), a)?;
    Ok(ToolOutput::new(render_commit(&c, &a.message), to_value(&c)))
}
