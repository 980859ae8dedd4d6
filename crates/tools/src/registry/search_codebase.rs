//! search_codebase: a regular expression over the project's files, like ripgrep.

use super::title::{Title, first_line, given, plain};
use super::{Caching, Run, SmallModel, Tool, ToolOutput, ToolSpec, Worked, schema_of, to_value};
use crate::error::ToolResult;
use crate::search::{SearchArgs, SearchResult, render_search, search_codebase};
use crate::toolbox::Toolbox;
use crate::workspace::Workspace;
use policy::ToolCall;
use protocol::{OutputForm, TitlePart, ToolSummary};
use std::collections::BTreeSet;

pub(crate) struct SearchCodebase;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "search_codebase",
    "Search the code",
    "Search file contents with a regular expression, like ripgrep: .gitignore-aware, smart case, binary files skipped. Results are `path:line: text`.",
    schema_of::<SearchArgs>,
    &SearchCodebase,
)
.reads()
.cached(Caching::Kept)
.small_model(SmallModel::AsIs)
.shows(OutputForm::SearchHits);

impl Tool for SearchCodebase {
    type Args = SearchArgs;
    const RUN: Run<SearchArgs> = Run::Project(run);
    const READS_SAVED: bool = true;

    /// A read of its `path` (the whole project when none is named) and of each of its
    /// `paths`: one path the person must approve makes the whole search a question.
    fn policy<'a>(_: &'static str, a: &'a SearchArgs, _: &Worked<'a>) -> Vec<ToolCall<'a>> {
        let mut reads = vec![ToolCall::Read {
            path: a.path.as_deref().unwrap_or("."),
        }];
        reads.extend(
            a.paths
                .iter()
                .flatten()
                .map(|path| ToolCall::Read { path }),
        );
        reads
    }

    fn title(words: &'static str, a: &SearchArgs) -> Title {
        let Some(pattern) = given(&a.pattern) else {
            return plain(words);
        };
        let mut title = vec![
            TitlePart::words("Search for "),
            TitlePart::code(first_line(pattern, 60)),
        ];
        if let Some(path) = a.path.as_deref().and_then(given).filter(|p| *p != ".") {
            title.push(TitlePart::words(format!(" in {path}")));
        }
        title
    }

    fn check(toolbox: &Toolbox, a: &SearchArgs) -> ToolResult<()> {
        if let Some(path) = &a.path {
            toolbox.check_readable(path, true)?;
        }
        for path in a.paths.iter().flatten() {
            toolbox.check_readable(path, false)?;
        }
        Ok(())
    }

    fn on_saved(toolbox: &Toolbox, a: &SearchArgs) -> ToolResult<Option<ToolOutput>> {
        run_on_saved(toolbox, a)
    }
}

fn run(ws: &Workspace, a: &SearchArgs) -> ToolResult<ToolOutput> {
    Ok(output(&search_codebase(ws.root(), a)?))
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
fn run_on_saved(toolbox: &Toolbox, a: &SearchArgs) -> ToolResult<Option<ToolOutput>> {
    let Some(asked) = &a.path else {
        return Ok(None);
    };
    let Some(saved) = toolbox.saved.find(asked)? else {
        return Ok(None);
    };
    let mut a = a.clone();
    a.path = Some(saved.inside);
    // What the project's searches never open, a saved folder's do not either.
    let root = saved.root.hiding_secrets_as(toolbox.ws.root());
    let mut found = search_codebase(&root, &a)?;
    for line in &mut found.lines {
        line.path = root.path().join(&line.path).display().to_string();
    }
    Ok(Some(output(&found)))
}
