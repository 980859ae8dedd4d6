//! `tandem-sandbox outside -- PROGRAM [ARGS…]`: a command the user let leave the sandbox (or
//! one on a machine whose kernel cannot sandbox) still ends whole. This process adopts every
//! orphan the command leaves (it is their "subreaper"), so a `setsid` daemon or a double fork
//! lands here instead of on the machine's init; when the command ends, or this process is
//! stopped, or whoever started it dies, everything left is killed.

use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::{Pid, getpid, getppid};
use std::ffi::OsString;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long the command has to end after a stop before everything is killed: shorter than the
/// caller's own wait between SIGTERM and SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(1);

pub(super) fn run(args: &[OsString]) -> i32 {
    let args = match args.first().and_then(|a| a.to_str()) {
        Some("--") => &args[1..],
        _ => args,
    };
    let Some((program, rest)) = args.split_first() else {
        eprintln!("tandem-sandbox: outside: no program to run was given");
        return crate::SETUP_FAILED_EXIT;
    };
    if let Err(e) = nix::sys::prctl::set_child_subreaper(true) {
        eprintln!("tandem-sandbox: outside: cannot adopt the command's orphans: {e}");
        return crate::SETUP_FAILED_EXIT;
    }
    let parent = getppid();
    let stopping = Arc::new(AtomicBool::new(false));
    stop_on_signals(stopping.clone());
    let child = match Command::new(program).args(rest).spawn() {
        Ok(c) => c,
        Err(e) => {
            eprintln!(
                "tandem-sandbox: cannot run {}: {e}",
                program.to_string_lossy()
            );
            return 127;
        }
    };
    let command = Pid::from_raw(i32::try_from(child.id()).unwrap_or(i32::MAX));
    // Reaped below with waitpid, like every orphan that lands here.
    drop(child);
    let mut deadline: Option<Instant> = None;
    let code = loop {
        if deadline.is_none() {
            if getppid() != parent {
                deadline = Some(Instant::now());
            } else if stopping.load(Ordering::SeqCst) {
                // Asked to stop: the children outside the command's process group (a setsid
                // daemon) are asked too, then everything is killed well before the caller's
                // own SIGKILL would end this process and leave them to the machine.
                for k in children() {
                    let _ = kill(k, Signal::SIGTERM);
                }
                deadline = Some(Instant::now() + STOP_GRACE);
            }
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            kill_all_children();
            break 128 + Signal::SIGTERM as i32;
        }
        match waitpid(None::<Pid>, Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::Exited(pid, code)) if pid == command => break code,
            Ok(WaitStatus::Signaled(pid, sig, _)) if pid == command => break 128 + sig as i32,
            Ok(WaitStatus::StillAlive) => std::thread::sleep(Duration::from_millis(20)),
            Ok(_) | Err(nix::errno::Errno::EINTR) => {}
            Err(_) => break crate::SETUP_FAILED_EXIT,
        }
    };
    kill_all_children();
    code
}

/// A stop sent to this process (the caller's timeout or Stop) ends the command and everything
/// it started; the loop above sees the flag.
fn stop_on_signals(flag: Arc<AtomicBool>) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
    for sig in [SIGTERM, SIGINT, SIGHUP, SIGQUIT] {
        let _ = signal_hook::flag::register(sig, flag.clone());
    }
}

/// The processes whose parent is this one, from `/proc`.
fn children() -> Vec<Pid> {
    let me = getpid().as_raw();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| {
                    // The name in parentheses may hold spaces: the fields after its end.
                    let after = &stat[stat.rfind(')')? + 1..];
                    after.split_whitespace().nth(1)?.parse::<i32>().ok()
                })
                == Some(me)
        })
        .map(Pid::from_raw)
        .collect()
}

/// Kills every descendant: each child dies, its own children are then adopted here and die in
/// the next round, until none is left.
fn kill_all_children() {
    for _ in 0..1000 {
        let kids = children();
        for k in &kids {
            let _ = kill(*k, Signal::SIGKILL);
        }
        let mut reaped_any = false;
        while let Ok(status) = waitpid(None::<Pid>, Some(WaitPidFlag::WNOHANG)) {
            if status == WaitStatus::StillAlive {
                break;
            }
            reaped_any = true;
        }
        if kids.is_empty() && !reaped_any {
            match waitpid(None::<Pid>, Some(WaitPidFlag::WNOHANG)) {
                Err(nix::errno::Errno::ECHILD) => return,
                _ => std::thread::sleep(Duration::from_millis(5)),
            }
        } else if !reaped_any {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}
