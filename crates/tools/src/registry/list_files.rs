//! list_files: a folder's entries, honouring .gitignore.

use super::{PolicyView, Runner, SmallModel, ToolOutput, ToolSpec, parse, schema_of, to_value};
use crate::error::ToolResult;
use crate::list_files::{ListFilesArgs, list_for_model};
use crate::workspace::Workspace;
use protocol::ToolSummary;
use serde_json::Value;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "list_files",
    "List files",
    "List a folder (recursively if asked), honouring .gitignore (`include_ignored` lists ignored files too, marked so), never inside .git/ or node_modules/.",
    schema_of::<ListFilesArgs>,
    PolicyView::Read,
    Runner::Project(run),
)
.reads()
.cached()
.small_model(SmallModel::AsIs);

fn run(ws: &Workspace, args: Value) -> ToolResult<ToolOutput> {
    let a: ListFilesArgs = parse(TOOL.name, args)?;
    let l = list_for_model(ws.root(), &a)?;
    let summary = ToolSummary::FilesListed {
        count: l.listing.entries.len() as u32,
        more: l.listing.omitted,
    };
    Ok(ToolOutput::new(l.render(), to_value(&l)).summed(Some(summary)))
}
