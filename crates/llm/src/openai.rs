//! OpenAI Chat Completions, streamed — and through it every OpenAI-compatible server (Ollama's
//! `/v1`, llama.cpp's server, LM Studio, vLLM, OpenRouter). Tool calls arrive as
//! `delta.tool_calls[]` pieces keyed by `index` (id and name once, arguments in fragments).
//! Each chunk is read into typed shapes; an [`Assembler`] builds the reply from them.

use crate::call_text::CallTextStream;
use crate::error::LlmError;
use crate::lenient;
use crate::request::{ChatRequest, ChatResponse, StreamEvent};
use crate::sse::SseEvent;
use crate::stream::Flow;
use crate::wire;
use protocol::{ContentBlock, Message, Role, StopReason, Usage};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// Options of a particular OpenAI-compatible server.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpenAiOptions {
    /// Ollama's context size (`options.num_ctx`): its 4k default silently cuts tool prompts.
    pub num_ctx: Option<u32>,
    /// Small local models often write tool calls as ```json {"name", "arguments"}``` blocks
    /// in their text instead of real calls: take the first that fits a tool as a call (and say
    /// so; see [`crate::LenientCalls`]).
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
                        ContentBlock::Document {
                            media_type,
                            name,
                            data,
                        } => parts.push(json!({
                            "type": "file",
                            "file": {"filename": name, "file_data": format!("data:{media_type};base64,{data}")}
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
        if req.call_required {
            body["tool_choice"] = json!("required");
        }
    }
    if let Some(t) = req.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(n) = opts.num_ctx {
        body["options"] = json!({"num_ctx": n});
    }
    body
}

/// The request of one attempt.
pub(crate) fn request(
    http: &reqwest::Client,
    base_url: &str,
    api_key: Option<&str>,
    opts: &OpenAiOptions,
    req: &ChatRequest,
) -> reqwest::RequestBuilder {
    let request = http
        .post(format!(
            "{}/chat/completions",
            base_url.trim_end_matches('/')
        ))
        .json(&body(req, opts));
    match api_key {
        Some(k) => request.bearer_auth(k),
        None => request,
    }
}

/// One chunk. Unknown fields are ignored: every compatible server adds its own.
#[derive(Debug, Deserialize)]
struct Chunk {
    choices: Option<Vec<Choice>>,
    usage: Option<WireUsage>,
    /// An object with `message` and `code` (a number or a string), or just a string.
    error: Option<Value>,
}

#[derive(Debug, Deserialize)]
struct Choice {
    delta: Option<Delta>,
    finish_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Delta {
    content: Option<String>,
    tool_calls: Option<Vec<ToolCallDelta>>,
}

#[derive(Debug, Deserialize)]
struct ToolCallDelta {
    index: Option<u64>,
    id: Option<String>,
    function: Option<FunctionDelta>,
}

#[derive(Debug, Deserialize)]
struct FunctionDelta {
    name: Option<String>,
    /// A piece of JSON text; a few servers send the arguments as an object instead.
    arguments: Option<Value>,
}

#[derive(Debug, Deserialize)]
struct WireUsage {
    #[serde(default, deserialize_with = "wire::count")]
    prompt_tokens: Option<u32>,
    #[serde(default, deserialize_with = "wire::count")]
    completion_tokens: Option<u32>,
    prompt_tokens_details: Option<PromptDetails>,
}

#[derive(Debug, Deserialize)]
struct PromptDetails {
    #[serde(default, deserialize_with = "wire::count")]
    cached_tokens: Option<u32>,
}

#[derive(Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

/// One reply being put together: text, and tool calls keyed by the index the server gives.
#[derive(Default)]
pub(crate) struct Assembler {
    text: String,
    /// In lenient mode, the text as the user sees it: a call written as text streams as a
    /// call (see `call_text`).
    shown: Option<CallTextStream>,
    calls: BTreeMap<u64, PartialCall>,
    usage: Usage,
    finish: Option<String>,
    done: bool,
}

impl Assembler {
    pub fn new(opts: &OpenAiOptions) -> Self {
        Assembler {
            shown: opts.lenient_tool_calls.then(CallTextStream::default),
            ..Assembler::default()
        }
    }

    pub fn event(
        &mut self,
        ev: &SseEvent,
        on_event: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<Flow, LlmError> {
        if ev.data.trim() == "[DONE]" {
            self.done = true;
            return Ok(Flow::Done);
        }
        let chunk: Chunk = serde_json::from_str(&ev.data)
            .map_err(|e| LlmError::Protocol(format!("bad chunk ({e})")))?;
        if let Some(err) = chunk.error.filter(|e| !e.is_null()) {
            let message = err
                .get("message")
                .and_then(Value::as_str)
                .or_else(|| err.as_str())
                .unwrap_or("")
                .to_string();
            let code = err
                .get("code")
                .and_then(Value::as_u64)
                .and_then(|c| u16::try_from(c).ok())
                .unwrap_or(500);
            return Err(LlmError::from_status(
                code,
                None,
                &json!({"error": {"message": message}}).to_string(),
            ));
        }
        if let Some(u) = chunk.usage {
            self.usage = Usage {
                input_tokens: u.prompt_tokens.unwrap_or(0),
                output_tokens: u.completion_tokens.unwrap_or(0),
                cache_read_tokens: u
                    .prompt_tokens_details
                    .and_then(|d| d.cached_tokens)
                    .unwrap_or(0),
                cache_write_tokens: 0,
            };
        }
        let Some(choice) = chunk.choices.and_then(|c| c.into_iter().next()) else {
            return Ok(Flow::More);
        };
        if let Some(delta) = choice.delta {
            if let Some(c) = delta.content {
                self.text.push_str(&c);
                match &mut self.shown {
                    Some(shown) => shown.push(&c, on_event),
                    None => on_event(StreamEvent::TextDelta(c)),
                }
            }
            for tc in delta.tool_calls.into_iter().flatten() {
                self.tool_call_piece(tc, on_event);
            }
        }
        if let Some(f) = choice.finish_reason {
            self.finish = Some(f);
        }
        Ok(Flow::More)
    }

    fn tool_call_piece(
        &mut self,
        tc: ToolCallDelta,
        on_event: &mut (dyn FnMut(StreamEvent) + Send),
    ) {
        let call = self.calls.entry(tc.index.unwrap_or(0)).or_default();
        if let Some(id) = tc.id {
            call.id = id;
        }
        let Some(function) = tc.function else {
            return;
        };
        // Some servers repeat the whole name in every chunk of a call: the same name again is
        // the name, not more of it.
        if let Some(name) = function.name.filter(|n| !n.is_empty() && *n != call.name) {
            call.name.push_str(&name);
            on_event(StreamEvent::ToolUseStarted {
                id: call.id.clone(),
                name: call.name.clone(),
            });
        }
        let piece = match function.arguments {
            Some(Value::String(s)) => s,
            Some(Value::Null) | None => return,
            Some(other) => other.to_string(),
        };
        call.arguments.push_str(&piece);
        on_event(StreamEvent::ToolUseDelta {
            id: call.id.clone(),
            partial_json: piece,
        });
    }

    /// The reply, once the stream has ended. In lenient mode, a reply without real calls may
    /// have one taken from its text.
    pub fn finish(
        mut self,
        opts: &OpenAiOptions,
        req: &ChatRequest,
        on_event: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<ChatResponse, LlmError> {
        // Some servers end without [DONE]; a finish_reason means the message is whole.
        if !self.done && self.finish.is_none() {
            return Err(LlmError::StreamCut);
        }
        if let Some(shown) = &mut self.shown {
            shown.finish(on_event);
        }
        let mut lenient_calls = None;
        if self.calls.is_empty()
            && opts.lenient_tool_calls
            && let Some(found) = lenient::find_calls(&self.text, &req.tools)
        {
            on_event(StreamEvent::Notice(found.notice()));
            if let Some(taken) = found.taken {
                self.calls.insert(
                    0,
                    PartialCall {
                        id: taken.id,
                        name: taken.name,
                        arguments: taken.input.to_string(),
                    },
                );
                self.text = taken.text_before;
                self.finish = Some("tool_calls".into());
            }
            lenient_calls = Some(found.report);
        }
        let mut content = Vec::new();
        let mut malformed = Vec::new();
        if !self.text.is_empty() {
            content.push(ContentBlock::Text { text: self.text });
        }
        for (i, c) in self.calls {
            let id = if c.id.is_empty() {
                format!("call-{i}")
            } else {
                c.id
            };
            let (block, bad) = wire::tool_use(id, c.name, c.arguments);
            content.push(block);
            malformed.extend(bad);
        }
        on_event(StreamEvent::Usage(self.usage));
        let stop_reason = match self.finish.as_deref() {
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
            usage: self.usage,
            malformed_tool_calls: malformed,
            lenient: lenient_calls,
            attempts: 1,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::{ContentBlock, Message};

    /// A PDF for the model goes as OpenAI's `file` part, beside the text, in the user's turn.
    #[test]
    fn a_document_is_a_file_part_of_the_users_turn() {
        let req = ChatRequest {
            model: "m".into(),
            system: None,
            messages: vec![Message {
                role: Role::User,
                content: vec![
                    ContentBlock::Text {
                        text: "The PDF report.pdf that read_file attached:".into(),
                    },
                    ContentBlock::Document {
                        media_type: "application/pdf".into(),
                        name: "report.pdf".into(),
                        data: "JVBERi0=".into(),
                    },
                ],
            }],
            tools: Vec::new(),
            max_tokens: 100,
            temperature: None,
            call_required: false,
            fixed_messages: 0,
        };
        let messages = messages_json(&req);
        assert_eq!(
            messages[0]["content"][1],
            json!({"type": "file", "file": {"filename": "report.pdf", "file_data": "data:application/pdf;base64,JVBERi0="}})
        );
    }
}
