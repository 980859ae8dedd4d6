//! Rebuilding a conversation from a session log, to continue it.

use crate::session_log::Entry;
use protocol::{AgentEvent, ContentBlock, Message, Role};
use serde_json::Value;

/// The messages a logged session amounts to. A turn cut short (tool calls that never got their
/// results, because the app or the machine died) is dropped: those calls never ran as far as
/// the model is concerned, and the next turn starts clean.
pub fn replay_messages(entries: &[Entry<Value>]) -> Vec<Message> {
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
        if e.event.get("type").and_then(Value::as_str) == Some("user_message") {
            flush(&mut messages, &mut pending_results);
            let text = e.event.get("text").and_then(Value::as_str).unwrap_or("");
            messages.push(Message::user_text(text));
            continue;
        }
        match serde_json::from_value::<AgentEvent>(e.event.clone()) {
            Ok(AgentEvent::AssistantMessage { message }) => {
                flush(&mut messages, &mut pending_results);
                messages.push(message);
            }
            Ok(AgentEvent::ToolFinished {
                id,
                output,
                is_error,
                ..
            }) => {
                pending_results.push(ContentBlock::ToolResult {
                    tool_use_id: id,
                    content: output,
                    is_error,
                });
            }
            _ => {}
        }
    }
    flush(&mut messages, &mut pending_results);
    // Every tool_use must be answered by the next message; cut the conversation where one is not.
    let mut complete = Vec::new();
    let mut i = 0;
    while i < messages.len() {
        let m = &messages[i];
        let calls: Vec<&str> = m
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::ToolUse { id, .. } => Some(id.as_str()),
                _ => None,
            })
            .collect();
        if m.role == Role::Assistant && !calls.is_empty() {
            let answered = messages.get(i + 1).is_some_and(|next| {
                calls.iter().all(|c| next.content.iter().any(|b| matches!(b, ContentBlock::ToolResult { tool_use_id, .. } if tool_use_id == c)))
            });
            if !answered {
                break;
            }
        }
        complete.push(m.clone());
        i += 1;
    }
    complete
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

    #[test]
    fn a_finished_turn_replays_and_a_cut_one_is_dropped() {
        let finished = serde_json::to_value(AgentEvent::ToolFinished {
            id: "t1".into(),
            name: "read_file".into(),
            output: "text".into(),
            is_error: false,
            confinement: None,
        })
        .expect("json");
        let entries = vec![
            entry(1, json!({"type": "user_message", "text": "do it"})),
            entry(2, assistant_with_call("t1")),
            entry(3, finished),
            entry(4, assistant_with_call("t2")),
        ];
        let m = replay_messages(&entries);
        assert_eq!(m.len(), 3, "{m:?}");
        assert_eq!(m[0].text(), "do it");
        assert!(
            matches!(&m[2].content[0], ContentBlock::ToolResult { tool_use_id, .. } if tool_use_id == "t1")
        );
    }
}
