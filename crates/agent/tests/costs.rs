//! What a reply costs, as the meter shows it: a model on this computer is free, said as $0 —
//! not "price unknown", which would show the same nothing two ways.

use agent_harness as harness;

use harness::{Harness, Setup};
use model_server::Scenario;
use policy::Mode;
use protocol::{AgentEvent, ApprovalAnswer};

#[tokio::test]
async fn a_model_on_this_computer_costs_nothing_rather_than_an_unknown_price() {
    let project = tempfile::tempdir().expect("tempdir");
    let s = Scenario::from_json(
        r#"{"name": "one answer from a local model", "format": "openai",
            "turns": [{"reply": {"text": "Hello."}}]}"#,
    )
    .expect("scenario");
    // The scripted server listens on 127.0.0.1, and "scripted-model" has no price.
    let h = Harness::start(s, project.path(), Setup::new(Mode::Ask), |_| {
        ApprovalAnswer::Approve
    })
    .await;
    h.run("Say hello").await;
    let costs: Vec<Option<f64>> = h
        .events()
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Usage { cost_usd, .. } => Some(*cost_usd),
            _ => None,
        })
        .collect();
    assert_eq!(costs, [Some(0.0)]);
}

/// Issue 27: a spending limit holds. Each reply of a priced model costs $0.30 here; with $0.50
/// for the session, the turn stops before the third call (spent: $0.60, never more than the one
/// call in flight past the limit), says what was spent, and goes on once the person raises it.
#[tokio::test]
async fn a_session_limit_stops_before_the_next_call_and_raising_it_goes_on() {
    use protocol::{Amount, SpendLimits, SpendScope, TurnOutcome};
    let project = tempfile::tempdir().expect("tempdir");
    std::fs::write(project.path().join("a.txt"), "alpha\n").expect("write");
    let ledger = tempfile::tempdir().expect("tempdir");
    let read = |id: &str| {
        serde_json::json!({"reply": {"input_tokens": 100_000, "output_tokens": 0,
            "tool_calls": [{"id": id, "name": "read_file", "input": {"path": "a.txt"}}]}})
    };
    let s = Scenario::from_json(
        &serde_json::json!({"name": "priced replies", "format": "anthropic", "turns": [
            read("c1"), read("c2"),
            {"reply": {"input_tokens": 100_000, "tool_calls": [
                {"id": "d1", "name": "task_done", "input": {"summary": "read it"}}]}}
        ]})
        .to_string(),
    )
    .expect("scenario");
    let mut setup = Setup::new(Mode::Ask);
    setup.model = "claude-sonnet-4-5";
    let ledger_dir = ledger.path().to_path_buf();
    let setup = setup.with_options(move |o| {
        o.spend = agent::spend::SpendOptions {
            limits: SpendLimits {
                session_usd: Some(0.50),
                ..SpendLimits::default()
            },
            ledger_dir: Some(ledger_dir),
        }
    });
    let h = Harness::start(s, project.path(), setup, |_| ApprovalAnswer::Approve).await;
    let outcome = h.run("Read a.txt").await;
    let TurnOutcome::LimitReached { reached } = outcome else {
        panic!("the limit did not stop the turn: {outcome:?}");
    };
    assert_eq!(reached.scope, SpendScope::Session);
    assert_eq!(reached.limit, Amount::Usd { usd: 0.50 });
    let Amount::Usd { usd: spent } = reached.spent else {
        panic!("{reached:?}");
    };
    assert!((spent - 0.60).abs() < 1e-3, "{spent}");
    assert_eq!(h.server.requests().len(), 2, "no call past the limit");
    assert_eq!(
        agent::spend::limit_words(&reached),
        "the spending limit for this session ($0.50) is reached: $0.60 spent"
    );
    // Today's ledger counted both replies.
    assert!((h.session.spend_status().day_usd - 0.60).abs() < 1e-3);

    let status = h.session.set_limits(SpendLimits {
        session_usd: Some(2.0),
        ..SpendLimits::default()
    });
    assert_eq!(status.limits.session_usd, Some(2.0));
    let done = h.session.retry().expect("Retry goes on after a limit");
    let outcome = tokio::time::timeout(std::time::Duration::from_secs(60), done)
        .await
        .expect("no hang")
        .expect("the turn's outcome");
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
}

/// Issue 47: four named agents working at once under one session limit. Each reply costs
/// $0.45 (150,000 tokens of claude-sonnet-4-5 at $3 a million); with $2 for the session, the
/// calls in flight reserve what they are expected to cost, so all agents together pass the
/// limit by at most one call ($2.45): before, each agent checked only what was recorded while
/// the others' calls were in flight, and four workers spent $3.60.
#[tokio::test]
async fn four_priced_workers_pass_the_session_limit_by_at_most_one_call() {
    use protocol::SpendLimits;
    let project = tempfile::tempdir().expect("tempdir");
    std::fs::write(project.path().join("a.txt"), "alpha\n").expect("write");
    let ledger = tempfile::tempdir().expect("tempdir");
    let spawn = |n: u32| {
        serde_json::json!({"id": format!("p{n}"), "name": "agent_spawn", "input": {
            "name": format!("worker-{n}"), "desc": "reads files",
            "prompt": "Read what you are asked to.", "task": "Read a.txt again and again."}})
    };
    let mut turns = vec![serde_json::json!({"reply": {"input_tokens": 150_000,
        "tool_calls": [spawn(1), spawn(2), spawn(3), spawn(4)]}})];
    // Whoever calls next gets the next reply: a read of a.txt, $0.45.
    for i in 0..16 {
        turns.push(
            serde_json::json!({"reply": {"input_tokens": 150_000, "tool_calls": [
            {"id": format!("r{i}"), "name": "read_file",
             "input": {"path": "a.txt", "offset": i + 1}}]}}),
        );
    }
    let s = Scenario::from_json(
        &serde_json::json!({"name": "four priced workers", "format": "anthropic", "turns": turns})
            .to_string(),
    )
    .expect("scenario");
    let mut setup = Setup::new(Mode::FullAuto);
    setup.model = "claude-sonnet-4-5";
    let ledger_dir = ledger.path().to_path_buf();
    let setup = setup.with_options(move |o| {
        o.spend = agent::spend::SpendOptions {
            limits: SpendLimits {
                session_usd: Some(2.0),
                ..SpendLimits::default()
            },
            ledger_dir: Some(ledger_dir),
        }
    });
    let h = Harness::start(s, project.path(), setup, |_| ApprovalAnswer::Approve).await;
    let _ = h.run("Have four workers read a.txt").await;
    // Until no call has come for a second: every agent has stopped at the limit.
    let mut seen = usize::MAX;
    loop {
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        let now = h.server.requests().len();
        if now == seen {
            break;
        }
        seen = now;
    }
    let spent = h.session.spend_status().session_usd;
    assert!(
        spent <= 2.0 + 0.45 + 1e-6,
        "the agents together spent ${spent:.2} ({seen} calls) under a $2 limit"
    );
    assert!(
        spent >= 2.0 - 1e-6,
        "the work went on up to the limit: ${spent:.2}"
    );
    // The replies never asked for are this test's design, not a failure.
    let _ = h.server.failures();
}
