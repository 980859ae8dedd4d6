//! Folders and files made inside a folder without following any link: the mount points the
//! sandbox needs inside the private `/tmp` (which earlier commands could write) or a fresh
//! tmpfs. A link planted where a folder is expected stops the setup instead of leading the
//! helper to make something elsewhere.

use nix::errno::Errno;
use nix::fcntl::{OFlag, OpenHow, ResolveFlag, openat2};
use nix::sys::stat::{Mode, mkdirat};
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Component, Path};

fn how(flags: OFlag) -> OpenHow {
    OpenHow::new()
        .flags(flags | OFlag::O_CLOEXEC | OFlag::O_NOFOLLOW)
        .resolve(ResolveFlag::RESOLVE_BENEATH | ResolveFlag::RESOLVE_NO_SYMLINKS)
}

/// The one-name components of `rel`; anything else (`..`, a root) is refused.
fn names(rel: &Path) -> Result<Vec<&std::ffi::OsStr>, String> {
    rel.components()
        .map(|c| match c {
            Component::Normal(n) => Ok(n),
            other => Err(format!(
                "{} is not a plain path below its folder ({other:?})",
                rel.display()
            )),
        })
        .collect()
}

/// Opens (making where missing) the folder `rel` below `base`, one name at a time, never
/// through a link.
pub(super) fn dir(base: impl AsFd, rel: &Path) -> Result<OwnedFd, String> {
    let mut current = nix::unistd::dup(base.as_fd()).map_err(|e| e.to_string())?;
    for name in names(rel)? {
        let flags = OFlag::O_PATH | OFlag::O_DIRECTORY;
        let next = match openat2(&current, name, how(flags)) {
            Err(Errno::ENOENT) => {
                match mkdirat(&current, name, Mode::from_bits_truncate(0o755)) {
                    Ok(()) | Err(Errno::EEXIST) => {}
                    Err(e) => return Err(format!("making {}: {e}", Path::new(name).display())),
                }
                openat2(&current, name, how(flags))
            }
            other => other,
        };
        current = next.map_err(|e| match e {
            // With O_NOFOLLOW a link is "not a folder" too.
            Errno::ELOOP | Errno::EXDEV | Errno::ENOTDIR => format!(
                "a link or a file stands where the sandbox needs the folder {} ({})",
                rel.display(),
                Path::new(name).display()
            ),
            e => format!("opening {}: {e}", rel.display()),
        })?;
    }
    Ok(current)
}

/// Opens (making where missing) the file `rel` below `base`, never through a link: a mount
/// point for a file.
pub(super) fn file(base: impl AsFd, rel: &Path) -> Result<OwnedFd, String> {
    let parent = rel.parent().unwrap_or(Path::new(""));
    let name = rel
        .file_name()
        .ok_or_else(|| format!("{} names no file", rel.display()))?;
    let dir = dir(base, parent)?;
    openat2(
        &dir,
        name,
        how(OFlag::O_CREAT | OFlag::O_RDONLY).mode(Mode::from_bits_truncate(0o644)),
    )
    .map_err(|e| match e {
        Errno::ELOOP | Errno::EXDEV => format!(
            "a link stands where the sandbox needs the file {}",
            rel.display()
        ),
        e => format!("making {}: {e}", rel.display()),
    })
}

/// The path through which a held file descriptor can be named (for mount).
pub(super) fn fd_path(fd: &impl std::os::fd::AsRawFd) -> String {
    format!("/proc/self/fd/{}", fd.as_raw_fd())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_are_made_below_and_links_are_refused() {
        let base = tempfile::tempdir().expect("tempdir");
        let root = std::fs::File::open(base.path()).expect("open");
        let made = dir(&root, Path::new("a/b/c")).expect("made");
        assert!(base.path().join("a/b/c").is_dir());
        drop(made);
        // Again: already there.
        dir(&root, Path::new("a/b")).expect("again");

        let outside = tempfile::tempdir().expect("outside");
        std::os::unix::fs::symlink(outside.path(), base.path().join("link")).expect("link");
        let err = dir(&root, Path::new("link/x")).expect_err("a link is refused");
        assert!(err.contains("a link or a file stands"), "{err}");
        assert!(
            !outside.path().join("x").exists(),
            "nothing made through the link"
        );
        assert!(dir(&root, Path::new("../up")).is_err());

        std::os::unix::fs::symlink(
            outside.path().join("target"),
            base.path().join("a/file-link"),
        )
        .expect("link");
        assert!(file(&root, Path::new("a/file-link")).is_err());
        assert!(!outside.path().join("target").exists());
        file(&root, Path::new("a/b/plain")).expect("file");
        assert!(base.path().join("a/b/plain").is_file());
    }
}
