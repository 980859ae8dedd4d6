//! The conversation as restores left it. The log is append-only: a conversation restore is a
//! `conversation_restored` entry naming the log position to go back to, and from it on the
//! conversation is what it was at that position (itself worked out the same way), followed by
//! whatever comes after the entry. Undoing a restore is another restore, to the position just
//! before it. Turns keep the numbers they were given in the whole log, undone or not, so a
//! number names the same turn for good.

use crate::session_log::Entry;
use protocol::AgentEvent;
use serde_json::Value;

/// The log entry of a conversation restore: the conversation goes back to how it was before
/// the entry with this sequence number.
pub(crate) const CONVERSATION_RESTORED: &str = "conversation_restored";
/// Words for the model only, put before the next message it reads (after a restore that left
/// the conversation and the files out of step).
pub(crate) const MODEL_NOTE: &str = "model_note";

fn kind(e: &Entry<Value>) -> Option<&str> {
    e.event.get("type").and_then(Value::as_str)
}

/// The entries the conversation is made of now, in order.
pub fn effective(entries: &[Entry<Value>]) -> Vec<Entry<Value>> {
    effective_before(entries, u64::MAX)
        .into_iter()
        .cloned()
        .collect()
}

/// The conversation as it stood just before the entry `seq`.
fn effective_before(entries: &[Entry<Value>], seq: u64) -> Vec<&Entry<Value>> {
    let mut out: Vec<&Entry<Value>> = Vec::new();
    for e in entries.iter().take_while(|e| e.seq < seq) {
        if kind(e) == Some(CONVERSATION_RESTORED) {
            let to = e
                .event
                .get("to_seq")
                .and_then(Value::as_u64)
                .unwrap_or(e.seq);
            // A position at or after the entry itself would change nothing (and never ends).
            if to < e.seq {
                out = effective_before(entries, to);
            }
            continue;
        }
        out.push(e);
    }
    out
}

/// A turn as `tandem-cli show` numbers it: every turn that began, in the whole log.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnStart {
    /// From 1.
    pub number: u32,
    /// The log entry that began it.
    pub seq: u64,
    pub checkpoint: Option<u32>,
    /// Still part of the conversation (not taken back by a restore).
    pub in_conversation: bool,
    pub event: AgentEvent,
}

/// Every turn that began, numbered from 1.
pub fn turn_starts(entries: &[Entry<Value>]) -> Vec<TurnStart> {
    let kept: std::collections::BTreeSet<u64> = effective_before(entries, u64::MAX)
        .iter()
        .map(|e| e.seq)
        .collect();
    let mut out = Vec::new();
    for e in entries {
        let Ok(event) = serde_json::from_value::<AgentEvent>(e.event.clone()) else {
            continue;
        };
        let checkpoint = match &event {
            AgentEvent::UserMessage { checkpoint, .. } | AgentEvent::Wake { checkpoint, .. } => {
                *checkpoint
            }
            _ => continue,
        };
        out.push(TurnStart {
            number: out.len() as u32 + 1,
            seq: e.seq,
            checkpoint,
            in_conversation: kept.contains(&e.seq),
            event,
        });
    }
    out
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

    fn user(seq: u64, text: &str) -> Entry<Value> {
        entry(
            seq,
            json!({"type": "user_message", "text": text, "checkpoint": seq}),
        )
    }

    fn texts(entries: &[Entry<Value>]) -> Vec<String> {
        effective(entries)
            .iter()
            .filter_map(|e| {
                e.event
                    .get("text")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .collect()
    }

    /// A restore takes the conversation back; a restore of that restore brings it back; what
    /// came after each stays; turn numbers never move.
    #[test]
    fn restores_and_their_undoing_nest() {
        let mut log = vec![user(1, "one"), user(2, "two"), user(3, "three")];
        // Back to before turn 2.
        log.push(entry(
            4,
            json!({"type": CONVERSATION_RESTORED, "to_seq": 2}),
        ));
        assert_eq!(texts(&log), ["one"]);
        log.push(user(5, "two again"));
        assert_eq!(texts(&log), ["one", "two again"]);
        // Undo that restore: back to just before it (seq 4).
        log.push(entry(
            6,
            json!({"type": CONVERSATION_RESTORED, "to_seq": 4}),
        ));
        assert_eq!(texts(&log), ["one", "two", "three"]);
        let turns = turn_starts(&log);
        assert_eq!(
            turns
                .iter()
                .map(|t| (t.number, t.in_conversation))
                .collect::<Vec<_>>(),
            [(1, true), (2, true), (3, true), (4, false)]
        );
        // A position that is not before the entry changes nothing.
        log.push(entry(
            7,
            json!({"type": CONVERSATION_RESTORED, "to_seq": 9}),
        ));
        assert_eq!(texts(&log), ["one", "two", "three"]);
    }
}
