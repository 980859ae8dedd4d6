//! The reply: one request to the model — the conversation with the tools, or a small model's
//! whole-file draft — streamed to the window as it is written, its usage and cost counted, and
//! read as the calls it means. The turn loop (`turn.rs`) decides what happens with them.

use crate::failure::{FailureContext, failure_at, retry_notice};
use crate::turn::{Agent, AgentError, Outcome};
use crate::whole_file_draft::Draft;
use llm::{ChatRequest, ChatResponse, LlmError, StreamEvent};
use protocol::{AgentEvent, ContentBlock};
use tokio_util::sync::CancellationToken;

impl Agent {
    /// The system prompt's fixed part for this session: kept from the first turn (see
    /// `base_prompt`), with a named agent's instructions and the small-model words.
    pub(crate) fn system_base(&mut self) -> String {
        let mut base = match &self.base_prompt {
            Some(kept) => kept.clone(),
            None => {
                let made = crate::prompt::system_prompt(
                    self.toolbox.ws.root(),
                    self.toolbox.commands.sandbox.is_some(),
                );
                self.base_prompt = Some(made.clone());
                made
            }
        };
        if let Some(own) = &self.instructions {
            base.push('\n');
            base.push_str(own);
            base.push('\n');
        }
        if self.small_model() {
            base.push_str(crate::prompt::SMALL_MODEL_PROMPT);
        }
        base
    }

    /// Before a step: the person is told when the conversation nears the context's limit,
    /// and past the mark it is compacted. What stops the turn meanwhile, if anything.
    pub(crate) async fn mind_the_context(
        &mut self,
        system: &str,
        cancel: &CancellationToken,
    ) -> Result<Option<Outcome>, AgentError> {
        let used = crate::prompt::estimate_tokens(&self.messages);
        let window = u64::from(self.config.context_window).max(1);
        let percent = u32::try_from(used * 100 / window).unwrap_or(u32::MAX);
        // Said before a compaction, also when one step jumps past both marks.
        if percent >= crate::compaction::WARN_AT_PERCENT && !self.context_warned {
            self.context_warned = true;
            self.emit(AgentEvent::ContextFilling {
                used_percent: percent,
                compact_at: crate::compaction::COMPACT_AT_PERCENT,
            })?;
        }
        if percent > crate::compaction::COMPACT_AT_PERCENT {
            match self.compact(system, cancel).await {
                Ok(()) => {}
                Err(AgentError::Model(LlmError::Cancelled)) => {
                    self.log.sync()?;
                    return Ok(Some(Outcome::Cancelled));
                }
                Err(e) => return Err(e),
            }
            // The summary was a call of its own: the limit may be reached now.
            if let Some(stop) = self.spending_stop()? {
                return Ok(Some(stop));
            }
        }
        Ok(None)
    }

    /// The step's request: the conversation with the tools, or the draft without them.
    pub(crate) fn step_request(
        &self,
        system: &str,
        tools: Vec<protocol::ToolDefinition>,
        draft: Option<&Draft>,
    ) -> ChatRequest {
        match draft {
            Some(d) => ChatRequest {
                model: self.config.model.clone(),
                system: Some(crate::whole_file_draft::DRAFT_SYSTEM.to_string()),
                messages: d.messages(),
                tools: Vec::new(),
                max_tokens: self.config.max_tokens,
                temperature: None,
            },
            None => ChatRequest {
                model: self.config.model.clone(),
                system: Some(system.to_string()),
                messages: self.messages.clone(),
                tools,
                max_tokens: self.config.max_tokens,
                temperature: None,
            },
        }
    }

    /// Streams one reply to `req`: shown as it comes, counted when it ends, logged, and kept
    /// in the conversation unless blank. The reply and the tokens it used; none when the
    /// person stopped it.
    pub(crate) async fn ask_model(
        &mut self,
        req: &ChatRequest,
        draft: Option<&Draft>,
        step: u32,
        cancel: &CancellationToken,
    ) -> Result<Option<(ChatResponse, u64)>, AgentError> {
        let mut forward = self.stream_forwarder(draft.is_some());
        let provider = self.provider.as_ref().ok_or(AgentError::NoProvider)?;
        let resp = match provider.stream(req, &mut forward, cancel).await {
            Ok(r) => match draft {
                Some(d) => d.as_calls(r, step),
                None => self.file_block_as_call(r, step),
            },
            Err(LlmError::Cancelled) => {
                self.log.sync()?;
                return Ok(None);
            }
            Err(e) => {
                let error = failure_at(&AgentError::Model(e.clone()), self.failure_context());
                self.emit(AgentEvent::Error { error })?;
                self.log.sync()?;
                return Err(e.into());
            }
        };
        let cost_usd = self.cost_of(&resp.usage);
        self.emit(AgentEvent::Usage {
            usage: resp.usage,
            cost_usd,
        })?;
        let tokens = u64::from(resp.usage.input_tokens) + u64::from(resp.usage.output_tokens);
        self.spend.record(tokens, cost_usd);
        self.stats.tokens += tokens;
        match cost_usd {
            Some(c) => self.stats.cost_usd += c,
            None => self.stats.priced = false,
        }
        self.emit(AgentEvent::AssistantMessage {
            message: resp.message.clone(),
        })?;
        // A blank reply is logged (the transcript shows what happened) but not kept in the
        // conversation: providers refuse an empty assistant message in the next request.
        if !resp.message.is_blank() {
            self.messages.push(resp.message.clone());
        }

        Ok(Some((resp, tokens)))
    }

    /// What the window is sent while a reply streams. A draft's text is files being written:
    /// shown as a write in preparation, not as words.
    fn stream_forwarder(&self, drafting: bool) -> impl FnMut(StreamEvent) + Send + use<> {
        let events = self.events.clone();
        let server = self.provider.as_ref().map(|p| p.config().base_url.clone());
        let model = self.config.model.clone();
        // The call being written, for the window's "preparing" line.
        let mut writing: Option<(String, u32)> = None;
        if drafting {
            writing = Some(("write_file".to_string(), 0));
        }
        move |e: StreamEvent| {
            events.send(match e {
                StreamEvent::TextDelta(text) if drafting => {
                    let Some((name, chars)) = &mut writing else {
                        return;
                    };
                    *chars = chars.saturating_add(text.chars().count() as u32);
                    AgentEvent::ToolCallWriting {
                        name: name.clone(),
                        chars: *chars,
                    }
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
                    writing = Some((name.clone(), 0));
                    AgentEvent::ToolCallWriting { name, chars: 0 }
                }
                StreamEvent::ToolUseDelta { partial_json, .. } => {
                    let Some((name, chars)) = &mut writing else {
                        return;
                    };
                    *chars = chars.saturating_add(partial_json.chars().count() as u32);
                    AgentEvent::ToolCallWriting {
                        name: name.clone(),
                        chars: *chars,
                    }
                }
            });
        }
    }

    /// A small model's reply with no call and a whole file in a code block under its path, as
    /// the `write_file` call it means (see `file_blocks`).
    fn file_block_as_call(&self, mut resp: llm::ChatResponse, step: u32) -> llm::ChatResponse {
        let has_call = resp
            .message
            .content
            .iter()
            .any(|b| matches!(b, ContentBlock::ToolUse { .. }));
        if has_call || !self.small_model() {
            return resp;
        }
        let root = self.toolbox.ws.root();
        let exists = |p: &str| root.resolve(p).is_ok_and(|r| r.real.is_file());
        let Some((path, content)) = crate::file_blocks::file_block(&resp.message.text(), &exists)
        else {
            return resp;
        };
        // The call alone: the block's text is the call's content, and kept twice it would
        // double what the next step reads.
        resp.message.content = vec![ContentBlock::ToolUse {
            id: format!("file_block_{step}"),
            name: "write_file".into(),
            input: serde_json::json!({ "path": path, "content": content }),
        }];
        resp.lenient = None;
        resp
    }
}
