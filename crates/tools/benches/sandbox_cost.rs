//! What keeping the sandbox right costs, against references in the same run (issue 21's goals):
//!
//! - a tool call's fixed cost at 100,000 files: a fresh toolbox's `read_file` of one small
//!   file (as `tandem-cli tool` or a new session's first call does), on a 1-file project and on
//!   a 100,000-file one — the two must differ by nothing that grows with the tree;
//! - a sandboxed command in a running session against the same command run plainly, on the
//!   100,000-file project (its secret files hidden, its git places protected): at most 20 ms
//!   more at the median;
//! - issue 44's layers: a command that writes nothing, over a layer, against the same
//!   sandboxed command without one (goal: at most 5 ms more at the median); collecting and
//!   landing a command's 3 changed files in the 100,000-file project (goal: 50 ms, never a walk
//!   of the project); landing 20,000 small ignored files against `mv` of the same folder
//!   (goal: 1.2×).
//!
//! `cargo build --release -p sandbox && cargo bench -p tools --bench sandbox_cost`; the numbers
//! are in docs/benchmarks.md.

use protocol::Confinement;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use tools::{
    Cache, CommandConfig, CommandLayer, Landing, ProjectRoot, RunCommandArgs, RunContext,
    SandboxSetup, TaskRegistry, Toolbox, Workspace, run_command,
};

fn main() {
    divan::main();
}

struct Trees {
    _dir: tempfile::TempDir,
    small: PathBuf,
    big: PathBuf,
    state: PathBuf,
}

/// A 1-file project and a 100,000-file one (1,000 folders of 100, a `.env` among them, a git
/// folder), made once.
fn trees() -> &'static Trees {
    static TREES: OnceLock<Trees> = OnceLock::new();
    TREES.get_or_init(|| {
        let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
        let base = dir.path().canonicalize().expect("canonical");
        let (small, big) = (base.join("small"), base.join("big"));
        std::fs::create_dir_all(&small).expect("mkdir");
        std::fs::write(small.join("README.md"), "# small\n").expect("write");
        for d in 0..1000 {
            let folder = big.join(format!("src/m{d}"));
            std::fs::create_dir_all(&folder).expect("mkdir");
            for f in 0..100 {
                std::fs::write(folder.join(format!("f{f}.rs")), "fn x() {}\n").expect("write");
            }
        }
        std::fs::write(big.join("README.md"), "# big\n").expect("write");
        std::fs::write(big.join("src/m7/.env"), "KEY=1\n").expect("write");
        for d in [".git/hooks", ".git/objects", ".git/refs/heads"] {
            std::fs::create_dir_all(big.join(d)).expect("mkdir");
        }
        std::fs::write(big.join(".git/config"), "[core]\n").expect("write");
        std::fs::write(big.join(".git/HEAD"), "ref: refs/heads/main\n").expect("write");
        Trees {
            state: base.join("state"),
            _dir: dir,
            small,
            big,
        }
    })
}

fn secret(p: &Path) -> bool {
    p.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with(".env"))
}

fn first_call(project: &Path) -> usize {
    let root = ProjectRoot::open(project).expect("open");
    let mut toolbox = Toolbox::new(root, trees().state.join("calls"));
    toolbox.cache = Cache::off();
    toolbox.ws.hide_secrets(secret);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let out = rt
        .block_on(toolbox.run("read_file", serde_json::json!({"path": "README.md"})))
        .expect("read_file");
    out.text.len()
}

#[divan::bench(sample_count = 20)]
fn tool_call_on_1_file() -> usize {
    first_call(&trees().small)
}

#[divan::bench(sample_count = 20)]
fn tool_call_on_100000_files() -> usize {
    first_call(&trees().big)
}

/// A session on the big project: its workspace, tasks and two configurations (sandboxed, with
/// the project already read once, and plain).
struct Session {
    ws: Workspace,
    tasks: TaskRegistry,
    sandboxed: CommandConfig,
    plain: CommandConfig,
    rt: tokio::runtime::Runtime,
}

fn session() -> &'static Session {
    static SESSION: OnceLock<Session> = OnceLock::new();
    SESSION.get_or_init(|| {
        let t = trees();
        let helper =
            sandbox::find_helper().expect("the helper is built: cargo build --release -p sandbox");
        let mut sandboxed = CommandConfig::new(t.state.join("outputs"));
        sandboxed.tmp_dir = t.state.join("tmp");
        let setup = SandboxSetup::new(helper, t.state.join("sandbox"), secret);
        // A session reads the project once, in the background, when it starts.
        let _ = setup.known(&t.big);
        sandboxed.sandbox = Some(setup);
        let mut plain = CommandConfig::new(t.state.join("plain-outputs"));
        plain.tmp_dir = t.state.join("plain-tmp");
        Session {
            ws: Workspace::new(ProjectRoot::open(&t.big).expect("open")),
            tasks: TaskRegistry::new(),
            sandboxed,
            plain,
            rt: tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .expect("runtime"),
        }
    })
}

fn command(config: &CommandConfig, confinement: Confinement) {
    let s = session();
    let args = RunCommandArgs {
        command: "true".into(),
        description: None,
        timeout: Some(30),
        background: false,
    };
    let out =
        s.rt.block_on(run_command(
            &s.ws,
            &s.tasks,
            config,
            &args,
            &RunContext::new(confinement),
        ))
        .expect("runs");
    divan::black_box(out);
}

#[divan::bench(sample_count = 40)]
fn command_plain() {
    let s = session();
    command(
        &s.plain,
        Confinement::Outside {
            reason: protocol::OutsideReason::Unavailable,
        },
    );
}

#[divan::bench(sample_count = 40)]
fn command_sandboxed() {
    let s = session();
    command(
        &s.sandboxed,
        Confinement::Sandboxed {
            network: false,
            read_only: false,
        },
    );
}

/// The same session's sandbox with commands over a copy-on-write layer of the project.
fn layered() -> &'static CommandConfig {
    static LAYERED: OnceLock<CommandConfig> = OnceLock::new();
    LAYERED.get_or_init(|| {
        let t = trees();
        let mut config = session().sandboxed.clone();
        config.output_dir = t.state.join("layered-outputs");
        config.sandbox = config.sandbox.map(|s| s.with_layers(true));
        config
    })
}

#[divan::bench(sample_count = 40)]
fn command_sandboxed_over_a_layer() {
    command(
        layered(),
        Confinement::Sandboxed {
            network: false,
            read_only: false,
        },
    );
}

/// A layer as a command leaves it, made by hand: `files` changed copies in the upper folder
/// (what copy-up leaves), in the big project.
fn layer_with(files: &[&str]) -> CommandLayer {
    let t = trees();
    let layer = CommandLayer::make(&t.state.join("bench-layers"), &t.big).expect("layer");
    let upper = layer.spec().upper;
    for f in files {
        let p = upper.join(f);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, "fn x() { changed }\n").expect("write");
    }
    layer
}

/// Reading a command's layer and landing 3 changed files in a 100,000-file project (then
/// putting them back, outside the timing).
#[divan::bench(sample_count = 40)]
fn changes_of_3_files_collected_and_landed(bencher: divan::Bencher) {
    let files = ["src/m1/f1.rs", "src/m500/f50.rs", "src/m999/f99.rs"];
    bencher
        .with_inputs(|| {
            for f in files {
                std::fs::write(trees().big.join(f), "fn x() {}\n").expect("reset");
            }
            // Older than the layer's command, as the project is.
            std::thread::sleep(std::time::Duration::from_millis(25));
            layer_with(&files)
        })
        .bench_values(|layer| {
            let landed = layer.land(&Landing::UNREVIEWED, None).expect("landed");
            assert_eq!(landed.changes.files.len(), 3);
        });
}

/// Landing `node_modules` of 20,000 small files that a command made (git ignores it) against
/// `mv` of the same folder.
#[divan::bench(sample_count = 10)]
fn land_20000_ignored_files(bencher: divan::Bencher) {
    let t = trees();
    std::fs::write(t.big.join(".gitignore"), "node_modules/\n").expect("ignore");
    bencher
        .with_inputs(|| {
            let _ = std::fs::remove_dir_all(t.big.join("node_modules"));
            let layer = layer_with(&[]);
            fill(&layer.spec().upper.join("node_modules"));
            layer
        })
        .bench_values(|layer| {
            let landed = layer.land(&Landing::UNREVIEWED, None).expect("landed");
            assert_eq!(landed.changes.ignored.len(), 1);
        });
}

#[divan::bench(sample_count = 10)]
fn mv_20000_files(bencher: divan::Bencher) {
    let t = trees();
    let from = t.state.join("mv-source");
    let to = t.state.join("mv-target");
    bencher
        .with_inputs(|| {
            let _ = std::fs::remove_dir_all(&from);
            let _ = std::fs::remove_dir_all(&to);
            fill(&from);
        })
        .bench_values(|()| {
            let ok = std::process::Command::new("mv")
                .arg(&from)
                .arg(&to)
                .status()
                .expect("mv")
                .success();
            assert!(ok);
        });
}

/// 200 packages of 100 small files.
fn fill(folder: &Path) {
    for p in 0..200 {
        let d = folder.join(format!("pkg{p}"));
        std::fs::create_dir_all(&d).expect("mkdir");
        for f in 0..100 {
            std::fs::write(d.join(format!("f{f}.js")), "module.exports = 1;\n").expect("write");
        }
    }
}
