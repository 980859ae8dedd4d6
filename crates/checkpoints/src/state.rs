//! One path's content as a checkpoint keeps it: absent, or a blob in the store with its mode
//! (as git keeps files: plain, executable, or a symbolic link whose blob is its target).

use protocol::NotRestorableReason;
use serde::{Deserialize, Serialize};
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

/// Files bigger than this are not kept: a checkpoint must stay cheap, and a file this big is
/// not one an agent writes by hand.
pub const MAX_FILE_BYTES: u64 = 100 * 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileMode {
    Regular,
    Executable,
    Symlink,
}

impl FileMode {
    /// The mode of a git tree entry; None for what is not a file (a folder, a submodule).
    pub(crate) fn from_git(filemode: i32) -> Option<FileMode> {
        match filemode {
            0o100644 | 0o100664 => Some(FileMode::Regular),
            0o100755 => Some(FileMode::Executable),
            0o120000 => Some(FileMode::Symlink),
            _ => None,
        }
    }
}

/// A path's content at a checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FileState {
    Absent,
    /// `oid` is the git blob id of its bytes (of its target, for a link).
    File {
        oid: String,
        mode: FileMode,
    },
    /// What it held is not known, for this reason: it cannot be brought back.
    Unknown {
        reason: NotRestorableReason,
    },
}

impl FileState {
    pub fn file(oid: git2::Oid, mode: FileMode) -> FileState {
        FileState::File {
            oid: oid.to_string(),
            mode,
        }
    }

    pub fn oid(&self) -> Option<git2::Oid> {
        match self {
            FileState::File { oid, .. } => git2::Oid::from_str(oid).ok(),
            FileState::Absent | FileState::Unknown { .. } => None,
        }
    }
}

/// What is at a path on disk now.
pub(crate) enum OnDisk {
    Absent,
    Folder,
    /// A file (or a link's target) with its bytes.
    File {
        bytes: Vec<u8>,
        mode: FileMode,
    },
    TooLarge,
    /// A socket, a fifo, a device: nothing a checkpoint keeps.
    Other,
    /// It is there but could not be read (no permission, an I/O error): skipped, so one such
    /// file does not stop every checkpoint.
    Unreadable,
}

fn unreadable(path: &Path, e: &std::io::Error) -> OnDisk {
    tracing::warn!(path = %path.display(), %e, "a file could not be read for a checkpoint; it is skipped");
    OnDisk::Unreadable
}

pub(crate) fn read_now(path: &Path) -> std::io::Result<OnDisk> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e)
            if e.kind() == std::io::ErrorKind::NotFound
                || e.kind() == std::io::ErrorKind::NotADirectory =>
        {
            return Ok(OnDisk::Absent);
        }
        Err(e) => return Ok(unreadable(path, &e)),
    };
    let kind = meta.file_type();
    if kind.is_symlink() {
        let target = match std::fs::read_link(path) {
            Ok(t) => t,
            Err(e) => return Ok(unreadable(path, &e)),
        };
        return Ok(OnDisk::File {
            bytes: target.as_os_str().as_bytes().to_vec(),
            mode: FileMode::Symlink,
        });
    }
    if kind.is_dir() {
        return Ok(OnDisk::Folder);
    }
    if !kind.is_file() {
        return Ok(OnDisk::Other);
    }
    if meta.len() > MAX_FILE_BYTES {
        return Ok(OnDisk::TooLarge);
    }
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        // Removed between the look and the read.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(OnDisk::Absent),
        Err(e) => return Ok(unreadable(path, &e)),
    };
    let mode = if meta.permissions().mode() & 0o111 != 0 {
        FileMode::Executable
    } else {
        FileMode::Regular
    };
    Ok(OnDisk::File { bytes, mode })
}

/// Why a state could not be put on disk.
#[derive(Debug)]
pub(crate) enum PutError {
    /// A folder is where the file goes, or a file where a folder must be.
    InTheWay,
    Io(std::io::Error),
}

/// Puts `state` at `path` (under `root`) whole or not at all: a file is written to an unnamed
/// temporary and renamed over the old one (`tools::write_atomic`), a link is made under a
/// temporary name and renamed; absent removes the file, and then any folder it leaves empty.
pub(crate) fn put(
    root: &Path,
    rel: &str,
    state: &FileState,
    bytes: Option<&[u8]>,
) -> Result<(), PutError> {
    let path = root.join(tools::path_text::to_path(rel));
    let existing = std::fs::symlink_metadata(&path);
    if existing.as_ref().is_ok_and(|m| m.is_dir()) {
        return Err(PutError::InTheWay);
    }
    match state {
        FileState::Absent => {
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e)
                    if e.kind() == std::io::ErrorKind::NotFound
                        || e.kind() == std::io::ErrorKind::NotADirectory => {}
                Err(e) => return Err(PutError::Io(e)),
            }
            if let Some(parent) = path.parent() {
                sync_dir(parent);
            }
            remove_empty_parents(root, &path);
            Ok(())
        }
        FileState::Unknown { .. } => Err(PutError::Io(std::io::Error::other(
            "what the file held is not known",
        ))),
        FileState::File { mode, .. } => {
            let bytes = bytes.ok_or_else(|| {
                PutError::Io(std::io::Error::other("the saved copy was not read"))
            })?;
            let parent = path.parent().unwrap_or(root);
            std::fs::create_dir_all(parent).map_err(|e| {
                if e.kind() == std::io::ErrorKind::AlreadyExists
                    || e.kind() == std::io::ErrorKind::NotADirectory
                {
                    PutError::InTheWay
                } else {
                    PutError::Io(e)
                }
            })?;
            if *mode == FileMode::Symlink {
                return put_link(&path, bytes).map_err(PutError::Io);
            }
            tools::write_atomic(&path, bytes).map_err(PutError::Io)?;
            let perms = std::fs::metadata(&path)
                .map_err(PutError::Io)?
                .permissions();
            let want = match mode {
                FileMode::Executable => perms.mode() | ((perms.mode() & 0o444) >> 2),
                _ => perms.mode() & !0o111,
            };
            if want != perms.mode() {
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(want))
                    .map_err(PutError::Io)?;
            }
            Ok(())
        }
    }
}

fn put_link(path: &Path, target: &[u8]) -> std::io::Result<()> {
    let target = std::ffi::OsStr::from_bytes(target);
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(
        ".{}.tandem-link-{}.tmp",
        name.unwrap_or_default(),
        std::process::id()
    ));
    let _ = std::fs::remove_file(&tmp);
    std::os::unix::fs::symlink(target, &tmp)?;
    if let Err(e) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    sync_dir(dir);
    Ok(())
}

/// A removal or a rename is durable only once its folder is synced.
fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Folders a removed file leaves empty go too, as git does: a turn that created `src/new/`
/// leaves no empty `src/new/` behind once undone.
fn remove_empty_parents(root: &Path, path: &Path) {
    let mut dir = path.parent();
    while let Some(d) = dir {
        if d == root || !d.starts_with(root) {
            return;
        }
        if std::fs::remove_dir(d).is_err() {
            return;
        }
        dir = d.parent();
    }
}

/// The git blob id of bytes.
pub(crate) fn blob_id(bytes: &[u8]) -> git2::Oid {
    // Hashing cannot fail for a blob; a zero id would only make the file look changed.
    git2::Oid::hash_object(git2::ObjectType::Blob, bytes).unwrap_or(git2::Oid::ZERO_SHA1)
}
