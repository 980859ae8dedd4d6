//! git_log: recent commits, newest first.

use super::title::{Title, plain};
use super::{Caching, Run, Tool, ToolOutput, ToolSpec, Worked, schema_of};
use crate::error::ToolResult;
use crate::git_tools::{GitLogArgs, git_log};
use crate::workspace::Workspace;
use policy::ToolCall;
use protocol::OutputForm;
use serde_json::Value;

pub(crate) struct GitLog;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "git_log",
    "See the history (git log)",
    "Recent commits, newest first (`count` default 10, `oneline` default true).",
    schema_of::<GitLogArgs>,
    &GitLog,
)
.reads()
.cached(Caching::Kept)
.shows(OutputForm::Terminal);

impl Tool for GitLog {
    type Args = GitLogArgs;
    const RUN: Run<GitLogArgs> = Run::Project(run);

    fn policy<'a>(name: &'static str, _: &'a GitLogArgs, _: &Worked<'a>) -> Vec<ToolCall<'a>> {
        vec![ToolCall::Internal { name }]
    }

    fn title(words: &'static str, _: &GitLogArgs) -> Title {
        plain(words)
    }
}

fn run(ws: &Workspace, a: &GitLogArgs) -> ToolResult<ToolOutput> {
    let l = git_log(ws.root(), a)?;
    Ok(ToolOutput::new(l.clone(), Value::String(l)))
}
