//! The call layer on the Berkeley function-calling suite, for scripts/bench-bfcl.py:
//! `cargo run -p builtin --example bfcl -- MODEL.gguf < entries.jsonl > calls.jsonl`.
//!
//! Each input line is `{"id", "system", "question", "functions": [{name, description,
//! parameters (JSON schema)}]}`; each output line `{"id", "calls": [{"name", "arguments"}],
//! "text", "prompt_tokens", "generated_tokens", "seconds"}`. The reply is written as the agent
//! writes one: the tools' grammar holds once the model starts a call, and the calls are read
//! from its text by the same code.

use builtin::{Engine, Generation, LoadOptions};
use llm::ChatRequest;
use protocol::{ContentBlock, Message, ToolDefinition};
use serde_json::{Value, json};
use std::io::{BufRead, Write};
use std::time::Instant;
use tokio_util::sync::CancellationToken;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = std::env::args()
        .nth(1)
        .ok_or("usage: bfcl MODEL.gguf < entries.jsonl")?;
    let engine = Engine::load(LoadOptions::new(model))?;
    let cancel = CancellationToken::new();
    let stdout = std::io::stdout();
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let entry: Value = serde_json::from_str(&line)?;
        let tools = entry["functions"]
            .as_array()
            .ok_or("an entry without functions")?
            .iter()
            .map(|f| ToolDefinition {
                name: f["name"].as_str().unwrap_or_default().to_string(),
                description: f["description"].as_str().unwrap_or_default().to_string(),
                input_schema: f["parameters"].clone(),
            })
            .collect();
        let req = ChatRequest {
            model: llm::BUILTIN_MODEL.into(),
            system: entry["system"].as_str().map(str::to_string),
            messages: vec![Message::user_text(
                entry["question"].as_str().unwrap_or_default(),
            )],
            tools,
            max_tokens: 512,
            temperature: Some(0.0),
            // Every question needs a call, as the agent's steps do: the call grammar holds from
            // the first token (a reply in prose was 5 of 6 misses without it).
            call_required: true,
            fixed_messages: 0,
        };
        let started = Instant::now();
        let how = Generation {
            force_tool_call: req.call_required,
        };
        let reply = engine.reply(&req, how, &mut |_| {}, &cancel).await;
        let out = match reply {
            Ok(resp) => {
                let calls: Vec<Value> = resp
                    .message
                    .content
                    .iter()
                    .filter_map(|b| match b {
                        ContentBlock::ToolUse { name, input, .. } => {
                            Some(json!({"name": name, "arguments": input}))
                        }
                        _ => None,
                    })
                    .collect();
                json!({
                    "id": entry["id"],
                    "calls": calls,
                    "text": resp.message.text(),
                    "prompt_tokens": resp.usage.input_tokens + resp.usage.cache_read_tokens,
                    "generated_tokens": resp.usage.output_tokens,
                    "seconds": started.elapsed().as_secs_f64(),
                })
            }
            Err(e) => json!({"id": entry["id"], "calls": [], "error": e.to_string()}),
        };
        let mut lock = stdout.lock();
        writeln!(lock, "{out}")?;
        lock.flush()?;
    }
    Ok(())
}
