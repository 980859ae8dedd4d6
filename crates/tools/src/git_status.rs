//! `git_status` through git2: each changed path's state, with folder roll-up for the tree.

use crate::error::ToolResult;
use crate::paths::ProjectRoot;
use git2::{Repository, Status, StatusOptions};
use protocol::GitBadge;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One changed path, relative to the project root. Untracked folders are one entry ending in `/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusEntry {
    pub path: String,
    /// `git status --short`'s two columns: index, then work tree (`?` for untracked).
    pub index: char,
    pub worktree: char,
    pub badge: GitBadge,
}

/// The state of the project's work tree. `None` from [`git_status`] means "not a repository".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitStatus {
    pub branch: Option<String>,
    entries: BTreeMap<String, StatusEntry>,
}

/// Reads the status of the repository containing the project (which may be a sub-folder of the
/// work tree); paths outside the project are left out. Ok(None) outside any repository.
pub fn git_status(root: &ProjectRoot) -> ToolResult<Option<GitStatus>> {
    let repo = match Repository::discover(root.path()) {
        Ok(repo) => repo,
        Err(e) if e.code() == git2::ErrorCode::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let Some(workdir) = repo.workdir() else {
        return Ok(None); // a bare repository has no files to badge
    };
    let workdir = std::fs::canonicalize(workdir).unwrap_or_else(|_| workdir.to_path_buf());
    let prefix = match root.path().strip_prefix(&workdir) {
        Ok(rel) if rel.as_os_str().is_empty() => String::new(),
        Ok(rel) => format!("{}/", crate::paths::to_slash(rel)),
        Err(_) => return Ok(None),
    };

    let mut opts = StatusOptions::new();
    opts.include_untracked(true)
        .recurse_untracked_dirs(false)
        .include_ignored(false)
        .exclude_submodules(false);
    if !prefix.is_empty() {
        opts.pathspec(&prefix);
    }
    let statuses = repo.statuses(Some(&mut opts))?;
    let mut entries = BTreeMap::new();
    for s in statuses.iter() {
        let Ok(path) = s.path() else { continue };
        let Some(rel) = path.strip_prefix(&prefix) else {
            continue;
        };
        // What the rules keep from the agent is not named to it either (the window's own
        // root hides nothing: the person sees every badge).
        if rel.is_empty() || root.is_secret(&root.path().join(rel)) {
            continue;
        }
        let st = s.status();
        let Some(badge) = badge(st) else { continue };
        let (index, worktree) = columns(st);
        entries.insert(
            rel.to_string(),
            StatusEntry {
                path: rel.to_string(),
                index,
                worktree,
                badge,
            },
        );
    }
    let branch = repo
        .head()
        .ok()
        .and_then(|h| h.shorthand().ok().map(str::to_string));
    Ok(Some(GitStatus { branch, entries }))
}

fn badge(st: Status) -> Option<GitBadge> {
    Some(if st.is_conflicted() {
        GitBadge::Conflicted
    } else if st.intersects(Status::INDEX_DELETED | Status::WT_DELETED) {
        GitBadge::Deleted
    } else if st.intersects(Status::INDEX_RENAMED | Status::WT_RENAMED) {
        GitBadge::Renamed
    } else if st.contains(Status::INDEX_NEW) {
        GitBadge::Added
    } else if st.intersects(
        Status::INDEX_MODIFIED
            | Status::WT_MODIFIED
            | Status::INDEX_TYPECHANGE
            | Status::WT_TYPECHANGE,
    ) {
        GitBadge::Modified
    } else if st.contains(Status::WT_NEW) {
        GitBadge::Untracked
    } else {
        return None;
    })
}

fn columns(st: Status) -> (char, char) {
    if st.is_conflicted() {
        return ('U', 'U');
    }
    if st.contains(Status::WT_NEW) && !st.contains(Status::INDEX_NEW) {
        return ('?', '?');
    }
    let index = if st.contains(Status::INDEX_NEW) {
        'A'
    } else if st.contains(Status::INDEX_MODIFIED) {
        'M'
    } else if st.contains(Status::INDEX_DELETED) {
        'D'
    } else if st.contains(Status::INDEX_RENAMED) {
        'R'
    } else if st.contains(Status::INDEX_TYPECHANGE) {
        'T'
    } else {
        ' '
    };
    let worktree = if st.contains(Status::WT_MODIFIED) {
        'M'
    } else if st.contains(Status::WT_DELETED) {
        'D'
    } else if st.contains(Status::WT_RENAMED) {
        'R'
    } else if st.contains(Status::WT_TYPECHANGE) {
        'T'
    } else {
        ' '
    };
    (index, worktree)
}

impl GitStatus {
    pub fn entries(&self) -> impl Iterator<Item = &StatusEntry> {
        self.entries.values()
    }

    pub fn is_clean(&self) -> bool {
        self.entries.is_empty()
    }

    /// The badge of a file: its own state, or untracked when it lies in an untracked folder.
    pub fn file_badge(&self, path: &str) -> Option<GitBadge> {
        if let Some(e) = self.entries.get(path) {
            return Some(e.badge);
        }
        self.untracked_ancestor(path)
    }

    /// The badge of a folder: the strongest state of anything beneath it.
    pub fn dir_badge(&self, path: &str) -> Option<GitBadge> {
        if let Some(b) = self.untracked_ancestor(path) {
            return Some(b);
        }
        let prefix = format!("{path}/");
        self.entries
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
            .map(|(_, e)| e.badge)
            .reduce(GitBadge::max)
    }

    /// Untracked folders are listed once (`dir/`), so anything below one is untracked too.
    fn untracked_ancestor(&self, path: &str) -> Option<GitBadge> {
        path.char_indices()
            .filter(|&(_, c)| c == '/')
            .find_map(|(i, _)| {
                self.entries
                    .get(&path[..=i])
                    .filter(|e| e.badge == GitBadge::Untracked)
                    .map(|_| GitBadge::Untracked)
            })
    }

    /// `git status --short` style, for the model.
    pub fn render(&self) -> String {
        let mut out = String::new();
        if let Some(b) = &self.branch {
            let _ = writeln!(out, "On branch {b}");
        }
        if self.entries.is_empty() {
            out.push_str("Nothing to commit, working tree clean.\n");
        }
        for e in self.entries.values() {
            let _ = writeln!(out, "{}{} {}", e.index, e.worktree, e.path);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::path::Path;

    fn commit_all(repo: &Repository, msg: &str) {
        let mut index = repo.index().expect("index");
        index
            .add_all(["*"].iter(), git2::IndexAddOption::DEFAULT, None)
            .expect("add");
        index.write().expect("write index");
        let tree = repo
            .find_tree(index.write_tree().expect("tree"))
            .expect("find tree");
        let sig = git2::Signature::now("Test", "test@example.com").expect("sig");
        let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
        let parents: Vec<_> = parent.iter().collect();
        repo.commit(Some("HEAD"), &sig, &sig, msg, &tree, &parents)
            .expect("commit");
    }

    fn write(dir: &Path, path: &str, body: &str) {
        let p = dir.join(path);
        if let Some(parent) = p.parent() {
            fs::create_dir_all(parent).expect("mkdir");
        }
        fs::write(p, body).expect("write");
    }

    fn repo_with_changes() -> (tempfile::TempDir, ProjectRoot) {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path();
        let repo = Repository::init(p).expect("init");
        write(p, ".gitignore", "*.log\n");
        write(p, "README.md", "hello\n");
        write(p, "src/main.rs", "fn main() {}\n");
        write(p, "src/util/mod_a.rs", "a\n");
        write(p, "gone.txt", "bye\n");
        commit_all(&repo, "init");
        write(p, "src/main.rs", "fn main() { println!(); }\n");
        fs::remove_file(p.join("gone.txt")).expect("rm");
        write(p, "notes.txt", "untracked\n");
        write(p, "build.log", "ignored\n");
        write(p, "newdir/a/b.txt", "untracked folder\n");
        let mut index = repo.index().expect("index");
        write(p, "staged.rs", "new\n");
        index.add_path(Path::new("staged.rs")).expect("stage");
        index.write().expect("write");
        let root = ProjectRoot::open(p).expect("open");
        (dir, root)
    }

    #[test]
    fn badges_for_files_and_rolled_up_folders() {
        let (_d, root) = repo_with_changes();
        let st = git_status(&root).expect("status").expect("a repo");
        assert_eq!(st.file_badge("src/main.rs"), Some(GitBadge::Modified));
        assert_eq!(st.file_badge("notes.txt"), Some(GitBadge::Untracked));
        assert_eq!(st.file_badge("staged.rs"), Some(GitBadge::Added));
        assert_eq!(st.file_badge("README.md"), None);
        assert_eq!(
            st.file_badge("build.log"),
            None,
            "ignored files have no badge"
        );
        assert_eq!(st.dir_badge("src"), Some(GitBadge::Modified));
        assert_eq!(st.dir_badge("src/util"), None);
        assert_eq!(st.dir_badge("newdir"), Some(GitBadge::Untracked));
        assert_eq!(st.dir_badge("newdir/a"), Some(GitBadge::Untracked));
        assert_eq!(st.file_badge("newdir/a/b.txt"), Some(GitBadge::Untracked));
        assert_eq!(st.branch.as_deref(), Some(default_branch(&root)));
    }

    fn default_branch(root: &ProjectRoot) -> &'static str {
        let repo = Repository::open(root.path()).expect("open");
        let head = repo.head().expect("head");
        if head.shorthand().ok() == Some("main") {
            "main"
        } else {
            "master"
        }
    }

    #[test]
    fn render_is_short_status() {
        let (_d, root) = repo_with_changes();
        let st = git_status(&root).expect("status").expect("repo");
        let text = st.render();
        assert!(text.contains(" D gone.txt\n"), "{text}");
        assert!(text.contains(" M src/main.rs\n"), "{text}");
        assert!(text.contains("?? notes.txt\n"), "{text}");
        assert!(text.contains("?? newdir/\n"), "{text}");
        assert!(text.contains("A  staged.rs\n"), "{text}");
        assert!(!text.contains("build.log"), "{text}");
    }

    #[test]
    fn project_in_a_sub_folder_sees_only_its_own_paths() {
        let (d, _root) = repo_with_changes();
        let sub = ProjectRoot::open(d.path().join("src")).expect("open sub");
        let st = git_status(&sub).expect("status").expect("repo");
        assert_eq!(st.file_badge("main.rs"), Some(GitBadge::Modified));
        assert_eq!(st.entries().count(), 1);
    }

    #[test]
    fn outside_a_repository_is_none() {
        let dir = tempfile::tempdir().expect("tempdir");
        write(dir.path(), "a.txt", "a");
        let root = ProjectRoot::open(dir.path()).expect("open");
        assert_eq!(git_status(&root).expect("status"), None);
    }

    #[test]
    fn clean_tree_says_so() {
        let dir = tempfile::tempdir().expect("tempdir");
        let repo = Repository::init(dir.path()).expect("init");
        write(dir.path(), "a.txt", "a");
        commit_all(&repo, "init");
        let root = ProjectRoot::open(dir.path()).expect("open");
        let st = git_status(&root).expect("status").expect("repo");
        assert!(st.is_clean());
        assert!(st.render().contains("working tree clean"));
    }
}
