//! A session log's lines, typed: the events front ends were shown ([`AgentEvent`]) and the
//! lines only the engine writes ([`EngineEntry`]). Every line is written from one of these
//! types and read back by [`LogEntry::read`], the one reader: nothing matches on a line's
//! `"type"` string elsewhere. Logs written before this type existed read the same (their lines
//! had these shapes); a line of a kind this version does not know is [`LogEntry::Unknown`],
//! kept in the log and passed over.

use protocol::AgentEvent;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The lines only the engine writes: what it needs to continue, restore or account for a
/// session, beyond what front ends were shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EngineEntry {
    /// The person's message as it arrived, before the turn's checkpoint was taken (the turn's
    /// `user_message` follows once it is).
    TaskReceived { text: String },
    /// The policy's decision on a call (`command`: a skill tool's command line).
    Decision {
        id: String,
        decision: policy::Verdict,
        reason: String,
        rule: String,
        #[serde(default)]
        sandbox: policy::SandboxNeeds,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        command: Option<String>,
    },
    /// Words for the model only, put before the next message it reads (a restore that left
    /// the conversation and the files out of step).
    ModelNote { text: String },
    /// What a wake-up told the agent: a user message of the conversation.
    WakeMessage { text: String },
    /// The older turns replaced by their summary; the conversation had `messages_before`
    /// messages and then `messages_after` (the summary's among them).
    Compaction {
        summary: String,
        messages_before: usize,
        messages_after: usize,
    },
    /// A restore of the conversation: it goes back to how it was before the entry `to_seq`.
    ConversationRestored { to_seq: u64 },
}

/// One line of a session log, read.
#[derive(Debug, Clone, PartialEq)]
pub enum LogEntry {
    Event(Box<AgentEvent>),
    Engine(EngineEntry),
    /// A kind this version does not know (a newer Tandem's), or a damaged line.
    Unknown,
}

/// The `"type"` of the engine's own lines, to tell them from events without trying both.
const ENGINE_KINDS: &[&str] = &[
    "task_received",
    "decision",
    "model_note",
    "wake_message",
    "compaction",
    "conversation_restored",
];

impl LogEntry {
    /// The one reader of a logged line.
    pub fn read(line: &Value) -> LogEntry {
        Self::read_engine(line).unwrap_or_else(|| {
            AgentEvent::deserialize(line)
                .map_or(LogEntry::Unknown, |e| LogEntry::Event(Box::new(e)))
        })
    }

    /// The line read when it is the engine's own; `None` for any other.
    fn read_engine(line: &Value) -> Option<LogEntry> {
        let kind = line.get("type").and_then(Value::as_str)?;
        ENGINE_KINDS
            .contains(&kind)
            .then(|| EngineEntry::deserialize(line).map_or(LogEntry::Unknown, LogEntry::Engine))
    }

    /// A line's `usage` event (a reply paid for), without reading lines of other kinds: the
    /// cost count looks at every line of a long log each time the session list refreshes,
    /// and most lines are long tool results.
    pub fn read_usage(line: &Value) -> Option<AgentEvent> {
        if line.get("type").and_then(Value::as_str) != Some("usage") {
            return None;
        }
        AgentEvent::deserialize(line).ok()
    }

    /// The event, when the line is one front ends were shown.
    pub fn event(self) -> Option<AgentEvent> {
        match self {
            LogEntry::Event(e) => Some(*e),
            _ => None,
        }
    }
}

impl EngineEntry {
    /// The engine's own line, without reading an event's (which may be long) when it is not.
    pub fn read(line: &Value) -> Option<EngineEntry> {
        match LogEntry::read_engine(line) {
            Some(LogEntry::Engine(e)) => Some(e),
            _ => None,
        }
    }

    /// The line as written.
    pub fn line(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Lines as the engine wrote them before this type existed read as their kinds, and what
    /// it writes now reads back the same; the decision's three shapes are one.
    #[test]
    fn lines_written_before_read_as_their_kinds() {
        let old = [
            json!({"type": "task_received", "text": "fix it"}),
            json!({"type": "decision", "id": "c1", "decision": "allow", "reason": "reads", "rule": "floor", "sandbox": {"network": false, "outside": false}}),
            json!({"type": "decision", "id": "c2", "decision": "ask", "reason": "runs", "rule": "skill", "sandbox": {"network": true, "outside": false}, "command": "tool --x"}),
            json!({"type": "decision", "id": "c3", "decision": "deny", "reason": "server", "rule": "mcp"}),
            json!({"type": "model_note", "text": "the files were restored"}),
            json!({"type": "wake_message", "text": "the task ended"}),
            json!({"type": "compaction", "summary": "s", "messages_before": 9, "messages_after": 3}),
            json!({"type": "conversation_restored", "to_seq": 4}),
        ];
        for line in &old {
            let LogEntry::Engine(e) = LogEntry::read(line) else {
                panic!("not read: {line}");
            };
            assert_eq!(
                LogEntry::read(&e.line()),
                LogEntry::Engine(e.clone()),
                "{line}"
            );
        }
        let event = json!({"type": "user_message", "text": "hi", "checkpoint": 1});
        assert!(matches!(
            LogEntry::read(&event).event(),
            Some(AgentEvent::UserMessage { .. })
        ));
        assert_eq!(
            LogEntry::read(&json!({"type": "from_a_newer_tandem"})),
            LogEntry::Unknown
        );
        let usage = json!({"type": "usage", "usage": {"input_tokens": 10, "output_tokens": 2, "cache_read_tokens": 0, "cache_write_tokens": 0}, "cost_usd": 0.5});
        assert_eq!(
            LogEntry::read_usage(&usage),
            LogEntry::read(&usage).event(),
            "{usage}"
        );
        assert!(LogEntry::read_usage(&usage).is_some());
        assert_eq!(LogEntry::read_usage(&event), None);
        assert_eq!(
            LogEntry::read(&json!({"type": "decision", "id": 3})),
            LogEntry::Unknown
        );
    }

    /// A whole log the engine wrote before this type existed (a benchmark task, stop 38):
    /// every line reads as a kind it knows, and the conversation and the turn come back.
    #[test]
    fn a_log_written_before_reads_whole() {
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/logs/written-by-stop-38.jsonl");
        let read = crate::history::log::read_session::<Value>(&file).expect("read");
        assert!(read.entries.len() > 30, "{}", read.entries.len());
        for e in &read.entries {
            assert_ne!(LogEntry::read(&e.event), LogEntry::Unknown, "{}", e.event);
        }
        let decisions = read
            .entries
            .iter()
            .filter(|e| {
                matches!(
                    EngineEntry::read(&e.event),
                    Some(EngineEntry::Decision { .. })
                )
            })
            .count();
        assert_eq!(decisions, 7);
        let messages = crate::history::replay::replay_messages(&read.entries);
        assert!(messages.len() >= 3, "{messages:?}");
        assert!(messages[0].text().starts_with("greet.sh should print"));
        let turns = crate::history::rewind::turn_starts(&read.entries);
        assert_eq!(turns.len(), 1);
        assert_eq!(turns[0].checkpoint, Some(0));
    }
}
