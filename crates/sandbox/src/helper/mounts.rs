//! The mounts of a sandbox: what the command sees of the machine's shared places. A private
//! `/tmp`, `/dev/shm` and terminal instance; an empty `/run` (no system sockets); an empty
//! home folder with only what toolchains need; secrets hidden behind empty mounts; the places
//! git reads programs from kept read-only and `.git` pinned in place.
//!
//! Everything the host makes here is made inside the new mount namespace or below a folder
//! opened without following links: nothing a command planted can lead the helper elsewhere.

use super::{SetupError, beneath, step};
use crate::spec::{BIND_ROOT, SandboxSpec};
use nix::fcntl::{OFlag, open};
use nix::mount::{MsFlags, mount};
use nix::sys::stat::{Mode, fstat};
use nix::sys::statvfs::{FsFlags, statvfs};
use std::os::fd::OwnedFd;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

const NONE: Option<&str> = None;

/// Files of `/etc` that some systems keep as links into `/run` (the resolver's configuration
/// under systemd-resolved or NetworkManager): shown again inside the empty `/run`.
const ETC_LINKS_INTO_RUN: &[&str] = &[
    "/etc/resolv.conf",
    "/etc/hosts",
    "/etc/nsswitch.conf",
    "/etc/localtime",
    "/etc/machine-id",
    "/etc/gai.conf",
    "/etc/host.conf",
];

/// Where the first stage leaves its report for the second one: inside the sandbox's own
/// `/run`, which no host folder backs and no command can write (Landlock).
pub(super) const INNER_REPORT: &str = "/run/.tandem-sandbox-report";

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

/// A path the helper holds open, to mount from or onto once its name is covered.
struct Held {
    path: PathBuf,
    fd: OwnedFd,
    dir: bool,
}

fn hold(path: &Path) -> Option<Held> {
    let fd = open(path, OFlag::O_PATH | OFlag::O_CLOEXEC, Mode::empty()).ok()?;
    let dir = fstat(&fd)
        .map(|s| s.st_mode & libc::S_IFMT == libc::S_IFDIR)
        .ok()?;
    Some(Held {
        path: path.to_path_buf(),
        fd,
        dir,
    })
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
        for replaced in ["/tmp", "/run"] {
            if Path::new(replaced).starts_with(&spec.project) {
                return Err(SetupError::new(
                    "checking the project folder",
                    format!(
                        "{} contains {replaced}, which the sandbox replaces",
                        spec.project.display()
                    ),
                ));
            }
        }
        for b in &spec.shown.binds {
            if b.name.is_empty() || b.name.contains('/') || b.name == "." || b.name == ".." {
                return Err(SetupError::new(
                    "checking what to show under /run/tandem",
                    format!("`{}` is not a plain name", b.name),
                ));
            }
        }
        if let Some(layer) = &spec.layer {
            prepare_layer(layer, &spec.project)?;
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
                .custom_flags(libc::O_NOFOLLOW)
                .mode(0o000)
                .open(&empty_path)
                .map_err(step(format!("creating {}", empty_path.display())))?;
        }
        Ok(Plan { empty: empty_path })
    }

    /// Runs inside the new user and mount namespaces. `sockets` are the machine's path
    /// sockets found before, to be hidden wherever they are still visible.
    pub(super) fn apply(&self, spec: &SandboxSpec, sockets: &[PathBuf]) -> Result<(), SetupError> {
        // Nothing done here may reach the machine's own mount table.
        mount(NONE, "/", NONE, MsFlags::MS_REC | MsFlags::MS_PRIVATE, NONE)
            .map_err(step("making the mounts private"))?;

        // Held before anything is covered: a path under /tmp or the home folder has no name
        // left once they are replaced. (Opened in this namespace: a bind mount's source must
        // belong to it.)
        let empty = hold(&self.empty).ok_or_else(|| {
            SetupError::new("opening the empty file", self.empty.display().to_string())
        })?;
        let tmp = hold(&spec.tmp).ok_or_else(|| {
            SetupError::new(
                "opening the temporary folder",
                spec.tmp.display().to_string(),
            )
        })?;
        let project = hold(&spec.project).ok_or_else(|| {
            SetupError::new(
                "opening the project folder",
                spec.project.display().to_string(),
            )
        })?;
        // The layer's folders usually live in Tandem's data folder, under the home folder that
        // is replaced next.
        let layer = match &spec.layer {
            Some(l) => Some(hold_layer(l)?),
            None => None,
        };
        let keep: Vec<Held> = spec
            .home
            .keep_visible
            .iter()
            .filter_map(|p| hold(p))
            .collect();
        let home_visible: Vec<Held> = spec.home.visible.iter().filter_map(|p| hold(p)).collect();
        let binds: Vec<(String, Held)> = spec
            .shown
            .binds
            .iter()
            .filter_map(|b| hold(&b.source).map(|h| (b.name.clone(), h)))
            .collect();
        let replaced: Vec<(Held, &PathBuf)> = spec
            .shown
            .replaced
            .iter()
            .filter_map(|o| hold(&o.source).map(|h| (h, &o.target)))
            .collect();
        let run_files: Vec<Held> = ETC_LINKS_INTO_RUN
            .iter()
            .filter_map(|f| std::fs::canonicalize(f).ok())
            .filter(|real| real.starts_with("/run") || real.starts_with("/var/run"))
            .filter_map(|real| hold(&real))
            .collect();

        // /run first: /dev/shm is a link into it on some systems.
        replace_run(&run_files, &binds)?;
        bind_fd(&tmp.fd, "/tmp", Path::new("/tmp"), false)
            .map_err(|e| SetupError::new("making the private /tmp", e))?;
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
        // A terminal instance of its own: the machine's /dev/pts holds the user's terminals,
        // which a command could otherwise write into and read from.
        if Path::new("/dev/pts").is_dir() {
            mount(
                Some("devpts"),
                "/dev/pts",
                Some("devpts"),
                MsFlags::MS_NOSUID | MsFlags::MS_NOEXEC,
                Some("newinstance,ptmxmode=0666,mode=0620"),
            )
            .map_err(step("making the private terminal instance (/dev/pts)"))?;
        }
        let emptied_home = match &spec.home.folder {
            Some(home) => replace_home(home, &home_visible, &spec.project)?,
            None => false,
        };
        // The project and the folders kept visible, where /tmp or the home folder covered them
        // (shallowest first, so a folder kept inside another lands on top of it).
        let mut shown: Vec<&Held> = keep.iter().chain(std::iter::once(&project)).collect();
        shown.sort_by_key(|h| h.path.components().count());
        for h in shown {
            show_again(h, spec.home.folder.as_deref())?;
        }
        if let Some(home) = &spec.home.folder
            && emptied_home
        {
            let flags =
                MsFlags::MS_REMOUNT | MsFlags::MS_RDONLY | MsFlags::MS_NOSUID | MsFlags::MS_NODEV;
            mount(NONE, home.as_path(), NONE, flags, Some("mode=755,size=1m"))
                .map_err(step("making the empty home folder read-only"))?;
        }

        if !spec.project_writable {
            bind(&spec.project, &spec.project, true)
                .map_err(|e| SetupError::new("making the project read-only", e))?;
        } else if let Some((upper, work)) = &layer {
            // Before the places kept read-only, pinned or hidden: those are made on the layer,
            // as the command sees the project.
            mount_layer(&project, upper, work, &spec.project)?;
        }
        for p in &spec.guarded.pinned {
            // A link is not pinned: the folder it leads to is not what git uses here. In a
            // read-only project nothing moves anyway, and a bind of its own would be writable.
            if spec.project_writable && std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir()) {
                bind(p, p, false)
                    .map_err(|e| SetupError::new(format!("pinning {}", p.display()), e))?;
            }
        }
        for p in &spec.guarded.read_only {
            // Links are followed: git follows them too, so the place it ends up is what stays
            // read-only.
            if p.exists() {
                bind(p, p, true).map_err(|e| {
                    SetupError::new(format!("keeping {} read-only", p.display()), e)
                })?;
            }
        }
        for (source, target) in &replaced {
            if target.exists() {
                bind_fd(&source.fd, &target.display().to_string(), target, true).map_err(|e| {
                    SetupError::new(format!("showing a copy of {}", target.display()), e)
                })?;
            }
        }
        // Files first: the empty file may itself sit in a folder that is hidden next.
        let (dirs, files): (Vec<&PathBuf>, Vec<&PathBuf>) = spec
            .guarded
            .hidden
            .iter()
            .filter(|h| !spared(h, &spec.readable))
            .partition(|p| p.is_dir());
        for p in files.into_iter().chain(dirs) {
            hide(p, &empty)?;
        }
        for s in sockets {
            hide_socket(s, &empty)?;
        }
        Ok(())
    }
}

/// Whether a hidden place is left because it holds a folder the spec lets the command read (a
/// tool server's script under `/srv/tools`, a folder the person's rules let commands read).
/// Only an outside folder is ever left — one at the top of the machine, a home in `/home` or
/// `/var/tmp` — never a secret, a protected path, Tandem's own
/// data or a socket, whatever a configuration names: a server's command line naming
/// `/project/secrets` must not bring that folder back.
pub(super) fn spared(hidden: &Path, readable: &[PathBuf]) -> bool {
    let outside = hidden == Path::new("/var/tmp")
        || matches!(hidden.parent(), Some(p) if p == Path::new("/") || p == Path::new("/home"));
    outside && readable.iter().any(|r| r.starts_with(hidden))
}

/// Checks a layer's folders before the namespaces exist: outside the project (the kernel
/// refuses layers that overlap), and fresh — what is in them is taken as the command's work.
fn prepare_layer(layer: &crate::spec::Layer, project: &Path) -> Result<(), SetupError> {
    for (what, p) in [
        ("layer's upper folder", &layer.upper),
        ("layer's work folder", &layer.work),
    ] {
        check_absolute(what, p)?;
        if p.starts_with(project) || project.starts_with(p) {
            return Err(SetupError::new(
                format!("checking the {what}"),
                format!("{} overlaps the project folder", p.display()),
            ));
        }
        std::fs::create_dir_all(p).map_err(step(format!("creating {}", p.display())))?;
        let empty = std::fs::read_dir(p)
            .map_err(step(format!("reading {}", p.display())))?
            .next()
            .is_none();
        if !empty {
            return Err(SetupError::new(
                format!("checking the {what}"),
                format!("{} is not empty", p.display()),
            ));
        }
    }
    Ok(())
}

fn hold_layer(layer: &crate::spec::Layer) -> Result<(Held, Held), SetupError> {
    let open = |p: &Path| {
        hold(p)
            .ok_or_else(|| SetupError::new("opening the layer's folders", p.display().to_string()))
    };
    Ok((open(&layer.upper)?, open(&layer.work)?))
}

/// The project as an overlay: the project below (read through the folder held open before
/// anything was covered), the command's layer above. Folders are named by their descriptors,
/// so no path needs escaping and none can have moved since it was checked. Unprivileged
/// overlays keep their marks in `user.overlay.*` attributes (`userxattr`).
fn mount_layer(project: &Held, upper: &Held, work: &Held, at: &Path) -> Result<(), SetupError> {
    use std::os::fd::AsRawFd as _;
    let by_fd = |h: &Held| format!("/proc/self/fd/{}", h.fd.as_raw_fd());
    let options = format!(
        "lowerdir={},upperdir={},workdir={},userxattr",
        by_fd(project),
        by_fd(upper),
        by_fd(work)
    );
    mount(
        Some("overlay"),
        at,
        Some("overlay"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
        Some(options.as_str()),
    )
    .map_err(|e| SetupError {
        layer_refused: true,
        ..step("making the project's copy-on-write layer (overlayfs)")(e)
    })
}

/// An empty `/run` (and `/var/run` where it is a folder of its own): the system bus, container
/// engines, databases, the user's runtime folder and agents keep their sockets there. Links
/// that lead out of it (NixOS's `current-system`) and the resolver's files are kept.
fn replace_run(run_files: &[Held], binds: &[(String, Held)]) -> Result<(), SetupError> {
    let links: Vec<(std::ffi::OsString, PathBuf)> = std::fs::read_dir("/run")
        .map(|d| {
            d.flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_symlink()))
                .filter_map(|e| {
                    std::fs::read_link(e.path())
                        .ok()
                        .map(|t| (e.file_name(), t))
                })
                .filter(|(_, t)| t.is_absolute() && !t.starts_with("/run"))
                .collect()
        })
        .unwrap_or_default();
    for run in ["/run", "/var/run"] {
        let is_dir = std::fs::symlink_metadata(run).is_ok_and(|m| m.is_dir());
        if is_dir {
            mount(
                Some("tmpfs"),
                run,
                Some("tmpfs"),
                MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
                Some("mode=755,size=1m"),
            )
            .map_err(step(format!("emptying {run}")))?;
        }
    }
    let root = open(
        "/run",
        OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
        Mode::empty(),
    )
    .map_err(step("opening the empty /run"))?;
    for (name, target) in links {
        let _ = std::os::unix::fs::symlink(&target, Path::new("/run").join(name));
    }
    for f in run_files {
        let rel = f
            .path
            .strip_prefix("/run")
            .or_else(|_| f.path.strip_prefix("/var/run"));
        let Ok(rel) = rel else { continue };
        let target = beneath::file(&root, rel)
            .map_err(|e| SetupError::new("showing the resolver's files in /run", e))?;
        bind_fd(
            &f.fd,
            &beneath::fd_path(&target),
            &Path::new("/run").join(rel),
            true,
        )
        .map_err(|e| SetupError::new(format!("showing {}", f.path.display()), e))?;
    }
    for (name, h) in binds {
        let rel = Path::new(BIND_ROOT)
            .strip_prefix("/run")
            .map(|r| r.join(name))
            .map_err(step("placing a staged folder"))?;
        let target = if h.dir {
            beneath::dir(&root, &rel)
        } else {
            beneath::file(&root, &rel)
        }
        .map_err(|e| SetupError::new(format!("placing {}", h.path.display()), e))?;
        bind_fd(
            &h.fd,
            &beneath::fd_path(&target),
            &Path::new("/run").join(&rel),
            true,
        )
        .map_err(|e| SetupError::new(format!("showing {}", h.path.display()), e))?;
    }
    Ok(())
}

/// The home folder becomes an empty folder with only `visible` in it (made read-only once
/// the folders shown again below it have their mount points). False when it is left as it is.
fn replace_home(home: &Path, visible: &[Held], project: &Path) -> Result<bool, SetupError> {
    // A home inside the project (or the project itself) stays as it is: hiding it would hide
    // the project. The hidden list still covers its secrets.
    if home.starts_with(project) || !home.is_dir() || home == Path::new("/") {
        return Ok(false);
    }
    mount(
        Some("tmpfs"),
        home,
        Some("tmpfs"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
        Some("mode=755,size=1m"),
    )
    .map_err(step(format!("emptying the home folder {}", home.display())))?;
    let root = open(
        home,
        OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
        Mode::empty(),
    )
    .map_err(step("opening the empty home folder"))?;
    for h in visible {
        let Ok(rel) = h.path.strip_prefix(home) else {
            continue;
        };
        let target = if h.dir {
            beneath::dir(&root, rel)
        } else {
            beneath::file(&root, rel)
        }
        .map_err(|e| SetupError::new(format!("placing {}", h.path.display()), e))?;
        bind_fd(&h.fd, &beneath::fd_path(&target), &h.path, true)
            .map_err(|e| SetupError::new(format!("showing {}", h.path.display()), e))?;
    }
    Ok(true)
}

/// A folder that the private /tmp or the empty home folder covered is shown at its place
/// again. Its mount point is made below the covering folder without following links.
fn show_again(h: &Held, home: Option<&Path>) -> Result<(), SetupError> {
    let covering = [Some(Path::new("/tmp")), home]
        .into_iter()
        .flatten()
        .filter(|c| h.path.starts_with(c) && h.path != *c)
        .max_by_key(|c| c.components().count());
    let Some(covering) = covering else {
        return Ok(());
    };
    let Ok(rel) = h.path.strip_prefix(covering) else {
        return Ok(());
    };
    let base = open(
        covering,
        OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
        Mode::empty(),
    )
    .map_err(step(format!("opening {}", covering.display())))?;
    let what = format!("showing {} in the sandbox", h.path.display());
    let target = beneath::dir(&base, rel).map_err(|e| SetupError::new(what.clone(), e))?;
    bind_fd(&h.fd, &beneath::fd_path(&target), &h.path, false).map_err(|e| SetupError::new(what, e))
}

/// Hides a file or folder: an empty read-only folder, or the empty unreadable file, on top.
fn hide(path: &Path, empty: &Held) -> Result<(), SetupError> {
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
        bind_fd(&empty.fd, &path.display().to_string(), path, true)
            .map_err(|e| SetupError::new(what, e))
    }
}

/// A socket of a program outside, still visible here: the empty file goes on top, so a
/// connection finds no one listening.
fn hide_socket(path: &Path, empty: &Held) -> Result<(), SetupError> {
    use std::os::unix::fs::FileTypeExt as _;
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_socket() => hide(path, empty),
        _ => Ok(()),
    }
}

/// A bind mount of a held path onto `target` (a path, or a held mount point's fd path),
/// read-only if asked; `shown` is where it appears, for the read-only remount.
fn bind_fd(
    source: &OwnedFd,
    target: &str,
    shown: &Path,
    read_only: bool,
) -> Result<(), nix::Error> {
    mount(
        Some(beneath::fd_path(source).as_str()),
        target,
        NONE,
        MsFlags::MS_BIND | MsFlags::MS_REC,
        NONE,
    )?;
    if read_only {
        remount_read_only(shown)?;
    }
    Ok(())
}

/// A bind mount, made read-only if asked.
fn bind(source: &Path, target: &Path, read_only: bool) -> Result<(), nix::Error> {
    mount(
        Some(source),
        target,
        NONE,
        MsFlags::MS_BIND | MsFlags::MS_REC,
        NONE,
    )?;
    if read_only {
        remount_read_only(target)?;
    }
    Ok(())
}

/// A read-only remount must repeat the flags the original mount has and this namespace may
/// not clear (nosuid, nodev, noexec …).
fn remount_read_only(target: &Path) -> Result<(), nix::Error> {
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
    mount(NONE, target, NONE, flags, NONE)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tool server's command line may bring back an outside folder it lives in, never a
    /// secret, a protected folder or Tandem's data it happens to name.
    #[test]
    fn only_outside_folders_are_spared_for_what_a_server_names() {
        let readable = [
            PathBuf::from("/srv/tools"),
            PathBuf::from("/work/p/secrets"),
            PathBuf::from("/home/other/bin"),
            PathBuf::from("/data/tandem"),
        ];
        assert!(spared(Path::new("/srv"), &readable));
        assert!(spared(Path::new("/home/other"), &readable));
        assert!(spared(Path::new("/data"), &readable));
        for kept_hidden in [
            "/work/p/secrets",
            "/work/p/secrets/key.pem",
            "/data/tandem",
            "/home/other/.ssh",
            "/mnt",
        ] {
            assert!(!spared(Path::new(kept_hidden), &readable), "{kept_hidden}");
        }
    }
}
