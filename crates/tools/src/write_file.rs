//! `write_file`: create or overwrite a file, atomically, keeping its line endings.

use crate::atomic::write_atomic;
use crate::diff::line_counts;
use crate::error::{ToolError, ToolResult};
use crate::line_endings::Style;
use crate::workspace::Workspace;
use protocol::FileChange;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteFileArgs {
    /// File to create or overwrite, relative to the project root.
    pub path: String,
    /// The whole new content.
    pub content: String,
}

pub fn write_file(ws: &Workspace, args: &WriteFileArgs) -> ToolResult<FileChange> {
    let resolved = ws.root().resolve(&args.path)?;
    let real = &resolved.real;
    if resolved.display.is_empty() {
        return Err(ToolError::NotAFile(real.clone()));
    }
    let existing = match std::fs::metadata(real) {
        Ok(m) if m.is_dir() => return Err(ToolError::NotAFile(real.clone())),
        Ok(_) => {
            let bytes = std::fs::read(real).map_err(|e| ToolError::io(real, e))?;
            ws.check_fresh_bytes(real, &resolved.display, &bytes)?;
            Some(bytes)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(ToolError::io(real, e)),
    };
    let old = existing
        .as_deref()
        .map(String::from_utf8_lossy)
        .unwrap_or_default();
    let content = match &existing {
        Some(_) => Style::of(&old).apply(&args.content),
        None => args.content.clone(),
    };
    if let Some(parent) = real.parent() {
        std::fs::create_dir_all(parent).map_err(|e| ToolError::io(parent, e))?;
    }
    write_atomic(real, content.as_bytes()).map_err(|e| ToolError::io(real, e))?;
    ws.note_written(real, content.as_bytes());
    let (added, removed) = line_counts(&old, &content);
    ws.record_diff(added, removed);
    Ok(FileChange {
        path: resolved.display,
        created: existing.is_none(),
        added_lines: added,
        removed_lines: removed,
        chars: content.chars().count() as u32,
        lines: content.lines().count() as u32,
    })
}

pub fn render_change(change: &FileChange, verb: &str) -> String {
    let what = if change.created { "Created" } else { verb };
    format!(
        "{what} {} ({} characters, {} lines; +{} -{} lines).",
        change.path, change.chars, change.lines, change.added_lines, change.removed_lines
    )
}
