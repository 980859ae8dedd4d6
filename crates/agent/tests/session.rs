//! The session the engine owns: sub-agents and named agents, wake-ups, Stop, resuming, one
//! writer per session and logs that do not balloon — all against the scripted model server.

use agent_harness as harness;

use agent::{LogError, SessionError, read_session};
use harness::{Harness, Setup, scenario};
use model_server::Scenario;
use policy::Mode;
use protocol::{AgentEvent, ApprovalAnswer, ToolOutcome, TurnOutcome, WakeReason};
use serde_json::Value;
use std::future::ready;
use std::path::Path;
use std::time::Duration;
use test_support::wait_until;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("calc.py"),
        "def add(a, b):\n    return a - b  # wrong\n\n\ndef sub(a, b):\n    return a - b\n",
    )
    .expect("write");
    std::fs::write(dir.path().join("greeting.txt"), "hi\n").expect("write");
    std::fs::write(
        dir.path().join("list.txt"),
        (1..=20).map(|i| format!("line {i}\n")).collect::<String>(),
    )
    .expect("write");
    dir
}

/// The innermost events of every agent, with the agent they came from.
fn flat(events: &[AgentEvent]) -> Vec<(Option<String>, AgentEvent)> {
    fn walk(e: &AgentEvent, from: Option<String>, out: &mut Vec<(Option<String>, AgentEvent)>) {
        match e {
            AgentEvent::Subagent { agent, event } => walk(event, Some(agent.clone()), out),
            other => out.push((from, other.clone())),
        }
    }
    let mut out = Vec::new();
    for e in events {
        walk(e, None, &mut out);
    }
    out
}

/// Processes of this machine whose command line is exactly `sleep SECONDS`.
fn sleeping(seconds: &str) -> usize {
    let want = format!("sleep\0{seconds}\0");
    std::fs::read_dir("/proc")
        .expect("proc")
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|pid| pid.chars().all(|c| c.is_ascii_digit()))
        .filter(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            !stat.is_empty() && !stat.contains(") Z")
        })
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c == want.as_bytes())
        })
        .count()
}

#[tokio::test]
async fn a_sub_agent_fixes_a_file_and_is_refused_what_its_parent_is_refused() {
    let p = project();
    std::fs::create_dir_all(p.path().join(".tandem")).expect("mkdir");
    std::fs::write(
        p.path().join(".tandem/policy.toml"),
        "[paths]\nprotected = [\"docs/**\"]\n",
    )
    .expect("write");
    let rules = config::load_project_policy(&p.path().canonicalize().expect("canonical"), None)
        .expect("policy");
    let setup = Setup::new(Mode::AutoEdit).with_options(move |o| o.policy = rules);
    let h = Harness::start(
        scenario("agent_subagent_fixes_a_file.json"),
        p.path(),
        setup,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let outcome = h.run("Fix the calculator").await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    let calc = std::fs::read_to_string(p.path().join("calc.py")).expect("calc");
    let results: Vec<String> = flat(&h.events())
        .into_iter()
        .filter_map(|(from, e)| match e {
            AgentEvent::ToolFinished { name, output, .. } => {
                Some(format!("{from:?} {name}: {output}"))
            }
            _ => None,
        })
        .collect();
    assert!(
        calc.starts_with("def add(a, b):\n    return a + b\n"),
        "{calc}\n{results:#?}"
    );
    assert!(
        !p.path().join("docs/notes.md").exists(),
        "the child wrote where the rules forbid"
    );
    // Reopened, the session's totals include what its sub-agent used (its own log), and its
    // card gets the sub-agent's transcript back, as the live stream carried it.
    let reopened = agent::load_transcript(&h.log_path(), None).expect("transcript");
    assert_eq!(
        (reopened.info.input_tokens, reopened.info.output_tokens),
        (2 * 1000 + 4 * 100, 2 * 20 + 4 * 10)
    );
    let live: Vec<(Option<String>, String)> = flat(&h.events())
        .into_iter()
        .filter_map(|(from, e)| match e {
            AgentEvent::ToolFinished { name, .. } => Some((from, name)),
            _ => None,
        })
        .collect();
    let again: Vec<(Option<String>, String)> = flat(&reopened.events)
        .into_iter()
        .filter_map(|(from, e)| match e {
            AgentEvent::ToolFinished { name, .. } => Some((from, name)),
            _ => None,
        })
        .collect();
    assert!(
        live.iter().any(|(from, _)| from.is_some()),
        "the sub-agent's calls: {live:?}"
    );
    assert_eq!(again, live);
    let events = h.events();
    let started = events.iter().find_map(|e| match e {
        AgentEvent::SubagentStarted {
            agent,
            name,
            background,
            ..
        } => Some((agent.clone(), name.clone(), *background)),
        _ => None,
    });
    let (child, name, background) = started.expect("the sub-agent started");
    assert_eq!((name.as_str(), background), ("Fix add", false));
    let refused = flat(&events).into_iter().any(|(from, e)| {
        from.as_deref() == Some(child.as_str())
            && matches!(
                e,
                AgentEvent::ToolFinished {
                    outcome: Some(ToolOutcome::Refused),
                    ..
                }
            )
    });
    assert!(
        refused,
        "the child's forbidden write was refused by the policy"
    );
    let ended = events.iter().find_map(|e| match e {
        AgentEvent::SubagentEnded {
            report,
            steps,
            tokens,
            ..
        } => Some((report.clone(), *steps, *tokens)),
        _ => None,
    });
    let (report, steps, _) = ended.expect("the sub-agent ended");
    assert_eq!(report, "Fixed add in calc.py.");
    assert_eq!(steps, 4);
    // The parent heard the summary and the files it changed.
    let requests = h.server.requests();
    let last = requests.last().expect("requests").body.to_string();
    assert!(last.contains("Files it changed: calc.py"), "{last}");
    // The child has a log of its own, beside the session's.
    let child_log = h
        .sessions_dir
        .join(h.session.id())
        .join("agents")
        .join(format!("{child}.jsonl"));
    assert!(
        read_session::<Value>(&child_log)
            .expect("child log")
            .entries
            .len()
            > 5
    );
}

#[tokio::test]
async fn two_named_agents_talk_and_the_parent_hears_both_reports() {
    let p = project();
    let h = Harness::start(
        scenario("agent_named_agents_exchange.json"),
        p.path(),
        Setup::new(Mode::FullAuto),
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let outcome = h.run("Coordinate the team").await;
    assert_eq!(outcome, TurnOutcome::Ended);
    h.until("two wake-ups with the reports, each turn ended", |events| {
        let wakes = events
            .iter()
            .filter(|e| matches!(e, AgentEvent::Wake { .. }))
            .count();
        let ends = events
            .iter()
            .filter(|e| matches!(e, AgentEvent::TurnEnded { .. }))
            .count();
        wakes == 2 && ends == 3
    })
    .await;
    assert_eq!(
        std::fs::read_to_string(p.path().join("greeting.txt")).expect("read"),
        "hello\n"
    );
    let parent_saw: String = h
        .server
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .filter(|b| b.contains("Coordinate the team"))
        .collect();
    assert!(
        parent_saw.contains("Wrote greeting.txt and asked the reviewer."),
        "the writer's report"
    );
    assert!(
        parent_saw.contains("greeting.txt says hello: approved."),
        "the reviewer's report"
    );
    for e in h.events() {
        if let AgentEvent::Wake { reason, .. } = e {
            assert!(
                matches!(reason, WakeReason::TaskFinished { state, .. } if state == "reported")
            );
        }
    }
    // Both agents are listed as tasks (idle, waiting for messages) until stopped.
    let tasks = h.session.tasks(false);
    assert_eq!(
        tasks.iter().filter(|t| t.kind == "agent").count(),
        2,
        "{tasks:?}"
    );
    // Issue 47: idle agents are not work. `tandem-cli run` waits for what can still wake the
    // agent: with only idle agents left it ends at once, stopping nothing (it waited out the
    // whole limit, then stopped both).
    let stopped = h.session.settle(std::time::Duration::from_secs(60)).await;
    assert!(stopped.is_empty(), "{stopped:?}");
}

/// Issue 47: turns started by a wake-up kept the loop breaker's memory, so the third identical
/// `task_done` over three reports was refused as a circle ("Read the failing assertion…").
#[tokio::test]
async fn a_task_done_at_each_of_three_reports_is_never_refused_as_a_repeat() {
    let p = project();
    let h = Harness::start(
        scenario("agent_three_reports_then_done.json"),
        p.path(),
        Setup::new(Mode::FullAuto),
        |_| ApprovalAnswer::Approve,
    )
    .await;
    assert_eq!(h.run("Gather the reports").await, TurnOutcome::Ended);
    h.until("three wake-ups, each ended", |events| {
        let wakes = events
            .iter()
            .filter(|e| matches!(e, AgentEvent::Wake { .. }))
            .count();
        let dones = events
            .iter()
            .filter(|e| matches!(e, AgentEvent::Done { .. }))
            .count();
        wakes == 3 && dones == 3
    })
    .await;
    for e in h.events() {
        if let AgentEvent::ToolFinished {
            name,
            output,
            is_error,
            ..
        } = e
        {
            assert!(
                !(name == "task_done" && is_error),
                "a task_done was refused: {output}"
            );
        }
    }
}

/// A named agent's question, asked after the session's own turn ended, showed the session as
/// done or running in the list, not as waiting for the user.
#[tokio::test]
async fn a_named_agents_question_while_the_session_is_idle_waits_for_the_user() {
    let p = project();
    let mut setup = Setup::new(Mode::Ask);
    setup.hold_questions = true;
    let h = Harness::start(
        scenario("agent_named_agent_asks_while_idle.json"),
        p.path(),
        setup,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let outcome = h.run("Coordinate the team").await;
    assert_eq!(outcome, TurnOutcome::Ended);
    h.until("the writer's question", |_| !h.questions().is_empty())
        .await;
    assert_eq!(
        h.session.state(),
        Some(protocol::SessionState::Waiting),
        "the session's turn is over; its named agent waits for an answer"
    );
    let asked = h.questions();
    assert_eq!(asked[0].agent.as_deref(), Some("writer"));
    h.session
        .answer(&asked[0].id, ApprovalAnswer::Approve)
        .expect("answer");
    h.until(
        "the writer's report woke the session and its turn ended",
        |events| {
            events
                .iter()
                .filter(|e| matches!(e, AgentEvent::TurnEnded { .. }))
                .count()
                == 2
        },
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(p.path().join("greeting.txt")).expect("read"),
        "hello\n"
    );
}

/// Retry stayed live on an error after the turn recovered and finished; pressing it ran the
/// finished task again. The engine itself refuses: Retry acts only on a last turn that failed.
#[tokio::test]
async fn retry_after_a_turn_that_did_not_fail_runs_nothing() {
    let p = project();
    let h = Harness::start(
        scenario("agent_retry_after_done.json"),
        p.path(),
        Setup::new(Mode::Ask),
        |_| ApprovalAnswer::Approve,
    )
    .await;
    assert_eq!(h.run("Check the code").await, TurnOutcome::Ended);
    assert!(
        matches!(h.session.retry(), Err(SessionError::NothingToRetry)),
        "the finished turn must not run again"
    );
    assert_eq!(h.session.state(), None, "nothing started");
}

#[tokio::test]
async fn stopping_the_parent_ends_every_child_and_its_processes() {
    let p = project();
    let h = Harness::start(
        scenario("agent_stop_ends_children.json"),
        p.path(),
        Setup::new(Mode::FullAuto),
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let turn = h.session.submit("Build it").expect("submit");
    wait_until(
        "the child's command to start",
        Duration::from_secs(20),
        || ready(sleeping("37") > 0),
    )
    .await
    .unwrap_or_else(|e| panic!("{e}"));
    h.session.stop();
    let outcome = tokio::time::timeout(Duration::from_secs(10), turn)
        .await
        .expect("no hang")
        .expect("outcome");
    assert_eq!(outcome, TurnOutcome::Cancelled);
    wait_until(
        "the child's command to end with the stop",
        Duration::from_secs(5),
        || ready(sleeping("37") == 0),
    )
    .await
    .unwrap_or_else(|e| panic!("{e}: the child's command outlived the stop"));
    let ended = h.events().into_iter().find_map(|e| match e {
        AgentEvent::SubagentEnded { outcome, .. } => Some(outcome),
        _ => None,
    });
    assert_eq!(ended, Some(TurnOutcome::Cancelled));
}

/// The window's task list shows a working sub-agent with Stop: stopping it ends it and its
/// command, and its parent is told and goes on (no second wake-up for the same end).
#[tokio::test]
async fn a_sub_agent_is_listed_as_a_task_and_stopping_it_lets_the_parent_go_on() {
    let p = project();
    let h = Harness::start(
        scenario("agent_stop_one_subagent.json"),
        p.path(),
        Setup::new(Mode::FullAuto),
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let turn = h.session.submit("Build it").expect("submit");
    wait_until(
        "the child's command to start",
        Duration::from_secs(20),
        || ready(sleeping("41") > 0),
    )
    .await
    .unwrap_or_else(|e| panic!("{e}"));
    let listed = h.session.tasks(false);
    let agent = listed
        .iter()
        .find(|t| t.kind == "agent")
        .unwrap_or_else(|| panic!("no agent among {listed:?}"));
    assert_eq!(agent.title, "Long build");
    h.session.stop_task(&agent.id).expect("stop");
    let outcome = tokio::time::timeout(Duration::from_secs(10), turn)
        .await
        .expect("no hang")
        .expect("outcome");
    assert_eq!(outcome, TurnOutcome::Ended);
    // Under load the command may have turned into a background task of the child's before
    // the stop; ending it takes a moment.
    wait_until(
        "the sub-agent's command and tasks to end",
        Duration::from_secs(10),
        || ready(sleeping("41") == 0 && h.session.tasks(false).is_empty()),
    )
    .await
    .unwrap_or_else(|e| {
        panic!(
            "{e}: left running: {:?}, sleep 41 × {}",
            h.session.tasks(false),
            sleeping("41")
        )
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !h.events()
            .iter()
            .any(|e| matches!(e, AgentEvent::Wake { .. })),
        "the sub-agent's end woke the agent although it had its result"
    );
}

#[tokio::test]
async fn a_finished_background_command_and_a_wake_up_wake_the_agent() {
    let p = project();
    let h = Harness::start(
        scenario("agent_wakes_on_background_and_timer.json"),
        p.path(),
        Setup::new(Mode::FullAuto),
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let outcome = h.run("Build it").await;
    assert_eq!(outcome, TurnOutcome::Ended);
    h.until("the woken agent finishes", |events| {
        events.iter().any(|e| matches!(e, AgentEvent::Done { .. }))
    })
    .await;
    // Started in the background, it had not ended when the call returned: not a success yet.
    // Its card names the task, so a front end can show how it ended later.
    let started = h.events().into_iter().find_map(|e| match e {
        AgentEvent::ToolFinished {
            name,
            outcome,
            task,
            ..
        } if name == "run_command" => Some((outcome, task)),
        _ => None,
    });
    assert_eq!(
        started,
        Some((Some(ToolOutcome::Background), Some("task-1".to_string())))
    );
    let wakes: Vec<WakeReason> = h
        .events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::Wake { reason, .. } => Some(reason),
            _ => None,
        })
        .collect();
    assert!(
        matches!(&wakes[0], WakeReason::TaskFinished { task, .. } if task == "task-1"),
        "{wakes:?}"
    );
    assert_eq!(
        wakes[1],
        WakeReason::Timer {
            hint: Some("check the logs".into())
        }
    );
}

#[tokio::test]
async fn polling_a_running_task_five_times_does_not_pause_the_session() {
    let p = project();
    let h = Harness::start(
        scenario("agent_poll_is_not_a_loop.json"),
        p.path(),
        Setup::new(Mode::FullAuto),
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let outcome = h.run("Start the slow task, watch it, stop it").await;
    assert_eq!(
        outcome,
        TurnOutcome::Done {
            summary: "Stopped the slow task.".into()
        }
    );
}

#[tokio::test]
async fn a_compacted_session_opened_again_continues_from_the_summary() {
    let p = project();
    let sessions = tempfile::tempdir().expect("tempdir");
    let mut setup = Setup::new(Mode::Ask).with_options(|o| o.config.context_window = 120);
    setup.sessions_dir = Some(sessions.path().to_path_buf());
    let h = Harness::start(scenario("agent_compaction.json"), p.path(), setup, |_| {
        ApprovalAnswer::Approve
    })
    .await;
    assert!(matches!(
        h.run("Look around").await,
        TurnOutcome::Done { .. }
    ));
    let id = h.session.id().to_string();
    drop(h);

    let mut setup = Setup::new(Mode::Ask);
    setup.sessions_dir = Some(sessions.path().to_path_buf());
    setup.resume = Some(id);
    let h = Harness::start(
        scenario("agent_resumed_after_compaction.json"),
        p.path(),
        setup,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    assert!(matches!(h.run("And now?").await, TurnOutcome::Done { .. }));
    let first = h.server.requests()[0].body.to_string();
    assert!(
        !first.contains("Look around"),
        "the old turns were sent again: {first}"
    );
}

#[tokio::test]
async fn stop_during_a_question_leaves_a_conversation_the_provider_accepts() {
    let p = project();
    let sessions = tempfile::tempdir().expect("tempdir");
    let server = model_server::ScriptedServer::start(scenario("agent_stop_during_question.json"))
        .await
        .expect("server");
    let base = server.base_url().to_string();
    let mut setup = Setup::new(Mode::Ask);
    setup.sessions_dir = Some(sessions.path().to_path_buf());
    let mut opts = options(p.path(), setup);
    opts.resolver = std::sync::Arc::new(move |_| {
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
    let (session, mut events) = agent::Session::create(opts, "deploy").expect("session");
    session.set_mode(Mode::Ask);
    let turn = session.submit("deploy").expect("submit");
    // The question arrives, and the user presses Stop instead of answering.
    while let Some(e) = events.recv().await {
        if matches!(e, AgentEvent::ApprovalNeeded { .. }) {
            break;
        }
    }
    session.stop();
    let outcome = tokio::time::timeout(Duration::from_secs(10), turn)
        .await
        .expect("no hang")
        .expect("outcome");
    assert_eq!(outcome, TurnOutcome::Cancelled);
    assert!(session.questions().is_empty(), "Stop drops the question");
    // The next turn sends the stopped call with a result: the scripted server expects it.
    let next = tokio::time::timeout(
        Duration::from_secs(20),
        session.run("Do not deploy after all."),
    )
    .await
    .expect("no hang")
    .expect("turn");
    assert!(matches!(next, TurnOutcome::Done { .. }), "{next:?}");
}

#[tokio::test]
async fn one_process_at_a_time_appends_to_a_session() {
    let p = project();
    let sessions = tempfile::tempdir().expect("tempdir");
    let mut setup = Setup::new(Mode::Ask);
    setup.sessions_dir = Some(sessions.path().to_path_buf());
    let s =
        Scenario::from_json(r#"{"name": "idle", "format": "openai", "turns": []}"#).expect("json");
    let h = Harness::start(s, p.path(), setup, |_| ApprovalAnswer::Approve).await;
    let id = h.session.id().to_string();
    let mut setup = Setup::new(Mode::Ask);
    setup.sessions_dir = Some(sessions.path().to_path_buf());
    setup.resume = Some(id.clone());
    let err = agent::Session::open(options(p.path(), setup), &id)
        .err()
        .expect("refused");
    assert!(matches!(err, SessionError::Log(LogError::Busy(_))), "{err}");
    assert!(
        err.to_string()
            .contains("open in another Tandem window or tandem-cli"),
        "{err}"
    );
    drop(h);
    // Once the first one has closed, it opens.
    let mut setup = Setup::new(Mode::Ask);
    setup.sessions_dir = Some(sessions.path().to_path_buf());
    let mut refused = String::new();
    wait_until(
        "the session to open once the first one closed",
        Duration::from_secs(5),
        || {
            let opened = agent::Session::open(
                options(p.path(), in_folder(setup.sessions_dir.clone())),
                &id,
            );
            if let Err(e) = &opened {
                refused = e.to_string();
            }
            ready(opened.is_ok())
        },
    )
    .await
    .unwrap_or_else(|e| panic!("{e}: still busy: {refused}"));
}

/// Issue 26: `run --project B --session <a session of A>` ran silently in B, and a later
/// restore wrote B's files into A. A session belongs to its project.
#[tokio::test]
async fn a_session_continues_only_in_its_own_project() {
    let a = project();
    let b = project();
    let sessions = tempfile::tempdir().expect("tempdir");
    let mut setup = Setup::new(Mode::Ask);
    setup.sessions_dir = Some(sessions.path().to_path_buf());
    let s =
        Scenario::from_json(r#"{"name": "idle", "format": "openai", "turns": []}"#).expect("json");
    let h = Harness::start(s, a.path(), setup, |_| ApprovalAnswer::Approve).await;
    let id = h.session.id().to_string();
    drop(h);
    let in_b = || in_folder(Some(sessions.path().to_path_buf()));
    // Tried again while the first holder still lets go of the log; the last try's answer
    // counts, a busy one included.
    let mut answer = None;
    let _ = wait_until(
        "the session's first holder to let go of it",
        Duration::from_secs(5),
        || {
            let opened = agent::Session::open(options(b.path(), in_b()), &id);
            let busy = matches!(opened, Err(SessionError::Log(LogError::Busy(_))));
            answer = Some(opened);
            ready(!busy)
        },
    )
    .await;
    let err = match answer.expect("tried at least once") {
        Err(e) => e,
        Ok(_) => panic!("a session of A continued in B"),
    };
    assert!(matches!(err, SessionError::OtherProject { .. }), "{err}");
    let words = err.to_string();
    assert!(words.contains("belongs to the project"), "{words}");
    assert!(words.contains("continue it there"), "{words}");
    // Its own project still opens it.
    assert!(agent::Session::open(options(a.path(), in_b()), &id).is_ok());
}

/// Issue 26: after a crash, a resumed session refused to edit the files it had read.
#[tokio::test]
async fn a_resumed_session_may_edit_what_it_read_before() {
    let p = project();
    std::fs::write(p.path().join("notes.txt"), "draft\n").expect("write");
    let sessions = tempfile::tempdir().expect("tempdir");
    let setup = || {
        let mut s = Setup::new(Mode::AutoEdit);
        s.sessions_dir = Some(sessions.path().to_path_buf());
        s
    };
    let read = Scenario::from_json(
        r#"{"name": "read", "format": "openai", "turns": [
            {"reply": {"tool_calls": [{"id": "r1", "name": "read_file", "input": {"path": "notes.txt"}}]}},
            {"reply": {"text": "Read it."}}
        ]}"#,
    )
    .expect("json");
    let h = Harness::start(read, p.path(), setup(), |_| ApprovalAnswer::Approve).await;
    h.run("Read notes.txt").await;
    let id = h.session.id().to_string();
    drop(h);
    let edit = Scenario::from_json(
        r#"{"name": "edit", "format": "openai", "turns": [
            {"reply": {"tool_calls": [{"id": "e1", "name": "edit_file", "input": {"path": "notes.txt", "old_string": "draft", "new_string": "final"}}]}},
            {"expect": {"tool_result_contains": "Edited notes.txt"}, "reply": {"text": "Done."}}
        ]}"#,
    )
    .expect("json");
    let mut again = setup();
    again.resume = Some(id);
    let h = Harness::start(edit, p.path(), again, |_| ApprovalAnswer::Approve).await;
    h.run("Now make it final").await;
    assert_eq!(
        std::fs::read_to_string(p.path().join("notes.txt")).expect("read"),
        "final\n"
    );
}

/// Issue 25: the model was told a command's whole output is saved and to read it, but the file
/// is in the session's folder: reading it asked, and then failed as outside the project. The
/// agent now reads its own saved output back in Ask mode without a question.
#[tokio::test]
async fn the_agent_reads_a_saved_output_back_without_a_question() {
    let p = project();
    let sessions = tempfile::tempdir().expect("tempdir");
    let setup = || {
        let mut s = Setup::new(Mode::Ask);
        s.sessions_dir = Some(sessions.path().to_path_buf());
        s
    };
    let long = Scenario::from_json(
        r#"{"name": "long", "format": "openai", "turns": [
            {"reply": {"tool_calls": [{"id": "c1", "name": "run_command", "input": {"command": "seq 1 5000"}}]}},
            {"expect": {"tool_result_contains": "lines cut"}, "reply": {"text": "Long."}}
        ]}"#,
    )
    .expect("json");
    let h = Harness::start(long, p.path(), setup(), |_| ApprovalAnswer::Approve).await;
    h.run("Count to 5000").await;
    let said = h
        .events()
        .into_iter()
        .find_map(|e| match e {
            AgentEvent::ToolFinished { output, .. } => Some(output),
            _ => None,
        })
        .expect("the command's result");
    let saved = said
        .split("full output: ")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .expect("where the output is")
        .to_string();
    let id = h.session.id().to_string();
    drop(h);

    let read_back = Scenario::from_json(
        &serde_json::json!({"name": "read back", "format": "openai", "turns": [
            {"reply": {"tool_calls": [{"id": "r1", "name": "read_file", "input": {"path": saved, "offset": 2500, "limit": 1}}]}},
            {"expect": {"tool_result_contains": "2500 | 2500"}, "reply": {"tool_calls": [{"id": "s1", "name": "search_codebase", "input": {"pattern": "^4321$", "path": saved}}]}},
            {"expect": {"tool_result_contains": ":4321: 4321"}, "reply": {"text": "Found it."}}
        ]})
        .to_string(),
    )
    .expect("json");
    let mut again = setup();
    again.resume = Some(id);
    let h = Harness::start(read_back, p.path(), again, |_| ApprovalAnswer::Deny {
        message: None,
    })
    .await;
    h.run("What is line 2500?").await;
    assert_eq!(h.questions().len(), 0, "{:?}", h.questions());
}

/// Issue 25: a wake-up fired even after something else woke the agent. The seed: it is
/// cancelled then, its hint delivered with status="cancelled" — whether a finished task or the
/// person's message came first.
#[tokio::test]
async fn a_wakeup_beaten_by_another_event_is_cancelled_and_its_note_delivered() {
    let p = project();
    let s = Scenario::from_json(
        r#"{"name": "cancelled wake-ups", "format": "openai", "turns": [
            {"reply": {"tool_calls": [
                {"id": "w1", "name": "wakeup", "input": {"delay_ms": 600000, "hint": "check the deploy"}},
                {"id": "b1", "name": "run_command", "input": {"command": "sleep 0.3; echo built", "background": true}}
            ]}},
            {"reply": {"text": "Waiting."}},
            {"expect": {"contains": ["Background task task-1", "status=\\\"cancelled\\\"", "a background task ending woke you first", "Your note: check the deploy"]},
             "reply": {"tool_calls": [{"id": "w2", "name": "wakeup", "input": {"delay_ms": 600000, "hint": "look again"}}]}},
            {"reply": {"text": "Waiting again."}},
            {"expect": {"contains": ["the user's message woke you first", "Your note: look again", "Any news?"]},
             "reply": {"text": "Nothing yet."}}
        ]}"#,
    )
    .expect("json");
    let h = Harness::start(s, p.path(), Setup::new(Mode::FullAuto), |_| {
        ApprovalAnswer::Approve
    })
    .await;
    h.run("Deploy it").await;
    h.until("the woken agent waits again", |events| {
        events
            .iter()
            .filter(|e| matches!(e, AgentEvent::TurnEnded { .. }))
            .count()
            >= 2
    })
    .await;
    h.run("Any news?").await;
}

/// Issue 25: a named agent always used the settings' default model, where the seed says it
/// inherits its parent's; spawn_subagent's `model_role` picks the role's model; and the parent
/// is told where a sub-agent's whole transcript is.
#[tokio::test]
async fn a_spawned_agent_inherits_its_parents_model_and_a_role_picks_its_own() {
    let p = project();
    let s = Scenario::from_json(
        r#"{"name": "models of agents", "format": "openai", "turns": [
            {"when": "Plan it", "reply": {"tool_calls": [{"id": "s1", "name": "spawn_subagent", "input": {"title": "coder work", "description": "CODER TASK: start a helper", "model_role": "coder"}}]}},
            {"when": "CODER TASK", "expect": {"model": "scripted-coder"}, "reply": {"tool_calls": [{"id": "c1", "name": "agent_spawn", "input": {"name": "helper", "desc": "helps", "prompt": "HELPER PROMPT"}}]}},
            {"when": "CODER TASK", "expect": {"tool_result_contains": "Its whole transcript is"}, "reply": {"tool_calls": [{"id": "c2", "name": "task_done", "input": {"summary": "Started the helper."}}]}},
            {"when": "Plan it", "expect": {"tool_result_contains": "Its whole transcript is"}, "reply": {"text": "Done."}}
        ]}"#,
    )
    .expect("json");
    let mut setup = Setup::new(Mode::FullAuto);
    setup.roles = vec!["default", "coder"];
    let h = Harness::start(s, p.path(), setup, |_| ApprovalAnswer::Approve).await;
    h.run("Plan it").await;
    // The helper is the coder's child: its start arrives wrapped in the coder's events.
    fn started(e: AgentEvent) -> Option<(String, String)> {
        match e {
            AgentEvent::SubagentStarted { name, model, .. } => Some((name, model)),
            AgentEvent::Subagent { event, .. } => started(*event),
            _ => None,
        }
    }
    let started: Vec<(String, String)> = h.events().into_iter().filter_map(started).collect();
    assert_eq!(
        started,
        vec![
            ("coder work".to_string(), "scripted-coder".to_string()),
            ("helper".to_string(), "scripted-coder".to_string()),
        ]
    );
    // The transcript named to the parent is there, and read_file reads it without a question.
    let said = h
        .events()
        .into_iter()
        .find_map(|e| match e {
            AgentEvent::ToolFinished { name, output, .. } if name == "spawn_subagent" => {
                Some(output)
            }
            _ => None,
        })
        .expect("the sub-agent's result");
    let transcript = said
        .split("Its whole transcript is ")
        .nth(1)
        .and_then(|rest| rest.split(": read it").next())
        .expect("a path");
    let log = std::fs::read_to_string(transcript).expect("the transcript");
    assert!(log.contains("CODER TASK"), "{log}");
    let toolbox = tools::Toolbox::new(
        tools::ProjectRoot::open(p.path()).expect("open"),
        h.sessions_dir.join(h.session.id()),
    );
    let read = toolbox
        .run(
            "read_file",
            serde_json::json!({"path": transcript, "limit": 1}),
        )
        .await
        .expect("read_file reads the transcript");
    assert!(
        read.text.contains("session_started") || read.text.contains("1 |"),
        "{}",
        read.text
    );
}

/// Issue 25: the seed's heartbeat. A background task that prints while the agent works is
/// flagged in the model's next request, so it knows to poll instead of waiting blind.
#[tokio::test]
async fn a_background_tasks_new_output_is_flagged_at_the_models_next_stop() {
    let p = project();
    let s = Scenario::from_json(
        r#"{"name": "heartbeat", "format": "openai", "turns": [
            {"reply": {"tool_calls": [{"id": "b1", "name": "run_command", "input": {"command": "echo building; sleep 300", "background": true}}]}},
            {"reply": {"tool_calls": [{"id": "c1", "name": "run_command", "input": {"command": "sleep 0.5"}}]}},
            {"expect": {"contains": ["Background tasks printed new output: task-1 (echo building; sleep 300, 9 new bytes)"]},
             "reply": {"text": "The build runs."}}
        ]}"#,
    )
    .expect("json");
    let h = Harness::start(s, p.path(), Setup::new(Mode::FullAuto), |_| {
        ApprovalAnswer::Approve
    })
    .await;
    h.run("Build it").await;
    h.session.stop_task("task-1").expect("stop");
    // Each command says which task holds its output as soon as it runs, before it ends: the
    // window shows a running command's output live from it.
    let order: Vec<String> = h
        .events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::CommandStarted { id, task } => Some(format!("{id} started as {task}")),
            AgentEvent::ToolFinished { id, .. } => Some(format!("{id} finished")),
            _ => None,
        })
        .collect();
    assert_eq!(
        order,
        [
            "b1 started as task-1",
            "b1 finished",
            "c1 started as task-2",
            "c1 finished"
        ]
    );
}

/// A session in Ask mode logged in `sessions_dir`.
fn in_folder(sessions_dir: Option<std::path::PathBuf>) -> Setup {
    let mut setup = Setup::new(Mode::Ask);
    setup.sessions_dir = sessions_dir;
    setup
}

fn options(project: &Path, setup: Setup) -> agent::SessionOptions {
    let sessions_dir = setup.sessions_dir.clone().expect("a sessions folder");
    setup.options(
        project,
        sessions_dir,
        std::sync::Arc::new(|_| {
            Err(agent::engine_error(
                protocol::FailureCode::NoProvider,
                "not needed",
            ))
        }),
    )
}

#[tokio::test]
async fn a_big_write_is_stored_once_not_in_every_event() {
    let p = project();
    // 2 MB in 16 lines: big, but few lines changed (the change limit counts lines).
    let line = format!("{}\n", "0123456789abcdef".repeat(8 * 1024));
    let content = line.repeat(16);
    let s = Scenario::from_json(&serde_json::json!({
        "name": "big write",
        "format": "openai",
        "turns": [
            {"reply": {"tool_calls": [{"id": "w1", "name": "write_file", "input": {"path": "big.txt", "content": content}}]}},
            {"reply": {"tool_calls": [{"id": "d1", "name": "task_done", "input": {"summary": "Wrote it."}}]}}
        ]
    }).to_string())
    .expect("json");
    let h = Harness::start(s, p.path(), Setup::new(Mode::Ask), |_| {
        ApprovalAnswer::Approve
    })
    .await;
    assert!(matches!(
        h.run("write a big file").await,
        TurnOutcome::Done { .. }
    ));
    assert_eq!(
        std::fs::read_to_string(p.path().join("big.txt"))
            .expect("big")
            .len(),
        content.len()
    );
    let log = h.log_path();
    let log_bytes = std::fs::metadata(&log).expect("log").len();
    let blobs: u64 = std::fs::read_dir(log.with_extension("blobs"))
        .expect("blobs")
        .flatten()
        .map(|e| e.metadata().map(|m| m.len()).unwrap_or(0))
        .sum();
    let data = content.len() as u64;
    // The content is stored once however many events carry it; the question's diff (every
    // line with a `+`) is a second, different text of the same size. Before: five copies.
    assert!(
        log_bytes + blobs < data * 5 / 2,
        "the log ({log_bytes} B) and its stored texts ({blobs} B) hold a {data} B write too often"
    );
    // And it reads back whole: the question showed the full content.
    let read = read_session::<Value>(&log).expect("read");
    let shown = read
        .entries
        .iter()
        .find(|e| e.event["type"] == "approval_needed")
        .and_then(|e| e.event["request"]["proposed"].as_str().map(str::len));
    assert_eq!(shown, Some(content.len()));
}

/// The system prompt names the project's top level; a file the first turn added there must not
/// change the next turn's prompt, or the provider's prompt cache (and a local server's) starts
/// over and re-reads thousands of tokens.
#[tokio::test]
async fn the_system_prompt_stays_the_same_between_turns() {
    let p = project();
    let h = Harness::start(
        scenario("agent_prompt_kept_between_turns.json"),
        p.path(),
        Setup::new(Mode::FullAuto),
        |_| ApprovalAnswer::Approve,
    )
    .await;
    h.run("Write the news").await;
    assert!(p.path().join("NEWS.md").exists());
    h.run("Anything else?").await;
    let requests = h.server.requests();
    assert_eq!(requests.len(), 3);
    let system = |n: usize| requests[n].body["messages"][0]["content"].clone();
    assert_eq!(requests[0].body["messages"][0]["role"], "system");
    assert!(
        system(0).as_str().is_some_and(|s| s.contains("calc.py")),
        "{}",
        system(0)
    );
    assert_eq!(system(2), system(0));
}

/// The diff a person approves is the diff written: the change is not worked out again when
/// they approve it. Worked out again, a file merely touched while the card waited (same
/// bytes, a newer time: an editor's save, a formatter, a checkout) was refused as changed
/// since the model read it, and the approved change was lost.
#[tokio::test]
async fn an_approved_change_is_written_as_shown_though_its_file_was_touched_while_it_waited() {
    let p = project();
    let file = p.path().join("greeting.txt");
    let s = Scenario::from_json(
        r#"{"name": "approved as shown", "format": "anthropic", "turns": [
            {"reply": {"tool_calls": [{"id": "t1", "name": "read_file", "input": {"path": "greeting.txt"}}]}},
            {"expect": {"tool_result_contains": "hi"}, "reply": {"tool_calls": [{"id": "t2", "name": "edit_file", "input": {"path": "greeting.txt", "old_string": "hi", "new_string": "hello"}}]}},
            {"expect": {"tool_result_contains": "Edited greeting.txt"}, "reply": {"text": "Done.", "tool_calls": [{"id": "t3", "name": "task_done", "input": {"summary": "It says hello."}}]}}
        ]}"#,
    )
    .expect("json");
    let touched = file.clone();
    let h = Harness::start(s, p.path(), Setup::new(Mode::Ask), move |q| {
        if q.tool == "edit_file" {
            assert_eq!(q.change.proposed.as_deref(), Some("hello\n"));
            let later = std::time::SystemTime::now() + std::time::Duration::from_secs(3600);
            std::fs::File::options()
                .write(true)
                .open(&touched)
                .and_then(|f| f.set_modified(later))
                .expect("touch");
        }
        ApprovalAnswer::Approve
    })
    .await;
    let outcome = h.run("Make it say hello").await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    assert_eq!(std::fs::read_to_string(&file).expect("read"), "hello\n");
}

/// And a file whose bytes changed while the card waited is never overwritten with what was
/// approved: nothing is written, and the model hears why.
#[tokio::test]
async fn an_approved_change_to_a_file_rewritten_meanwhile_writes_nothing() {
    let p = project();
    let file = p.path().join("greeting.txt");
    let s = Scenario::from_json(
        r#"{"name": "rewritten meanwhile", "format": "anthropic", "turns": [
            {"reply": {"tool_calls": [{"id": "t1", "name": "read_file", "input": {"path": "greeting.txt"}}]}},
            {"expect": {"tool_result_contains": "hi"}, "reply": {"tool_calls": [{"id": "t2", "name": "edit_file", "input": {"path": "greeting.txt", "old_string": "hi", "new_string": "hello"}}]}},
            {"expect": {"tool_result_contains": "changed on disk while this change waited"}, "reply": {"text": "It changed."}}
        ]}"#,
    )
    .expect("json");
    let rewritten = file.clone();
    let h = Harness::start(s, p.path(), Setup::new(Mode::Ask), move |q| {
        if q.tool == "edit_file" {
            std::fs::write(&rewritten, "hi there, from the person\n").expect("write");
        }
        ApprovalAnswer::Approve
    })
    .await;
    h.run("Make it say hello").await;
    assert_eq!(
        std::fs::read_to_string(&file).expect("read"),
        "hi there, from the person\n"
    );
}

/// Issue 47: megabytes of model text in one reply were logged whole and sent back on every
/// later request. The reply is kept cut (in the log, the window and the next request) and the
/// whole of it saved beside the command outputs.
#[tokio::test]
async fn a_reply_of_megabytes_is_logged_cut_and_not_sent_back_whole() {
    let p = project();
    let flood = format!("BEGIN {} FINAL", "la ".repeat(300_000));
    let s = Scenario::from_json(
        &serde_json::json!({"name": "a flood of text, then a question", "format": "openai", "turns": [
            {"reply": {"text": flood}},
            {"reply": {"text": "Short now."}}
        ]})
        .to_string(),
    )
    .expect("scenario");
    let h = Harness::start(s, p.path(), Setup::new(Mode::Ask), |_| {
        ApprovalAnswer::Approve
    })
    .await;
    h.run("Talk").await;
    h.run("Again").await;
    let log_dir = h.sessions_dir.join(h.session.id());
    let logged = std::fs::metadata(h.sessions_dir.join(format!("{}.jsonl", h.session.id())))
        .map_or(0, |m| m.len());
    assert!(
        logged > 0 && logged < 400_000,
        "the log holds {logged} bytes"
    );
    let second = h.server.requests()[1].body.to_string();
    assert!(
        second.len() < 400_000,
        "the next request carries {} bytes",
        second.len()
    );
    assert!(
        second.contains("BEGIN") && second.contains("FINAL"),
        "its start and end are kept"
    );
    assert!(second.contains("it was cut here to fit"));
    let saved = std::fs::read_dir(log_dir.join("outputs"))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .any(|e| std::fs::read_to_string(e.path()).is_ok_and(|t| t == flood));
    assert!(saved, "the whole reply is saved beside the outputs");
}

/// Issue 46: with a local server at a 4096-token context, no warning came until ~145k tokens:
/// the window was 200,000 for every model. The server's own context (llama-server's `/props`)
/// is the meter's now.
#[tokio::test]
async fn the_context_meter_uses_the_local_servers_own_context() {
    let p = project();
    let warned = |task: &str| {
        let s = Scenario::from_json(
            r#"{"name": "a server with a small context", "format": "openai", "context": 4096,
                "turns": [{"reply": {"text": "Read it."}}]}"#,
        )
        .expect("scenario");
        let task = task.to_string();
        let path = p.path().to_path_buf();
        async move {
            let h =
                Harness::start(s, &path, Setup::new(Mode::Ask), |_| ApprovalAnswer::Approve).await;
            h.run(&task).await;
            h.events().into_iter().find_map(|e| match e {
                AgentEvent::ContextFilling { used_percent, .. } => Some(used_percent),
                _ => None,
            })
        }
    };
    // About 3,000 tokens: three quarters of 4096, a sliver of 200,000.
    let filling = warned(&format!("Summarise this: {}", "word ".repeat(2_400))).await;
    assert!(
        filling.is_some_and(|p| p >= 75),
        "the meter warns against the server's 4096 tokens: {filling:?}"
    );
    // A short task: what every request carries besides it (the instructions, the tools'
    // definitions) fills the server's 4096 tokens too. Counted without them, nothing was said.
    let filling = warned("Read it.").await;
    assert!(
        filling.is_some_and(|p| p >= 70),
        "the instructions and the tools count: {filling:?}"
    );
}

/// Issue 48: a prompt may fill a model's context only up to the reply's room (the built-in
/// model keeps a quarter of its 8,192 tokens for the reply). Measured against the whole
/// context, a conversation was "61 %" full when it had 80 % of what a prompt may hold, and
/// the warning and the compaction came after the prompt had stopped fitting.
#[tokio::test]
async fn the_context_meter_leaves_the_replys_room() {
    let p = project();
    let s = Scenario::from_json(
        r#"{"name": "a server with the built-in model's context", "format": "openai",
            "context": 8192, "turns": [{"reply": {"text": "Read it."}}]}"#,
    )
    .expect("scenario");
    let h = Harness::start(s, p.path(), Setup::new(Mode::Ask), |_| {
        ApprovalAnswer::Approve
    })
    .await;
    // With the instructions and the tools' definitions (~4,000 tokens), ~4,800 tokens: 59 % of
    // 8,192 (no warning), 78 % of the 6,144 a prompt may fill.
    h.run(&format!("Summarise this: {}", "word ".repeat(700)))
        .await;
    let filling = h.events().into_iter().find_map(|e| match e {
        AgentEvent::ContextFilling { used_percent, .. } => Some(used_percent),
        _ => None,
    });
    assert!(
        filling.is_some_and(|p| (75..=95).contains(&p)),
        "the meter counts against the prompt's room: {filling:?}"
    );
}

/// Issue 46, item 7: approving a commit was blind — the card showed `{"message": …}`. It lists
/// each file with its diff, and marks a file whose change the person never saw in Tandem (made
/// before the session) apart from the agent's reviewed edit.
#[tokio::test]
async fn a_commit_card_lists_its_files_with_their_diffs_and_marks_a_change_not_seen() {
    let p = tempfile::tempdir().expect("tempdir");
    std::fs::write(p.path().join("a.txt"), "one\n").expect("write");
    std::fs::write(p.path().join("b.txt"), "bee\n").expect("write");
    test_support::git(p.path(), &["init", "-q"]);
    test_support::git(p.path(), &["add", "."]);
    test_support::git(p.path(), &["commit", "-qm", "start"]);
    // The person's change, before the session: not seen in Tandem.
    std::fs::write(p.path().join("b.txt"), "bee\nhive\n").expect("write");
    let s = Scenario::from_json(
        &serde_json::json!({"name": "edit then commit", "format": "anthropic", "turns": [
            {"reply": {"tool_calls": [{"id": "r1", "name": "read_file", "input": {"path": "a.txt"}}]}},
            {"reply": {"tool_calls": [{"id": "e1", "name": "edit_file",
                "input": {"path": "a.txt", "old_string": "one", "new_string": "two"}}]}},
            {"reply": {"tool_calls": [{"id": "c1", "name": "git_commit",
                "input": {"message": "Say two"}}]}},
            {"reply": {"tool_calls": [{"id": "d1", "name": "task_done",
                "input": {"summary": "Committed."}}]}}
        ]})
        .to_string(),
    )
    .expect("scenario");
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let keep = asked.clone();
    let h = Harness::start(s, p.path(), Setup::new(Mode::Ask), move |r| {
        keep.lock().expect("lock").push(r.clone());
        if r.commit.is_some() {
            ApprovalAnswer::Deny { message: None }
        } else {
            ApprovalAnswer::Approve
        }
    })
    .await;
    let _ = h.run("Change a to two and commit").await;
    let asked = asked.lock().expect("lock").clone();
    let commit = asked
        .iter()
        .find_map(|r| r.commit.clone())
        .expect("the commit was asked about, with its files");
    assert_eq!(commit.message, "Say two");
    let files: Vec<(&str, bool)> = commit
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.seen))
        .collect();
    assert_eq!(files, [("a.txt", true), ("b.txt", false)], "{commit:?}");
    assert!(
        commit
            .files
            .iter()
            .all(|f| f.change == protocol::CommitChange::Modified)
    );
    let a = &commit.files[0];
    assert!(
        a.diff.contains("-one") && a.diff.contains("+two"),
        "{}",
        a.diff
    );
    assert_eq!((a.added, a.removed), (1, 1));
    assert!(
        commit.files[1].diff.contains("+hive"),
        "{}",
        commit.files[1].diff
    );
}
