//! A session as a front end lists and reopens it: read back from its log, with its state (done,
//! stopped, interrupted mid-turn…), its token use and cost, and its events in order.

use crate::history::log::{LogError, SessionRead, SessionSummary, read_session};
use protocol::{AgentEvent, SessionInfo, SessionState, SessionTranscript, TurnOutcome};
use serde_json::Value;

/// The events of a log a transcript shows: the conversation as restores left it (the log also
/// holds policy decisions and compaction records, which are for the engine).
pub fn transcript_events(read: &SessionRead<Value>) -> Vec<AgentEvent> {
    crate::history::rewind::effective(&read.entries)
        .into_iter()
        .filter_map(|e| serde_json::from_value::<AgentEvent>(e.event).ok())
        .map(as_shown)
        .collect()
}

/// An event as front ends show it: a call logged before calls carried their title and look
/// (older logs) gets them from its tool, as it would live.
fn as_shown(event: AgentEvent) -> AgentEvent {
    match event {
        AgentEvent::ToolCallProposed {
            id,
            name,
            input,
            title,
            ..
        } if title.is_empty() => AgentEvent::ToolCallProposed {
            title: tools::title_of(&name, &input),
            look: tools::find_tool(&name)
                .map(tools::ToolSpec::call_look)
                .unwrap_or_default(),
            id,
            name,
            input,
        },
        AgentEvent::ApprovalNeeded { mut request } if request.title.is_empty() => {
            request.title = tools::title_of(&request.tool, &request.input);
            request.words = tools::words_for(&request.tool);
            AgentEvent::ApprovalNeeded { request }
        }
        other => other,
    }
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
                    TurnOutcome::Paused { .. } => SessionState::Paused,
                    TurnOutcome::Ended
                    | TurnOutcome::StepLimit
                    | TurnOutcome::BudgetSpent { .. }
                    | TurnOutcome::LimitReached { .. } => SessionState::Ended,
                }
            }
            _ => {}
        }
    }
    state
}

/// The spending of a session not running in this process (its log at `log_path`).
pub fn spend_status(
    log_path: &std::path::Path,
    options: crate::spend::SpendOptions,
) -> Result<protocol::SpendStatus, LogError> {
    let read = read_session::<Value>(log_path)?;
    let (usd, tokens) = spent(log_path, &read.entries);
    Ok(crate::spend::SpendMeter::new(options, usd, tokens).status())
}

/// Tokens and money a log's replies used.
#[derive(Debug, Clone, Copy)]
struct Paid {
    input: u64,
    output: u64,
    cost: f64,
    /// Every reply had a price.
    priced: bool,
}

impl Paid {
    const NOTHING: Paid = Paid {
        input: 0,
        output: 0,
        cost: 0.0,
        priced: true,
    };

    /// Every reply paid for counts, also those of turns a restore took out of the conversation.
    fn add_log(&mut self, entries: &[crate::history::log::Entry<Value>]) {
        let paid = entries
            .iter()
            .filter_map(|e| crate::history::entry::LogEntry::read_usage(&e.event));
        for e in paid {
            if let AgentEvent::Usage { usage, cost_usd } = e {
                self.input += u64::from(usage.input_tokens);
                self.output += u64::from(usage.output_tokens);
                match cost_usd {
                    Some(c) => self.cost += c,
                    None => self.priced = false,
                }
            }
        }
    }

    /// What the session's sub-agents and named agents used: each has its own log in the
    /// session's folder (`<session>/agents/`), so the session's own log does not hold it.
    fn add_agents(&mut self, session_log: &std::path::Path) {
        let dir = session_log.with_extension("").join("agents");
        let Ok(logs) = std::fs::read_dir(dir) else {
            return;
        };
        for log in logs.flatten() {
            let path = log.path();
            if path.extension().is_some_and(|x| x == "jsonl")
                && let Ok(read) = read_session::<Value>(&path)
            {
                self.add_log(&read.entries);
            }
        }
    }
}

/// What a session has spent so far, its agents' replies included: money, tokens.
pub(crate) fn spent(
    session_log: &std::path::Path,
    entries: &[crate::history::log::Entry<Value>],
) -> (f64, u64) {
    let mut paid = Paid::NOTHING;
    paid.add_log(entries);
    paid.add_agents(session_log);
    (paid.cost, paid.input + paid.output)
}

pub fn session_info(
    read: &SessionRead<Value>,
    events: &[AgentEvent],
    updated_ms: u64,
    live: Option<SessionState>,
) -> SessionInfo {
    let mut paid = Paid::NOTHING;
    paid.add_log(&read.entries);
    info_with(read, events, updated_ms, live, paid)
}

/// The info of the session whose log is at `path`, its agents' use included.
fn session_info_at(
    path: &std::path::Path,
    read: &SessionRead<Value>,
    events: &[AgentEvent],
    updated_ms: u64,
    live: Option<SessionState>,
) -> SessionInfo {
    let mut paid = Paid::NOTHING;
    paid.add_log(&read.entries);
    paid.add_agents(path);
    info_with(read, events, updated_ms, live, paid)
}

fn info_with(
    read: &SessionRead<Value>,
    events: &[AgentEvent],
    updated_ms: u64,
    live: Option<SessionState>,
    paid: Paid,
) -> SessionInfo {
    let Paid {
        input,
        output,
        cost,
        priced,
    } = paid;
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
    Ok(session_info_at(
        &summary.path,
        &read,
        &events,
        summary.modified_ms,
        live,
    ))
}

/// How deep sub-agents of sub-agents are read back (the engine allows fewer).
const MAX_AGENT_DEPTH: usize = 8;

/// The events with each sub-agent's own transcript (its log in the session's folder) right
/// after its start, wrapped as the live stream carries them: a reopened session shows what its
/// agents did, and its meter counts what they used, as it did live.
fn with_agents(
    events: Vec<AgentEvent>,
    agents_dir: &std::path::Path,
    depth: usize,
) -> Vec<AgentEvent> {
    let mut out = Vec::with_capacity(events.len());
    for e in events {
        let started = match &e {
            // An id names a file beside the log: only the engine's own ids (`a1`), never a
            // path out of the folder.
            AgentEvent::SubagentStarted { agent, .. }
                if depth < MAX_AGENT_DEPTH
                    && !agent.is_empty()
                    && agent
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') =>
            {
                Some(agent.clone())
            }
            _ => None,
        };
        out.push(e);
        let Some(agent) = started else { continue };
        let Ok(read) = read_session::<Value>(&agents_dir.join(format!("{agent}.jsonl"))) else {
            continue;
        };
        let inner = with_agents(transcript_events(&read), agents_dir, depth + 1);
        out.extend(inner.into_iter().map(|event| AgentEvent::Subagent {
            agent: agent.clone(),
            event: Box::new(event),
        }));
    }
    out
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
    let info = session_info_at(path, &read, &events, modified, live);
    let events = with_agents(events, &path.with_extension("").join("agents"), 0);
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

    /// A call logged before calls carried their title and look is shown as it would be
    /// live: with its tool's title and look, a question with its title and words.
    #[test]
    fn an_older_logs_calls_get_their_titles_and_looks() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("s1.jsonl");
        let lines = [
            r#"{"header":{"id":"s1","project":"/p","task":"t","model":"m","started_ms":0}}"#,
            r#"{"seq":1,"at_ms":0,"event":{"type":"tool_call_proposed","id":"c1","name":"read_file","input":{"path":"a.py"}}}"#,
            r#"{"seq":2,"at_ms":0,"event":{"type":"approval_needed","request":{"id":"c2","tool":"run_command","input":{"command":"make test"},"reason":"r","rule":"x","suggestions":[],"path":null,"original":null,"proposed":null,"hunks":[],"command":"make test","commands":[],"confinement":null,"sandbox_denial":null}}}"#,
        ];
        std::fs::write(&file, lines.join("\n") + "\n").expect("write");
        let events = transcript_events(&read_session::<Value>(&file).expect("read"));
        let AgentEvent::ToolCallProposed { title, look, .. } = &events[0] else {
            panic!("{events:?}");
        };
        assert_eq!(title, &vec![protocol::TitlePart::words("Read a.py")]);
        assert!(look.quiet);
        let AgentEvent::ApprovalNeeded { request } = &events[1] else {
            panic!("{events:?}");
        };
        assert_eq!(
            request.title,
            vec![
                protocol::TitlePart::words("Run "),
                protocol::TitlePart::code("make test")
            ]
        );
        assert_eq!(request.words, "Run a command");
    }

    /// A log whose sub-agent id is a path reads nothing outside the agents' folder.
    #[test]
    fn a_sub_agent_id_never_reads_outside_the_agents_folder() {
        let dir = tempfile::tempdir().expect("tempdir");
        let agents = dir.path().join("s1").join("agents");
        std::fs::create_dir_all(&agents).expect("mkdir");
        // A log outside the agents' folder that a crafted id would reach.
        let id = "outside";
        let mut log = crate::history::log::SessionLog::create(
            dir.path(),
            &crate::history::log::SessionHeader {
                id: id.into(),
                project: "/p".into(),
                task: "secret task".into(),
                model: "m".into(),
                started_ms: 0,
            },
        )
        .expect("log");
        log.append(&AgentEvent::Notice {
            text: "outside".into(),
        })
        .expect("append");
        drop(log);
        let started = |agent: &str| AgentEvent::SubagentStarted {
            agent: agent.into(),
            name: "n".into(),
            task: "t".into(),
            background: false,
            model: "m".into(),
            parent: None,
        };
        let out = with_agents(vec![started(&format!("../../{id}"))], &agents, 0);
        assert_eq!(out.len(), 1, "{out:?}");
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
        // Issue 46: a turn the loop guard paused read "Ended".
        assert_eq!(
            session_state(
                &[
                    user(),
                    ended(TurnOutcome::Paused {
                        reason: "a circle".into()
                    })
                ],
                None
            ),
            SessionState::Paused
        );
    }
}
