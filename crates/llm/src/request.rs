//! One request to a model and what comes back.

use crate::lenient::LenientCalls;
use protocol::{Message, StopReason, ToolDefinition, Usage};

#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    pub model: String,
    pub system: Option<String>,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolDefinition>,
    pub max_tokens: u32,
    pub temperature: Option<f32>,
    /// The reply must be a call of one of `tools` (a small model answered in prose where the
    /// agent needed a call): `tool_choice: "required"` for OpenAI-compatible servers, `any`
    /// for Anthropic, the call grammar from the first token for the built-in model.
    pub call_required: bool,
    /// How many of `messages`, from the first, are the same in every session (a draft's worked
    /// example): a model that keeps the KV cache of a conversation's fixed beginning between
    /// sessions (the built-in one) keeps them with the system message.
    pub fixed_messages: usize,
}

/// What streams out while the model answers, for the live transcript.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    TextDelta(String),
    ThinkingDelta(String),
    ToolUseStarted {
        id: String,
        name: String,
    },
    ToolUseDelta {
        id: String,
        partial_json: String,
    },
    Usage(Usage),
    /// Something the user should know (a lenient tool call).
    Notice(String),
    /// An in-process model reading a long prompt: `evaluated` of `total` tokens so far.
    PromptProgress {
        evaluated: u32,
        total: u32,
    },
    /// The attempt failed and another follows after `wait`: the front end words it (typed,
    /// so the raw error text is never the only thing people see, once per try).
    Retrying {
        error: crate::LlmError,
        wait: std::time::Duration,
        /// 1 for the first retry.
        retry: u32,
    },
    /// The attempt so far is discarded (a retry follows): drop what was shown of it.
    Restart,
}

/// A tool call whose arguments were not valid JSON. It stays in the message (with empty
/// arguments) so the conversation remains well-formed; the agent answers it with this error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MalformedToolCall {
    pub id: String,
    pub name: String,
    pub raw: String,
    pub error: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChatResponse {
    /// The assistant's message: text, thinking and tool_use blocks in order.
    pub message: Message,
    pub stop_reason: StopReason,
    pub usage: Usage,
    pub malformed_tool_calls: Vec<MalformedToolCall>,
    /// Lenient mode found calls written as ```json blocks in the text: which one was taken (it
    /// is in `message`) and which did not run. The model must be told; see [`LenientCalls`].
    pub lenient: Option<LenientCalls>,
    /// How many attempts it took (1 = no retry).
    pub attempts: u32,
}
