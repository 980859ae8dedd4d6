//! What can go wrong keeping or restoring checkpoints.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("cannot use {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the checkpoint store {} cannot be used: {source}", path.display())]
    Store {
        path: PathBuf,
        #[source]
        source: git2::Error,
    },
    #[error("the project's git repository cannot be read: {0}")]
    Git(#[source] git2::Error),
    #[error("there is no checkpoint {0}")]
    NoCheckpoint(u32),
    #[error("no checkpoint has been taken in this session yet")]
    NoneYet,
    /// A restore was cut short and is still to be finished (the session's next start does it).
    #[error("an earlier restore has not finished; reopen the session to finish it")]
    Unfinished,
}

pub type Result<T> = std::result::Result<T, CheckpointError>;

pub(crate) fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> CheckpointError + '_ {
    move |source| CheckpointError::Io {
        path: path.to_path_buf(),
        source,
    }
}
