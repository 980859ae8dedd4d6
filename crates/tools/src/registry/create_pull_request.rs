//! create_pull_request: the branch pushed and a pull request opened with `gh`.

use super::{Needs, PolicyView, Runner, ToolOutput, ToolSpec, parse, schema_of, to_value};
use crate::error::ToolResult;
use crate::pull_request::{
    PULL_REQUEST_STEP_LIMIT, PullRequestArgs, PullRequestRun, check_pull_request,
    create_pull_request, render_pull_request,
};
use crate::toolbox::{CallContext, Toolbox};
use crate::workspace::Workspace;
use futures_util::future::BoxFuture;
use serde_json::Value;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "create_pull_request",
    "Open a pull request",
    "Push the current branch (`git push --set-upstream`, to its upstream's remote or `origin`) and open a pull request for it with the GitHub CLI (`gh`, which must be logged in). Returns the pull request's URL and number. Refused on the base branch or a detached HEAD.",
    schema_of::<PullRequestArgs>,
    PolicyView::PullRequest,
    Runner::Waits(run),
)
.needs(Needs::GitHubCli)
.checked(check);

// It waits on the network and ends on Stop, which only the toolbox's async run can do.
fn run<'a>(
    toolbox: &'a Toolbox,
    args: Value,
    ctx: &'a CallContext,
) -> BoxFuture<'a, ToolResult<ToolOutput>> {
    Box::pin(async move {
        let a: PullRequestArgs = parse(TOOL.name, args)?;
        let path = std::env::var_os("PATH");
        let pr = create_pull_request(
            toolbox.ws.root(),
            &a,
            &PullRequestRun {
                path_env: path.as_deref(),
                cancel: ctx.cancel.clone(),
                limit: PULL_REQUEST_STEP_LIMIT,
            },
        )
        .await?;
        Ok(ToolOutput::new(render_pull_request(&pr), to_value(&pr)))
    })
}

fn check(ws: &Workspace, args: Value) -> ToolResult<()> {
    check_pull_request(
        ws.root(),
        &parse(TOOL.name, args)?,
        std::env::var_os("PATH").as_deref(),
    )
}
