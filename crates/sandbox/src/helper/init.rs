//! Stage 2: PID 1 of the sandbox. Confines itself, runs the command, reaps, and exits with the
//! command's code — which ends every process still in the namespace.

use super::{Invocation, SetupError, filter, landlock_rules, step};
use nix::mount::{MsFlags, mount};
use nix::sys::signal::{Signal, killpg};
use nix::sys::wait::{WaitStatus, waitpid};
use nix::unistd::Pid;
use std::io::Write as _;
use std::os::unix::process::CommandExt as _;
use std::process::Command;

pub(super) fn run(inv: Invocation) -> i32 {
    // The report file's name disappears at once: the command cannot find it to write a fake
    // report. This process keeps it open (and it is not passed on: close-on-exec).
    let report = std::fs::OpenOptions::new().write(true).open(&inv.file);
    let _ = std::fs::remove_file(&inv.file);
    if let Err(e) = confine(&inv) {
        match report {
            Ok(mut f) => {
                let _ = f.write_all(e.to_string().as_bytes());
            }
            Err(_) => eprintln!("tandem-sandbox: {e}"),
        }
        return crate::SETUP_FAILED_EXIT;
    }
    drop(report);

    let child = match Command::new(&inv.program)
        .args(&inv.args)
        .current_dir(&inv.spec.project)
        .process_group(0)
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!(
                "tandem-sandbox: cannot run {}: {e}",
                inv.program.to_string_lossy()
            );
            return 127;
        }
    };
    let pid = Pid::from_raw(i32::try_from(child.id()).unwrap_or(i32::MAX));
    // The child is reaped below with waitpid(-1), like every orphan that lands here.
    drop(child);
    forward_signals(pid);
    reap_until(pid)
}

fn confine(inv: &Invocation) -> Result<(), SetupError> {
    // Stage 1 dying (killed by a timeout's SIGKILL, say) takes this process with it, and with
    // it the whole namespace.
    nix::sys::prctl::set_pdeathsig(Signal::SIGKILL).map_err(step("linking to stage 1"))?;
    // A session of its own: no controlling terminal to push keystrokes into.
    nix::unistd::setsid().map_err(step("starting a new session"))?;
    mount(
        Some("proc"),
        "/proc",
        Some("proc"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC,
        None::<&str>,
    )
    .map_err(step("mounting the sandbox's own /proc"))?;
    limit_pids(inv.spec.limits.processes);
    drop_capabilities()?;
    nix::sys::prctl::set_no_new_privs().map_err(step("forbidding new privileges"))?;
    limit(&inv.spec.limits)?;
    landlock_rules::restrict(&inv.spec)?;
    filter::install(inv.spec.network)
}

/// The smallest `pid_max` the kernel takes (it keeps 300 numbers for itself).
const PID_MAX_MIN: u64 = 301;

/// Process numbers in the sandbox's own PID namespace stop at the limit (Linux 6.14 and later
/// keep `pid_max` per namespace): this holds for every user, root included, whom
/// `RLIMIT_NPROC` does not bind. On an older kernel the write fails and the rlimit alone
/// applies.
fn limit_pids(processes: u64) {
    let max = (processes + 1).max(PID_MAX_MIN);
    let _ = std::fs::write("/proc/sys/kernel/pid_max", max.to_string());
}

/// The command's share of the machine: processes (counted in the sandbox's own user
/// namespace, so the user's other programs do not count; root is not bound by it) and data
/// memory per process.
fn limit(limits: &crate::spec::Limits) -> Result<(), SetupError> {
    use nix::sys::resource::{Resource, setrlimit};
    setrlimit(Resource::RLIMIT_NPROC, limits.processes, limits.processes)
        .map_err(step("limiting the number of processes"))?;
    setrlimit(
        Resource::RLIMIT_DATA,
        limits.memory_bytes,
        limits.memory_bytes,
    )
    .map_err(step("limiting memory"))?;
    setrlimit(Resource::RLIMIT_FSIZE, limits.file_bytes, limits.file_bytes)
        .map_err(step("limiting the size of a file"))?;
    // A writer past the limit is ended by SIGXFSZ, which dumps core: no core files land in
    // the project.
    setrlimit(Resource::RLIMIT_CORE, 0, 0).map_err(step("turning off core files"))
}

fn drop_capabilities() -> Result<(), SetupError> {
    use caps::CapSet;
    // The bounding set first: clearing it needs CAP_SETPCAP, which goes with the others.
    for set in [
        CapSet::Bounding,
        CapSet::Ambient,
        CapSet::Inheritable,
        CapSet::Effective,
        CapSet::Permitted,
    ] {
        caps::clear(None, set).map_err(step(format!("dropping the {set:?} capabilities")))?;
    }
    Ok(())
}

/// Stops sent to PID 1 go to the command's process group.
fn forward_signals(group: Pid) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP, SIGQUIT])
    else {
        return;
    };
    std::thread::spawn(move || {
        for sig in signals.forever() {
            if let Ok(s) = Signal::try_from(sig) {
                let _ = killpg(group, s);
            }
        }
    });
}

/// Said when the command was ended for writing a file past the limit (a shell says "File size
/// limit exceeded" for its own children).
const FILE_LIMIT_WORDS: &str =
    "the command was stopped: a file it wrote reached the sandbox's limit on the size of one file";

/// Reaps every child (orphans land on PID 1) until the command itself ends.
fn reap_until(command: Pid) -> i32 {
    loop {
        match waitpid(None::<Pid>, None) {
            Ok(WaitStatus::Exited(pid, code)) if pid == command => return code,
            Ok(WaitStatus::Signaled(pid, sig, _)) if pid == command => {
                if sig == Signal::SIGXFSZ {
                    eprintln!("tandem-sandbox: {FILE_LIMIT_WORDS}");
                }
                return 128 + sig as i32;
            }
            Ok(_) => {}
            Err(nix::errno::Errno::EINTR) => {}
            Err(_) => return crate::SETUP_FAILED_EXIT,
        }
    }
}
