//! The mounts of a sandbox: a private `/tmp` and `/dev/shm`, secrets hidden behind empty
//! mounts, folders inside the project kept read-only.

use super::{SetupError, step};
use crate::spec::SandboxSpec;
use nix::mount::{MsFlags, mount};
use nix::sys::statvfs::{FsFlags, statvfs};
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

const NONE: Option<&str> = None;

/// What is checked and created before the namespaces are made.
pub(super) struct Plan {
    /// The empty, unreadable file bound over secret files.
    empty: PathBuf,
}

fn check_absolute(what: &str, p: &Path) -> Result<(), SetupError> {
    if p.is_absolute() {
        Ok(())
    } else {
        Err(SetupError::new(
            format!("checking the {what}"),
            format!("{} is not an absolute path", p.display()),
        ))
    }
}

impl Plan {
    pub(super) fn prepare(spec: &SandboxSpec) -> Result<Self, SetupError> {
        check_absolute("project folder", &spec.project)?;
        check_absolute("temporary folder", &spec.tmp)?;
        check_absolute("state folder", &spec.state_dir)?;
        if !spec.project.is_dir() {
            return Err(SetupError::new(
                "checking the project folder",
                format!("{} is not a folder", spec.project.display()),
            ));
        }
        if Path::new("/tmp").starts_with(&spec.project) {
            return Err(SetupError::new(
                "checking the project folder",
                format!(
                    "{} contains /tmp, which the sandbox replaces",
                    spec.project.display()
                ),
            ));
        }
        std::fs::create_dir_all(&spec.tmp)
            .map_err(step(format!("creating {}", spec.tmp.display())))?;
        std::fs::create_dir_all(&spec.state_dir)
            .map_err(step(format!("creating {}", spec.state_dir.display())))?;
        let empty_path = spec.state_dir.join("empty");
        if !empty_path.exists() {
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(0o000)
                .open(&empty_path)
                .map_err(step(format!("creating {}", empty_path.display())))?;
        }
        Ok(Plan { empty: empty_path })
    }

    /// Runs inside the new user and mount namespaces.
    pub(super) fn apply(&self, spec: &SandboxSpec) -> Result<(), SetupError> {
        // Nothing done here may reach the machine's own mount table.
        mount(NONE, "/", NONE, MsFlags::MS_REC | MsFlags::MS_PRIVATE, NONE)
            .map_err(step("making the mounts private"))?;

        if spec.replaces_tmp() {
            bind(&spec.tmp, Path::new("/tmp"), false)
                .map_err(|e| SetupError::new("making the private /tmp", e))?;
        }
        if Path::new("/dev/shm").is_dir() {
            mount(
                Some("tmpfs"),
                "/dev/shm",
                Some("tmpfs"),
                MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
                Some("mode=1777"),
            )
            .map_err(step("making the private /dev/shm"))?;
        }
        if !spec.project_writable {
            bind(&spec.project, &spec.project, true)
                .map_err(|e| SetupError::new("making the project read-only", e))?;
        }
        for p in &spec.read_only {
            if p.exists() {
                bind(p, p, true).map_err(|e| {
                    SetupError::new(format!("keeping {} read-only", p.display()), e)
                })?;
            }
        }
        // Files first: the empty file may itself sit in a folder that is hidden next.
        let (dirs, files): (Vec<&PathBuf>, Vec<&PathBuf>) =
            spec.hidden.iter().partition(|p| p.is_dir());
        for p in files.into_iter().chain(dirs) {
            hide(p, &self.empty)?;
        }
        Ok(())
    }
}

/// Hides a file or folder: an empty read-only folder, or the empty unreadable file, on top.
fn hide(path: &Path, empty: &Path) -> Result<(), SetupError> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(());
    };
    let what = format!("hiding {}", path.display());
    if meta.is_dir() {
        mount(
            Some("tmpfs"),
            path,
            Some("tmpfs"),
            MsFlags::MS_RDONLY | MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC,
            Some("mode=000,size=4k"),
        )
        .map_err(step(what))
    } else {
        bind(empty, path, true).map_err(|e| SetupError::new(what, e))
    }
}

/// A bind mount, made read-only if asked. A read-only remount must repeat the flags the
/// original mount has and this namespace may not clear (nosuid, nodev, noexec …).
fn bind(source: &Path, target: &Path, read_only: bool) -> Result<(), nix::Error> {
    mount(
        Some(source),
        target,
        NONE,
        MsFlags::MS_BIND | MsFlags::MS_REC,
        NONE,
    )?;
    if read_only {
        let mut flags = MsFlags::MS_BIND | MsFlags::MS_REMOUNT | MsFlags::MS_RDONLY;
        if let Ok(v) = statvfs(target) {
            let f = v.flags();
            for (st, ms) in [
                (FsFlags::ST_NOSUID, MsFlags::MS_NOSUID),
                (FsFlags::ST_NODEV, MsFlags::MS_NODEV),
                (FsFlags::ST_NOEXEC, MsFlags::MS_NOEXEC),
                (FsFlags::ST_NOATIME, MsFlags::MS_NOATIME),
                (FsFlags::ST_NODIRATIME, MsFlags::MS_NODIRATIME),
                (FsFlags::ST_RELATIME, MsFlags::MS_RELATIME),
            ] {
                if f.contains(st) {
                    flags |= ms;
                }
            }
        }
        mount(NONE, target, NONE, flags, NONE)?;
    }
    Ok(())
}
