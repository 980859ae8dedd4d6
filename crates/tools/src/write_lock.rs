//! One writer at a time per file across every Tandem process of this user (the window's
//! sessions, a second window, `tandem-cli`): the check that a file still holds what a change
//! was planned from, and the rename that replaces it, happen under one lock. Two runs editing
//! their own lines of one file lost each other's reported edits when the check and the rename
//! could interleave. Editors and other programs do not take the lock; against them the check
//! right before the rename leaves only that instant.

use std::fs::File;
use std::path::{Path, PathBuf};

/// The lock for writing `real` (its canonical path), held until dropped.
pub(crate) struct WriteLock {
    _file: File,
}

fn locks_dir() -> PathBuf {
    let uid = rustix::process::getuid().as_raw();
    std::env::temp_dir().join(format!("tandem-write-locks-{uid}"))
}

/// FNV-1a: stable across processes and builds, unlike the standard library's hasher.
fn stable_hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

impl WriteLock {
    /// Waits for the lock of `real`. The lock files stay (one per file ever written, empty):
    /// removing one while another process waits on it would let two writers in.
    pub fn acquire(real: &Path) -> std::io::Result<WriteLock> {
        use std::os::unix::ffi::OsStrExt as _;
        use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
        let dir = locks_dir();
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)?;
        let name = format!("{:016x}.lock", stable_hash(real.as_os_str().as_bytes()));
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(dir.join(name))?;
        rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)?;
        Ok(WriteLock { _file: file })
    }
}

/// What a file holds, as a comparable fingerprint (`None`: it does not exist).
pub(crate) fn fingerprint(bytes: Option<&[u8]>) -> Option<u64> {
    bytes.map(stable_hash)
}
