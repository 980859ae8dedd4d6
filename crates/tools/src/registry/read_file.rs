//! read_file: a text file with numbered lines; an image or a PDF for the model to see.

use super::{
    Details, PolicyView, Runner, SmallModel, ToolOutput, ToolSpec, parse, schema_of, to_value,
};
use crate::error::ToolResult;
use crate::read_file::{ReadFileArgs, read_file, render_content};
use crate::toolbox::Toolbox;
use crate::workspace::Workspace;
use protocol::{FileContent, ToolSummary};
use serde_json::Value;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "read_file",
    "Read a file",
    "Read a text file with numbered lines. `offset` is 1-based (negative counts from the end), `limit` defaults to 2000 lines. Images are attached; binary files are refused.",
    schema_of::<ReadFileArgs>,
    PolicyView::Read,
    Runner::Project(run),
)
.reads()
.cached_per_file()
.small_model(SmallModel::AsIs)
.reads_saved(run_on_saved);

fn run(ws: &Workspace, args: Value) -> ToolResult<ToolOutput> {
    let a: ReadFileArgs = parse(TOOL.name, args)?;
    Ok(output(&ws.read_file(&a)?))
}

fn output(content: &FileContent) -> ToolOutput {
    ToolOutput::new(render_content(content), to_value(content))
        .summed(Some(summary(content)))
        .with(Details::File(content.clone()))
}

fn summary(content: &FileContent) -> ToolSummary {
    match content {
        FileContent::Text {
            path,
            start_line,
            lines,
            total_lines,
            ..
        } => ToolSummary::FileRead {
            path: path.clone(),
            from: *start_line,
            to: start_line
                .saturating_add(lines.len() as u32)
                .saturating_sub(1),
            total_lines: *total_lines,
        },
        FileContent::Binary { path, .. } | FileContent::Image { path, .. } => {
            ToolSummary::FileSeen { path: path.clone() }
        }
    }
}

/// A saved file is read where it is, and named by the path the model used for it (its tools
/// would name it relative to the folder it is in).
fn run_on_saved(toolbox: &Toolbox, asked: String, args: Value) -> ToolResult<Option<ToolOutput>> {
    let Some(saved) = toolbox.saved.find(&asked)? else {
        return Ok(None);
    };
    let mut a: ReadFileArgs = parse(TOOL.name, args)?;
    a.path = saved.inside;
    let mut content = read_file(&saved.root, &a)?;
    match &mut content {
        FileContent::Text { path, .. }
        | FileContent::Image { path, .. }
        | FileContent::Binary { path, .. } => *path = asked,
    }
    Ok(Some(output(&content)))
}
