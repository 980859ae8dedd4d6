//! One writer at a time per file across every Tandem process of this user (the window's
//! sessions, a second window, `tandem-cli`): the check that a file still holds what a change
//! was planned from, and the rename that replaces it, happen under one lock. Two runs editing
//! their own lines of one file lost each other's reported edits when the check and the rename
//! could interleave. Editors and other programs do not take the lock; against them the check
//! right before the rename leaves only that instant.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long a write waits for another Tandem process's write of the same file: a write takes
/// milliseconds; one held longer belongs to a process that hung.
const WAIT: Duration = Duration::from_secs(10);

/// The lock for writing `real` (its canonical path), held until dropped.
pub(crate) struct WriteLock {
    _file: File,
}

/// The user's own folder for the lock files: `$XDG_RUNTIME_DIR` (private by design), else one
/// in the temporary folder that must be this user's and closed to others — a folder someone
/// else made there could otherwise hold every lock and stop every write.
fn locks_dir() -> std::io::Result<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _};
    let uid = rustix::process::getuid().as_raw();
    let dir = match std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        Some(run) => PathBuf::from(run).join("tandem-write-locks"),
        None => std::env::temp_dir().join(format!("tandem-write-locks-{uid}")),
    };
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)?;
    let meta = std::fs::symlink_metadata(&dir)?;
    if !meta.is_dir() || meta.uid() != uid || meta.mode() & 0o077 != 0 {
        return Err(std::io::Error::other(format!(
            "the lock folder {} is not this user's own private folder; remove it, then retry",
            dir.display()
        )));
    }
    Ok(dir)
}

/// FNV-1a: stable across processes and builds, unlike the standard library's hasher.
fn stable_hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

impl WriteLock {
    /// Waits for the lock of `real` (at most 10 s). The lock files stay (one per file ever
    /// written, empty): removing one while another process waits on it would let two writers in.
    pub fn acquire(real: &Path) -> std::io::Result<WriteLock> {
        Self::acquire_within(real, WAIT)
    }

    fn acquire_within(real: &Path, wait: Duration) -> std::io::Result<WriteLock> {
        use rustix::fs::FlockOperation;
        use std::os::unix::ffi::OsStrExt as _;
        use std::os::unix::fs::OpenOptionsExt as _;
        let name = format!("{:016x}.lock", stable_hash(real.as_os_str().as_bytes()));
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(locks_dir()?.join(name))?;
        let until = Instant::now() + wait;
        loop {
            match rustix::fs::flock(&file, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => return Ok(WriteLock { _file: file }),
                Err(rustix::io::Errno::WOULDBLOCK) if Instant::now() < until => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(rustix::io::Errno::WOULDBLOCK) => {
                    return Err(std::io::Error::other(
                        "another Tandem process has been writing this file for over 10 s (it may hang); nothing was written — retry in a moment",
                    ));
                }
                Err(e) => return Err(e.into()),
            }
        }
    }
}

/// What a file holds, as a comparable fingerprint (`None`: it does not exist).
pub(crate) fn fingerprint(bytes: Option<&[u8]>) -> Option<u64> {
    bytes.map(stable_hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_held_elsewhere_is_waited_for_then_refused_in_words() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("shared.txt");
        let held = WriteLock::acquire(&file).expect("first");
        // flock belongs to the open file: a second open, as another process's, must wait.
        let err = WriteLock::acquire_within(&file, Duration::from_millis(60))
            .err()
            .expect("refused while held");
        assert!(err.to_string().contains("nothing was written"), "{err}");
        drop(held);
        assert!(WriteLock::acquire_within(&file, Duration::from_millis(60)).is_ok());
    }
}
