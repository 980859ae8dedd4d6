//! The user's git repository, read and never written: which files were changed when the session
//! began (status), what HEAD's tree held then, what git ignores, and which files git converts
//! when checking them out. No index, ref, HEAD, stash or config is ever written here — libgit2
//! is only asked to read.

use crate::error::{CheckpointError, Result};
use crate::state::{FileMode, FileState};
use protocol::NotRestorableReason;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use tools::path_text;

/// The index entry flags (`git_index_entry`) of files git does not look at in the worktree:
/// "assume unchanged" and "skip worktree" (sparse checkouts). Status calls them clean whatever
/// they hold, so the base reads them like changed ones.
const ENTRY_VALID: u16 = 0x8000;
const ENTRY_SKIP_WORKTREE: u16 = 1 << 14;

pub(crate) struct GitView {
    repo: git2::Repository,
    /// The project's folder inside the repository: `""`, or ending in `/`.
    prefix: String,
    /// HEAD's tree when the session began.
    tree: Option<git2::Oid>,
    /// `core.autocrlf = true`: every text file is converted on checkout.
    autocrlf: bool,
}

impl GitView {
    /// The repository the project is in (at its top or in a folder of it), if any.
    pub fn discover(root: &Path) -> Option<(git2::Repository, String)> {
        let repo = git2::Repository::discover(root).ok()?;
        let workdir = repo.workdir()?.canonicalize().ok()?;
        let rel = root.strip_prefix(&workdir).ok()?;
        let mut prefix = rel.to_string_lossy().into_owned();
        if !prefix.is_empty() && !prefix.ends_with('/') {
            prefix.push('/');
        }
        Some((repo, prefix))
    }

    pub fn new(repo: git2::Repository, prefix: String, tree: Option<git2::Oid>) -> GitView {
        let autocrlf = repo
            .config()
            .and_then(|c| c.get_bool("core.autocrlf"))
            .unwrap_or(false);
        GitView {
            repo,
            prefix,
            tree,
            autocrlf,
        }
    }

    /// HEAD's tree now (None before the first commit).
    pub fn head_tree(repo: &git2::Repository) -> Option<git2::Oid> {
        repo.head().ok()?.peel_to_tree().ok().map(|t| t.id())
    }

    /// HEAD's tree now.
    pub fn head_now(&self) -> std::result::Result<Option<git2::Oid>, git2::Error> {
        match self.repo.head() {
            Ok(h) => Ok(Some(h.peel_to_tree()?.id())),
            // Before the first commit.
            Err(e)
                if e.code() == git2::ErrorCode::UnbornBranch
                    || e.code() == git2::ErrorCode::NotFound =>
            {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    fn in_repo(&self, rel: &str) -> PathBuf {
        path_text::to_path(&format!("{}{rel}", self.prefix)).into_owned()
    }

    fn in_project(&self, repo_path: &str) -> Option<String> {
        repo_path
            .strip_prefix(&self.prefix)
            .filter(|p| !p.is_empty())
            .map(str::to_string)
    }

    /// Files that differ from HEAD (in the index or the worktree), untracked files that are not
    /// ignored (every one, not their folders), and with `skipped`, the files git does not look
    /// at in the worktree. Reads the whole worktree: used once at the start, and when changes
    /// may have gone unseen.
    pub fn changed_files(&self, skipped: bool) -> Result<BTreeSet<String>> {
        Ok(self.status(skipped)?.into_keys().collect())
    }

    /// [`GitView::changed_files`], each with whether git does not track it (untracked).
    pub fn status(&self, skipped: bool) -> Result<BTreeMap<String, bool>> {
        let mut opts = git2::StatusOptions::new();
        opts.include_untracked(true)
            .recurse_untracked_dirs(true)
            .include_ignored(false)
            .exclude_submodules(true)
            .renames_head_to_index(false)
            .renames_index_to_workdir(false);
        if !self.prefix.is_empty() {
            opts.pathspec(&self.prefix);
        }
        let statuses = self
            .repo
            .statuses(Some(&mut opts))
            .map_err(CheckpointError::Git)?;
        let mut out = BTreeMap::new();
        for s in statuses.iter() {
            if let Some(p) = self.in_project(&path_text::from_bytes(s.path_bytes())) {
                out.insert(p, s.status() == git2::Status::WT_NEW);
            }
        }
        if skipped {
            let index = self.repo.index().map_err(CheckpointError::Git)?;
            for e in index.iter() {
                let unlooked =
                    e.flags & ENTRY_VALID != 0 || e.flags_extended & ENTRY_SKIP_WORKTREE != 0;
                if unlooked && let Some(p) = self.in_project(&path_text::from_bytes(&e.path)) {
                    out.insert(p, false);
                }
            }
        }
        Ok(out)
    }

    /// Paths whose content differs between the session's HEAD tree and `now` (the agent
    /// committed, or checked out another branch).
    pub fn changed_since_start(&self, now: Option<git2::Oid>) -> Result<BTreeSet<String>> {
        if now == self.tree {
            return Ok(BTreeSet::new());
        }
        let find = |oid: Option<git2::Oid>| -> Result<Option<git2::Tree<'_>>> {
            oid.map(|o| self.repo.find_tree(o).map_err(CheckpointError::Git))
                .transpose()
        };
        let (old, new) = (find(self.tree)?, find(now)?);
        let diff = self
            .repo
            .diff_tree_to_tree(old.as_ref(), new.as_ref(), None)
            .map_err(CheckpointError::Git)?;
        let mut out = BTreeSet::new();
        for d in diff.deltas() {
            for f in [d.old_file(), d.new_file()] {
                if let Some(p) = f
                    .path()
                    .and_then(|p| self.in_project(&path_text::from_path(p)))
                {
                    out.insert(p);
                }
            }
        }
        Ok(out)
    }

    pub fn is_ignored(&self, rel: &str) -> bool {
        self.repo
            .is_path_ignored(self.in_repo(rel))
            .unwrap_or(false)
    }

    /// Whether git converts this file between the repository and the worktree: then the
    /// blob's bytes are not the file's.
    fn converted(&self, rel: &str) -> bool {
        let path = self.in_repo(rel);
        let attr = |name: &str| {
            self.repo
                .get_attr(&path, name, git2::AttrCheckFlags::FILE_THEN_INDEX)
                .ok()
                .flatten()
                .map(|v| v.to_string())
        };
        let text_unset = attr("text").is_some_and(|v| v == "false" || v == "-");
        (self.autocrlf && !text_unset)
            || attr("filter").is_some()
            || attr("ident").is_some_and(|v| v != "false")
            || attr("working-tree-encoding").is_some()
            || attr("eol").is_some_and(|v| v == "crlf")
            || attr("crlf").is_some_and(|v| v != "false")
    }

    /// What a path held when the session began, for a file git did not see as changed then:
    /// what HEAD's tree holds (absent when it holds nothing there).
    pub fn at_start(&self, rel: &str) -> std::result::Result<FileState, NotRestorableReason> {
        let Some(tree) = self.tree.and_then(|t| self.repo.find_tree(t).ok()) else {
            return Ok(FileState::Absent);
        };
        let entry = match tree.get_path(&self.in_repo(rel)) {
            Ok(e) => e,
            Err(_) => return Ok(FileState::Absent),
        };
        match entry.kind() {
            Some(git2::ObjectType::Blob) => {}
            Some(git2::ObjectType::Tree) => return Ok(FileState::Absent),
            _ => return Err(NotRestorableReason::NotTracked),
        }
        let Some(mode) = FileMode::from_git(entry.filemode()) else {
            return Err(NotRestorableReason::NotTracked);
        };
        if mode != FileMode::Symlink && self.converted(rel) {
            return Err(NotRestorableReason::GitFilter);
        }
        Ok(FileState::file(entry.id(), mode))
    }

    /// The files HEAD's tree held under a folder when the session began (a folder removed or
    /// moved away whole: each file in it changed).
    pub fn files_under(&self, rel_dir: &str) -> Vec<String> {
        let Some(tree) = self.tree.and_then(|t| self.repo.find_tree(t).ok()) else {
            return Vec::new();
        };
        let Ok(entry) = tree.get_path(&self.in_repo(rel_dir)) else {
            return Vec::new();
        };
        let Ok(sub) = self.repo.find_tree(entry.id()) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let _ = sub.walk(git2::TreeWalkMode::PreOrder, |dir, e| {
            if e.kind() == Some(git2::ObjectType::Blob) {
                let name = path_text::from_bytes(e.name_bytes());
                out.push(format!("{rel_dir}/{dir}{name}"));
            }
            git2::TreeWalkResult::Ok
        });
        out
    }

    /// The blob's bytes, from the user's object store.
    pub fn blob(&self, oid: git2::Oid) -> Option<Vec<u8>> {
        self.repo.find_blob(oid).ok().map(|b| b.content().to_vec())
    }
}
