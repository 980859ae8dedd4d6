//! A model that runs in this process rather than behind an HTTP API (the built-in model,
//! crates/builtin). This crate only defines the seam: the model is handed in by whoever loads
//! it, so the HTTP clients never link llama.cpp, and a reply written as text becomes the same
//! [`ChatResponse`] the HTTP providers return, through the same lenient tool-call parser.

use crate::error::LlmError;
use crate::lenient;
use crate::request::{ChatRequest, ChatResponse, StreamEvent};
use protocol::{ContentBlock, Message, Role, StopReason, Usage};
use std::future::Future;
use std::pin::Pin;
use tokio_util::sync::CancellationToken;

/// The future a [`LocalModel`] answers with.
pub type LocalReply<'a> = Pin<Box<dyn Future<Output = Result<ChatResponse, LlmError>> + Send + 'a>>;

/// A model answering in-process: streams its reply through `on_event` as the HTTP providers
/// do, and stops soon after `cancel` fires.
pub trait LocalModel: Send + Sync {
    fn stream<'a>(
        &'a self,
        req: &'a ChatRequest,
        on_event: &'a mut (dyn FnMut(StreamEvent) + Send),
        cancel: &'a CancellationToken,
    ) -> LocalReply<'a>;

    /// The tokens its context holds, as loaded.
    fn context(&self) -> Option<u32> {
        None
    }
}

/// Why a local model stopped writing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextStop {
    /// It ended its turn (an end-of-generation token, or a finished tool call).
    EndTurn,
    /// It hit the request's `max_tokens`.
    MaxTokens,
}

/// The reply a model wrote as plain text, with its tool call taken from the text: fenced,
/// bare or `<tool_call>`-tagged JSON naming an offered tool, the first that fits its schema
/// (the rest are reported on [`ChatResponse::lenient`] so the model can be told).
pub fn reply_from_text(
    text: &str,
    stop: TextStop,
    usage: Usage,
    req: &ChatRequest,
    on_event: &mut (dyn FnMut(StreamEvent) + Send),
) -> ChatResponse {
    let mut content = Vec::new();
    let mut stop_reason = match stop {
        TextStop::EndTurn => StopReason::EndTurn,
        TextStop::MaxTokens => StopReason::MaxTokens,
    };
    let mut report = None;
    match lenient::find_calls(text, &req.tools) {
        Some(found) => {
            // A call in the text is this model's normal way of calling: only blocks that did
            // not run are worth a word to the user.
            if !found.report.not_run.is_empty() {
                on_event(StreamEvent::Notice(found.notice()));
            }
            match found.taken {
                Some(taken) => {
                    if !taken.text_before.is_empty() {
                        content.push(ContentBlock::Text {
                            text: taken.text_before,
                        });
                    }
                    content.push(ContentBlock::ToolUse {
                        id: taken.id,
                        name: taken.name,
                        input: taken.input,
                    });
                    stop_reason = StopReason::ToolUse;
                }
                None => push_text(&mut content, text),
            }
            report = Some(found.report);
        }
        None => push_text(&mut content, text),
    }
    on_event(StreamEvent::Usage(usage));
    ChatResponse {
        message: Message {
            role: Role::Assistant,
            content,
        },
        stop_reason,
        usage,
        malformed_tool_calls: Vec::new(),
        lenient: report,
        attempts: 1,
    }
}

fn push_text(content: &mut Vec<ContentBlock>, text: &str) {
    let text = text.trim();
    if !text.is_empty() {
        content.push(ContentBlock::Text {
            text: text.to_string(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::ToolDefinition;
    use serde_json::json;

    fn req() -> ChatRequest {
        ChatRequest {
            model: "builtin".into(),
            system: None,
            messages: vec![],
            tools: vec![ToolDefinition {
                name: "read_file".into(),
                description: "Reads a file".into(),
                input_schema: json!({"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}),
            }],
            max_tokens: 100,
            temperature: None,
            call_required: false,
            fixed_messages: 0,
        }
    }

    #[test]
    fn a_fenced_call_becomes_a_tool_use_and_the_text_before_stays() {
        let text = "I will read it.\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"calc.py\"}}\n```";
        let mut events = Vec::new();
        let r = reply_from_text(
            text,
            TextStop::EndTurn,
            Usage::default(),
            &req(),
            &mut |e| events.push(e),
        );
        assert_eq!(r.stop_reason, StopReason::ToolUse);
        assert_eq!(r.message.text(), "I will read it.");
        assert!(r.message.content.iter().any(|b| matches!(b,
            ContentBlock::ToolUse { name, input, .. } if name == "read_file" && input["path"] == "calc.py")));
        assert!(!events.iter().any(|e| matches!(e, StreamEvent::Notice(_))));
    }

    #[test]
    fn plain_text_ends_the_turn() {
        let r = reply_from_text(
            "All done.\n",
            TextStop::MaxTokens,
            Usage::default(),
            &req(),
            &mut |_| {},
        );
        assert_eq!(r.stop_reason, StopReason::MaxTokens);
        assert_eq!(r.message.text(), "All done.");
        assert!(r.lenient.is_none());
    }
}
