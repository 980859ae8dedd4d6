//! What the sandbox must know of a project as it changes: which files hold secrets (hidden
//! from every command) and which git repositories lie inside it (their configuration kept out
//! of reach; a new one a command made is undone).
//!
//! The whole tree is read once, in the background, by the same walk that sets a watch on each
//! folder; after that, what a command costs is what changed, not what the project holds. The
//! list only grows: a secret found once stays hidden for the session wherever it was seen, and
//! a file moved elsewhere is found again there. When the watcher may have missed something (its
//! queue overflowed, a folder could not be watched), the next look reads the whole tree again:
//! the list is never left short.

use crate::tree_feed::{FeedOptions, TreeFeed};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

/// What is known at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Known {
    /// Every secret file seen in the session (absolute; some may be gone since).
    pub secrets: Vec<PathBuf>,
    /// The `.git` entries (folders or files) inside the project now, its own included.
    pub repositories: Vec<PathBuf>,
}

#[derive(Default)]
struct State {
    ready: bool,
    secrets: BTreeSet<PathBuf>,
    repositories: BTreeSet<PathBuf>,
    feed: Option<TreeFeed>,
}

/// A project's secret files and repositories, kept current.
pub struct ProjectGuard {
    root: PathBuf,
    is_secret: crate::SecretTest,
    state: Mutex<State>,
    ready: Condvar,
}

impl std::fmt::Debug for ProjectGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProjectGuard")
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

/// Whether `path` is a socket file: a service's socket inside the project (a development
/// Postgres's `.s.PGSQL.5432`, overmind's `.overmind.sock`) is the host's program, reachable
/// by name from the sandbox whatever the kernel's table says, so it is hidden as a secret is.
/// A socket a command makes in its copy-on-write layer never appears here.
fn is_socket(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt as _;
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_socket())
}

impl ProjectGuard {
    /// Starts reading and watching `root` on a thread of its own. `sync_dir` is a folder of the
    /// caller's outside the project (the watcher's flush markers go there).
    pub fn start(
        root: &Path,
        sync_dir: &Path,
        is_secret: impl Into<crate::SecretTest>,
    ) -> Arc<Self> {
        let guard = Arc::new(ProjectGuard {
            root: root.to_path_buf(),
            is_secret: is_secret.into(),
            state: Mutex::new(State::default()),
            ready: Condvar::new(),
        });
        let (g, sync) = (guard.clone(), sync_dir.to_path_buf());
        let spawned = std::thread::Builder::new()
            .name("project-guard".into())
            .spawn(move || g.first_look(&sync));
        if spawned.is_err() {
            // No thread to spare: the first look happens now.
            guard.first_look(sync_dir);
        }
        guard
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn first_look(&self, sync_dir: &Path) {
        let mut secrets = BTreeSet::new();
        let mut repositories = BTreeSet::new();
        let options = FeedOptions {
            skip_ignored: false,
            report_git: true,
        };
        let feed = TreeFeed::start(&self.root, sync_dir, options, &mut |rel, _| {
            self.note(rel, &mut secrets, &mut repositories);
        });
        let feed = match feed {
            Ok(f) => Some(f),
            Err(e) => {
                tracing::info!(%e, "the project cannot be watched; each command reads it whole for secret files");
                let (s, r) = self.read_whole();
                secrets = s;
                repositories = r;
                None
            }
        };
        let mut state = self.state();
        state.secrets.extend(secrets);
        state.repositories = repositories;
        state.feed = feed;
        state.ready = true;
        self.ready.notify_all();
    }

    fn note(&self, rel: &str, secrets: &mut BTreeSet<PathBuf>, repos: &mut BTreeSet<PathBuf>) {
        let path = self.root.join(rel);
        if path.file_name().is_some_and(|n| n == ".git") {
            repos.insert(path);
        } else if (self.is_secret)(&path) || is_socket(&path) {
            secrets.insert(path);
        }
    }

    /// Every secret file and repository, by reading the whole tree.
    fn read_whole(&self) -> (BTreeSet<PathBuf>, BTreeSet<PathBuf>) {
        let mut secrets = BTreeSet::new();
        let mut repos = BTreeSet::new();
        // A `.git` is met but never looked into.
        let walk = ignore::WalkBuilder::new(&self.root)
            .standard_filters(false)
            .follow_links(false)
            .filter_entry(|e| {
                e.path()
                    .parent()
                    .is_none_or(|p| p.file_name().is_none_or(|n| n != ".git"))
            })
            .build();
        for entry in walk.flatten() {
            let Ok(rel) = entry.path().strip_prefix(&self.root) else {
                continue;
            };
            if rel.as_os_str().is_empty() {
                continue;
            }
            let rel = rel.to_string_lossy();
            self.note(&rel, &mut secrets, &mut repos);
        }
        (secrets, repos)
    }

    /// What is known now: waits for the first look, then takes in what the watcher saw since
    /// the last call (or reads the whole tree when it may have missed something).
    pub fn current(&self) -> Known {
        let mut state = self.state();
        // The first look runs on its thread; wait for it.
        while !state.ready {
            state = self
                .ready
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
        let taken = state.feed.as_ref().map(|f| f.take());
        match taken {
            Some(t) if t.complete => {
                for rel in t.paths {
                    let path = self.root.join(&rel);
                    let exists = std::fs::symlink_metadata(&path).is_ok();
                    if path.file_name().is_some_and(|n| n == ".git") {
                        if exists {
                            state.repositories.insert(path);
                        } else {
                            state.repositories.remove(&path);
                        }
                    } else if exists && ((self.is_secret)(&path) || is_socket(&path)) {
                        state.secrets.insert(path);
                    }
                }
            }
            _ => {
                let (secrets, repos) = self.read_whole();
                state.secrets.extend(secrets);
                state.repositories = repos;
            }
        }
        Known {
            secrets: state.secrets.iter().cloned().collect(),
            repositories: state.repositories.iter().cloned().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secret(p: &Path) -> bool {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(".env"))
    }

    #[test]
    fn secrets_are_found_everywhere_and_kept_when_moved() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        let project = root.join("p");
        std::fs::create_dir_all(project.join("config")).expect("mkdir");
        std::fs::create_dir_all(project.join("target/debug")).expect("mkdir");
        std::fs::create_dir_all(project.join("node_modules/x")).expect("mkdir");
        std::fs::create_dir_all(project.join(".git/objects")).expect("mkdir");
        std::fs::write(project.join("config/.env"), "K=1").expect("write");
        std::fs::write(project.join("node_modules/x/.env.local"), "K=1").expect("write");
        std::fs::write(
            project.join(".git/objects/.env"),
            "not a file of the project",
        )
        .expect("write");
        let guard = ProjectGuard::start(&project, &root.join("sync"), secret);
        let known = guard.current();
        assert_eq!(
            known.secrets,
            vec![
                project.join("config/.env"),
                project.join("node_modules/x/.env.local")
            ]
        );
        assert_eq!(known.repositories, vec![project.join(".git")]);

        // Moved under target/ (skipped by the old scan), and a new one in a new folder.
        std::fs::rename(project.join("config"), project.join("target/config")).expect("mv");
        std::fs::create_dir_all(project.join("deep/er")).expect("mkdir");
        std::fs::write(project.join("deep/er/.env.production"), "K=2").expect("write");
        std::fs::create_dir_all(project.join("vendor/lib/.git")).expect("nested repo");
        let known = guard.current();
        for s in [
            "config/.env",
            "target/config/.env",
            "node_modules/x/.env.local",
            "deep/er/.env.production",
        ] {
            assert!(known.secrets.contains(&project.join(s)), "{s}: {known:?}");
        }
        assert_eq!(
            known.repositories,
            vec![project.join(".git"), project.join("vendor/lib/.git")]
        );
    }

    #[test]
    fn two_hundred_thousand_entries_do_not_cut_the_search_short() {
        // The old scan stopped after 200,000 entries and hid only what it had found by then.
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        let project = root.join("p");
        let many = project.join("aaa-many");
        std::fs::create_dir_all(&many).expect("mkdir");
        for i in 0..200_100 {
            std::fs::File::create(many.join(format!("{i}"))).expect("file");
        }
        std::fs::create_dir_all(project.join("zzz")).expect("mkdir");
        std::fs::write(project.join("zzz/.env"), "K=1").expect("write");
        let guard = ProjectGuard::start(&project, &root.join("sync"), secret);
        assert_eq!(guard.current().secrets, vec![project.join("zzz/.env")]);
    }
}
