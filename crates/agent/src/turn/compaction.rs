//! Compaction: near the end of the context window, older turns become a summary the model
//! writes, marked in the log so that a resumed session continues from the summary too.

use super::model::Model;
use crate::history::entry::EngineEntry;
use crate::history::replay::summary_message;
use crate::journal::Journal;
use crate::outcome::AgentError;
use protocol::{AgentEvent, ContentBlock, Message};
use tokio_util::sync::CancellationToken;

/// The conversation's share of the model's context at which the person is told it fills up.
pub(crate) const WARN_AT_PERCENT: u32 = 70;
/// Past this share, the older turns are summarised.
pub(crate) const COMPACT_AT_PERCENT: u32 = 80;
/// The part of a model's context a prompt may fill: the rest is the reply's. A prompt that
/// leaves less than a quarter of the context or the reply's limit is refused (the built-in
/// model) or its reply cut (a local server): measured against the whole context, a small
/// model's 8,192 tokens were "80 % full" only after its prompts had stopped fitting.
pub(crate) fn prompt_room(window: u32, max_tokens: u32) -> u32 {
    window.saturating_sub(max_tokens.min(window / 4)).max(1)
}

/// Lines of what a compaction dropped that the transcript lists.
const MAX_DROPPED_LINES: usize = 60;

fn one_line(text: &str) -> String {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if line.chars().count() > 120 {
        format!("{}…", line.chars().take(120).collect::<String>())
    } else {
        line.to_string()
    }
}

/// A line per message a compaction drops: who said what, which tool was called, a result.
pub(crate) fn dropped_lines(messages: &[Message]) -> Vec<String> {
    let mut out = Vec::new();
    for m in messages {
        for b in &m.content {
            let line = match b {
                ContentBlock::Text { text } if m.role == protocol::Role::User => {
                    format!("You: {}", one_line(text))
                }
                ContentBlock::Text { text } if !text.trim().is_empty() => {
                    format!("Tandem: {}", one_line(text))
                }
                // The call as the window names it ("Read calc.py"), not the tool's name.
                ContentBlock::ToolUse { name, input, .. } => {
                    crate::history::export::title_words(&tools::title_of(name, input))
                }
                ContentBlock::ToolResult { content, .. } => {
                    format!("Result: {}", one_line(content))
                }
                _ => continue,
            };
            out.push(line);
        }
    }
    if out.len() > MAX_DROPPED_LINES {
        let more = out.len() - MAX_DROPPED_LINES;
        out.truncate(MAX_DROPPED_LINES);
        out.push(format!("… and {more} more"));
    }
    out
}

/// Replaces the older part of the conversation with a summary the model writes, keeping the
/// task and the most recent turns; whether it did. Cuts only where no tool call waits for its
/// result.
pub(crate) async fn compact(
    messages: &mut Vec<Message>,
    model: &mut Model,
    journal: &mut Journal,
    system: &str,
    cancel: &CancellationToken,
) -> Result<bool, AgentError> {
    const KEEP: usize = 4;
    if messages.len() <= KEEP + 1 {
        return Ok(false);
    }
    // The first kept message must not be a tool result whose call would be summarized away.
    let mut cut = messages.len() - KEEP;
    while cut < messages.len()
        && messages[cut]
            .content
            .iter()
            .any(|b| matches!(b, ContentBlock::ToolResult { .. }))
    {
        cut += 1;
    }
    if cut >= messages.len() || cut <= 1 {
        return Ok(false);
    }
    let mut older: Vec<Message> = messages[..cut].to_vec();
    older.push(Message::user_text(
        "Summarize the conversation so far for your own later use: the task, what you have done and found, \
         files changed, decisions the user made, and what remains. Be concise and concrete; do not call tools.",
    ));
    let req = model.request(Some(system.to_string()), older, Vec::new(), 2048);
    let resp = model.ask_quietly(&req, cancel).await?;
    // The summary is paid for like any reply: the meter and the spending limits count it.
    let cost_usd = model.count_aside(&resp.usage);
    journal.emit(AgentEvent::Usage {
        usage: resp.usage,
        cost_usd,
    })?;
    let summary = resp.message.text();
    let before = messages.len();
    let dropped = dropped_lines(&messages[..cut]);
    let mut compacted = vec![summary_message(&summary)];
    compacted.extend(messages[cut..].iter().cloned());
    *messages = compacted;
    journal.append(&EngineEntry::Compaction {
        summary: summary.clone(),
        messages_before: before,
        messages_after: messages.len(),
    })?;
    journal.emit(AgentEvent::Compacted {
        summary,
        dropped,
        messages_before: u32::try_from(before).unwrap_or(u32::MAX),
        messages_after: u32::try_from(messages.len()).unwrap_or(u32::MAX),
    })?;
    Ok(true)
}
