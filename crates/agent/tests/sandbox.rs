//! The agent loop with the OS sandbox, end to end: a scripted model in full_auto tries to get
//! out with harmless payloads, does ordinary work, and meets a machine without a sandbox.

use agent_harness as harness;

use agent::Sandboxing;
use harness::{Harness, Setup, scenario_with};
use policy::Mode;
use protocol::{
    AgentEvent, ApprovalAnswer, ApprovalRequest, Confinement, OutsideReason, TurnOutcome,
};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::Command;
use test_support::git;
use tools::SandboxSetup;

struct Fixture {
    _root: tempfile::TempDir,
    outside: PathBuf,
    home: PathBuf,
    project: PathBuf,
    session: PathBuf,
}

/// Under the build's temporary folder rather than /tmp, as a real project is: the sandbox
/// then gives commands a private /tmp.
fn fixture() -> Fixture {
    let root = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
    let base = root.path().canonicalize().expect("canonical");
    let (outside, home, project, session) = (
        base.join("outside"),
        base.join("home"),
        base.join("project"),
        base.join("session"),
    );
    for d in [&outside, &home.join(".ssh"), &project, &session] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    std::fs::write(home.join(".ssh/id_rsa"), "PRIVATE-KEY-MATERIAL").expect("write");
    std::fs::write(home.join(".bashrc"), "# rc\n").expect("write");
    std::fs::write(project.join("notes.txt"), "alpha\nbeta\n").expect("write");
    std::fs::write(
        project.join("test.sh"),
        "grep -q beta notes.txt && echo 'tests passed'\n",
    )
    .expect("write");
    git(&project, &["init", "-q"]);
    git(&project, &["config", "user.email", "t@example.com"]);
    git(&project, &["config", "user.name", "Test"]);
    git(&project, &["add", "."]);
    git(&project, &["commit", "-q", "-m", "init"]);
    Fixture {
        _root: root,
        outside,
        home,
        project,
        session,
    }
}

async fn run(
    f: &Fixture,
    scenario: &str,
    vars: &[(&str, String)],
    sandboxed: bool,
    answer: impl Fn(&ApprovalRequest) -> ApprovalAnswer + Send + Sync + 'static,
) -> (Harness, TurnOutcome) {
    run_with(f, scenario, vars, sandboxed, false, answer).await
}

async fn run_with(
    f: &Fixture,
    scenario: &str,
    vars: &[(&str, String)],
    sandboxed: bool,
    layers: bool,
    answer: impl Fn(&ApprovalRequest) -> ApprovalAnswer + Send + Sync + 'static,
) -> (Harness, TurnOutcome) {
    run_in(
        f,
        scenario,
        vars,
        (sandboxed, layers),
        (Mode::FullAuto, false),
        answer,
    )
    .await
}

/// A session over the fixture: sandboxed (with layers or not), in `mode` (asking before
/// every command or not), answering questions with `answer`; its first turn run.
async fn run_in(
    f: &Fixture,
    scenario: &str,
    vars: &[(&str, String)],
    sandboxing: (bool, bool),
    asking: (Mode, bool),
    answer: impl Fn(&ApprovalRequest) -> ApprovalAnswer + Send + Sync + 'static,
) -> (Harness, TurnOutcome) {
    let h = start_in(f, scenario, vars, sandboxing, asking, answer).await;
    let outcome = h.run("work").await;
    (h, outcome)
}

/// The session of [`run_in`], before its first turn.
async fn start_in(
    f: &Fixture,
    scenario: &str,
    vars: &[(&str, String)],
    (sandboxed, layers): (bool, bool),
    (mode, ask_first): (Mode, bool),
    answer: impl Fn(&ApprovalRequest) -> ApprovalAnswer + Send + Sync + 'static,
) -> Harness {
    let sandboxing = if sandboxed {
        let helper = sandbox::find_helper().expect("the helper is built (cargo build -p sandbox)");
        Sandboxing::With(
            SandboxSetup::new(helper, f.session.join("sandbox"), policy::is_secret)
                .hiding(vec![f.home.join(".ssh")])
                .with_home(f.home.clone(), Vec::new())
                .with_layers(layers),
        )
    } else {
        Sandboxing::Off
    };
    let (tmp, home) = (f.session.join("tmp"), f.home.clone());
    let setup = Setup::new(mode).with_options(move |o| {
        o.tmp_dir = Some(tmp);
        o.config.home = Some(home);
        o.config.ask_before_commands = ask_first;
        o.sandboxing = sandboxing;
    });
    Harness::start(scenario_with(scenario, vars), &f.project, setup, answer).await
}

fn outputs(events: &[AgentEvent]) -> Vec<(String, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolFinished { id, output, .. } => Some((id.clone(), output.clone())),
            _ => None,
        })
        .collect()
}

fn leaves_sandbox(r: &ApprovalRequest) -> bool {
    matches!(r.run.confinement, Some(Confinement::Outside { .. }))
}

#[tokio::test]
async fn escape_attempts_in_full_auto_change_nothing_outside_the_project() {
    let f = fixture();
    let listener = TcpListener::bind("127.0.0.1:0").expect("listen");
    listener.set_nonblocking(true).expect("nonblocking");
    let port = listener.local_addr().expect("addr").port().to_string();
    let vars = [
        ("@OUTSIDE@", f.outside.display().to_string()),
        ("@HOME@", f.home.display().to_string()),
        ("@PORT@", port),
    ];
    // A user who approves whatever the policy asks about, as long as it stays in the sandbox.
    let (r, outcome) = run(&f, "agent_sandbox_escapes.json", &vars, true, |req| {
        if leaves_sandbox(req) {
            ApprovalAnswer::Deny { message: None }
        } else {
            ApprovalAnswer::Approve
        }
    })
    .await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    let made: Vec<_> = std::fs::read_dir(&f.outside)
        .expect("read")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(made.is_empty(), "created outside the project: {made:?}");
    assert_eq!(
        std::fs::read_to_string(f.home.join(".bashrc")).expect("rc"),
        "# rc\n"
    );
    assert!(!f.project.join(".git/hooks/pre-commit").exists());
    assert!(listener.accept().is_err(), "a connection reached the host");
    for (id, out) in outputs(&r.events()) {
        assert!(!out.contains("PRIVATE-KEY-MATERIAL"), "{id}: {out}");
        assert!(!out.contains("CONNECTED"), "{id}: {out}");
    }
    // Every command that ran, ran in the sandbox.
    for e in &r.events() {
        if let AgentEvent::ToolFinished {
            name,
            confinement: Some(c),
            ..
        } = e
        {
            assert_eq!(name, "run_command");
            assert!(c.is_sandboxed(), "{c:?}");
        }
    }
}

#[tokio::test]
async fn ordinary_work_runs_in_full_auto_without_a_question() {
    let f = fixture();
    let (r, outcome) = run(&f, "agent_sandbox_ordinary_work.json", &[], true, |_| {
        ApprovalAnswer::Deny {
            message: Some("no questions expected".into()),
        }
    })
    .await;
    assert!(
        r.questions().is_empty(),
        "asked: {:?}",
        r.questions()
            .iter()
            .map(|q| q.asked.reason.clone())
            .collect::<Vec<_>>()
    );
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    assert_eq!(
        std::fs::read_to_string(f.project.join("notes.txt")).expect("notes"),
        "gamma\nbeta\n"
    );
    assert!(f.project.join("build/out.txt").exists());
    let log = Command::new("git")
        .args(["log", "--oneline"])
        .current_dir(&f.project)
        .output()
        .expect("git log");
    assert!(String::from_utf8_lossy(&log.stdout).contains("Use gamma"));
}

#[tokio::test]
async fn without_a_sandbox_full_auto_asks_before_commands() {
    let f = fixture();
    let (r, _) = run(&f, "agent_sandbox_fallback.json", &[], false, |_| {
        ApprovalAnswer::Deny { message: None }
    })
    .await;
    let questions = r.questions();
    assert_eq!(questions.len(), 1, "{questions:?}");
    assert_eq!(
        questions[0].run.confinement,
        Some(Confinement::Outside {
            reason: OutsideReason::Unavailable
        })
    );
    assert!(!f.project.join("build").exists());
}

#[tokio::test]
async fn a_command_the_sandbox_stops_can_run_once_outside_with_approval() {
    // Approved: it runs again outside the sandbox and does what it said.
    let f = fixture();
    let vars = [
        ("@OUTSIDE@", f.outside.display().to_string()),
        (
            "@EXPECT@",
            "approved running it once outside the sandbox".into(),
        ),
    ];
    let (r, _) = run(&f, "agent_sandbox_escalation.json", &vars, true, |_| {
        ApprovalAnswer::Approve
    })
    .await;
    let questions = r.questions();
    let escalation = questions
        .iter()
        .find(|q| q.run.sandbox_denial.is_some())
        .expect("the user was asked to leave the sandbox");
    assert!(
        escalation.asked.suggestions.is_empty(),
        "never offered as a rule"
    );
    assert!(f.outside.join("marker").exists());

    // Declined: nothing outside, and the model is told.
    let f = fixture();
    let vars = [
        ("@OUTSIDE@", f.outside.display().to_string()),
        ("@EXPECT@", "chose not to run it outside the sandbox".into()),
    ];
    let (_harness, _) = run(&f, "agent_sandbox_escalation.json", &vars, true, |req| {
        if req.run.sandbox_denial.is_some() {
            ApprovalAnswer::Deny { message: None }
        } else {
            ApprovalAnswer::Approve
        }
    })
    .await;
    assert!(!f.outside.join("marker").exists());
}

#[tokio::test]
async fn a_commands_changes_land_from_its_layer_and_are_the_sessions_changes() {
    let f = fixture();
    // The fixture's files are older than the command (a file changed just before a command
    // counts as changed while it ran).
    std::thread::sleep(std::time::Duration::from_millis(100));
    let (h, outcome) = run_with(
        &f,
        "agent_command_changes_land.json",
        &[],
        true,
        true,
        |_| ApprovalAnswer::Deny {
            message: Some("not the editor's tasks".into()),
        },
    )
    .await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    assert_eq!(
        std::fs::read_to_string(f.project.join("notes.txt")).expect("notes"),
        "gamma\nbeta\n"
    );
    assert!(!f.project.join("test.sh").exists());
    assert!(
        !f.project.join(".vscode").exists(),
        "a file VS Code runs does not land unasked"
    );
    let result = outputs(&h.events())
        .into_iter()
        .find(|(id, _)| id.ends_with("c1"))
        .map(|(_, out)| out)
        .expect("the command's result");
    assert!(result.contains("notes.txt changed (+1 −1)"), "{result}");
    assert!(
        result.contains("rejected them, so the project keeps what it had there: .vscode created"),
        "{result}"
    );
    assert!(result.contains("not the editor's tasks"), "{result}");
    // Full auto lands the project's files; the file VS Code would run is asked, saying why.
    let questions = h.questions();
    assert_eq!(questions.len(), 1, "{questions:#?}");
    let review = questions[0]
        .review
        .as_deref()
        .expect("a review of its changes");
    assert_eq!(review.files.len(), 1, "{review:#?}");
    assert_eq!(review.files[0].path, ".vscode");
    assert!(
        questions[0]
            .asked
            .reason
            .contains("VS Code runs what it names"),
        "{}",
        questions[0].asked.reason
    );

    // The Changes panel and the export see them as they see an edit.
    let dir = h.sessions_dir.join(h.session.id());
    let changes = agent::session_changes(&dir, &f.project).expect("changes");
    let find = |p: &str| {
        changes
            .iter()
            .find(|c| c.path == p)
            .unwrap_or_else(|| panic!("{p} among the session's changes: {changes:?}"))
    };
    assert_eq!(find("notes.txt").before.as_deref(), Some("alpha\nbeta\n"));
    assert_eq!(find("report.txt").before, None);
    assert_eq!(find("test.sh").after, None);
    let log = h.sessions_dir.join(format!("{}.jsonl", h.session.id()));
    let md = agent::export_session(&log, agent::ExportFormat::Markdown).expect("export");
    let files = md.split("Files changed").nth(1).unwrap_or_default();
    for p in ["notes.txt", "report.txt", "test.sh"] {
        assert!(
            files.contains(p),
            "{p} in the export's files changed:\n{md}"
        );
    }
}

#[tokio::test]
async fn the_persons_edit_while_a_command_runs_is_merged_with_its_change() {
    let f = fixture();
    std::fs::write(f.project.join("notes.txt"), "alpha\nbeta\n\n\n\nend\n").expect("write");
    git(&f.project, &["commit", "-qam", "longer notes"]);
    std::thread::sleep(std::time::Duration::from_millis(100));
    let notes = f.project.join("notes.txt");
    // The person adds a line at the end while the command sleeps: once its `sleep` runs (a
    // fixed delay from the start came before the command on a busy machine, and then nothing
    // was left to merge).
    let person = std::thread::spawn(move || {
        let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while test_support::procs::sleeping("2.137") == 0 && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
        std::fs::write(&notes, "alpha\nbeta\n\n\n\nend\nmine\n").expect("write");
    });
    let (h, outcome) = run_with(
        &f,
        "agent_command_merges_the_persons_edit.json",
        &[],
        true,
        true,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    person.join().expect("person");
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    assert_eq!(
        std::fs::read_to_string(f.project.join("notes.txt")).expect("notes"),
        "gamma\nbeta\n\n\n\nend\nmine\n"
    );
    assert_eq!(h.server.failures(), Vec::<String>::new());
}

/// The person of the review tests: keeps the change to notes.txt and not the report, runs
/// commands asked about before they run, except a recursive delete.
fn keep_notes_only(req: &ApprovalRequest) -> ApprovalAnswer {
    match &req.review {
        Some(review) => ApprovalAnswer::ApprovePartial {
            accepted_hunks: review
                .files
                .iter()
                .filter(|x| x.path == "notes.txt")
                .flat_map(|x| x.hunks.iter().map(|h| h.index))
                .collect(),
        },
        None if req.run.command.as_deref() == Some("rm -rf docs") => {
            ApprovalAnswer::Deny { message: None }
        }
        None => ApprovalAnswer::Approve,
    }
}

fn with_docs() -> Fixture {
    let f = fixture();
    std::fs::create_dir_all(f.project.join("docs")).expect("mkdir");
    std::fs::write(f.project.join("docs/guide.md"), "# Guide\n").expect("write");
    std::thread::sleep(std::time::Duration::from_millis(100));
    f
}

#[tokio::test]
async fn in_ask_mode_a_command_runs_unasked_and_its_changes_are_reviewed_before_they_land() {
    let f = with_docs();
    let (h, outcome) = run_in(
        &f,
        "agent_command_reviewed.json",
        &[],
        (true, true),
        (Mode::Ask, false),
        keep_notes_only,
    )
    .await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    let questions = h.questions();
    assert_eq!(questions.len(), 2, "{questions:#?}");
    // No question before the first command: its changes are the question, with their diff.
    let review = questions[0]
        .review
        .as_deref()
        .expect("the first question is a review");
    let paths: Vec<&str> = review.files.iter().map(|x| x.path.as_str()).collect();
    assert_eq!(paths, ["report.txt", "notes.txt"], "{review:#?}");
    assert_eq!(review.files[1].original.as_deref(), Some("alpha\nbeta\n"));
    assert_eq!(review.files[1].proposed.as_deref(), Some("gamma\nbeta\n"));
    // A recursive delete still asks before it runs.
    assert!(questions[1].review.is_none(), "{:#?}", questions[1]);
    assert_eq!(questions[1].run.command.as_deref(), Some("rm -rf docs"));
    assert_eq!(
        std::fs::read_to_string(f.project.join("notes.txt")).expect("notes"),
        "gamma\nbeta\n"
    );
    assert!(!f.project.join("report.txt").exists(), "rejected");
    assert!(f.project.join("docs/guide.md").exists(), "denied");
    let dir = h.sessions_dir.join(h.session.id());
    let changes = agent::session_changes(&dir, &f.project).expect("changes");
    assert_eq!(
        changes.iter().map(|c| c.path.as_str()).collect::<Vec<_>>(),
        ["notes.txt"],
        "what landed is the session's change: {changes:?}"
    );
}

#[tokio::test]
async fn without_layers_a_commands_changes_are_found_afterwards_and_a_rejected_one_is_put_back() {
    let f = with_docs();
    // The machine (or the project's file system) has no overlays: the command runs as before
    // layers, asked first in Ask mode, and what it changed is found and reviewed afterwards.
    let (h, outcome) = run_in(
        &f,
        "agent_command_reviewed.json",
        &[],
        (true, false),
        (Mode::Ask, false),
        keep_notes_only,
    )
    .await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    let questions = h.questions();
    assert_eq!(questions.len(), 3, "{questions:#?}");
    assert!(questions[0].review.is_none(), "{:#?}", questions[0]);
    let review = questions[1]
        .review
        .as_deref()
        .expect("the changes it made are reviewed");
    let paths: Vec<&str> = review.files.iter().map(|x| x.path.as_str()).collect();
    assert_eq!(paths, ["report.txt", "notes.txt"], "{review:#?}");
    assert_eq!(review.files[1].original.as_deref(), Some("alpha\nbeta\n"));
    assert_eq!(review.files[1].proposed.as_deref(), Some("gamma\nbeta\n"));
    assert_eq!(
        std::fs::read_to_string(f.project.join("notes.txt")).expect("notes"),
        "gamma\nbeta\n"
    );
    assert!(
        !f.project.join("report.txt").exists(),
        "rejected, so put back"
    );
    assert!(f.project.join("docs/guide.md").exists(), "denied");
    let dir = h.sessions_dir.join(h.session.id());
    let changes = agent::session_changes(&dir, &f.project).expect("changes");
    assert_eq!(
        changes.iter().map(|c| c.path.as_str()).collect::<Vec<_>>(),
        ["notes.txt"],
        "what was kept is the session's change: {changes:?}"
    );
    assert_eq!(h.server.failures(), Vec::<String>::new());
}

#[tokio::test]
async fn without_layers_full_auto_shows_what_a_command_changed_on_its_card() {
    let f = with_docs();
    let (h, outcome) = run_in(
        &f,
        "agent_command_changes_land.json",
        &[],
        (true, false),
        (Mode::FullAuto, false),
        |_| ApprovalAnswer::Deny {
            message: Some("not the editor's tasks".into()),
        },
    )
    .await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    let result = outputs(&h.events())
        .into_iter()
        .find(|(id, _)| id.ends_with("c1"))
        .map(|(_, out)| out)
        .expect("the command's result");
    assert!(result.contains("notes.txt changed (+1 −1)"), "{result}");
    assert!(result.contains("report.txt created"), "{result}");
    assert!(result.contains("test.sh deleted"), "{result}");
    // The file VS Code would run is asked about, and put back (removed) on a no.
    let questions = h.questions();
    assert_eq!(questions.len(), 1, "{questions:#?}");
    let review = questions[0].review.as_deref().expect("a review");
    assert_eq!(review.files.len(), 1, "{review:#?}");
    assert_eq!(review.files[0].path, ".vscode/tasks.json");
    assert!(
        !f.project.join(".vscode/tasks.json").exists(),
        "a file VS Code runs is asked about and put back"
    );
    assert_eq!(h.server.failures(), Vec::<String>::new());
}

#[tokio::test]
async fn asked_before_every_command_the_question_comes_first_and_the_changes_are_still_reviewed() {
    let f = with_docs();
    let (h, outcome) = run_in(
        &f,
        "agent_command_reviewed.json",
        &[],
        (true, true),
        (Mode::Ask, true),
        keep_notes_only,
    )
    .await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    let questions = h.questions();
    assert_eq!(questions.len(), 3, "{questions:#?}");
    assert!(questions[0].review.is_none(), "{:#?}", questions[0]);
    assert!(questions[1].review.is_some(), "{:#?}", questions[1]);
    assert!(!f.project.join("report.txt").exists(), "rejected");
}

#[tokio::test]
async fn a_background_commands_changes_wait_for_review_when_it_ends() {
    let f = with_docs();
    let (h, outcome) = run_in(
        &f,
        "agent_background_changes_reviewed.json",
        &[],
        (true, true),
        (Mode::Ask, false),
        keep_notes_only,
    )
    .await;
    assert_eq!(outcome, TurnOutcome::Ended);
    h.until("the woken agent finishes", |events| {
        events.iter().any(|e| matches!(e, AgentEvent::Done { .. }))
    })
    .await;
    let questions = h.questions();
    // Asked before it ran (a background command has nobody waiting on its end), then its
    // changes when it ended.
    assert_eq!(questions.len(), 2, "{questions:#?}");
    assert!(questions[0].review.is_none());
    let review = questions[1].review.as_deref().expect("its changes");
    assert_eq!(
        review
            .files
            .iter()
            .map(|x| x.path.as_str())
            .collect::<Vec<_>>(),
        ["report.txt", "notes.txt"]
    );
    assert_eq!(
        std::fs::read_to_string(f.project.join("notes.txt")).expect("notes"),
        "gamma\nbeta\n"
    );
    assert!(!f.project.join("report.txt").exists());
    let dir = h.sessions_dir.join(h.session.id());
    let changes = agent::session_changes(&dir, &f.project).expect("changes");
    assert_eq!(
        changes.iter().map(|c| c.path.as_str()).collect::<Vec<_>>(),
        ["notes.txt"]
    );
}

#[tokio::test]
async fn the_setting_changed_in_an_open_session_holds_from_its_next_command() {
    let f = with_docs();
    let h = start_in(
        &f,
        "agent_command_reviewed.json",
        &[],
        (true, true),
        (Mode::Ask, false),
        keep_notes_only,
    )
    .await;
    // The person turns on "ask before every command" in Settings while the session is open.
    h.session.set_ask_before_commands(true);
    let outcome = h.run("work").await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    let questions = h.questions();
    assert!(
        questions[0].review.is_none(),
        "asked first: {:#?}",
        questions[0]
    );
    assert!(questions[1].review.is_some(), "{:#?}", questions[1]);
}

/// The policy names only the first reason it asks: a write before `git reset --hard` is asked
/// about by Ask mode's own rule first. The reset still asks before it runs.
#[tokio::test]
async fn a_dangerous_pattern_after_a_write_still_asks_before_it_runs() {
    let f = with_docs();
    let (h, outcome) = run_in(
        &f,
        "agent_command_dangerous_after_a_write.json",
        &[],
        (true, true),
        (Mode::Ask, false),
        |_| ApprovalAnswer::Deny { message: None },
    )
    .await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    let questions = h.questions();
    assert_eq!(questions.len(), 1, "{questions:#?}");
    assert!(
        questions[0].review.is_none(),
        "asked before it ran: {:#?}",
        questions[0]
    );
    assert!(!f.project.join("a.txt").exists());
}

#[tokio::test]
async fn a_running_background_commands_changes_are_reviewed_when_the_person_asks() {
    let f = with_docs();
    let (h, outcome) = run_in(
        &f,
        "agent_background_changes_reviewed_on_request.json",
        &[],
        (true, true),
        (Mode::Ask, false),
        keep_notes_only,
    )
    .await;
    assert_eq!(outcome, TurnOutcome::Ended);
    let so_far = || {
        h.session
            .tasks(true)
            .into_iter()
            .find(|t| t.id == "task-1")
            .map(|t| (t.state.is_running(), t.changes_so_far))
    };
    let counted = tokio::time::timeout(std::time::Duration::from_secs(60), async {
        while so_far() != Some((true, 2)) {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    })
    .await;
    assert!(
        counted.is_ok(),
        "its two changes are counted: {:?}",
        so_far()
    );
    h.session.review_task("task-1").expect("asked");
    h.until("the woken agent answers", |events| {
        events.iter().any(|e| {
            matches!(e, AgentEvent::AssistantMessage { message } if message.text().contains("Noted"))
        })
    })
    .await;
    let questions = h.questions();
    assert_eq!(questions.len(), 2, "{questions:#?}");
    let review = questions[1].review.as_deref().expect("its changes so far");
    assert!(
        questions[1].asked.reason.contains("still runs"),
        "{}",
        questions[1].asked.reason
    );
    assert_eq!(
        review
            .files
            .iter()
            .map(|x| x.path.as_str())
            .collect::<Vec<_>>(),
        ["report.txt", "notes.txt"]
    );
    // What the person kept is in the project while the command still runs.
    assert_eq!(so_far().map(|s| s.0), Some(true), "it goes on running");
    assert_eq!(
        std::fs::read_to_string(f.project.join("notes.txt")).expect("notes"),
        "gamma\nbeta\n"
    );
    assert!(!f.project.join("report.txt").exists());
    // Stopped, it asks nothing more: what it changed was answered.
    h.session.stop_task("task-1").expect("stop");
    let ended = tokio::time::timeout(std::time::Duration::from_secs(30), async {
        while so_far().is_some_and(|s| s.0) {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(ended.is_ok(), "it stopped");
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(h.questions().len(), 2, "nothing more to review");
    assert!(!f.project.join("report.txt").exists());
    let dir = h.sessions_dir.join(h.session.id());
    let changes = agent::session_changes(&dir, &f.project).expect("changes");
    assert_eq!(
        changes.iter().map(|c| c.path.as_str()).collect::<Vec<_>>(),
        ["notes.txt"]
    );
}

/// Issue 45: the session's private /tmp is on the machine's disk, outside the session's files.
/// It goes with the session (the app also removes its live sessions' as it quits, and sweeps
/// what a killed process left: `config::machine_sandbox::sweep_private_tmps`).
#[tokio::test]
async fn the_private_tmp_goes_when_the_session_ends() {
    let f = fixture();
    let helper = sandbox::find_helper().expect("the helper is built (cargo build -p sandbox)");
    let setup_dir = f.session.join("sandbox");
    let home = f.home.clone();
    let sandbox = SandboxSetup::new(helper, setup_dir, policy::is_secret)
        .hiding(vec![f.home.join(".ssh")])
        .with_home(f.home.clone(), Vec::new())
        .with_layers(true);
    let setup = Setup::new(Mode::FullAuto).with_options(move |o| {
        o.config.home = Some(home);
        o.sandboxing = Sandboxing::With(sandbox);
    });
    let h = Harness::start(
        scenario_with("agent_private_tmp_removed.json", &[]),
        &f.project,
        setup,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let outcome = h.run("work").await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    assert_eq!(h.server.failures(), Vec::<String>::new());
    let tmp = h.session.private_tmp().expect("a private /tmp of its own");
    assert!(tmp.is_dir(), "{} was made for the command", tmp.display());
    drop(h);
    let gone = test_support::wait_until(
        "the private /tmp to be removed",
        std::time::Duration::from_secs(10),
        || std::future::ready(!tmp.exists()),
    )
    .await;
    assert!(gone.is_ok(), "{} is still there", tmp.display());
}
