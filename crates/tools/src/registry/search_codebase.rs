//! search_codebase: a regular expression over the project's files, like ripgrep.

use super::{PolicyView, Runner, SmallModel, ToolOutput, ToolSpec, parse, schema_of, to_value};
use crate::error::ToolResult;
use crate::search::{SearchArgs, SearchResult, render_search, search_codebase};
use crate::toolbox::Toolbox;
use crate::workspace::Workspace;
use protocol::ToolSummary;
use serde_json::Value;
use std::collections::BTreeSet;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "search_codebase",
    "Search the code",
    "Search file contents with a regular expression, like ripgrep: .gitignore-aware, smart case, binary files skipped. Results are `path:line: text`.",
    schema_of::<SearchArgs>,
    PolicyView::Read,
    Runner::Project(run),
)
.reads()
.cached()
.small_model(SmallModel::AsIs)
.reads_saved(run_on_saved);

fn run(ws: &Workspace, args: Value) -> ToolResult<ToolOutput> {
    let a: SearchArgs = parse(TOOL.name, args)?;
    Ok(output(&search_codebase(ws.root(), &a)?))
}

fn output(found: &SearchResult) -> ToolOutput {
    let files: BTreeSet<&str> = found
        .lines
        .iter()
        .filter(|l| l.is_match)
        .map(|l| l.path.as_str())
        .collect();
    let summary = ToolSummary::SearchMatches {
        matches: found.total_matches.min(u32::MAX as usize) as u32,
        files: files.len() as u32,
    };
    ToolOutput::new(render_search(found), to_value(found)).summed(Some(summary))
}

/// A search of a saved folder, with its hits named by their absolute paths.
fn run_on_saved(toolbox: &Toolbox, asked: String, args: Value) -> ToolResult<Option<ToolOutput>> {
    let Some(saved) = toolbox.saved.find(&asked)? else {
        return Ok(None);
    };
    let mut a: SearchArgs = parse(TOOL.name, args)?;
    a.path = Some(saved.inside);
    // What the project's searches never open, a saved folder's do not either.
    let root = saved.root.hiding_secrets_as(toolbox.ws.root());
    let mut found = search_codebase(&root, &a)?;
    for line in &mut found.lines {
        line.path = root.path().join(&line.path).display().to_string();
    }
    Ok(Some(output(&found)))
}
