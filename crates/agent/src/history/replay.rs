//! Rebuilding a conversation from a session log, to continue it: as the model last saw it
//! (a compaction replaces the older turns with their summary, as it did live), and always one a
//! provider accepts — a call the log has no result for (the app died mid-call) gets a result
//! saying so, and nothing after it is lost.

use crate::history::entry::{EngineEntry, LogEntry};
use crate::history::log::Entry;
use protocol::{AgentEvent, ContentBlock, Message, Role};
use serde_json::Value;

/// What a call cut short by a crash is answered with.
const INTERRUPTED: &str = "The session was interrupted before this call finished; it may not have run. Check before relying on it.";

/// The text the summary is given to the model with (a compaction gives it so, and replay rebuilds it).
pub(crate) fn summary_message(summary: &str) -> Message {
    Message::user_text(format!(
        "Summary of earlier work in this session (older turns were compacted to fit the context window):\n{summary}"
    ))
}

/// The messages a logged session amounts to.
#[cfg(test)]
pub fn replay_messages(entries: &[Entry<Value>]) -> Vec<Message> {
    replay(entries).0
}

/// A user's text with the notes for the model put before it.
pub(crate) fn with_notes(notes: &mut Vec<String>, text: &str) -> String {
    if notes.is_empty() {
        return text.to_string();
    }
    let mut out = std::mem::take(notes).join("\n\n");
    out.push_str("\n\n");
    out.push_str(text);
    out
}

/// The messages, and notes for the model still waiting for the next message (a restore left
/// the files and the conversation out of step).
pub(crate) fn replay(entries: &[Entry<Value>]) -> (Vec<Message>, Vec<String>) {
    let mut notes: Vec<String> = Vec::new();
    let mut messages: Vec<Message> = Vec::new();
    let mut pending_results: Vec<ContentBlock> = Vec::new();
    let flush = |messages: &mut Vec<Message>, pending: &mut Vec<ContentBlock>| {
        if !pending.is_empty() {
            messages.push(Message {
                role: Role::User,
                content: std::mem::take(pending),
            });
        }
    };
    for e in entries {
        match LogEntry::read(&e.event) {
            LogEntry::Engine(EngineEntry::WakeMessage { text }) => {
                flush(&mut messages, &mut pending_results);
                messages.push(Message::user_text(with_notes(&mut notes, &text)));
            }
            LogEntry::Engine(EngineEntry::ModelNote { text }) => notes.push(text),
            LogEntry::Engine(EngineEntry::Compaction {
                summary,
                messages_after,
                ..
            }) => {
                flush(&mut messages, &mut pending_results);
                let keep = messages_after.saturating_sub(1).min(messages.len());
                let kept = messages.split_off(messages.len() - keep);
                messages = vec![summary_message(&summary)];
                messages.extend(kept);
            }
            LogEntry::Event(event) => match *event {
                AgentEvent::UserMessage { text, .. } => {
                    flush(&mut messages, &mut pending_results);
                    messages.push(Message::user_text(with_notes(&mut notes, &text)));
                }
                // A blank reply was never kept in the conversation (providers refuse it).
                AgentEvent::AssistantMessage { message } if message.is_blank() => {}
                AgentEvent::AssistantMessage { message } => {
                    flush(&mut messages, &mut pending_results);
                    messages.push(message);
                }
                AgentEvent::ToolFinished {
                    id,
                    output,
                    is_error,
                    ..
                } => {
                    pending_results.push(ContentBlock::ToolResult {
                        tool_use_id: id,
                        content: output,
                        is_error,
                    });
                }
                _ => {}
            },
            _ => {}
        }
    }
    flush(&mut messages, &mut pending_results);
    (answer_every_call(messages), notes)
}

/// Every tool call must be answered by the next message: a call without a result gets one
/// saying it was interrupted, in the message that follows it (made when there is none).
fn answer_every_call(messages: Vec<Message>) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::with_capacity(messages.len());
    let mut iter = messages.into_iter().peekable();
    while let Some(m) = iter.next() {
        let calls: Vec<String> = m
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::ToolUse { id, .. } => Some(id.clone()),
                _ => None,
            })
            .collect();
        let is_call = m.role == Role::Assistant && !calls.is_empty();
        out.push(m);
        if !is_call {
            continue;
        }
        let mut answer = match iter.peek() {
            Some(next)
                if next.role == Role::User
                    && next
                        .content
                        .iter()
                        .any(|b| matches!(b, ContentBlock::ToolResult { .. })) =>
            {
                iter.next().unwrap_or_else(|| Message {
                    role: Role::User,
                    content: Vec::new(),
                })
            }
            _ => Message {
                role: Role::User,
                content: Vec::new(),
            },
        };
        for id in calls {
            let answered = answer.content.iter().any(
                |b| matches!(b, ContentBlock::ToolResult { tool_use_id, .. } if *tool_use_id == id),
            );
            if !answered {
                answer.content.push(ContentBlock::ToolResult {
                    tool_use_id: id,
                    content: INTERRUPTED.into(),
                    is_error: true,
                });
            }
        }
        // The results come first, as providers want them, then anything said with them.
        answer
            .content
            .sort_by_key(|b| !matches!(b, ContentBlock::ToolResult { .. }));
        out.push(answer);
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

    fn assistant_with_call(id: &str) -> Value {
        serde_json::to_value(AgentEvent::AssistantMessage {
            message: Message {
                role: Role::Assistant,
                content: vec![ContentBlock::ToolUse {
                    id: id.into(),
                    name: "read_file".into(),
                    input: json!({"path": "a"}),
                }],
            },
        })
        .expect("json")
    }

    fn finished(id: &str) -> Value {
        serde_json::to_value(AgentEvent::ToolFinished {
            id: id.into(),
            name: "read_file".into(),
            output: "text".into(),
            is_error: false,
            outcome: None,
            confinement: None,
            exit_code: None,
            task: None,
            summary: None,
        })
        .expect("json")
    }

    fn result_ids(m: &Message) -> Vec<(String, bool)> {
        m.content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::ToolResult {
                    tool_use_id,
                    is_error,
                    ..
                } => Some((tool_use_id.clone(), *is_error)),
                _ => None,
            })
            .collect()
    }

    /// A session cut short during a call, resumed, and cut short again keeps both runs: the
    /// cut calls are answered as interrupted and everything after them stays.
    #[test]
    fn cut_calls_are_answered_and_later_turns_kept() {
        let entries = vec![
            entry(1, json!({"type": "user_message", "text": "first"})),
            entry(2, assistant_with_call("t1")),
            entry(3, finished("t1")),
            entry(4, assistant_with_call("t2")),
            // the app died here; the session was resumed:
            entry(5, json!({"type": "user_message", "text": "second"})),
            entry(6, assistant_with_call("t3")),
            entry(7, finished("t3")),
            entry(8, assistant_with_call("t4")),
            // and died again
        ];
        let m = replay_messages(&entries);
        let texts: Vec<String> = m.iter().map(Message::text).collect();
        assert!(texts.contains(&"first".to_string()) && texts.contains(&"second".to_string()));
        assert_eq!(m.len(), 10, "{m:#?}");
        assert_eq!(result_ids(&m[2]), [("t1".to_string(), false)]);
        assert_eq!(result_ids(&m[4]), [("t2".to_string(), true)]);
        assert_eq!(m[5].text(), "second");
        assert_eq!(result_ids(&m[7]), [("t3".to_string(), false)]);
        assert_eq!(result_ids(&m[9]), [("t4".to_string(), true)]);
    }

    /// A blank reply in the log (a small model sent nothing after an error) is not sent back
    /// to the provider on resume: an empty assistant message is refused.
    #[test]
    fn a_blank_reply_is_left_out() {
        let blank = serde_json::to_value(AgentEvent::AssistantMessage {
            message: Message {
                role: Role::Assistant,
                content: vec![ContentBlock::Text { text: " \n".into() }],
            },
        })
        .expect("json");
        let entries = vec![
            entry(1, json!({"type": "user_message", "text": "first"})),
            entry(2, assistant_with_call("t1")),
            entry(3, finished("t1")),
            entry(4, blank),
            entry(5, json!({"type": "user_message", "text": "go on"})),
        ];
        let m = replay_messages(&entries);
        assert_eq!(m.len(), 4, "{m:#?}");
        assert!(m.iter().all(|m| !m.is_blank()), "{m:#?}");
        assert_eq!(m[3].text(), "go on");
    }

    /// A resumed session continues from the summary, as the live one did.
    #[test]
    fn compaction_is_honoured() {
        let mut entries = vec![entry(
            1,
            json!({"type": "user_message", "text": "old task"}),
        )];
        let mut seq = 2;
        for i in 0..5 {
            entries.push(entry(seq, assistant_with_call(&format!("c{i}"))));
            entries.push(entry(seq + 1, finished(&format!("c{i}"))));
            seq += 2;
        }
        // 11 messages; the last 4 were kept behind the summary.
        entries.push(entry(
            seq,
            json!({"type": "compaction", "summary": "read five files", "messages_before": 11, "messages_after": 5}),
        ));
        entries.push(entry(
            seq + 1,
            json!({"type": "user_message", "text": "next"}),
        ));
        let m = replay_messages(&entries);
        assert_eq!(m.len(), 6, "{m:#?}");
        assert!(m[0].text().contains("read five files"));
        assert!(!m.iter().any(|x| x.text() == "old task"));
        assert_eq!(m[5].text(), "next");
    }
}
