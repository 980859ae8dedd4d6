//! The agent end to end through the session the engine owns: a scripted model server on
//! 127.0.0.1, a real git repository, real files and processes, and a front end answering as a
//! user would.

use agent_harness as harness;

use agent::{AgentConfig, Sandboxing, Session, SessionOptions, read_session};
use harness::{Harness, Setup, scenario};
use model_server::Scenario;
use policy::{Mode, Policy};
use protocol::{AgentEvent, ApprovalAnswer, DoneWarning, ToolOutcome, ToolSummary, TurnOutcome};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

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

/// Runs a scenario file to the end of its first turn.
async fn run(
    name: &str,
    project: &Path,
    mode: Mode,
    answer: impl Fn(&protocol::ApprovalRequest) -> ApprovalAnswer + Send + Sync + 'static,
) -> (Harness, TurnOutcome) {
    let h = Harness::start(scenario(name), project, Setup::new(mode), answer).await;
    let outcome = h.run("Make the greeting say hello, tandem").await;
    (h, outcome)
}
#[tokio::test]
async fn read_edit_run_and_finish_on_a_real_repository() {
    let project = repo();
    let (h, outcome) = run(
        "agent_read_edit_test_done.json",
        project.path(),
        Mode::Ask,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    assert_eq!(
        outcome,
        TurnOutcome::Done {
            summary: "The greeting now says hello, tandem.".into()
        }
    );
    assert_eq!(
        std::fs::read_to_string(project.path().join("greeting.txt")).expect("read"),
        "hello, tandem\n"
    );
    // The review of the session's changes compares with the file before the session.
    let changes = agent::session_changes(&h.sessions_dir.join(h.session.id()), project.path())
        .expect("changes");
    let paths: Vec<&str> = changes.iter().map(|c| c.path.as_str()).collect();
    assert!(paths.contains(&"greeting.txt"), "{paths:?}");
    let g = changes
        .iter()
        .find(|c| c.path == "greeting.txt")
        .expect("greeting");
    assert_eq!(g.before.as_deref(), Some("hello, world\n"));
    assert_eq!(g.after.as_deref(), Some("hello, tandem\n"));
    // Ask mode asked for the edit (with the diff) and for the command, not for the read; and
    // what the command wrote (it ran without a layer) was reviewed after it ran.
    let questions = h.questions();
    let tools: Vec<&str> = questions.iter().map(|q| q.tool.as_str()).collect();
    assert_eq!(tools, ["edit_file", "run_command", "run_command"]);
    let review = questions[2]
        .review
        .as_deref()
        .expect("a review of its changes");
    assert_eq!(
        review
            .files
            .iter()
            .map(|f| f.path.as_str())
            .collect::<Vec<_>>(),
        ["check.log"]
    );
    let edit = &questions[0];
    assert_eq!(edit.change.original.as_deref(), Some("hello, world\n"));
    assert_eq!(edit.change.proposed.as_deref(), Some("hello, tandem\n"));
    assert_eq!(edit.change.hunks.len(), 1);
    assert_eq!(
        questions[1].run.command.as_deref(),
        Some("grep -c tandem greeting.txt | tee check.log")
    );
    assert_eq!(
        questions[1].run.commands,
        ["grep -c tandem greeting.txt", "tee check.log"]
    );
    assert!(
        h.events()
            .iter()
            .any(|e| matches!(e, AgentEvent::Done { .. }))
    );
    // While the model wrote its edit, the window heard which call and how far it had got.
    assert!(
        h.events().iter().any(|e| matches!(
            e,
            AgentEvent::ToolCallWriting { name, chars, .. } if name == "edit_file" && *chars > 0
        )),
        "{:?}",
        h.events()
    );
    // The session log holds the whole story and reads back.
    let read = read_session::<Value>(&h.log_path()).expect("log");
    assert!(read.warnings.is_empty());
    assert!(
        !read
            .entries
            .iter()
            .any(|e| e.event.get("type").and_then(Value::as_str) == Some("tool_call_writing")),
        "a call's progress is not logged"
    );
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
    let (h, outcome) = run(
        "agent_denied_then_recovers.json",
        project.path(),
        Mode::FullAuto,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }));
    assert!(h.questions().is_empty(), "a deny is never put to the user");
}

#[tokio::test]
async fn a_partial_approval_applies_only_the_accepted_hunk() {
    let project = repo();
    let (_harness, _outcome) = run(
        "agent_partial_hunks.json",
        project.path(),
        Mode::Ask,
        |req| {
            assert_eq!(req.change.hunks.len(), 2, "two separate hunks offered");
            ApprovalAnswer::ApprovePartial {
                accepted_hunks: vec![0],
            }
        },
    )
    .await;
    let text = std::fs::read_to_string(project.path().join("list.txt")).expect("read");
    assert!(
        text.contains("line two\n") && text.contains("line 19\n") && !text.contains("nineteen"),
        "{text}"
    );
}

/// Two edits three lines apart used to be one hunk, so one could not be kept without the
/// other: each edit is now its own change.
#[tokio::test]
async fn edits_three_lines_apart_are_kept_or_rejected_apart() {
    let project = repo();
    let (h, outcome) = run("agent_near_edits.json", project.path(), Mode::Ask, |req| {
        assert_eq!(
            req.change.hunks.len(),
            2,
            "one change per edit: {:#?}",
            req.change.hunks
        );
        assert!(req.change.hunks[0].text.contains("+line five\n"));
        assert!(req.change.hunks[1].text.contains("+line nine\n"));
        ApprovalAnswer::ApprovePartial {
            accepted_hunks: vec![1],
        }
    })
    .await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    let expected: String = (1..=20)
        .map(|i| match i {
            9 => "line nine\n".to_string(),
            _ => format!("line {i}\n"),
        })
        .collect();
    assert_eq!(
        std::fs::read_to_string(project.path().join("list.txt")).expect("read"),
        expected,
        "the file holds exactly the kept edit"
    );
    // It claimed list.txt, which did change — in part: the end says which part (issue 46),
    // and the model is not sent back for it (it heard what was kept when it happened).
    let done = h.events().into_iter().find_map(|e| match e {
        AgentEvent::Done { warnings, .. } => Some(warnings),
        _ => None,
    });
    assert_eq!(
        done,
        Some(vec![DoneWarning::EditPartlyKept {
            path: "list.txt".into(),
            kept: 1,
            total: 2
        }])
    );
}

/// "Edited greeting.txt; the tests pass" after the user rejected the edit and the tests
/// failed, listing a file nothing touched: the engine says so, typed, with the task_done.
#[tokio::test]
async fn a_task_done_that_contradicts_what_happened_carries_warnings() {
    let project = repo();
    std::fs::write(
        project.path().join("test_greeting.py"),
        "import unittest\n\n\nclass Greeting(unittest.TestCase):\n    def test_says_tandem(self):\n        with open('greeting.txt') as f:\n            self.assertIn('tandem', f.read())\n",
    )
    .expect("write");
    std::fs::write(project.path().join("notes.txt"), "notes\n").expect("write");
    // Files older than the session were not changed by it; the clock must move on first.
    tokio::time::sleep(Duration::from_millis(20)).await;
    let (h, outcome) = run(
        "agent_done_contradicted.json",
        project.path(),
        Mode::Ask,
        |req| {
            if req.tool == "edit_file" {
                ApprovalAnswer::Deny { message: None }
            } else {
                ApprovalAnswer::Approve
            }
        },
    )
    .await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    let events = h.events();
    // The failed command: its outcome and exit code travel typed.
    let command = events.iter().find_map(|e| match e {
        AgentEvent::ToolFinished {
            name,
            outcome,
            exit_code,
            ..
        } if name == "run_command" => Some((*outcome, *exit_code)),
        _ => None,
    });
    assert_eq!(command, Some((Some(ToolOutcome::Failed), Some(1))));
    // The first task_done is sent back once with what contradicts it; the second one ends the
    // task, with the warnings.
    let dones: Vec<(bool, String)> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolFinished {
                name,
                is_error,
                output,
                ..
            } if name == "task_done" => Some((*is_error, output.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(dones.len(), 2, "{dones:?}");
    assert!(dones[0].0, "{dones:?}");
    for needle in [
        "Not finished yet",
        "rejected your edit to greeting.txt",
        "notes.txt was not changed",
        "`python3 -m unittest -q test_greeting` failed with exit code 1",
        "call task_done again",
    ] {
        assert!(dones[0].1.contains(needle), "{needle}: {}", dones[0].1);
    }
    assert!(!dones[1].0, "{dones:?}");
    let warnings = events.iter().find_map(|e| match e {
        AgentEvent::Done { warnings, .. } => Some(warnings.clone()),
        _ => None,
    });
    assert_eq!(
        warnings,
        Some(vec![
            DoneWarning::FileUnchanged {
                path: "notes.txt".into()
            },
            DoneWarning::EditRejected {
                path: "greeting.txt".into()
            },
            DoneWarning::CheckFailed {
                command: "python3 -m unittest -q test_greeting".into(),
                exit_code: Some(1)
            },
        ])
    );
    // The log keeps them, so a reopened session shows the same.
    let read = read_session::<AgentEvent>(&h.log_path()).expect("log");
    assert!(
        read.entries
            .iter()
            .any(|e| matches!(&e.event, AgentEvent::Done { warnings, .. } if warnings.len() == 3))
    );
}

/// A test that failed in the first task was blamed on every later one ("the last check
/// failed: test_greeting"): what the engine remembers of the last check belongs to the task.
#[tokio::test]
async fn a_check_that_failed_in_an_earlier_task_is_not_blamed_on_the_next() {
    let project = repo();
    std::fs::write(
        project.path().join("test_greeting.py"),
        "import unittest\n\n\nclass Greeting(unittest.TestCase):\n    def test_says_tandem(self):\n        with open('greeting.txt') as f:\n            self.assertIn('tandem', f.read())\n",
    )
    .expect("write");
    let h = Harness::start(
        scenario("agent_old_check_not_blamed.json"),
        project.path(),
        Setup::new(Mode::FullAuto),
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let first = h.run("Does the greeting test pass?").await;
    assert!(matches!(first, TurnOutcome::Done { .. }), "{first:?}");
    let second = h.run("Write notes.txt").await;
    assert_eq!(
        second,
        TurnOutcome::Done {
            summary: "Wrote notes.txt.".into()
        }
    );
    let events = h.events();
    let second_task = events
        .iter()
        .rposition(|e| matches!(e, AgentEvent::UserMessage { .. }))
        .expect("second task");
    let later = &events[second_task..];
    assert!(
        !later.iter().any(|e| matches!(
            e,
            AgentEvent::ToolFinished { name, is_error: true, .. } if name == "task_done"
        )),
        "the second task_done was sent back"
    );
    let warnings = later.iter().find_map(|e| match e {
        AgentEvent::Done { warnings, .. } => Some(warnings.clone()),
        _ => None,
    });
    assert_eq!(warnings, Some(Vec::new()));
}

/// Tool cards showed the text written for the model ("[exit code 0; 0.2 s; full output: …]",
/// "applied hunks [0] … numbered from 0"): each result now carries a typed summary the window
/// words for people.
#[tokio::test]
async fn each_tool_result_carries_a_summary_for_people() {
    let project = repo();
    let (h, outcome) = run(
        "agent_tool_summaries.json",
        project.path(),
        Mode::FullAuto,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    let summaries: Vec<(String, Option<ToolOutcome>, Option<ToolSummary>)> = h
        .events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::ToolFinished {
                id,
                outcome,
                summary,
                ..
            } => Some((id, outcome, summary)),
            _ => None,
        })
        .collect();
    let of = |id: &str| {
        summaries
            .iter()
            .find(|(i, _, _)| i == id)
            .and_then(|(_, _, s)| s.clone())
            .unwrap_or_else(|| panic!("no summary for {id}: {summaries:#?}"))
    };
    assert_eq!(of("p1"), ToolSummary::PlanUpdated { steps: 2, done: 1 });
    assert_eq!(
        of("r1"),
        ToolSummary::FileRead {
            path: "list.txt".into(),
            from: 1,
            to: 20,
            total_lines: 20
        }
    );
    // greeting.txt and list.txt; .env is a secret, kept out of listings.
    assert_eq!(of("l1"), ToolSummary::FilesListed { count: 2, more: 0 });
    // `line 1` matches line 1 and lines 10 to 19 of list.txt.
    assert_eq!(
        of("s1"),
        ToolSummary::SearchMatches {
            matches: 11,
            files: 1
        }
    );
    assert_eq!(
        of("w1"),
        ToolSummary::FileChanged {
            path: "notes.txt".into(),
            created: true,
            added_lines: 2,
            removed_lines: 0
        }
    );
    assert_eq!(
        of("e1"),
        ToolSummary::FileChanged {
            path: "greeting.txt".into(),
            created: false,
            added_lines: 1,
            removed_lines: 1
        }
    );
    match of("c1") {
        ToolSummary::CommandRan {
            exit_code,
            timed_out,
            output,
            cut,
            ..
        } => {
            assert_eq!((exit_code, timed_out, cut), (Some(0), false, false));
            assert_eq!(
                output, "1\n",
                "what the command printed, without the model's notes"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(
        matches!(of("c2"), ToolSummary::CommandRan { exit_code: Some(code), .. } if code != 0),
        "{:?}",
        of("c2")
    );
    // The first task_done was sent back: a step of the work, not a failure.
    let sent_back = summaries.iter().find(|(i, _, _)| i == "d1").expect("d1");
    assert_eq!(sent_back.1, Some(ToolOutcome::SentBack));
    assert!(
        matches!(&sent_back.2, Some(ToolSummary::SentBack { warnings }) if matches!(warnings.as_slice(), [DoneWarning::CheckFailed { .. }])),
        "{sent_back:?}"
    );
}

#[tokio::test]
async fn malformed_arguments_are_explained() {
    let project = repo();
    let (_harness, outcome) = run(
        "agent_malformed_json.json",
        project.path(),
        Mode::Ask,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }));
}

/// The results of the calls that finished, in order: (output, is_error).
fn finished(h: &Harness) -> Vec<(String, bool)> {
    h.events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::ToolFinished {
                output, is_error, ..
            } => Some((output, is_error)),
            _ => None,
        })
        .collect()
}

/// Issue 23: a small model went round `write → run → edit → read` to the step limit; only one
/// call repeated was caught. Two calls gone round three times are a circle like one repeated:
/// the first time the model is told to step back, the second time the task pauses.
#[tokio::test]
async fn the_same_cycle_of_calls_steps_back_once_then_pauses_for_the_user() {
    let project = repo();
    let (h, outcome) = run(
        "agent_cycle_detection.json",
        project.path(),
        Mode::Ask,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    assert!(
        matches!(&outcome, TurnOutcome::Paused { reason }
            if reason == "Tandem stopped a circle of steps: Read list.txt → List files (3 times over, after one step back)"),
        "{outcome:?}"
    );
    let finished = finished(&h);
    assert_eq!(finished.len(), 12, "{finished:?}");
    assert!(finished[..5].iter().all(|(_, err)| !err));
    assert!(
        finished[5].1
            && finished[5].0.contains("Step back")
            && finished[5].0.contains("did not run"),
        "{finished:?}"
    );
    assert!(finished[6..11].iter().all(|(_, err)| !err));
    assert!(
        finished[11].1 && finished[11].0.contains("paused for the user"),
        "{finished:?}"
    );
}

#[tokio::test]
async fn the_same_call_three_times_steps_back_once_then_pauses_for_the_user() {
    let project = repo();
    let (h, outcome) = run(
        "agent_loop_detection.json",
        project.path(),
        Mode::Ask,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    assert!(
        matches!(&outcome, TurnOutcome::Paused { reason } if reason.contains("3 times")),
        "{outcome:?}"
    );
    let finished = finished(&h);
    assert_eq!(finished.len(), 6, "{finished:?}");
    assert!(finished[2].1 && finished[2].0.contains("Step back"));
    assert!(finished[5].1 && finished[5].0.contains("same arguments 3 times"));
}

/// Issue 23: `write → run tests (fail) → write …` with a different write each time is no
/// circle of identical calls, and went on to the step limit. The same check failing three
/// times in a row steps back once, showing the failing assertion and the function last
/// written; three more failures pause the task. (`-B`: three writes of calc.py in one second,
/// all the same size, would otherwise run a stale compiled calc.)
#[tokio::test]
async fn the_same_tests_failing_three_times_step_back_with_the_assertion_then_pause() {
    let project = repo();
    std::fs::write(
        project.path().join("test_calc.py"),
        "import unittest\nfrom calc import add\n\n\nclass Calc(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n",
    )
    .expect("write");
    let (h, outcome) = run(
        "agent_failing_checks_step_back.json",
        project.path(),
        Mode::FullAuto,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    assert!(
        matches!(&outcome, TurnOutcome::Paused { reason }
            if reason == "`python3 -B -m unittest -q test_calc` still failed 3 times in a row after one step back"),
        "{outcome:?}"
    );
    let finished = finished(&h);
    assert_eq!(finished.len(), 12, "{finished:?}");
    let runs: Vec<&String> = finished.iter().skip(1).step_by(2).map(|(o, _)| o).collect();
    assert!(!runs[0].contains("Step back") && !runs[1].contains("Step back"));
    let step_back = runs[2];
    assert!(step_back.contains("Step back"), "{step_back}");
    assert!(step_back.contains("AssertionError: 1 != 5"), "{step_back}");
    assert!(
        step_back.contains("calc.py as it is now (lines 1–2)")
            && step_back.contains("   2      return a - b + 2"),
        "{step_back}"
    );
    assert!(runs[5].contains("paused for the user"), "{}", runs[5]);
}

#[tokio::test]
async fn a_denial_with_a_message_reaches_the_model_and_nothing_runs() {
    let project = repo();
    let (h, outcome) = run(
        "agent_user_denies_with_message.json",
        project.path(),
        Mode::Ask,
        |_| ApprovalAnswer::Deny {
            message: Some("not on a Friday".into()),
        },
    )
    .await;
    assert_eq!(outcome, TurnOutcome::Ended);
    assert_eq!(h.questions().len(), 1);
}

#[tokio::test]
async fn a_front_end_that_goes_away_cancels_the_pending_call() {
    let project = repo();
    let sessions = tempfile::tempdir().expect("tempdir");
    let server =
        model_server::ScriptedServer::start(scenario("agent_user_denies_with_message.json"))
            .await
            .expect("server");
    let base = server.base_url().to_string();
    let resolver: config::ProviderResolver = Arc::new(move |_| {
        Ok(config::ResolvedModel {
            provider: llm::Provider::new(llm::ProviderConfig::new(
                llm::ProviderKind::OpenAi,
                &base,
                None,
            ))
            .expect("provider"),
            model: "m".into(),
            fell_back: false,
        })
    });
    let opts = SessionOptions::new(
        tools::ProjectRoot::open(project.path()).expect("open"),
        sessions.path().to_path_buf(),
        resolver,
    )
    .with(|o| {
        o.config = AgentConfig::new("m");
        o.sandboxing = Sandboxing::Off;
    });
    let (session, mut events) = Session::create(opts, "deploy").expect("session");
    let id = session.id().to_string();
    let turn = session.submit("deploy").expect("submit");
    // The question arrives; then the front end goes away without answering.
    while let Some(e) = events.recv().await {
        if matches!(e, AgentEvent::ApprovalNeeded { .. }) {
            break;
        }
    }
    drop(session);
    let outcome = tokio::time::timeout(Duration::from_secs(10), turn)
        .await
        .expect("no hang")
        .expect("outcome");
    assert_eq!(outcome, TurnOutcome::Cancelled);
    let read = read_session::<Value>(&agent::session_path(sessions.path(), &id).expect("path"))
        .expect("log");
    assert!(
        read.entries
            .iter()
            .all(|e| e.event["type"] != "approval_answered"),
        "a question nobody answered is never an approval"
    );
    // Nothing ran, so the model never heard the denial the script answers.
    assert_eq!(
        server.failures(),
        ["the script has 2 turns but only 1 requests came"]
    );
}

#[tokio::test]
async fn stop_mid_stream_cancels_at_once_and_a_budget_stops_the_task() {
    let project = repo();
    // A reply that streams for a minute: 20 bytes every 200 ms.
    let words: Vec<String> = (0..300).map(|i| format!("word{i}")).collect();
    let slow = Scenario::from_json(
        &serde_json::json!({"name": "slow", "format": "anthropic", "turns": [
            {"reply": {"text": words.join(" ")}, "chunk": 20, "chunk_delay_ms": 200}
        ]})
        .to_string(),
    )
    .expect("json");
    let h = Harness::start(slow, project.path(), Setup::new(Mode::Ask), |_| {
        ApprovalAnswer::Approve
    })
    .await;
    let turn = h.session.submit("t").expect("submit");
    h.until("the reply to stream", |events| {
        events
            .iter()
            .any(|e| matches!(e, AgentEvent::TextDelta { .. }))
    })
    .await;
    h.session.stop();
    let outcome = tokio::time::timeout(Duration::from_secs(10), turn)
        .await
        .expect("no hang")
        .expect("outcome");
    assert_eq!(outcome, TurnOutcome::Cancelled);
    // Stopped mid-way: some of the reply came, and not its end.
    let streamed: String = h
        .events()
        .iter()
        .filter_map(|e| match e {
            AgentEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert!(streamed.starts_with("word0"), "{streamed}");
    assert!(
        !streamed.contains("word299"),
        "the whole reply came: {streamed}"
    );
    assert!(
        !h.events()
            .iter()
            .any(|e| matches!(e, AgentEvent::AssistantMessage { .. })),
        "a stopped reply is not kept as the model's message"
    );

    let setup = Setup::new(Mode::Ask).with_options(|o| o.config.token_budget = Some(1));
    let h = Harness::start(
        scenario("agent_loop_detection.json"),
        project.path(),
        setup,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let outcome = h.run("t").await;
    assert!(
        matches!(outcome, TurnOutcome::BudgetSpent { .. }),
        "{outcome:?}"
    );
    // The budget stopped the task after its first reply: the rest of the script is unasked.
    assert_eq!(
        h.server.failures(),
        ["the script has 6 turns but only 1 requests came"]
    );
}

#[tokio::test]
async fn nearing_the_context_window_compacts_older_turns_with_the_model() {
    let project = repo();
    // list.txt alone is ~150 characters: a tiny window makes the third turn compact.
    let setup = Setup::new(Mode::Ask).with_options(|o| o.config.context_window = 120);
    let h = Harness::start(
        scenario("agent_compaction.json"),
        project.path(),
        setup,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let outcome = h.run("Look around").await;
    assert_eq!(
        outcome,
        TurnOutcome::Done {
            summary: "Looked around.".into()
        }
    );
    let read = read_session::<Value>(&h.log_path()).expect("log");
    assert!(
        read.entries.iter().any(|e| e.event["type"] == "compaction"),
        "the compaction is marked in the log"
    );
    // Issue 27: the person is told before it happens, and shown what the summary replaced.
    let events = h.events();
    let warned = events
        .iter()
        .position(|e| matches!(e, AgentEvent::ContextFilling { compact_at: 80, .. }))
        .expect("a warning as the context fills");
    let (at, dropped) = events
        .iter()
        .enumerate()
        .find_map(|(i, e)| match e {
            AgentEvent::Compacted {
                summary, dropped, ..
            } => {
                assert!(summary.contains("greeting.txt (hello, world)"), "{summary}");
                Some((i, dropped.clone()))
            }
            _ => None,
        })
        .expect("the compaction is shown");
    assert!(warned < at, "warned before compacting");
    assert!(
        dropped.iter().any(|l| l == "You: Look around")
            && dropped.iter().any(|l| l == "Read list.txt"),
        "{dropped:?}"
    );
}

#[tokio::test]
async fn approve_always_keeps_the_rule_in_your_file_for_this_project() {
    let project = repo();
    let config_dir = tempfile::tempdir().expect("tempdir");
    let user_file = config_dir.path().join("config/tandem/policy.toml");
    let kept = user_file.clone();
    let setup = Setup::new(Mode::Ask).with_options(move |o| o.config.user_policy_file = Some(kept));
    let h = Harness::start(
        scenario("agent_approve_always.json"),
        project.path(),
        setup,
        |_| ApprovalAnswer::ApproveAlways { suggestion: 0 },
    )
    .await;
    let outcome = h.run("check make").await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    let asked: Vec<_> = h
        .questions()
        .iter()
        .map(|q| q.asked.suggestions.clone())
        .collect();
    assert_eq!(
        asked.len(),
        1,
        "asked once, then the kept rule allowed it: {asked:?}"
    );
    assert_eq!(
        asked[0][0].label,
        "Always allow “make install” in this project"
    );
    assert!(asked[0][0].always, "offered as a rule kept for the project");
    let kept = std::fs::read_to_string(&user_file).expect("the user's file was written");
    assert!(kept.contains("make install"), "{kept}");
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
            .contains("commands.allow \"make install\""),
        "{}",
        reloaded.describe()
    );
    // After a restart the kept rule holds: the same command in ask mode runs unasked.
    let resolver = |p: &Path| tools::real_path(p);
    let mut ctx = policy::Context::new(&root);
    ctx.mode = Some(Mode::Ask);
    ctx.sandboxed = true;
    ctx.resolver = &resolver;
    let d = policy::evaluate(
        &reloaded,
        &policy::ToolCall::Command {
            command: "make install",
        },
        &ctx,
    );
    assert_eq!(d.decision, policy::Verdict::Allow, "{}", d.reason);
}

/// Issue 25: an invalid git_commit, git_branch, run_command or web_fetch call raised an
/// approval card and failed only after the person said yes. Each is now sent back to the model
/// in words, and nobody is asked.
#[tokio::test]
async fn invalid_calls_of_every_kind_are_sent_back_before_anyone_is_asked() {
    let project = repo();
    let calls = [
        (
            json!({"name": "git_commit", "input": {"message": "  "}}),
            "commit message is empty",
        ),
        (
            json!({"name": "git_commit", "input": {"message": "m", "files": ["nope.txt"]}}),
            "nope.txt does not exist",
        ),
        (
            json!({"name": "git_commit", "input": {"message": "m", "fils": ["a"]}}),
            "unknown field `fils`",
        ),
        (
            json!({"name": "git_branch", "input": {"action": "create"}}),
            "`name` is required",
        ),
        (
            json!({"name": "git_branch", "input": {"action": "create", "name": "bad..name"}}),
            "not a valid branch name",
        ),
        (
            json!({"name": "git_branch", "input": {"action": "switch", "name": "nowhere"}}),
            "there is no branch `nowhere`",
        ),
        (
            json!({"name": "git_branch", "input": {"action": "rename", "name": "x"}}),
            "unknown variant `rename`",
        ),
        (
            json!({"name": "run_command", "input": {"command": "   "}}),
            "the command is empty",
        ),
        (
            json!({"name": "run_command", "input": {"command": "make", "timeout": 0}}),
            "timeout must be at least 1 second",
        ),
        (
            json!({"name": "run_command", "input": {"cmd": "make"}}),
            "unknown field `cmd`",
        ),
        (
            json!({"name": "web_fetch", "input": {"url": "not a url"}}),
            "is not a valid URL",
        ),
        (
            json!({"name": "web_fetch", "input": {"url": "ftp://example.com/x"}}),
            "only http and https",
        ),
        (
            json!({"name": "web_fetch", "input": {"url": "https://example.com", "method": "BREW"}}),
            "method `BREW` is not supported",
        ),
        (
            json!({"name": "web_fetch", "input": {"url": "https://example.com", "jsonpath": "$[?"}}),
            "not a valid JSONPath",
        ),
    ];
    let mut turns = Vec::new();
    for (i, (call, _)) in calls.iter().enumerate() {
        let mut call = call.clone();
        call["id"] = json!(format!("c{i}"));
        let mut turn = json!({"reply": {"tool_calls": [call]}});
        if i > 0 {
            turn["expect"] = json!({"tool_result_contains": calls[i - 1].1});
        }
        turns.push(turn);
    }
    turns.push(json!({
        "expect": {"tool_result_contains": calls[calls.len() - 1].1},
        "reply": {"tool_calls": [{"id": "d", "name": "task_done", "input": {"summary": "gave up"}}]}
    }));
    let s = Scenario::from_json(
        &json!({"name": "invalid calls", "format": "anthropic", "turns": turns}).to_string(),
    )
    .expect("json");
    let h = Harness::start(s, project.path(), Setup::new(Mode::Ask), |_| {
        ApprovalAnswer::Approve
    })
    .await;
    let outcome = h.run("try things").await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    let asked: Vec<String> = h.questions().iter().map(|q| q.tool.clone()).collect();
    assert_eq!(
        asked,
        Vec::<String>::new(),
        "an invalid call is never put to the user"
    );
}

/// Issue 25: every tool was offered whatever the settings: web_search with no search service
/// (it then said so), create_pull_request without gh, and nothing could turn a tool off. Now a
/// tool turned off in the project's rules, or one that cannot work here, is not offered, and a
/// call to it anyway is refused in words, with nobody asked.
#[tokio::test]
async fn tools_turned_off_or_unable_to_work_are_not_offered() {
    let project = repo();
    let root = std::fs::canonicalize(project.path()).expect("canonical");
    let rules = root.join(".tandem/policy.toml");
    std::fs::create_dir_all(rules.parent().expect("parent")).expect("mkdir");
    let text = "[tools]\noff = [\"run_command\"]\n";
    std::fs::write(&rules, text).expect("write");
    let rules_in_force =
        Policy::load(None, Some(policy::RuleText { path: &rules, text }), &root).expect("load");
    let setup = Setup::new(Mode::FullAuto).with_options(move |o| o.policy = rules_in_force);
    let s = Scenario::from_json(
        r#"{"name": "tools off", "format": "anthropic", "turns": [
            {"expect": {"tools_include": ["read_file", "web_fetch"], "tools_exclude": ["run_command", "web_search"]},
             "reply": {"tool_calls": [{"id": "c1", "name": "run_command", "input": {"command": "touch made.txt"}}]}},
            {"expect": {"tool_result_contains": "run_command is not available here: turned off for this project"},
             "reply": {"tool_calls": [{"id": "s1", "name": "web_search", "input": {"query": "tandem"}}]}},
            {"expect": {"tool_result_contains": "web_search is not available here: no search service is set up"},
             "reply": {"tool_calls": [{"id": "d", "name": "task_done", "input": {"summary": "could not"}}]}}
        ]}"#,
    )
    .expect("json");
    let h = Harness::start(s, project.path(), setup, |_| ApprovalAnswer::Approve).await;
    let outcome = h.run("make a file").await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    assert!(h.questions().is_empty());
    assert!(!project.path().join("made.txt").exists());
}

fn ok(content_type: &str, body: &[u8]) -> Vec<u8> {
    test_support::http::respond_bytes("200 OK", content_type, body, "")
}

/// /login redirects to /home.
async fn redirecting_server() -> String {
    test_support::http::serve(|request| {
        if request.starts_with("GET /login") {
            test_support::http::respond_bytes("302 Found", "text/plain", b"", "Location: /home\r\n")
        } else {
            ok("text/plain", b"the home page")
        }
    })
    .await
}

/// Issue 25: a fetch of the person's own local server, approved, that redirected within that
/// server (/login → /home) was refused: the redirect needed an approval nobody could give in
/// the middle of a request. It is followed now; the person was asked once.
#[tokio::test]
async fn an_approved_local_fetch_follows_its_own_servers_redirect() {
    let project = repo();
    let base = redirecting_server().await;
    let s = Scenario::from_json(
        &json!({"name": "local redirect", "format": "anthropic", "turns": [
            {"reply": {"tool_calls": [{"id": "f1", "name": "web_fetch", "input": {"url": format!("{base}/login")}}]}},
            {"expect": {"tool_result_contains": "the home page"},
             "reply": {"tool_calls": [{"id": "d", "name": "task_done", "input": {"summary": "read it"}}]}}
        ]})
        .to_string(),
    )
    .expect("json");
    let h = Harness::start(s, project.path(), Setup::new(Mode::Ask), |_| {
        ApprovalAnswer::Approve
    })
    .await;
    let outcome = h.run("read my local page").await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    assert_eq!(h.questions().len(), 1);
}

#[tokio::test]
async fn a_write_with_wrong_arguments_is_sent_back_without_asking_anyone() {
    let project = repo();
    let s = Scenario::from_json(
        r#"{"name": "bad write", "format": "anthropic", "turns": [
            {"reply": {"tool_calls": [{"id": "w", "name": "write_file", "input": {"path": "new.txt"}}]}},
            {"expect": {"tool_result_contains": "missing field `content`"},
             "reply": {"tool_calls": [{"id": "d", "name": "task_done", "input": {"summary": "gave up"}}]}}
        ]}"#,
    )
    .expect("json");
    let asked = Arc::new(Mutex::new(0));
    let asked2 = asked.clone();
    let h = Harness::start(s, project.path(), Setup::new(Mode::Ask), move |_| {
        *asked2.lock().expect("lock") += 1;
        ApprovalAnswer::Approve
    })
    .await;
    let outcome = h.run("write").await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    assert_eq!(
        *asked.lock().expect("lock"),
        0,
        "an invalid call is never put to the user"
    );
    assert!(!project.path().join("new.txt").exists());
}

/// A 3 MB line from a command and a 5 MB line from a search went to the model whole; every
/// result is now cut to fit, and the whole text is saved where the model can read parts of it.
#[tokio::test]
async fn huge_tool_results_reach_the_model_cut_to_fit() {
    let project = repo();
    let line = format!("{}needle{}\n", "a".repeat(2_500_000), "b".repeat(2_500_000));
    std::fs::write(project.path().join("minified.js"), line).expect("write");
    let (h, outcome) = run(
        "agent_results_cut_to_fit.json",
        project.path(),
        Mode::FullAuto,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    // The search's whole result was saved, and the model was told where.
    let said = h
        .events()
        .into_iter()
        .find_map(|e| match e {
            protocol::AgentEvent::ToolFinished { name, output, .. }
                if name == "search_codebase" =>
            {
                Some(output)
            }
            _ => None,
        })
        .expect("search result");
    let path = said
        .split("The whole of it is in ")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .expect("a path");
    let saved = std::fs::metadata(path).expect("saved").len();
    assert!(saved > 5_000_000, "{saved}");
}

/// A 1×1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0,
    0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x89, 0x99, 0x3d, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// read_file of a picture: the model gets the picture itself where it takes images (both
/// providers' wire formats), and a plain word where it does not; "attached" went with only
/// that sentence before.
#[tokio::test]
async fn an_image_read_reaches_a_model_that_takes_images_and_is_explained_to_one_that_does_not() {
    use base64::Engine as _;
    let data = base64::engine::general_purpose::STANDARD.encode(PNG);
    let cases = [
        (
            "anthropic",
            None,
            format!("\"data\":\"{data}\""),
            "It is attached below.",
        ),
        (
            "openai",
            Some(true),
            format!("data:image/png;base64,{data}"),
            "It is attached below.",
        ),
        ("openai", None, String::new(), "does not take images"),
    ];
    for (format, images, in_request, said) in cases {
        let project = repo();
        std::fs::write(project.path().join("logo.png"), PNG).expect("write");
        let mut expect = serde_json::json!({"tool_result_contains": said});
        if !in_request.is_empty() {
            expect["contains"] = serde_json::json!([in_request]);
        }
        let s = Scenario::from_json(
            &serde_json::json!({"name": "image", "format": format, "turns": [
                {"reply": {"tool_calls": [{"id": "r", "name": "read_file", "input": {"path": "logo.png"}}]}},
                {"expect": expect, "reply": {"text": "A small logo."}}
            ]})
            .to_string(),
        )
        .expect("json");
        let mut setup = Setup::new(Mode::Ask);
        setup.images = images;
        let h = Harness::start(s, project.path(), setup, |_| ApprovalAnswer::Approve).await;
        let outcome = h.run("What is in logo.png?").await;
        assert_eq!(outcome, TurnOutcome::Ended, "{format} {images:?}");
        if in_request.is_empty() {
            assert!(
                !h.server
                    .requests()
                    .iter()
                    .any(|r| r.body.to_string().contains("image_url")),
                "an image went to a model that takes none"
            );
        }
    }
}

/// Issue 25: a fetched image was "(binary response: image/png, 70 bytes)". It reaches a model
/// that takes images as the picture, and one that does not hears so in words.
#[tokio::test]
async fn a_fetched_image_is_attached_for_a_model_that_takes_images() {
    use base64::Engine as _;
    let data = base64::engine::general_purpose::STANDARD.encode(PNG);
    let base = test_support::http::serve(|_| ok("image/png", PNG)).await;
    for (format, in_request, said) in [
        (
            "anthropic",
            format!("\"data\":\"{data}\""),
            "It is attached below.",
        ),
        ("openai", String::new(), "does not take images"),
    ] {
        let project = repo();
        let mut expect = serde_json::json!({"tool_result_contains": said});
        if !in_request.is_empty() {
            expect["contains"] = serde_json::json!([in_request, "that web_fetch attached"]);
        }
        let s = Scenario::from_json(
            &serde_json::json!({"name": "fetched image", "format": format, "turns": [
                {"reply": {"tool_calls": [{"id": "f", "name": "web_fetch", "input": {"url": format!("{base}/logo.png")}}]}},
                {"expect": expect, "reply": {"text": "A small logo."}}
            ]})
            .to_string(),
        )
        .expect("json");
        let h = Harness::start(s, project.path(), Setup::new(Mode::FullAuto), |_| {
            ApprovalAnswer::Approve
        })
        .await;
        h.run("What is the logo?").await;
    }
}

/// A one-page PDF saying "Quarterly totals: 42 units".
const PDF: &[u8] = include_bytes!("../../../tests/fixtures/quarterly.pdf");

/// Issue 25: a PDF was "a binary file" to read_file and "(binary response …)" to web_fetch.
/// Every model gets its text; a model that takes files (Anthropic's) gets the file itself too,
/// as a document, and a local model is never sent one.
#[tokio::test]
async fn a_pdf_is_read_as_text_and_attached_for_a_model_that_takes_files() {
    use base64::Engine as _;
    let data = base64::engine::general_purpose::STANDARD.encode(PDF);
    let base = test_support::http::serve(|_| ok("application/pdf", PDF)).await;
    for (format, attached) in [("anthropic", true), ("openai", false)] {
        let project = repo();
        std::fs::write(project.path().join("report.pdf"), PDF).expect("write");
        let mut read = serde_json::json!({"tool_result_contains": "Quarterly totals: 42 units"});
        let mut fetched = read.clone();
        if attached {
            read["contains"] = serde_json::json!([
                "\"type\":\"document\"",
                data,
                "The PDF report.pdf that read_file attached",
                "The PDF itself is attached below."
            ]);
            fetched["contains"] = serde_json::json!(["that web_fetch attached"]);
        }
        let s = Scenario::from_json(
            &serde_json::json!({"name": "pdf", "format": format, "turns": [
                {"reply": {"tool_calls": [{"id": "r", "name": "read_file", "input": {"path": "report.pdf"}}]}},
                {"expect": read, "reply": {"tool_calls": [{"id": "f", "name": "web_fetch", "input": {"url": format!("{base}/report.pdf")}}]}},
                {"expect": fetched, "reply": {"text": "42 units."}}
            ]})
            .to_string(),
        )
        .expect("json");
        let h = Harness::start(s, project.path(), Setup::new(Mode::FullAuto), |_| {
            ApprovalAnswer::Approve
        })
        .await;
        h.run("What does the report say?").await;
        if !attached {
            assert!(
                !h.server
                    .requests()
                    .iter()
                    .any(|r| r.body.to_string().contains("file_data")),
                "a file went to a model that takes none"
            );
        }
    }
}

/// A secret in the working tree: git_diff names `.env` but never shows its lines (the model read
/// them before, in every mode), and a commit that would include it is put to the user even in
/// full auto, naming it (it was committed unasked before); committing only the greeting runs.
#[tokio::test]
async fn a_secret_is_neither_shown_by_git_diff_nor_committed_unasked() {
    let project = repo();
    let p = project.path();
    let mut config = git2::Repository::open(p)
        .and_then(|r| r.config())
        .expect("config");
    config.set_str("user.name", "T").expect("name");
    config
        .set_str("user.email", "t@example.com")
        .expect("email");
    std::fs::write(p.join(".env"), "SECRET=the-new-value\n").expect("write");
    std::fs::write(p.join("greeting.txt"), "hello, tandem\n").expect("write");
    let (h, outcome) = run("agent_commit_protected.json", p, Mode::FullAuto, |_| {
        ApprovalAnswer::Deny { message: None }
    })
    .await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    let questions = h.questions();
    assert_eq!(questions.len(), 1, "{questions:?}");
    assert_eq!(questions[0].tool, "git_commit");
    assert!(
        questions[0].asked.reason.contains(".env")
            && questions[0].asked.reason.contains("holds secrets"),
        "{}",
        questions[0].asked.reason
    );
    assert!(
        !h.server
            .requests()
            .iter()
            .any(|r| r.body.to_string().contains("the-new-value")),
        "the secret reached the model"
    );
    let repo = git2::Repository::open(p).expect("open");
    let head = repo.head().expect("head").peel_to_commit().expect("commit");
    assert_eq!(head.summary().ok().flatten(), Some("Update the greeting"));
    let tree = head.tree().expect("tree");
    let env = tree.get_path(Path::new(".env")).expect(".env");
    let blob = repo.find_blob(env.id()).expect("blob");
    assert_eq!(
        blob.content(),
        b"SECRET=1\n",
        "the new secret was committed"
    );
}

/// Issue 48: where the agent needs a call, a small model is held to one (`tool_choice:
/// "required"`; the built-in model's call grammar from the first token): it answered in prose
/// instead. Asked a question, it answers freely.
#[tokio::test]
async fn a_small_model_asked_a_question_is_not_held_to_a_call() {
    let project = repo();
    std::fs::write(project.path().join("greeting.txt"), "hello, world\n").expect("write");
    let mut setup = Setup::new(Mode::Ask);
    setup.model = "qwen2.5-coder:1.5b";
    let h = Harness::start(
        scenario("agent_small_model_question.json"),
        project.path(),
        setup,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let outcome = h.run("What does greeting.txt say?").await;
    assert!(matches!(outcome, TurnOutcome::Ended), "{outcome:?}");
}

/// Issue 23: the help the built-in model gets is per model size, not per provider. A 1.5B
/// model behind a local server (Ollama, llama-server) gets it unasked (issue 48: held to a
/// call where the task needs one); a 32B one does not.
#[tokio::test]
async fn a_small_model_on_a_local_server_gets_the_small_model_help() {
    for (file, model, helped) in [
        (
            "agent_small_model_on_local_server.json",
            "qwen2.5-coder:1.5b",
            true,
        ),
        (
            "agent_large_model_on_local_server.json",
            "qwen2.5-coder:32b",
            false,
        ),
    ] {
        let project = repo();
        let mut setup = Setup::new(Mode::Ask);
        setup.model = model;
        let h = Harness::start(scenario(file), project.path(), setup, |_| {
            ApprovalAnswer::Approve
        })
        .await;
        let outcome = h.run("Make greeting.txt say hello, tandem").await;
        assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
        let read_first = h.events().iter().any(|e| {
            matches!(e, AgentEvent::ToolFinished { name, output, .. }
                if name == "read_file" && output.contains("hello, world"))
        });
        assert_eq!(read_first, helped, "{model}: the named file read for it");
    }
}

/// Issue 23: a small model rewrote a whole file with two lines and lost what it needed. Its
/// write that would drop a function is refused with the edit to make; the edit goes through.
#[tokio::test]
async fn a_small_models_write_that_drops_a_function_is_refused() {
    let project = repo();
    let calc = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n";
    std::fs::write(project.path().join("calc.py"), calc).expect("write");
    let mut setup = Setup::new(Mode::FullAuto);
    setup.model = "qwen2.5-coder:1.5b";
    let h = Harness::start(
        scenario("agent_small_model_write_guard.json"),
        project.path(),
        setup,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let outcome = h.run("Make add in calc.py return a + b").await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    assert_eq!(
        std::fs::read_to_string(project.path().join("calc.py")).expect("read"),
        calc.replace("a - b", "a + b"),
        "mul is still there"
    );
}

/// Issue 23: a person attaches a file with `@` in the composer; whatever the model, its
/// contents are in the first request (read through a judged read_file call), and it counts as
/// read, so the model's first edit goes through.
#[tokio::test]
async fn a_file_attached_with_an_at_is_read_before_the_first_step() {
    let project = repo();
    let h = Harness::start(
        scenario("agent_at_attached_file.json"),
        project.path(),
        Setup::new(Mode::FullAuto),
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let outcome = h.run("Make @greeting.txt say hello, tandem").await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    assert_eq!(
        std::fs::read_to_string(project.path().join("greeting.txt")).expect("read"),
        "hello, tandem\n"
    );
    let names: Vec<String> = h
        .events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::ToolFinished { name, .. } => Some(name),
            _ => None,
        })
        .collect();
    assert_eq!(names, ["read_file", "edit_file", "task_done"]);
}

/// Found by make bench-agent: the built-in model fixed `range` by writing a whole new function
/// as new_string for the function's first line; the old body stayed and the file no longer
/// parsed. For a small model that edit replaces the whole function.
#[tokio::test]
async fn a_small_models_whole_function_for_its_first_line_replaces_the_function() {
    let project = repo();
    let range = "// The integers from start up to, but not including, end.\nfunction range(start, end) {\n  const out = [];\n  for (let i = start; i <= end; i++) out.push(i);\n  return out;\n}\n\nmodule.exports = { range };\n";
    std::fs::write(project.path().join("range.js"), range).expect("write");
    let mut setup = Setup::new(Mode::FullAuto);
    setup.model = "qwen2.5-coder:1.5b";
    let h = Harness::start(
        scenario("agent_small_model_function_edit.json"),
        project.path(),
        setup,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let outcome = h
        .run("range(start, end) in range.js should not include end. Fix it.")
        .await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    assert_eq!(
        std::fs::read_to_string(project.path().join("range.js")).expect("read"),
        "// The integers from start up to, but not including, end.\nfunction range(start, end) { const out = []; for (let i = start; i < end; i++) out.push(i); return out; }\n\nmodule.exports = { range };\n"
    );
}

/// Found by make bench-agent: the built-in model wrote read_file's display, header and line
/// numbers included, as a file's content, and looked for an old_string with `   2 | ` before
/// each line, until the loop breaker paused the task. A small model's numbers are taken out
/// again (a large model's text is kept as written: see below).
#[tokio::test]
async fn line_numbers_copied_from_read_file_are_not_written_into_the_file() {
    let project = repo();
    std::fs::write(
        project.path().join("dedupe.py"),
        "def unique(items):\n    \"\"\"The items without repeats.\"\"\"\n    pass\n",
    )
    .expect("write");
    let mut setup = Setup::new(Mode::FullAuto);
    setup.model = "qwen2.5-coder:1.5b";
    let h = Harness::start(
        scenario("agent_echoed_line_numbers.json"),
        project.path(),
        setup,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    // The task names no file: a small model's first step is then its own, not a draft.
    let outcome = h.run("Implement unique so that it drops repeats.").await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    assert_eq!(
        std::fs::read_to_string(project.path().join("dedupe.py")).expect("read"),
        "def unique(items):\n    \"\"\"The items without repeats.\"\"\"\n    return list(dict.fromkeys(items))\n"
    );
}

/// Found by make bench-agent (sh-ext): told to run `bash test.sh`, the built-in model read the
/// files and called task_done with nothing written and nothing run, and the task ended as done.
#[tokio::test]
async fn a_task_done_before_the_asked_check_ran_is_sent_back_to_run_it() {
    let project = repo();
    std::fs::write(project.path().join("test.sh"), "echo ok\n").expect("write");
    let h = Harness::start(
        scenario("agent_asked_check_not_run.json"),
        project.path(),
        Setup::new(Mode::FullAuto),
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let outcome = h
        .run("Implement ext.sh. Run `bash test.sh` to check.")
        .await;
    assert!(matches!(&outcome, TurnOutcome::Done { .. }), "{outcome:?}");
}

/// make bench-agent: aider has the built-in model's GGUF write whole files in fenced blocks and
/// solved 15 of 22 tasks, Tandem's JSON writes 8. A small model's reply with no call and a
/// block under a project file's path is that file written, through the same judged write_file.
#[tokio::test]
async fn a_small_models_file_in_a_code_block_is_written_as_that_file() {
    let project = repo();
    std::fs::write(
        project.path().join("calc.py"),
        "def add(a, b):\n    return a - b\n",
    )
    .expect("write");
    let mut setup = Setup::new(Mode::FullAuto);
    setup.model = "qwen2.5-coder:1.5b";
    let h = Harness::start(
        scenario("agent_small_model_file_block.json"),
        project.path(),
        setup,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let outcome = h.run("Fix add in calc.py.").await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    assert_eq!(
        std::fs::read_to_string(project.path().join("calc.py")).expect("read"),
        "def add(a, b):\n    return a + b\n"
    );
}

/// The same reply from a model that is not small stays an answer: nothing is written.
#[tokio::test]
async fn a_large_models_code_block_is_only_text() {
    let project = repo();
    std::fs::write(
        project.path().join("calc.py"),
        "def add(a, b):\n    return a - b\n",
    )
    .expect("write");
    let h = Harness::start(
        scenario("agent_small_model_file_block.json"),
        project.path(),
        Setup::new(Mode::FullAuto),
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let outcome = h.run("Fix add in calc.py.").await;
    assert!(matches!(outcome, TurnOutcome::Ended), "{outcome:?}");
    assert_eq!(
        std::fs::read_to_string(project.path().join("calc.py")).expect("read"),
        "def add(a, b):\n    return a - b\n"
    );
    // Nothing was written, so the turn that answers the write never comes.
    assert_eq!(
        h.server.failures(),
        ["the script has 2 turns but only 1 requests came"]
    );
}

/// Found by make bench-agent (rs-factorial): the model looked for `if n == 0 { return 0; }`
/// in a file that has it over three lines, heard "not found", and asked again, unchanged,
/// until the loop breaker stopped it. A small model's old_string matches with other spacing.
#[tokio::test]
async fn an_old_string_squashed_onto_one_line_edits_the_files_own_lines() {
    let project = repo();
    std::fs::create_dir(project.path().join("src")).expect("mkdir");
    std::fs::write(
        project.path().join("src/lib.rs"),
        "pub fn factorial(n: u64) -> u64 {\n    if n == 0 {\n        return 0;\n    }\n    n * factorial(n - 1)\n}\n",
    )
    .expect("write");
    let mut setup = Setup::new(Mode::FullAuto);
    setup.model = "qwen2.5-coder:1.5b";
    let h = Harness::start(
        scenario("agent_spacing_match.json"),
        project.path(),
        setup,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let outcome = h.run("Fix factorial(0): it must return 1.").await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    assert_eq!(
        std::fs::read_to_string(project.path().join("src/lib.rs")).expect("read"),
        "pub fn factorial(n: u64) -> u64 {\n    if n == 0 { return 1; }\n    n * factorial(n - 1)\n}\n"
    );
}

/// Issue 48: the repairs for small models (read_file's numbers taken out of written text, an
/// old_string matched with other spacing) were applied for every model. A large model's exact
/// text is what it meant: a listing whose lines really start with `   1 | ` is written as it
/// is, and an old_string that matches nothing is refused, the file untouched.
#[tokio::test]
async fn a_large_models_text_is_written_and_matched_exactly() {
    let project = repo();
    std::fs::write(project.path().join("listing.txt"), "Steps\n").expect("write");
    std::fs::create_dir(project.path().join("src")).expect("mkdir");
    let lib = "pub fn factorial(n: u64) -> u64 {\n    if n == 0 {\n        return 0;\n    }\n    n * factorial(n - 1)\n}\n";
    std::fs::write(project.path().join("src/lib.rs"), lib).expect("write");
    let h = Harness::start(
        scenario("agent_large_model_exact_text.json"),
        project.path(),
        Setup::new(Mode::FullAuto),
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let outcome = h.run("Write the steps as a numbered listing.").await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    assert_eq!(
        std::fs::read_to_string(project.path().join("listing.txt")).expect("read"),
        "   1 | mix\n   2 | bake\n   3 | serve\n"
    );
    assert_eq!(
        std::fs::read_to_string(project.path().join("src/lib.rs")).expect("read"),
        lib
    );
}

/// Issue 48: after the repair drafts, a small model's tool calls circled (`write_file →
/// run_command → edit_file` with the same arguments three times) until the loop guard paused
/// the task. Aider's loop asks for the whole file again three times; then the task pauses
/// at once, saying which check still fails — no step is spent circling.
#[tokio::test]
async fn a_small_models_check_failing_after_three_repairs_pauses_the_task() {
    let project = repo();
    test_support::projects::buggy_calc(project.path());
    let mut setup = Setup::new(Mode::FullAuto);
    setup.model = "qwen2.5-coder:1.5b";
    let h = Harness::start(
        scenario("agent_small_model_repairs_exhausted.json"),
        project.path(),
        setup,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let outcome = h.run("Fix add in calc.py, then run the tests.").await;
    match &outcome {
        TurnOutcome::Paused { reason } => assert!(
            reason.contains("still fails after 3 tries at rewriting the file"),
            "{reason}"
        ),
        other => panic!("not paused: {other:?}"),
    }
    // The scenario's every turn was used: a draft, the check, three repairs and their checks.
    assert_eq!(
        std::fs::read_to_string(project.path().join("calc.py")).expect("read"),
        "def add(a, b):\n    return a * b * 1\n"
    );
}

/// Found by make bench-agent: told its tests failed and that it may stop, a small model called
/// task_done again at once. It is sent back twice: first with the failing assertion and the
/// function it changed and no way out, then with the way out. (The task names no file: with
/// one, the drafts and their checks come first, and repairs that write nothing pause the task.)
#[tokio::test]
async fn a_small_models_task_done_after_failing_tests_is_sent_back_twice() {
    let project = repo();
    test_support::projects::buggy_calc(project.path());
    let mut setup = Setup::new(Mode::FullAuto);
    setup.model = "qwen2.5-coder:1.5b";
    let h = Harness::start(
        scenario("agent_small_model_done_pushback.json"),
        project.path(),
        setup,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let outcome = h.run("Fix add, then run the tests.").await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    let sent_back: Vec<String> = finished(&h)
        .into_iter()
        .filter(|(o, err)| *err && o.starts_with("Not finished yet"))
        .map(|(o, _)| o)
        .collect();
    assert_eq!(sent_back.len(), 2, "{sent_back:?}");
    assert!(
        sent_back[0].contains("AssertionError: 6 != 5")
            && sent_back[0].contains("calc.py as it is now")
            && !sent_back[0].contains("If it cannot be done"),
        "{}",
        sent_back[0]
    );
    assert!(
        sent_back[1].contains("If it cannot be done"),
        "{}",
        sent_back[1]
    );
}

/// Attack: edit_file's "not found" error shows the closest lines of the file. Aimed at a secret
/// file, it must show none of it: the policy judges the call before the file is planned.
#[tokio::test]
async fn a_failed_edit_of_a_secret_file_shows_none_of_it() {
    let project = repo();
    std::fs::write(project.path().join(".env"), "SECRET=harmless-marker-71\n").expect("write");
    let (h, _) = run(
        "agent_edit_secret_file.json",
        project.path(),
        Mode::FullAuto,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let outputs: Vec<String> = finished(&h).into_iter().map(|(o, _)| o).collect();
    assert!(
        outputs.iter().all(|o| !o.contains("harmless-marker-71")),
        "{outputs:?}"
    );
    let sent: String = h
        .server
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    assert!(
        !sent.contains("harmless-marker-71"),
        "the marker reached the model"
    );
}

/// Attack: a small model (steered by a web page or a cloned repository's files) answers with
/// code blocks under `../outside.txt` and under a link that points out of the project. A
/// block is a write only for a file inside the project: neither file outside changes.
#[tokio::test]
async fn a_code_block_under_a_path_outside_the_project_writes_nothing() {
    let outer = tempfile::tempdir().expect("outer");
    let project = outer.path().join("p");
    std::fs::create_dir(&project).expect("mkdir");
    let outside = outer.path().join("outside.txt");
    std::fs::write(&outside, "harmless-marker-74\n").expect("write");
    std::os::unix::fs::symlink(&outside, project.join("link.txt")).expect("link");
    let mut setup = Setup::new(Mode::FullAuto);
    setup.model = "qwen2.5-coder:1.5b";
    let h = Harness::start(
        scenario("agent_file_block_outside.json"),
        &project,
        setup,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let outcome = h.run("Update the notes.").await;
    assert!(matches!(outcome, TurnOutcome::Ended), "{outcome:?}");
    assert_eq!(
        std::fs::read_to_string(&outside).expect("read"),
        "harmless-marker-74\n"
    );
    let calls = h
        .events()
        .into_iter()
        .filter(|e| matches!(e, AgentEvent::ToolCallProposed { .. }))
        .count();
    assert_eq!(calls, 0, "no write was even proposed");
}

/// Attack: a task (pasted from a web page, say) that attaches `@.env` and `@../outside.txt`.
/// The attached read is judged as the model's own: the secret is refused, the path outside is
/// never read, and no marker reaches the model.
#[tokio::test]
async fn attaching_a_secret_or_a_file_outside_with_an_at_reads_none_of_it() {
    let outer = tempfile::tempdir().expect("outer");
    let project = outer.path().join("p");
    std::fs::create_dir(&project).expect("mkdir");
    std::fs::write(project.join(".env"), "SECRET=harmless-marker-72\n").expect("write");
    std::fs::write(outer.path().join("outside.txt"), "harmless-marker-73\n").expect("write");
    let h = Harness::start(
        scenario("agent_at_secret_file.json"),
        &project,
        Setup::new(Mode::FullAuto),
        |_| ApprovalAnswer::Approve,
    )
    .await;
    h.run("Summarise @.env and @../outside.txt").await;
    let sent: String = h
        .server
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    assert!(!sent.contains("harmless-marker-72") && !sent.contains("harmless-marker-73"));
}

/// Issue 46: a denied command and an edit kept in part still ended in a green "Task done" that
/// claimed both ("Generated report.txt", no report.txt exists). The end names what the person
/// said no to, and a listed file that does not exist.
#[tokio::test]
async fn a_task_done_after_denials_names_what_did_not_happen() {
    let project = repo();
    std::fs::write(
        project.path().join("notes.txt"),
        "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n",
    )
    .expect("write");
    std::fs::write(
        project.path().join("gen.py"),
        "open('report.txt','w').write('r')\n",
    )
    .expect("write");
    // Files older than the session were not changed by it; the clock must move on first.
    tokio::time::sleep(Duration::from_millis(20)).await;
    let (h, outcome) = run(
        "agent_done_after_denials.json",
        project.path(),
        Mode::Ask,
        |req| match req.tool.as_str() {
            "run_command" => ApprovalAnswer::Deny { message: None },
            "write_file" => ApprovalAnswer::ApprovePartial {
                accepted_hunks: vec![0],
            },
            _ => ApprovalAnswer::Approve,
        },
    )
    .await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    assert!(!project.path().join("report.txt").exists());
    let warnings = h.events().iter().find_map(|e| match e {
        AgentEvent::Done { warnings, .. } => Some(warnings.clone()),
        _ => None,
    });
    assert_eq!(
        warnings,
        Some(vec![
            DoneWarning::FileMissing {
                path: "report.txt".into()
            },
            DoneWarning::CommandDenied {
                command: "python3 gen.py".into()
            },
            DoneWarning::EditPartlyKept {
                path: "notes.txt".into(),
                kept: 1,
                total: 2
            },
        ])
    );
}
