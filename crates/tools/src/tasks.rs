//! Background tasks (commands that outlived their grace window or asked to run in the
//! background) and wake-ups: what `task_list`, `task_poll`, `task_stop` and `wakeup` work on,
//! and what the agent loop waits on between turns.

use serde::Serialize;
use std::collections::HashMap;
use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use tokio::sync::{Notify, oneshot};

/// At most this much new output is returned by one poll; the rest waits for the next.
pub const POLL_CHUNK_BYTES: u64 = 64 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum TaskState {
    Running,
    Exited {
        code: Option<i32>,
    },
    /// Stopped with task_stop.
    Stopped,
    TimedOut,
    Failed {
        message: String,
    },
    /// A named agent that stopped working and waits for a message.
    Idle,
}

impl TaskState {
    pub fn is_running(&self) -> bool {
        matches!(self, TaskState::Running)
    }

    fn describe(&self) -> String {
        match self {
            TaskState::Running => "running".into(),
            TaskState::Exited { code: Some(c) } => format!("exited with code {c}"),
            TaskState::Exited { code: None } => "ended by a signal".into(),
            TaskState::Stopped => "stopped".into(),
            TaskState::TimedOut => "killed at its timeout".into(),
            TaskState::Failed { message } => format!("failed: {message}"),
            TaskState::Idle => "waiting for a message".into(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct TaskInfo {
    pub id: String,
    pub kind: &'static str,
    pub title: String,
    #[serde(flatten)]
    pub state: TaskState,
    pub runtime_ms: u64,
    pub output_path: PathBuf,
    /// It ended in the background and some of its changes wait for the person's review.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub changes_waiting: bool,
    /// It still runs, and this many of its changes wait in its layer (nothing of them is in
    /// the project yet): reviewed when it ends, when stopped, or on request.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub changes_so_far: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

struct Entry {
    title: String,
    kind: &'static str,
    started: Instant,
    ended: Option<Instant>,
    state: TaskState,
    output_path: PathBuf,
    seen: Seen,
    stop: Option<oneshot::Sender<()>>,
    /// The agent that started it (a sub-agent's id), if not the session's own.
    owner: Option<String>,
}

/// What the model has already been given of a task, so it is not told twice.
#[derive(Default)]
struct Seen {
    /// Output up to here was read by a poll.
    polled: u64,
    /// Output up to here was flagged to the model as new (see [`TaskRegistry::new_output`]).
    flagged: u64,
    /// The model already got this task's result directly (it finished within its grace window).
    reported: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    TaskFinished {
        id: String,
        state: TaskState,
    },
    Wakeup {
        hint: Option<String>,
    },
    /// A named agent stopped working: what it reports.
    AgentReport {
        id: String,
        title: String,
        report: String,
    },
    /// The person asked to review what a running command changed so far.
    ChangesAsked {
        id: String,
        title: String,
    },
}

#[derive(Default)]
struct Inner {
    tasks: HashMap<String, Entry>,
    /// What wakes the agent, in order: finished tasks and agents' reports.
    finished: Vec<Event>,
    wake_at: Option<(Instant, Option<String>)>,
    /// Changes of commands that ended with nobody waiting on them (in the background), held
    /// in their layers until the person reviews them.
    held: HashMap<String, crate::HeldChanges>,
    /// The layers of commands still running, to count and take out their changes.
    views: HashMap<String, crate::LayerView>,
}

/// The session's tasks. Cheap to clone (shared).
#[derive(Clone, Default)]
pub struct TaskRegistry {
    inner: Arc<Mutex<Inner>>,
    next: Arc<AtomicU64>,
    notify: Arc<Notify>,
}

impl TaskRegistry {
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers a task (a command, or a named agent, which the engine runs itself).
    pub fn register(
        &self,
        kind: &'static str,
        title: &str,
        output_path: PathBuf,
        stop: oneshot::Sender<()>,
        owner: Option<String>,
    ) -> String {
        let id = format!("task-{}", self.next.fetch_add(1, Ordering::Relaxed) + 1);
        self.lock().tasks.insert(
            id.clone(),
            Entry {
                title: title.to_string(),
                kind,
                started: Instant::now(),
                ended: None,
                state: TaskState::Running,
                output_path,
                seen: Seen::default(),
                stop: Some(stop),
                owner,
            },
        );
        id
    }

    pub(crate) fn set_output_path(&self, id: &str, path: PathBuf) {
        if let Some(e) = self.lock().tasks.get_mut(id) {
            e.output_path = path;
        }
    }

    /// A task ended (a command exited, an agent was stopped).
    /// Keeps the changes of task `id` waiting for a review (see [`Self::take_held`]).
    pub fn hold_changes(&self, id: &str, held: crate::HeldChanges) {
        self.lock().held.insert(id.to_string(), held);
    }

    /// Task `id` runs over a layer: its changes can be counted and taken out while it runs.
    pub fn watch_layer(&self, id: &str, view: crate::LayerView) {
        self.lock().views.insert(id.to_string(), view);
    }

    /// The layer of running task `id`, if it runs over one.
    pub fn layer_view(&self, id: &str) -> Option<crate::LayerView> {
        self.lock().views.get(id).cloned()
    }

    /// The person asks to review what running task `id` changed so far: the agent is woken
    /// (or, in a turn, does it at its next step). Refused, in words, when nothing can wait.
    pub fn ask_review(&self, id: &str) -> Result<(), String> {
        let mut inner = self.lock();
        let unknown = self.unknown(id, &inner);
        let e = inner.tasks.get(id).ok_or(unknown)?;
        let title = e.title.clone();
        if !inner.views.contains_key(id) {
            return Err(if e.state.is_running() {
                format!(
                    "`{title}` does not run over a layer: its changes are in the project already"
                )
            } else {
                format!("`{title}` has ended: its changes are reviewed now, or were")
            });
        }
        let asked = Event::ChangesAsked {
            id: id.to_string(),
            title,
        };
        if !inner.finished.contains(&asked) {
            inner.finished.push(asked);
        }
        drop(inner);
        self.notify.notify_waiters();
        Ok(())
    }

    /// The reviews the person asked for and nobody did yet, each once: `(id, title)`.
    pub fn take_asked(&self) -> Vec<(String, String)> {
        let mut inner = self.lock();
        let mut asked = Vec::new();
        inner.finished.retain(|e| match e {
            Event::ChangesAsked { id, title } => {
                asked.push((id.clone(), title.clone()));
                false
            }
            _ => true,
        });
        asked
    }

    /// The changes task `id` left waiting for a review, once.
    pub fn take_held(&self, id: &str) -> Option<crate::Held> {
        let held = self.lock().held.remove(id)?;
        held.take()
    }

    /// The tasks with changes waiting for a review.
    pub fn held_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self
            .lock()
            .held
            .iter()
            .filter(|(_, h)| h.waiting())
            .map(|(id, _)| id.clone())
            .collect();
        ids.sort();
        ids
    }

    pub fn finish(&self, id: &str, state: TaskState) {
        let mut inner = self.lock();
        let mut announce = false;
        if let Some(e) = inner.tasks.get_mut(id) {
            e.state = state.clone();
            e.ended = Some(Instant::now());
            e.stop = None;
            announce = !e.seen.reported;
        }
        inner.views.remove(id);
        if announce {
            inner.finished.push(Event::TaskFinished {
                id: id.to_string(),
                state,
            });
        }
        drop(inner);
        self.notify.notify_waiters();
    }

    /// A named agent stopped working: it stays (idle, a message resumes it) and its report
    /// wakes the session's agent.
    pub fn report(&self, id: &str, report: &str) {
        let mut inner = self.lock();
        let Some(e) = inner.tasks.get_mut(id) else {
            return;
        };
        e.state = TaskState::Idle;
        let title = e.title.clone();
        inner.finished.push(Event::AgentReport {
            id: id.to_string(),
            title,
            report: report.to_string(),
        });
        drop(inner);
        self.notify.notify_waiters();
    }

    /// A named agent works again.
    pub fn resume(&self, id: &str) {
        if let Some(e) = self.lock().tasks.get_mut(id)
            && e.state == TaskState::Idle
        {
            e.state = TaskState::Running;
        }
    }

    /// Whether anything may still wake the agent: a task running, or a wake-up due. A named
    /// agent idle after its report is not work: only a message (from a turn) wakes it.
    pub fn has_pending(&self) -> bool {
        let inner = self.lock();
        !inner.finished.is_empty()
            || inner.wake_at.is_some()
            || inner.tasks.values().any(|e| e.state.is_running())
    }

    /// Stops every task the agent `owner` started (it is being stopped itself).
    pub fn stop_owned(&self, owner: &str) {
        let mut inner = self.lock();
        for e in inner.tasks.values_mut() {
            if e.owner.as_deref() == Some(owner)
                && let Some(tx) = e.stop.take()
            {
                let _ = tx.send(());
                e.seen.reported = true;
            }
        }
    }

    /// A task that ended while its caller waited (a command that finished in the foreground,
    /// a sub-agent whose parent got its report): it was never background work, so it leaves
    /// every list.
    pub fn forget(&self, id: &str) {
        let mut inner = self.lock();
        inner.tasks.remove(id);
        inner
            .finished
            .retain(|e| !matches!(e, Event::TaskFinished { id: f, .. } if f == id));
    }

    /// The caller got the result itself: no event for it, and it leaves the default list.
    pub fn mark_reported(&self, id: &str) {
        let mut inner = self.lock();
        if let Some(e) = inner.tasks.get_mut(id) {
            e.seen.reported = true;
        }
        inner
            .finished
            .retain(|e| !matches!(e, Event::TaskFinished { id: f, .. } if f == id));
    }

    fn info(id: &str, e: &Entry) -> TaskInfo {
        let end = e.ended.unwrap_or_else(Instant::now);
        TaskInfo {
            id: id.to_string(),
            kind: e.kind,
            title: e.title.clone(),
            state: e.state.clone(),
            runtime_ms: end.duration_since(e.started).as_millis() as u64,
            output_path: e.output_path.clone(),
            changes_waiting: false,
            changes_so_far: 0,
        }
    }

    pub fn list(&self, include_finished: bool) -> Vec<TaskInfo> {
        let (mut v, views): (Vec<TaskInfo>, Vec<_>) = {
            let inner = self.lock();
            let v = inner
                .tasks
                .iter()
                .filter(|(_, e)| {
                    include_finished || e.state.is_running() || e.state == TaskState::Idle
                })
                .map(|(id, e)| TaskInfo {
                    changes_waiting: inner.held.get(id).is_some_and(crate::HeldChanges::waiting),
                    ..Self::info(id, e)
                })
                .collect();
            (
                v,
                inner
                    .views
                    .iter()
                    .map(|(id, l)| (id.clone(), l.clone()))
                    .collect(),
            )
        };
        // Counted outside the lock: a count reads the layer.
        for (id, view) in views {
            if let Some(t) = v.iter_mut().find(|t| t.id == id && t.state.is_running()) {
                t.changes_so_far = view.waiting();
            }
        }
        v.sort_by_key(|t| t.id.trim_start_matches("task-").parse::<u64>().unwrap_or(0));
        v
    }

    /// The first `head` and last `tail` lines a task has printed so far, as the model is shown
    /// them; task_poll then starts after them (the seed: "since the task's running
    /// placeholder was first surfaced"). Empty when it printed nothing.
    pub fn snapshot(&self, id: &str, head: usize, tail: usize) -> String {
        let Some(path) = self.lock().tasks.get(id).map(|e| e.output_path.clone()) else {
            return String::new();
        };
        // The size first: lines written while the snapshot is read are the next poll's.
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let shown = crate::command_output::head_tail(&path, head, tail)
            .map(|(text, _)| text)
            .unwrap_or_default();
        if let Some(e) = self.lock().tasks.get_mut(id) {
            e.seen.polled = e.seen.polled.max(size);
            e.seen.flagged = e.seen.flagged.max(size);
        }
        shown
    }

    /// Running tasks that printed something since the model last saw their output (a poll,
    /// the snapshot, or the last time they were flagged), each with how many new bytes; each
    /// is flagged once per burst of output. The seed's heartbeat.
    pub fn new_output(&self) -> Vec<(TaskInfo, u64)> {
        let mut inner = self.lock();
        let mut out = Vec::new();
        for (id, e) in inner.tasks.iter_mut() {
            if !e.state.is_running() {
                continue;
            }
            let size = std::fs::metadata(&e.output_path)
                .map(|m| m.len())
                .unwrap_or(0);
            let seen = e.seen.polled.max(e.seen.flagged);
            if size > seen {
                e.seen.flagged = size;
                out.push((Self::info(id, e), size - seen));
            }
        }
        out.sort_by_key(|(t, _)| t.id.trim_start_matches("task-").parse::<u64>().unwrap_or(0));
        out
    }

    /// New output since the last poll (up to [`POLL_CHUNK_BYTES`]) and the state.
    pub fn poll(&self, id: &str) -> Result<(TaskInfo, String, bool), String> {
        let (path, from, info) = {
            let inner = self.lock();
            let e = inner
                .tasks
                .get(id)
                .ok_or_else(|| self.unknown(id, &inner))?;
            (e.output_path.clone(), e.seen.polled, Self::info(id, e))
        };
        let mut text = Vec::new();
        let mut more = false;
        if let Ok(mut f) = std::fs::File::open(&path) {
            let len = f.metadata().map(|m| m.len()).unwrap_or(0);
            if len > from && f.seek(SeekFrom::Start(from)).is_ok() {
                let _ = (&mut f).take(POLL_CHUNK_BYTES).read_to_end(&mut text);
                more = len > from + text.len() as u64;
            }
        }
        let mut inner = self.lock();
        if let Some(e) = inner.tasks.get_mut(id) {
            e.seen.polled = from + text.len() as u64;
        }
        Ok((info, String::from_utf8_lossy(&text).into_owned(), more))
    }

    fn unknown(&self, id: &str, inner: &Inner) -> String {
        let mut ids: Vec<&String> = inner.tasks.keys().collect();
        ids.sort();
        format!(
            "there is no task `{id}`; use task_list to see them (known: {})",
            ids.iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    }

    /// Stops a task; stopping one that already ended is not an error.
    pub fn stop(&self, id: &str) -> Result<TaskInfo, String> {
        let mut inner = self.lock();
        let unknown = self.unknown(id, &inner);
        let e = inner.tasks.get_mut(id).ok_or(unknown)?;
        if let Some(tx) = e.stop.take() {
            let _ = tx.send(());
            // Whoever stops a task knows it ended: it does not wake the agent.
            e.seen.reported = true;
        }
        Ok(Self::info(id, e))
    }

    /// Stops every task still running (the session is ending).
    pub fn stop_all(&self) {
        let mut inner = self.lock();
        for e in inner.tasks.values_mut() {
            if let Some(tx) = e.stop.take() {
                let _ = tx.send(());
                e.seen.reported = true;
            }
        }
    }

    /// Asks to be woken after `delay` unless something else happens first.
    pub fn wakeup(&self, delay: Duration, hint: Option<String>) {
        self.lock().wake_at = Some((Instant::now() + delay, hint));
        self.notify.notify_waiters();
    }

    /// Cancels a wake-up not yet due, as something else woke the agent first: the hint it
    /// carried (if any) is returned so the model still gets its reminder. `None` when no
    /// wake-up was waiting.
    pub fn cancel_wakeup(&self) -> Option<Option<String>> {
        self.lock().wake_at.take().map(|(_, hint)| hint)
    }

    /// Waits for the next event: a background task finishing, or the requested wake-up. A
    /// finished task comes first (the caller cancels a wake-up then, see [`Self::cancel_wakeup`]). `None` after `limit`.
    pub async fn next_event(&self, limit: Duration) -> Option<Event> {
        let deadline = Instant::now() + limit;
        loop {
            let notified = self.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let wake = {
                let mut inner = self.lock();
                if !inner.finished.is_empty() {
                    return Some(inner.finished.remove(0));
                }
                match &inner.wake_at {
                    Some((at, _)) if *at <= Instant::now() => {
                        let hint = inner.wake_at.take().and_then(|(_, h)| h);
                        return Some(Event::Wakeup { hint });
                    }
                    Some((at, _)) => Some(*at),
                    None => None,
                }
            };
            let until = wake.map_or(deadline, |w| w.min(deadline));
            if Instant::now() >= deadline {
                return None;
            }
            let sleep = tokio::time::sleep_until(tokio::time::Instant::from_std(until));
            tokio::select! {
                _ = &mut notified => {}
                _ = sleep => {}
            }
        }
    }

    /// What waits of a task's changes, in words for the model ("" when nothing does).
    pub fn waiting_words(t: &TaskInfo) -> String {
        match (t.changes_so_far, t.changes_waiting) {
            (0, false) => String::new(),
            (0, true) => " — its changes wait for the person's review".into(),
            (n, _) => format!(
                " — {n} {} so far wait in its layer (not in the project yet): the person reviews them when it ends or is stopped, or sooner from its card",
                if n == 1 { "change" } else { "changes" }
            ),
        }
    }

    pub fn render_list(tasks: &[TaskInfo]) -> String {
        if tasks.is_empty() {
            return "No background tasks.\n".into();
        }
        tasks
            .iter()
            .map(|t| {
                format!(
                    "{} [{}] {} — {} ({:.1} s){}\n",
                    t.id,
                    t.kind,
                    t.title,
                    t.state.describe(),
                    t.runtime_ms as f64 / 1000.0,
                    Self::waiting_words(t)
                )
            })
            .collect()
    }

    pub fn describe_state(state: &TaskState) -> String {
        state.describe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancelled_wakeup_hands_back_its_hint_and_wakes_nobody() {
        let tasks = TaskRegistry::new();
        tasks.wakeup(Duration::from_secs(600), Some("check the deploy".into()));
        assert!(tasks.has_pending());
        assert_eq!(tasks.cancel_wakeup(), Some(Some("check the deploy".into())));
        assert!(!tasks.has_pending());
        assert_eq!(tasks.cancel_wakeup(), None);
    }
}
