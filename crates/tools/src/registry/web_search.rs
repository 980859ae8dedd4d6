//! web_search: the configured provider's results for a query.

use super::title::{Title, first_line, given, plain};
use super::{Needs, Run, Tool, ToolOutput, ToolSpec, Worked, schema_of, to_value};
use crate::error::ToolResult;
use crate::toolbox::{CallContext, Toolbox};
use crate::web::{WebSearchArgs, check_search, render_search_hits, web_search};
use futures_util::future::BoxFuture;
use policy::ToolCall;
use protocol::ToolSummary;

pub(crate) struct WebSearch;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "web_search",
    "Search the web",
    "Search the web through the configured provider.",
    schema_of::<WebSearchArgs>,
    &WebSearch,
)
.reads()
.needs(Needs::SearchService);

impl Tool for WebSearch {
    type Args = WebSearchArgs;
    const RUN: Run<WebSearchArgs> = Run::Waits(run);

    fn policy<'a>(_: &'static str, _: &'a WebSearchArgs, _: &Worked<'a>) -> Vec<ToolCall<'a>> {
        vec![ToolCall::WebSearch]
    }

    fn title(words: &'static str, a: &WebSearchArgs) -> Title {
        plain(given(&a.query).map_or(words.to_string(), |q| {
            format!("Search the web for “{}”", first_line(q, 60))
        }))
    }

    fn check(_: &Toolbox, a: &WebSearchArgs) -> ToolResult<()> {
        check_search(a)
    }
}

fn run<'a>(
    toolbox: &'a Toolbox,
    a: &'a WebSearchArgs,
    _: &'a CallContext,
) -> BoxFuture<'a, ToolResult<ToolOutput>> {
    Box::pin(async move {
        let hits = web_search(&toolbox.web, a).await?;
        let summary = ToolSummary::WebResults {
            count: hits.len() as u32,
        };
        Ok(
            ToolOutput::new(render_search_hits(&a.query, &hits), to_value(&hits))
                .summed(Some(summary)),
        )
    })
}
