//! A command's changes found afterwards, where it did not run over a layer (a machine without
//! unprivileged overlays, a project on a file system overlayfs will not take, a command run
//! outside the sandbox): they are in the project already, as before layers. The session's
//! checkpoints ([`ChangeFinder`]) say which files differ from a mark taken before it ran and
//! what each held then; they are shown as a layer's changes are, and those the mode would
//! have asked about are put to the person, who keeps them or has them put back.

use super::Landed;
use super::kinds::{Kind, Sorter};
use super::land::{Landing, ignored_under, parent_of, remove_any};
use super::review::{MAX_DIFFED_BYTES, REVIEW_TEXT_BYTES};
use crate::diff;
use protocol::{
    ChangeClass, ChangeKind, ChangeReview, CommandFileChange, Fate, FolderContents, IgnoredOutput,
    ItemKind, LineCounts, ReviewFile,
};
use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash as _, Hasher as _};
use std::os::fd::AsRawFd as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

/// Finds what changed in the project between a mark and now (the session's checkpoints).
pub trait ChangeFinder: Send + Sync {
    /// Marks the project as it is now, before a command runs; `None` when it cannot.
    fn mark(&self) -> Option<u32>;
    /// The files that differ now from `mark`, each with what it held then.
    fn since(&self, mark: u32) -> Option<Vec<FoundFile>>;
}

/// A file that differs from the mark.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundFile {
    /// Project-relative, `/`-separated.
    pub path: String,
    pub before: Before,
}

/// What a file held at the mark.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Before {
    Absent,
    File {
        bytes: Vec<u8>,
        executable: bool,
    },
    /// Not kept (too large, ignored by git, outside git and never seen): shown, never put back.
    Unknown,
}

/// One file put to the person.
#[derive(Debug)]
struct Entry {
    rel: PathBuf,
    before: Before,
    /// What the file holds as the review is made: a file changed again meanwhile is a
    /// conflict, never put back over.
    now: Option<u64>,
    texts: Option<(String, String)>,
    hunks: usize,
    file: CommandFileChange,
}

#[derive(Debug, Clone, Copy)]
enum Piece {
    Hunk { entry: usize, at: usize },
    Whole { entry: usize },
}

/// Changes found afterwards that wait for the person: kept, or put back as they were.
#[derive(Debug)]
pub(crate) struct FoundHeld {
    project: PathBuf,
    entries: Vec<Entry>,
    pieces: Vec<Piece>,
    review: ChangeReview,
}

/// The changes `found` in `project`, as a layer's landing gives them: those `landing` lets
/// stay unasked are in [`Landed::changes`] (landed, as they already are); the rest wait in
/// [`Landed::held`] for a review that keeps or puts back each.
pub fn found_changes(project: &Path, found: Vec<FoundFile>, landing: &Landing) -> Landed {
    let mut sorter = Sorter::new(project, project);
    let mut out = Landed::default();
    let mut ignored: BTreeMap<String, IgnoredOutput> = BTreeMap::new();
    let mut entries = Vec::new();
    for f in found {
        let rel = crate::path_text::to_path(&f.path).into_owned();
        let now = std::fs::symlink_metadata(project.join(&rel)).ok();
        let change = match (&f.before, &now) {
            (Before::Absent, _) => ChangeKind::Created,
            (_, None) => ChangeKind::Deleted,
            (Before::File { bytes, executable }, Some(m)) => {
                let same =
                    m.is_file() && std::fs::read(project.join(&rel)).is_ok_and(|b| b == *bytes);
                if same && (m.permissions().mode() & 0o111 != 0) != *executable {
                    ChangeKind::ModeChanged
                } else {
                    ChangeKind::Modified
                }
            }
            (Before::Unknown, Some(_)) => ChangeKind::Modified,
        };
        let kind = sorter.kind(&rel, now.as_ref().is_some_and(|m| m.is_dir()));
        if kind == Kind::Ignored {
            let entry = ignored_under(&mut ignored, &rel);
            match change {
                ChangeKind::Created => entry.added += 1,
                ChangeKind::Deleted => entry.deleted += 1,
                _ => entry.modified += 1,
            }
            continue;
        }
        let item = match &now {
            Some(m) if m.is_symlink() => ItemKind::Symlink,
            Some(m) if !m.is_file() && !m.is_dir() => ItemKind::Special,
            _ => ItemKind::File,
        };
        let before_text = match &f.before {
            Before::File { bytes, .. } => text(bytes),
            Before::Absent => Some(String::new()),
            Before::Unknown => None,
        };
        let now_bytes = match &now {
            Some(m) if m.is_file() => std::fs::read(project.join(&rel)).ok(),
            Some(_) => None,
            None => Some(Vec::new()),
        };
        let now_text = now_bytes.as_deref().and_then(text);
        let lines = match (&before_text, &now_text) {
            (Some(b), Some(n)) => {
                let (added, removed) = diff::line_counts(b, n);
                Some(LineCounts { added, removed })
            }
            _ => None,
        };
        let file = CommandFileChange {
            path: f.path.clone(),
            change,
            item,
            class: match kind {
                Kind::RunsCode(why) => ChangeClass::RunsCode { why },
                Kind::Git => ChangeClass::Git,
                _ => ChangeClass::Project,
            },
            fate: Fate::Landed,
            lines,
            merged: false,
        };
        let asked = landing.review
            && match kind {
                Kind::RunsCode(_) => true,
                Kind::Project => !landing.project,
                _ => false,
            };
        let can_put_back = f.before != Before::Unknown && item != ItemKind::Special;
        if asked && can_put_back && item != ItemKind::Symlink {
            entries.push(Entry {
                rel,
                before: f.before,
                now: now_bytes.as_deref().map(hash),
                texts: before_text.zip(now_text),
                hunks: 0,
                file,
            });
        } else {
            if matches!(file.class, ChangeClass::Project) {
                out.before.push((f.path, before_text));
            }
            out.changes.files.push(file);
        }
    }
    out.changes.ignored = ignored.into_values().collect();
    if !entries.is_empty() {
        let held = FoundHeld::new(project, entries, out.changes.ignored.clone());
        out.held = super::HeldChanges::new(super::Held::found(held));
    }
    out
}

fn text(bytes: &[u8]) -> Option<String> {
    if bytes.len() as u64 > MAX_DIFFED_BYTES || bytes.contains(&0) {
        return None;
    }
    String::from_utf8(bytes.to_vec()).ok()
}

fn hash(bytes: &[u8]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}

impl FoundHeld {
    fn new(project: &Path, mut entries: Vec<Entry>, ignored: Vec<IgnoredOutput>) -> Self {
        // Deletions first: no long list hides one.
        entries.sort_by(|a, b| (a.file.change, &a.rel).cmp(&(b.file.change, &b.rel)));
        let mut pieces = Vec::new();
        let mut files = Vec::new();
        let mut text_left = REVIEW_TEXT_BYTES;
        for (i, e) in entries.iter_mut().enumerate() {
            let sides = e
                .texts
                .take()
                .filter(|(o, p)| o.len() + p.len() <= text_left);
            let mut file = ReviewFile {
                path: e.file.path.clone(),
                change: e.file.change,
                item: e.file.item,
                class: e.file.class.clone(),
                lines: e.file.lines,
                original: None,
                proposed: None,
                hunks: Vec::new(),
                whole: None,
                folder: FolderContents::default(),
            };
            let hunks = sides
                .as_ref()
                .filter(|_| e.file.change == ChangeKind::Modified)
                .map(|(o, p)| diff::hunks(o, p))
                .unwrap_or_default();
            if hunks.is_empty() {
                file.whole = Some(pieces.len() as u32);
                pieces.push(Piece::Whole { entry: i });
            } else {
                let mut hunks = hunks;
                for (at, h) in hunks.iter_mut().enumerate() {
                    h.index = pieces.len() as u32;
                    pieces.push(Piece::Hunk { entry: i, at });
                }
                e.hunks = hunks.len();
                file.hunks = hunks;
            }
            if let Some((o, p)) = &sides {
                text_left -= o.len() + p.len();
                file.original = Some(o.clone());
                file.proposed = Some(p.clone());
            }
            e.texts = sides;
            files.push(file);
        }
        let review = ChangeReview {
            files,
            ignored,
            pieces: pieces.len() as u32,
        };
        FoundHeld {
            project: project.to_path_buf(),
            entries,
            pieces,
            review,
        }
    }

    pub(crate) fn review(&self) -> &ChangeReview {
        &self.review
    }

    /// Every change stays as it is.
    pub(crate) fn keep(self) -> Landed {
        let all: BTreeSet<u32> = (0..self.pieces.len() as u32).collect();
        self.answer(&all, None)
    }

    /// Keeps the accepted pieces and puts the rest back; never over a file changed again
    /// since the review was made.
    pub(crate) fn land(
        self,
        accepted: &BTreeSet<u32>,
        before_write: Option<&(dyn Fn(&str) + Send + Sync)>,
    ) -> std::io::Result<Landed> {
        Ok(self.answer(accepted, before_write))
    }

    fn answer(
        self,
        accepted: &BTreeSet<u32>,
        before_write: Option<&(dyn Fn(&str) + Send + Sync)>,
    ) -> Landed {
        let mut taken = vec![(0usize, 0usize); self.entries.len()];
        let mut kept: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); self.entries.len()];
        for (i, piece) in self.pieces.iter().enumerate() {
            let yes = accepted.contains(&(i as u32));
            let (entry, at) = match *piece {
                Piece::Hunk { entry, at } => (entry, Some(at)),
                Piece::Whole { entry } => (entry, None),
            };
            taken[entry].1 += 1;
            if yes {
                taken[entry].0 += 1;
                if let Some(at) = at {
                    kept[entry].insert(at);
                }
            }
        }
        let mut out = Landed::default();
        for (i, e) in self.entries.into_iter().enumerate() {
            let (yes, of) = taken[i];
            let mut file = e.file;
            let before_text = e.texts.as_ref().map(|(o, _)| o.clone());
            if yes == of {
                if matches!(file.class, ChangeClass::Project) {
                    out.before.push((file.path.clone(), before_text));
                }
                out.changes.files.push(file);
                continue;
            }
            if current_hash(&self.project, &e.rel) != e.now {
                file.fate = Fate::Conflict;
                out.changes.files.push(file);
                continue;
            }
            if let Some(hook) = before_write {
                hook(&file.path);
            }
            let put = if yes == 0 {
                put_back(&self.project, &e.rel, &e.before).map(|()| Fate::Rejected)
            } else {
                match &e.texts {
                    Some((original, proposed)) if e.hunks == of => {
                        let merged = diff::merge_hunks(original, proposed, &kept[i]);
                        let (added, removed) = diff::line_counts(original, &merged);
                        file.lines = Some(LineCounts { added, removed });
                        out.before.push((file.path.clone(), before_text));
                        write_file(&self.project, &e.rel, merged.as_bytes(), None)
                            .map(|()| Fate::Landed)
                    }
                    _ => Ok(Fate::Landed),
                }
            };
            file.fate = put.unwrap_or_else(|e| Fate::Failed {
                message: e.to_string(),
            });
            out.changes.files.push(file);
        }
        out.changes.ignored = self.review.ignored;
        out
    }
}

fn current_hash(project: &Path, rel: &Path) -> Option<u64> {
    match std::fs::symlink_metadata(project.join(rel)) {
        Ok(m) if m.is_file() => std::fs::read(project.join(rel)).ok().map(|b| hash(&b)),
        Ok(_) => None,
        Err(_) => Some(hash(&[])),
    }
}

/// Puts back what the file held at the mark (or removes it, when it was not there).
fn put_back(project: &Path, rel: &Path, before: &Before) -> std::io::Result<()> {
    match before {
        Before::Absent => {
            let (parent, name) = parent_of(project, rel)?;
            remove_any(&in_folder(&parent, &name))
        }
        Before::File { bytes, executable } => write_file(project, rel, bytes, Some(*executable)),
        Before::Unknown => Err(std::io::Error::other("what it held before was not kept")),
    }
}

/// Writes a file below the project whole or not at all, never through a link; its folders
/// are made again when the command removed them.
fn write_file(
    project: &Path,
    rel: &Path,
    bytes: &[u8],
    executable: Option<bool>,
) -> std::io::Result<()> {
    if let Some(dir) = rel.parent().filter(|p| !p.as_os_str().is_empty()) {
        make_folders(project, dir)?;
    }
    let (parent, name) = parent_of(project, rel)?;
    let target = in_folder(&parent, &name);
    crate::atomic::write_atomic(&target, bytes)?;
    if let Some(exec) = executable {
        let mode = if exec { 0o755 } else { 0o644 };
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(mode))?;
    }
    Ok(())
}

fn make_folders(project: &Path, dir: &Path) -> std::io::Result<()> {
    let mut at = PathBuf::new();
    for part in dir.components() {
        at.push(part);
        let (parent, name) = parent_of(project, &at)?;
        match rustix::fs::mkdirat(&parent, name.as_os_str(), rustix::fs::Mode::from(0o755)) {
            Ok(()) | Err(rustix::io::Errno::EXIST) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

fn in_folder(parent: &std::os::fd::OwnedFd, name: &std::ffi::OsStr) -> PathBuf {
    PathBuf::from(format!("/proc/self/fd/{}", parent.as_raw_fd())).join(name)
}
