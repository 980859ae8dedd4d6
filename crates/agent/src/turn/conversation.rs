//! An agent's conversation with its model: the messages, the notes waiting for the next
//! message (after a restore), the system prompt as the first turn made it, and keeping it
//! within the model's context (a warning, then a compaction).

use super::compaction::{COMPACT_AT_PERCENT, WARN_AT_PERCENT, compact};
use super::model::Model;
use super::prompt::{SMALL_MODEL_PROMPT, estimate_tokens, system_prompt};
use crate::journal::Journal;
use crate::outcome::{AgentError, Outcome};
use llm::LlmError;
use protocol::{AgentEvent, ContentBlock, Message, Role};
use tokio_util::sync::CancellationToken;

#[derive(Default)]
pub(crate) struct Conversation {
    pub messages: Vec<Message>,
    /// Words for the model before the next message it reads (after a restore).
    pub notes: Vec<String>,
    /// The system prompt as the first turn made it, kept for the session: a prompt that
    /// changed between turns (a file added at the top level) would make the provider's prompt
    /// cache — and a local server's, which re-reads thousands of tokens on a CPU — start over.
    base_prompt: Option<String>,
    /// A named agent's own instructions, after the system prompt.
    instructions: Option<String>,
    /// The person was told the conversation nears the context's limit (until it is compacted).
    context_warned: bool,
    /// The checkpoint the next turn began at: its first event carries it.
    pub turn_checkpoint: Option<u32>,
}

impl Conversation {
    pub(crate) fn new(
        messages: Vec<Message>,
        notes: Vec<String>,
        instructions: Option<String>,
    ) -> Self {
        Conversation {
            messages,
            notes,
            instructions,
            ..Conversation::default()
        }
    }

    /// A message of the person's (or the engine's, for the model), with the notes waiting
    /// put before it.
    pub(crate) fn say(&mut self, text: &str) {
        let text = crate::history::replay::with_notes(&mut self.notes, text);
        self.messages.push(Message::user_text(text));
    }

    /// Whether the conversation ends with the model's words and no call: going on needs a
    /// message first.
    pub(crate) fn ends_with_reply(&self) -> bool {
        self.messages.last().is_some_and(|m| {
            m.role == Role::Assistant
                && !m
                    .content
                    .iter()
                    .any(|b| matches!(b, ContentBlock::ToolUse { .. }))
        })
    }

    /// What the model said last, for a sub-agent's report.
    pub(crate) fn last_words(&self) -> String {
        self.messages
            .iter()
            .rev()
            .find(|m| m.role == Role::Assistant)
            .map(|m| m.text())
            .unwrap_or_default()
    }

    /// The system prompt's fixed part for this session: kept from the first turn, with a
    /// named agent's instructions and, for a small model, its own words.
    pub(crate) fn system_base(
        &mut self,
        root: &tools::ProjectRoot,
        sandboxed: bool,
        small_model: bool,
    ) -> String {
        let mut base = self
            .base_prompt
            .get_or_insert_with(|| system_prompt(root, sandboxed))
            .clone();
        if let Some(own) = &self.instructions {
            base.push('\n');
            base.push_str(own);
            base.push('\n');
        }
        if small_model {
            base.push_str(SMALL_MODEL_PROMPT);
        }
        base
    }

    /// Before a step: the person is told when the conversation nears the context's limit
    /// (`window` tokens), and past the mark it is compacted. `fixed` is what every request
    /// carries besides the messages (the instructions and the tools' definitions): counted
    /// too, or a 4,096-token server was told nothing until the messages alone filled it.
    /// What stops the turn meanwhile.
    pub(crate) async fn mind_the_context(
        &mut self,
        window: u32,
        fixed: u64,
        model: &mut Model,
        journal: &mut Journal,
        system: &str,
        cancel: &CancellationToken,
    ) -> Result<Option<Outcome>, AgentError> {
        let used = estimate_tokens(&self.messages) + fixed;
        let window = u64::from(window).max(1);
        let percent = u32::try_from(used * 100 / window).unwrap_or(u32::MAX);
        // Said before a compaction, also when one step jumps past both marks.
        if percent >= WARN_AT_PERCENT && !self.context_warned {
            self.context_warned = true;
            journal.emit(AgentEvent::ContextFilling {
                used_percent: percent,
                compact_at: COMPACT_AT_PERCENT,
            })?;
        }
        if percent > COMPACT_AT_PERCENT {
            match compact(&mut self.messages, model, journal, system, cancel).await {
                Ok(compacted) => {
                    if compacted {
                        self.context_warned = false;
                    }
                }
                Err(AgentError::Model(LlmError::Cancelled)) => {
                    journal.sync()?;
                    return Ok(Some(Outcome::Cancelled));
                }
                Err(e) => return Err(e),
            }
            // The summary was a call of its own: the limit may be reached now.
            let prompt = super::prompt::estimate_tokens(&self.messages);
            if let Some(stop) = model.spending_stop(&mut journal.log, prompt)? {
                return Ok(Some(stop));
            }
        }
        Ok(None)
    }
}
