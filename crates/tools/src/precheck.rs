//! Arguments checked before anyone is asked: a call that cannot work whatever the person
//! answers goes back to the model in words, with no approval card for it. Writes and edits
//! are checked (and worked out) by `plan_change`; this covers the other tools that ask.

use crate::catalog::parse;
use crate::error::ToolResult;
use crate::git_tools::{GitBranchArgs, GitCommitArgs, check_branch, check_commit};
use crate::pull_request::{PullRequestArgs, check_pull_request};
use crate::run_command::{RunCommandArgs, check_command};
use crate::web::{WebFetchArgs, WebSearchArgs, check_fetch, check_search};
use crate::workspace::Workspace;
use serde_json::Value;

/// Why a call of `name` with `args` cannot run, found without running it; `Ok` for tools
/// with nothing to check here.
pub fn check_before_asking(ws: &Workspace, name: &str, args: &Value) -> ToolResult<()> {
    match name {
        "run_command" => check_command(&parse::<RunCommandArgs>(name, args.clone())?),
        "git_commit" => check_commit(ws.root(), &parse::<GitCommitArgs>(name, args.clone())?),
        "git_branch" => check_branch(ws.root(), &parse::<GitBranchArgs>(name, args.clone())?),
        "web_fetch" => check_fetch(&parse::<WebFetchArgs>(name, args.clone())?),
        "web_search" => check_search(&parse::<WebSearchArgs>(name, args.clone())?),
        "create_pull_request" => check_pull_request(
            ws.root(),
            &parse::<PullRequestArgs>(name, args.clone())?,
            std::env::var_os("PATH").as_deref(),
        ),
        _ => Ok(()),
    }
}
