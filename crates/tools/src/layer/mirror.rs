//! Ignored output of a command that still runs (a server, a watcher), copied into the project
//! as it comes, so the person's own tools see a `dist/` or a `target/` while it is written.
//! The layer is never changed under its live mount (overlayfs forbids it): files are copied,
//! not moved, and when the command ends its landing moves the layer's own copies over these.
//! Only output git ignores is copied, never what could make a program run code, and never
//! over a file the person changed since the command started.

use super::kinds::{Kind, Sorter};
use super::land::{Mirrored, parent_of, remove_any};
use super::read::{self, Upper};
use std::collections::HashMap;
use std::os::fd::AsRawFd as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

/// Copies a running command's ignored output from its layer into the project.
#[derive(Debug)]
pub struct Mirror {
    project: PathBuf,
    upper: PathBuf,
    started: SystemTime,
    /// Each layer file as last copied (size, modification time): copied again once it changes.
    copied: HashMap<PathBuf, (u64, i64, i64)>,
    /// Shared with the layer's landing: what the copies changed is not a conflict.
    mirrored: Arc<Mutex<Mirrored>>,
}

impl Mirror {
    pub(crate) fn new(
        project: PathBuf,
        upper: PathBuf,
        started: SystemTime,
        mirrored: Arc<Mutex<Mirrored>>,
    ) -> Self {
        Mirror {
            project,
            upper,
            started,
            copied: HashMap::new(),
            mirrored,
        }
    }

    /// Copies what the command's ignored output became since the last call; how many files
    /// were copied or removed.
    pub fn sync(&mut self) -> usize {
        let Ok(entries) = read::read(&self.upper, &self.project) else {
            return 0;
        };
        let (project, upper) = (self.project.clone(), self.upper.clone());
        // The project's ignore rules as the command started: it cannot change them (its
        // writes are in the layer), so nothing it writes becomes ignored output by its say.
        let mut sorter = Sorter::new(&project, &upper);
        let mut ignored_below: Option<PathBuf> = None;
        // A folder that could make a program run code (a repository's shape) is never copied,
        // nor anything in it: it waits for the landing, which asks.
        let mut refused_below: Option<PathBuf> = None;
        let mut done = 0;
        for e in entries {
            if refused_below.as_ref().is_some_and(|p| e.rel.starts_with(p)) {
                continue;
            }
            let folder = matches!(e.kind, Upper::Folder { .. });
            let inside = ignored_below.as_ref().is_some_and(|p| e.rel.starts_with(p));
            let kind = if inside {
                // In an ignored folder everything is ignored, but for what runs code.
                match sorter.kind_inside(&e.rel, folder) {
                    Kind::RunsCode(why) => Kind::RunsCode(why),
                    _ => Kind::Ignored,
                }
            } else {
                sorter.kind(&e.rel, folder)
            };
            if kind != Kind::Ignored {
                if folder {
                    refused_below = Some(e.rel.clone());
                }
                continue;
            }
            if folder && !inside {
                ignored_below = Some(e.rel.clone());
            }
            let target = self.project.join(&e.rel);
            if !self.ours(&target) && changed_here(&target, self.started) {
                // The person's own (an `.env` git ignores): never copied over.
                continue;
            }
            let copied = match e.kind {
                Upper::Deleted => self.remove(&e.rel),
                Upper::Folder { opaque } => self.folder(&e.rel, opaque),
                Upper::File => self.file(&e.rel),
                Upper::Symlink => self.link(&e.rel),
                Upper::Special => Ok(false),
            };
            match copied {
                Ok(true) => done += 1,
                Ok(false) => {}
                Err(err) => {
                    tracing::debug!(%err, path = %e.rel.display(), "ignored output not copied yet");
                }
            }
        }
        done
    }

    /// Whether the project's copy at `target` is as this mirror left it.
    fn ours(&self, target: &Path) -> bool {
        let mirrored = self.mirrored.lock().unwrap_or_else(PoisonError::into_inner);
        mirrored.get(target).is_some_and(|stamp| {
            std::fs::symlink_metadata(target).is_ok_and(|m| *stamp == (m.ctime(), m.ctime_nsec()))
        })
    }

    /// Notes `rel` (and its folder, whose entries changed) as this mirror left them.
    fn note(&self, rel: &Path) {
        let mut mirrored = self.mirrored.lock().unwrap_or_else(PoisonError::into_inner);
        super::land::note_ours(&mut mirrored, &self.project, rel);
    }

    fn remove(&mut self, rel: &Path) -> std::io::Result<bool> {
        let (parent, name) = parent_of(&self.project, rel)?;
        let target = in_folder(&parent, &name);
        if std::fs::symlink_metadata(&target).is_err() {
            return Ok(false);
        }
        remove_any(&target)?;
        self.copied.remove(rel);
        self.note(rel.parent().unwrap_or(Path::new("")));
        Ok(true)
    }

    fn folder(&mut self, rel: &Path, opaque: bool) -> std::io::Result<bool> {
        let (parent, name) = parent_of(&self.project, rel)?;
        let target = in_folder(&parent, &name);
        let there = std::fs::symlink_metadata(&target);
        let fresh = !self.copied.contains_key(rel);
        if there.as_ref().is_ok_and(|m| !m.is_dir()) || (opaque && fresh && there.is_ok()) {
            // A folder made anew over the project's: what the project had there goes.
            remove_any(&target)?;
        }
        if std::fs::symlink_metadata(&target).is_err() {
            rustix::fs::mkdirat(&parent, name.as_os_str(), rustix::fs::Mode::from(0o755))?;
            self.note(rel);
        }
        self.copied.insert(rel.to_path_buf(), (0, 0, 0));
        Ok(false)
    }

    fn file(&mut self, rel: &Path) -> std::io::Result<bool> {
        // Opened below the layer without following a link on the way or waiting on a pipe
        // (the command may swap the file, or a folder above it, for either meanwhile), and
        // copied as a stream: an output of gigabytes never sits in memory.
        let Some(mut from) = super::read::open_regular(&self.upper, rel)? else {
            return Ok(false);
        };
        let meta = from.metadata()?;
        let seen = (meta.len(), meta.mtime(), meta.mtime_nsec());
        if self.copied.get(rel) == Some(&seen) {
            return Ok(false);
        }
        let (parent, name) = parent_of(&self.project, rel)?;
        let target = in_folder(&parent, &name);
        if std::fs::symlink_metadata(&target).is_ok_and(|m| m.is_dir()) {
            remove_any(&target)?;
        }
        crate::atomic::write_atomic_with(&target, |to| std::io::copy(&mut from, to).map(|_| ()))?;
        std::fs::set_permissions(&target, meta.permissions())?;
        self.copied.insert(rel.to_path_buf(), seen);
        self.note(rel);
        Ok(true)
    }

    fn link(&mut self, rel: &Path) -> std::io::Result<bool> {
        let to = std::fs::read_link(self.upper.join(rel))?;
        let (parent, name) = parent_of(&self.project, rel)?;
        let target = in_folder(&parent, &name);
        if std::fs::read_link(&target).is_ok_and(|t| t == to) {
            return Ok(false);
        }
        remove_any(&target)?;
        std::os::unix::fs::symlink(&to, &target)?;
        self.note(rel);
        Ok(true)
    }
}

/// Whether the path itself (not what a folder holds: its files are looked at on their own)
/// changed after `started`.
fn changed_here(path: &Path, started: SystemTime) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| {
        SystemTime::UNIX_EPOCH
            + std::time::Duration::new(m.ctime().max(0) as u64, m.ctime_nsec().max(0) as u32)
            > started
    })
}

fn in_folder(parent: &std::os::fd::OwnedFd, name: &std::ffi::OsStr) -> PathBuf {
    PathBuf::from(format!("/proc/self/fd/{}", parent.as_raw_fd())).join(name)
}
