//! read_file: a text file with numbered lines; an image or a PDF for the model to see.

use super::title::{Title, given, plain};
use super::{
    Caching, Details, Run, SmallModel, Tool, ToolOutput, ToolSpec, Worked, schema_of,
    to_value,
};
use crate::error::ToolResult;
use crate::read_file::{ReadFileArgs, read_file, render_content};
use crate::toolbox::Toolbox;
use crate::workspace::Workspace;
use policy::ToolCall;
use protocol::{FileContent, ToolSummary};

pub(crate) struct ReadFile;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "read_file",
    "Read a file",
    "Read a text file with numbered lines. `offset` is 1-based (negative counts from the end), `limit` defaults to 2000 lines. Images are attached; binary files are refused.",
    schema_of::<ReadFileArgs>,
    &ReadFile,
)
.reads()
.cached(Caching::PerFile)
.small_model(SmallModel::AsIs)
.quiet();

impl Tool for ReadFile {
    type Args = ReadFileArgs;
    const RUN: Run<ReadFileArgs> = Run::Project(run);
    const READS_SAVED: bool = true;

    fn policy<'a>(_: &'static str, a: &'a ReadFileArgs, _: &Worked<'a>) -> Vec<ToolCall<'a>> {
        vec![ToolCall::Read { path: &a.path }]
    }

    fn title(words: &'static str, a: &ReadFileArgs) -> Title {
        plain(given(&a.path).map_or(words.to_string(), |p| format!("Read {p}")))
    }

    fn check(toolbox: &Toolbox, a: &ReadFileArgs) -> ToolResult<()> {
        toolbox.check_readable(&a.path, true)
    }

    fn on_saved(toolbox: &Toolbox, a: &ReadFileArgs) -> ToolResult<Option<ToolOutput>> {
        run_on_saved(toolbox, a)
    }
}

fn run(ws: &Workspace, a: &ReadFileArgs) -> ToolResult<ToolOutput> {
    Ok(output(&ws.read_file(a)?))
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
fn run_on_saved(toolbox: &Toolbox, a: &ReadFileArgs) -> ToolResult<Option<ToolOutput>> {
    let Some(saved) = toolbox.saved.find(&a.path)? else {
        return Ok(None);
    };
    let asked = a.path.clone();
    let mut a = a.clone();
    a.path = saved.inside;
    let mut content = read_file(&saved.root, &a)?;
    match &mut content {
        FileContent::Text { path, .. }
        | FileContent::Image { path, .. }
        | FileContent::Binary { path, .. } => *path = asked,
    }
    Ok(Some(output(&content)))
}
