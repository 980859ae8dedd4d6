//! A session as a front end lists and reopens it: read back from its log, with its state (done,
//! stopped, interrupted mid-turn…), its token use and cost, and its events in order.

use crate::session_log::{LogError, SessionRead, SessionSummary, read_session};
use protocol::{AgentEvent, SessionInfo, SessionState, SessionTranscript, TurnOutcome};
use serde_json::Value;

/// The events of a log a transcript shows: the conversation as restores left it (the log also
/// holds policy decisions and compaction records, which are for the engine).
pub fn transcript_events(read: &SessionRead<Value>) -> Vec<AgentEvent> {
    crate::rewind::effective(&read.entries)
        .into_iter()
        .filter_map(|e| serde_json::from_value::<AgentEvent>(e.event).ok())
        .collect()
}

/// The session's state from its events. A turn that started and never ended (no
/// `turn_ended` after the last message) was cut short: interrupted, unless `live` says this
/// process is running it now.
pub fn session_state(events: &[AgentEvent], live: Option<SessionState>) -> SessionState {
    if let Some(s) = live {
        return s;
    }
    let mut state = SessionState::Ended;
    // Whether the turn's task_done was contradicted (its warnings come before turn_ended).
    let mut contradicted = false;
    for e in events {
        match e {
            AgentEvent::UserMessage { .. } => {
                state = SessionState::Interrupted;
                contradicted = false;
            }
            AgentEvent::Done { warnings, .. } => contradicted = !warnings.is_empty(),
            AgentEvent::TurnEnded { outcome } => {
                state = match outcome {
                    TurnOutcome::Done { .. } if contradicted => SessionState::DoneWithWarnings,
                    TurnOutcome::Done { .. } => SessionState::Done,
                    TurnOutcome::Cancelled => SessionState::Stopped,
                    TurnOutcome::Failed { .. } => SessionState::Failed,
                    TurnOutcome::Ended
                    | TurnOutcome::Paused { .. }
                    | TurnOutcome::StepLimit
                    | TurnOutcome::BudgetSpent { .. } => SessionState::Ended,
                }
            }
            _ => {}
        }
    }
    state
}

pub fn session_info(
    read: &SessionRead<Value>,
    events: &[AgentEvent],
    updated_ms: u64,
    live: Option<SessionState>,
) -> SessionInfo {
    let (mut input, mut output, mut cost, mut priced) = (0u64, 0u64, 0.0f64, true);
    // Every reply paid for counts, also those of turns a restore took out of the conversation.
    let paid = read
        .entries
        .iter()
        .filter(|e| e.event.get("type").and_then(Value::as_str) == Some("usage"))
        .filter_map(|e| serde_json::from_value::<AgentEvent>(e.event.clone()).ok());
    for e in paid {
        if let AgentEvent::Usage { usage, cost_usd } = e {
            input += u64::from(usage.input_tokens);
            output += u64::from(usage.output_tokens);
            match cost_usd {
                Some(c) => cost += c,
                None => priced = false,
            }
        }
    }
    SessionInfo {
        id: read.header.id.clone(),
        project: read.header.project.clone(),
        title: read
            .header
            .task
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string(),
        model: read.header.model.clone(),
        started_ms: read.header.started_ms,
        updated_ms: updated_ms.max(read.header.started_ms),
        state: session_state(events, live),
        input_tokens: input,
        output_tokens: output,
        cost_usd: priced.then_some(cost),
    }
}

/// A listed session's info, reading its log.
pub fn summary_info(
    summary: &SessionSummary,
    live: Option<SessionState>,
) -> Result<SessionInfo, LogError> {
    let read = read_session::<Value>(&summary.path)?;
    let events = transcript_events(&read);
    Ok(session_info(&read, &events, summary.modified_ms, live))
}

/// A session's whole transcript.
pub fn load_transcript(
    path: &std::path::Path,
    live: Option<SessionState>,
) -> Result<SessionTranscript, LogError> {
    let read = read_session::<Value>(path)?;
    let events = transcript_events(&read);
    let modified = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let info = session_info(&read, &events, modified, live);
    Ok(SessionTranscript {
        info,
        events,
        warnings: read.warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user() -> AgentEvent {
        AgentEvent::UserMessage {
            text: "t".into(),
            checkpoint: None,
        }
    }
    fn ended(outcome: TurnOutcome) -> AgentEvent {
        AgentEvent::TurnEnded { outcome }
    }

    /// The list said "Done" for a task_done that a failed test run contradicted.
    #[test]
    fn a_contradicted_task_done_is_done_with_warnings_until_the_next_turn() {
        let said_done = |warnings: Vec<protocol::DoneWarning>| AgentEvent::Done {
            summary: "Fixed.".into(),
            warnings,
        };
        let done = ended(TurnOutcome::Done {
            summary: "Fixed.".into(),
        });
        let failed = protocol::DoneWarning::CheckFailed {
            command: "cargo test".into(),
            exit_code: Some(101),
        };
        assert_eq!(
            session_state(
                &[user(), said_done(vec![failed.clone()]), done.clone()],
                None
            ),
            SessionState::DoneWithWarnings
        );
        assert_eq!(
            session_state(&[user(), said_done(vec![]), done.clone()], None),
            SessionState::Done
        );
        assert_eq!(
            session_state(
                &[
                    user(),
                    said_done(vec![failed]),
                    done.clone(),
                    user(),
                    said_done(vec![]),
                    done
                ],
                None
            ),
            SessionState::Done
        );
    }

    #[test]
    fn a_turn_without_an_end_is_interrupted() {
        assert_eq!(session_state(&[user()], None), SessionState::Interrupted);
        let done = ended(TurnOutcome::Done {
            summary: "ok".into(),
        });
        assert_eq!(
            session_state(&[user(), done.clone()], None),
            SessionState::Done
        );
        assert_eq!(
            session_state(&[user(), done.clone(), user()], None),
            SessionState::Interrupted
        );
        assert_eq!(
            session_state(&[user(), ended(TurnOutcome::Cancelled)], None),
            SessionState::Stopped
        );
        assert_eq!(
            session_state(&[user()], Some(SessionState::Running)),
            SessionState::Running
        );
        assert_eq!(session_state(&[], None), SessionState::Ended);
    }
}
