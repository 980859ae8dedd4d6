//! web_search: the configured provider's results for a query.

use super::{Needs, PolicyView, Runner, ToolOutput, ToolSpec, parse, schema_of, to_value};
use crate::error::ToolResult;
use crate::toolbox::{CallContext, Toolbox};
use crate::web::{WebSearchArgs, check_search, render_search_hits, web_search};
use crate::workspace::Workspace;
use futures_util::future::BoxFuture;
use protocol::ToolSummary;
use serde_json::Value;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "web_search",
    "Search the web",
    "Search the web through the configured provider.",
    schema_of::<WebSearchArgs>,
    PolicyView::WebSearch,
    Runner::Waits(run),
)
.reads()
.needs(Needs::SearchService)
.checked(check);

fn run<'a>(
    toolbox: &'a Toolbox,
    args: Value,
    _: &'a CallContext,
) -> BoxFuture<'a, ToolResult<ToolOutput>> {
    Box::pin(async move {
        let a: WebSearchArgs = parse(TOOL.name, args)?;
        let hits = web_search(&toolbox.web, &a).await?;
        let summary = ToolSummary::WebResults {
            count: hits.len() as u32,
        };
        Ok(
            ToolOutput::new(render_search_hits(&a.query, &hits), to_value(&hits))
                .summed(Some(summary)),
        )
    })
}

fn check(_: &Workspace, args: Value) -> ToolResult<()> {
    check_search(&parse(TOOL.name, args)?)
}
