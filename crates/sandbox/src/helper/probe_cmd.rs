//! `tandem-sandbox probe`: start a real sandboxed process and print what worked, as JSON.

use crate::probe::{Capabilities, Layers, Unavailable};
use crate::spec::{Guarded, HomeView, SandboxSpec};
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

/// What the probe's sandboxed shell prints, one `name=value` a line, then exits with
/// [`PROBE_EXIT`]. `$1` is a socket outside, `$2` a file in the fake home.
const INSIDE: &str = r#"
echo "pts=$(stat -c %d /dev/pts 2>/dev/null)"
echo "tmp=$(ls -A /tmp | wc -l)"
echo "run_sockets=$(find /run /var/run -type s 2>/dev/null | wc -l)"
if [ -S "$1" ]; then echo socket=visible; else echo socket=hidden; fi
if [ -e "$2" ]; then echo home=visible; else echo home=hidden; fi
echo "nproc=$(awk '/^Max processes/ {print $3}' /proc/self/limits)"
echo "pid_max=$(cat /proc/sys/kernel/pid_max)"
echo "uid=$(id -u)"
echo "data=$(awk '/^Max data size/ {print $4}' /proc/self/limits)"
echo "fsize=$(awk '/^Max file size/ {print $4}' /proc/self/limits)"
echo "readable=$(for d in $3; do ls "$d" >/dev/null 2>&1 && printf '%s ' "$d"; done)"
exit 42
"#;

fn probe() -> Capabilities {
    // Not under /tmp, which the sandbox replaces: the fake home must be where the sandbox
    // has to hide it, as a real home is.
    let scratch = [
        std::path::Path::new("/var/tmp").to_path_buf(),
        std::env::temp_dir(),
    ]
    .into_iter()
    .find(|d| d.is_dir())
    .unwrap_or_else(std::env::temp_dir);
    let base = scratch.join(format!("tandem-sandbox-probe-{}", std::process::id()));
    let project = base.join("project");
    let home = base.join("home");
    let spec = SandboxSpec {
        project: project.clone(),
        project_writable: true,
        layer: None,
        tmp: base.join("tmp"),
        home: HomeView {
            folder: Some(home.clone()),
            ..HomeView::default()
        },
        guarded: Guarded::default(),
        shown: Default::default(),
        network: false,
        readable: Vec::new(),
        limits: Default::default(),
        cgroup_procs: Vec::new(),
        state_dir: base.join("state"),
    };
    let status = base.join("status.json");
    let socket_path = base.join("outside.sock");
    let home_file = home.join("key");
    let result = std::fs::create_dir_all(&project)
        .and_then(|()| std::fs::create_dir_all(&home))
        .and_then(|()| std::fs::write(&home_file, "k"))
        .map_err(|e| format!("cannot create {}: {e}", base.display()))
        .and_then(|()| {
            std::os::unix::net::UnixListener::bind(&socket_path)
                .map_err(|e| format!("cannot make a socket: {e}"))
        })
        .and_then(|listener| {
            let exe = std::env::current_exe().map_err(|e| e.to_string())?;
            let out = crate::launch::wrap(
                &exe,
                &spec,
                &status,
                "/bin/sh",
                [
                    "-c",
                    INSIDE,
                    "probe",
                    &socket_path.display().to_string(),
                    &home_file.display().to_string(),
                    &candidates(),
                ],
            )
            .current_dir(&project)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| format!("cannot start the helper: {e}"));
            drop(listener);
            out
        });
    let report = crate::launch::read_report(&status).setup_error;
    let layered = matches!(&result, Ok(out) if out.status.code() == Some(PROBE_EXIT))
        && report.is_none()
        && layer_works(&spec, &base);
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
            layers: Layers {
                project_layer: layered,
                ..layers(&String::from_utf8_lossy(&out.stdout), abi)
            },
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
                layers: Layers::default(),
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
            layers: Layers::default(),
            unavailable: Some(Unavailable::Kernel(e)),
        },
    }
}

/// Whether a command writes to a layer over the project and not to the project: run with a
/// layer, it sees its own file, which afterwards is in the layer alone.
fn layer_works(spec: &SandboxSpec, base: &std::path::Path) -> bool {
    let layer = crate::spec::Layer {
        upper: base.join("layer/upper"),
        work: base.join("layer/work"),
    };
    let spec = SandboxSpec {
        layer: Some(layer.clone()),
        ..spec.clone()
    };
    let Ok(exe) = std::env::current_exe() else {
        return false;
    };
    let status = base.join("layer-status.json");
    let ran = crate::launch::wrap(
        &exe,
        &spec,
        &status,
        "/bin/sh",
        [
            "-c",
            "echo x > layer-probe && [ -f layer-probe ] && exit 42",
        ],
    )
    .current_dir(&spec.project)
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .status()
    .is_ok_and(|s| s.code() == Some(PROBE_EXIT));
    let _ = crate::launch::read_report(&status);
    let works = ran
        && !spec.project.join("layer-probe").exists()
        && layer.upper.join("layer-probe").is_file();
    // The overlay leaves its work folder unreadable.
    let _ = std::fs::set_permissions(
        layer.work.join("work"),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    );
    works
}

/// The processes one command may have: its PID namespace's own `pid_max` when the kernel keeps
/// one (it then is below the machine's), else the rlimit, which binds every user but root.
fn process_limit(pid_max: Option<u64>, nproc: Option<u64>, root: bool) -> Option<u64> {
    let machine: Option<u64> = std::fs::read_to_string("/proc/sys/kernel/pid_max")
        .ok()
        .and_then(|s| s.trim().parse().ok());
    match (pid_max, machine) {
        (Some(inside), Some(outside)) if inside < outside => Some(inside - 1),
        _ if root => None,
        _ => nproc,
    }
}

/// The folders whose readability the probe reports, found outside the sandbox (inside, not
/// even `/` can be listed): every top-level folder, each home in `/home`, and `/var/tmp`.
fn candidates() -> String {
    let list = |dir: &str| -> Vec<String> {
        std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .flatten()
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                    .map(|e| e.path().display().to_string())
                    .filter(|p| !p.contains(char::is_whitespace))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut all = list("/");
    all.extend(list("/home"));
    all.push("/var/tmp".into());
    all.sort();
    all.join(" ")
}

/// The layers, from what the sandboxed shell printed.
fn layers(printed: &str, abi: Option<u32>) -> Layers {
    let get = |name: &str| {
        printed
            .lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix('='))
            .unwrap_or("")
            .trim()
            .to_string()
    };
    let host_pts = nix::sys::stat::stat("/dev/pts").map(|s| s.st_dev.to_string());
    let limit = |v: String, unit: u64| v.parse::<u64>().ok().map(|n| n * unit);
    Layers {
        private_tmp: get("tmp") == "0",
        private_run: get("run_sockets") == "0",
        private_terminals: !get("pts").is_empty() && host_pts.is_ok_and(|h| h != get("pts")),
        host_sockets_hidden: get("socket") == "hidden",
        home_hidden: get("home") == "hidden",
        process_limit: process_limit(
            get("pid_max").parse().ok(),
            get("nproc").parse().ok(),
            get("uid") == "0",
        ),
        memory_limit: limit(get("data"), 1),
        file_limit: limit(get("fsize"), 1),
        readable: get("readable")
            .split_whitespace()
            .map(str::to_string)
            .collect(),
        abstract_sockets_scoped: abi.is_some_and(|a| a >= 6),
        project_layer: false,
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
