//! The sandbox this machine gives a person's commands and tool servers: whether it has one,
//! a private temporary folder, what of the home folder toolchains need, and the secret
//! locations every process is kept away from (the person's keys, Tandem's own configuration
//! and data, runtime sockets).

use crate::locations;
use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _};
use std::path::{Path, PathBuf};
use tools::SandboxSetup;

pub use sandbox::{Capabilities, Limits, Unavailable, cgroup_place, cgroup_v2_controllers};

/// What this machine offers, found once per process (`TANDEM_SANDBOX=off` turns it off).
pub fn capabilities() -> &'static Capabilities {
    sandbox::probe()
}

/// Sockets of services that would do for a command what the sandbox forbids it (start
/// containers as root, hand out secrets).
const SERVICE_SOCKETS: &[&str] = &[
    "/var/run/docker.sock",
    "/run/docker.sock",
    "/run/containerd/containerd.sock",
    "/run/podman/podman.sock",
    "/etc/shadow",
    "/etc/gshadow",
];

/// Everything every command is kept away from: the user's keys and credentials (the policy's
/// list), Tandem's own configuration (keys, rules) and data (other sessions' logs), and the
/// user's runtime folder (session bus, keyring, agent sockets).
pub fn hidden_locations(home: Option<&Path>) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = Vec::new();
    if let Some(home) = home {
        v.extend(policy::HOME_SECRETS.iter().map(|rel| home.join(rel)));
    }
    v.push(locations::config_dir());
    v.push(locations::data_dir());
    if let Some(run) = std::env::var_os("XDG_RUNTIME_DIR") {
        v.push(PathBuf::from(run));
    }
    v.push(PathBuf::from(format!(
        "/run/user/{}",
        std::fs::metadata("/proc/self")
            .map(|m| m.uid())
            .unwrap_or(0)
    )));
    v.extend(SERVICE_SOCKETS.iter().map(PathBuf::from));
    v.extend(outside_folders(home));
    // And in the home's toolchain folders, which commands see: a language server's or a
    // daemon's socket there, bound in another network namespace, is in no table of this one.
    let toolchains: Vec<PathBuf> = home.map(home_for_toolchains).unwrap_or_default();
    let mut places: Vec<&Path> = vec![Path::new("/var"), Path::new("/opt")];
    places.extend(toolchains.iter().map(PathBuf::as_path));
    v.extend(sockets_by_type(&places));
    // Links are followed: a hidden link would hide nothing.
    let mut v: Vec<PathBuf> = v
        .into_iter()
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    v.sort();
    v.dedup();
    v
}

/// The top-level folders a command has no reason to see (`/srv`, `/mnt`, `/media`, `/data`,
/// other people's homes, `/var/tmp`): hidden behind empty folders, so a socket bound there by
/// a program outside (however it was named: a relative bind, a rename, from another network
/// namespace) is not even found. Reads are an allow-list as well
/// ([`sandbox::SYSTEM_FOLDERS`]); a folder that holds the project or what the sandbox shows
/// is left (the spec drops it).
fn outside_folders(home: Option<&Path>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir("/") else {
        return out;
    };
    for e in entries.flatten() {
        let path = e.path();
        let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
        let system = sandbox::SYSTEM_FOLDERS.iter().any(|s| path == Path::new(s));
        if !is_dir || system || path == Path::new("/dev") {
            continue;
        }
        if path == Path::new("/home") {
            // Each home but the user's (the sandbox shows that one as its toolchains only).
            if let Ok(homes) = std::fs::read_dir(&path) {
                out.extend(
                    homes
                        .flatten()
                        .map(|h| h.path())
                        .filter(|h| Some(h.as_path()) != home),
                );
            }
            continue;
        }
        if Some(path.as_path()) == home {
            continue;
        }
        out.push(path);
    }
    out.push(PathBuf::from("/var/tmp"));
    out
}

/// Socket files in `places` (found by their type, S_IFSOCK, not by the kernel's table of
/// names), a few levels deep and a bounded number of entries: a service's socket in a place
/// commands read (`/var/lib/…/mysql.sock`) is hidden whatever it was called when bound.
fn sockets_by_type(places: &[&Path]) -> Vec<PathBuf> {
    use std::os::unix::fs::FileTypeExt as _;
    const DEPTH: usize = 5;
    const ENTRIES: usize = 50_000;
    let mut out = Vec::new();
    let mut seen = 0;
    let mut stack: Vec<(PathBuf, usize)> = places
        .iter()
        .filter(|p| **p != Path::new("/var/tmp"))
        .map(|p| (p.to_path_buf(), 0))
        .collect();
    while let Some((dir, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            seen += 1;
            if seen > ENTRIES {
                return out;
            }
            let Ok(t) = e.file_type() else { continue };
            let path = e.path();
            if t.is_socket() {
                out.push(path);
            } else if t.is_dir() && depth + 1 < DEPTH && path != Path::new("/var/tmp") {
                stack.push((path, depth + 1));
            }
        }
    }
    out
}

/// The folder that holds every session's private temporary folder, when it is the user's own.
fn private_tmp_base() -> Option<PathBuf> {
    let uid = std::fs::metadata("/proc/self").map(|m| m.uid()).ok()?;
    let base = std::env::temp_dir().join(format!("tandem-{uid}"));
    let ours = std::fs::symlink_metadata(&base)
        .is_ok_and(|m| m.is_dir() && m.uid() == uid && m.mode() & 0o077 == 0);
    ours.then_some(base)
}

/// Removes the private temporary folders no session uses any more: a session ends them as it
/// closes, but a killed app or CLI never did, and they stayed on the machine's disk (hundreds
/// after a day of work). A folder goes when its session's log in `sessions_dir` is held by no
/// process (a live session holds it, in this process too), when it is a CLI call's whose
/// process is gone, or, for sessions of another data folder, when nothing touched it for a
/// day. Answers how many went.
pub fn sweep_private_tmps(sessions_dir: &Path) -> usize {
    let Some(base) = private_tmp_base() else {
        return 0;
    };
    let Ok(entries) = std::fs::read_dir(&base) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        let unused = if let Some(pid) = name.strip_prefix("cli-") {
            !Path::new("/proc").join(pid).exists()
        } else {
            let log = sessions_dir.join(format!("{name}.jsonl"));
            match std::fs::OpenOptions::new().append(true).open(&log) {
                Ok(file) => file.try_lock().is_ok(),
                Err(_) => entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age > std::time::Duration::from_secs(24 * 3600)),
            }
        };
        if unused && std::fs::remove_dir_all(&path).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// The session's private temporary folder: `/tmp/tandem-UID/SESSION`, made private to the
/// user. Not in the session folder, which is hidden from commands with the rest of Tandem's
/// data. A `/tmp/tandem-UID` that someone else owns is not used.
pub fn private_tmp(session_id: &str, session_dir: &Path) -> PathBuf {
    let uid = std::fs::metadata("/proc/self")
        .map(|m| m.uid())
        .unwrap_or(0);
    // Made if missing; used only if it turns out to be this user's own and private.
    let _ = std::fs::DirBuilder::new()
        .mode(0o700)
        .create(std::env::temp_dir().join(format!("tandem-{uid}")));
    match private_tmp_base() {
        Some(base) => base.join(session_id),
        None => session_dir.join("tmp"),
    }
}

/// What toolchains need of the home folder: version managers, compilers and interpreters
/// installed there, package caches (read-only: installs write the private temporary folder)
/// and git's own settings. Everything else in the home folder — keys, tokens, histories,
/// browser profiles, other programs' sockets, whatever they are called — is not there for a
/// command. Secret files inside these (`.cargo/credentials.toml` …) stay hidden.
pub const HOME_FOR_TOOLCHAINS: &[&str] = &[
    // git
    ".gitconfig",
    ".config/git",
    // Rust, Go, Zig, Haskell, OCaml, Lean, .NET, Julia, Swift
    ".cargo",
    ".rustup",
    "go",
    ".cache/go-build",
    ".config/go",
    ".cache/zig",
    ".ghcup",
    ".cabal",
    ".stack",
    ".opam",
    ".elan",
    ".dotnet",
    ".nuget/packages",
    ".julia",
    ".juliaup",
    ".swiftpm",
    // Python
    ".pyenv",
    ".local/bin",
    ".local/lib",
    ".local/pipx",
    ".local/share/uv",
    ".local/share/virtualenvs",
    ".virtualenvs",
    ".cache/pip",
    ".cache/uv",
    ".cache/pypoetry",
    ".conda",
    "miniconda3",
    "anaconda3",
    "miniforge3",
    "mambaforge",
    // JavaScript
    ".nvm",
    ".fnm",
    ".volta",
    ".bun",
    ".deno",
    ".cache/deno",
    ".npm",
    ".node-gyp",
    ".cache/node-gyp",
    ".cache/yarn",
    ".yarn/berry",
    ".pnpm-store",
    ".local/share/pnpm",
    ".cache/ms-playwright",
    ".cache/puppeteer",
    // JVM, Ruby
    ".sdkman",
    ".jdks",
    ".m2/repository",
    ".gradle/caches",
    ".gradle/wrapper",
    ".ivy2",
    ".sbt",
    ".rbenv",
    ".rvm",
    ".gem",
    ".local/share/gem",
    // Version managers for many languages, Nix
    ".asdf",
    ".tool-versions",
    ".local/share/mise",
    ".config/mise",
    ".nix-profile",
    // Build caches and formatters' settings
    ".ccache",
    ".cache/ccache",
    ".cache/bazel",
    ".cache/pre-commit",
    ".editorconfig",
];

/// The toolchain entries that exist under `home`.
pub fn home_for_toolchains(home: &Path) -> Vec<PathBuf> {
    HOME_FOR_TOOLCHAINS
        .iter()
        .map(|rel| home.join(rel))
        .filter(|p| p.exists())
        .collect()
}

/// Whether commands can run over a copy-on-write layer of the project with their layers kept
/// under `state_dir`: the machine mounts unprivileged overlays, and the folder keeps the
/// overlay's marks.
pub fn layers_in(state_dir: &Path) -> bool {
    capabilities().layers.project_layer && tools::CommandLayer::can_live_in(state_dir)
}

/// Whether commands in `project` (canonical) would run over a layer of it, tried with a
/// command that does nothing, its files kept under `state_dir` (`None`: this machine runs no
/// command over a layer at all). Overlayfs refuses some file systems below it (FUSE, some
/// network ones); commands there write the project directly and their changes are found
/// afterwards.
pub fn project_layered(project: &Path, state_dir: &Path) -> Option<bool> {
    if !layers_in(state_dir) {
        return None;
    }
    let setup = sandbox_setup(state_dir.join("sandbox"))?.with_layers(true);
    Some(setup.layers_for(project, &state_dir.join("tmp")))
}

/// The sandbox for a session's (or a tool server's) processes, with its helper's files in
/// `state_dir`; `None` on a machine without one. It hides the files of the built-in secret
/// patterns.
pub fn sandbox_setup(state_dir: PathBuf) -> Option<SandboxSetup> {
    sandbox_setup_hiding(state_dir, policy::is_secret.into())
}

/// [`sandbox_setup`], hiding the project's files `is_secret` names (a session's: its rules'
/// protected paths too).
pub fn sandbox_setup_hiding(
    state_dir: PathBuf,
    is_secret: tools::SecretTest,
) -> Option<SandboxSetup> {
    let caps = capabilities();
    match (&caps.helper, caps.sandboxed) {
        (Some(helper), true) => {
            let home = std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|h| h.is_absolute())
                .and_then(|h| h.canonicalize().ok());
            let layers = layers_in(&state_dir);
            let setup = SandboxSetup::new(helper.clone(), state_dir, is_secret)
                .hiding(hidden_locations(home.as_deref()))
                .with_layers(layers);
            Some(match home {
                Some(h) => {
                    let visible = home_for_toolchains(&h);
                    setup.with_home(h, visible)
                }
                None => setup,
            })
        }
        _ => None,
    }
}
