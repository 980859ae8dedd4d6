//! The agent loop end to end: a scripted model server on 127.0.0.1, a real git repository,
//! real files and processes, and an approver answering as a user would.

use agent::{Agent, AgentConfig, Outcome, SessionHeader, SessionLog, read_session};
use llm::{Provider, ProviderConfig, ProviderKind, RetryPolicy};
use model_server::{Format, Scenario, ScriptedServer};
use policy::{Mode, Policy};
use protocol::{AgentEvent, ApprovalAnswer, ApprovalRequest};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tools::{ProjectRoot, Toolbox};

fn scenario(name: &str) -> Scenario {
    Scenario::load(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/scenarios")
            .join(name),
    )
    .expect("scenario")
}

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path();
    std::fs::write(p.join("greeting.txt"), "hello, world\n").expect("write");
    std::fs::write(p.join(".env"), "SECRET=1\n").expect("write");
    let list: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    std::fs::write(p.join("list.txt"), list).expect("write");
    let repo = git2::Repository::init(p).expect("init");
    let mut index = repo.index().expect("index");
    index
        .add_all(["*"].iter(), git2::IndexAddOption::DEFAULT, None)
        .expect("add");
    index.write().expect("write");
    let tree = repo
        .find_tree(index.write_tree().expect("tree"))
        .expect("tree");
    let sig = git2::Signature::now("T", "t@example.com").expect("sig");
    repo.commit(Some("HEAD"), &sig, &sig, "init", &tree, &[])
        .expect("commit");
    dir
}

struct Run {
    outcome: Outcome,
    events: Vec<AgentEvent>,
    questions: Vec<ApprovalRequest>,
    server: ScriptedServer,
    log: PathBuf,
    _sessions: tempfile::TempDir,
}

/// Runs a scenario with an approver that answers each question with `answer(request)`.
async fn run(
    name: &str,
    project: &Path,
    mode: Mode,
    answer: impl Fn(&ApprovalRequest) -> ApprovalAnswer + Send + 'static,
) -> Run {
    let s = scenario(name);
    let kind = match s.format {
        Format::Anthropic => ProviderKind::Anthropic,
        Format::Openai => ProviderKind::OpenAi,
    };
    let server = ScriptedServer::start(s).await.expect("server");
    let mut pc = ProviderConfig::new(kind, server.base_url(), Some("k".into()));
    pc.retry = RetryPolicy {
        base_delay: Duration::from_millis(5),
        ..RetryPolicy::default()
    };
    let sessions = tempfile::tempdir().expect("tempdir");
    let toolbox = Toolbox::new(
        ProjectRoot::open(project).expect("open"),
        sessions.path().join("s1"),
    );
    let header = SessionHeader {
        id: "s1".into(),
        project: project.display().to_string(),
        task: name.into(),
        model: "m".into(),
        started_ms: 0,
    };
    let log = SessionLog::create(sessions.path(), &header).expect("log");
    let log_path = log.path().to_path_buf();
    let (etx, mut erx) = mpsc::unbounded_channel();
    let (atx, mut arx) = mpsc::channel::<(
        ApprovalRequest,
        tokio::sync::oneshot::Sender<ApprovalAnswer>,
    )>(4);
    let questions = Arc::new(Mutex::new(Vec::new()));
    let q2 = questions.clone();
    tokio::spawn(async move {
        while let Some((req, reply)) = arx.recv().await {
            let a = answer(&req);
            q2.lock().expect("lock").push(req);
            let _ = reply.send(a);
        }
    });
    let mut config = AgentConfig::new("scripted-model");
    config.mode = Some(mode);
    config.session_dir = Some(sessions.path().join("s1"));
    let mut agent = Agent::new(
        Provider::new(pc).expect("provider"),
        toolbox,
        Policy::builtin(),
        config,
        log,
        etx,
        atx,
    );
    let outcome = tokio::time::timeout(
        Duration::from_secs(30),
        agent.run_task(
            "Make the greeting say hello, tandem",
            &CancellationToken::new(),
        ),
    )
    .await
    .expect("no hang")
    .expect("run");
    drop(agent);
    let mut events = Vec::new();
    while let Ok(e) = erx.try_recv() {
        events.push(e);
    }
    let questions = questions.lock().expect("lock").clone();
    Run {
        outcome,
        events,
        questions,
        server,
        log: log_path,
        _sessions: sessions,
    }
}

#[tokio::test]
async fn read_edit_run_and_finish_on_a_real_repository() {
    let project = repo();
    let r = run(
        "agent_read_edit_test_done.json",
        project.path(),
        Mode::Ask,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    assert_eq!(r.server.failures(), Vec::<String>::new());
    assert_eq!(
        r.outcome,
        Outcome::Done {
            summary: "The greeting now says hello, tandem.".into()
        }
    );
    assert_eq!(
        std::fs::read_to_string(project.path().join("greeting.txt")).expect("read"),
        "hello, tandem\n"
    );
    // The review of the session's changes compares with the file before the session.
    let changes =
        agent::session_changes(&r._sessions.path().join("s1"), project.path()).expect("changes");
    let paths: Vec<&str> = changes.iter().map(|c| c.path.as_str()).collect();
    assert!(paths.contains(&"greeting.txt"), "{paths:?}");
    let g = changes
        .iter()
        .find(|c| c.path == "greeting.txt")
        .expect("greeting");
    assert_eq!(g.before.as_deref(), Some("hello, world\n"));
    assert_eq!(g.after.as_deref(), Some("hello, tandem\n"));
    // Ask mode asked for the edit (with the diff) and for the command, not for the read.
    let tools: Vec<&str> = r.questions.iter().map(|q| q.tool.as_str()).collect();
    assert_eq!(tools, ["edit_file", "run_command"]);
    let edit = &r.questions[0];
    assert_eq!(edit.original.as_deref(), Some("hello, world\n"));
    assert_eq!(edit.proposed.as_deref(), Some("hello, tandem\n"));
    assert_eq!(edit.hunks.len(), 1);
    assert_eq!(
        r.questions[1].command.as_deref(),
        Some("grep -c tandem greeting.txt | tee check.log")
    );
    assert_eq!(
        r.questions[1].commands,
        ["grep -c tandem greeting.txt", "tee check.log"]
    );
    assert!(
        r.events
            .iter()
            .any(|e| matches!(e, AgentEvent::Done { .. }))
    );
    // The session log holds the whole story and reads back.
    let read = read_session::<Value>(&r.log).expect("log");
    assert!(read.warnings.is_empty());
    let kinds: Vec<String> = read
        .entries
        .iter()
        .filter_map(|e| {
            e.event
                .get("type")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .collect();
    for k in [
        "user_message",
        "assistant_message",
        "tool_call_proposed",
        "decision",
        "approval_needed",
        "approval_answered",
        "tool_finished",
        "done",
    ] {
        assert!(kinds.iter().any(|x| x == k), "{k} missing from {kinds:?}");
    }
}

#[tokio::test]
async fn a_denied_call_reaches_the_model_and_it_recovers() {
    let project = repo();
    let r = run(
        "agent_denied_then_recovers.json",
        project.path(),
        Mode::FullAuto,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    assert_eq!(r.server.failures(), Vec::<String>::new());
    assert!(matches!(r.outcome, Outcome::Done { .. }));
    assert!(r.questions.is_empty(), "a deny is never put to the user");
}

#[tokio::test]
async fn a_partial_approval_applies_only_the_accepted_hunk() {
    let project = repo();
    let r = run(
        "agent_partial_hunks.json",
        project.path(),
        Mode::Ask,
        |req| {
            assert_eq!(req.hunks.len(), 2, "two separate hunks offered");
            ApprovalAnswer::ApprovePartial {
                accepted_hunks: vec![0],
            }
        },
    )
    .await;
    assert_eq!(r.server.failures(), Vec::<String>::new());
    let text = std::fs::read_to_string(project.path().join("list.txt")).expect("read");
    assert!(
        text.contains("line two\n") && text.contains("line 19\n") && !text.contains("nineteen"),
        "{text}"
    );
}

#[tokio::test]
async fn malformed_arguments_are_explained() {
    let project = repo();
    let r = run(
        "agent_malformed_json.json",
        project.path(),
        Mode::Ask,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    assert_eq!(r.server.failures(), Vec::<String>::new());
    assert!(matches!(r.outcome, Outcome::Done { .. }));
}

#[tokio::test]
async fn the_same_call_three_times_pauses_for_the_user() {
    let project = repo();
    let r = run(
        "agent_loop_detection.json",
        project.path(),
        Mode::Ask,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    assert!(
        matches!(&r.outcome, Outcome::Paused { reason } if reason.contains("3 times")),
        "{:?}",
        r.outcome
    );
    let last = r.events.iter().rev().find_map(|e| match e {
        AgentEvent::ToolFinished {
            output,
            is_error: true,
            ..
        } => Some(output.clone()),
        _ => None,
    });
    assert!(last.is_some_and(|o| o.contains("same arguments 3 times")));
}

#[tokio::test]
async fn a_denial_with_a_message_reaches_the_model_and_nothing_runs() {
    let project = repo();
    let r = run(
        "agent_user_denies_with_message.json",
        project.path(),
        Mode::Ask,
        |_| ApprovalAnswer::Deny {
            message: Some("not on a Friday".into()),
        },
    )
    .await;
    assert_eq!(r.server.failures(), Vec::<String>::new());
    assert_eq!(
        r.outcome,
        Outcome::Ended {
            text: "Understood, I will not deploy.".into()
        }
    );
    assert_eq!(r.questions.len(), 1);
}

/// An agent on `project` that talks to `server` and logs into `sessions/<id>`.
fn agent_for(
    project: &Path,
    sessions: &Path,
    id: &str,
    server: &ScriptedServer,
    kind: ProviderKind,
    config: AgentConfig,
    approvals: agent::ApprovalTx,
) -> Agent {
    let toolbox = Toolbox::new(ProjectRoot::open(project).expect("open"), sessions.join(id));
    let header = SessionHeader {
        id: id.into(),
        project: "p".into(),
        task: "t".into(),
        model: "m".into(),
        started_ms: 0,
    };
    let log = SessionLog::create(sessions, &header).expect("log");
    let (etx, _erx) = mpsc::unbounded_channel();
    let key = (kind == ProviderKind::Anthropic).then(|| "k".to_string());
    let pc = ProviderConfig::new(kind, server.base_url(), key);
    Agent::new(
        Provider::new(pc).expect("provider"),
        toolbox,
        Policy::builtin(),
        config,
        log,
        etx,
        approvals,
    )
}

#[tokio::test]
async fn a_front_end_that_goes_away_cancels_the_pending_call() {
    let project = repo();
    let sessions = tempfile::tempdir().expect("tempdir");
    let server = ScriptedServer::start(scenario("agent_user_denies_with_message.json"))
        .await
        .expect("server");
    let (atx, arx) = mpsc::channel(1);
    drop(arx); // nobody will ever answer
    let mut agent = agent_for(
        project.path(),
        sessions.path(),
        "s",
        &server,
        ProviderKind::OpenAi,
        AgentConfig::new("m"),
        atx,
    );
    let outcome = agent
        .run_task("deploy", &CancellationToken::new())
        .await
        .expect("run");
    assert_eq!(outcome, Outcome::Cancelled);
}

#[tokio::test]
async fn stop_mid_stream_cancels_at_once_and_a_budget_stops_the_task() {
    let project = repo();
    let sessions = tempfile::tempdir().expect("tempdir");
    let slow = Scenario::from_json(r#"{"name": "slow", "format": "anthropic", "turns": [{"reply": {"text": "never seen"}, "delay_ms": 30000}]}"#).expect("json");
    let server = ScriptedServer::start(slow).await.expect("server");
    let (atx, _arx) = mpsc::channel(1);
    let mut agent = agent_for(
        project.path(),
        sessions.path(),
        "slow",
        &server,
        ProviderKind::Anthropic,
        AgentConfig::new("m"),
        atx,
    );
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        c2.cancel();
    });
    let outcome = tokio::time::timeout(Duration::from_secs(10), agent.run_task("t", &cancel))
        .await
        .expect("no hang")
        .expect("run");
    assert_eq!(outcome, Outcome::Cancelled);

    let looping = ScriptedServer::start(scenario("agent_loop_detection.json"))
        .await
        .expect("server");
    let mut config = AgentConfig::new("m");
    config.token_budget = Some(1);
    let (atx, _arx) = mpsc::channel(1);
    let mut agent = agent_for(
        project.path(),
        sessions.path(),
        "budget",
        &looping,
        ProviderKind::Anthropic,
        config,
        atx,
    );
    let outcome = agent
        .run_task("t", &CancellationToken::new())
        .await
        .expect("run");
    assert!(
        matches!(outcome, Outcome::BudgetSpent { .. }),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn nearing_the_context_window_compacts_older_turns_with_the_model() {
    let project = repo();
    let sessions = tempfile::tempdir().expect("tempdir");
    let server = ScriptedServer::start(scenario("agent_compaction.json"))
        .await
        .expect("server");
    let mut config = AgentConfig::new("m");
    // list.txt alone is ~150 characters: a tiny window makes the third turn compact.
    config.context_window = 120;
    let (atx, _arx) = mpsc::channel(1);
    let mut agent = agent_for(
        project.path(),
        sessions.path(),
        "c",
        &server,
        ProviderKind::Anthropic,
        config,
        atx,
    );
    let log_path = agent.log.path().to_path_buf();
    let outcome = agent
        .run_task("Look around", &CancellationToken::new())
        .await
        .expect("run");
    assert_eq!(
        outcome,
        Outcome::Done {
            summary: "Looked around.".into()
        }
    );
    assert_eq!(server.failures(), Vec::<String>::new());
    let read = read_session::<Value>(&log_path).expect("log");
    assert!(
        read.entries.iter().any(|e| e.event["type"] == "compaction"),
        "the compaction is marked in the log"
    );
}

#[tokio::test]
async fn approve_always_keeps_the_rule_in_your_file_for_this_project() {
    let project = repo();
    let sessions = tempfile::tempdir().expect("tempdir");
    let server = ScriptedServer::start(scenario("agent_approve_always.json"))
        .await
        .expect("server");
    let user_file = sessions.path().join("config/tandem/policy.toml");
    let (atx, mut arx) = mpsc::channel::<(
        ApprovalRequest,
        tokio::sync::oneshot::Sender<ApprovalAnswer>,
    )>(4);
    let asked = Arc::new(Mutex::new(Vec::new()));
    let asked2 = asked.clone();
    tokio::spawn(async move {
        while let Some((req, reply)) = arx.recv().await {
            asked2.lock().expect("lock").push(req.suggestions.clone());
            let _ = reply.send(ApprovalAnswer::ApproveAlways { suggestion: 0 });
        }
    });
    let mut config = AgentConfig::new("m");
    config.user_policy_file = Some(user_file.clone());
    let mut agent = agent_for(
        project.path(),
        sessions.path(),
        "a",
        &server,
        ProviderKind::OpenAi,
        config,
        atx,
    );
    let outcome = agent
        .run_task("check make", &CancellationToken::new())
        .await
        .expect("run");
    assert!(matches!(outcome, Outcome::Done { .. }), "{outcome:?}");
    assert_eq!(server.failures(), Vec::<String>::new());
    let asked = asked.lock().expect("lock").clone();
    assert_eq!(
        asked.len(),
        1,
        "asked once, then the kept rule allowed it: {asked:?}"
    );
    assert_eq!(
        asked[0][0].label,
        "Always allow `make --version` in this project"
    );
    assert!(asked[0][0].always, "offered as a rule kept for the project");
    let kept = std::fs::read_to_string(&user_file).expect("the user's file was written");
    assert!(kept.contains("make --version"), "{kept}");
    let root = std::fs::canonicalize(project.path()).expect("canonical");
    let reloaded = Policy::load(
        Some(policy::RuleText {
            path: &user_file,
            text: &kept,
        }),
        None,
        &root,
    )
    .expect("load");
    assert!(
        reloaded
            .describe()
            .contains("commands.allow \"make --version\""),
        "{}",
        reloaded.describe()
    );
}

#[tokio::test]
async fn a_write_with_wrong_arguments_is_sent_back_without_asking_anyone() {
    let project = repo();
    let sessions = tempfile::tempdir().expect("tempdir");
    let s = Scenario::from_json(
        r#"{"name": "bad write", "format": "anthropic", "turns": [
            {"reply": {"tool_calls": [{"id": "w", "name": "write_file", "input": {"path": "new.txt"}}]}},
            {"expect": {"tool_result_contains": "missing field `content`"},
             "reply": {"tool_calls": [{"id": "d", "name": "task_done", "input": {"summary": "gave up"}}]}}
        ]}"#,
    )
    .expect("json");
    let server = ScriptedServer::start(s).await.expect("server");
    let (atx, mut arx) = mpsc::channel::<(
        ApprovalRequest,
        tokio::sync::oneshot::Sender<ApprovalAnswer>,
    )>(1);
    let asked = Arc::new(Mutex::new(0));
    let asked2 = asked.clone();
    tokio::spawn(async move {
        while let Some((_, reply)) = arx.recv().await {
            *asked2.lock().expect("lock") += 1;
            let _ = reply.send(ApprovalAnswer::Approve);
        }
    });
    let mut agent = agent_for(
        project.path(),
        sessions.path(),
        "w",
        &server,
        ProviderKind::Anthropic,
        AgentConfig::new("m"),
        atx,
    );
    let outcome = agent
        .run_task("write", &CancellationToken::new())
        .await
        .expect("run");
    assert!(matches!(outcome, Outcome::Done { .. }), "{outcome:?}");
    assert_eq!(server.failures(), Vec::<String>::new());
    assert_eq!(
        *asked.lock().expect("lock"),
        0,
        "an invalid call is never put to the user"
    );
    assert!(!project.path().join("new.txt").exists());
}
