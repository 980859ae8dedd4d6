//! What wakes an idle session's agent, in words: a background task that ended, a wake-up it
//! asked for, a named agent's report — and a wake-up something else beat.

use protocol::WakeReason;
use tools::{Event, TaskRegistry};

/// The model's words for a wake-up it asked for that something else (`cause`) beat: the seed's
/// `status="cancelled"`, with its note, so the reminder does not evaporate. `None` when no
/// wake-up was waiting.
pub(super) fn cancelled_wakeup(tasks: &TaskRegistry, cause: &str) -> Option<String> {
    let hint = tasks.cancel_wakeup()?;
    Some(format!(
        "[Tandem] The wake-up you asked for was cancelled (status=\"cancelled\"): {cause} woke you first.{}",
        hint.map(|h| format!(" Your note: {h}")).unwrap_or_default()
    ))
}

/// What the model and the transcript are told when the agent wakes.
pub(super) fn wake_words(event: &Event, tasks: &TaskRegistry) -> (WakeReason, String) {
    match event {
        Event::TaskFinished { id, state } => {
            let info = tasks.list(true).into_iter().find(|t| t.id == *id);
            let title = info.as_ref().map(|t| t.title.clone()).unwrap_or_default();
            let state_words = TaskRegistry::describe_state(state);
            let tail = info
                .map(|t| tail_of(&t.output_path))
                .filter(|t| !t.is_empty())
                .map(|t| format!("\nThe end of its output:\n{t}"))
                .unwrap_or_default();
            (
                WakeReason::TaskFinished {
                    task: id.clone(),
                    title: title.clone(),
                    state: state_words.clone(),
                },
                format!(
                    "[Tandem] Background task {id} ({title}) has ended: {state_words}.{tail}\nUse task_poll for its whole output if you need it, then continue."
                ),
            )
        }
        Event::Wakeup { hint } => (
            WakeReason::Timer { hint: hint.clone() },
            format!(
                "[Tandem] The wake-up you asked for is due.{}",
                hint.as_ref()
                    .map(|h| format!(" Your note: {h}"))
                    .unwrap_or_default()
            ),
        ),
        Event::ChangesAsked { id, title } => (
            WakeReason::ChangesAsked {
                task: id.clone(),
                title: title.clone(),
            },
            format!(
                "[Tandem] The person asked to review what background task {id} ({title}) changed so far. It goes on running; what it changes from now on is reviewed when it ends."
            ),
        ),
        Event::AgentReport { id, title, report } => (
            WakeReason::TaskFinished {
                task: id.clone(),
                title: title.clone(),
                state: "reported".into(),
            },
            format!(
                "[Tandem] The agent `{title}` ({id}) stopped and reports:\n{report}\nIt waits for messages (agent_send) until it is stopped (task_stop)."
            ),
        ),
    }
}

fn tail_of(path: &std::path::Path) -> String {
    use std::io::{Read as _, Seek as _, SeekFrom};
    const TAIL: u64 = 2000;
    let Ok(mut f) = std::fs::File::open(path) else {
        return String::new();
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let mut bytes = Vec::new();
    if f.seek(SeekFrom::Start(len.saturating_sub(TAIL))).is_ok() {
        let _ = f.read_to_end(&mut bytes);
    }
    String::from_utf8_lossy(&bytes).trim().to_string()
}
