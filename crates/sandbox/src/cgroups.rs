//! A command's memory and processes capped as a whole: a control group of its own, made by
//! the caller before it starts and joined by the helper before the namespaces are made (so
//! everything the command starts is inside). Per-process limits (`RLIMIT_DATA`,
//! `RLIMIT_NPROC`) let 2,048 processes take half the memory each; a group's `memory.max` and
//! `pids.max` hold for all of them together.
//!
//! cgroup v2 is used where this user may make groups below its own (systemd delegates the
//! user's service tree with `memory` and `pids`); v1's `memory` and `pids` hierarchies where
//! they are mounted and writable. Elsewhere nothing is made, and `sandbox check` says so.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Where this process may make a command's groups, found once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CgroupPlace {
    /// A cgroup v2 folder whose children get `memory` and `pids`.
    V2(PathBuf),
    /// cgroup v1: the folders of this process's group in the `memory` and `pids` hierarchies.
    V1 { memory: PathBuf, pids: PathBuf },
}

impl CgroupPlace {
    /// In words, for `sandbox check`.
    pub fn words(&self) -> String {
        match self {
            CgroupPlace::V2(p) => format!("cgroup v2, in {}", p.display()),
            CgroupPlace::V1 { memory, .. } => format!("cgroup v1, in {}", memory.display()),
        }
    }
}

/// The place this process may make command groups in, tried for real (a group is made and
/// removed); `None` when there is none.
pub fn cgroup_place() -> Option<&'static CgroupPlace> {
    static PLACE: std::sync::OnceLock<Option<CgroupPlace>> = std::sync::OnceLock::new();
    PLACE
        .get_or_init(|| {
            let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
            find_place(&own, Path::new("/sys/fs/cgroup"))
        })
        .as_ref()
}

/// The place from `/proc/self/cgroup`'s lines, below the cgroup mount `root`.
fn find_place(own: &str, root: &Path) -> Option<CgroupPlace> {
    let line_of = |controller: &str| {
        own.lines().find_map(|l| {
            let mut parts = l.splitn(3, ':');
            let (_, names, path) = (parts.next()?, parts.next()?, parts.next()?);
            (names.split(',').any(|n| n == controller)).then(|| path.trim_start_matches('/'))
        })
    };
    // v2: the unified line is "0::/path"; the hierarchy is at the root or at unified/.
    if let Some(path) = own.lines().find_map(|l| l.strip_prefix("0::")) {
        for base in [root.to_path_buf(), root.join("unified")] {
            let dir = base.join(path.trim_start_matches('/'));
            if let Some(place) = v2_place(&dir) {
                return Some(place);
            }
        }
    }
    let memory = root.join("memory").join(line_of("memory")?);
    let pids = root.join("pids").join(line_of("pids")?);
    let place = CgroupPlace::V1 { memory, pids };
    try_place(&place).then_some(place)
}

/// A v2 folder whose children may have `memory` and `pids`: its `subtree_control` has them
/// (or takes them now), and a child can be made there.
fn v2_place(dir: &Path) -> Option<CgroupPlace> {
    let offered = std::fs::read_to_string(dir.join("cgroup.controllers")).ok()?;
    if !["memory", "pids"]
        .iter()
        .all(|c| offered.split_whitespace().any(|o| o == *c))
    {
        return None;
    }
    let enabled = |d: &Path| {
        std::fs::read_to_string(d.join("cgroup.subtree_control"))
            .map(|t| {
                ["memory", "pids"]
                    .iter()
                    .all(|c| t.split_whitespace().any(|o| o == *c))
            })
            .unwrap_or(false)
    };
    // A folder that holds processes cannot give its children controllers (no internal
    // processes): then the children are made beside this process's group, in its parent.
    if !enabled(dir) {
        let _ = std::fs::write(dir.join("cgroup.subtree_control"), "+memory +pids");
    }
    if enabled(dir) {
        let place = CgroupPlace::V2(dir.to_path_buf());
        if try_place(&place) {
            return Some(place);
        }
    }
    None
}

/// Whether a group can be made and given limits there (it is removed at once).
fn try_place(place: &CgroupPlace) -> bool {
    match CommandCgroup::make(place, 1 << 30, 64) {
        Ok(g) => {
            drop(g);
            true
        }
        Err(_) => false,
    }
}

/// One command's group: made with its limits before the command starts, removed after.
#[derive(Debug)]
pub struct CommandCgroup {
    /// The group's folders (one in v2, one per hierarchy in v1).
    dirs: Vec<PathBuf>,
    v2: bool,
}

impl CommandCgroup {
    /// A new group in `place` holding at most `memory_bytes` and `processes` together.
    pub fn make(place: &CgroupPlace, memory_bytes: u64, processes: u64) -> std::io::Result<Self> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = format!(
            "tandem-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let group = match place {
            CgroupPlace::V2(dir) => {
                let d = dir.join(&name);
                std::fs::create_dir(&d)?;
                CommandCgroup {
                    dirs: vec![d],
                    v2: true,
                }
            }
            CgroupPlace::V1 { memory, pids } => {
                let m = memory.join(&name);
                let p = pids.join(&name);
                std::fs::create_dir(&m)?;
                let group = CommandCgroup {
                    dirs: vec![m],
                    v2: false,
                };
                std::fs::create_dir(&p)?;
                let mut group = group;
                group.dirs.push(p);
                group
            }
        };
        if group.v2 {
            let d = &group.dirs[0];
            std::fs::write(d.join("memory.max"), memory_bytes.to_string())?;
            // Past the cap the command is ended, not swapped out slowly.
            let _ = std::fs::write(d.join("memory.swap.max"), "0");
            let _ = std::fs::write(d.join("memory.oom.group"), "1");
            std::fs::write(d.join("pids.max"), processes.to_string())?;
        } else {
            std::fs::write(
                group.dirs[0].join("memory.limit_in_bytes"),
                memory_bytes.to_string(),
            )?;
            // Without swap accounting the file is not there; the memory cap still holds.
            let _ = std::fs::write(
                group.dirs[0].join("memory.memsw.limit_in_bytes"),
                memory_bytes.to_string(),
            );
            std::fs::write(group.dirs[1].join("pids.max"), processes.to_string())?;
        }
        Ok(group)
    }

    /// The files the helper writes its own process id to, to join the group.
    pub fn procs_files(&self) -> Vec<PathBuf> {
        self.dirs.iter().map(|d| d.join("cgroup.procs")).collect()
    }

    /// Whether the kernel ended a process of the group for its memory cap.
    pub fn memory_ran_out(&self) -> bool {
        let Some(d) = self.dirs.first() else {
            return false;
        };
        if self.v2 {
            std::fs::read_to_string(d.join("memory.events"))
                .map(|t| {
                    t.lines()
                        .any(|l| l.strip_prefix("oom_kill ").is_some_and(|n| n.trim() != "0"))
                })
                .unwrap_or(false)
        } else {
            // With swap counted, the cap is memory and swap together, and its misses are
            // counted there; `oom_kill` is said by kernels from 4.13.
            let counted = |f: &str| {
                std::fs::read_to_string(d.join(f)).is_ok_and(|n| n.trim() != "0" && !n.is_empty())
            };
            let killed = std::fs::read_to_string(d.join("memory.oom_control")).is_ok_and(|t| {
                t.lines()
                    .any(|l| l.strip_prefix("oom_kill ").is_some_and(|n| n.trim() != "0"))
            });
            killed || counted("memory.failcnt") || counted("memory.memsw.failcnt")
        }
    }

    /// Whether the group's process cap refused a new process.
    pub fn processes_ran_out(&self) -> bool {
        let Some(d) = self.dirs.last() else {
            return false;
        };
        std::fs::read_to_string(d.join("pids.events"))
            .map(|t| {
                t.lines()
                    .any(|l| l.strip_prefix("max ").is_some_and(|n| n.trim() != "0"))
            })
            .unwrap_or(false)
    }
}

impl Drop for CommandCgroup {
    /// Removes the group once empty: whatever is still in it is ended first (the helper
    /// ends the command's tree; this is for one that got away).
    fn drop(&mut self) {
        for d in &self.dirs {
            for _ in 0..50 {
                if std::fs::remove_dir(d).is_ok() || !d.exists() {
                    break;
                }
                if self.v2 && std::fs::write(d.join("cgroup.kill"), "1").is_ok() {
                } else if let Ok(procs) = std::fs::read_to_string(d.join("cgroup.procs")) {
                    for pid in procs.lines().filter_map(|p| p.trim().parse::<i32>().ok()) {
                        let _ = nix::sys::signal::kill(
                            nix::unistd::Pid::from_raw(pid),
                            nix::sys::signal::Signal::SIGKILL,
                        );
                    }
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_place_is_read_from_the_processes_own_lines() {
        let root = tempfile::tempdir().expect("tempdir");
        let r = root.path();
        // v1 only, as on this kind of machine: memory and pids hierarchies, writable.
        std::fs::create_dir_all(r.join("memory/app")).expect("mkdir");
        std::fs::create_dir_all(r.join("pids")).expect("mkdir");
        let own = "9:name=systemd:/\n8:pids:/\n4:memory:/app\n0::/\n";
        assert_eq!(
            find_place(own, r),
            Some(CgroupPlace::V1 {
                memory: r.join("memory/app"),
                pids: r.join("pids/"),
            })
        );
        // No hierarchy holds memory: no place.
        assert_eq!(find_place("8:pids:/\n0::/\n", r), None);
    }

    #[test]
    fn a_v2_place_needs_memory_and_pids_for_its_children() {
        let root = tempfile::tempdir().expect("tempdir");
        let r = root.path();
        let user = r.join("user.slice/user@1000.service");
        std::fs::create_dir_all(&user).expect("mkdir");
        std::fs::write(user.join("cgroup.controllers"), "cpu memory pids\n").expect("write");
        std::fs::write(user.join("cgroup.subtree_control"), "memory pids\n").expect("write");
        let own = "0::/user.slice/user@1000.service\n";
        assert_eq!(find_place(own, r), Some(CgroupPlace::V2(user.clone())));
        std::fs::write(user.join("cgroup.controllers"), "cpu\n").expect("write");
        assert_eq!(find_place(own, r), None);
    }
}
