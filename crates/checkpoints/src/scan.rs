//! Working out what changed since the last checkpoint from a set of candidate paths (those the
//! watcher saw, or, when it may have missed some, every file git or the records name): each is
//! read now and compared with what it held at the last checkpoint; the ones that differ are the
//! step's changes, their new content kept in the store.

use crate::error::{CheckpointError, Result, io};
use crate::git_view::GitView;
use crate::state::{FileState, OnDisk, blob_id, read_now};
use crate::store::{Blobs, Change};
use crate::uncopied::Uncopied;
use protocol::NotRestorableReason;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use tools::path_text;

/// What the scan needs to know.
pub(crate) struct Known<'a> {
    pub root: &'a Path,
    pub blobs: &'a Blobs,
    pub git: Option<&'a GitView>,
    /// Every path whose content at the last checkpoint is recorded (the rest held what git's
    /// HEAD held when the session began).
    pub recorded: &'a BTreeMap<String, FileState>,
    /// What tools found before first writing a path since the last checkpoint.
    pub tool_pre: &'a BTreeMap<String, FileState>,
    /// Untracked files the session began with, not copied.
    pub uncopied: &'a Uncopied,
    /// Paths the watcher saw made since the last checkpoint (so absent at it), when it saw
    /// every change.
    pub created: &'a BTreeSet<String>,
}

#[derive(Debug, Default)]
pub(crate) struct Scanned {
    pub changes: Vec<Change>,
    /// Git-ignored paths that changed (not kept).
    pub ignored: Vec<String>,
    /// Blobs written to the store, to be made durable.
    pub written: Vec<git2::Oid>,
}

fn in_git_dir(path: &str) -> bool {
    path.split('/').any(|c| c == ".git")
}

fn keys_under<'m, V>(map: &'m BTreeMap<String, V>, dir: &str) -> impl Iterator<Item = &'m String> {
    let from = format!("{dir}/");
    map.range(from.clone()..)
        .take_while(move |(k, _)| k.starts_with(&from))
        .map(|(k, _)| k)
}

impl Known<'_> {
    /// The files the candidates stand for: a folder stands for every file in it now and every
    /// file known to have been in it (a folder removed or moved away whole).
    fn files(&self, candidates: &BTreeSet<String>, ignored: &mut Vec<String>) -> BTreeSet<String> {
        let mut files = BTreeSet::new();
        for c in candidates {
            let c = c.trim_end_matches('/');
            if c.is_empty() || in_git_dir(c) {
                continue;
            }
            let before_under = keys_under(self.recorded, c)
                .chain(keys_under(self.tool_pre, c))
                .chain(self.uncopied.under(c))
                .cloned()
                .chain(self.git.map(|g| g.files_under(c)).unwrap_or_default());
            files.extend(before_under);
            let path = self.root.join(path_text::to_path(c));
            let is_dir = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
            if !is_dir {
                files.insert(c.to_string());
                continue;
            }
            if self.git.is_some_and(|g| g.is_ignored(&format!("{c}/"))) {
                ignored.push(format!("{c}/"));
                continue;
            }
            let walk = ignore::WalkBuilder::new(&path)
                .hidden(false)
                .parents(true)
                .git_ignore(true)
                .git_exclude(true)
                .git_global(true)
                .require_git(false)
                .follow_links(false)
                .filter_entry(|e| e.file_name() != ".git")
                .build();
            for e in walk.flatten() {
                if e.file_type().is_some_and(|t| !t.is_dir())
                    && let Ok(rel) = e.path().strip_prefix(self.root)
                {
                    files.insert(path_text::from_path(rel));
                }
            }
        }
        files
    }

    /// What `path` held at the last checkpoint.
    fn before(&self, path: &str, ignored: bool) -> FileState {
        let tool = self.tool_pre.get(path).cloned();
        if let Some(s) = self.recorded.get(path) {
            return s.clone();
        }
        let unknown = |reason| {
            tool.clone().unwrap_or(if self.created.contains(path) {
                FileState::Absent
            } else {
                FileState::Unknown { reason }
            })
        };
        match self.git {
            Some(g) if !ignored => match g.at_start(path) {
                Ok(FileState::Absent)
                    if self.uncopied.holds(path) && !self.created.contains(path) =>
                {
                    tool.unwrap_or(FileState::Unknown {
                        reason: NotRestorableReason::NotCopied,
                    })
                }
                Ok(s) => self.keep_start_blob(g, s),
                Err(reason) => unknown(reason),
            },
            Some(_) => unknown(NotRestorableReason::GitIgnored),
            None => unknown(NotRestorableReason::OutsideGit),
        }
    }

    /// A file's content from the user's HEAD is copied into the store: the user may amend,
    /// rebase and `git gc` it away while the session still needs it.
    fn keep_start_blob(&self, git: &GitView, state: FileState) -> FileState {
        let Some(oid) = state.oid() else {
            return state;
        };
        if self.blobs.has(oid) {
            return state;
        }
        match git.blob(oid).map(|b| self.blobs.put(&b)) {
            Some(Ok(_)) => state,
            _ => FileState::Unknown {
                reason: NotRestorableReason::CopyMissing,
            },
        }
    }

    pub fn scan(&self, candidates: &BTreeSet<String>) -> Result<Scanned> {
        let mut out = Scanned::default();
        let files = self.files(candidates, &mut out.ignored);
        for path in files {
            if in_git_dir(&path) {
                continue;
            }
            let written_by_tool = self.tool_pre.contains_key(&path);
            let full = self.root.join(path_text::to_path(&path));
            if !written_by_tool
                && !self.recorded.contains_key(&path)
                && self.uncopied.unchanged(&path, &full)
            {
                // As it was at the start, by its stamp: not read, not copied.
                continue;
            }
            let ignored = self.git.is_some_and(|g| g.is_ignored(&path));
            if ignored && !written_by_tool && !self.recorded.contains_key(&path) {
                // A build output or the like: named in the preview, never kept.
                out.ignored.push(path);
                continue;
            }
            let mut before = self.before(&path, ignored);
            if ignored && !written_by_tool {
                // Known only because a tool wrote it once: a command's change to it is still
                // not brought back, but what it holds now is recorded.
                before = FileState::Unknown {
                    reason: NotRestorableReason::GitIgnored,
                };
            }
            let after = match read_now(&full).map_err(io(&full))? {
                OnDisk::Absent | OnDisk::Folder | OnDisk::Other => FileState::Absent,
                OnDisk::TooLarge => FileState::Unknown {
                    reason: NotRestorableReason::TooLarge,
                },
                OnDisk::Unreadable => FileState::Unknown {
                    reason: NotRestorableReason::Unreadable,
                },
                OnDisk::File { bytes, mode } => {
                    let state = FileState::file(blob_id(&bytes), mode);
                    if state != before && !state.oid().is_some_and(|o| self.blobs.has(o)) {
                        let oid = self.blobs.put(&bytes)?;
                        out.written.push(oid);
                    }
                    state
                }
            };
            let unchanged = after == before
                || matches!(
                    (&before, &after),
                    (FileState::Unknown { .. }, FileState::Unknown { .. })
                );
            if !unchanged {
                out.changes.push(Change {
                    path,
                    before,
                    after,
                });
            }
        }
        out.ignored.sort();
        out.ignored.dedup();
        Ok(out)
    }
}

/// Every file whose content may differ from the last checkpoint, found without the watcher:
/// what git sees as changed or untracked now, what changed between the session's HEAD and
/// HEAD now, and every path the records or the tools know.
pub(crate) fn full_candidates(known: &Known<'_>) -> Result<BTreeSet<String>> {
    let mut out: BTreeSet<String> = known.recorded.keys().cloned().collect();
    out.extend(known.tool_pre.keys().cloned());
    if let Some(g) = known.git {
        let changed = g.changed_files(false)?;
        // An uncopied file git no longer lists as untracked was removed (or added, or is
        // ignored now): look at it.
        out.extend(
            known
                .uncopied
                .names()
                .filter(|n| !changed.contains(*n))
                .cloned(),
        );
        out.extend(changed);
        let repo_head = g.head_now().map_err(CheckpointError::Git)?;
        out.extend(g.changed_since_start(repo_head)?);
    }
    Ok(out)
}
