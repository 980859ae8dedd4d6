//! A project file the person changed while a command ran: merged with the command's change
//! when the two touched different lines (the layer's copy becomes the merge, so the review
//! shows only the command's lines), and a conflict otherwise. The common ancestor is what the
//! session's checkpoint holds of the file (`BaseOf`); without one, it is a conflict.

use super::kinds::Kind;
use super::land::{Mirrored, change_stamp, changed_since_except};
use super::plan::Step;
use protocol::{ChangeKind, ItemKind, LineCounts};
use std::path::Path;
use std::time::SystemTime;

/// Gives what a project file (project-relative, `/`-separated) held before the work now under
/// way: the common ancestor of a merge.
pub type BaseOf = std::sync::Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// Files larger than this are not merged (a conflict, as before).
const MAX_MERGED_BYTES: u64 = 1024 * 1024;

/// Merges each step whose project copy changed since `started` (not by the command's own
/// copies, `mirrored`); a step that merges to the
/// project's own text (the command wrote back what it read) is dropped. Returns the paths that
/// could not be merged: conflicts, decided now.
pub(crate) fn reconcile(
    project: &Path,
    upper: &Path,
    (started, mirrored): (SystemTime, &Mirrored),
    steps: &mut Vec<Step>,
    base_of: Option<&BaseOf>,
) -> Vec<std::path::PathBuf> {
    let mut conflicts = Vec::new();
    steps.retain_mut(|step| {
        if step.kind != Kind::Project
            || !matches!(step.item, ItemKind::File)
            || step.change != ChangeKind::Modified
            || !changed_since_except(&project.join(&step.rel), started, mirrored)
        {
            return true;
        }
        match merged(project, upper, step, base_of) {
            Some(Merge::Same) => false,
            Some(Merge::Written) => true,
            None => {
                conflicts.push(step.rel.clone());
                true
            }
        }
    });
    conflicts
}

enum Merge {
    /// The merge is the project's own text: nothing of the command's is left to land.
    Same,
    /// The layer's copy is the merge now.
    Written,
}

fn merged(
    project: &Path,
    upper: &Path,
    step: &mut Step,
    base_of: Option<&BaseOf>,
) -> Option<Merge> {
    let ours_path = project.join(&step.rel);
    let theirs_path = upper.join(&step.rel);
    let stamp = change_stamp(&ours_path)?;
    let ours = text(&ours_path)?;
    // Read whole between two looks: a write of the person's in between is left to conflict.
    if change_stamp(&ours_path) != Some(stamp) {
        return None;
    }
    let theirs = text(&theirs_path)?;
    let base = base_of?(&step.rel.to_string_lossy())?;
    let merged = crate::three_way::merge(&base, &ours, &theirs)?;
    if merged == ours {
        return Some(Merge::Same);
    }
    if merged != theirs {
        write_in_place(&theirs_path, merged.as_bytes()).ok()?;
    }
    let (added, removed) = crate::diff::line_counts(&ours, &merged);
    step.lines = Some(LineCounts { added, removed });
    step.merged = Some(stamp);
    Some(Merge::Written)
}

fn text(path: &Path) -> Option<String> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_MERGED_BYTES {
        return None;
    }
    let text = String::from_utf8(std::fs::read(path).ok()?).ok()?;
    (!text.contains('\0')).then_some(text)
}

/// Rewrites the layer's copy of a file in place, keeping its mode.
pub(crate) fn write_in_place(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(path)?;
    f.write_all(bytes)
}
