//! The Anthropic Messages API, streamed: `message_start`, `content_block_start/delta/stop`
//! (text, tool_use whose `input_json_delta` pieces are joined until the block stops, thinking
//! with its signature), `message_delta` (stop reason, usage), `ping`, `error`. Each event's data
//! is read into typed shapes; an [`Assembler`] builds the reply from them.

use crate::error::LlmError;
use crate::request::{ChatRequest, ChatResponse, MalformedToolCall, StreamEvent};
use crate::sse::SseEvent;
use crate::stream::Flow;
use crate::wire;
use protocol::{ContentBlock, Message, Role, StopReason, Usage};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;

pub(crate) const API_VERSION: &str = "2023-06-01";

fn block_json(b: &ContentBlock) -> Value {
    match b {
        ContentBlock::Text { text } => json!({"type": "text", "text": text}),
        ContentBlock::Image { media_type, data } => {
            json!({"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}})
        }
        ContentBlock::Document {
            media_type,
            name,
            data,
        } => {
            json!({"type": "document", "title": name, "source": {"type": "base64", "media_type": media_type, "data": data}})
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
        if req.call_required {
            body["tool_choice"] = json!({"type": "any"});
        }
    }
    if let Some(t) = req.temperature {
        body["temperature"] = json!(t);
    }
    body
}

/// The request of one attempt.
pub(crate) fn request(
    http: &reqwest::Client,
    base_url: &str,
    api_key: &str,
    req: &ChatRequest,
) -> reqwest::RequestBuilder {
    http.post(format!("{}/v1/messages", base_url.trim_end_matches('/')))
        .header("x-api-key", api_key)
        .header("anthropic-version", API_VERSION)
        .json(&body(req))
}

/// Any event's data: every event type uses a few of these fields. Unknown fields and event
/// types are ignored, as Anthropic asks of clients (new ones may appear).
#[derive(Debug, Default, Deserialize)]
struct EventData {
    #[serde(rename = "type")]
    kind: Option<String>,
    index: Option<u64>,
    content_block: Option<BlockStart>,
    delta: Option<Delta>,
    message: Option<MessageStart>,
    usage: Option<WireUsage>,
    error: Option<WireError>,
}

#[derive(Debug, Default, Deserialize)]
struct BlockStart {
    #[serde(rename = "type")]
    kind: Option<String>,
    id: Option<String>,
    name: Option<String>,
    text: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Delta {
    #[serde(rename = "type")]
    kind: Option<String>,
    text: Option<String>,
    thinking: Option<String>,
    signature: Option<String>,
    partial_json: Option<String>,
    stop_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
struct MessageStart {
    usage: Option<WireUsage>,
}

#[derive(Debug, Deserialize)]
struct WireUsage {
    #[serde(default, deserialize_with = "wire::count")]
    input_tokens: Option<u32>,
    #[serde(default, deserialize_with = "wire::count")]
    output_tokens: Option<u32>,
    #[serde(default, deserialize_with = "wire::count")]
    cache_read_input_tokens: Option<u32>,
    #[serde(default, deserialize_with = "wire::count")]
    cache_creation_input_tokens: Option<u32>,
}

impl WireUsage {
    fn usage(&self) -> Usage {
        Usage {
            input_tokens: self.input_tokens.unwrap_or(0),
            output_tokens: self.output_tokens.unwrap_or(0),
            cache_read_tokens: self.cache_read_input_tokens.unwrap_or(0),
            cache_write_tokens: self.cache_creation_input_tokens.unwrap_or(0),
        }
    }
}

#[derive(Debug, Deserialize)]
struct WireError {
    #[serde(rename = "type")]
    kind: Option<String>,
    message: Option<String>,
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

/// One reply being put together. Blocks are keyed by the index the server gives them: an index
/// is a name, not a size, so `4000000000` costs one entry like `0` does.
#[derive(Default)]
pub(crate) struct Assembler {
    open: BTreeMap<u64, Building>,
    done: Vec<(u64, ContentBlock)>,
    malformed: Vec<MalformedToolCall>,
    usage: Usage,
    stop_reason: Option<StopReason>,
    stopped: bool,
}

impl Assembler {
    pub fn event(
        &mut self,
        ev: &SseEvent,
        on_event: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<Flow, LlmError> {
        let data: EventData = if ev.data.trim().is_empty() {
            EventData::default()
        } else {
            serde_json::from_str(&ev.data)
                .map_err(|e| LlmError::Protocol(format!("bad event data ({e})")))?
        };
        let kind = if ev.event.is_empty() || ev.event == "message" {
            data.kind.as_deref().unwrap_or("")
        } else {
            ev.event.as_str()
        };
        let index = data.index.unwrap_or(0);
        match kind {
            "message_start" => {
                if let Some(u) = data.message.as_ref().and_then(|m| m.usage.as_ref()) {
                    self.usage = u.usage();
                }
            }
            "content_block_start" => {
                let start = data.content_block.unwrap_or_default();
                let building = match start.kind.as_deref() {
                    Some("tool_use") => {
                        let id = start.id.unwrap_or_default();
                        let name = start.name.unwrap_or_default();
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
                    _ => Building::Text(start.text.unwrap_or_default()),
                };
                self.open.insert(index, building);
            }
            "content_block_delta" => {
                let delta = data.delta;
                let kind = delta.as_ref().and_then(|d| d.kind.as_deref());
                match (self.open.get_mut(&index), kind, delta.as_ref()) {
                    (Some(Building::Text(t)), Some("text_delta"), Some(d)) => {
                        let piece = d.text.clone().unwrap_or_default();
                        t.push_str(&piece);
                        on_event(StreamEvent::TextDelta(piece));
                    }
                    (Some(Building::Thinking { text, .. }), Some("thinking_delta"), Some(d)) => {
                        let piece = d.thinking.clone().unwrap_or_default();
                        text.push_str(&piece);
                        on_event(StreamEvent::ThinkingDelta(piece));
                    }
                    (
                        Some(Building::Thinking { signature, .. }),
                        Some("signature_delta"),
                        Some(d),
                    ) => {
                        signature
                            .get_or_insert_with(String::new)
                            .push_str(d.signature.as_deref().unwrap_or(""));
                    }
                    (Some(Building::Tool { id, json, .. }), Some("input_json_delta"), Some(d)) => {
                        let piece = d.partial_json.clone().unwrap_or_default();
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
                let Some(b) = self.open.remove(&index) else {
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
                        let (block, malformed) = wire::tool_use(id, name, json);
                        self.malformed.extend(malformed);
                        block
                    }
                };
                self.done.push((index, block));
            }
            "message_delta" => {
                if let Some(r) = data.delta.and_then(|d| d.stop_reason) {
                    self.stop_reason = Some(match r.as_str() {
                        "end_turn" => StopReason::EndTurn,
                        "tool_use" => StopReason::ToolUse,
                        "max_tokens" => StopReason::MaxTokens,
                        "stop_sequence" => StopReason::StopSequence,
                        "refusal" => StopReason::Refusal,
                        _ => StopReason::Other(r),
                    });
                }
                if let Some(u) = &data.usage {
                    let later = u.usage();
                    self.usage.output_tokens = later.output_tokens.max(self.usage.output_tokens);
                    if later.input_tokens > 0 {
                        self.usage.input_tokens = later.input_tokens;
                    }
                }
            }
            "message_stop" => {
                self.stopped = true;
                return Ok(Flow::Done);
            }
            "error" => {
                let error = data.error;
                let etype = error.as_ref().and_then(|e| e.kind.as_deref()).unwrap_or("");
                let message = error
                    .as_ref()
                    .and_then(|e| e.message.clone())
                    .unwrap_or_default();
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
        Ok(Flow::More)
    }

    /// The reply, once the stream has ended; a stream that ended before `message_stop` was cut.
    pub fn finish(
        mut self,
        on_event: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<ChatResponse, LlmError> {
        if !self.stopped {
            return Err(LlmError::StreamCut);
        }
        on_event(StreamEvent::Usage(self.usage));
        self.done.sort_by_key(|(i, _)| *i);
        Ok(ChatResponse {
            message: Message {
                role: Role::Assistant,
                content: self.done.into_iter().map(|(_, b)| b).collect(),
            },
            stop_reason: self.stop_reason.unwrap_or(StopReason::EndTurn),
            usage: self.usage,
            malformed_tool_calls: self.malformed,
            lenient: None,
            attempts: 1,
        })
    }
}
