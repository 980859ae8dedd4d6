//! One reply read from its events, whatever the wire format, and whether the bytes come from
//! the network or from a recording.

use crate::anthropic;
use crate::error::LlmError;
use crate::openai::{self, OpenAiOptions};
use crate::provider::{ProviderConfig, Wire};
use crate::request::{ChatRequest, ChatResponse, StreamEvent};
use crate::sse::{self, Decoder, MAX_EVENT_BYTES, MAX_REPLY_BYTES, SseEvent};
use tokio_util::sync::CancellationToken;

/// Whether the stream has said all it will.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    More,
    Done,
}

/// A reply being put together in one provider's format.
pub(crate) enum Assembler {
    Anthropic(anthropic::Assembler),
    OpenAi(openai::Assembler, OpenAiOptions),
}

impl Assembler {
    pub fn new(config: &ProviderConfig) -> Self {
        match config.kind.wire() {
            Wire::Anthropic => Assembler::Anthropic(anthropic::Assembler::default()),
            // The built-in model has no wire format; a recording of it could only be of the
            // OpenAI-compatible shape it is compared with.
            Wire::OpenAi | Wire::Builtin => {
                let opts = openai_options(config);
                Assembler::OpenAi(openai::Assembler::new(&opts), opts)
            }
        }
    }

    pub fn event(
        &mut self,
        ev: &SseEvent,
        on_event: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<Flow, LlmError> {
        match self {
            Assembler::Anthropic(a) => a.event(ev, on_event),
            Assembler::OpenAi(a, _) => a.event(ev, on_event),
        }
    }

    pub fn finish(
        self,
        req: &ChatRequest,
        on_event: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<ChatResponse, LlmError> {
        match self {
            Assembler::Anthropic(a) => a.finish(on_event),
            Assembler::OpenAi(a, opts) => a.finish(&opts, req, on_event),
        }
    }
}

pub(crate) fn openai_options(config: &ProviderConfig) -> OpenAiOptions {
    OpenAiOptions {
        num_ctx: config.num_ctx,
        lenient_tool_calls: config.lenient_tool_calls,
    }
}

/// One attempt over the network.
pub(crate) async fn receive(
    config: &ProviderConfig,
    request: reqwest::RequestBuilder,
    req: &ChatRequest,
    on_event: &mut (dyn FnMut(StreamEvent) + Send),
    cancel: &CancellationToken,
) -> Result<ChatResponse, LlmError> {
    let mut events = sse::open(request, config.idle_timeout, cancel).await?;
    let mut assembler = Assembler::new(config);
    while let Some(ev) = events.next(cancel).await? {
        if assembler.event(&ev, on_event)? == Flow::Done {
            break;
        }
    }
    assembler.finish(req, on_event)
}

/// Reads a recorded response body as [`crate::Provider::stream`] reads the network, with the
/// same decoder, assembly and limits (one attempt: no retries). `chunks` is the body split
/// anywhere, as the network would split it. For tests, benchmarks and fuzzing without a server.
pub fn parse_stream<'a>(
    config: &ProviderConfig,
    req: &ChatRequest,
    chunks: impl IntoIterator<Item = &'a [u8]>,
    on_event: &mut (dyn FnMut(StreamEvent) + Send),
) -> Result<ChatResponse, LlmError> {
    let mut decoder = Decoder::new(MAX_EVENT_BYTES, MAX_REPLY_BYTES);
    let mut assembler = Assembler::new(config);
    'body: for chunk in chunks {
        decoder.push(chunk)?;
        while let Some(ev) = decoder.next_event() {
            if assembler.event(&ev, on_event)? == Flow::Done {
                break 'body;
            }
        }
    }
    assembler.finish(req, on_event)
}
