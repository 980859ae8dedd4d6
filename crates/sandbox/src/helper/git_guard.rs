//! Files in `.git` that would point the user's own git elsewhere, undone as soon as a command
//! makes them. `commondir` makes git take its configuration and hooks from another folder,
//! `config.worktree` adds configuration of its own; the folder stays writable (a commit writes
//! the index and objects there), so these two are looked for instead of kept read-only.
//!
//! Looked for every few milliseconds rather than watched with inotify: closing an inotify
//! instance waits for the kernel's mark clean-up (an SRCU grace period), which added ~13 ms to
//! every command's end.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// How often the git folder is looked at while the command runs.
const LOOK_EVERY: Duration = Duration::from_millis(25);

/// Names in the git folder no command may add.
pub(super) const REDIRECTS: &[&str] = &["commondir", "config.worktree"];

pub(super) struct GitGuard {
    dir: PathBuf,
    /// Those of [`REDIRECTS`] that were there before the command (the user's own).
    there_before: Vec<&'static str>,
    undone: Arc<Mutex<Vec<String>>>,
}

impl GitGuard {
    /// Starts looking at `dir` on a thread of its own (so it must run before the PID namespace
    /// is made, after which this process can start no thread).
    pub(super) fn start(dir: &Path) -> GitGuard {
        let there_before: Vec<&'static str> = REDIRECTS
            .iter()
            .copied()
            .filter(|n| std::fs::symlink_metadata(dir.join(n)).is_ok())
            .collect();
        let guard = GitGuard {
            dir: dir.to_path_buf(),
            there_before,
            undone: Arc::new(Mutex::new(Vec::new())),
        };
        let (dir, before, undone) = (
            guard.dir.clone(),
            guard.there_before.clone(),
            guard.undone.clone(),
        );
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(LOOK_EVERY);
                for n in REDIRECTS.iter().filter(|n| !before.contains(n)) {
                    if std::fs::symlink_metadata(dir.join(n)).is_ok() {
                        undo(&dir, n, &undone);
                    }
                }
            }
        });
        guard
    }

    /// After the command: anything the watch missed is undone now; what was undone, named for
    /// the report.
    pub(super) fn finish(&self) -> Vec<String> {
        for n in REDIRECTS {
            if !self.there_before.contains(n) && std::fs::symlink_metadata(self.dir.join(n)).is_ok()
            {
                undo(&self.dir, n, &self.undone);
            }
        }
        self.undone
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

fn undo(dir: &Path, name: &str, undone: &Mutex<Vec<String>>) {
    let path = dir.join(name);
    let removed = match std::fs::symlink_metadata(&path) {
        // remove_dir_all does not follow links inside.
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(&path).is_ok(),
        // A link itself is removed, never what it points at.
        Ok(_) => std::fs::remove_file(&path).is_ok(),
        Err(_) => false,
    };
    if removed {
        let mut list = undone.lock().unwrap_or_else(PoisonError::into_inner);
        let shown = format!(".git/{name}");
        if !list.contains(&shown) {
            list.push(shown);
        }
    }
}
