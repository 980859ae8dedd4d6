//! The model an agent talks to: its provider and name (found again at each turn: the settings
//! may change between turns), what its replies cost (the price table, the agent's totals and
//! the session's spending limits), and one reply streamed to the window as it is written.

use crate::event_sink::EventSink;
use crate::history::log::LogError;
use crate::outcome::{AgentError, AgentStats, Outcome};
use crate::spend::{Estimate, SpendMeter};
use llm::{ChatRequest, ChatResponse, Provider, StreamEvent};
use llm::{FailureContext, retry_notice};
use protocol::AgentEvent;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

pub(crate) struct Model {
    provider: Option<Provider>,
    name: String,
    prices: llm::PriceTable,
    stats: AgentStats,
    /// What the session may spend, shared by its agents.
    spend: Arc<SpendMeter>,
    /// What the call being made was expected to cost, reserved in `spend` until its reply is
    /// counted or it fails.
    in_flight: Option<Estimate>,
    /// The tokens its context holds, where the model says (see `llm::Provider::context_window`).
    window: Option<u32>,
}

impl Drop for Model {
    fn drop(&mut self) {
        self.call_ended();
    }
}

impl Model {
    pub(crate) fn new(provider: Option<Provider>, name: String, spend: Arc<SpendMeter>) -> Self {
        Model {
            provider,
            name,
            prices: llm::PriceTable::default(),
            stats: AgentStats::default(),
            spend,
            in_flight: None,
            window: None,
        }
    }

    /// The model for the next request (the session finds it at the start of each turn).
    pub(crate) fn set(&mut self, provider: Provider, name: String, window: Option<u32>) {
        self.provider = Some(provider);
        self.name = name;
        self.window = window;
    }

    /// The tokens its context holds, when the model said.
    pub(crate) fn window(&self) -> Option<u32> {
        self.window
    }

    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn provider(&self) -> Option<&Provider> {
        self.provider.as_ref()
    }

    pub(crate) fn stats(&self) -> AgentStats {
        self.stats
    }

    pub(crate) fn spend(&self) -> &Arc<SpendMeter> {
        &self.spend
    }

    /// A small model (the built-in one, a small one on a local server, or as the provider's
    /// setting says): every token of the prompt costs time and every extra tool is a chance
    /// to go astray.
    pub(crate) fn is_small(&self) -> bool {
        self.provider
            .as_ref()
            .is_some_and(|p| p.config().is_small(&self.name))
    }

    /// Whether it takes a file of this kind from a tool (a PDF, or else an image).
    pub(crate) fn takes(&self, pdf: bool) -> bool {
        self.provider.as_ref().map(|p| p.config()).is_some_and(|c| {
            if pdf {
                c.takes.documents
            } else {
                c.takes.images
            }
        })
    }

    /// The server and model, for the words of a failure.
    pub(crate) fn failure_context(&self) -> FailureContext<'_> {
        FailureContext {
            server: self.provider.as_ref().map(|p| p.config().base_url.as_str()),
            model: Some(self.name.as_str()).filter(|m| !m.is_empty()),
        }
    }

    /// A request to this model.
    pub(crate) fn request(
        &self,
        system: Option<String>,
        messages: Vec<protocol::Message>,
        tools: Vec<protocol::ToolDefinition>,
        max_tokens: u32,
    ) -> ChatRequest {
        ChatRequest {
            model: self.name.clone(),
            system,
            messages,
            tools,
            max_tokens,
            temperature: None,
            call_required: false,
            fixed_messages: 0,
        }
    }

    /// Before a call: the turn's end when a spending limit is reached (the log made
    /// durable); else the call's expected cost (its prompt of `input_tokens`, or the last
    /// reply's cost) is reserved until its reply is counted, so agents calling at once cannot
    /// all pass on the same room.
    pub(crate) fn spending_stop(
        &mut self,
        log: &mut crate::history::log::SessionLog,
        input_tokens: u64,
    ) -> Result<Option<Outcome>, LogError> {
        self.call_ended();
        let price = |tokens: u64| {
            self.cost_of(&protocol::Usage {
                input_tokens: u32::try_from(tokens).unwrap_or(u32::MAX),
                ..protocol::Usage::default()
            })
        };
        let estimate = self.spend.estimate(input_tokens, price);
        match self.spend.reserve(estimate) {
            Ok(()) => {
                self.in_flight = Some(estimate);
                Ok(None)
            }
            Err(reached) => {
                // The outcome carries it, typed: the window shows it as a card, the CLI in
                // words.
                log.sync()?;
                Ok(Some(Outcome::LimitReached { reached }))
            }
        }
    }

    /// The call reserved for ended without a reply to count (it failed, was cancelled, or
    /// the agent stopped): its reservation is released.
    pub(crate) fn call_ended(&mut self) {
        if let Some(estimate) = self.in_flight.take() {
            self.spend.release(estimate);
        }
    }

    /// A reply's cost: the price table's, else nothing for a model on this computer (it is
    /// free, and saying "unknown" for it would show the same nothing two ways).
    fn cost_of(&self, usage: &protocol::Usage) -> Option<f64> {
        self.prices.cost(&self.name, usage).or_else(|| {
            self.provider
                .as_ref()
                .filter(|p| config::is_loopback(&p.config().base_url))
                .map(|_| 0.0)
        })
    }

    /// A reply's usage counted in the session's spending and this agent's totals: its cost,
    /// and the tokens it used.
    pub(crate) fn count(&mut self, usage: &protocol::Usage) -> (Option<f64>, u64) {
        let cost_usd = self.cost_of(usage);
        let tokens = u64::from(usage.input_tokens) + u64::from(usage.output_tokens);
        match self.in_flight.take() {
            Some(estimate) => self.spend.settle(estimate, tokens, cost_usd),
            None => self.spend.record(tokens, cost_usd),
        }
        self.stats.tokens += tokens;
        match cost_usd {
            Some(c) => self.stats.cost_usd += c,
            None => self.stats.priced = false,
        }
        (cost_usd, tokens)
    }

    /// A reply that is no step of the agent (a compaction's summary) is paid for like any:
    /// the meter and the spending limits count it. Its cost.
    pub(crate) fn count_aside(&mut self, usage: &protocol::Usage) -> Option<f64> {
        let cost_usd = self.cost_of(usage);
        let tokens = u64::from(usage.input_tokens) + u64::from(usage.output_tokens);
        self.spend.record(tokens, cost_usd);
        cost_usd
    }

    pub(crate) fn step_taken(&mut self) {
        self.stats.steps += 1;
    }

    /// Streams one reply, shown as it comes (a draft's text as a write in preparation).
    pub(crate) async fn stream(
        &self,
        req: &ChatRequest,
        drafting: bool,
        events: EventSink,
        cancel: &CancellationToken,
    ) -> Result<ChatResponse, AgentError> {
        let provider = self.provider.as_ref().ok_or(AgentError::NoProvider)?;
        let mut forward = self.forwarder(drafting, events);
        Ok(provider.stream(req, &mut forward, cancel).await?)
    }

    /// Streams a request nobody watches (a compaction's summary).
    pub(crate) async fn ask_quietly(
        &self,
        req: &ChatRequest,
        cancel: &CancellationToken,
    ) -> Result<ChatResponse, AgentError> {
        let provider = self.provider.as_ref().ok_or(AgentError::NoProvider)?;
        Ok(provider.stream(req, &mut |_| {}, cancel).await?)
    }

    /// What the window is sent while a reply streams. A draft's text is files being written:
    /// shown as a write in preparation, not as words.
    fn forwarder(
        &self,
        drafting: bool,
        events: EventSink,
    ) -> impl FnMut(StreamEvent) + Send + use<> {
        let server = self.provider.as_ref().map(|p| p.config().base_url.clone());
        let model = self.name.clone();
        // The call being written, for the window's "preparing" line.
        let mut writing: Option<(String, u32)> = None;
        if drafting {
            writing = Some(("write_file".to_string(), 0));
        }
        let preparing = |name: &str, chars: u32| AgentEvent::ToolCallWriting {
            name: name.to_string(),
            chars,
            words: tools::words_for(name),
        };
        move |e: StreamEvent| {
            events.send(match e {
                StreamEvent::TextDelta(text) if drafting => {
                    let Some((name, chars)) = &mut writing else {
                        return;
                    };
                    *chars = chars.saturating_add(text.chars().count() as u32);
                    preparing(name, *chars)
                }
                StreamEvent::TextDelta(text) => AgentEvent::TextDelta { text },
                StreamEvent::ThinkingDelta(text) => AgentEvent::ThinkingDelta { text },
                StreamEvent::Notice(text) => AgentEvent::Notice { text },
                // One line for the first retry; the rest are in the log. The final
                // failure, if it comes, says what to do.
                StreamEvent::Retrying {
                    error, retry: 1, ..
                } => AgentEvent::Notice {
                    text: retry_notice(
                        &error,
                        FailureContext {
                            server: server.as_deref(),
                            model: Some(&model),
                        },
                    ),
                },
                StreamEvent::Retrying { .. } => return,
                // The reply's total usage is reported once, with its cost, when it ends.
                StreamEvent::Usage(_) => return,
                StreamEvent::Restart => AgentEvent::Notice {
                    text: "the reply is starting over".into(),
                },
                StreamEvent::PromptProgress { evaluated, total } => {
                    AgentEvent::PromptProgress { evaluated, total }
                }
                StreamEvent::ToolUseStarted { name, .. } => {
                    let event = preparing(&name, 0);
                    writing = Some((name, 0));
                    event
                }
                StreamEvent::ToolUseDelta { partial_json, .. } => {
                    let Some((name, chars)) = &mut writing else {
                        return;
                    };
                    *chars = chars.saturating_add(partial_json.chars().count() as u32);
                    preparing(name, *chars)
                }
            });
        }
    }
}
