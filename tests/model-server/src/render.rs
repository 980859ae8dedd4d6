//! Scripted replies in each vendor's streaming wire format.

use crate::scenario::{Format, RawEvent, Reply};
use serde_json::{Value, json};

fn event(name: &str, data: Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// Splits a string into pieces of about `n` characters (tool JSON arrives in pieces), or
/// leaves it whole when the reply says so.
fn pieces(s: &str, n: usize, whole: bool) -> Vec<String> {
    if whole {
        return vec![s.to_string()];
    }
    let chars: Vec<char> = s.chars().collect();
    chars.chunks(n.max(1)).map(|c| c.iter().collect()).collect()
}

/// The reply's text, repeated as often as it asks.
fn text_of(reply: &Reply) -> Option<String> {
    let t = reply.text.as_ref()?;
    Some(t.repeat(reply.text_repeat.unwrap_or(1)))
}

fn anthropic(reply: &Reply) -> String {
    let mut out = event(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_scripted", "type": "message", "role": "assistant", "content": [], "usage": {"input_tokens": reply.input_tokens, "output_tokens": 1}}}),
    );
    let mut index = 0;
    if let Some(t) = &reply.thinking {
        out += &event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": {"type": "thinking", "thinking": ""}}),
        );
        out += &event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index, "delta": {"type": "thinking_delta", "thinking": t}}),
        );
        out += &event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index, "delta": {"type": "signature_delta", "signature": "scripted-signature"}}),
        );
        out += &event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        );
        index += 1;
    }
    if let Some(t) = &text_of(reply) {
        out += &event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}),
        );
        for p in pieces(t, 8, reply.whole) {
            out += &event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": p}}),
            );
        }
        out += &event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        );
        index += 1;
    }
    out += &event("ping", json!({"type": "ping"}));
    for call in &reply.tool_calls {
        out += &event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}}),
        );
        let args = call
            .raw_input
            .clone()
            .unwrap_or_else(|| call.input.to_string());
        for p in pieces(&args, 5, reply.whole) {
            out += &event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": p}}),
            );
        }
        out += &event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        );
        index += 1;
    }
    let stop = if reply.tool_calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    };
    out += &event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": reply.output_tokens}}),
    );
    out += &event("message_stop", json!({"type": "message_stop"}));
    out
}

fn openai(reply: &Reply) -> String {
    let chunk = |delta: Value, finish: Value| {
        format!(
            "data: {}\n\n",
            json!({"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        )
    };
    let mut out = chunk(json!({"role": "assistant", "content": ""}), Value::Null);
    if let Some(t) = &text_of(reply) {
        for p in pieces(t, 8, reply.whole) {
            out += &chunk(json!({"content": p}), Value::Null);
        }
    }
    for (i, call) in reply.tool_calls.iter().enumerate() {
        out += &chunk(
            json!({"tool_calls": [{"index": i, "id": call.id, "type": "function", "function": {"name": call.name, "arguments": ""}}]}),
            Value::Null,
        );
        let args = call
            .raw_input
            .clone()
            .unwrap_or_else(|| call.input.to_string());
        for p in pieces(&args, 5, reply.whole) {
            let mut function = json!({"arguments": p});
            if call.name_every_chunk {
                function["name"] = json!(call.name);
            }
            out += &chunk(
                json!({"tool_calls": [{"index": i, "function": function}]}),
                Value::Null,
            );
        }
    }
    let finish = if reply.tool_calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    out += &chunk(json!({}), json!(finish));
    out += &format!(
        "data: {}\n\n",
        json!({"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "choices": [], "usage": {"prompt_tokens": reply.input_tokens, "completion_tokens": reply.output_tokens, "total_tokens": reply.input_tokens + reply.output_tokens}})
    );
    out += "data: [DONE]\n\n";
    out
}

/// Raw events, exactly as scripted.
pub(crate) fn raw(events: &[RawEvent]) -> String {
    let mut out = String::new();
    for e in events {
        if let Some(name) = &e.event {
            out += &format!("event: {name}\n");
        }
        let data = match (&e.text, &e.data) {
            (Some(t), _) => t.clone(),
            (None, Some(d)) => d.to_string(),
            (None, None) => String::new(),
        };
        out += &format!("data: {data}\n\n");
    }
    out
}

pub(crate) fn body(format: Format, reply: &Reply) -> String {
    match format {
        Format::Anthropic => anthropic(reply),
        Format::Openai => openai(reply),
    }
}
