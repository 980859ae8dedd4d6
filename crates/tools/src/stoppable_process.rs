//! A short program run to its end for a tool (`git push`, `gh`), within a time limit and
//! ended by Stop: a push waiting on a dead network or a `gh` waiting on GitHub must not hold
//! the agent's turn forever.

use std::process::Output;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt as _};
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

/// Why a program gave no output of its own.
#[derive(Debug)]
pub(crate) enum Halted {
    /// It could not be started.
    Spawn(std::io::Error),
    /// It was still running when the limit passed, and was ended.
    TimedOut(Duration),
    /// The person pressed Stop, and it was ended.
    Stopped,
}

/// Runs `cmd` to its end and returns what it printed. The program and everything it started
/// (its process group: git's ssh, gh's helpers) is killed at the limit or on `cancel`, and
/// reaped before this returns, so nothing is left running.
pub(crate) async fn run_to_end(
    mut cmd: Command,
    limit: Duration,
    cancel: Option<&CancellationToken>,
) -> Result<Output, Halted> {
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = cmd.spawn().map_err(Halted::Spawn)?;
    let pid = child.id();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let ended = {
        let finished = async {
            let (out, err, status) = tokio::join!(read_all(stdout), read_all(stderr), child.wait());
            (out, err, status)
        };
        let cancelled = async {
            match cancel {
                Some(c) => c.cancelled().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            done = tokio::time::timeout(limit, finished) => done.map_err(|_| Halted::TimedOut(limit)),
            () = cancelled => Err(Halted::Stopped),
        }
    };
    match ended {
        Ok((stdout, stderr, Ok(status))) => Ok(Output {
            status,
            stdout,
            stderr,
        }),
        Ok((_, _, Err(e))) => {
            end_group(pid, &mut child).await;
            Err(Halted::Spawn(e))
        }
        Err(halted) => {
            end_group(pid, &mut child).await;
            Err(halted)
        }
    }
}

/// Kills the program's whole group and reaps the program, so no zombie and no helper stays.
async fn end_group(pid: Option<u32>, child: &mut tokio::process::Child) {
    if let Some(pid) = pid.and_then(|p| rustix::process::Pid::from_raw(p as i32)) {
        // Gone already is fine: there is nothing left to end.
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    let _ = child.kill().await;
}

async fn read_all(pipe: Option<impl AsyncRead + Unpin>) -> Vec<u8> {
    let mut buf = Vec::new();
    if let Some(mut p) = pipe {
        // A read error ends what is read; the program's exit status still tells how it went.
        let _ = p.read_to_end(&mut buf).await;
    }
    buf
}
