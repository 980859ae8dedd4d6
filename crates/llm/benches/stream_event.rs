//! Reading one 4 MB stream event, against `serde_json::from_slice` of the same event's JSON
//! measured in the same run. Reading must stay linear in the event's size: the old reader
//! took 27 s on this event. Two shapes: a reply's text in one event (a server that does not
//! stream token by token) and a tool call's arguments in one event (a whole file for
//! write_file), read the way the network delivers it, 16 KB at a time. `cargo bench -p llm`.

use llm::{ChatRequest, ProviderConfig, ProviderKind, parse_stream};
use protocol::{Message, ToolDefinition};
use serde_json::{Value, json};
use std::sync::OnceLock;

fn main() {
    divan::main();
}

const EVENT_BYTES: usize = 4 * 1024 * 1024;
const NETWORK_CHUNK: usize = 16 * 1024;

/// Source-like text with what JSON must escape: quotes, backslashes, newlines, tabs, non-ASCII.
fn file_text() -> String {
    let line = "    let s = \"ünïcödé — a \\\"quoted\\\" path\\\\to\\\\file\";\t// comment\n";
    line.repeat(EVENT_BYTES / line.len())
}

struct Recording {
    /// The whole response body: the big event, the finish and `[DONE]`.
    body: Vec<u8>,
    /// The big event's JSON alone (its `data:` line).
    event_json: Vec<u8>,
}

fn recording(chunk: Value) -> Recording {
    let event_json = chunk.to_string().into_bytes();
    let mut body = b"data: ".to_vec();
    body.extend_from_slice(&event_json);
    body.extend_from_slice(b"\n\n");
    let finish = json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]});
    body.extend_from_slice(format!("data: {finish}\n\ndata: [DONE]\n\n").as_bytes());
    Recording { body, event_json }
}

fn text_event() -> &'static Recording {
    static R: OnceLock<Recording> = OnceLock::new();
    R.get_or_init(|| {
        recording(json!({"choices": [{"index": 0, "delta": {"content": file_text()}}]}))
    })
}

fn arguments_event() -> &'static Recording {
    static R: OnceLock<Recording> = OnceLock::new();
    R.get_or_init(|| {
        let arguments = json!({"path": "src/big.rs", "content": file_text()}).to_string();
        recording(json!({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": "call_1", "type": "function",
             "function": {"name": "write_file", "arguments": arguments}}
        ]}}]}))
    })
}

fn request() -> ChatRequest {
    ChatRequest {
        model: "bench".into(),
        system: None,
        messages: vec![Message::user_text("write it")],
        tools: vec![ToolDefinition {
            name: "write_file".into(),
            description: String::new(),
            input_schema: json!({"type": "object"}),
        }],
        max_tokens: 1024,
        temperature: None,
        call_required: false,
        fixed_messages: 0,
    }
}

fn read(r: &Recording) -> usize {
    let config = ProviderConfig::new(ProviderKind::OpenAi, "http://127.0.0.1:1", None);
    let reply = parse_stream(
        &config,
        &request(),
        r.body.chunks(NETWORK_CHUNK),
        &mut |_| {},
    )
    .expect("the event reads");
    reply.message.content.len()
}

#[divan::bench(sample_count = 20)]
fn text_event_read_by_llm() -> usize {
    read(text_event())
}

#[divan::bench(sample_count = 20)]
fn text_event_serde_json_from_slice() -> Value {
    serde_json::from_slice(&text_event().event_json).expect("json")
}

#[divan::bench(sample_count = 20)]
fn arguments_event_read_by_llm() -> usize {
    read(arguments_event())
}

#[divan::bench(sample_count = 20)]
fn arguments_event_serde_json_from_slice() -> Value {
    serde_json::from_slice(&arguments_event().event_json).expect("json")
}
