//! create_pull_request: the branch pushed and a pull request opened with `gh`.

use super::title::{Title, first_line, given, plain};
use super::{Needs, Run, Tool, ToolOutput, ToolSpec, Worked, schema_of, to_value};
use crate::error::ToolResult;
use crate::pull_request::{
    PULL_REQUEST_STEP_LIMIT, PullRequestArgs, PullRequestRun, check_pull_request,
    create_pull_request, render_pull_request,
};
use crate::toolbox::{CallContext, Toolbox};
use futures_util::future::BoxFuture;
use policy::ToolCall;

pub(crate) struct CreatePullRequest;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "create_pull_request",
    "Open a pull request",
    "Push the current branch (`git push --set-upstream`, to its upstream's remote or `origin`) and open a pull request for it with the GitHub CLI (`gh`, which must be logged in). Returns the pull request's URL and number. Refused on the base branch or a detached HEAD.",
    schema_of::<PullRequestArgs>,
    &CreatePullRequest,
)
.needs(Needs::GitHubCli);

impl Tool for CreatePullRequest {
    type Args = PullRequestArgs;
    // It waits on the network and ends on Stop, which only the toolbox's async run can do.
    const RUN: Run<PullRequestArgs> = Run::Waits(run);

    fn policy<'a>(_: &'static str, _: &'a PullRequestArgs, _: &Worked<'a>) -> Vec<ToolCall<'a>> {
        vec![ToolCall::PullRequest]
    }

    fn title(words: &'static str, a: &PullRequestArgs) -> Title {
        plain(given(&a.title).map_or(words.to_string(), |t| {
            format!("Open a pull request: {}", first_line(t, 80))
        }))
    }

    fn check(toolbox: &Toolbox, a: &PullRequestArgs) -> ToolResult<()> {
        check_pull_request(toolbox.ws.root(), a, std::env::var_os("PATH").as_deref())
    }
}

fn run<'a>(
    toolbox: &'a Toolbox,
    a: &'a PullRequestArgs,
    ctx: &'a CallContext,
) -> BoxFuture<'a, ToolResult<ToolOutput>> {
    Box::pin(async move {
        let path = std::env::var_os("PATH");
        let pr = create_pull_request(
            toolbox.ws.root(),
            a,
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
