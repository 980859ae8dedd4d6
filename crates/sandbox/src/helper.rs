//! The helper program's code. Two stages, because a new PID namespace only takes effect for
//! the children of the process that made it:
//!
//! 1. `run` ([`outer`]): makes the namespaces, maps the user to itself, arranges the mounts
//!    (private `/tmp`, hidden secrets, read-only folders), then starts stage 2 and waits for
//!    it, passing on signals and ending everything if its own parent dies.
//! 2. `init` ([`init`]): is PID 1 of the new namespace. It mounts a `/proc` that shows only
//!    the sandbox's processes, drops every capability, restricts itself with Landlock and a
//!    seccomp filter, starts the command in its own process group and reaps orphans. When the
//!    command ends, init exits and the kernel ends every process left in the namespace:
//!    daemons and `setsid` children cannot outlive their command.

mod beneath;
mod filter;
mod git_guard;
mod init;
mod landlock_rules;
mod mounts;
mod netlink;
mod outer;
mod outside;
mod probe_cmd;
mod sockets;

use crate::spec::SandboxSpec;
use std::ffi::OsString;
use std::path::PathBuf;

/// A step of setting up the sandbox that failed, in words for the person reading the report.
#[derive(Debug, thiserror::Error)]
#[error("{step}: {detail}")]
pub struct SetupError {
    pub step: String,
    pub detail: String,
    /// The project's file system would not be the folder below an overlay: commands there
    /// run without a layer.
    pub layer_refused: bool,
}

impl SetupError {
    pub fn new(step: impl Into<String>, detail: impl ToString) -> Self {
        SetupError {
            step: step.into(),
            detail: detail.to_string(),
            layer_refused: false,
        }
    }
}

/// `what` failed with `e`, as a setup error.
pub(crate) fn step<E: ToString>(what: impl Into<String>) -> impl FnOnce(E) -> SetupError {
    let what = what.into();
    move |e| SetupError::new(what, e)
}

struct Invocation {
    spec: SandboxSpec,
    /// `run`: the status file; `init`: the report file.
    file: PathBuf,
    program: OsString,
    args: Vec<OsString>,
}

fn parse(args: &[OsString], file_flag: &str) -> Result<Invocation, String> {
    let mut spec = None;
    let mut file = None;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        match a.to_str() {
            Some("--spec") => {
                let json = args
                    .get(i + 1)
                    .and_then(|s| s.to_str())
                    .ok_or("--spec needs a JSON value")?;
                spec = Some(
                    serde_json::from_str::<SandboxSpec>(json)
                        .map_err(|e| format!("the spec is not valid: {e}"))?,
                );
                i += 2;
            }
            Some(f) if f == file_flag => {
                file = Some(PathBuf::from(
                    args.get(i + 1).ok_or(format!("{file_flag} needs a path"))?,
                ));
                i += 2;
            }
            Some("--") => {
                i += 1;
                break;
            }
            _ => return Err(format!("unexpected argument {}", a.to_string_lossy())),
        }
    }
    let program = args.get(i).cloned().ok_or("no program to run was given")?;
    Ok(Invocation {
        spec: spec.ok_or("--spec is missing")?,
        file: file.ok_or(format!("{file_flag} is missing"))?,
        program,
        args: args.get(i + 1..).unwrap_or_default().to_vec(),
    })
}

const USAGE: &str = "usage: tandem-sandbox run --spec JSON --status FILE -- PROGRAM [ARGS…]\n       tandem-sandbox outside -- PROGRAM [ARGS…]\n       tandem-sandbox probe";

/// The helper's `main`; returns the exit code.
pub fn main() -> i32 {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let Some(verb) = args.first().and_then(|a| a.to_str()) else {
        eprintln!("{USAGE}");
        return crate::SETUP_FAILED_EXIT;
    };
    let rest = &args[1..];
    match verb {
        "run" => match parse(rest, "--status") {
            Ok(inv) => outer::run(inv),
            Err(e) => {
                eprintln!("tandem-sandbox: {e}\n{USAGE}");
                crate::SETUP_FAILED_EXIT
            }
        },
        "init" => match parse(rest, "--report") {
            Ok(inv) => init::run(inv),
            Err(e) => {
                eprintln!("tandem-sandbox: {e}");
                crate::SETUP_FAILED_EXIT
            }
        },
        "outside" => outside::run(rest),
        "probe" => probe_cmd::run(),
        "landlock-abi" => probe_cmd::print_landlock_abi(),
        _ => {
            eprintln!("tandem-sandbox: unknown command `{verb}`\n{USAGE}");
            crate::SETUP_FAILED_EXIT
        }
    }
}
