//! The tools' one error type. Every message says what went wrong *and* what to do next, since
//! the reader is often a model that will retry.

use protocol::{CommandError, FailureCode as ErrorCode};
use std::path::PathBuf;

pub type ToolResult<T> = Result<T, ToolError>;

#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// A path on the machine that does not exist (a project folder, a helper program).
    #[error("{} does not exist. Check the spelling, or list the parent folder with list_files.", .0.display())]
    NotFound(PathBuf),
    /// A path inside the project that does not exist, named relative to the project, with the
    /// existing paths it most likely meant (closest first): a weak model recovers from a
    /// suggestion far more often than from "check the spelling".
    #[error("{path} does not exist.{}", missing_hint(.near))]
    NoSuchPath { path: String, near: Vec<String> },
    #[error("{} is a file, not a folder. Use read_file to read it, or list its parent folder.", .0.display())]
    NotADirectory(PathBuf),
    #[error("{} is a folder, not a file. Use list_files to see what it contains.", .0.display())]
    NotAFile(PathBuf),
    #[error("Permission denied reading {}. Choose another path; this one cannot be read.", .0.display())]
    PermissionDenied(PathBuf),
    /// `path` is as it was asked for; the project's own location is not named (the model
    /// needs a relative path, not this machine's folders).
    #[error("{path} is outside the project folder. Use a path relative to the project root.{}", did_you_mean(.near))]
    OutsideProject { path: String, near: Vec<String> },
    #[error("Invalid argument: {0}")]
    InvalidArgument(String),
    #[error("Could not read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Writing failed; the file is as it was (writes are whole or nothing).
    #[error("Could not write {}: {}. Nothing was changed: the file is as it was.{}", path.display(), source, write_hint(source))]
    WriteFailed {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("Refusing to change {path}: {why}; read it first (read_file), then retry.")]
    Stale { path: String, why: &'static str },
    #[error("edit {index} of {path}: {message}")]
    Edit {
        path: String,
        index: usize,
        message: String,
    },
    #[error("git failed: {0}")]
    Git(#[from] git2::Error),
}

fn write_hint(e: &std::io::Error) -> &'static str {
    match e.kind() {
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded => {
            " The disk is full: tell the user, who can free space; then retry."
        }
        std::io::ErrorKind::ReadOnlyFilesystem => {
            " The file system is read-only: this file cannot be changed here."
        }
        std::io::ErrorKind::PermissionDenied => {
            " Permission denied: this file (or its folder) cannot be changed."
        }
        _ => "",
    }
}

fn missing_hint(near: &[String]) -> String {
    if near.is_empty() {
        " Check the spelling, or list the parent folder with list_files.".into()
    } else {
        did_you_mean(near)
    }
}

fn did_you_mean(near: &[String]) -> String {
    match near {
        [] => String::new(),
        // Said as the next step to take: a small model retries on "call it again with", and
        // tends to ask the user instead when only asked a question.
        [one] => format!(" Did you mean {one}? Call the tool again with the path \"{one}\"."),
        [first, rest @ ..] => format!(
            " Did you mean {first}? Also close: {}. Call the tool again with the right path.",
            rest.join(", ")
        ),
    }
}

impl ToolError {
    /// Maps an I/O error on `path` to the variant that explains it best.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        let path = path.into();
        match source.kind() {
            std::io::ErrorKind::NotFound => ToolError::NotFound(path),
            std::io::ErrorKind::PermissionDenied => ToolError::PermissionDenied(path),
            std::io::ErrorKind::NotADirectory => ToolError::NotADirectory(path),
            std::io::ErrorKind::IsADirectory => ToolError::NotAFile(path),
            _ => ToolError::Io { path, source },
        }
    }

    /// An I/O error while writing `path`: said as a failed write, never as a failed read.
    pub fn write(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        ToolError::WriteFailed {
            path: path.into(),
            source,
        }
    }

    pub fn code(&self) -> ErrorCode {
        match self {
            ToolError::NotFound(_) | ToolError::NoSuchPath { .. } => ErrorCode::NotFound,
            ToolError::NotADirectory(_) => ErrorCode::NotADirectory,
            ToolError::NotAFile(_) => ErrorCode::NotAFile,
            ToolError::PermissionDenied(_) => ErrorCode::PermissionDenied,
            ToolError::OutsideProject { .. } => ErrorCode::OutsideProject,
            ToolError::InvalidArgument(_) => ErrorCode::InvalidArgument,
            ToolError::Io { .. } | ToolError::WriteFailed { .. } => ErrorCode::Io,
            ToolError::Git(_) => ErrorCode::Git,
            ToolError::Stale { .. } | ToolError::Edit { .. } => ErrorCode::InvalidArgument,
        }
    }
}

impl From<ToolError> for CommandError {
    fn from(err: ToolError) -> Self {
        CommandError::new(err.code(), err.to_string(), None)
    }
}
