//! What the sandbox costs per command: starting `sh -c true` through the helper against
//! starting it plainly, measured in the same run. The goal is at most 20 ms more at the
//! median. Run with `cargo bench -p sandbox`; docs/benchmarks.md keeps the numbers.

use sandbox::{Guarded, HomeView, SandboxSpec};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

fn main() {
    divan::main();
}

struct Scene {
    _dir: tempfile::TempDir,
    spec: SandboxSpec,
    status: PathBuf,
}

/// A project with a git folder and a secret, a home with keys to hide, as a session has.
fn scene() -> &'static Scene {
    static SCENE: OnceLock<Scene> = OnceLock::new();
    SCENE.get_or_init(|| {
        let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
        let base = dir.path().canonicalize().expect("canonical");
        let project = base.join("project");
        let home = base.join("home");
        for d in [
            project.join(".git/hooks"),
            home.join(".ssh"),
            home.join(".aws"),
        ] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        std::fs::write(project.join(".git/config"), "[core]\n").expect("write");
        std::fs::write(project.join(".env"), "K=1\n").expect("write");
        let spec = SandboxSpec {
            project: project.clone(),
            project_writable: true,
            layer: None,
            tmp: base.join("tmp"),
            home: HomeView {
                folder: Some(home.clone()),
                visible: Vec::new(),
                keep_visible: Vec::new(),
            },
            guarded: Guarded {
                read_only: vec![project.join(".git/hooks"), project.join(".git/config")],
                pinned: vec![project.join(".git")],
                hidden: vec![home.join(".ssh"), home.join(".aws"), project.join(".env")],
                git_dir: Some(project.join(".git")),
            },
            shown: Default::default(),
            network: false,
            readable: Vec::new(),
            limits: Default::default(),
            cgroup_procs: Vec::new(),
            state_dir: base.join("state"),
        };
        Scene {
            status: base.join("status.json"),
            _dir: dir,
            spec,
        }
    })
}

/// A status file of its own for each run: the helper makes it new, and refuses one that is
/// there already.
fn status_file(s: &Scene) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    s.status.with_file_name(format!(
        "status-{}.json",
        NEXT.fetch_add(1, Ordering::Relaxed)
    ))
}

fn run(mut cmd: Command, dir: &Path) {
    let ok = cmd
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("spawn")
        .success();
    assert!(ok);
}

#[divan::bench(sample_count = 60)]
fn plain_spawn() {
    let s = scene();
    let mut cmd = Command::new("/bin/sh");
    cmd.args(["-c", "true"]);
    run(cmd, &s.spec.project);
}

#[divan::bench(sample_count = 60)]
fn sandboxed_spawn() {
    let s = scene();
    let helper = Path::new(env!("CARGO_BIN_EXE_tandem-sandbox"));
    let status = status_file(s);
    run(
        sandbox::wrap(helper, &s.spec, &status, "/bin/sh", ["-c", "true"]),
        &s.spec.project,
    );
    let _ = std::fs::remove_file(status);
}

#[divan::bench(sample_count = 60)]
fn sandboxed_spawn_with_network() {
    let s = scene();
    let helper = Path::new(env!("CARGO_BIN_EXE_tandem-sandbox"));
    let mut spec = s.spec.clone();
    spec.network = true;
    let status = status_file(s);
    run(
        sandbox::wrap(helper, &spec, &status, "/bin/sh", ["-c", "true"]),
        &s.spec.project,
    );
    let _ = std::fs::remove_file(status);
}
