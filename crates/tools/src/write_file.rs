//! `write_file`: create or overwrite a file, atomically, keeping its line endings.

use crate::atomic::write_atomic;
use crate::diff::{Region, hunks_in, line_counts, merge_hunks_in};
use crate::error::{ToolError, ToolResult};
use crate::regular_file::{MAX_CHANGED_FILE_BYTES, RegularFileError, read_regular};
use crate::workspace::Workspace;
use crate::write_lock::{WriteLock, fingerprint};
use protocol::FileChange;
use schemars::JsonSchema;
use serde::Deserialize;
use std::path::PathBuf;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteFileArgs {
    /// File to create or overwrite, relative to the project root.
    pub path: String,
    /// The whole new content.
    pub content: String,
}

/// A write or edit worked out but not done yet: what the approval dialog shows, and what a
/// partial approval merges hunks against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    pub real: PathBuf,
    /// Relative to the project root.
    pub path: String,
    /// The content now; `None` for a new file.
    pub original: Option<String>,
    /// The exact bytes the change was planned from, fingerprinted (`None`: no file): the
    /// file must still hold them when the change is written.
    pub on_disk: Option<u64>,
    /// The content the tool would write.
    pub content: String,
    /// Whether the tool was given the whole new file (a write), not replacements in it.
    pub whole: bool,
    /// For an edit: the lines each replacement changed, so each is reviewed as its own hunk
    /// at least. Empty for a write, whose hunks are found by diffing the whole file.
    pub regions: Vec<Region>,
    /// For an edit: the text its last replacement puts in, where the engine looks for the
    /// function the agent last changed.
    pub new_text: Option<String>,
}

impl Planned {
    /// The hunks the user reviews.
    pub fn hunks(&self) -> Vec<protocol::Hunk> {
        hunks_in(
            self.original.as_deref().unwrap_or(""),
            &self.content,
            &self.regions,
        )
    }

    /// The content with only the accepted hunks (indices into [`Planned::hunks`]) applied.
    pub fn merge(&self, accepted: &std::collections::BTreeSet<usize>) -> String {
        merge_hunks_in(
            self.original.as_deref().unwrap_or(""),
            &self.content,
            &self.regions,
            accepted,
        )
    }
}

impl Planned {
    /// Lines added plus lines removed: the change's size, as the policy's thresholds count it.
    pub fn changed_lines(&self) -> u32 {
        let (added, removed) = line_counts(self.original.as_deref().unwrap_or(""), &self.content);
        added + removed
    }
}

/// Works out a write without doing it (the freshness guard is checked here).
pub fn plan_write(ws: &Workspace, args: &WriteFileArgs) -> ToolResult<Planned> {
    let resolved = ws.root().resolve(&args.path)?;
    let real = resolved.real.clone();
    if resolved.display.is_empty() {
        return Err(ToolError::NotAFile(resolved.shown().into()));
    }
    let (existing, on_disk) = match std::fs::metadata(&real) {
        Ok(m) if m.is_dir() => return Err(ToolError::NotAFile(resolved.shown().into())),
        Ok(_) => {
            let bytes = crate::regular_file::read_to_change(ws.root(), &resolved, "write_file")?;
            ws.check_fresh_bytes(&real, &resolved.display, &bytes)?;
            (
                Some(String::from_utf8_lossy(&bytes).into_owned()),
                fingerprint(Some(&bytes)),
            )
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (None, None),
        Err(e) => return Err(ws.root().io_error(&resolved, e)),
    };
    // Written as given: the model may mean to change the line endings or the final newline.
    let content = args.content.clone();
    Ok(Planned {
        real,
        path: resolved.display,
        original: existing,
        on_disk,
        content,
        whole: true,
        regions: Vec::new(),
        new_text: None,
    })
}

/// Writes `content` (the planned one, or hunks of it merged by a partial approval) atomically,
/// and counts the change.
pub fn apply_planned(ws: &Workspace, planned: &Planned, content: &str) -> ToolResult<FileChange> {
    let real = &planned.real;
    // Errors name the path as the model gave it, never where the project sits on this machine.
    let shown = std::path::Path::new(&planned.path);
    ws.before_write(&planned.path);
    if let Some(parent) = real.parent() {
        std::fs::create_dir_all(parent).map_err(|e| ToolError::write(shown, e))?;
    }
    // The file must still hold what the change was planned from (a change may have waited
    // minutes for its approval), checked and replaced under the lock other Tandem processes
    // take for this file.
    let _lock = WriteLock::acquire(real).map_err(|e| ToolError::io(shown, e))?;
    let now = match read_regular(real, MAX_CHANGED_FILE_BYTES) {
        Ok(bytes) => fingerprint(Some(&bytes)),
        Err(e) if e.is_not_found() => None,
        // Grown past the limit or replaced by a pipe: not what was planned from.
        Err(RegularFileError::TooLarge { .. } | RegularFileError::NotRegular) => Some(!0),
        Err(RegularFileError::Io(e)) => return Err(ToolError::io(shown, e)),
    };
    if now != planned.on_disk {
        return Err(ToolError::Stale {
            path: planned.path.clone(),
            why: "it changed on disk while this change waited (another session or program wrote it), so nothing was written",
        });
    }
    let unchanged = planned.original.as_deref() == Some(content);
    if !unchanged {
        write_atomic(real, content.as_bytes()).map_err(|e| ToolError::write(shown, e))?;
    }
    ws.note_written(real, content.as_bytes());
    let old = planned.original.as_deref().unwrap_or("");
    let (added, removed) = line_counts(old, content);
    ws.record_diff(added, removed);
    Ok(FileChange {
        path: planned.path.clone(),
        created: planned.original.is_none(),
        added_lines: added,
        removed_lines: removed,
        chars: content.chars().count() as u32,
        lines: content.lines().count() as u32,
        unchanged,
    })
}

pub fn write_file(ws: &Workspace, args: &WriteFileArgs) -> ToolResult<FileChange> {
    let planned = plan_write(ws, args)?;
    apply_planned(ws, &planned, &planned.content)
}

pub fn render_change(change: &FileChange, verb: &str) -> String {
    if change.unchanged {
        return format!(
            "Nothing changed: {} already holds exactly this text ({} characters, {} lines), so nothing was written. If it still needs a change, read it again and change what differs.",
            change.path, change.chars, change.lines
        );
    }
    let what = if change.created { "Created" } else { verb };
    format!(
        "{what} {} ({} characters, {} lines; +{} -{} lines).",
        change.path, change.chars, change.lines, change.added_lines, change.removed_lines
    )
}
