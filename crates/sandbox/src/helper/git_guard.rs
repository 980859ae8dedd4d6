//! Files in `.git` that would point the user's own git elsewhere, undone as soon as a command
//! makes them. `commondir` makes git take its configuration and hooks from another folder,
//! `config.worktree` adds configuration of its own; the folder stays writable (a commit writes
//! the index and objects there), so these two are watched instead of kept read-only.

use nix::sys::inotify::{AddWatchFlags, InitFlags, Inotify};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// Names in the git folder no command may add.
pub(super) const REDIRECTS: &[&str] = &["commondir", "config.worktree"];

pub(super) struct GitGuard {
    dir: PathBuf,
    /// Those of [`REDIRECTS`] that were there before the command (the user's own).
    there_before: Vec<&'static str>,
    undone: Arc<Mutex<Vec<String>>>,
}

impl GitGuard {
    /// Starts watching `dir` on a thread of its own (so it must run before the PID namespace
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
        let watched = Inotify::init(InitFlags::IN_CLOEXEC).and_then(|i| {
            i.add_watch(
                dir,
                AddWatchFlags::IN_CREATE | AddWatchFlags::IN_MOVED_TO | AddWatchFlags::IN_ONLYDIR,
            )
            .map(|_| i)
        });
        if let Ok(inotify) = watched {
            let (dir, before, undone) = (
                guard.dir.clone(),
                guard.there_before.clone(),
                guard.undone.clone(),
            );
            std::thread::spawn(move || {
                while let Ok(events) = inotify.read_events() {
                    for e in events {
                        let Some(name) = e.name.as_ref().and_then(|n| n.to_str()) else {
                            continue;
                        };
                        if let Some(n) = REDIRECTS.iter().find(|r| **r == name)
                            && !before.contains(n)
                        {
                            undo(&dir, n, &undone);
                        }
                    }
                }
            });
        }
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
