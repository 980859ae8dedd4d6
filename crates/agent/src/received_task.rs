//! The person's message is logged twice: first as it arrives (`task_received`), before the
//! turn's checkpoint is taken — on a big project that takes a while, and a crash then must not
//! lose what was asked — then as the turn's `user_message`, carrying the checkpoint. A received
//! task no `user_message` followed is read as one (without a checkpoint to go back to).

use crate::session_log::Entry;
use serde_json::Value;
use std::borrow::Cow;

pub(crate) const TASK_RECEIVED: &str = "task_received";

fn kind(e: &Entry<Value>) -> Option<&str> {
    e.event.get("type").and_then(Value::as_str)
}

/// Whether the turn went on past where its `user_message` is logged: what comes after a turn's
/// start and not before it.
fn turn_went_on(kind: Option<&str>) -> bool {
    matches!(
        kind,
        Some(
            TASK_RECEIVED
                | "assistant_message"
                | "wake_message"
                | "wake"
                | "turn_ended"
                | "compaction"
                | crate::rewind::CONVERSATION_RESTORED
        )
    )
}

/// The log with every received task that never became its turn's `user_message` made into one.
pub(crate) fn settled(entries: &[Entry<Value>]) -> Cow<'_, [Entry<Value>]> {
    let mut unsettled = Vec::new();
    let mut pending: Option<usize> = None;
    for (k, e) in entries.iter().enumerate() {
        let kind = kind(e);
        if kind == Some("user_message") {
            pending = None;
        } else if turn_went_on(kind)
            && let Some(p) = pending.take()
        {
            unsettled.push(p);
        }
        if kind == Some(TASK_RECEIVED) {
            pending = Some(k);
        }
    }
    unsettled.extend(pending);
    if unsettled.is_empty() {
        return Cow::Borrowed(entries);
    }
    let mut out = entries.to_vec();
    for k in unsettled {
        let text = out[k].event.get("text").cloned().unwrap_or_default();
        out[k].event = serde_json::json!({"type": "user_message", "text": text});
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
            .map(|e| kind(e).unwrap_or("").to_string())
            .collect()
    }

    #[test]
    fn a_task_followed_by_its_message_stays_as_it_is() {
        let log = vec![
            entry(0, json!({"type": TASK_RECEIVED, "text": "fix it"})),
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
            entry(0, json!({"type": TASK_RECEIVED, "text": "fix it"})),
            entry(1, json!({"type": "wake", "reason": "retry"})),
            entry(2, json!({"type": TASK_RECEIVED, "text": "and then"})),
        ];
        let out = settled(&log);
        assert_eq!(kinds(&out), ["user_message", "wake", "user_message"]);
        assert_eq!(out[2].event["text"], "and then");
    }
}
