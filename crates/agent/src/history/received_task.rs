//! The person's message is logged twice: first as it arrives (`task_received`), before the
//! turn's checkpoint is taken — on a big project that takes a while, and a crash then must not
//! lose what was asked — then as the turn's `user_message`, carrying the checkpoint. A received
//! task no `user_message` followed is read as one (without a checkpoint to go back to).

use crate::history::entry::{EngineEntry, LogEntry};
use crate::history::log::Entry;
use protocol::AgentEvent;
use serde_json::Value;
use std::borrow::Cow;

/// What a line of the log is to a received task.
enum Seen {
    /// A received task, with its text.
    Received(String),
    /// The turn's `user_message`.
    Message,
    /// Something that comes after a turn's start and not before it.
    WentOn,
    Other,
}

fn seen(e: &Entry<Value>) -> Seen {
    match LogEntry::read(&e.event) {
        LogEntry::Engine(EngineEntry::TaskReceived { text }) => Seen::Received(text),
        LogEntry::Engine(
            EngineEntry::WakeMessage { .. }
            | EngineEntry::Compaction { .. }
            | EngineEntry::ConversationRestored { .. },
        ) => Seen::WentOn,
        LogEntry::Event(event) => match *event {
            AgentEvent::UserMessage { .. } => Seen::Message,
            AgentEvent::AssistantMessage { .. }
            | AgentEvent::Wake { .. }
            | AgentEvent::TurnEnded { .. } => Seen::WentOn,
            _ => Seen::Other,
        },
        _ => Seen::Other,
    }
}

/// The log with every received task that never became its turn's `user_message` made into one.
pub(crate) fn settled(entries: &[Entry<Value>]) -> Cow<'_, [Entry<Value>]> {
    let mut unsettled: Vec<(usize, String)> = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (k, e) in entries.iter().enumerate() {
        match seen(e) {
            Seen::Message => pending = None,
            // A second received task, too, means the first went no further.
            Seen::Received(text) => {
                unsettled.extend(pending.take());
                pending = Some((k, text));
            }
            Seen::WentOn => unsettled.extend(pending.take()),
            Seen::Other => {}
        }
    }
    unsettled.extend(pending);
    if unsettled.is_empty() {
        return Cow::Borrowed(entries);
    }
    let mut out = entries.to_vec();
    for (k, text) in unsettled {
        let message = AgentEvent::UserMessage {
            text,
            checkpoint: None,
        };
        out[k].event = serde_json::to_value(message).unwrap_or(Value::Null);
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(seq: u64, event: Value) -> Entry<Value> {
        Entry {
            seq,
            at_ms: 0,
            event,
        }
    }

    fn kinds(entries: &[Entry<Value>]) -> Vec<String> {
        entries
            .iter()
            .map(|e| e.event["type"].as_str().unwrap_or("").to_string())
            .collect()
    }

    #[test]
    fn a_task_followed_by_its_message_stays_as_it_is() {
        let log = vec![
            entry(0, json!({"type": "task_received", "text": "fix it"})),
            entry(1, json!({"type": "notice", "text": "no checkpoint"})),
            entry(
                2,
                json!({"type": "user_message", "text": "fix it", "checkpoint": 0}),
            ),
            entry(3, json!({"type": "turn_ended"})),
        ];
        assert!(matches!(settled(&log), Cow::Borrowed(_)));
    }

    #[test]
    fn a_task_cut_off_before_its_message_is_read_as_one() {
        let log = vec![
            entry(0, json!({"type": "task_received", "text": "fix it"})),
            entry(1, json!({"type": "wake", "reason": "retry"})),
            entry(2, json!({"type": "task_received", "text": "and then"})),
        ];
        let out = settled(&log);
        assert_eq!(kinds(&out), ["user_message", "wake", "user_message"]);
        assert_eq!(out[2].event["text"], "and then");
    }
}
