//! list_files: a folder's entries, honouring .gitignore.

use super::title::{Title, given, plain};
use super::{Caching, Run, SmallModel, Tool, ToolOutput, ToolSpec, Worked, schema_of, to_value};
use crate::error::ToolResult;
use crate::list_files::{ListFilesArgs, list_for_model};
use crate::toolbox::Toolbox;
use crate::workspace::Workspace;
use policy::ToolCall;
use protocol::ToolSummary;

pub(crate) struct ListFiles;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "list_files",
    "List files",
    "List a folder (recursively if asked), honouring .gitignore (`include_ignored` lists ignored files too, marked so), never inside .git/ or node_modules/.",
    schema_of::<ListFilesArgs>,
    &ListFiles,
)
.reads()
.cached(Caching::Kept)
.small_model(SmallModel::AsIs)
.quiet();

impl Tool for ListFiles {
    type Args = ListFilesArgs;
    const RUN: Run<ListFilesArgs> = Run::Project(run);

    fn policy<'a>(_: &'static str, a: &'a ListFilesArgs, _: &Worked<'a>) -> Vec<ToolCall<'a>> {
        // No folder named: the project's own.
        let path = if a.path.is_empty() { "." } else { &a.path };
        vec![ToolCall::Read { path }]
    }

    fn title(words: &'static str, a: &ListFilesArgs) -> Title {
        match given(&a.path).filter(|p| *p != ".") {
            Some(p) => plain(format!("List files in {p}")),
            None => plain(words),
        }
    }

    fn check(toolbox: &Toolbox, a: &ListFilesArgs) -> ToolResult<()> {
        toolbox.check_readable(&a.path, false)
    }
}

fn run(ws: &Workspace, a: &ListFilesArgs) -> ToolResult<ToolOutput> {
    let l = list_for_model(ws.root(), a)?;
    let summary = ToolSummary::FilesListed {
        count: l.listing.entries.len() as u32,
        more: l.listing.omitted,
    };
    Ok(ToolOutput::new(l.render(), to_value(&l)).summed(Some(summary)))
}
