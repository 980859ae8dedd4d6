//! Writing a file so that a crash or a kill leaves either the old content or the new, never
//! half of one, and no stray file: the bytes go to an unnamed file in the same folder
//! (`O_TMPFILE`), which gets a name only once it is complete and synced, and that name is
//! renamed over the target at once; then the folder itself is synced, so the rename survives
//! a power cut (a new file is linked under its own name at once: no temporary name at all).
//! The target's permissions are kept. Where the file system has no unnamed
//! files, a named temporary file is used instead. A writer killed between naming and renaming
//! leaves its temporary name behind: the first write into a folder sweeps those of writers no
//! longer alive.

use rustix::fs::{AtFlags, CWD, Mode, OFlags};
use std::collections::HashSet;
use std::fs::File;
use std::io::Write as _;
use std::os::fd::{AsRawFd as _, OwnedFd};
use std::os::unix::fs::MetadataExt as _;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

/// Folders (path, device, inode) this process has swept of temporary names left by killed
/// writers. The path too: a deleted folder's inode number is soon another folder's.
static SWEPT: Mutex<Option<HashSet<(std::path::PathBuf, u64, u64)>>> = Mutex::new(None);

/// Marks a temporary file as this app's while it has a temporary name (removed once it has
/// its own): the sweep removes only files carrying it, never another program's file that
/// happens to be named like one (a repository may hold `.x.tandem-1-0.tmp`).
const MARK: &str = "user.tandem.temp";

pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_with(path, |file| file.write_all(bytes))
}

/// [`write_atomic`] with the content written by `write`.
pub(crate) fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("the path names no file"))?;
    let permissions = std::fs::metadata(path).ok().map(|m| m.permissions());
    let dir_fd = File::open(dir)?;
    sweep_once(dir, &dir_fd);
    let unnamed = rustix::fs::openat(
        &dir_fd,
        ".",
        OFlags::TMPFILE | OFlags::WRONLY | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o666),
    );
    match unnamed {
        Ok(fd) => write_unnamed(&dir_fd, fd, name, write, permissions)?,
        // No unnamed files here (some file systems): the named way.
        Err(_) => write_named(dir, path, name, write, permissions)?,
    }
    dir_fd.sync_all()
}

fn fill(
    file: &mut File,
    write: impl FnOnce(&mut File) -> std::io::Result<()>,
    permissions: Option<std::fs::Permissions>,
) -> std::io::Result<()> {
    write(file)?;
    // Data before the rename, so a power cut never leaves an empty file in its place.
    file.sync_data()?;
    if let Some(p) = permissions {
        file.set_permissions(p)?;
    }
    Ok(())
}

fn write_unnamed(
    dir_fd: &File,
    fd: OwnedFd,
    name: &std::ffi::OsStr,
    write: impl FnOnce(&mut File) -> std::io::Result<()>,
    permissions: Option<std::fs::Permissions>,
) -> std::io::Result<()> {
    let mut file = File::from(fd);
    let new = permissions.is_none();
    fill(&mut file, write, permissions)?;
    let proc_path = format!("/proc/self/fd/{}", file.as_raw_fd());
    // A new file gets its own name at once, whole: no temporary name exists, so a kill leaves
    // nothing behind (the sweep removes only leftovers whose target is there).
    if new {
        match rustix::fs::linkat(
            CWD,
            proc_path.as_str(),
            dir_fd,
            name,
            AtFlags::SYMLINK_FOLLOW,
        ) {
            Ok(()) => return Ok(()),
            // Made meanwhile: replaced as any file is.
            Err(rustix::io::Errno::EXIST) => {}
            Err(e) => return Err(e.into()),
        }
    }
    // A name for it (linkat cannot replace a file), then the rename over the target: only
    // between the two does a temporary name exist.
    let mut last = None;
    for attempt in 0..16u32 {
        let tmp = temp_name(name, attempt);
        match rustix::fs::linkat(
            CWD,
            proc_path.as_str(),
            dir_fd,
            tmp.as_str(),
            AtFlags::SYMLINK_FOLLOW,
        ) {
            Ok(()) => {
                // Marked and unmarked by name: through the descriptor, watchers of the folder
                // would hear of a change to the unnamed file's own name (`#inode`).
                let in_dir = |n: &std::ffi::OsStr| {
                    std::path::PathBuf::from(format!("/proc/self/fd/{}", dir_fd.as_raw_fd()))
                        .join(n)
                };
                mark(&in_dir(tmp.as_ref()));
                let renamed = rustix::fs::renameat(dir_fd, tmp.as_str(), dir_fd, name);
                if renamed.is_err() {
                    let _ = rustix::fs::unlinkat(dir_fd, tmp.as_str(), AtFlags::empty());
                } else {
                    let _ = rustix::fs::lremovexattr(in_dir(name), MARK);
                }
                return renamed.map_err(std::io::Error::from);
            }
            Err(rustix::io::Errno::EXIST) => last = Some(rustix::io::Errno::EXIST),
            Err(e) => return Err(e.into()),
        }
    }
    Err(last.map_or_else(
        || std::io::Error::other("no temporary name was free"),
        Into::into,
    ))
}

/// Marks a temporary name as this app's. Where the file system keeps no such attribute,
/// leftovers are never swept: safe.
fn mark(path: &Path) {
    let _ = rustix::fs::lsetxattr(path, MARK, b"1", rustix::fs::XattrFlags::empty());
}

fn temp_name(name: &std::ffi::OsStr, attempt: u32) -> String {
    format!(
        ".{}.tandem-{}-{attempt}.tmp",
        name.to_string_lossy(),
        std::process::id()
    )
}

/// Removes, once per folder and process, the temporary names (`temp_name`) of writers that are
/// no longer running: a kill between naming the complete file and renaming it over the target
/// left one in the project (found by the soak test). Reading the folder once per process keeps
/// a write's cost flat; a name whose writer is alive (or whose number was reused) is left.
fn sweep_once(dir: &Path, dir_fd: &File) {
    let Ok(meta) = dir_fd.metadata() else {
        return;
    };
    {
        let mut swept = SWEPT.lock().unwrap_or_else(PoisonError::into_inner);
        if !swept.get_or_insert_with(HashSet::new).insert((
            dir.to_path_buf(),
            meta.dev(),
            meta.ino(),
        )) {
            return;
        }
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let me = std::process::id();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some((target, pid)) = name.to_str().and_then(temp_name_parts) else {
            continue;
        };
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        // Only a leftover of this app's for a file that is there: the target beside it, and
        // the mark this app puts on its temporary files.
        let ours = is_file
            && std::fs::symlink_metadata(dir.join(target)).is_ok()
            && rustix::fs::lgetxattr(entry.path(), MARK, &mut [0u8; 8]).is_ok();
        if ours && pid != me && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The target and the process id in a name `temp_name` made (`.NAME.tandem-PID-N.tmp`), or
/// None for any other name.
fn temp_name_parts(name: &str) -> Option<(&str, u32)> {
    let inner = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (target, tail) = inner.rsplit_once(".tandem-")?;
    let (pid, attempt) = tail.split_once('-')?;
    attempt.parse::<u32>().ok()?;
    Some((target, pid.parse().ok()?))
}

fn write_named(
    dir: &Path,
    path: &Path,
    name: &std::ffi::OsStr,
    write: impl FnOnce(&mut File) -> std::io::Result<()>,
    permissions: Option<std::fs::Permissions>,
) -> std::io::Result<()> {
    let mut write = Some(write);
    let mut last_err = None;
    for attempt in 0..16u32 {
        let tmp = dir.join(temp_name(name, attempt));
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
        let Some(write) = write.take() else {
            break;
        };
        mark(&tmp);
        let result = fill(&mut file, write, permissions).and_then(|()| std::fs::rename(&tmp, path));
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        } else {
            let _ = rustix::fs::lremovexattr(path, MARK);
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

    /// A new file is never seen under a temporary name (a kill there left one in the project
    /// that the sweep, which needs the target beside it, never removed: found by the soak).
    #[test]
    fn a_new_file_never_has_a_temporary_name() {
        use rustix::fs::inotify;
        let dir = tempfile::tempdir().expect("tempdir");
        let fd = inotify::init(inotify::CreateFlags::NONBLOCK).expect("inotify");
        inotify::add_watch(
            &fd,
            dir.path(),
            inotify::WatchFlags::CREATE | inotify::WatchFlags::MOVED_TO,
        )
        .expect("watch");
        write_atomic(&dir.path().join("notes.txt"), b"new\n").expect("atomic");
        let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); 4096];
        let mut reader = inotify::Reader::new(&fd, &mut buf);
        let mut seen = Vec::new();
        while let Ok(e) = reader.next() {
            if let Some(n) = e.file_name() {
                seen.push(n.to_string_lossy().into_owned());
            }
        }
        assert_eq!(seen, ["notes.txt"], "names the folder saw");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("notes.txt")).expect("read"),
            "new\n"
        );
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .expect("ls")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    /// A writer killed between naming its file and the rename left `.a.txt.tandem-PID-0.tmp`
    /// in the project for good (the soak test found one). The next write into the folder
    /// removes those of writers that are gone, and leaves a live writer's alone. Issue 47: only
    /// this app's (they carry its mark) and only beside their target — a file of another
    /// program's named like one (a repository's) is never removed.
    #[test]
    fn temporary_names_of_killed_writers_are_swept_and_a_live_writers_kept() {
        let dir = tempfile::tempdir().expect("tempdir");
        // A process id above the kernel's largest is never alive (a reaped child's id is not
        // enough: ids are reused, by threads too, and tests run beside each other).
        let pid_max: u32 = std::fs::read_to_string("/proc/sys/kernel/pid_max")
            .expect("pid_max")
            .trim()
            .parse()
            .expect("a number");
        let gone = pid_max + 1;
        let alive = std::os::unix::process::parent_id();
        std::fs::write(dir.path().join("c.txt"), "the target").expect("seed");
        let marked = |n: &str| {
            let p = dir.path().join(n);
            std::fs::write(&p, "left").expect("seed");
            rustix::fs::lsetxattr(&p, MARK, b"1", rustix::fs::XattrFlags::empty()).expect("mark");
        };
        for n in [
            format!(".a.txt.tandem-{gone}-0.tmp"),
            format!(".c.txt.tandem-{gone}-3.tmp"),
            format!(".a.txt.tandem-{alive}-0.tmp"),
            // Its target is not there: not a leftover of a write.
            format!(".b.md.tandem-{gone}-3.tmp"),
            ".a.txt.tandem-x-0.tmp".to_string(),
        ] {
            marked(&n);
        }
        // Named like one, but not this app's: a file the repository holds.
        std::fs::write(
            dir.path().join(format!(".c.txt.tandem-{gone}-1.tmp")),
            "theirs",
        )
        .expect("seed");
        std::fs::write(dir.path().join("notes.tandem-1-0.tmp"), "left").expect("seed");
        std::fs::write(dir.path().join("a.txt"), "old").expect("seed");
        write_atomic(&dir.path().join("a.txt"), b"new").expect("write");
        assert_eq!(
            names(dir.path()),
            [
                format!(".a.txt.tandem-{alive}-0.tmp"),
                ".a.txt.tandem-x-0.tmp".to_string(),
                format!(".b.md.tandem-{gone}-3.tmp"),
                format!(".c.txt.tandem-{gone}-1.tmp"),
                "a.txt".to_string(),
                "c.txt".to_string(),
                "notes.tandem-1-0.tmp".to_string(),
            ]
        );
        assert_eq!(
            temp_name_parts(&temp_name("a.txt".as_ref(), 2)),
            Some(("a.txt", std::process::id()))
        );
        // The file written keeps no mark of its temporary name.
        assert!(
            rustix::fs::lgetxattr(dir.path().join("a.txt"), MARK, &mut [0u8; 8]).is_err(),
            "the mark is gone once it has its name"
        );
    }

    /// While the bytes are being written, nothing new has a name in the folder, so a kill at
    /// that moment leaves nothing behind (a named temporary file stayed in the project).
    #[test]
    fn while_writing_nothing_new_is_named_and_a_failed_write_leaves_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("a.txt");
        std::fs::write(&p, "old").expect("write");
        write_atomic_with(&p, |f| {
            f.write_all(b"half")?;
            assert_eq!(names(dir.path()), ["a.txt"], "a name appeared mid-write");
            assert_eq!(std::fs::read_to_string(&p)?, "old");
            f.write_all(b" and the rest")
        })
        .expect("write");
        assert_eq!(
            std::fs::read_to_string(&p).expect("read"),
            "half and the rest"
        );
        let failed = write_atomic_with(&p, |f| {
            f.write_all(b"partial")?;
            Err(std::io::Error::other("the disk is full"))
        });
        assert!(failed.is_err());
        assert_eq!(
            std::fs::read_to_string(&p).expect("read"),
            "half and the rest"
        );
        assert_eq!(names(dir.path()), ["a.txt"]);
    }
}
