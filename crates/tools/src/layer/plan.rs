//! From a layer's entries to the steps that would land them: a whole folder moves as one (a
//! new folder, a replaced one), a file or link replaces the project's, a deletion removes
//! what the project has there. Work is in the size of the layer, never of the project.

use super::kinds::{Kind, Sorter};
use super::read::{self, Upper};
use protocol::{ChangeKind, ItemKind, LineCounts};
use std::fs::Metadata;
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

/// Text files larger than this are counted as changed, without their lines.
const MAX_COUNTED_BYTES: u64 = 1024 * 1024;

/// One change to land.
#[derive(Debug, Clone)]
pub(crate) struct Step {
    pub rel: PathBuf,
    pub change: ChangeKind,
    pub item: ItemKind,
    pub kind: Kind,
    /// For a folder that moves as one: the files and links it holds.
    pub files_inside: u32,
    /// Paths (relative to the project) that carry the overlay's own attributes once landed.
    pub marked: Vec<PathBuf>,
    pub lines: Option<LineCounts>,
    /// The project's copy was merged into the layer's at this change time (see
    /// [`super::merge`]): only a change after it is a conflict.
    pub merged: Option<(i64, i64)>,
}

impl Step {
    /// Files this step adds, changes and removes, for the summaries of ignored output.
    /// (What a deletion removes is counted in the project: O(what is deleted).)
    pub(crate) fn files(&self, project: &Path) -> (u32, u32, u32) {
        let added = if self.item == ItemKind::Folder {
            self.files_inside
        } else {
            1
        };
        let removed = || files_under(&project.join(&self.rel));
        match self.change {
            ChangeKind::Deleted => (0, 0, removed()),
            ChangeKind::Replaced => (added, 0, removed()),
            ChangeKind::Created => (added, 0, 0),
            ChangeKind::Modified | ChangeKind::ModeChanged => (0, 1, 0),
        }
    }
}

fn files_under(path: &Path) -> u32 {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::read_dir(path)
            .map(|d| {
                d.filter_map(Result::ok)
                    .map(|e| files_under(&e.path()))
                    .sum()
            })
            .unwrap_or(0),
        Ok(_) => 1,
        Err(_) => 0,
    }
}

pub(crate) fn plan(project: &Path, upper: &Path) -> std::io::Result<Vec<Step>> {
    let entries = read::read(upper, project)?;
    let mut sorter = Sorter::new(project, upper);
    let mut steps = Vec::new();
    let mut i = 0;
    while i < entries.len() {
        let read::Entry {
            rel,
            kind: up,
            marked,
        } = &entries[i];
        let end = i
            + 1
            + entries[i + 1..]
                .iter()
                .take_while(|e| e.rel.starts_with(rel))
                .count();
        let host = std::fs::symlink_metadata(project.join(rel)).ok();
        let new_item = match up {
            Upper::Folder { .. } => ItemKind::Folder,
            Upper::Symlink => ItemKind::Symlink,
            Upper::Special => ItemKind::Special,
            _ => ItemKind::File,
        };
        let step = |change, item, kind| Step {
            rel: rel.clone(),
            change,
            item,
            kind,
            files_inside: 0,
            marked: if *marked {
                vec![rel.clone()]
            } else {
                Vec::new()
            },
            lines: None,
            merged: None,
        };
        match up {
            Upper::Deleted => {
                if let Some(m) = &host {
                    let item = item_of(m);
                    let kind = sorter.kind(rel, item == ItemKind::Folder);
                    steps.push(step(ChangeKind::Deleted, item, kind));
                }
                i += 1;
            }
            Upper::Folder { opaque } => {
                let host_dir = host.as_ref().is_some_and(Metadata::is_dir);
                if *opaque || !host_dir {
                    let change = if host.is_some() {
                        ChangeKind::Replaced
                    } else {
                        ChangeKind::Created
                    };
                    let mut kind = sorter.kind(rel, true);
                    let inside = &entries[i + 1..end];
                    // A folder is as risky as the riskiest thing in it.
                    if !matches!(kind, Kind::RunsCode(_))
                        && let Some(risky) = inside
                            .iter()
                            .map(|e| {
                                sorter.kind_inside(&e.rel, matches!(e.kind, Upper::Folder { .. }))
                            })
                            .find(|k| matches!(k, Kind::RunsCode(_)))
                    {
                        kind = risky;
                    }
                    let mut s = step(change, ItemKind::Folder, kind);
                    s.files_inside = inside
                        .iter()
                        .filter(|e| matches!(e.kind, Upper::File | Upper::Symlink))
                        .count() as u32;
                    s.marked
                        .extend(inside.iter().filter(|e| e.marked).map(|e| e.rel.clone()));
                    steps.push(s);
                    i = end;
                } else {
                    let upper_mode = std::fs::symlink_metadata(upper.join(rel))?.mode();
                    if host
                        .as_ref()
                        .is_some_and(|h| h.mode() & 0o7777 != upper_mode & 0o7777)
                    {
                        let kind = sorter.kind(rel, true);
                        steps.push(step(ChangeKind::ModeChanged, ItemKind::Folder, kind));
                    }
                    i += 1;
                }
            }
            Upper::File | Upper::Symlink | Upper::Special => {
                let kind = sorter.kind(rel, false);
                let change = match &host {
                    None => Some(ChangeKind::Created),
                    Some(_) if *up == Upper::Special => Some(ChangeKind::Modified),
                    Some(h) => compare(&project.join(rel), h, (upper, rel))?,
                };
                if let Some(change) = change {
                    let mut s = step(change, new_item, kind);
                    if !read::overlay_marks(&upper.join(rel)).is_empty() {
                        s.marked = vec![rel.clone()];
                    }
                    if new_item == ItemKind::File && matches!(kind, Kind::Project) {
                        s.lines = line_counts(&project.join(rel), (upper, rel), &host);
                    }
                    steps.push(s);
                }
                i += 1;
            }
        }
    }
    // What is lost first, then what is replaced, then the rest: no long list hides a deletion.
    steps.sort_by(|a, b| a.change.cmp(&b.change).then_with(|| a.rel.cmp(&b.rel)));
    Ok(steps)
}

fn item_of(m: &Metadata) -> ItemKind {
    let ft = m.file_type();
    if ft.is_dir() {
        ItemKind::Folder
    } else if ft.is_symlink() {
        ItemKind::Symlink
    } else if ft.is_file() {
        ItemKind::File
    } else {
        ItemKind::Special
    }
}

/// How the layer's copy differs from the project's, if it does (a file opened for writing
/// and left as it was is copied up all the same).
fn compare(
    host: &Path,
    host_meta: &Metadata,
    (root, rel): (&Path, &Path),
) -> std::io::Result<Option<ChangeKind>> {
    let upper = &root.join(rel);
    let up = std::fs::symlink_metadata(upper)?;
    if item_of(host_meta) != item_of(&up) {
        return Ok(Some(ChangeKind::Modified));
    }
    if up.file_type().is_symlink() {
        let same = std::fs::read_link(host)? == std::fs::read_link(upper)?;
        return Ok((!same).then_some(ChangeKind::Modified));
    }
    let same_mode = host_meta.permissions().mode() & 0o7777 == up.permissions().mode() & 0o7777;
    if host_meta.len() != up.len() || !same_bytes(host, (root, rel))? {
        return Ok(Some(ChangeKind::Modified));
    }
    Ok((!same_mode).then_some(ChangeKind::ModeChanged))
}

/// Whether the project's file `a` and the layer's file `rel` hold the same bytes. The layer's
/// is opened below its root without following links or waiting on a FIFO: a command still
/// running may swap it (or a folder above it) for one meanwhile.
fn same_bytes(a: &Path, (root, rel): (&Path, &Path)) -> std::io::Result<bool> {
    let Some(mut fb) = super::read::open_regular(root, rel)? else {
        return Ok(false);
    };
    let mut fa = std::fs::File::open(a)?;
    let (mut ba, mut bb) = (vec![0u8; 64 * 1024], vec![0u8; 64 * 1024]);
    loop {
        let na = read_full(&mut fa, &mut ba)?;
        let nb = read_full(&mut fb, &mut bb)?;
        if na != nb || ba[..na] != bb[..nb] {
            return Ok(false);
        }
        if na == 0 {
            return Ok(true);
        }
    }
}

fn read_full(f: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    use std::io::Read as _;
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

fn line_counts(
    host: &Path,
    (root, rel): (&Path, &Path),
    host_meta: &Option<Metadata>,
) -> Option<LineCounts> {
    use std::io::Read as _;
    if host_meta
        .as_ref()
        .is_some_and(|m| m.len() > MAX_COUNTED_BYTES)
    {
        return None;
    }
    // Read as [`same_bytes`] reads it, and never more than is counted.
    let mut bytes = Vec::new();
    super::read::open_regular(root, rel)
        .ok()??
        .take(MAX_COUNTED_BYTES + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    if bytes.len() as u64 > MAX_COUNTED_BYTES {
        return None;
    }
    let new = String::from_utf8(bytes).ok()?;
    let old = match host_meta {
        Some(_) => String::from_utf8(std::fs::read(host).ok()?).ok()?,
        None => String::new(),
    };
    // Text with NUL bytes is a binary file to every diff tool: no lines to count.
    if old.contains('\0') || new.contains('\0') {
        return None;
    }
    let (added, removed) = crate::diff::line_counts(&old, &new);
    Some(LineCounts { added, removed })
}
