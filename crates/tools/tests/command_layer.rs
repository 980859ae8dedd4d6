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
    _root: Option<tempfile::TempDir>,
    project: PathBuf,
    ws: Workspace,
    tasks: TaskRegistry,
    config: CommandConfig,
}

fn no_secrets(_: &Path) -> bool {
    false
}

fn fixture() -> Fixture {
    let root = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
    let base = root.path().canonicalize().expect("canonical");
    let mut f = fixture_at(&base, true);
    f._root = Some(root);
    f
}

/// The fixture's project and session under `base`; its files made when `make`.
fn fixture_at(base: &Path, make: bool) -> Fixture {
    let helper = sandbox::find_helper()
        .expect("the tandem-sandbox helper is built beside the tests (cargo build -p sandbox)");
    assert!(
        sandbox::probe().layers.project_layer,
        "this machine can run commands over a layer: {:?}",
        sandbox::probe()
    );
    let project = base.join("project");
    let session = base.join("session");
    if make {
        make_files(&project, &session);
    }
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
        _root: None,
    }
}

fn make_files(project: &Path, session: &Path) {
    for d in [&project.join("docs"), &project.join("src"), session] {
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
    git(project, &["init", "-q"]);
    git(project, &["config", "user.email", "t@example.com"]);
    git(project, &["config", "user.name", "Test"]);
    git(project, &["add", "-A"]);
    git(project, &["commit", "-qm", "start"]);
    // What changed just before a command started counts as changed while it ran (the
    // kernel's file times run a tick behind): the fixture is older than that.
    std::thread::sleep(Duration::from_millis(100));
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

const LAND: Landing = Landing::UNREVIEWED;
/// Project files wait for a yes nobody gives (no one reviews): they are refused.
const HOLD: Landing = Landing {
    project: false,
    review: false,
};
/// Ask mode: project files wait in the layer for the person's review.
const REVIEW: Landing = Landing {
    project: false,
    review: true,
};
/// Full auto: project files land; files that make programs run code wait for a yes.
const LAND_ASK_RISKY: Landing = Landing {
    project: true,
    review: true,
};

/// Runs `command` with its changes held for review: what it said, and what waits.
async fn run_held(f: &Fixture, command: &str, landing: Landing) -> (CommandChanges, tools::Held) {
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
    match out {
        CommandOutcome::Finished {
            exit_code,
            changes,
            held,
            ..
        } => {
            assert_eq!(exit_code, Some(0));
            (
                changes.expect("it ran over a layer"),
                held.take().expect("changes wait for a review"),
            )
        }
        other => panic!("still running: {other:?}"),
    }
}

/// No command's layer is left in the session's folder (the probe of its attributes aside).
fn assert_no_layer_left(f: &Fixture) {
    let layers = f
        .config
        .sandbox
        .as_ref()
        .expect("sandbox")
        .state_dir
        .join("layers");
    let left: Vec<_> = std::fs::read_dir(&layers)
        .map(|d| d.filter_map(Result::ok).map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(
        left.iter()
            .all(|n| n.to_string_lossy().starts_with("attribute-probe")),
        "a layer is left: {left:?}"
    );
}

/// The pieces of `path` in a review: its hunks' indices, or its whole piece.
fn pieces(review: &protocol::ChangeReview, path: &str) -> Vec<u32> {
    let file = review
        .files
        .iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("{path} is not in the review: {review:#?}"));
    match file.whole {
        Some(w) => vec![w],
        None => file.hunks.iter().map(|h| h.index).collect(),
    }
}

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

/// The common ancestor a session's checkpoints give: here, the file as last committed.
fn base_from_head(f: &mut Fixture) {
    let project = f.project.clone();
    f.ws.set_base_of(std::sync::Arc::new(move |path: &str| {
        let out = std::process::Command::new("git")
            .args(["show", &format!("HEAD:{path}")])
            .current_dir(&project)
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8(out.stdout).ok())
            .flatten()
    }));
}

const LONG: &str =
    "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n\n\n# end\n";

/// The fixture's calc.py made longer and committed, so its two ends are far apart.
fn long_calc(f: &Fixture) {
    std::fs::write(f.project.join("calc.py"), LONG).expect("write");
    git(&f.project, &["commit", "-qam", "longer"]);
    std::thread::sleep(Duration::from_millis(100));
}

#[tokio::test]
async fn the_persons_edit_on_other_lines_is_merged_with_the_commands_change() {
    let mut f = fixture();
    base_from_head(&mut f);
    long_calc(&f);
    let project = f.project.clone();
    let person = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(600)).await;
        let mine = LONG.replace("# end\n", "# end\n# the person's own line\n");
        std::fs::write(project.join("calc.py"), mine).expect("write");
    });
    let (code, text, changes) = run(&f, "sed -i '2s/a - b/a + b/' calc.py && sleep 2", LAND).await;
    person.await.expect("person");
    assert_eq!(code, Some(0), "{text}");
    let both = LONG
        .replacen("a - b", "a + b", 1)
        .replace("# end\n", "# end\n# the person's own line\n");
    assert_eq!(read(&f, "calc.py").as_deref(), Some(both.as_str()));
    let calc = change(&changes, "calc.py");
    assert_eq!(calc.fate, Fate::Landed);
    assert!(calc.merged, "{calc:?}");
    // Only the command's own line counts as its change.
    assert_eq!(
        calc.lines,
        Some(protocol::LineCounts {
            added: 1,
            removed: 1
        })
    );
    assert!(text.contains("merged"), "{text}");
    assert_no_layer_left(&f);
}

#[tokio::test]
async fn a_review_of_a_file_the_person_edited_meanwhile_shows_only_the_commands_lines() {
    let mut f = fixture();
    base_from_head(&mut f);
    long_calc(&f);
    let project = f.project.clone();
    let person = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(600)).await;
        let mine = LONG.replace("# end\n", "# end\n# the person's own line\n");
        std::fs::write(project.join("calc.py"), mine).expect("write");
    });
    let (_, held) = run_held(&f, "sed -i '2s/a - b/a + b/' calc.py && sleep 2", REVIEW).await;
    person.await.expect("person");
    let file = held
        .review()
        .files
        .iter()
        .find(|r| r.path == "calc.py")
        .expect("calc.py is reviewed");
    assert!(
        !file.proposed.as_deref().unwrap_or("").is_empty()
            && file
                .proposed
                .as_deref()
                .unwrap_or("")
                .contains("the person's own line"),
        "the review does not offer to remove the person's line: {file:?}"
    );
    let all = held.all();
    let landed = held.land(&all, None).expect("landed");
    assert_eq!(change(&landed.changes, "calc.py").fate, Fate::Landed);
    let text = read(&f, "calc.py").expect("calc.py");
    assert!(
        text.contains("a + b") && text.contains("the person's own line"),
        "{text}"
    );
}

#[tokio::test]
async fn the_persons_edit_to_the_same_lines_is_a_conflict_even_with_an_ancestor() {
    let mut f = fixture();
    base_from_head(&mut f);
    long_calc(&f);
    let project = f.project.clone();
    let person = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(600)).await;
        let mine = LONG.replacen("a - b", "a * b", 1);
        std::fs::write(project.join("calc.py"), mine).expect("write");
    });
    let (code, text, changes) = run(&f, "sed -i '2s/a - b/a + b/' calc.py && sleep 2", LAND).await;
    person.await.expect("person");
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(
        read(&f, "calc.py").as_deref(),
        Some(LONG.replacen("a - b", "a * b", 1).as_str())
    );
    assert_eq!(change(&changes, "calc.py").fate, Fate::Conflict);
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

#[tokio::test]
async fn a_commands_changes_wait_for_review_and_land_as_answered_hunk_by_hunk() {
    let f = fixture();
    std::fs::write(
        f.project.join("notes.txt"),
        "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n",
    )
    .expect("write");
    std::thread::sleep(Duration::from_millis(100));
    let (said, held) = run_held(
        &f,
        "sed -i -e 's/^a$/A/' -e 's/^l$/L/' notes.txt && sed -i 's/a - b/a + b/' calc.py && echo made > report.txt && rm docs/guide.md && mkdir -p build && echo out > build/o.txt",
        REVIEW,
    )
    .await;
    // Nothing of the project moved; the ignored output did.
    assert_eq!(
        read(&f, "calc.py").as_deref(),
        Some("def add(a, b):\n    return a - b\n")
    );
    assert_eq!(read(&f, "report.txt"), None);
    assert_eq!(read(&f, "docs/guide.md").as_deref(), Some("# Guide\n"));
    assert_eq!(read(&f, "build/o.txt").as_deref(), Some("out\n"));
    assert!(said.files.is_empty(), "{said:#?}");
    let review = held.review().clone();
    // Deletions first, each file with its diff.
    assert_eq!(review.files[0].path, "docs/guide.md", "{review:#?}");
    assert_eq!(review.files[0].change, ChangeKind::Deleted);
    let notes = review
        .files
        .iter()
        .find(|x| x.path == "notes.txt")
        .expect("notes");
    assert_eq!(notes.hunks.len(), 2, "two changes far apart: {notes:#?}");
    assert_eq!(
        notes.original.as_deref().map(|t| t.starts_with("a\n")),
        Some(true)
    );
    assert_eq!(review.ignored.len(), 1, "{review:#?}");

    // The person keeps the first hunk of notes.txt, the fix and the deletion, not the report.
    let notes_pieces = pieces(&review, "notes.txt");
    let mut accepted: std::collections::BTreeSet<u32> = [notes_pieces[0]].into();
    accepted.extend(pieces(&review, "calc.py"));
    accepted.extend(pieces(&review, "docs/guide.md"));
    let landed = held.land(&accepted, None).expect("landed");
    assert_eq!(
        read(&f, "notes.txt").as_deref(),
        Some("A\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n"),
        "only the accepted hunk"
    );
    assert_eq!(
        read(&f, "calc.py").as_deref(),
        Some("def add(a, b):\n    return a + b\n")
    );
    assert_eq!(read(&f, "docs/guide.md"), None);
    assert_eq!(read(&f, "report.txt"), None, "rejected");
    assert_eq!(change(&landed.changes, "report.txt").fate, Fate::Rejected);
    assert_eq!(change(&landed.changes, "notes.txt").fate, Fate::Landed);
    assert_eq!(change(&landed.changes, "docs/guide.md").fate, Fate::Landed);
    assert_eq!(
        change(&landed.changes, "notes.txt").lines,
        Some(protocol::LineCounts {
            added: 1,
            removed: 1
        }),
        "what landed of it"
    );
    let words = tools::changes_words(&landed.changes);
    assert!(
        words.contains("rejected them, so the project keeps what it had there: report.txt created"),
        "{words}"
    );
    // The layer is gone once answered.
    assert_no_layer_left(&f);
}

#[tokio::test]
async fn a_commands_changes_rejected_whole_leave_the_project_as_it_was() {
    let f = fixture();
    let (_, held) = run_held(
        &f,
        "sed -i 's/a - b/a + b/' calc.py && rm -rf docs && echo x > new.txt",
        REVIEW,
    )
    .await;
    let landed = held.land(&Default::default(), None).expect("landed");
    assert_eq!(
        read(&f, "calc.py").as_deref(),
        Some("def add(a, b):\n    return a - b\n")
    );
    assert_eq!(read(&f, "docs/guide.md").as_deref(), Some("# Guide\n"));
    assert_eq!(read(&f, "new.txt"), None);
    assert!(
        landed
            .changes
            .files
            .iter()
            .all(|c| c.fate == Fate::Rejected),
        "{:#?}",
        landed.changes
    );
    assert!(landed.before.is_empty());
}

#[tokio::test]
async fn files_that_make_programs_run_code_are_asked_and_land_only_with_a_yes() {
    let f = fixture();
    // Full auto: the project file lands at once; the editor's task file waits, with why.
    let (said, held) = run_held(
        &f,
        "mkdir -p .vscode && echo '{}' > .vscode/tasks.json && echo hi > hello.txt",
        LAND_ASK_RISKY,
    )
    .await;
    assert_eq!(read(&f, "hello.txt").as_deref(), Some("hi\n"));
    assert_eq!(change(&said, "hello.txt").fate, Fate::Landed);
    assert_eq!(read(&f, ".vscode/tasks.json"), None, "not before a yes");
    let review = held.review().clone();
    assert_eq!(review.files.len(), 1, "{review:#?}");
    assert!(matches!(
        review.files[0].class,
        ChangeClass::RunsCode {
            why: RunsCodeWhy::Editor
        }
    ));
    // What the folder holds is shown, never a blind yes.
    assert_eq!(
        review.files[0].folder.inside,
        [protocol::InsideFile {
            path: ".vscode/tasks.json".into(),
            text: Some("{}\n".into())
        }]
    );
    let all = held.all();
    let landed = held.land(&all, None).expect("landed");
    assert_eq!(read(&f, ".vscode/tasks.json").as_deref(), Some("{}\n"));
    assert_eq!(landed.changes.files[0].fate, Fate::Landed);

    // Nobody can answer: refused, and the layer goes.
    let (_, held) = run_held(&f, "echo 'use flake' > .envrc", LAND_ASK_RISKY).await;
    let refused = held.refuse().expect("refused");
    assert_eq!(read(&f, ".envrc"), None);
    assert_eq!(refused.changes.files[0].fate, Fate::Refused);
}

#[tokio::test]
async fn a_commit_by_a_command_is_reviewed_with_its_files_and_lands_whole_or_not_at_all() {
    let f = fixture();
    let head = || git(&f.project, &["rev-parse", "HEAD"]);
    let before = head();
    let (_, held) = run_held(
        &f,
        "sed -i 's/a - b/a + b/' calc.py && git add calc.py && git -c user.email=t@e -c user.name=T commit -qm fix",
        REVIEW,
    )
    .await;
    let review = held.review().clone();
    let git_piece = pieces(&review, ".git");
    // The commit kept, its file rejected: the commit cannot land without it.
    let landed = held
        .land(&git_piece.into_iter().collect(), None)
        .expect("landed");
    assert_eq!(head(), before, "{:#?}", landed.changes);
    assert_eq!(
        read(&f, "calc.py").as_deref(),
        Some("def add(a, b):\n    return a - b\n")
    );
    assert_ne!(change(&landed.changes, ".git").fate, Fate::Landed);
    git(&f.project, &["fsck", "--no-progress"]);

    // All of it kept: the commit and its file land together.
    let (_, held) = run_held(
        &f,
        "sed -i 's/a - b/a + b/' calc.py && git add calc.py && git -c user.email=t@e -c user.name=T commit -qm fix",
        REVIEW,
    )
    .await;
    let all = held.all();
    let landed = held.land(&all, None).expect("landed");
    assert_ne!(head(), before, "{:#?}", landed.changes);
    assert_eq!(
        read(&f, "calc.py").as_deref(),
        Some("def add(a, b):\n    return a + b\n")
    );
    assert_eq!(git(&f.project, &["status", "--porcelain"]), "");
}

#[tokio::test]
async fn a_command_that_writes_past_its_layers_cap_is_stopped_and_nothing_of_it_lands() {
    let mut f = fixture();
    if let Some(s) = f.config.sandbox.as_mut() {
        s.limits.layer_bytes = 1 << 20;
    }
    let args = RunCommandArgs {
        command: "echo small > small.txt && head -c 8388608 /dev/zero > big.bin && sleep 60 && echo late > late.txt".into(),
        description: None,
        timeout: Some(120),
        background: false,
    };
    let mut ctx = RunContext::new(SANDBOXED);
    ctx.landing = LAND;
    let out = run_command(&f.ws, &f.tasks, &f.config, &args, &ctx)
        .await
        .expect("the command ran");
    let text = tools::render_outcome(&out);
    let CommandOutcome::Finished {
        exit_code,
        limit_hit,
        changes,
        ..
    } = out
    else {
        panic!("still running: {text}");
    };
    assert_ne!(exit_code, Some(0), "{text}");
    assert_eq!(limit_hit, Some(tools::LimitHit::Layer { bytes: 1 << 20 }));
    assert!(text.contains("none of its changes landed"), "{text}");
    assert!(changes.is_none(), "{changes:?}");
    for name in ["small.txt", "big.bin", "late.txt"] {
        assert!(!f.project.join(name).exists(), "{name} landed");
    }
    assert_no_layer_left(&f);
}

#[tokio::test]
async fn a_repository_the_person_makes_while_a_command_runs_is_never_touched() {
    let f = fixture();
    let args = RunCommandArgs {
        command: "sleep 2 && echo done > done.txt".into(),
        description: None,
        timeout: Some(120),
        background: false,
    };
    let mut ctx = RunContext::new(SANDBOXED);
    ctx.landing = LAND;
    let person = async {
        tokio::time::sleep(Duration::from_millis(500)).await;
        std::fs::create_dir_all(f.project.join("mine")).expect("mkdir");
        git(&f.project.join("mine"), &["init", "-q"]);
    };
    let (out, ()) = tokio::join!(run_command(&f.ws, &f.tasks, &f.config, &args, &ctx), person);
    let out = out.expect("the command ran");
    let text = tools::render_outcome(&out);
    assert!(
        f.project.join("mine/.git/HEAD").is_file(),
        "the person's repository was renamed: {text}"
    );
    assert!(!text.contains("renamed"), "{text}");
    assert_eq!(read(&f, "done.txt").as_deref(), Some("done\n"));
}

#[tokio::test]
async fn a_commands_landed_lines_count_toward_the_limits_on_changed_lines() {
    let f = fixture();
    assert_eq!(f.ws.uncommitted_totals().changed(), 0);
    let (code, text, _) = run(
        &f,
        "sed -i 's/a - b/a + b/' calc.py && printf 'x\\ny\\n' > new.txt && mkdir -p build && seq 100 > build/out.txt",
        LAND,
    )
    .await;
    assert_eq!(code, Some(0), "{text}");
    // calc.py +1 −1 and new.txt +2; ignored output is not the person's to review.
    assert_eq!(f.ws.uncommitted_totals().changed(), 4, "{text}");
    // Held and refused: nothing landed, nothing counted.
    let (_, text, _) = run(&f, "echo more >> new.txt", HOLD).await;
    assert_eq!(f.ws.uncommitted_totals().changed(), 4, "{text}");
}

#[tokio::test]
async fn a_checkout_by_a_command_is_reviewed_and_lands_whole_or_not_at_all() {
    let f = fixture();
    // The person's repository has a branch with the fix.
    let start = git(&f.project, &["rev-parse", "--abbrev-ref", "HEAD"]);
    let start = start.trim();
    git(&f.project, &["checkout", "-q", "-b", "fix"]);
    std::fs::write(
        f.project.join("calc.py"),
        "def add(a, b):\n    return a + b\n",
    )
    .expect("write");
    git(&f.project, &["commit", "-qam", "fix"]);
    git(&f.project, &["checkout", "-q", start]);
    std::thread::sleep(Duration::from_millis(100));
    let branch = || {
        git(&f.project, &["rev-parse", "--abbrev-ref", "HEAD"])
            .trim()
            .to_string()
    };

    // Rejected: the branch, the index and the working tree stay as they were.
    let (_, held) = run_held(&f, "git checkout -q fix", REVIEW).await;
    let review = held.review().clone();
    assert!(
        review.files.iter().any(|x| x.path == "calc.py")
            && review.files.iter().any(|x| x.path == ".git"),
        "{review:#?}"
    );
    let landed = held.land(&Default::default(), None).expect("landed");
    assert_eq!(branch(), start, "{:#?}", landed.changes);
    assert_eq!(
        read(&f, "calc.py").as_deref(),
        Some("def add(a, b):\n    return a - b\n")
    );
    assert_eq!(git(&f.project, &["status", "--porcelain"]), "");

    // Accepted: on the branch, its files in the working tree, nothing half-changed. (The
    // person's `git status` above refreshed the index: a change just before a command starts
    // counts as made during it.)
    std::thread::sleep(Duration::from_millis(100));
    let (_, held) = run_held(&f, "git checkout -q fix", REVIEW).await;
    let all = held.all();
    let landed = held.land(&all, None).expect("landed");
    assert_eq!(branch(), "fix", "{:#?}", landed.changes);
    assert_eq!(
        read(&f, "calc.py").as_deref(),
        Some("def add(a, b):\n    return a + b\n")
    );
    assert_eq!(git(&f.project, &["status", "--porcelain"]), "");
    git(&f.project, &["fsck", "--no-progress"]);
}

#[tokio::test]
async fn a_review_of_many_large_files_carries_a_bounded_text_and_every_file() {
    let f = fixture();
    // Twelve text files of 900 KB each, rewritten by one command: 21 MB of both sides.
    let body: String = (0..90_000).map(|i| format!("line{i:04}\n")).collect();
    for n in 0..12 {
        std::fs::write(f.project.join(format!("big{n}.txt")), &body).expect("write");
    }
    std::thread::sleep(Duration::from_millis(100));
    let (_, held) = run_held(&f, "sed -i 's/^line0000$/LINE/' big*.txt", REVIEW).await;
    let review = held.review().clone();
    assert_eq!(review.files.len(), 12, "every file is in the review");
    let text: usize = review
        .files
        .iter()
        .map(|x| {
            x.original.as_deref().map_or(0, str::len) + x.proposed.as_deref().map_or(0, str::len)
        })
        .sum();
    assert!(text <= 8 << 20, "{text} bytes of text in one question");
    let whole = review.files.iter().filter(|x| x.whole.is_some()).count();
    assert!(whole > 0 && whole < 12, "{whole} files reviewed whole");
    assert!(
        review.files.iter().all(|x| x.lines.is_some()),
        "each still counts its lines"
    );
    // Kept whole, a file past the bound lands as the command left it.
    let all = held.all();
    held.land(&all, None).expect("landed");
    for n in 0..12 {
        assert!(
            read(&f, &format!("big{n}.txt"))
                .expect("big")
                .starts_with("LINE\n"),
            "big{n}.txt"
        );
    }
}

/// How many files the killed landing changes: enough that landing them takes a while.
const KILLED_FILES: usize = 4000;

/// The child of the kill test: runs a command that rewrites every file under `many/` and
/// lands it, until the test kills it with SIGKILL.
async fn land_until_killed(base: &Path) {
    let f = fixture_at(base, false);
    let (code, text, _) = run(&f, "for f in many/*; do echo after > \"$f\"; done", LAND).await;
    assert_eq!(code, Some(0), "{text}");
}

#[tokio::test]
async fn an_app_killed_while_a_change_lands_leaves_each_file_whole_and_the_landing_is_finished() {
    if let Some(base) = std::env::var_os("TANDEM_TEST_LANDING_CHILD") {
        land_until_killed(Path::new(&base)).await;
        return;
    }
    let f = fixture();
    let base = f.project.parent().expect("base").to_path_buf();
    std::fs::create_dir_all(f.project.join("many")).expect("mkdir");
    for i in 0..KILLED_FILES {
        std::fs::write(f.project.join(format!("many/{i:05}.txt")), "before\n").expect("write");
    }
    std::thread::sleep(Duration::from_millis(100));
    let layers = f
        .config
        .sandbox
        .as_ref()
        .expect("sandbox")
        .state_dir
        .join("layers");
    // The app is this test itself, run again as a child that lands and is killed mid-way.
    let mut child = std::process::Command::new(std::env::current_exe().expect("exe"))
        .args([
            "--exact",
            "an_app_killed_while_a_change_lands_leaves_each_file_whole_and_the_landing_is_finished",
            "--nocapture",
        ])
        .env("TANDEM_TEST_LANDING_CHILD", &base)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("child");
    // Killed as soon as its landing is written down and its first file has landed, before
    // it can be done.
    let first = f.project.join("many/00000.txt");
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    let journal_seen = loop {
        let written = std::fs::read_dir(&layers).is_ok_and(|d| {
            d.filter_map(Result::ok)
                .any(|e| e.path().join("landing.json").exists())
        }) && std::fs::read_to_string(&first).is_ok_and(|t| t == "after\n");
        if written || std::time::Instant::now() > deadline {
            break written;
        }
        if child.try_wait().expect("wait").is_some() {
            break false;
        }
        std::thread::sleep(Duration::from_micros(200));
    };
    let _ = child.kill();
    let _ = child.wait();
    assert!(journal_seen, "the child's landing began");
    let count = |what: &str| {
        (0..KILLED_FILES)
            .filter(|i| {
                std::fs::read_to_string(f.project.join(format!("many/{i:05}.txt")))
                    .is_ok_and(|t| t == what)
            })
            .count()
    };
    // Each file is whole, before or after; none half-written.
    let (before, after) = (count("before\n"), count("after\n"));
    assert_eq!(
        before + after,
        KILLED_FILES,
        "{before} before, {after} after"
    );
    eprintln!("killed with {after} of {KILLED_FILES} files landed");
    // The session opening again finishes what was decided: the project is as after.
    tools::CommandLayer::clear_stale(
        &f.config.sandbox.as_ref().expect("sandbox").state_dir,
        &f.project,
    );
    assert_eq!(count("after\n"), KILLED_FILES);
    assert_no_layer_left(&f);
}

#[tokio::test]
async fn a_running_background_commands_ignored_output_reaches_the_project_as_it_comes() {
    let f = fixture();
    // The person's own file git ignores, changed before the watcher writes it: never copied over.
    std::fs::create_dir_all(f.project.join("build")).expect("mkdir");
    let args = RunCommandArgs {
        command:
            "mkdir -p build/evil/objects build/evil/refs && echo 'ref: x' > build/evil/HEAD && \
                  printf '[core]\\n\\tfsmonitor = touch /tmp/owned\\n' > build/evil/config && \
                  for i in 1 2 3; do echo $i > build/out.txt; sleep 1; done; \
                  echo later >> calc.py; echo mine-no-more > build/keep.txt; sleep 60"
                .into(),
        description: None,
        timeout: Some(120),
        background: true,
    };
    let mut ctx = RunContext::new(SANDBOXED);
    ctx.landing = LAND;
    let out = run_command(&f.ws, &f.tasks, &f.config, &args, &ctx)
        .await
        .expect("started");
    let CommandOutcome::Background { task_id, .. } = out else {
        panic!("in the background: {out:?}");
    };
    std::fs::write(f.project.join("build/keep.txt"), "the person's\n").expect("write");
    // While it runs: the build output is in the project, and keeps up with it.
    let came = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            if read(&f, "build/out.txt").as_deref() == Some("3\n") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    assert!(
        came.is_ok(),
        "the output never reached the project: {:?}",
        read(&f, "build/out.txt")
    );
    // Its project file waits for the end, as ever; the person's ignored file stays theirs.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(!read(&f, "calc.py").expect("calc").contains("later"));
    assert_eq!(
        read(&f, "build/keep.txt").as_deref(),
        Some("the person's\n")
    );
    f.tasks.stop(&task_id).expect("stop");
    let ended = tokio::time::timeout(Duration::from_secs(30), async {
        while !read(&f, "calc.py").expect("calc").contains("later") {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(
        ended.is_ok(),
        "its project change landed when it was stopped"
    );
    // Its layer goes once the landing is done, just before the task is marked ended.
    until(
        || f.tasks.list(true).iter().all(|t| !t.state.is_running()),
        "the task ends",
    )
    .await;
    // Its own output landed over the copies; the person's file is a conflict, kept.
    assert_eq!(read(&f, "build/out.txt").as_deref(), Some("3\n"));
    assert_eq!(
        read(&f, "build/keep.txt").as_deref(),
        Some("the person's\n")
    );
    assert!(
        !f.project.join("build/evil").exists(),
        "nobody said yes to it"
    );
    assert!(!Path::new("/tmp/owned").exists());
    assert_no_layer_left(&f);
}

/// Waits (up to 60 s) until `what` holds.
async fn until(what: impl Fn() -> bool, why: &str) {
    let came = tokio::time::timeout(Duration::from_secs(60), async {
        while !what() {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    assert!(came.is_ok(), "{why}");
}

/// Starts `command` in the background over a layer, its changes landed as `landing` says: the
/// task's id.
async fn start_background(
    f: &Fixture,
    command: &str,
    description: Option<&str>,
    landing: Landing,
) -> String {
    let args = RunCommandArgs {
        command: command.into(),
        description: description.map(str::to_string),
        timeout: Some(120),
        background: true,
    };
    let mut ctx = RunContext::new(SANDBOXED);
    ctx.landing = landing;
    let out = run_command(&f.ws, &f.tasks, &f.config, &args, &ctx)
        .await
        .expect("started");
    match out {
        CommandOutcome::Background { task_id, .. } => task_id,
        other => panic!("in the background: {other:?}"),
    }
}

/// How many changes of running task `id` wait in its layer now.
fn changes_so_far(f: &Fixture, id: &str) -> u32 {
    f.tasks
        .list(true)
        .into_iter()
        .find(|t| t.id == id)
        .map_or(0, |t| t.changes_so_far)
}

#[tokio::test]
async fn a_running_commands_changes_are_reviewed_on_request_and_its_end_asks_only_what_changed_after()
 {
    let f = fixture();
    let task_id = start_background(
        &f,
        "echo one-changed > src/a.txt; echo two-changed > src/b.txt; rm docs/guide.md; \
         mkdir -p gen; echo g1 > gen/one.txt; sleep 8; \
         echo later > src/a.txt; echo g2 > gen/two.txt; echo new > src/c.txt; sleep 60",
        Some("dev server"),
        REVIEW,
    )
    .await;
    let so_far = |f: &Fixture| changes_so_far(f, &task_id);
    // The task says what waits while it runs: two files changed, one deleted, a new folder.
    until(|| so_far(&f) == 4, "its changes so far are counted").await;
    let listed = TaskRegistry::render_list(&f.tasks.list(true));
    assert!(
        listed.contains("4 changes so far wait in its layer"),
        "{listed}"
    );

    // The person asks: the changes so far are put to them while it goes on running.
    f.tasks.ask_review(&task_id).expect("it runs over a layer");
    assert_eq!(
        f.tasks.take_asked(),
        vec![(task_id.clone(), "dev server".to_string())]
    );
    let view = f.tasks.layer_view(&task_id).expect("its layer");
    let taken = view.take(None).expect("taken out");
    assert!(
        taken.changes.files.is_empty(),
        "nothing lands unasked in Ask mode: {taken:?}"
    );
    let held = taken.held.take().expect("a review");
    let review = held.review().clone();
    let paths: Vec<&str> = review.files.iter().map(|x| x.path.as_str()).collect();
    assert_eq!(
        paths,
        vec!["docs/guide.md", "gen", "src/a.txt", "src/b.txt"],
        "{review:#?}"
    );
    let mut yes: std::collections::BTreeSet<u32> =
        pieces(&review, "src/a.txt").into_iter().collect();
    yes.extend(pieces(&review, "docs/guide.md"));
    yes.extend(pieces(&review, "gen"));
    let landed = held.land(&yes, None).expect("landed");
    assert_eq!(change(&landed.changes, "src/b.txt").fate, Fate::Rejected);
    assert_eq!(read(&f, "src/a.txt").as_deref(), Some("one-changed\n"));
    assert_eq!(read(&f, "gen/one.txt").as_deref(), Some("g1\n"));
    assert_eq!(read(&f, "docs/guide.md"), None);
    assert_eq!(read(&f, "src/b.txt").as_deref(), Some("two\n"), "rejected");
    assert!(
        f.tasks
            .list(true)
            .iter()
            .any(|t| t.id == task_id && t.state.is_running()),
        "it goes on running"
    );
    // Nothing waits now until it changes more.
    tokio::time::sleep(Duration::from_millis(2100)).await;
    assert_eq!(so_far(&f), 0, "what was answered no longer waits");

    // It changes more; stopped, its end asks only about what changed after the review.
    until(|| so_far(&f) == 3, "its later changes are counted").await;
    f.tasks.stop(&task_id).expect("stop");
    until(
        || f.tasks.held_ids().contains(&task_id),
        "its later changes wait for a review when it ends",
    )
    .await;
    let held = f.tasks.take_held(&task_id).expect("held");
    let review = held.review().clone();
    let paths: Vec<&str> = review.files.iter().map(|x| x.path.as_str()).collect();
    assert_eq!(
        paths,
        vec!["gen/two.txt", "src/c.txt", "src/a.txt"],
        "not b.txt (answered, unchanged), not the deletion; a.txt against what landed: {review:#?}"
    );
    let a = review
        .files
        .iter()
        .find(|x| x.path == "src/a.txt")
        .expect("a");
    assert_eq!(a.original.as_deref(), Some("one-changed\n"));
    let landed = held.land(&held_all(&review), None).expect("landed");
    assert!(
        landed.changes.files.iter().all(|c| c.fate == Fate::Landed),
        "what landed early is the command's own, not a conflict: {:#?}",
        landed.changes
    );
    assert_eq!(read(&f, "src/a.txt").as_deref(), Some("later\n"));
    assert_eq!(read(&f, "src/c.txt").as_deref(), Some("new\n"));
    assert_eq!(read(&f, "gen/two.txt").as_deref(), Some("g2\n"));
    assert_eq!(read(&f, "src/b.txt").as_deref(), Some("two\n"));
    assert_no_layer_left(&f);
}

fn held_all(review: &protocol::ChangeReview) -> std::collections::BTreeSet<u32> {
    (0..review.pieces).collect()
}

/// Changes taken out of a running command and never answered (the review was dropped, a turn
/// stopped) are not lost: they wait again, and its end asks about them.
#[tokio::test]
async fn changes_taken_early_and_never_answered_wait_again_for_the_end() {
    let f = fixture();
    let task_id = start_background(&f, "echo changed > src/a.txt; sleep 60", None, REVIEW).await;
    let so_far = |f: &Fixture| changes_so_far(f, &task_id);
    until(|| so_far(&f) == 1, "its change is counted").await;
    let taken = f
        .tasks
        .layer_view(&task_id)
        .expect("its layer")
        .take(None)
        .expect("taken");
    drop(taken.held.take().expect("a review"));
    tokio::time::sleep(Duration::from_millis(2100)).await;
    assert_eq!(so_far(&f), 1, "the unanswered change waits again");
    f.tasks.stop(&task_id).expect("stop");
    until(
        || f.tasks.held_ids().contains(&task_id),
        "it waits for a review at the end",
    )
    .await;
    let held = f.tasks.take_held(&task_id).expect("held");
    assert_eq!(held.review().files[0].path, "src/a.txt");
    assert_eq!(read(&f, "src/a.txt").as_deref(), Some("one\n"));
}

/// Attack: a running command swaps a folder of its layer for a link to a folder of the
/// person's outside the project (its secret a fake key). Taken out early, the link is a link:
/// nothing of what it names is copied, shown in the review or landed.
#[tokio::test]
async fn a_folder_swapped_for_a_link_to_the_machine_copies_nothing_from_outside() {
    let f = fixture();
    let outside = f.project.parent().expect("base").join("outside-ssh");
    std::fs::create_dir_all(&outside).expect("mkdir");
    std::fs::write(outside.join("id_rsa"), "FAKE-PRIVATE-KEY\n").expect("write");
    let command = format!(
        "mkdir -p keys && echo mine > keys/id_rsa; sleep 2; rm -rf keys; ln -s {} keys; sleep 60",
        outside.display()
    );
    let task_id = start_background(&f, &command, None, REVIEW).await;
    until(
        || {
            f.tasks.layer_view(&task_id).is_some()
                && changes_so_far(&f, &task_id) == 1
                && std::fs::symlink_metadata(
                    std::fs::read_dir(
                        f.config
                            .sandbox
                            .as_ref()
                            .expect("sandbox")
                            .state_dir
                            .join("layers"),
                    )
                    .into_iter()
                    .flatten()
                    .filter_map(Result::ok)
                    .map(|e| e.path().join("upper/keys"))
                    .find(|p| std::fs::symlink_metadata(p).is_ok())
                    .unwrap_or_default(),
                )
                .is_ok_and(|m| m.file_type().is_symlink())
        },
        "the folder became a link",
    )
    .await;
    let taken = f
        .tasks
        .layer_view(&task_id)
        .expect("its layer")
        .take(None)
        .expect("taken");
    let held = taken.held.take().expect("a review");
    let review = format!("{:?}", held.review());
    assert!(!review.contains("FAKE-PRIVATE-KEY"), "{review}");
    let all = held.all();
    held.land(&all, None).expect("landed");
    let landed = std::fs::symlink_metadata(f.project.join("keys")).expect("landed");
    assert!(
        landed.file_type().is_symlink(),
        "a link, as the command made it"
    );
    let mut found = false;
    for e in walk(&f.project) {
        if std::fs::symlink_metadata(&e).is_ok_and(|m| m.is_file())
            && std::fs::read_to_string(&e).is_ok_and(|t| t.contains("FAKE-PRIVATE-KEY"))
        {
            found = true;
        }
    }
    assert!(!found, "the secret's bytes are in the project");
    f.tasks.stop(&task_id).expect("stop");
}

/// Every path below `dir`, links not followed.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
    {
        let p = e.path();
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            out.extend(walk(&p));
        }
        out.push(p);
    }
    out
}
