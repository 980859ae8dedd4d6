//! Stage 1: namespaces, mounts, then stage 2 (PID 1 of the new namespace) and its exit code.

use super::{Invocation, SetupError, git_guard, mounts, netlink, sockets, step};
use crate::launch::SetupReport;
use nix::sched::{CloneFlags, unshare};
use nix::sys::signal::{Signal, kill};
use nix::unistd::{Pid, getppid};
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::os::unix::process::ExitStatusExt as _;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

/// How often stage 1 checks that whoever started it is still there.
const PARENT_CHECK: Duration = Duration::from_millis(200);

pub(super) fn run(inv: Invocation) -> i32 {
    // The status file is opened now: once the mounts are made, the caller's folders may be
    // hidden from this process too. It is new (a name already there, or a link, is refused).
    let mut status = match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .mode(0o600)
        .open(&inv.file)
    {
        Ok(f) => f,
        Err(e) => {
            eprintln!(
                "tandem-sandbox: cannot write the status file {}: {e}",
                inv.file.display()
            );
            return crate::SETUP_FAILED_EXIT;
        }
    };
    let (code, report) = match start(&inv) {
        Ok((code, undone)) => (
            code,
            SetupReport {
                setup_error: None,
                undone,
                layer_refused: false,
            },
        ),
        Err(e) => {
            eprintln!("tandem-sandbox: {e}");
            (
                crate::SETUP_FAILED_EXIT,
                SetupReport {
                    setup_error: Some(e.to_string()),
                    undone: Vec::new(),
                    layer_refused: e.layer_refused,
                },
            )
        }
    };
    if report != SetupReport::default() {
        let _ = status.write_all(
            serde_json::to_string(&report)
                .unwrap_or_default()
                .as_bytes(),
        );
    }
    code
}

fn write_map(file: &str, text: &str) -> Result<(), SetupError> {
    std::fs::write(file, text).map_err(step(format!("writing {file}")))
}

fn start(inv: &Invocation) -> Result<(i32, Vec<String>), SetupError> {
    let spec = &inv.spec;
    // First of all, so that every process the command starts is in its group.
    for procs in &spec.cgroup_procs {
        std::fs::write(procs, std::process::id().to_string()).map_err(step(format!(
            "joining the command's control group ({})",
            procs.display()
        )))?;
    }
    let plan = mounts::Plan::prepare(spec)?;
    let uid = nix::unistd::getuid();
    let gid = nix::unistd::getgid();
    let parent = getppid();
    // Read in the machine's network namespace, before this process leaves it.
    let mut sockets = sockets::path_sockets(&[&spec.project, &spec.tmp]);
    // A folder outside left visible for a place in it the command may read (Landlock does not
    // govern connecting to a socket by its path): every socket in it is hidden.
    let spared: Vec<std::path::PathBuf> = spec
        .guarded
        .hidden
        .iter()
        .filter(|h| mounts::spared(h, &spec.readable))
        .chain(&spec.readable)
        .cloned()
        .collect();
    sockets.extend(sockets::sockets_in(&spared, &[&spec.project, &spec.tmp]));

    let mut flags = CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNS | CloneFlags::CLONE_NEWIPC;
    if !spec.network {
        flags |= CloneFlags::CLONE_NEWNET;
    }
    unshare(flags).map_err(step("making the namespaces (user, mount, IPC, network)"))?;
    // The user is itself inside, so files keep their owners and git trusts the repository.
    write_map("/proc/self/setgroups", "deny")?;
    write_map("/proc/self/uid_map", &format!("{uid} {uid} 1"))?;
    write_map("/proc/self/gid_map", &format!("{gid} {gid} 1"))?;
    if !spec.network {
        netlink::loopback_up().map_err(step("bringing up the loopback interface"))?;
    }
    plan.apply(spec, &sockets)?;

    // Stage 2 needs CAP_SYS_ADMIN to mount its /proc and CAP_SETPCAP to drop the rest; an
    // exec by a user other than root inside the namespace would lose them, ambient ones stay.
    for cap in [
        caps::Capability::CAP_SYS_ADMIN,
        caps::Capability::CAP_SETPCAP,
    ] {
        caps::raise(None, caps::CapSet::Inheritable, cap)
            .and_then(|()| caps::raise(None, caps::CapSet::Ambient, cap))
            .map_err(step("keeping the capabilities stage 2 needs"))?;
    }

    // Stage 2 reports a failed setup through a file in the sandbox's own /run: no folder of
    // the machine backs it and no command may write there, so nothing can be planted in its
    // place. Stage 2 opens it by name and removes the name before the command exists.
    let report = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .mode(0o600)
        .open(mounts::INNER_REPORT)
        .map_err(step("creating the report file"))?;

    // No thread can be started once this process has asked for a new PID namespace, so the
    // helpers that pass on signals, watch the parent and guard the git folder start now.
    let child_pid = Arc::new(AtomicI32::new(0));
    forward_signals(child_pid.clone());
    watch_parent(parent, child_pid.clone());
    let guard = spec
        .guarded
        .git_dir
        .as_deref()
        .filter(|d| d.is_dir())
        .map(git_guard::GitGuard::start);
    unshare(CloneFlags::CLONE_NEWPID).map_err(step("making the PID namespace"))?;

    let spec_json = serde_json::to_string(spec).map_err(step("passing the spec on"))?;
    // Itself through /proc: its own path may be hidden or replaced now (a helper under /tmp).
    let mut child = Command::new("/proc/self/exe")
        .arg("init")
        .arg("--spec")
        .arg(spec_json)
        .arg("--report")
        .arg(mounts::INNER_REPORT)
        .arg("--")
        .arg(&inv.program)
        .args(&inv.args)
        // The working folder is set again after the mounts: the old one would still see
        // the folders below it without their read-only and hiding mounts.
        .current_dir(&spec.project)
        .spawn()
        .map_err(step("starting the sandbox's first process"))?;
    child_pid.store(i32::try_from(child.id()).unwrap_or(0), Ordering::SeqCst);

    let status = child.wait().map_err(step("waiting for the command"))?;
    let undone = guard.map(|g| g.finish()).unwrap_or_default();
    let mut text = String::new();
    let _ = std::io::Read::read_to_string(&mut &report, &mut text);
    if !text.trim().is_empty() {
        return Err(SetupError::new("inside the sandbox", text.trim()));
    }
    Ok((
        status
            .code()
            .or_else(|| status.signal().map(|s| 128 + s))
            .unwrap_or(crate::SETUP_FAILED_EXIT),
        undone,
    ))
}

/// A stop (SIGTERM/SIGINT/SIGHUP) sent to this process goes on to stage 2, which passes it to
/// the command; a SIGKILL ends stage 2 through its parent-death signal.
fn forward_signals(child: Arc<AtomicI32>) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP, SIGQUIT])
    else {
        return;
    };
    std::thread::spawn(move || {
        for sig in signals.forever() {
            let pid = child.load(Ordering::SeqCst);
            if pid > 0
                && let Ok(s) = Signal::try_from(sig)
            {
                let _ = kill(Pid::from_raw(pid), s);
            }
        }
    });
}

/// When the program that started this one dies (the app killed, the CLI ended), the command
/// and everything it started end too.
fn watch_parent(parent: Pid, child: Arc<AtomicI32>) {
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(PARENT_CHECK);
            if getppid() != parent {
                let pid = child.load(Ordering::SeqCst);
                if pid > 0 {
                    let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
                }
                std::process::exit(128 + Signal::SIGKILL as i32);
            }
        }
    });
}
