//! OpenAI Chat Completions, streamed — and through it every OpenAI-compatible server (Ollama's
//! `/v1`, llama.cpp's server, LM Studio, vLLM, OpenRouter). Tool calls arrive as
//! `delta.tool_calls[]` pieces keyed by `index` (id and name once, arguments in fragments).

use crate::error::LlmError;
use crate::request::{ChatRequest, ChatResponse, MalformedToolCall, StreamEvent};
use crate::sse;
use protocol::{ContentBlock, Message, Role, StopReason, Usage};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use tokio_util::sync::CancellationToken;

/// Options of a particular OpenAI-compatible server.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpenAiOptions {
    /// Ollama's context size (`options.num_ctx`): its 4k default silently cuts tool prompts.
    pub num_ctx: Option<u32>,
    /// Small local models often write a tool call as a lone ```json {"name", "arguments"}```
    /// block instead of a real call: take such a block as a call (and say so).
    pub lenient_tool_calls: bool,
}

fn messages_json(req: &ChatRequest) -> Vec<Value> {
    let mut out = Vec::new();
    if let Some(s) = &req.system {
        out.push(json!({"role": "system", "content": s}));
    }
    for m in &req.messages {
        match m.role {
            Role::User => {
                // Tool results become `tool` messages; the rest of a user turn stays one message.
                let mut parts: Vec<Value> = Vec::new();
                for b in &m.content {
                    match b {
                        ContentBlock::ToolResult {
                            tool_use_id,
                            content,
                            is_error,
                        } => {
                            let content = if *is_error {
                                format!("Error: {content}")
                            } else {
                                content.clone()
                            };
                            out.push(json!({"role": "tool", "tool_call_id": tool_use_id, "content": content}));
                        }
                        ContentBlock::Text { text } => {
                            parts.push(json!({"type": "text", "text": text}))
                        }
                        ContentBlock::Image { media_type, data } => parts.push(json!({
                            "type": "image_url",
                            "image_url": {"url": format!("data:{media_type};base64,{data}")}
                        })),
                        _ => {}
                    }
                }
                if !parts.is_empty() {
                    out.push(json!({"role": "user", "content": parts}));
                }
            }
            Role::Assistant => {
                let text = m.text();
                let calls: Vec<Value> = m
                    .content
                    .iter()
                    .filter_map(|b| match b {
                        ContentBlock::ToolUse { id, name, input } => Some(json!({
                            "id": id, "type": "function",
                            "function": {"name": name, "arguments": input.to_string()}
                        })),
                        _ => None,
                    })
                    .collect();
                let mut msg = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { Value::String(text) }});
                if !calls.is_empty() {
                    msg["tool_calls"] = Value::Array(calls);
                }
                out.push(msg);
            }
        }
    }
    out
}

pub(crate) fn body(req: &ChatRequest, opts: &OpenAiOptions) -> Value {
    let mut body = json!({
        "model": req.model,
        "messages": messages_json(req),
        "stream": true,
        "stream_options": {"include_usage": true},
        "max_tokens": req.max_tokens,
    });
    if !req.tools.is_empty() {
        body["tools"] = Value::Array(
            req.tools
                .iter()
                .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.input_schema}}))
                .collect(),
        );
    }
    if let Some(t) = req.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(n) = opts.num_ctx {
        body["options"] = json!({"num_ctx": n});
    }
    body
}

#[derive(Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

/// A lone ```json block holding `{"name": …, "arguments": {…}}`, as small models write calls.
fn lenient_call(text: &str) -> Option<(String, Value)> {
    let t = text.trim();
    let inner = t
        .strip_prefix("```json")
        .or_else(|| t.strip_prefix("```"))?
        .strip_suffix("```")?;
    let v: Value = serde_json::from_str(inner.trim()).ok()?;
    let name = v.get("name")?.as_str()?.to_string();
    let args = v
        .get("arguments")
        .or_else(|| v.get("parameters"))
        .cloned()
        .unwrap_or(json!({}));
    let args = match args {
        Value::String(s) => serde_json::from_str(&s).ok()?,
        other => other,
    };
    args.is_object().then_some((name, args))
}

pub(crate) async fn stream_once(
    http: &reqwest::Client,
    base_url: &str,
    api_key: Option<&str>,
    opts: &OpenAiOptions,
    req: &ChatRequest,
    on_event: &mut (dyn FnMut(StreamEvent) + Send),
    cancel: &CancellationToken,
) -> Result<ChatResponse, LlmError> {
    let mut request = http
        .post(format!(
            "{}/chat/completions",
            base_url.trim_end_matches('/')
        ))
        .json(&body(req, opts));
    if let Some(k) = api_key {
        request = request.bearer_auth(k);
    }
    let mut events = sse::open(request, cancel).await?;
    let mut text = String::new();
    let mut calls: BTreeMap<u64, PartialCall> = BTreeMap::new();
    let mut usage = Usage::default();
    let mut finish: Option<String> = None;
    let mut done = false;
    while let Some(ev) = sse::next(&mut events, cancel).await? {
        if ev.data.trim() == "[DONE]" {
            done = true;
            break;
        }
        let chunk: Value = serde_json::from_str(&ev.data)
            .map_err(|e| LlmError::Protocol(format!("bad chunk ({e})")))?;
        if let Some(err) = chunk.get("error") {
            let message = err
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let code = err.get("code").and_then(Value::as_u64).unwrap_or(500) as u16;
            return Err(LlmError::from_status(
                code,
                None,
                &json!({"error": {"message": message}}).to_string(),
            ));
        }
        if let Some(u) = chunk.get("usage").filter(|u| !u.is_null()) {
            let n = |p: &str| u.pointer(p).and_then(Value::as_u64).unwrap_or(0) as u32;
            usage = Usage {
                input_tokens: n("/prompt_tokens"),
                output_tokens: n("/completion_tokens"),
                cache_read_tokens: n("/prompt_tokens_details/cached_tokens"),
                cache_write_tokens: 0,
            };
        }
        let Some(choice) = chunk.pointer("/choices/0") else {
            continue;
        };
        if let Some(c) = choice.pointer("/delta/content").and_then(Value::as_str) {
            text.push_str(c);
            on_event(StreamEvent::TextDelta(c.to_string()));
        }
        for tc in choice
            .pointer("/delta/tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let index = tc.get("index").and_then(Value::as_u64).unwrap_or(0);
            let call = calls.entry(index).or_default();
            if let Some(id) = tc.get("id").and_then(Value::as_str) {
                call.id = id.to_string();
            }
            if let Some(name) = tc.pointer("/function/name").and_then(Value::as_str) {
                call.name.push_str(name);
                on_event(StreamEvent::ToolUseStarted {
                    id: call.id.clone(),
                    name: call.name.clone(),
                });
            }
            if let Some(args) = tc.pointer("/function/arguments").and_then(Value::as_str) {
                call.arguments.push_str(args);
                on_event(StreamEvent::ToolUseDelta {
                    id: call.id.clone(),
                    partial_json: args.to_string(),
                });
            }
        }
        if let Some(f) = choice.get("finish_reason").and_then(Value::as_str) {
            finish = Some(f.to_string());
        }
    }
    // Some servers end without [DONE]; a finish_reason means the message is whole.
    if !done && finish.is_none() {
        return Err(LlmError::StreamCut);
    }

    let mut content = Vec::new();
    let mut malformed = Vec::new();
    if calls.is_empty()
        && opts.lenient_tool_calls
        && let Some((name, input)) = lenient_call(&text)
    {
        on_event(StreamEvent::Notice(format!(
            "the model wrote its call to `{name}` as a JSON block in its text; it was taken as a tool call (lenient mode)"
        )));
        calls.insert(
            0,
            PartialCall {
                id: "lenient-0".into(),
                name,
                arguments: input.to_string(),
            },
        );
        text.clear();
        finish = Some("tool_calls".into());
    }
    if !text.is_empty() {
        content.push(ContentBlock::Text { text });
    }
    for (i, c) in calls {
        let id = if c.id.is_empty() {
            format!("call-{i}")
        } else {
            c.id
        };
        let raw = if c.arguments.trim().is_empty() {
            "{}".to_string()
        } else {
            c.arguments
        };
        let input = match serde_json::from_str::<Value>(&raw) {
            Ok(v) if v.is_object() => v,
            Ok(_) => {
                malformed.push(MalformedToolCall {
                    id: id.clone(),
                    name: c.name.clone(),
                    raw,
                    error: "the arguments must be a JSON object".into(),
                });
                json!({})
            }
            Err(e) => {
                malformed.push(MalformedToolCall {
                    id: id.clone(),
                    name: c.name.clone(),
                    raw,
                    error: e.to_string(),
                });
                json!({})
            }
        };
        content.push(ContentBlock::ToolUse {
            id,
            name: c.name,
            input,
        });
    }
    on_event(StreamEvent::Usage(usage));
    let stop_reason = match finish.as_deref() {
        Some("stop") | None => StopReason::EndTurn,
        Some("tool_calls") | Some("function_call") => StopReason::ToolUse,
        Some("length") => StopReason::MaxTokens,
        Some("content_filter") => StopReason::Refusal,
        Some(other) => StopReason::Other(other.to_string()),
    };
    Ok(ChatResponse {
        message: Message {
            role: Role::Assistant,
            content,
        },
        stop_reason,
        usage,
        malformed_tool_calls: malformed,
        attempts: 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lenient_blocks_are_recognised_only_when_alone_and_well_formed() {
        let (n, a) = lenient_call(
            "```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n```",
        )
        .expect("call");
        assert_eq!((n.as_str(), a["path"].as_str()), ("read_file", Some("a")));
        assert!(lenient_call("Here: ```json {\"name\": \"x\", \"arguments\": {}}```").is_none());
        assert!(lenient_call("```json\n{\"arguments\": {}}\n```").is_none());
        let (_, a) =
            lenient_call("```json\n{\"name\": \"x\", \"arguments\": \"{\\\"k\\\": 1}\"}\n```")
                .expect("string args");
        assert_eq!(a["k"], 1);
    }
}
