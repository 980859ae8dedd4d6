//! edit_file: exact text replaced in an existing file, one edit or several together.

use super::title::{Title, given, plain};
use super::{Run, SmallModel, Tool, ToolOutput, ToolSpec, Worked, schema_of, to_value};
use crate::edit_file::{EditFileArgs, EditOneArgs, edit_file, plan_edit};
use crate::error::ToolResult;
use crate::workspace::Workspace;
use crate::write_file::{Planned, render_change};
use policy::ToolCall;
use protocol::{FileChange, ToolSummary};

/// What a small model is told of `edit_file`: the single form only.
const EDIT_ONE_DESCRIPTION: &str = "Replace exact text in an existing file. `old_string` must occur exactly once: copy whole lines from read_file's output without the line numbers, with the line above when the line to change appears more than once (e.g. a function's first line). Read the file first.";

pub(crate) struct EditFile;

pub(crate) const TOOL: ToolSpec = ToolSpec::new(
    "edit_file",
    "Edit a file",
    "Replace exact text in an existing file. `old_string` must occur exactly once: copy whole lines from read_file's output without the line numbers, with the line above when the line to change appears more than once (e.g. a function's first line). Several `edits` apply together or not at all. Read the file first.",
    schema_of::<EditFileArgs>,
    &EditFile,
)
// The built-in model filled the form it did not use with empty values and was refused; a
// grammar made from this schema cannot write a mix.
.small_model(SmallModel::Form(
    EDIT_ONE_DESCRIPTION,
    schema_of::<EditOneArgs>,
));

impl Tool for EditFile {
    type Args = EditFileArgs;
    const RUN: Run<EditFileArgs> = Run::Project(run);

    fn policy<'a>(_: &'static str, a: &'a EditFileArgs, w: &Worked<'a>) -> Vec<ToolCall<'a>> {
        vec![ToolCall::Write {
            path: &a.path,
            diff_lines: w.diff_lines,
        }]
    }

    fn title(words: &'static str, a: &EditFileArgs) -> Title {
        plain(given(&a.path).map_or(words.to_string(), |p| format!("Edit {p}")))
    }

    fn plan(ws: &Workspace, a: &EditFileArgs) -> Option<ToolResult<Planned>> {
        Some(plan_edit(ws, a))
    }
}

fn run(ws: &Workspace, a: &EditFileArgs) -> ToolResult<ToolOutput> {
    Ok(change_output(&edit_file(ws, a)?, "Edited"))
}

/// What a write or an edit reports: the change in words for the model (`verb` unless the file
/// was created), as data, and for people.
pub(super) fn change_output(c: &FileChange, verb: &str) -> ToolOutput {
    // Nothing written is no change to show: the card says so in words.
    ToolOutput::new(render_change(c, verb), to_value(c)).summed((!c.unchanged).then(|| changed(c)))
}

/// A write's or an edit's change, for people.
fn changed(c: &FileChange) -> ToolSummary {
    ToolSummary::FileChanged {
        path: c.path.clone(),
        created: c.created,
        added_lines: c.added_lines,
        removed_lines: c.removed_lines,
    }
}
