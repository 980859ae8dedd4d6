//! What one sandboxed command may do, as the caller describes it to the helper.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One command's confinement. Paths are absolute with symlinks resolved (but for
/// `home.visible`, named as they are under the home folder); paths that do not exist are
/// skipped (there is nothing to hide or protect yet).
/// A helper that does not know a field refuses the spec (an older helper beside a newer app
/// would otherwise leave a protection out without a word).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SandboxSpec {
    /// The project folder: the command's working folder, writable unless `project_writable`
    /// is false (read-only mode).
    pub project: PathBuf,
    pub project_writable: bool,
    /// A copy-on-write layer over the project (overlayfs, the project below): what the
    /// command writes lands in the layer, and the project stays as it was until the caller
    /// lands the changes it accepts. `None`: the command writes the project itself.
    #[serde(default)]
    pub layer: Option<Layer>,
    /// The session's private temporary folder. It always replaces the machine's `/tmp` (which
    /// holds other programs' sockets and files), so `TMPDIR` is `/tmp` inside; a file made
    /// by `mktemp` in one command is there for the next.
    pub tmp: PathBuf,
    #[serde(default)]
    pub home: HomeView,
    pub guarded: Guarded,
    #[serde(default)]
    pub shown: Shown,
    /// Whether the command sees the machine's network. Without it, it sees only its own
    /// loopback interface.
    pub network: bool,
    /// Folders outside the system's, the project and the home's toolchains that the command
    /// may read (and run from): what the person's own configuration names, such as the folder
    /// of a tool server's script. Reads are an allow-list; nothing else outside is readable.
    #[serde(default)]
    pub readable: Vec<PathBuf>,
    /// How much one command may take.
    #[serde(default)]
    pub limits: Limits,
    /// The `cgroup.procs` files of the command's own control group (see
    /// [`crate::CommandCgroup`]): the helper joins it before anything else, so the command's
    /// memory and processes are capped as a whole. Empty where the machine offers none.
    #[serde(default)]
    pub cgroup_procs: Vec<PathBuf>,
    /// A folder of the caller's outside the project for the helper's own files. Commands
    /// never see it.
    pub state_dir: PathBuf,
}

/// The user's home folder as a command sees it, and what else stays visible in the places the
/// sandbox replaces.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HomeView {
    /// The user's home folder. The sandbox shows an empty, read-only folder in its place with
    /// only `visible` in it: keys, tokens, histories and sockets a toolchain never needs
    /// are simply not there, whatever they are called.
    #[serde(default)]
    pub folder: Option<PathBuf>,
    /// Entries of the home folder a command's toolchains need (`~/.cargo`, `~/.rustup`,
    /// `~/.gitconfig` …), shown read-only at their place. Links are followed.
    #[serde(default)]
    pub visible: Vec<PathBuf>,
    /// Other folders that must stay visible at their own path although they lie in a place
    /// the sandbox replaces (`/tmp`, the home folder): a test's fake home, say.
    #[serde(default)]
    pub keep_visible: Vec<PathBuf>,
}

/// What a command may not change, or not even see.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Guarded {
    /// Inside the project, kept read-only: everything git reads configuration, hooks or
    /// programs from (`.git/config`, `.git/hooks`, `.git/modules`, `.git/worktrees`, a `.git`
    /// file, the hooks path), `.tandem`, the policy's protected paths. What a command wrote
    /// there would run later, outside any sandbox, when the user runs git.
    pub read_only: Vec<PathBuf>,
    /// Folders that stay writable but cannot be renamed, removed or replaced while the
    /// command runs (`.git`: moving it aside would take the read-only places with it).
    #[serde(default)]
    pub pinned: Vec<PathBuf>,
    /// Files and folders that cannot be read at all: the user's keys and credentials,
    /// Tandem's own configuration and data, the session bus, the project's `.env` files.
    pub hidden: Vec<PathBuf>,
    /// The git folder whose new `commondir` or `config.worktree` the helper removes while
    /// the command runs: either would point the user's own git at files the command wrote.
    #[serde(default)]
    pub git_dir: Option<PathBuf>,
}

/// A command's copy-on-write layer: two empty folders of the caller's, outside the project
/// and on its file system (so landing a change is a rename), never visible to the command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Layer {
    /// What the command wrote, created, deleted (whiteouts) or replaced (opaque folders).
    pub upper: PathBuf,
    /// The overlay's own scratch folder.
    pub work: PathBuf,
}

/// Files of the caller's shown to the command.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shown {
    /// Files and folders the caller staged for the command (a skill's scripts), shown
    /// read-only under `/run/tandem`.
    #[serde(default)]
    pub binds: Vec<Bind>,
    /// Files shown, read-only, in place of others: a repository's configuration without the
    /// programs it names, for a command that only reads or that has the network.
    #[serde(default)]
    pub replaced: Vec<Replacement>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bind {
    pub source: PathBuf,
    /// One plain name (no `/`, not `.` or `..`).
    pub name: String,
}

/// A file of the caller's shown, read-only, in place of `target`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Replacement {
    pub source: PathBuf,
    pub target: PathBuf,
}

/// Where the sandbox shows the caller's [`Bind`]s.
pub const BIND_ROOT: &str = "/run/tandem";

impl Bind {
    /// Where the command finds it.
    pub fn inside(&self) -> PathBuf {
        Path::new(BIND_ROOT).join(&self.name)
    }
}

/// Top-level folders of the system a command reads and runs from (those this machine has).
/// `/var` is read but for `/var/tmp` (every user's files that outlive a reboot). Every other
/// top-level folder is unreadable, and the caller hides it as well (see
/// `config::machine_sandbox::hidden_locations`): Landlock does not stop a connection to a
/// socket found by name there.
pub const SYSTEM_FOLDERS: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc",
    "/sys", "/run", "/tmp", "/nix", "/snap", "/gnu", "/var",
];

/// Per-command limits. A fork bomb or a runaway allocation ends the command with a clear
/// message instead of taking the machine (and the app) with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Processes (and threads) the command may have at once.
    pub processes: u64,
    /// Bytes of data memory one of its processes may take.
    pub memory_bytes: u64,
    /// Bytes a command may write into its copy-on-write layer of the project (less when the
    /// disk has less room): past it the command is stopped and nothing of it lands. Kept
    /// by whoever lands the layer; the helper does not see it.
    #[serde(default = "default_layer_limit")]
    pub layer_bytes: u64,
    /// Bytes one file the command writes may hold (RLIMIT_FSIZE), anywhere it may write: the
    /// private `/tmp` is on the machine's disk, and a runaway writer there filled it. Past it
    /// the write fails ("File too large") and the command's result names the limit.
    #[serde(default = "default_file_limit")]
    pub file_bytes: u64,
    /// Bytes the session's private `/tmp` may hold (less when the disk has less room): a
    /// command that fills it past that is stopped, and its result names the limit. Kept by
    /// whoever runs the command; the helper does not see it.
    #[serde(default = "default_tmp_limit")]
    pub tmp_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            processes: 2048,
            memory_bytes: default_memory_limit(),
            layer_bytes: default_layer_limit(),
            file_bytes: default_file_limit(),
            tmp_bytes: default_tmp_limit(),
        }
    }
}

/// 10 GiB in the private `/tmp`: a build's scratch or a downloaded toolchain fits; the
/// machine's disk is not filled under the app.
pub fn default_tmp_limit() -> u64 {
    10 << 30
}

/// 8 GiB a file: a disk image or a large build artifact fits; one file cannot fill a disk.
pub fn default_file_limit() -> u64 {
    8 << 30
}

/// 20 GiB: a large build folder fits; a runaway writer stops before it fills a disk.
pub fn default_layer_limit() -> u64 {
    20 << 30
}

/// Half the machine's memory, at least 2 GiB: a big link or test run fits, a runaway
/// allocation ends before the machine starts swapping the app out.
pub fn default_memory_limit() -> u64 {
    const GIB: u64 = 1 << 30;
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map(|kb| kb * 1024)
        .unwrap_or(8 * GIB);
    (total / 2).max(2 * GIB)
}

impl SandboxSpec {
    /// The private temporary folder as the command sees it: what `TMPDIR` should say.
    pub fn tmp_inside(&self) -> PathBuf {
        PathBuf::from("/tmp")
    }
}
