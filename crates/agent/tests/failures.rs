//! What a person sees when the model cannot be used: the session against a stopped server, a
//! web page at the address, an address without `http://`, and no model set up — through the
//! same provider resolver the window and the CLI use. Each says what happened and what to do
//! in words; the raw error is only ever the detail.

use agent::{Sandboxing, Session, SessionOptions};
use config::{Preset, PresetSlot};
use llm::ProviderKind;
use protocol::{AgentEvent, FailureCode, TurnOutcome};
use std::time::Duration;
use test_support::wait_until;

/// Runs one turn against whatever `preset` points at (None: the empty settings file) and
/// returns every event and the outcome.
async fn turn(preset: Option<Preset>) -> (Vec<AgentEvent>, TurnOutcome) {
    let project = tempfile::tempdir().expect("tempdir");
    let config_dir = tempfile::tempdir().expect("tempdir");
    let sessions = tempfile::tempdir().expect("tempdir");
    let opts = SessionOptions::new(
        tools::ProjectRoot::open(project.path()).expect("open"),
        sessions.path().to_path_buf(),
        config::provider_resolver(
            PresetSlot::new(preset),
            config_dir.path().join("settings.toml"),
            config::no_builtin(),
        ),
    )
    .with(|o| o.sandboxing = Sandboxing::Off);
    let (session, mut events) = Session::create(opts, "fix it").expect("session");
    let outcome = tokio::time::timeout(Duration::from_secs(60), session.run("Fix the bug"))
        .await
        .expect("no hang")
        .expect("turn");
    drop(session);
    let mut seen = Vec::new();
    while let Ok(Some(e)) = tokio::time::timeout(Duration::from_secs(5), events.recv()).await {
        seen.push(e);
    }
    (seen, outcome)
}

fn openai(base_url: &str) -> Option<Preset> {
    Some(Preset {
        kind: ProviderKind::OpenAi,
        base_url: base_url.into(),
        model: "qwen2.5-coder:7b".into(),
        model_path: None,
    })
}

fn failed(outcome: &TurnOutcome) -> &protocol::EngineError {
    match outcome {
        TurnOutcome::Failed { error } => error,
        other => panic!("expected a failure, got {other:?}"),
    }
}

/// Every text a person reads in the transcript.
fn shown(events: &[AgentEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Notice { text } => Some(text.clone()),
            AgentEvent::Error { error } => Some(error.message.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_stopped_server_says_so_once_while_retrying_then_what_to_do() {
    // A port held bound but not listening: connecting is refused, and no other test (they run
    // side by side) can be given it, as happened with a port bound and let go (a neighbour's
    // 502 server answered there).
    let held = tokio::net::TcpSocket::new_v4().expect("socket");
    held.bind("127.0.0.1:0".parse().expect("addr"))
        .expect("bind");
    let port = held.local_addr().expect("port").port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let (events, outcome) = turn(openai(&url)).await;
    drop(held);
    let error = failed(&outcome);
    assert_eq!(error.code, FailureCode::Unreachable);
    assert!(
        error.message.starts_with(&format!(
            "Nothing answered at {url}: the model server is not running there"
        )),
        "{}",
        error.message
    );
    let texts = shown(&events);
    let notices: Vec<&AgentEvent> = events
        .iter()
        .filter(|e| matches!(e, AgentEvent::Notice { .. }))
        .collect();
    assert_eq!(notices.len(), 1, "one line while retrying: {texts:#?}");
    for t in &texts {
        assert!(!t.contains("error sending request"), "{t}");
    }
    assert!(
        error
            .detail
            .as_deref()
            .is_some_and(|d| d.contains("Connection refused")),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_web_page_at_the_address_is_named_a_wrong_address_once() {
    // Counted here: a route is a plain function, and this one test serves it.
    static REQUESTS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let url = test_support::http::serve(|request| {
        // The chat requests (the client may also ask the server its context first).
        if request.contains("chat/completions") {
            REQUESTS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
        let page = "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>";
        test_support::http::respond("502 Bad Gateway", "text/html", page, "")
    })
    .await;
    let (events, outcome) = turn(openai(&url)).await;
    let error = failed(&outcome);
    assert_eq!(error.code, FailureCode::NotAModelServer);
    assert!(
        error
            .message
            .contains("answered with a web page (HTTP 502)"),
        "{}",
        error.message
    );
    let texts = shown(&events);
    assert!(
        texts.iter().all(|t| !t.contains('<')),
        "no HTML on screen: {texts:#?}"
    );
    assert!(
        !texts.iter().any(|t| t.contains("in a moment")),
        "retrying cannot fix a wrong address: {texts:#?}"
    );
    assert_eq!(
        REQUESTS.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "asked once, not four times"
    );
}

#[tokio::test]
async fn an_address_without_http_asks_for_it_in_settings() {
    let (_, outcome) = turn(openai("127.0.0.1:8080/v1")).await;
    let error = failed(&outcome);
    assert_eq!(error.code, FailureCode::BadAddress);
    assert_eq!(
        error.message,
        "The address “127.0.0.1:8080/v1” is missing http:// at the start. Change it in Settings to http://127.0.0.1:8080/v1."
    );
}

#[tokio::test]
async fn no_model_set_up_points_to_settings_without_files_or_variables() {
    let (_, outcome) = turn(None).await;
    let error = failed(&outcome);
    assert_eq!(error.code, FailureCode::NoProvider);
    assert_eq!(
        error.message,
        "No model is set up yet. Open Settings to connect one."
    );
    assert!(!error.message.contains("settings.toml"));
    assert!(!error.message.contains("TANDEM_"));
}

/// Retry acts on the session's last outcome while it is a failure: live after the failed
/// turn, and again after the session is reopened from its log.
#[tokio::test]
async fn retry_is_offered_for_a_failed_last_turn_also_after_reopening() {
    let project = tempfile::tempdir().expect("tempdir");
    let config_dir = tempfile::tempdir().expect("tempdir");
    let sessions = tempfile::tempdir().expect("tempdir");
    let opts = || {
        SessionOptions::new(
            tools::ProjectRoot::open(project.path()).expect("open"),
            sessions.path().to_path_buf(),
            config::provider_resolver(
                PresetSlot::new(None),
                config_dir.path().join("settings.toml"),
                config::no_builtin(),
            ),
        )
        .with(|o| o.sandboxing = Sandboxing::Off)
    };
    let (session, _events) = Session::create(opts(), "fix it").expect("session");
    let first = session.run("Fix the bug").await.expect("turn");
    assert_eq!(failed(&first).code, FailureCode::NoProvider);
    let again = session
        .retry()
        .expect("a failed last turn may be tried again");
    assert_eq!(
        failed(&again.await.expect("outcome")).code,
        FailureCode::NoProvider
    );
    let id = session.id().to_string();
    drop(session);
    // The log is let go once the engine has ended.
    let mut reopened = None;
    wait_until(
        "the ended engine to let go of the log",
        Duration::from_secs(10),
        || {
            match Session::open(opts(), &id) {
                Ok((s, _)) => reopened = Some(s),
                Err(agent::SessionError::Log(agent::LogError::Busy(_))) => {}
                Err(e) => panic!("{e}"),
            }
            std::future::ready(reopened.is_some())
        },
    )
    .await
    .unwrap_or_else(|e| panic!("{e}"));
    let reopened = reopened.expect("reopened");
    let retried = reopened.retry().expect("still failed after reopening");
    assert_eq!(
        failed(&retried.await.expect("outcome")).code,
        FailureCode::NoProvider
    );
}
