//! write_file: a file created or overwritten whole.

use super::{PolicyView, Runner, SmallModel, ToolOutput, ToolSpec, parse, schema_of};
use crate::error::ToolResult;
use crate::workspace::Workspace;
use crate::write_file::{Planned, WriteFileArgs, plan_write, write_file};
use serde_json::Value;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "write_file",
    "Write a file",
    "Create or overwrite a file with the given content (parent folders are created). Read an existing file first.",
    schema_of::<WriteFileArgs>,
    PolicyView::Write,
    Runner::Project(run),
)
.small_model(SmallModel::AsIs)
.plans(plan);

fn run(ws: &Workspace, args: Value) -> ToolResult<ToolOutput> {
    let a: WriteFileArgs = parse(TOOL.name, args)?;
    Ok(super::edit_file::change_output(&write_file(ws, &a)?, "Wrote"))
}

fn plan(ws: &Workspace, args: Value) -> ToolResult<Planned> {
    plan_write(ws, &parse(TOOL.name, args)?)
}
