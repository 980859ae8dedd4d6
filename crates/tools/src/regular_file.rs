//! Reading a file that must be a plain file, without hanging or blowing up on one that is not:
//! opening a named pipe for reading waits for a writer that may never come (a FIFO a command
//! left in the project hung `edit_file` past Ctrl-C, one at `.tandem/mcp.json` hung start), and
//! a 2 GB sparse file read whole took 4 GB of memory. The file is opened without blocking and
//! checked on the open descriptor, so a swap between a check and the open changes nothing.

use std::fs::File;
use std::io::Read as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum RegularFileError {
    #[error(
        "it is not a regular file (a named pipe, socket or device), so it has no contents to use"
    )]
    NotRegular,
    #[error("it is {size} bytes, over the {cap} this reads")]
    TooLarge { size: u64, cap: u64 },
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl RegularFileError {
    /// Whether the file is simply not there.
    pub fn is_not_found(&self) -> bool {
        matches!(self, RegularFileError::Io(e) if e.kind() == std::io::ErrorKind::NotFound)
    }
}

/// Opens `path` for reading only if it is a regular file (links are followed, as `open` does).
pub fn open_regular(path: &Path) -> Result<(File, u64), RegularFileError> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        // Without it, opening a FIFO blocks before anything can be checked.
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(RegularFileError::NotRegular);
    }
    // A regular file ignores O_NONBLOCK for reads; it is cleared anyway so the descriptor
    // behaves as an ordinary one wherever it goes.
    let flags = rustix::fs::fcntl_getfl(&file).map_err(std::io::Error::from)?;
    rustix::fs::fcntl_setfl(&file, flags - rustix::fs::OFlags::NONBLOCK)
        .map_err(std::io::Error::from)?;
    Ok((file, meta.len()))
}

/// The whole of a regular file of at most `cap` bytes.
pub fn read_regular(path: &Path, cap: u64) -> Result<Vec<u8>, RegularFileError> {
    let (file, size) = open_regular(path)?;
    if size > cap {
        return Err(RegularFileError::TooLarge { size, cap });
    }
    let mut bytes = Vec::with_capacity(size as usize);
    // Bounded again while reading: the file may grow after the size was taken.
    file.take(cap + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(RegularFileError::TooLarge {
            size: bytes.len() as u64,
            cap,
        });
    }
    Ok(bytes)
}

/// A regular file's text, `None` when it does not exist.
pub fn read_regular_text(path: &Path, cap: u64) -> Result<Option<String>, RegularFileError> {
    match read_regular(path, cap) {
        Ok(bytes) => String::from_utf8(bytes).map(Some).map_err(|_| {
            RegularFileError::Io(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "it is not UTF-8 text",
            ))
        }),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(e),
    }
}

/// A configuration file's text (rules, settings, instructions): `None` when there is none; one
/// that is not a regular file or is over `cap` is an I/O error that says so.
pub fn read_config_text(path: &Path, cap: u64) -> std::io::Result<Option<String>> {
    read_regular_text(path, cap).map_err(|e| match e {
        RegularFileError::Io(e) => e,
        other => std::io::Error::other(other.to_string()),
    })
}

/// The largest file `edit_file` and `write_file` read to change: the whole file is held, split
/// and diffed for the person's review.
pub const MAX_CHANGED_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// The bytes of a project file a tool is about to change, as a tool error that says what to do
/// when it cannot be: not a regular file, too large, or unreadable.
pub(crate) fn read_to_change(
    root: &crate::ProjectRoot,
    resolved: &crate::paths::Resolved,
    tool: &str,
) -> crate::ToolResult<Vec<u8>> {
    read_regular(&resolved.real, MAX_CHANGED_FILE_BYTES).map_err(|e| match e {
        RegularFileError::NotRegular => crate::ToolError::InvalidArgument(format!(
            "{} is not a regular file (a named pipe, socket or device); {tool} changes text files only — leave it alone or remove it with a command",
            resolved.display
        )),
        RegularFileError::TooLarge { size, .. } => crate::ToolError::InvalidArgument(format!(
            "{} is {:.1} MB, over the {} MB {tool} works on; change it with a command (sed, a script) instead",
            resolved.display,
            size as f64 / (1024.0 * 1024.0),
            MAX_CHANGED_FILE_BYTES / (1024 * 1024)
        )),
        RegularFileError::Io(e) => root.io_error(resolved, e),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_pipe_is_refused_at_once_and_a_big_file_before_it_is_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("pipe");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .expect("mkfifo");
        // Would block forever without a writer if it were opened the ordinary way.
        assert!(matches!(
            read_regular(&fifo, 1024),
            Err(RegularFileError::NotRegular)
        ));
        assert!(matches!(
            read_regular(dir.path(), 1024),
            Err(RegularFileError::NotRegular) | Err(RegularFileError::Io(_))
        ));
        let sparse = dir.path().join("sparse");
        let f = File::create(&sparse).expect("create");
        f.set_len(2 * 1024 * 1024 * 1024).expect("sparse");
        assert!(matches!(
            read_regular(&sparse, 16 * 1024 * 1024),
            Err(RegularFileError::TooLarge { size, .. }) if size == 2 * 1024 * 1024 * 1024
        ));
        std::fs::write(dir.path().join("ok"), "text").expect("write");
        assert_eq!(
            read_regular_text(&dir.path().join("ok"), 10).expect("read"),
            Some("text".into())
        );
        assert_eq!(
            read_regular_text(&dir.path().join("missing"), 10).expect("read"),
            None
        );
    }
}
