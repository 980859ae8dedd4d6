//! Commands really run in the sandbox over a copy-on-write layer of the project: nothing they
//! write reaches the project until it lands, and what lands is what the rules allow — ignored
//! output and project files, never a file that makes another program run code. Each test reads
//! the project from outside afterwards, as the person would.

use protocol::{ChangeClass, ChangeKind, CommandChanges, Confinement, Fate, ItemKind, RunsCodeWhy};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::time::Duration;
use test_support::git;
use tools::{
    CommandConfig, CommandOutcome, Landing, ProjectRoot, RunCommandArgs, RunContext, SandboxSetup,
    TaskRegistry, Workspace, run_command,
};

struct Fixture {
    _root: tempfile::TempDir,
    project: PathBuf,
    ws: Workspace,
    tasks: TaskRegistry,
    config: CommandConfig,
}

fn no_secrets(_: &Path) -> bool {
    false
}

fn fixture() -> Fixture {
    let helper = sandbox::find_helper()
        .expect("the tandem-sandbox helper is built beside the tests (cargo build -p sandbox)");
    assert!(
        sandbox::probe().layers.project_layer,
        "this machine can run commands over a layer: {:?}",
        sandbox::probe()
    );
    let root = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
    let base = root.path().canonicalize().expect("canonical");
    let project = base.join("project");
    let session = base.join("session");
    for d in [&project.join("docs"), &project.join("src"), &session] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    std::fs::write(
        project.join("calc.py"),
        "def add(a, b):\n    return a - b\n",
    )
    .expect("write");
    std::fs::write(project.join("docs/guide.md"), "# Guide\n").expect("write");
    std::fs::write(project.join("src/a.txt"), "one\n").expect("write");
    std::fs::write(project.join("src/b.txt"), "two\n").expect("write");
    std::fs::write(project.join("run.sh"), "echo hi\n").expect("write");
    std::fs::write(project.join(".gitignore"), "node_modules/\nbuild/\n").expect("write");
    git(&project, &["init", "-q"]);
    git(&project, &["config", "user.email", "t@example.com"]);
    git(&project, &["config", "user.name", "Test"]);
    git(&project, &["add", "-A"]);
    git(&project, &["commit", "-qm", "start"]);
    // What changed just before a command started counts as changed while it ran (the
    // kernel's file times run a tick behind): the fixture is older than that.
    std::thread::sleep(Duration::from_millis(100));

    let mut config = CommandConfig::new(session.join("outputs"));
    config.timing.grace = Duration::from_secs(30);
    config.timing.kill_grace = Duration::from_millis(500);
    config.tmp_dir = session.join("tmp");
    config.sandbox =
        Some(SandboxSetup::new(helper, session.join("sandbox"), no_secrets).with_layers(true));
    Fixture {
        ws: Workspace::new(ProjectRoot::open(&project).expect("open")),
        tasks: TaskRegistry::new(),
        config,
        project,
        _root: root,
    }
}

const SANDBOXED: Confinement = Confinement::Sandboxed {
    network: false,
    read_only: false,
};

async fn run(
    f: &Fixture,
    command: &str,
    landing: Landing,
) -> (Option<i32>, String, CommandChanges) {
    let args = RunCommandArgs {
        command: command.into(),
        description: None,
        timeout: Some(120),
        background: false,
    };
    let mut ctx = RunContext::new(SANDBOXED);
    ctx.landing = landing;
    let out = run_command(&f.ws, &f.tasks, &f.config, &args, &ctx)
        .await
        .expect("the command ran");
    let text = tools::render_outcome(&out);
    match out {
        CommandOutcome::Finished {
            exit_code, changes, ..
        } => (exit_code, text, changes.expect("it ran over a layer")),
        other => panic!("still running: {other:?}"),
    }
}

const LAND: Landing = Landing { project: true };
const HOLD: Landing = Landing { project: false };

/// A process id no process has: the highest the kernel may give, plus one.
fn dead_pid() -> u64 {
    std::fs::read_to_string("/proc/sys/kernel/pid_max")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or(4_194_304)
        + 1
}

fn read(f: &Fixture, rel: &str) -> Option<String> {
    std::fs::read_to_string(f.project.join(rel)).ok()
}

fn change<'a>(c: &'a CommandChanges, path: &str) -> &'a protocol::CommandFileChange {
    c.files
        .iter()
        .find(|x| x.path == path)
        .unwrap_or_else(|| panic!("no change of {path}: {c:#?}"))
}

#[tokio::test]
async fn a_command_sees_its_own_writes_and_the_project_only_changes_when_they_land() {
    let f = fixture();
    // Held: the command's later steps saw its writes; the project did not change.
    let (code, _, changes) = run(
        &f,
        "sed -i 's/a - b/a + b/' calc.py && grep -q 'a + b' calc.py && echo report > report.txt && cat report.txt && rm docs/guide.md",
        HOLD,
    )
    .await;
    assert_eq!(code, Some(0));
    assert_eq!(
        read(&f, "calc.py").as_deref(),
        Some("def add(a, b):\n    return a - b\n")
    );
    assert_eq!(read(&f, "report.txt"), None);
    assert_eq!(read(&f, "docs/guide.md").as_deref(), Some("# Guide\n"));
    assert_eq!(change(&changes, "calc.py").fate, Fate::Refused);

    // Landed: every change is in the project, deletions first in the list.
    let (code, text, changes) = run(
        &f,
        "sed -i 's/a - b/a + b/' calc.py && echo report > report.txt && rm docs/guide.md",
        LAND,
    )
    .await;
    assert_eq!(code, Some(0));
    assert_eq!(
        read(&f, "calc.py").as_deref(),
        Some("def add(a, b):\n    return a + b\n")
    );
    assert_eq!(read(&f, "report.txt").as_deref(), Some("report\n"));
    assert_eq!(read(&f, "docs/guide.md"), None);
    assert_eq!(changes.files[0].path, "docs/guide.md");
    assert_eq!(changes.files[0].change, ChangeKind::Deleted);
    let calc = change(&changes, "calc.py");
    assert_eq!(
        (calc.change, calc.fate.clone()),
        (ChangeKind::Modified, Fate::Landed)
    );
    assert_eq!(calc.lines.map(|l| (l.added, l.removed)), Some((1, 1)));
    assert_eq!(change(&changes, "report.txt").change, ChangeKind::Created);
    assert!(text.contains("calc.py changed (+1 −1)"), "{text}");
    assert!(text.contains("docs/guide.md deleted"), "{text}");
    // Nothing of the overlay's own marks came with them.
    let marks = rustix::fs::llistxattr(f.project.join("calc.py"), &mut [0u8; 256]).unwrap_or(0);
    assert_eq!(marks, 0, "no overlay attributes on a landed file");
}

#[tokio::test]
async fn folders_removed_renamed_and_remade_links_modes_and_binaries_land_as_they_are() {
    let f = fixture();
    let (code, text, changes) = run(
        &f,
        "rm -rf docs && mv src lib && chmod +x run.sh && ln -s lib/a.txt link && printf '\\000\\001\\002' > blob.bin && mkdir again && echo x > again/f && rm -r again && mkdir again && echo y > again/g",
        LAND,
    )
    .await;
    assert_eq!(code, Some(0), "{text}");
    assert!(!f.project.join("docs").exists(), "{text} {changes:#?}");
    assert!(!f.project.join("src").exists());
    assert_eq!(read(&f, "lib/a.txt").as_deref(), Some("one\n"));
    assert_eq!(read(&f, "lib/b.txt").as_deref(), Some("two\n"));
    let mode = std::fs::metadata(f.project.join("run.sh"))
        .expect("run.sh")
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111);
    assert_eq!(read(&f, "run.sh").as_deref(), Some("echo hi\n"));
    assert_eq!(
        std::fs::read_link(f.project.join("link")).expect("a link"),
        PathBuf::from("lib/a.txt")
    );
    assert_eq!(
        std::fs::read(f.project.join("blob.bin")).expect("blob"),
        vec![0, 1, 2]
    );
    assert_eq!(read(&f, "again/g").as_deref(), Some("y\n"));
    assert!(!f.project.join("again/f").exists());
    assert_eq!(change(&changes, "docs").change, ChangeKind::Deleted);
    assert_eq!(change(&changes, "src").change, ChangeKind::Deleted);
    assert_eq!(change(&changes, "lib").item, ItemKind::Folder);
    assert_eq!(change(&changes, "run.sh").change, ChangeKind::ModeChanged);
    assert_eq!(change(&changes, "link").item, ItemKind::Symlink);
    assert_eq!(
        change(&changes, "blob.bin").lines,
        None,
        "a binary has no lines"
    );
}

#[tokio::test]
async fn a_fifo_and_a_socket_are_never_made_in_the_project() {
    let f = fixture();
    let (code, text, changes) = run(
        &f,
        "mkfifo pipe && python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.bind(\"sock\")'",
        LAND,
    )
    .await;
    assert_eq!(code, Some(0), "{text}");
    assert!(!f.project.join("pipe").exists());
    assert!(!f.project.join("sock").exists());
    assert_eq!(change(&changes, "pipe").fate, Fate::NotLandable);
    assert_eq!(change(&changes, "sock").fate, Fate::NotLandable);
    assert!(text.contains("Not made in the project: pipe"), "{text}");
}

#[tokio::test]
async fn ignored_output_lands_even_when_project_files_wait_and_is_summed_up() {
    let f = fixture();
    let (code, text, changes) = run(
        &f,
        "mkdir -p node_modules/pkg && for i in $(seq 1 20000); do : > node_modules/pkg/f$i; done && echo changed >> calc.py",
        HOLD,
    )
    .await;
    assert_eq!(code, Some(0), "{text}");
    let files = std::fs::read_dir(f.project.join("node_modules/pkg"))
        .expect("landed")
        .count();
    assert_eq!(files, 20000);
    assert_eq!(changes.ignored.len(), 1, "{changes:#?}");
    assert_eq!(changes.ignored[0].path, "node_modules");
    assert_eq!(changes.ignored[0].added, 20000);
    assert!(changes.ignored[0].landed);
    assert!(!read(&f, "calc.py").expect("calc").contains("changed"));
    assert!(
        text.contains("under node_modules: 20000 files added"),
        "{text}"
    );
}

#[tokio::test]
async fn files_that_make_programs_run_code_never_land_unasked() {
    let f = fixture();
    let (code, text, changes) = run(
        &f,
        "mkdir -p .vscode evil/objects evil/refs && echo '{}' > .vscode/tasks.json \
         && echo 'ref: refs/heads/main' > evil/HEAD && printf '[core]\\n\\tfsmonitor = touch /tmp/x\\n' > evil/config \
         && mkdir -p vendor && git init -q vendor/lib && echo 'echo' > .envrc \
         && mkdir -p .husky && echo 'echo' > .husky/pre-commit && echo ok > plain.txt",
        LAND,
    )
    .await;
    assert_eq!(code, Some(0), "{text}");
    for (path, why) in [
        (".vscode", RunsCodeWhy::Editor),
        ("evil", RunsCodeWhy::GitRepository),
        ("vendor", RunsCodeWhy::GitRepository),
        (".envrc", RunsCodeWhy::Direnv),
        (".husky", RunsCodeWhy::Hooks),
    ] {
        let c = change(&changes, path);
        assert_eq!(c.class, ChangeClass::RunsCode { why }, "{path}");
        assert_eq!(c.fate, Fate::Refused, "{path}");
        assert!(
            !f.project.join(path).exists(),
            "{path} stayed out of the project"
        );
    }
    assert_eq!(read(&f, "plain.txt").as_deref(), Some("ok\n"));
    assert!(text.contains("VS Code runs what it names"), "{text}");
    // The person's own git status, outside the sandbox, finds nothing the command planted.
    let status = std::process::Command::new("git")
        .args(["status", "--porcelain"])
        .current_dir(&f.project)
        .output()
        .expect("git status");
    assert_eq!(String::from_utf8_lossy(&status.stdout), "?? plain.txt\n");
}

#[tokio::test]
async fn a_commit_by_a_command_lands_with_its_files_or_not_at_all() {
    let f = fixture();
    let head = |f: &Fixture| {
        let out = std::process::Command::new("git")
            .args(["rev-parse", "HEAD"])
            .current_dir(&f.project)
            .output()
            .expect("git");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    let before = head(&f);
    // Held: neither the file nor the commit.
    let (code, text, changes) = run(
        &f,
        "echo more >> calc.py && git add calc.py && git commit -qm more",
        HOLD,
    )
    .await;
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(head(&f), before);
    assert_eq!(change(&changes, ".git").fate, Fate::Refused);
    let fsck = std::process::Command::new("git")
        .args(["fsck", "--no-progress"])
        .current_dir(&f.project)
        .status()
        .expect("fsck");
    assert!(fsck.success());
    // Landed: both.
    let (code, text, changes) = run(
        &f,
        "echo more >> calc.py && git add calc.py && git commit -qm more",
        LAND,
    )
    .await;
    assert_eq!(code, Some(0), "{text}");
    assert_ne!(head(&f), before);
    assert_eq!(change(&changes, ".git").fate, Fate::Landed);
    let status = std::process::Command::new("git")
        .args(["status", "--porcelain"])
        .current_dir(&f.project)
        .output()
        .expect("git status");
    assert_eq!(
        String::from_utf8_lossy(&status.stdout),
        "",
        "a clean tree after the commit"
    );
}

#[tokio::test]
async fn the_persons_edit_during_a_command_is_never_overwritten() {
    let f = fixture();
    let project = f.project.clone();
    let person = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(600)).await;
        std::fs::write(project.join("calc.py"), "# the person's own line\n").expect("write");
    });
    let (code, text, changes) = run(
        &f,
        "sed -i 's/a - b/a + b/' calc.py && sleep 2 && echo done > other.txt",
        LAND,
    )
    .await;
    person.await.expect("person");
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(
        read(&f, "calc.py").as_deref(),
        Some("# the person's own line\n")
    );
    assert_eq!(change(&changes, "calc.py").fate, Fate::Conflict);
    assert_eq!(read(&f, "other.txt").as_deref(), Some("done\n"));
    assert!(text.contains("changed while the command ran"), "{text}");
}

#[tokio::test]
async fn layers_left_by_a_killed_app_are_cleared_and_never_land() {
    let f = fixture();
    let state = f
        .config
        .sandbox
        .as_ref()
        .expect("sandbox")
        .state_dir
        .clone();
    // A process that is gone: the highest pid the kernel may give, plus one.
    let dead = dead_pid();
    let stale = state.join(format!("layers/{dead}-0/upper"));
    std::fs::create_dir_all(&stale).expect("mkdir");
    std::fs::write(stale.join("calc.py"), "half of a command\n").expect("write");
    let mine = tools::CommandLayer::make(&state, &f.project).expect("layer");
    tools::CommandLayer::clear_stale(&state, &f.project);
    assert!(!state.join(format!("layers/{dead}-0")).exists());
    assert!(mine.folder().exists(), "a running Tandem's layer stays");
    assert_eq!(
        read(&f, "calc.py").as_deref(),
        Some("def add(a, b):\n    return a - b\n")
    );
    mine.discard().expect("discard");
}

#[tokio::test]
async fn a_landing_cut_short_by_a_killed_app_is_finished_when_the_session_opens() {
    let f = fixture();
    let state = f
        .config
        .sandbox
        .as_ref()
        .expect("sandbox")
        .state_dir
        .clone();
    // A landing of three changes, written down, cut short after the first: run.sh already
    // moved in, src/a.txt still in the layer, docs/guide.md not yet deleted.
    let dead = dead_pid();
    let layer = state.join(format!("layers/{dead}-3"));
    std::fs::create_dir_all(layer.join("upper/src")).expect("mkdir");
    std::fs::create_dir_all(layer.join("work")).expect("mkdir");
    std::fs::write(layer.join("upper/src/a.txt"), "one, changed\n").expect("write");
    std::fs::write(f.project.join("run.sh"), "echo landed\n").expect("write");
    let journal = serde_json::json!({
        "project": f.project,
        "steps": [
            {"rel": "run.sh", "change": "modified", "folder": false},
            {"rel": "src/a.txt", "change": "modified", "folder": false},
            {"rel": "docs/guide.md", "change": "deleted", "folder": false}
        ]
    });
    std::fs::write(layer.join("landing.json"), journal.to_string()).expect("journal");
    tools::CommandLayer::clear_stale(&state, &f.project);
    assert_eq!(read(&f, "run.sh").as_deref(), Some("echo landed\n"));
    assert_eq!(read(&f, "src/a.txt").as_deref(), Some("one, changed\n"));
    assert_eq!(read(&f, "docs/guide.md"), None);
    assert_eq!(
        read(&f, "src/b.txt").as_deref(),
        Some("two\n"),
        "what was not in it stays"
    );
    assert!(!layer.exists());
}

#[tokio::test]
async fn a_background_commands_landed_files_are_told_when_it_ends() {
    let f = fixture();
    let told: std::sync::Arc<std::sync::Mutex<Vec<tools::LandedFile>>> = Default::default();
    let sink = told.clone();
    let mut ctx = RunContext::new(SANDBOXED);
    ctx.on_landed = Some(tools::OnLanded(std::sync::Arc::new(move |landed| {
        sink.lock().expect("lock").extend(landed.iter().cloned());
    })));
    let args = RunCommandArgs {
        command: "sleep 0.3 && echo later >> calc.py".into(),
        description: None,
        timeout: Some(60),
        background: true,
    };
    let out = run_command(&f.ws, &f.tasks, &f.config, &args, &ctx)
        .await
        .expect("started");
    assert!(matches!(out, CommandOutcome::Background { .. }), "{out:?}");
    assert!(!read(&f, "calc.py").expect("calc").contains("later"));
    let ended = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            if !told.lock().expect("lock").is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(ended.is_ok(), "the landing was never told");
    assert!(read(&f, "calc.py").expect("calc").contains("later"));
    let told = told.lock().expect("lock").clone();
    assert_eq!(
        told,
        vec![(
            "calc.py".to_string(),
            Some("def add(a, b):\n    return a - b\n".to_string())
        )]
    );
}

/// A journal that names another folder as its project (planted by whoever could write the
/// session's folder) lands nothing anywhere: only the session's own project is finished.
#[tokio::test]
async fn a_planted_journal_cannot_land_files_outside_the_project() {
    let f = fixture();
    let state = f
        .config
        .sandbox
        .as_ref()
        .expect("sandbox")
        .state_dir
        .clone();
    let outside = f.project.parent().expect("parent").join("outside");
    std::fs::create_dir_all(&outside).expect("mkdir");
    let layer = state.join(format!("layers/{}-7", dead_pid()));
    std::fs::create_dir_all(layer.join("upper")).expect("mkdir");
    std::fs::write(layer.join("upper/.bashrc"), "touch /tmp/pwned\n").expect("write");
    std::fs::write(layer.join("upper/calc.py"), "planted\n").expect("write");
    let journal = serde_json::json!({
        "project": outside,
        "steps": [
            {"rel": ".bashrc", "change": "created", "folder": false},
            {"rel": "calc.py", "change": "modified", "folder": false}
        ]
    });
    std::fs::write(layer.join("landing.json"), journal.to_string()).expect("journal");
    tools::CommandLayer::clear_stale(&state, &f.project);
    assert!(
        !outside.join(".bashrc").exists(),
        "nothing lands outside the project"
    );
    assert_eq!(
        read(&f, "calc.py").as_deref(),
        Some("def add(a, b):\n    return a - b\n")
    );
    assert!(!layer.exists(), "the planted layer is removed");
}
