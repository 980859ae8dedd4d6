//! `tandem-sandbox probe`: start a real sandboxed process and print what worked, as JSON.

use crate::probe::{Capabilities, Unavailable};
use crate::spec::SandboxSpec;
use std::process::{Command, Stdio};

/// Exit code of the probe's command; anything else means it did not run as asked.
const PROBE_EXIT: i32 = 42;

fn seccomp_available() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .map(|s| s.lines().any(|l| l.starts_with("Seccomp:")))
        .unwrap_or(false)
}

pub(super) fn run() -> i32 {
    let caps = probe();
    println!("{}", serde_json::to_string(&caps).unwrap_or_default());
    0
}

fn probe() -> Capabilities {
    let base = std::env::temp_dir().join(format!("tandem-sandbox-probe-{}", std::process::id()));
    let project = base.join("project");
    let spec = SandboxSpec {
        project: project.clone(),
        project_writable: true,
        tmp: base.join("tmp"),
        keep_visible: Vec::new(),
        read_only: Vec::new(),
        hidden: Vec::new(),
        network: false,
        state_dir: base.join("state"),
    };
    let status = base.join("status.json");
    let result = std::fs::create_dir_all(&project)
        .map_err(|e| format!("cannot create {}: {e}", project.display()))
        .and_then(|()| std::env::current_exe().map_err(|e| e.to_string()))
        .and_then(|exe| {
            crate::launch::wrap(
                &exe,
                &spec,
                &status,
                "/bin/sh",
                ["-c", &format!("exit {PROBE_EXIT}")],
            )
            .current_dir(&project)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| format!("cannot start the helper: {e}"))
        });
    let report = crate::launch::read_report(&status);
    let _ = std::fs::remove_dir_all(&base);
    let seccomp = seccomp_available();
    let abi = abi_by_restricting();
    match (result, report) {
        (Ok(out), None) if out.status.code() == Some(PROBE_EXIT) => Capabilities {
            sandboxed: true,
            helper: None,
            namespaces: true,
            network_namespace: true,
            landlock_abi: abi,
            seccomp,
            unavailable: None,
        },
        (Ok(out), report) => {
            let why = report.unwrap_or_else(|| {
                format!(
                    "the test command ended with {:?}: {}",
                    out.status.code(),
                    String::from_utf8_lossy(&out.stderr).trim()
                )
            });
            Capabilities {
                sandboxed: false,
                helper: None,
                namespaces: !why.contains("namespaces"),
                network_namespace: false,
                landlock_abi: abi,
                seccomp,
                unavailable: Some(Unavailable::Kernel(why)),
            }
        }
        (Err(e), _) => Capabilities {
            sandboxed: false,
            helper: None,
            namespaces: false,
            network_namespace: false,
            landlock_abi: abi,
            seccomp,
            unavailable: Some(Unavailable::Kernel(e)),
        },
    }
}

/// The ABI the kernel enforces, found by restricting a throwaway child process (the crate
/// deliberately offers no other way, so that rules never depend on a guess).
fn abi_by_restricting() -> Option<u32> {
    let exe = std::env::current_exe().ok()?;
    let out = Command::new(exe)
        .arg("landlock-abi")
        .stdin(Stdio::null())
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

/// `tandem-sandbox landlock-abi`: restricts this process and prints the ABI in force.
pub(super) fn print_landlock_abi() -> i32 {
    match super::landlock_rules::effective_abi() {
        Some(abi) => {
            println!("{abi}");
            0
        }
        None => 1,
    }
}
