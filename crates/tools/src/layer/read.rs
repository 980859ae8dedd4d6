//! Reading an overlayfs upper folder: what a command wrote, created, deleted and replaced.
//! The kernel's marks under an unprivileged mount (`userxattr`): a deletion is a character
//! device 0:0, a folder removed and made again is marked `user.overlay.opaque`. A folder
//! rename is a deletion and a new folder (no `redirect_dir` without privileges).

use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _};
use std::path::{Path, PathBuf};

pub(crate) const OPAQUE: &str = "user.overlay.opaque";
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

/// One entry of the upper folder, relative to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub rel: PathBuf,
    pub kind: Upper,
    /// It carries attributes of the overlay's own, to be removed when it lands.
    pub marked: bool,
}

/// Every entry of `upper`, parents before their children, names in byte order. Links are
/// never followed. One pass that stats nothing it need not: a file's kind comes with its
/// folder's listing, and only folders (opaque or not) and character devices (whiteouts) are
/// looked at more closely — a layer of tens of thousands of files (a `node_modules`) costs its
/// listings. A file's marks (where a copied-up file came from) are looked at when it is a
/// change of its own (see `plan`); inside a new folder only a file moved there after copy-up
/// has one, and nothing reads it in a project. Nor are the marks of folders inside a folder
/// the project (`project`, below the layer) does not have: with nothing below, none is
/// opaque, and the rest only the overlay reads — and reading them is most of the cost of a
/// fresh `node_modules` (the file system reads each new folder's attributes from disk).
pub(crate) fn read(upper: &Path, project: &Path) -> std::io::Result<Vec<Entry>> {
    let mut out = Vec::new();
    walk(upper, Some(project), Path::new(""), &mut out)?;
    Ok(out)
}

/// `below` is the project while `rel` may be in it; `None` inside a folder it does not have.
fn walk(
    upper: &Path,
    below: Option<&Path>,
    rel: &Path,
    out: &mut Vec<Entry>,
) -> std::io::Result<()> {
    let mut listed: Vec<(std::ffi::OsString, std::fs::FileType)> =
        std::fs::read_dir(upper.join(rel))?
            .map(|e| e.and_then(|e| Ok((e.file_name(), e.file_type()?))))
            .collect::<Result<_, _>>()?;
    listed.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, ft) in listed {
        let rel = rel.join(&name);
        let (kind, marked) = if ft.is_dir() && below.is_none() {
            (Upper::Folder { opaque: false }, false)
        } else if ft.is_dir() {
            let marks = overlay_marks(&upper.join(&rel));
            let opaque = marks.iter().any(|m| m == OPAQUE)
                && xattr(&upper.join(&rel), OPAQUE).is_some_and(|v| v == b"y");
            (Upper::Folder { opaque }, !marks.is_empty())
        } else if ft.is_file() {
            (Upper::File, false)
        } else if ft.is_symlink() {
            (Upper::Symlink, false)
        } else if ft.is_char_device() {
            let meta = std::fs::symlink_metadata(upper.join(&rel))?;
            let kind = if meta.rdev() == 0 {
                Upper::Deleted
            } else {
                Upper::Special
            };
            (kind, false)
        } else {
            (Upper::Special, false)
        };
        let folder = matches!(kind, Upper::Folder { .. });
        out.push(Entry {
            rel: rel.clone(),
            kind,
            marked,
        });
        if folder {
            let below = below.filter(|p| std::fs::symlink_metadata(p.join(&rel)).is_ok());
            walk(upper, below, &rel, out)?;
        }
    }
    Ok(())
}

/// One extended attribute of `path` (not followed if it is a link), if it has it.
pub(crate) fn xattr(path: &Path, name: &str) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; 256];
    let n = rustix::fs::lgetxattr(path, name, &mut buf).ok()?;
    buf.truncate(n);
    Some(buf)
}

/// The names of the overlay's own attributes on `path` (not followed).
pub(crate) fn overlay_marks(path: &Path) -> Vec<String> {
    let mut names = [0u8; 1024];
    let Ok(n) = rustix::fs::llistxattr(path, &mut names) else {
        return Vec::new();
    };
    names[..n]
        .split(|b| *b == 0)
        .filter_map(|n| std::str::from_utf8(n).ok())
        .filter(|n| n.starts_with(OVERLAY_PREFIX))
        .map(str::to_string)
        .collect()
}

/// Removes the overlay's own attributes from `path` (not followed), so nothing of the layer
/// stays on what lands in the project.
pub(crate) fn strip_marks(path: &Path) {
    for name in overlay_marks(path) {
        let _ = rustix::fs::lremovexattr(path, name.as_str());
    }
}

/// Opens `rel` below `root` without following a link anywhere on the way (a running command
/// may swap a folder of its layer for a link to anywhere on the machine meanwhile) and
/// without blocking on a FIFO. `flags` adds what the open is for (`PATH`, `RDONLY`,
/// `DIRECTORY`); the entry itself may be a link only with `PATH` (it is then not followed).
pub(crate) fn open_beneath(
    root: &Path,
    rel: &Path,
    flags: rustix::fs::OFlags,
) -> std::io::Result<std::os::fd::OwnedFd> {
    use rustix::fs::{Mode, OFlags, ResolveFlags};
    let dir = rustix::fs::open(
        root,
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    // openat2 takes no other flag beside `O_PATH` (a path handle opens nothing to block on).
    let flags = if flags.contains(OFlags::PATH) {
        flags | OFlags::CLOEXEC
    } else {
        flags | OFlags::CLOEXEC | OFlags::NONBLOCK
    };
    if rel.as_os_str().is_empty() {
        return Ok(rustix::fs::openat(&dir, ".", flags, Mode::empty())?);
    }
    Ok(rustix::fs::openat2(
        &dir,
        rel,
        flags | OFlags::NOFOLLOW,
        Mode::empty(),
        ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
    )?)
}

/// A regular file below `root`, opened for reading as [`open_beneath`] does; `None` when it is
/// anything else now (a link, a FIFO, a folder, a device).
pub(crate) fn open_regular(root: &Path, rel: &Path) -> std::io::Result<Option<std::fs::File>> {
    let fd = open_beneath(root, rel, rustix::fs::OFlags::RDONLY)?;
    let file = std::fs::File::from(fd);
    Ok(file.metadata()?.is_file().then_some(file))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_below_a_link_or_a_fifo_is_never_opened() {
        let d = tempfile::tempdir().expect("tmp");
        let outside = d.path().join("outside");
        let root = d.path().join("layer");
        std::fs::create_dir_all(&outside).expect("mkdir");
        std::fs::create_dir_all(&root).expect("mkdir");
        std::fs::write(outside.join("secret"), "s").expect("write");
        std::os::unix::fs::symlink(&outside, root.join("d")).expect("link");
        assert!(open_regular(&root, Path::new("d/secret")).is_err());
        std::os::unix::fs::symlink(outside.join("secret"), root.join("l")).expect("link");
        assert!(open_regular(&root, Path::new("l")).is_err());
        // A FIFO nobody writes to: answered at once, as not a file.
        rustix::fs::mknodat(
            rustix::fs::CWD,
            root.join("fifo"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from(0o600),
            0,
        )
        .expect("fifo");
        assert!(matches!(open_regular(&root, Path::new("fifo")), Ok(None)));
        std::fs::write(root.join("plain"), "p").expect("write");
        assert!(matches!(
            open_regular(&root, Path::new("plain")),
            Ok(Some(_))
        ));
    }

    #[test]
    fn a_plain_folder_reads_parents_first_and_sorted() {
        let d = tempfile::tempdir().expect("tmp");
        std::fs::create_dir_all(d.path().join("b/c")).expect("mkdir");
        std::fs::write(d.path().join("b/c/f"), "x").expect("write");
        std::fs::write(d.path().join("a"), "x").expect("write");
        std::os::unix::fs::symlink("a", d.path().join("l")).expect("link");
        let found = read(d.path(), Path::new("/nonexistent-project")).expect("read");
        let names: Vec<_> = found
            .iter()
            .map(|e| (e.rel.to_string_lossy().into_owned(), e.kind.clone()))
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
