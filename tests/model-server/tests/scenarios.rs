//! The llm clients against the scripted server, scenario by scenario (tests/scenarios/llm_*).

use llm::{
    ChatRequest, LlmError, NotRunReason, Provider, ProviderConfig, ProviderKind, RetryPolicy,
    StreamEvent,
};
use model_server::{Format, Scenario, ScriptedServer};
use protocol::{ContentBlock, Message, Role, StopReason, ToolDefinition};
use serde_json::json;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

fn request() -> ChatRequest {
    ChatRequest {
        model: "scripted-model".into(),
        system: Some("You are Tandem.".into()),
        messages: vec![Message::user_text("Fix the bug in src/main.rs")],
        tools: vec![ToolDefinition {
            name: "read_file".into(),
            description: "Read a file".into(),
            input_schema: json!({"type": "object"}),
        }],
        max_tokens: 1024,
        temperature: None,
        call_required: false,
        fixed_messages: 0,
    }
}

async fn run(
    s: Scenario,
    req: &ChatRequest,
) -> (
    Result<llm::ChatResponse, LlmError>,
    Vec<StreamEvent>,
    ScriptedServer,
) {
    let kind = match s.format {
        Format::Anthropic => ProviderKind::Anthropic,
        Format::Openai => ProviderKind::OpenAi,
    };
    let server = ScriptedServer::start(s).await.expect("server");
    let mut config = ProviderConfig::new(kind, server.base_url(), Some("scripted-key".into()));
    config.retry = RetryPolicy {
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(200),
        ..RetryPolicy::default()
    };
    let provider = Provider::new(config).expect("provider");
    let mut events = Vec::new();
    let r = tokio::time::timeout(
        Duration::from_secs(20),
        provider.stream(req, &mut |e| events.push(e), &CancellationToken::new()),
    )
    .await
    .expect("no hang");
    (r, events, server)
}

#[tokio::test]
async fn anthropic_tool_call_split_at_every_byte() {
    let (r, _, server) = run(Scenario::named("llm_anthropic_tool_call.json"), &request()).await;
    let r = r.expect("reply");
    assert_eq!(r.stop_reason, StopReason::ToolUse);
    assert_eq!((r.usage.input_tokens, r.usage.output_tokens), (812, 64));
    assert!(
        matches!(&r.message.content[0], ContentBlock::Thinking { thinking, signature: Some(_) } if thinking == "The bug is in main — ü")
    );
    assert_eq!(
        r.message.content[2],
        ContentBlock::ToolUse {
            id: "toolu_01".into(),
            name: "read_file".into(),
            input: json!({"path": "src/main.rs", "offset": -20})
        }
    );
    let req = &server.requests()[0];
    assert_eq!(req.header("x-api-key"), Some("scripted-key"));
}

#[tokio::test]
async fn openai_two_tool_calls() {
    let (r, _, server) = run(Scenario::named("llm_openai_tool_calls.json"), &request()).await;
    let r = r.expect("reply");
    let names: Vec<_> = r
        .message
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolUse { name, .. } => Some(name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(names, ["list_files", "read_file"]);
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Bearer scripted-key")
    );
}

#[tokio::test]
async fn faults_are_retried_until_success() {
    let (r, events, _server) =
        run(Scenario::named("llm_faults_then_success.json"), &request()).await;
    let r = r.expect("reply");
    assert_eq!(r.attempts, 4);
    assert_eq!(r.message.text(), "All good now.");
    assert_eq!(
        events
            .iter()
            .filter(|e| **e == StreamEvent::Restart)
            .count(),
        1,
        "only the cut stream had shown text that must be taken back"
    );
    let first_text = events
        .iter()
        .position(|e| matches!(e, StreamEvent::TextDelta(_)))
        .expect("the cut attempt streamed text");
    let restart = events
        .iter()
        .position(|e| *e == StreamEvent::Restart)
        .expect("a restart");
    assert!(
        first_text < restart,
        "text was shown before the stream broke"
    );
}

#[tokio::test]
async fn malformed_tool_arguments_are_reported() {
    let (r, _, _server) = run(Scenario::named("llm_malformed_tool_json.json"), &request()).await;
    let r = r.expect("reply");
    assert_eq!(r.malformed_tool_calls.len(), 1);
    assert_eq!(
        r.malformed_tool_calls[0].raw,
        "{\"path\": \"a.rs\", \"old_string\": }"
    );
}

#[tokio::test]
async fn tool_results_reach_the_model_and_failed_checks_are_reported() {
    let mut req = request();
    req.messages.push(Message {
        role: Role::Assistant,
        content: vec![ContentBlock::ToolUse {
            id: "c1".into(),
            name: "read_file".into(),
            input: json!({"path": "src/main.rs"}),
        }],
    });
    req.messages.push(Message {
        role: Role::User,
        content: vec![ContentBlock::ToolResult {
            tool_use_id: "c1".into(),
            content: "   1 | fn main() {}".into(),
            is_error: false,
        }],
    });
    let (r, _, _server) = run(Scenario::named("llm_tool_result_round_trip.json"), &req).await;
    assert_eq!(r.expect("reply").message.text(), "The file defines main.");

    // The same scenario with a request lacking the tool result: the check must fail.
    let (_, _, server) = run(
        Scenario::named("llm_tool_result_round_trip.json"),
        &request(),
    )
    .await;
    let failures = server.failures();
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(
        failures[0].contains("no tool result contains"),
        "{failures:?}"
    );
}

#[tokio::test]
async fn a_scenario_not_played_to_the_end_is_a_failure() {
    let s = Scenario::from_json(r#"{"name": "two turns", "format": "anthropic", "turns": [{"reply": {"text": "a"}}, {"reply": {"text": "b"}}]}"#).expect("json");
    let (_, _, server) = run(s, &request()).await;
    assert!(
        server
            .failures()
            .iter()
            .any(|f| f.contains("2 turns but only 1")),
        "{:?}",
        server.failures()
    );
    assert!(Scenario::from_json(r#"{"name": "x", "format": "gemini", "turns": []}"#).is_err());
}

// A hostile or broken server: every reply below once crashed, hung or misled the client.

fn with_tools(tools: Vec<ToolDefinition>) -> ChatRequest {
    ChatRequest { tools, ..request() }
}

fn tool(name: &str, schema: serde_json::Value) -> ToolDefinition {
    ToolDefinition {
        name: name.into(),
        description: format!("The {name} tool"),
        input_schema: schema,
    }
}

#[tokio::test]
async fn retry_after_values_that_make_no_sense_are_ignored_not_fatal() {
    let (r, events, _server) =
        run(Scenario::named("llm_retry_after_nonsense.json"), &request()).await;
    let r = r.expect("the sixth attempt answers");
    assert_eq!((r.attempts, r.message.text().as_str()), (6, "Still here."));
    let waits = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::Retrying { .. }))
        .count();
    assert_eq!(waits, 5, "{events:?}");
}

#[tokio::test]
async fn a_wait_beyond_the_ceiling_is_reported_at_once() {
    let (r, _, server) = run(
        Scenario::named("llm_retry_after_beyond_ceiling.json"),
        &request(),
    )
    .await;
    let err = r.expect_err("not waited out");
    assert!(matches!(err, LlmError::RateLimited { .. }), "{err:?}");
    assert!(err.to_string().contains("wait"), "{err}");
    assert_eq!(server.requests().len(), 1, "no retry after 1e300 seconds");
}

#[tokio::test]
async fn retry_after_is_read_in_its_http_date_form() {
    let mut dated = Scenario::named("llm_retry_after_beyond_ceiling.json");
    if let Some(fault) = dated.turns[0].fault.as_mut() {
        fault
            .headers
            .insert("retry-after".into(), "Tue, 31 Dec 2999 23:59:59 GMT".into());
    }
    let (r, _, server) = run(dated, &request()).await;
    assert!(
        matches!(
            r,
            Err(LlmError::RateLimited {
                retry_after: Some(_)
            })
        ),
        "the HTTP-date form is read: {r:?}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn anthropic_block_indexes_are_keys_not_sizes() {
    let (r, _, _server) = run(
        Scenario::named("llm_anthropic_huge_block_index.json"),
        &request(),
    )
    .await;
    let texts: Vec<String> = r
        .expect("reply")
        .message
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text { text } => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(texts, ["near", "far", "farther"]);
}

#[tokio::test]
async fn a_4_mb_event_parses_in_linear_time() {
    let started = std::time::Instant::now();
    let (r, _, _server) = run(Scenario::named("llm_openai_huge_event.json"), &request()).await;
    let text = r.expect("reply").message.text();
    assert_eq!(text.len(), 67 * 65536);
    assert!(text.ends_with("a backslash \\ to escape\n"));
    // Quadratic parsing took 27 s (release) for this; linear takes well under a second.
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn an_event_over_the_cap_is_refused_with_a_clear_error() {
    let (r, _, server) = run(
        Scenario::named("llm_openai_event_over_cap.json"),
        &request(),
    )
    .await;
    let err = r.expect_err("over the cap");
    assert!(matches!(err, LlmError::Protocol(_)), "{err:?}");
    assert!(err.to_string().contains("MB"), "{err}");
    assert_eq!(server.requests().len(), 1, "a refused event is not retried");
}

#[tokio::test]
async fn a_name_repeated_in_every_chunk_is_taken_once() {
    let (r, events, _server) = run(
        Scenario::named("llm_openai_name_every_chunk.json"),
        &request(),
    )
    .await;
    let r = r.expect("reply");
    assert_eq!(
        r.message.content,
        vec![
            ContentBlock::ToolUse {
                id: "call_1".into(),
                name: "read_file".into(),
                input: json!({"path": "src/main.rs", "offset": 10})
            },
            ContentBlock::ToolUse {
                id: "call_2".into(),
                name: "list_files".into(),
                input: json!({"path": "src"})
            },
        ]
    );
    let started = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::ToolUseStarted { .. }))
        .count();
    assert_eq!(started, 2, "one start per call: {events:?}");
}

#[tokio::test]
async fn lenient_mode_runs_the_first_block_that_fits_of_several() {
    let req = with_tools(vec![
        tool(
            "read_file",
            json!({"type": "object", "properties": {"path": {"type": "string"}, "offset": {"type": ["integer", "null"]}}, "required": ["path"], "additionalProperties": false}),
        ),
        tool(
            "edit_file",
            json!({"type": "object", "properties": {"path": {"type": "string"}, "old_string": {"type": "string"}, "new_string": {"type": "string"}}, "required": ["path"]}),
        ),
        tool(
            "run_command",
            json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}),
        ),
    ]);
    let s = Scenario::named("llm_lenient_several_blocks.json");
    let server = ScriptedServer::start(s).await.expect("server");
    let mut config = ProviderConfig::new(ProviderKind::OpenAi, server.base_url(), None);
    config.lenient_tool_calls = true;
    let mut events = Vec::new();
    let r = Provider::new(config)
        .expect("provider")
        .stream(&req, &mut |e| events.push(e), &CancellationToken::new())
        .await
        .expect("reply");
    assert_eq!(r.stop_reason, StopReason::ToolUse);
    let calls: Vec<(&str, &serde_json::Value)> = r
        .message
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolUse { name, input, .. } => Some((name.as_str(), input)),
            _ => None,
        })
        .collect();
    assert_eq!(calls, [("read_file", &json!({"path": "calc.py"}))]);
    assert_eq!(
        r.message.text(),
        "I'll fix the sum in a few steps.\n\n```json\n{\"name\": \"plan\", \"arguments\": {\"steps\": 3}}\n```\n\n```json\n{\"name\": \"read_file\", \"arguments\": {\"file\": \"calc.py\"}}\n```\n\nFirst, read the file:",
        "the prose before the call stays; the blocks after it are reported instead"
    );
    let lenient = r.lenient.expect("what lenient mode did");
    assert!(
        lenient
            .call_id
            .as_deref()
            .is_some_and(|id| id.starts_with("text_call_")),
        "{lenient:?}"
    );
    let not_run: Vec<(&str, &NotRunReason)> = lenient
        .not_run
        .iter()
        .map(|n| (n.name.as_str(), &n.reason))
        .collect();
    assert_eq!(
        not_run,
        [
            ("plan", &NotRunReason::UnknownTool),
            (
                "read_file",
                &NotRunReason::ArgumentsDoNotFit("unknown argument `file`; missing `path`".into())
            ),
            ("edit_file", &NotRunReason::OnePerReply),
            ("run_command", &NotRunReason::OnePerReply),
        ]
    );
    let note = lenient.note().expect("the model is told");
    assert!(note.contains("one call per reply"), "{note}");
    assert!(note.contains("`edit_file`, `run_command`"), "{note}");
    assert!(
        events
            .iter()
            .any(|e| matches!(e, StreamEvent::Notice(n) if n.contains("4 other blocks written as calls did not run"))),
        "the user is told too: {events:?}"
    );
}
