//! Reading an overlayfs upper folder: what a command wrote, created, deleted and replaced.
//! The kernel's marks under an unprivileged mount (`userxattr`): a deletion is a character
//! device 0:0 (or, on newer kernels, an empty file marked `user.overlay.whiteout`), a folder
//! removed and made again is marked `user.overlay.opaque`. A folder rename is a deletion and a
//! new folder (no `redirect_dir` without privileges).

use std::fs::Metadata;
use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _};
use std::path::{Path, PathBuf};

pub(crate) const OPAQUE: &str = "user.overlay.opaque";
const WHITEOUT: &str = "user.overlay.whiteout";
/// Every attribute of the overlay's own: none of them belongs in the project.
pub(crate) const OVERLAY_PREFIX: &str = "user.overlay.";

/// One entry of the upper folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Upper {
    Deleted,
    Folder {
        opaque: bool,
    },
    File,
    Symlink,
    /// A FIFO, a socket or a device the command made.
    Special,
}

/// Every entry of `upper`, parents before their children, names in byte order; paths
/// relative to `upper`. Links are never followed.
pub(crate) fn read(upper: &Path) -> std::io::Result<Vec<(PathBuf, Upper)>> {
    let mut out = Vec::new();
    walk(upper, Path::new(""), &mut out)?;
    Ok(out)
}

fn walk(upper: &Path, rel: &Path, out: &mut Vec<(PathBuf, Upper)>) -> std::io::Result<()> {
    let mut names: Vec<_> = std::fs::read_dir(upper.join(rel))?
        .map(|e| e.map(|e| e.file_name()))
        .collect::<Result<_, _>>()?;
    names.sort();
    for name in names {
        let rel = rel.join(&name);
        let full = upper.join(&rel);
        let meta = std::fs::symlink_metadata(&full)?;
        let kind = kind_of(&full, &meta);
        let folder = matches!(kind, Upper::Folder { .. });
        out.push((rel.clone(), kind));
        if folder {
            walk(upper, &rel, out)?;
        }
    }
    Ok(())
}

fn kind_of(full: &Path, meta: &Metadata) -> Upper {
    let ft = meta.file_type();
    if ft.is_char_device() && meta.rdev() == 0 {
        Upper::Deleted
    } else if ft.is_dir() {
        Upper::Folder {
            opaque: xattr(full, OPAQUE).is_some_and(|v| v == b"y"),
        }
    } else if ft.is_symlink() {
        Upper::Symlink
    } else if ft.is_file() {
        if meta.len() == 0 && xattr(full, WHITEOUT).is_some() {
            Upper::Deleted
        } else {
            Upper::File
        }
    } else {
        Upper::Special
    }
}

/// One extended attribute of `path` (not followed if it is a link), if it has it.
pub(crate) fn xattr(path: &Path, name: &str) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; 256];
    let n = rustix::fs::lgetxattr(path, name, &mut buf).ok()?;
    buf.truncate(n);
    Some(buf)
}

/// Removes the overlay's own attributes from `path` (not followed), so nothing of the layer
/// stays on what lands in the project.
pub(crate) fn strip_marks(path: &Path) {
    let mut names = vec![0u8; 4096];
    let Ok(n) = rustix::fs::llistxattr(path, &mut names) else {
        return;
    };
    for name in names[..n].split(|b| *b == 0).filter(|n| !n.is_empty()) {
        if let Ok(name) = std::str::from_utf8(name)
            && name.starts_with(OVERLAY_PREFIX)
        {
            let _ = rustix::fs::lremovexattr(path, name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_folder_reads_parents_first_and_sorted() {
        let d = tempfile::tempdir().expect("tmp");
        std::fs::create_dir_all(d.path().join("b/c")).expect("mkdir");
        std::fs::write(d.path().join("b/c/f"), "x").expect("write");
        std::fs::write(d.path().join("a"), "x").expect("write");
        std::os::unix::fs::symlink("a", d.path().join("l")).expect("link");
        let found = read(d.path()).expect("read");
        let names: Vec<_> = found
            .iter()
            .map(|(p, k)| (p.to_string_lossy().into_owned(), k.clone()))
            .collect();
        assert_eq!(
            names,
            vec![
                ("a".into(), Upper::File),
                ("b".into(), Upper::Folder { opaque: false }),
                ("b/c".into(), Upper::Folder { opaque: false }),
                ("b/c/f".into(), Upper::File),
                ("l".into(), Upper::Symlink),
            ]
        );
    }
}
