//! The Landlock ruleset: read and run everything but devices, write only the project, `/tmp`
//! and `/dev/shm`; no signals to and no abstract sockets of processes outside.

use super::{SetupError, step};
use crate::spec::SandboxSpec;
use landlock::{
    ABI, Access, AccessFs, BitFlags, CompatLevel, Compatible, LandlockStatus, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope, path_beneath_rules,
};
use std::path::PathBuf;

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

pub(super) fn restrict(spec: &SandboxSpec) -> Result<u32, SetupError> {
    // Reads reach every top-level folder but /dev; /dev gets its own short list.
    let top: Vec<PathBuf> = std::fs::read_dir("/")
        .map_err(step("listing /"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p != &PathBuf::from("/dev"))
        .collect();
    let mut writable: Vec<PathBuf> = vec![spec.tmp_inside(), "/dev/shm".into()];
    if spec.project_writable {
        writable.push(spec.project.clone());
    }
    let mut rules: Vec<(PathBuf, BitFlags<AccessFs>)> =
        vec![("/".into(), AccessFs::ReadDir.into())];
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
