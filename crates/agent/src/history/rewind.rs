//! The conversation as restores left it. The log is append-only: a conversation restore is a
//! `conversation_restored` entry naming the log position to go back to, and from it on the
//! conversation is what it was at that position (itself worked out the same way), followed by
//! whatever comes after the entry. Undoing a restore is another restore, to the position just
//! before it. Turns keep the numbers they were given in the whole log, undone or not, so a
//! number names the same turn for good.

use crate::history::entry::{EngineEntry, LogEntry};
use crate::history::log::Entry;
use protocol::AgentEvent;
use serde_json::Value;

/// The entries the conversation is made of now, in order.
pub fn effective(entries: &[Entry<Value>]) -> Vec<Entry<Value>> {
    let entries = crate::history::received_task::settled(entries);
    effective_before(&entries, u64::MAX)
        .into_iter()
        .cloned()
        .collect()
}

/// The conversation as it stood just before the entry `seq`, in one pass over the log. Each
/// entry of the conversation points at the one before it, and the conversation as it stood
/// before every entry is remembered as its last entry; a restore then picks up an earlier
/// conversation in one step. (Working each restore out again from the start, as before, took
/// time doubling with every undo: the 27th took 48 s.)
fn effective_before(entries: &[Entry<Value>], seq: u64) -> Vec<&Entry<Value>> {
    // `before[k]`: the last entry of the conversation just before entry k; `link[k]`: the
    // entry before k in the conversation k belongs to.
    let mut before: Vec<Option<usize>> = Vec::with_capacity(entries.len());
    let mut link: Vec<Option<usize>> = vec![None; entries.len()];
    let mut last: Option<usize> = None;
    for (k, e) in entries.iter().enumerate().take_while(|(_, e)| e.seq < seq) {
        before.push(last);
        if let Some(EngineEntry::ConversationRestored { to_seq: to }) = EngineEntry::read(&e.event)
        {
            // A position at or after the entry itself would change nothing.
            if to < e.seq {
                // The conversation before the first entry at or after `to` (entries are in
                // sequence order, and that entry is this one at the latest).
                let j = entries[..k].partition_point(|x| x.seq < to);
                last = before[j];
            }
            continue;
        }
        link[k] = last;
        last = Some(k);
    }
    let mut out = Vec::new();
    let mut at = last;
    while let Some(k) = at {
        out.push(&entries[k]);
        at = link[k];
    }
    out.reverse();
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
    let entries = crate::history::received_task::settled(entries);
    let entries = entries.as_ref();
    let kept: std::collections::BTreeSet<u64> = effective_before(entries, u64::MAX)
        .iter()
        .map(|e| e.seq)
        .collect();
    let mut out = Vec::new();
    for e in entries {
        let Some(event) = LogEntry::read(&e.event).event() else {
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
            EngineEntry::ConversationRestored { to_seq: 2 }.line(),
        ));
        assert_eq!(texts(&log), ["one"]);
        log.push(user(5, "two again"));
        assert_eq!(texts(&log), ["one", "two again"]);
        // Undo that restore: back to just before it (seq 4).
        log.push(entry(
            6,
            EngineEntry::ConversationRestored { to_seq: 4 }.line(),
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
            EngineEntry::ConversationRestored { to_seq: 9 }.line(),
        ));
        assert_eq!(texts(&log), ["one", "two", "three"]);
    }

    /// Issue 26: each undo of an undo worked every earlier restore out again, twice: the 27th
    /// took 48 s. Sixty in a row now read like two.
    #[test]
    fn a_long_chain_of_undos_reads_in_one_pass() {
        let mut log = vec![user(1, "one"), user(2, "two")];
        log.push(entry(
            3,
            EngineEntry::ConversationRestored { to_seq: 2 }.line(),
        ));
        // Each undo goes back to just before the restore (or undo) before it.
        for n in 0..60u64 {
            let seq = 4 + n;
            log.push(entry(
                seq,
                EngineEntry::ConversationRestored { to_seq: seq - 1 }.line(),
            ));
            let want: &[&str] = if n % 2 == 0 {
                &["one", "two"]
            } else {
                &["one"]
            };
            assert_eq!(texts(&log), want, "after undo {}", n + 1);
        }
        log.push(user(64, "three"));
        assert_eq!(texts(&log), ["one", "three"]);
    }
}
