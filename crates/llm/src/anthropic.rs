//! The Anthropic Messages API, streamed: `message_start`, `content_block_start/delta/stop`
//! (text, tool_use whose `input_json_delta` pieces are joined until the block stops, thinking
//! with its signature), `message_delta` (stop reason, usage), `ping`, `error`.

use crate::error::LlmError;
use crate::request::{ChatRequest, ChatResponse, MalformedToolCall, StreamEvent};
use crate::sse;
use protocol::{ContentBlock, Message, Role, StopReason, Usage};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

pub(crate) const API_VERSION: &str = "2023-06-01";

fn block_json(b: &ContentBlock) -> Value {
    match b {
        ContentBlock::Text { text } => json!({"type": "text", "text": text}),
        ContentBlock::Image { media_type, data } => {
            json!({"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}})
        }
        ContentBlock::ToolUse { id, name, input } => {
            json!({"type": "tool_use", "id": id, "name": name, "input": input})
        }
        ContentBlock::ToolResult {
            tool_use_id,
            content,
            is_error,
        } => {
            json!({"type": "tool_result", "tool_use_id": tool_use_id, "content": content, "is_error": is_error})
        }
        ContentBlock::Thinking {
            thinking,
            signature,
        } => {
            json!({"type": "thinking", "thinking": thinking, "signature": signature.clone().unwrap_or_default()})
        }
    }
}

/// The request body. The system prompt and the tool list carry `cache_control`, so repeated
/// turns read them from Anthropic's prompt cache.
pub(crate) fn body(req: &ChatRequest) -> Value {
    let messages: Vec<Value> = req
        .messages
        .iter()
        .map(|m| {
            json!({
                "role": match m.role { Role::User => "user", Role::Assistant => "assistant" },
                "content": m.content.iter().map(block_json).collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut tools: Vec<Value> = req
        .tools
        .iter()
        .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.input_schema}))
        .collect();
    if let Some(last) = tools.last_mut() {
        last["cache_control"] = json!({"type": "ephemeral"});
    }
    let mut body = json!({
        "model": req.model,
        "max_tokens": req.max_tokens,
        "messages": messages,
        "stream": true,
    });
    if let Some(system) = &req.system {
        body["system"] =
            json!([{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}]);
    }
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools);
    }
    if let Some(t) = req.temperature {
        body["temperature"] = json!(t);
    }
    body
}

enum Building {
    Text(String),
    Thinking {
        text: String,
        signature: Option<String>,
    },
    Tool {
        id: String,
        name: String,
        json: String,
    },
}

fn usage_of(v: &Value) -> Usage {
    let n = |k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0) as u32;
    Usage {
        input_tokens: n("input_tokens"),
        output_tokens: n("output_tokens"),
        cache_read_tokens: n("cache_read_input_tokens"),
        cache_write_tokens: n("cache_creation_input_tokens"),
    }
}

/// One streamed attempt.
pub(crate) async fn stream_once(
    http: &reqwest::Client,
    base_url: &str,
    api_key: &str,
    req: &ChatRequest,
    on_event: &mut (dyn FnMut(StreamEvent) + Send),
    cancel: &CancellationToken,
) -> Result<ChatResponse, LlmError> {
    let request = http
        .post(format!("{}/v1/messages", base_url.trim_end_matches('/')))
        .header("x-api-key", api_key)
        .header("anthropic-version", API_VERSION)
        .json(&body(req));
    let mut events = sse::open(request, cancel).await?;
    let mut blocks: Vec<Option<Building>> = Vec::new();
    let mut done: Vec<(usize, ContentBlock)> = Vec::new();
    let mut malformed = Vec::new();
    let mut usage = Usage::default();
    let mut stop_reason = None;
    let mut stopped = false;
    while let Some(ev) = sse::next(&mut events, cancel).await? {
        let data: Value = if ev.data.trim().is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&ev.data)
                .map_err(|e| LlmError::Protocol(format!("bad event data ({e})")))?
        };
        let kind = if ev.event.is_empty() || ev.event == "message" {
            data.get("type")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        } else {
            ev.event.clone()
        };
        match kind.as_str() {
            "message_start" => {
                if let Some(u) = data.pointer("/message/usage") {
                    usage = usage_of(u);
                }
            }
            "content_block_start" => {
                let index = data.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
                let cb = data.get("content_block").cloned().unwrap_or(Value::Null);
                let building = match cb.get("type").and_then(Value::as_str) {
                    Some("tool_use") => {
                        let id = cb
                            .get("id")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string();
                        let name = cb
                            .get("name")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string();
                        on_event(StreamEvent::ToolUseStarted {
                            id: id.clone(),
                            name: name.clone(),
                        });
                        Building::Tool {
                            id,
                            name,
                            json: String::new(),
                        }
                    }
                    Some("thinking") => Building::Thinking {
                        text: String::new(),
                        signature: None,
                    },
                    _ => Building::Text(
                        cb.get("text")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string(),
                    ),
                };
                if blocks.len() <= index {
                    blocks.resize_with(index + 1, || None);
                }
                blocks[index] = Some(building);
            }
            "content_block_delta" => {
                let index = data.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
                let delta = data.get("delta").cloned().unwrap_or(Value::Null);
                let s = |k: &str| {
                    delta
                        .get(k)
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string()
                };
                match (
                    blocks.get_mut(index).and_then(Option::as_mut),
                    delta.get("type").and_then(Value::as_str),
                ) {
                    (Some(Building::Text(t)), Some("text_delta")) => {
                        let piece = s("text");
                        t.push_str(&piece);
                        on_event(StreamEvent::TextDelta(piece));
                    }
                    (Some(Building::Thinking { text, .. }), Some("thinking_delta")) => {
                        let piece = s("thinking");
                        text.push_str(&piece);
                        on_event(StreamEvent::ThinkingDelta(piece));
                    }
                    (Some(Building::Thinking { signature, .. }), Some("signature_delta")) => {
                        signature
                            .get_or_insert_with(String::new)
                            .push_str(&s("signature"));
                    }
                    (Some(Building::Tool { id, json, .. }), Some("input_json_delta")) => {
                        let piece = s("partial_json");
                        json.push_str(&piece);
                        on_event(StreamEvent::ToolUseDelta {
                            id: id.clone(),
                            partial_json: piece,
                        });
                    }
                    _ => {
                        return Err(LlmError::Protocol(format!(
                            "a delta for block {index} that was never started"
                        )));
                    }
                }
            }
            "content_block_stop" => {
                let index = data.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
                let Some(b) = blocks.get_mut(index).and_then(Option::take) else {
                    return Err(LlmError::Protocol(format!(
                        "block {index} stopped without starting"
                    )));
                };
                let block = match b {
                    Building::Text(text) => ContentBlock::Text { text },
                    Building::Thinking { text, signature } => ContentBlock::Thinking {
                        thinking: text,
                        signature,
                    },
                    Building::Tool { id, name, json } => {
                        let raw = if json.trim().is_empty() {
                            "{}".to_string()
                        } else {
                            json
                        };
                        match serde_json::from_str::<Value>(&raw) {
                            Ok(input) if input.is_object() => {
                                ContentBlock::ToolUse { id, name, input }
                            }
                            Ok(_) => {
                                malformed.push(MalformedToolCall {
                                    id: id.clone(),
                                    name: name.clone(),
                                    raw,
                                    error: "the arguments must be a JSON object".into(),
                                });
                                ContentBlock::ToolUse {
                                    id,
                                    name,
                                    input: json!({}),
                                }
                            }
                            Err(e) => {
                                malformed.push(MalformedToolCall {
                                    id: id.clone(),
                                    name: name.clone(),
                                    raw,
                                    error: e.to_string(),
                                });
                                ContentBlock::ToolUse {
                                    id,
                                    name,
                                    input: json!({}),
                                }
                            }
                        }
                    }
                };
                done.push((index, block));
            }
            "message_delta" => {
                if let Some(r) = data.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    stop_reason = Some(match r {
                        "end_turn" => StopReason::EndTurn,
                        "tool_use" => StopReason::ToolUse,
                        "max_tokens" => StopReason::MaxTokens,
                        "stop_sequence" => StopReason::StopSequence,
                        "refusal" => StopReason::Refusal,
                        other => StopReason::Other(other.to_string()),
                    });
                }
                if let Some(u) = data.get("usage") {
                    let later = usage_of(u);
                    usage.output_tokens = later.output_tokens.max(usage.output_tokens);
                    if later.input_tokens > 0 {
                        usage.input_tokens = later.input_tokens;
                    }
                }
            }
            "message_stop" => {
                stopped = true;
                break;
            }
            "ping" => {}
            "error" => {
                let etype = data
                    .pointer("/error/type")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let message = data
                    .pointer("/error/message")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                return Err(match etype {
                    "overloaded_error" => LlmError::Overloaded { retry_after: None },
                    "rate_limit_error" => LlmError::RateLimited { retry_after: None },
                    "authentication_error" | "permission_error" => LlmError::Auth { status: 401 },
                    "api_error" => LlmError::Server {
                        status: 500,
                        message,
                    },
                    _ => LlmError::BadRequest {
                        status: 400,
                        message,
                    },
                });
            }
            _ => {}
        }
    }
    if !stopped {
        return Err(LlmError::StreamCut);
    }
    on_event(StreamEvent::Usage(usage));
    done.sort_by_key(|(i, _)| *i);
    Ok(ChatResponse {
        message: Message {
            role: Role::Assistant,
            content: done.into_iter().map(|(_, b)| b).collect(),
        },
        stop_reason: stop_reason.unwrap_or(StopReason::EndTurn),
        usage,
        malformed_tool_calls: malformed,
        attempts: 1,
    })
}
