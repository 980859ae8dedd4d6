//! write_file: a file created or overwritten whole.

use super::title::{Title, given, plain};
use super::{Run, SmallModel, Tool, ToolOutput, ToolSpec, Worked, schema_of};
use crate::error::ToolResult;
use crate::workspace::Workspace;
use crate::write_file::{Planned, WriteFileArgs, plan_write, write_file};
use policy::ToolCall;

pub(crate) struct WriteFile;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "write_file",
    "Write a file",
    "Create or overwrite a file with the given content (parent folders are created). Read an existing file first.",
    schema_of::<WriteFileArgs>,
    &WriteFile,
)
.small_model(SmallModel::AsIs);

impl Tool for WriteFile {
    type Args = WriteFileArgs;
    const RUN: Run<WriteFileArgs> = Run::Project(run);

    fn policy<'a>(_: &'static str, a: &'a WriteFileArgs, w: &Worked<'a>) -> Vec<ToolCall<'a>> {
        vec![ToolCall::Write {
            path: &a.path,
            diff_lines: w.diff_lines,
        }]
    }

    fn title(words: &'static str, a: &WriteFileArgs) -> Title {
        plain(given(&a.path).map_or(words.to_string(), |p| format!("Write {p}")))
    }

    fn plan(ws: &Workspace, a: &WriteFileArgs) -> Option<ToolResult<Planned>> {
        Some(plan_write(ws, a))
    }
}

fn run(ws: &Workspace, a: &WriteFileArgs) -> ToolResult<ToolOutput> {
    Ok(super::edit_file::change_output(&write_file(ws, a)?, "Wrote"))
}
