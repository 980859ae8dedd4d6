//! Carries a session's events to the window: text and thinking deltas (and how far a prompt
//! being read or a call being written has got) are coalesced and sent at most every 50 ms
//! (never an IPC message per token); every other event goes at once, after the deltas before
//! it, so order is kept.

use protocol::AgentEvent;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tauri::ipc::Channel;
use tokio::sync::{Notify, mpsc};
use tokio::time::Instant;

pub const COALESCE: Duration = Duration::from_millis(50);

/// Where the session's events go: the channel of the last `send_message` call, which also
/// carries the turns the agent starts on its own (a background task ended) after it resolved.
pub type Sink = Arc<Mutex<Option<Channel<Vec<AgentEvent>>>>>;

/// Appends an event, merging a delta into the previous one of the same kind.
pub fn push_coalesced(buf: &mut Vec<AgentEvent>, event: AgentEvent) {
    match (buf.last_mut(), event) {
        (Some(AgentEvent::TextDelta { text: a }), AgentEvent::TextDelta { text: b })
        | (Some(AgentEvent::ThinkingDelta { text: a }), AgentEvent::ThinkingDelta { text: b }) => {
            a.push_str(&b);
        }
        // Only where the call or the reading has got to matters.
        (
            Some(last @ AgentEvent::ToolCallWriting { .. }),
            e @ AgentEvent::ToolCallWriting { .. },
        )
        | (Some(last @ AgentEvent::PromptProgress { .. }), e @ AgentEvent::PromptProgress { .. }) =>
        {
            *last = e;
        }
        (_, e) => buf.push(e),
    }
}

fn flush(sink: &Sink, buf: &mut Vec<AgentEvent>) {
    if buf.is_empty() {
        return;
    }
    let batch = std::mem::take(buf);
    let channel = sink.lock().unwrap_or_else(PoisonError::into_inner).clone();
    // No window listening (between turns, or it went away): the log still has every event.
    if let Some(ch) = channel
        && let Err(e) = ch.send(batch)
    {
        tracing::debug!(error = %e, "the window did not take the events");
    }
}

/// Runs until the agent (the sender) is dropped. `turn_flushed` is notified once the
/// `turn_ended` event has been handed to the window.
pub async fn pump(
    mut rx: mpsc::UnboundedReceiver<AgentEvent>,
    sink: Sink,
    turn_flushed: Arc<Notify>,
) {
    let mut buf = Vec::new();
    let mut deadline: Option<Instant> = None;
    loop {
        let wait = async {
            match deadline {
                Some(d) => tokio::time::sleep_until(d).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            event = rx.recv() => {
                let Some(event) = event else {
                    flush(&sink, &mut buf);
                    return;
                };
                let delta = matches!(
                    event,
                    AgentEvent::TextDelta { .. }
                        | AgentEvent::ThinkingDelta { .. }
                        | AgentEvent::ToolCallWriting { .. }
                        | AgentEvent::PromptProgress { .. }
                );
                let ended = matches!(event, AgentEvent::TurnEnded { .. });
                push_coalesced(&mut buf, event);
                if delta {
                    deadline.get_or_insert_with(|| Instant::now() + COALESCE);
                } else {
                    flush(&sink, &mut buf);
                    deadline = None;
                }
                if ended {
                    turn_flushed.notify_one();
                }
            }
            () = wait => {
                flush(&sink, &mut buf);
                deadline = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tauri::ipc::InvokeResponseBody;

    type Batches = Arc<Mutex<Vec<Vec<AgentEvent>>>>;

    /// A channel that records each batch it is given.
    fn recording() -> (Channel<Vec<AgentEvent>>, Batches) {
        let seen: Batches = Arc::default();
        let into = seen.clone();
        let channel = Channel::new(move |body: InvokeResponseBody| {
            if let InvokeResponseBody::Json(json) = body
                && let Ok(batch) = serde_json::from_str::<Vec<AgentEvent>>(&json)
            {
                into.lock().expect("lock").push(batch);
            }
            Ok(())
        });
        (channel, seen)
    }

    #[tokio::test]
    async fn a_token_stream_reaches_the_window_in_few_batches_in_order() {
        let (channel, seen) = recording();
        let sink: Sink = Arc::new(Mutex::new(Some(channel)));
        let flushed = Arc::new(Notify::new());
        let (tx, rx) = mpsc::unbounded_channel();
        let task = tokio::spawn(pump(rx, sink, flushed.clone()));
        for i in 0..500 {
            tx.send(AgentEvent::TextDelta {
                text: format!("{i} "),
            })
            .expect("send");
        }
        let request = protocol::ApprovalRequest {
            id: "c1".into(),
            tool: "run_command".into(),
            input: serde_json::json!({"command": "ls"}),
            asked: protocol::Asked {
                reason: "asks".into(),
                rule: "floor".into(),
                suggestions: Vec::new(),
            },
            change: protocol::ChangePreview::default(),
            run: protocol::CommandPreview {
                command: Some("ls".into()),
                commands: vec!["ls".into()],
                ..Default::default()
            },
            agent: None,
            title: Vec::new(),
            words: String::new(),
            review: None,
            commit: None,
        };
        tx.send(AgentEvent::ApprovalNeeded {
            request: Box::new(request),
        })
        .expect("send");
        // The question reaches the window at once, not with the next batch of text.
        tokio::time::timeout(Duration::from_secs(2), async {
            while seen
                .lock()
                .expect("lock")
                .iter()
                .flatten()
                .all(|e| !matches!(e, AgentEvent::ApprovalNeeded { .. }))
            {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await
        .expect("the question arrives");
        tx.send(AgentEvent::TurnEnded {
            outcome: protocol::TurnOutcome::Ended,
        })
        .expect("send");
        tokio::time::timeout(Duration::from_secs(2), flushed.notified())
            .await
            .expect("the end of the turn is confirmed");
        drop(tx);
        task.await.expect("pump");
        let batches = seen.lock().expect("lock").clone();
        let events: Vec<AgentEvent> = batches.iter().flatten().cloned().collect();
        let text: String = events
            .iter()
            .filter_map(|e| match e {
                AgentEvent::TextDelta { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        let expected: String = (0..500).map(|i| format!("{i} ")).collect();
        assert_eq!(text, expected, "every token, in order");
        assert!(
            batches.len() <= 3,
            "500 tokens sent at once arrive coalesced, not one message each: {} batches",
            batches.len()
        );
        assert!(matches!(events.last(), Some(AgentEvent::TurnEnded { .. })));
    }

    #[test]
    fn only_the_latest_progress_of_a_call_or_a_prompt_is_kept() {
        let mut buf = Vec::new();
        for e in [
            AgentEvent::PromptProgress {
                evaluated: 0,
                total: 900,
            },
            AgentEvent::PromptProgress {
                evaluated: 512,
                total: 900,
            },
            AgentEvent::ToolCallWriting {
                name: "edit_file".into(),
                chars: 10,
                words: "Edit a file".into(),
            },
            AgentEvent::ToolCallWriting {
                name: "edit_file".into(),
                chars: 40,
                words: "Edit a file".into(),
            },
        ] {
            push_coalesced(&mut buf, e);
        }
        assert_eq!(
            buf,
            [
                AgentEvent::PromptProgress {
                    evaluated: 512,
                    total: 900
                },
                AgentEvent::ToolCallWriting {
                    name: "edit_file".into(),
                    chars: 40,
                    words: "Edit a file".into(),
                },
            ]
        );
    }

    #[test]
    fn deltas_merge_and_other_events_keep_their_place() {
        let mut buf = Vec::new();
        for e in [
            AgentEvent::TextDelta { text: "Hel".into() },
            AgentEvent::TextDelta { text: "lo".into() },
            AgentEvent::ThinkingDelta { text: "hm".into() },
            AgentEvent::TextDelta { text: "!".into() },
            AgentEvent::StepStarted { step: 2 },
            AgentEvent::TextDelta {
                text: "again".into(),
            },
        ] {
            push_coalesced(&mut buf, e);
        }
        assert_eq!(
            buf,
            vec![
                AgentEvent::TextDelta {
                    text: "Hello".into()
                },
                AgentEvent::ThinkingDelta { text: "hm".into() },
                AgentEvent::TextDelta { text: "!".into() },
                AgentEvent::StepStarted { step: 2 },
                AgentEvent::TextDelta {
                    text: "again".into()
                },
            ]
        );
    }
}
