//! Watching a project folder, so the window's tree and git badges follow changes made outside
//! it (an editor, a terminal, a build) without a Refresh. Changes arrive in bursts (a build
//! writes hundreds of files, `git checkout` rewrites many): they are gathered until the folder
//! has been quiet for a moment, then reported once.

use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Quiet time that ends a burst.
const QUIET: Duration = Duration::from_millis(250);
/// A burst that never goes quiet (a watcher in a loop) is still reported this often.
const MAX_WAIT: Duration = Duration::from_millis(1500);

#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    #[error("cannot watch {path}: {source}")]
    Watch {
        path: PathBuf,
        #[source]
        source: notify::Error,
    },
}

/// Watches a folder while it lives; dropping it stops the watching.
pub struct ProjectWatcher {
    _watcher: RecommendedWatcher,
}

impl ProjectWatcher {
    /// Calls `on_change` with the project-relative paths (`/`-separated) that changed, once per
    /// burst, from a thread of its own.
    pub fn start(
        root: &Path,
        on_change: impl Fn(Vec<String>) + Send + 'static,
    ) -> Result<Self, WatchError> {
        Self::start_with(root, QUIET, on_change)
    }

    /// As [`start`](Self::start), a burst ending after `quiet` without a change (zero: report
    /// every change as it comes, for a cache that must never answer stale).
    pub fn start_with(
        root: &Path,
        quiet: Duration,
        on_change: impl Fn(Vec<String>) + Send + 'static,
    ) -> Result<Self, WatchError> {
        let (tx, rx) = mpsc::channel::<PathBuf>();
        let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
            if let Ok(event) = res
                && !matches!(event.kind, notify::EventKind::Access(_))
            {
                for path in event.paths {
                    let _ = tx.send(path);
                }
            }
        })
        .map_err(|source| WatchError::Watch {
            path: root.to_path_buf(),
            source,
        })?;
        watcher
            .watch(root, RecursiveMode::Recursive)
            .map_err(|source| WatchError::Watch {
                path: root.to_path_buf(),
                source,
            })?;
        let root = root.to_path_buf();
        std::thread::Builder::new()
            .name("project-watch".into())
            .spawn(move || gather(&root, &rx, quiet, &on_change))
            .map_err(|e| WatchError::Watch {
                path: PathBuf::new(),
                source: notify::Error::io(e),
            })?;
        Ok(Self { _watcher: watcher })
    }
}

/// Runs until the watcher is dropped (its sender goes, so the channel closes).
fn gather(
    root: &Path,
    rx: &mpsc::Receiver<PathBuf>,
    quiet: Duration,
    on_change: &dyn Fn(Vec<String>),
) {
    let mut burst: BTreeSet<String> = BTreeSet::new();
    let mut started: Option<Instant> = None;
    loop {
        let wait = match started {
            None => Duration::from_secs(3600),
            Some(s) => quiet.min(MAX_WAIT.saturating_sub(s.elapsed())),
        };
        match rx.recv_timeout(wait) {
            Ok(path) => {
                if let Some(rel) = relevant(root, &path) {
                    burst.insert(rel);
                    started.get_or_insert_with(Instant::now);
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if !burst.is_empty() {
                    on_change(std::mem::take(&mut burst).into_iter().collect());
                }
                started = None;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// The path as the tree names it, or None for changes nobody sees: git's own bookkeeping
/// (objects, logs, lock files). What moves the badges in `.git` (the index, HEAD, branch
/// refs) counts, as `.git` itself.
fn relevant(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let rel = crate::paths::to_slash(rel);
    if rel.is_empty() {
        return None;
    }
    match rel.split_once('/') {
        Some((".git", inner)) => {
            let counts = inner == "index" || inner == "HEAD" || inner.starts_with("refs/");
            (counts && !inner.ends_with(".lock")).then(|| ".git".to_string())
        }
        None if rel == ".git" => None,
        _ => Some(rel),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_bookkeeping_is_not_a_change_but_the_index_is() {
        let root = Path::new("/p");
        let rel = |p: &str| relevant(root, &root.join(p));
        assert_eq!(rel("src/main.rs").as_deref(), Some("src/main.rs"));
        assert_eq!(rel(".git/objects/ab/cdef"), None);
        assert_eq!(rel(".git/index.lock"), None);
        assert_eq!(rel(".git/index").as_deref(), Some(".git"));
        assert_eq!(rel(".git/refs/heads/main").as_deref(), Some(".git"));
        assert_eq!(relevant(root, Path::new("/elsewhere/x")), None);
    }

    #[test]
    fn a_burst_of_writes_is_reported_once_with_every_path() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        let (tx, rx) = mpsc::channel();
        let _w = ProjectWatcher::start(&root, move |paths| {
            let _ = tx.send(paths);
        })
        .expect("watch");
        // A new folder is reported itself; files written into it before the watch on it is
        // set up may not be (the tree re-reads the folder anyway).
        std::fs::create_dir(root.join("src")).expect("mkdir");
        let first = rx
            .recv_timeout(Duration::from_secs(10))
            .expect("the folder");
        assert_eq!(first, ["src"]);
        for i in 0..20 {
            std::fs::write(root.join(format!("src/f{i}.txt")), "x").expect("write");
        }
        let mut seen = BTreeSet::new();
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut reports = 0;
        while seen.len() < 20 && Instant::now() < deadline {
            if let Ok(paths) = rx.recv_timeout(Duration::from_millis(200)) {
                reports += 1;
                seen.extend(paths);
            }
        }
        assert!(seen.contains("src/f0.txt"), "{seen:?}");
        assert!(seen.contains("src/f19.txt"), "{seen:?}");
        assert!(reports <= 3, "{reports} reports for one burst");
    }

    #[test]
    fn dropping_the_watcher_stops_the_reports() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        let (tx, rx) = mpsc::channel();
        let w = ProjectWatcher::start(&root, move |paths| {
            let _ = tx.send(paths);
        })
        .expect("watch");
        drop(w);
        std::fs::write(root.join("late.txt"), "x").expect("write");
        assert!(rx.recv_timeout(Duration::from_millis(800)).is_err());
    }
}
