//! The built-in model's numbers on this machine, for docs/benchmarks.md (run by
//! scripts/bench-builtin.py, which measures llama-server on the same prompts):
//! `cargo run -p builtin --example bench -- MODEL.gguf OUT_DIR`.
//!
//! Two turns of an agent's task: the system prompt with three tools and the task, then the
//! same conversation with the first call's result. Prints one JSON object: load time, each
//! turn's token counts and speeds, time to its tool call, resident memory. Each turn's rendered
//! prompt is written to OUT_DIR/turnN.txt.

use builtin::{Engine, Generation, KvCache, LoadOptions, Produced};
use llm::{ChatRequest, TextStop};
use protocol::{ContentBlock, Message, Role, ToolDefinition};
use serde_json::json;
use std::time::Instant;
use tokio_util::sync::CancellationToken;

const SYSTEM: &str = "You are Tandem, a coding agent working in the user's project. Use the tools to read and change files and to run commands. Work one step at a time: call one tool, read its result, then decide the next step. Never guess a file's content: read it first. When the task is done, say so in one sentence.";

fn tools() -> Vec<ToolDefinition> {
    vec![
        ToolDefinition {
            name: "read_file".into(),
            description: "Reads a text file of the project and returns its lines.".into(),
            input_schema: json!({"type":"object","properties":{"path":{"type":"string","description":"Path relative to the project root"}},"required":["path"]}),
        },
        ToolDefinition {
            name: "edit_file".into(),
            description:
                "Replaces old_text with new_text in a file. old_text must appear exactly once."
                    .into(),
            input_schema: json!({"type":"object","properties":{"path":{"type":"string"},"old_text":{"type":"string"},"new_text":{"type":"string"}},"required":["path","old_text","new_text"]}),
        },
        ToolDefinition {
            name: "run_command".into(),
            description: "Runs a shell command in the project folder and returns its output."
                .into(),
            input_schema: json!({"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}),
        },
    ]
}

fn rss_mb(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb / 1024)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let model = args.next().ok_or("usage: bench MODEL.gguf OUT_DIR")?;
    let out = std::path::PathBuf::from(args.next().ok_or("usage: bench MODEL.gguf OUT_DIR")?);
    std::fs::create_dir_all(&out)?;
    // The memory settings to measure, from the environment (the defaults otherwise):
    // BENCH_KV=q8|f16, BENCH_MMAP=0|1, BENCH_CTX=tokens.
    let mut opts = LoadOptions::new(model);
    match std::env::var("BENCH_KV").as_deref() {
        Ok("q8") => opts.kv_cache = KvCache::Q8,
        Ok("f16") => opts.kv_cache = KvCache::F16,
        _ => {}
    }
    match std::env::var("BENCH_MMAP").as_deref() {
        Ok("0") => opts.use_mmap = false,
        Ok("1") => opts.use_mmap = true,
        _ => {}
    }
    if let Some(n) = std::env::var("BENCH_CTX").ok().and_then(|v| v.parse().ok()) {
        opts.n_ctx = n;
    }
    eprintln!("bench: {opts:?}");
    let engine = Engine::load(opts)?;
    let rss_loaded = rss_mb("VmRSS:");

    let task = Message::user_text(
        "Step 1: read calc.py. Step 2: make add return a + b with edit_file. Step 3: run `python3 -m unittest test_calc`. Then finish.",
    );
    let mut messages = vec![task];
    let mut turns = Vec::new();
    for turn in 1..=2 {
        let req = ChatRequest {
            model: "builtin".into(),
            system: Some(SYSTEM.into()),
            messages: messages.clone(),
            tools: tools(),
            max_tokens: 128,
            temperature: Some(0.0),
            call_required: false,
            fixed_messages: 0,
        };
        let started = Instant::now();
        let mut first_piece = None;
        let outcome = engine
            .generate(
                &req,
                Generation::default(),
                &mut |p| {
                    if let Produced::Text(_) = p {
                        first_piece.get_or_insert_with(|| started.elapsed());
                    }
                },
                &CancellationToken::new(),
            )
            .await?;
        let wall = started.elapsed();
        std::fs::write(out.join(format!("turn{turn}.txt")), &outcome.prompt)?;
        let reply = llm::reply_from_text(
            &outcome.text,
            outcome.stop,
            Default::default(),
            &req,
            &mut |_| {},
        );
        let call = reply.message.content.iter().find_map(|b| match b {
            ContentBlock::ToolUse { name, input, .. } => {
                Some(json!({"name": name, "input": input}))
            }
            _ => None,
        });
        let s = outcome.stats;
        turns.push(json!({
            "turn": turn,
            "prompt_tokens": s.prompt_tokens,
            "reused_tokens": s.reused_tokens,
            "prompt_tok_per_s": s.prompt_per_second(),
            "generated_tokens": s.generated_tokens,
            "generation_tok_per_s": s.generation_per_second(),
            "first_token_s": s.first_token.as_secs_f64(),
            "tool_call_s": wall.as_secs_f64(),
            "stopped": matches!(outcome.stop, TextStop::EndTurn),
            "call": call,
            "text": outcome.text,
        }));
        // The next turn: the call and a plausible result, as the agent would send them.
        messages.push(reply.message.clone());
        let result = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n";
        let id = reply
            .message
            .content
            .iter()
            .find_map(|b| match b {
                ContentBlock::ToolUse { id, .. } => Some(id.clone()),
                _ => None,
            })
            .unwrap_or_else(|| "none".into());
        messages.push(Message {
            role: Role::User,
            content: vec![ContentBlock::ToolResult {
                tool_use_id: id,
                content: result.into(),
                is_error: false,
            }],
        });
    }
    // Stop while a long prompt is read (a new conversation: nothing of it is cached), then
    // how long the model's thread took to be free.
    let cancel = CancellationToken::new();
    let long = ChatRequest {
        model: "builtin".into(),
        system: Some(format!("{} {}", "Answer briefly.", SYSTEM.repeat(12))),
        messages: vec![Message::user_text("Say ok.")],
        tools: tools(),
        max_tokens: 8,
        temperature: Some(0.0),
        call_required: false,
        fixed_messages: 0,
    };
    let c = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
        c.cancel();
    });
    let _ = engine
        .generate(&long, Generation::default(), &mut |_| {}, &cancel)
        .await;
    let short = ChatRequest {
        max_tokens: 1,
        ..long.clone()
    };
    let _ = engine
        .generate(
            &short,
            Generation::default(),
            &mut |_| {},
            &CancellationToken::new(),
        )
        .await;
    let stop = engine.last_stop();
    println!(
        "{}",
        json!({
            "stop_ms": stop.map(|s| s.latency.as_secs_f64() * 1000.0),
            "stop_inside_call": stop.map(|s| s.inside_call),
            "load_s": engine.info().load_time.as_secs_f64(),
            "n_ctx": engine.info().n_ctx,
            "rss_loaded_mb": rss_loaded,
            "rss_peak_mb": rss_mb("VmHWM:"),
            "turns": turns,
        })
    );
    Ok(())
}
