//! Model provider clients: the Anthropic Messages API and OpenAI Chat Completions (which also
//! serves every OpenAI-compatible server: Ollama, llama.cpp's server, LM Studio, vLLM,
//! OpenRouter), both streamed over SSE and translated to the provider-neutral model in
//! `protocol`; and the seam for a model run in-process ([`LocalModel`], implemented by
//! crates/builtin so that this crate never links llama.cpp).
//!
//! Owns the wire formats, streaming assembly (text, thinking, tool calls whose JSON arrives in
//! pieces), tool calls written as text (lenient mode), error classification and retries,
//! cancellation and prices, and a failure in words for people ([`model_failure`]). A server is not trusted: no header, index, event or body size it
//! sends can crash the client or make it allocate without bound. Must not know about
//! tools, policy or sessions: it sends a conversation and returns the model's reply.

mod anthropic;
mod call_text;
mod context;
mod error;
mod failure_words;
mod lenient;
mod local;
mod models;
mod openai;
mod prices;
mod provider;
mod request;
mod retry;
mod sse;
mod stream;
mod wire;

pub use call_text::{CALL_STARTS, CallTextStream, TEXT_CALL_ID};
pub use context::OLLAMA_DEFAULT_CONTEXT;
pub use error::{AddressProblem, ConnectCause, LlmError, check_address};
pub use failure_words::{FailureContext, model_failure, retry_notice};
pub use lenient::{LenientCalls, NotRun, NotRunReason};
/// The model name a role uses for the built-in model (there is one: the file in the settings).
pub const BUILTIN_MODEL: &str = "builtin";

pub use local::{LocalModel, LocalReply, TextStop, reply_from_text};
pub use prices::{ModelPrice, PriceTable};
pub use provider::{
    Provider, ProviderConfig, ProviderKind, Takes, Wire, is_loopback, parameters_in_name,
    small_by_default,
};
pub use request::{ChatRequest, ChatResponse, MalformedToolCall, StreamEvent};
pub use retry::RetryPolicy;
pub use sse::{MAX_EVENT_BYTES, MAX_REPLY_BYTES};
pub use stream::parse_stream;
