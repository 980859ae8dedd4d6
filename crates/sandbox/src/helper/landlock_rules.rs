//! The Landlock ruleset: read and run the system, the project and what the spec shows (an
//! allow-list: other top-level folders, such as `/srv`, `/mnt`, `/media`, `/data`, other
//! people's homes and `/var/tmp`, are not readable), write only the project, `/tmp` and
//! `/dev/shm`; no signals to and no abstract sockets of processes outside.

use super::{SetupError, step};
use crate::spec::{SYSTEM_FOLDERS, SandboxSpec};
use landlock::{
    ABI, Access, AccessFs, BitFlags, CompatLevel, Compatible, LandlockStatus, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope, path_beneath_rules,
};
use std::path::{Path, PathBuf};

/// The newest ABI this ruleset was written and tested for; older kernels get what they offer.
const TARGET: ABI = ABI::V6;

/// Device files a command may open. Anything else under /dev (disks, memory) stays closed,
/// even to a user whose permissions would allow it. `/dev/stdout` and friends lead through
/// `/proc/self/fd` to pipes, which Landlock leaves alone.
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
    "/dev/shm",
];

/// What a command may read, by folder: the system's, the project (and the worktree it is a
/// folder of), the home folder as the sandbox shows it (empty but for toolchains) and the
/// folders the spec keeps visible. Everything else stays unreadable whatever its permissions.
pub fn readable(spec: &SandboxSpec) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for folder in SYSTEM_FOLDERS {
        if *folder == "/var" {
            if let Ok(entries) = std::fs::read_dir(folder) {
                out.extend(
                    entries
                        .flatten()
                        .filter(|e| e.file_name() != "tmp")
                        .map(|e| e.path()),
                );
            }
        } else {
            out.push(PathBuf::from(folder));
        }
    }
    out.push(spec.project.clone());
    // A project that is a folder of a repository: git reads the whole worktree and its .git.
    if let Some(worktree) = spec
        .project
        .ancestors()
        .skip(1)
        .find(|a| a.join(".git").exists())
    {
        out.push(worktree.to_path_buf());
    }
    if let Some(home) = &spec.home.folder {
        out.push(home.clone());
    }
    // The command's own HOME (the same folder, but where a caller shows another home): a
    // program looking for `~/.gitconfig` finds it or finds nothing, never "permission denied".
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from)
        && home.is_absolute()
        && home != Path::new("/")
    {
        out.push(home);
    }
    out.extend(spec.readable.iter().cloned());
    for p in spec.home.visible.iter().chain(&spec.home.keep_visible) {
        out.push(p.clone());
        // A toolchain folder may be a link to elsewhere (`~/.cargo` → `/work/.cargo`).
        if let Ok(real) = std::fs::canonicalize(p) {
            out.push(real);
        }
    }
    out.retain(|p| p.exists() && !p.starts_with("/dev"));
    out.sort();
    out.dedup();
    out
}

pub(super) fn restrict(spec: &SandboxSpec) -> Result<u32, SetupError> {
    let top = readable(spec);
    let mut writable: Vec<PathBuf> = vec![spec.tmp_inside(), "/dev/shm".into()];
    if spec.project_writable {
        writable.push(spec.project.clone());
    }
    // Not even `/` is listable: a rule there would let every folder beneath it be listed
    // (Landlock rules hold for a whole tree), and names are what a command looks for.
    let mut rules: Vec<(PathBuf, BitFlags<AccessFs>)> = Vec::new();
    rules.extend(top.into_iter().map(|p| (p, AccessFs::from_read(TARGET))));
    let device =
        AccessFs::from_read(TARGET) | AccessFs::WriteFile | AccessFs::Truncate | AccessFs::IoctlDev;
    rules.extend(DEVICES.iter().map(|d| (PathBuf::from(d), device)));
    rules.extend(
        writable
            .into_iter()
            .map(|p| (p, AccessFs::from_all(TARGET))),
    );

    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(TARGET))
        .and_then(|r| r.scope(Scope::from_all(TARGET)))
        .and_then(|r| r.create())
        .map_err(step("creating the Landlock ruleset"))?;
    for (path, access) in rules {
        ruleset = ruleset
            .add_rules(path_beneath_rules([&path], access))
            .map_err(step(format!("allowing {} in Landlock", path.display())))?;
    }
    let status = ruleset
        .restrict_self()
        .map_err(step("restricting with Landlock"))?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err(SetupError::new(
            "restricting with Landlock",
            "the kernel does not enforce Landlock (it is missing or turned off)",
        ));
    }
    Ok(match status.landlock {
        LandlockStatus::Available { effective_abi, .. } => effective_abi as u32,
        _ => 0,
    })
}

/// The ABI the kernel enforces: this process restricts itself (only allowed for a throwaway
/// process) and reads the answer.
pub(super) fn effective_abi() -> Option<u32> {
    let status = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(TARGET))
        .and_then(|r| r.create())
        .and_then(|r| r.restrict_self())
        .ok()?;
    match status.landlock {
        LandlockStatus::Available { effective_abi, .. }
            if status.ruleset != RulesetStatus::NotEnforced =>
        {
            Some(effective_abi as u32)
        }
        _ => None,
    }
}
