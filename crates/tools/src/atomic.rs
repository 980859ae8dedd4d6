//! Writing a file so that a crash or a kill leaves either the old content or the new, never
//! half of one: a temporary file in the same folder, flushed, then renamed over the target,
//! with the target's permissions kept.

use std::io::Write as _;
use std::path::Path;

pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let permissions = std::fs::metadata(path).ok().map(|m| m.permissions());
    let mut last_err = None;
    for attempt in 0..16u32 {
        let tmp = dir.join(format!(
            ".{name}.tandem-{}-{attempt}.tmp",
            std::process::id()
        ));
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp);
        let mut file = match file {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                last_err = Some(e);
                continue;
            }
            Err(e) => return Err(e),
        };
        let result = (|| {
            file.write_all(bytes)?;
            // Data before the rename, so a power cut never leaves an empty file in its place.
            file.sync_data()?;
            if let Some(p) = &permissions {
                std::fs::set_permissions(&tmp, p.clone())?;
            }
            std::fs::rename(&tmp, path)
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        return result;
    }
    Err(last_err.unwrap_or_else(|| std::io::Error::other("no temporary file name was free")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn replaces_content_and_keeps_permissions() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("run.sh");
        std::fs::write(&p, "old").expect("write");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o750)).expect("chmod");
        write_atomic(&p, b"new").expect("atomic");
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "new");
        assert_eq!(
            std::fs::metadata(&p).expect("meta").permissions().mode() & 0o777,
            0o750
        );
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .expect("ls")
            .flatten()
            .collect();
        assert_eq!(leftovers.len(), 1, "no temporary file left behind");
    }
}
