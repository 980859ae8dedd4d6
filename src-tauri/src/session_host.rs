//! The agent inside the app: one live engine per session the window has talked to, the GUI
//! being another subscriber to its events (over a `Channel`) and another answerer of its
//! approval requests — the same engine `tandem-cli run` drives. Rust decides; the window shows
//! and asks.

use crate::commands::{CmdResult, blocking, internal, invalid, opened_root};
use crate::event_pump::{self, Sink};
use crate::state::AppState;
use agent::{Session, SessionError, SessionHeader};
use config::locations;
use protocol::{
    AgentEvent, AnswerApprovalArgs, BackgroundTask, CommandError, CreateSessionArgs, FailureCode,
    ProjectArgs, RestoreArgs, RestorePreview, RestoreRecord, SendMessageArgs, SessionArgs,
    SessionFileChange, SessionInfo, SessionState, SessionTranscript, SetModeArgs, StopTaskArgs,
    TurnOutcome,
};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tauri::ipc::Channel;
use tauri::{Manager as _, State};
use tokio::sync::Notify;
use tools::{ProjectRoot, TaskInfo, TaskRegistry};

/// How much of a background task's output the task list shows.
const OUTPUT_TAIL_BYTES: u64 = 4000;

/// A session with an engine in this process: the window is one more subscriber to its events
/// and one more answerer of its questions.
struct Live {
    session: Session,
    root: PathBuf,
    sink: Sink,
    turn_flushed: Arc<Notify>,
    /// The last task_done of the session's own agent had warnings: a notification of its end
    /// says "Check this", not "Done".
    done_checked: Arc<std::sync::atomic::AtomicBool>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

#[derive(Default)]
pub struct Sessions {
    live: Mutex<HashMap<String, Arc<Live>>>,
    /// Each log's list entry, kept while the file's size and time are unchanged: the list is
    /// refreshed after every model reply and must not read every session's whole log each time.
    listed: Mutex<HashMap<PathBuf, ListedInfo>>,
}

/// A session's list entry as read from its log (state not overridden by a live turn), with the
/// file's modification time and length it was read at.
type ListedInfo = ((u64, u64), SessionInfo);

impl Sessions {
    fn get(&self, id: &str) -> Option<Arc<Live>> {
        lock(&self.live).get(id).cloned()
    }

    /// The engine of a session running in this window, if it is.
    pub(crate) fn session(&self, id: &str) -> Option<Session> {
        self.get(id).map(|l| l.session.clone())
    }

    /// Every session running in this window.
    pub(crate) fn all(&self) -> Vec<Session> {
        lock(&self.live)
            .values()
            .map(|l| l.session.clone())
            .collect()
    }

    fn state_of(&self, id: &str) -> Option<SessionState> {
        self.get(id).and_then(|l| l.session.state())
    }

    /// Stops every turn and every background task (the app is closing). Waits a moment so the
    /// stop signals reach the processes before the runtime goes away.
    pub fn stop_everything(&self) {
        let live: Vec<Arc<Live>> = lock(&self.live).values().cloned().collect();
        let mut stopped = 0;
        for l in &live {
            l.session.stop();
            for t in l.session.tasks(false) {
                if l.session.stop_task(&t.id).is_ok() {
                    stopped += 1;
                }
            }
        }
        if stopped > 0 {
            tracing::info!(stopped, "stopping background tasks as the app closes");
            std::thread::sleep(Duration::from_millis(300));
        }
        // The process ends without dropping its sessions: their private /tmp folders (on the
        // machine's disk) go now, not at some later start.
        for l in &live {
            if let Some(tmp) = l.session.private_tmp() {
                let _ = std::fs::remove_dir_all(tmp);
            }
        }
    }

    fn pending_count(&self) -> usize {
        lock(&self.live)
            .values()
            .map(|l| l.session.questions().len())
            .sum()
    }
}

/// A session error as the window gets it: a code it can act on and words for people.
fn session_error(e: SessionError) -> CommandError {
    let message = match &e {
        SessionError::Busy => {
            "A turn is already running in this session. Wait for it, or press Stop.".into()
        }
        other => format!("{}{}", first_upper(&other.to_string()), "."),
    };
    CommandError::new(e.code(), message, None)
}

fn first_upper(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

pub(crate) fn log_path(id: &str) -> CmdResult<PathBuf> {
    let path =
        agent::session_path(&locations::sessions_dir(), id).map_err(|e| invalid(e.to_string()))?;
    if !path.exists() {
        return Err(CommandError::new(
            FailureCode::NotFound,
            format!("The session {id} no longer exists; it may have been deleted."),
            None,
        ));
    }
    Ok(path)
}

fn header_of(id: &str) -> CmdResult<SessionHeader> {
    let path = log_path(id)?;
    agent::read_session::<Value>(&path)
        .map(|r| r.header)
        .map_err(|e| invalid(format!("The session's log cannot be read: {e}")))
}

/// Shows how many approvals wait in the title ("(2) project — Tandem"), and asks the desktop
/// for attention when one arrives.
fn show_pending(app: &tauri::AppHandle, sessions: &Sessions, arrived: bool) {
    let Some(window) = app.get_webview_window("main") else {
        return;
    };
    let n = sessions.pending_count();
    let title = window.title().unwrap_or_else(|_| "Tandem".into());
    let base = match title.strip_prefix('(').and_then(|t| t.split_once(") ")) {
        Some((count, rest)) if count.chars().all(|c| c.is_ascii_digit()) => rest.to_string(),
        _ => title,
    };
    let shown = if n == 0 {
        base
    } else {
        format!("({n}) {base}")
    };
    let _ = window.set_title(&shown);
    if arrived {
        let _ = window.request_user_attention(Some(tauri::UserAttentionType::Informational));
    }
}

/// A question, in a notification's words: the card's title and the project ("Edit calc.py —
/// myproject"), never the tool's name.
fn question_words(q: &protocol::ApprovalRequest, project: &str) -> String {
    let title: String = q.title.iter().map(|t| t.text.as_str()).collect();
    let what = if title.is_empty() {
        q.run
            .command
            .clone()
            .or_else(|| q.change.path.clone())
            .unwrap_or_else(|| q.words.clone())
    } else {
        title
    };
    format!("{what} — {project}")
}

/// The project's name as people know it: its folder's.
fn project_name(root: &Path) -> String {
    root.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| root.display().to_string())
}

/// A task in a notification's title: its first line, short.
fn task_line(task: &str) -> String {
    let line = task.lines().next().unwrap_or("").trim();
    let mut short: String = line.chars().take(60).collect();
    if line.chars().count() > 60 {
        short.push('…');
    }
    short
}

/// What the desktop is told when a turn ends: only for a long one the person did not stop.
/// Its title says how it ended and which task; its body what came of it, and the project.
fn turn_end_notice(
    outcome: &TurnOutcome,
    took: Duration,
    (task, project): (&str, &str),
    checked: bool,
) -> Option<(String, String)> {
    if took < crate::notify_host::LONG_TURN {
        return None;
    }
    let task = task_line(task);
    let (how, body) = match outcome {
        TurnOutcome::Done { summary } if checked => ("Check this", summary.clone()),
        TurnOutcome::Done { summary } => ("Done", summary.clone()),
        TurnOutcome::Failed { error } => ("Failed", error.message.clone()),
        TurnOutcome::LimitReached { reached } => (
            "Stopped at a spending limit",
            agent::spend::limit_words(reached),
        ),
        TurnOutcome::Paused { reason } => ("Paused", format!("{reason}. Tell it how to go on")),
        TurnOutcome::Cancelled => return None,
        _ => (
            "Waiting for you",
            "The agent stopped and waits for your reply.".to_string(),
        ),
    };
    let title = if task.is_empty() {
        how.to_string()
    } else {
        format!("{how}: {task}")
    };
    Some((title, format!("{body} — {project}")))
}

/// Tells the desktop a long turn ended, when the window is not in front.
fn notify_turn_end(
    app: &tauri::AppHandle,
    (session, live): (&str, &Live),
    task: &str,
    outcome: &TurnOutcome,
    took: Duration,
) {
    let checked = live
        .done_checked
        .swap(false, std::sync::atomic::Ordering::SeqCst);
    let project = project_name(&live.root);
    let Some((summary, body)) = turn_end_notice(outcome, took, (task, &project), checked) else {
        return;
    };
    let (app, session) = (app.clone(), session.to_string());
    tauri::async_runtime::spawn_blocking(move || {
        app.state::<crate::notify_host::Notifier>().notify(
            &app,
            crate::notify_host::Kind::TurnEnded,
            &session,
            &summary,
            &body,
        );
    });
}

/// Opens the engine on a session read back from its log (resumable after a crash: the
/// conversation continues as the model last saw it).
fn start_live(app: &tauri::AppHandle, id: &str, root: ProjectRoot) -> CmdResult<Arc<Live>> {
    let user_file = locations::user_policy_file();
    let policy = config::load_project_policy(root.path(), Some(&user_file)).map_err(|e| {
        invalid(format!(
            "The rules do not load, so nothing can run safely: {e}. Fix the file, then send again."
        ))
    })?;
    let settings = config::read_settings(&locations::settings_file()).unwrap_or_default();
    let mut opts = agent::PersonalSession {
        root: root.clone(),
        policy,
        user_policy_file: Some(user_file),
        resolver: config::provider_resolver(
            app.state::<config::PresetSlot>().inner().clone(),
            locations::settings_file(),
            crate::builtin_host::loader(),
        ),
    }
    .options(&settings);
    opts.extensions = crate::extensions_host::session_extensions(app, &root);
    let (session, events) = Session::open(opts, id).map_err(session_error)?;
    // The built-in model loads while the person types: a new session's first answer waited
    // for it (issue 48). Loaded once per process; a turn that starts meanwhile waits for it.
    let preset = app.state::<config::PresetSlot>().inner().clone();
    tauri::async_runtime::spawn_blocking(move || {
        config::load_builtin_if_default(
            &preset,
            &locations::settings_file(),
            &crate::builtin_host::loader(),
        )
    });
    let live = Arc::new(Live {
        session,
        root: root.path().to_path_buf(),
        sink: Arc::new(Mutex::new(None)),
        turn_flushed: Arc::new(Notify::new()),
        done_checked: Arc::default(),
    });
    // On the way to the window, the end of a task is noted (for its notification).
    let (forward, to_pump) = tokio::sync::mpsc::unbounded_channel();
    let checked = live.done_checked.clone();
    tauri::async_runtime::spawn(async move {
        let mut events = events;
        while let Some(e) = events.recv().await {
            if let protocol::AgentEvent::Done { warnings, .. } = &e {
                checked.store(!warnings.is_empty(), std::sync::atomic::Ordering::SeqCst);
            }
            if forward.send(e).is_err() {
                break;
            }
        }
    });
    tauri::async_runtime::spawn(event_pump::pump(
        to_pump,
        live.sink.clone(),
        live.turn_flushed.clone(),
    ));
    // The title counts the questions waiting, and the desktop is asked for attention when
    // one arrives.
    let weak = Arc::downgrade(&live);
    let app2 = app.clone();
    let project = project_name(&live.root);
    tauri::async_runtime::spawn(async move {
        let mut before = 0;
        loop {
            let Some(live) = weak.upgrade() else { return };
            let changed = live.session.clone();
            drop(live);
            changed.questions_changed().await;
            let questions = changed.questions();
            let now = questions.len();
            let session_id = changed.id().to_string();
            drop(changed);
            let sessions = app2.state::<Sessions>();
            show_pending(&app2, &sessions, now > before);
            if now > before
                && let Some(q) = questions.last()
            {
                let body = question_words(q, &project);
                let app3 = app2.clone();
                tauri::async_runtime::spawn_blocking(move || {
                    app3.state::<crate::notify_host::Notifier>().notify(
                        &app3,
                        crate::notify_host::Kind::Question,
                        &session_id,
                        "Tandem needs your approval",
                        &body,
                    );
                });
            }
            before = now;
        }
    });
    Ok(live)
}

#[tauri::command]
pub async fn list_sessions(
    args: ProjectArgs,
    app: tauri::AppHandle,
) -> CmdResult<Vec<SessionInfo>> {
    let root = ProjectRoot::open(&args.root).map_err(crate::commands::for_people)?;
    let root = root.path().display().to_string();
    let summaries = blocking(move || {
        agent::list_sessions(&locations::sessions_dir(), Some(&root))
            .map_err(|e| invalid(format!("The sessions cannot be listed: {e}")))
    })
    .await?;
    let app2 = app.clone();
    blocking(move || {
        let sessions = app2.state::<Sessions>();
        Ok(summaries
            .iter()
            .filter_map(|s| {
                let stamp = (
                    s.modified_ms,
                    std::fs::metadata(&s.path).map(|m| m.len()).unwrap_or(0),
                );
                let cached = lock(&sessions.listed)
                    .get(&s.path)
                    .filter(|(at, _)| *at == stamp)
                    .map(|(_, info)| info.clone());
                let mut info = match cached {
                    Some(info) => info,
                    None => {
                        let info = agent::summary_info(s, None)
                            .map_err(|e| tracing::warn!(error = %e, "a session log cannot be read"))
                            .ok()?;
                        lock(&sessions.listed).insert(s.path.clone(), (stamp, info.clone()));
                        info
                    }
                };
                if let Some(state) = sessions.state_of(&s.header.id) {
                    info.state = state;
                }
                Some(info)
            })
            .collect())
    })
    .await
}

#[tauri::command]
pub async fn load_session(
    args: SessionArgs,
    app: tauri::AppHandle,
) -> CmdResult<SessionTranscript> {
    let path = log_path(&args.session)?;
    let live = app.state::<Sessions>().state_of(&args.session);
    blocking(move || {
        agent::load_transcript(&path, live)
            .map_err(|e| invalid(format!("The session's log cannot be read: {e}")))
    })
    .await
}

/// The model the default role would use, for the session's header (without touching the
/// keychain: no key is needed to name it).
fn default_model(preset: &config::PresetSlot) -> String {
    if let Some(p) = preset.get() {
        return p.model;
    }
    config::read_settings(&locations::settings_file())
        .ok()
        .and_then(|s| s.roles.get("default").map(|r| r.model.clone()))
        .unwrap_or_default()
}

#[tauri::command]
pub async fn create_session(
    args: CreateSessionArgs,
    state: State<'_, AppState>,
    preset: State<'_, config::PresetSlot>,
) -> CmdResult<SessionInfo> {
    let preset = preset.inner().clone();
    let root = opened_root(&state, &args.root)?;
    if args.task.trim().is_empty() {
        return Err(invalid("Type what the agent should do first."));
    }
    blocking(move || {
        let (log, _) = agent::begin_session(
            &locations::sessions_dir(),
            root.path(),
            args.task.trim(),
            &default_model(&preset),
        )
        .map_err(|e| invalid(format!("The session cannot be saved: {e}")))?;
        let path = log.path().to_path_buf();
        drop(log);
        agent::load_transcript(&path, None)
            .map(|t| t.info)
            .map_err(|e| invalid(format!("The session cannot be read back: {e}")))
    })
    .await
}

/// The session's engine, started from its log when the window has not talked to it yet.
async fn live_session(app: &tauri::AppHandle, state: &AppState, id: &str) -> CmdResult<Arc<Live>> {
    let header = header_of(id)?;
    let root = opened_root(state, &header.project)?;
    let sessions = app.state::<Sessions>();
    if let Some(l) = sessions.get(id) {
        return Ok(l);
    }
    let app2 = app.clone();
    let id2 = id.to_string();
    let live = blocking(move || start_live(&app2, &id2, root)).await?;
    Ok(lock(&sessions.live)
        .entry(id.to_string())
        .or_insert(live)
        .clone())
}

fn restore_request(args: RestoreArgs) -> agent::RestoreRequest {
    agent::RestoreRequest {
        target: args.target,
        scope: args.scope,
        paths: args.paths,
    }
}

/// What a restore would do now: the files it changes (for the same diff view as approvals),
/// those it cannot bring back and why, the turns the conversation loses.
#[tauri::command]
pub async fn restore_preview(
    args: RestoreArgs,
    app: tauri::AppHandle,
    state: State<'_, AppState>,
) -> CmdResult<RestorePreview> {
    let live = live_session(&app, &state, &args.session).await?;
    live.session
        .preview_restore(restore_request(args))
        .await
        .map_err(session_error)
}

/// Brings the files, the conversation or both back to a checkpoint. The record says how to
/// undo it (a restore to its `undo_checkpoint`); the window reloads the transcript after.
#[tauri::command]
pub async fn restore(
    args: RestoreArgs,
    app: tauri::AppHandle,
    state: State<'_, AppState>,
) -> CmdResult<RestoreRecord> {
    let live = live_session(&app, &state, &args.session).await?;
    let record = live
        .session
        .restore(restore_request(args))
        .await
        .map_err(session_error)?;
    // The session list shows the restored conversation's state and cost.
    lock(&app.state::<Sessions>().listed).clear();
    Ok(record)
}

/// Runs one turn; its events arrive on `on_event`; resolves with how the turn ended.
#[tauri::command]
pub async fn send_message(
    args: SendMessageArgs,
    on_event: Channel<Vec<AgentEvent>>,
    app: tauri::AppHandle,
    state: State<'_, AppState>,
) -> CmdResult<TurnOutcome> {
    if args.text.trim().is_empty() {
        return Err(invalid("The message is empty."));
    }
    let sessions = app.state::<Sessions>();
    let live = live_session(&app, &state, &args.session).await?;
    let started = std::time::Instant::now();
    live.session.set_mode(args.mode);
    *lock(&live.sink) = Some(on_event);
    let turn = match live.session.submit(&args.text) {
        Ok(t) => t,
        Err(SessionError::Closed) => {
            lock(&sessions.live).remove(&args.session);
            return Err(invalid(
                "The session had stopped; nothing is lost. Send your message again to continue.",
            ));
        }
        Err(e) => return Err(session_error(e)),
    };
    let Ok(outcome) = turn.await else {
        // The engine stopped under this turn: the next message opens the session afresh.
        lock(&sessions.live).remove(&args.session);
        return Err(invalid(
            "The session stopped unexpectedly; nothing is lost. Send your message again to continue.",
        ));
    };
    // The window must have every event before the call resolves.
    if tokio::time::timeout(Duration::from_secs(2), live.turn_flushed.notified())
        .await
        .is_err()
    {
        tracing::warn!("the last events of the turn were not confirmed sent");
    }
    show_pending(&app, &sessions, false);
    notify_turn_end(
        &app,
        (&args.session, &live),
        &args.text,
        &outcome,
        started.elapsed(),
    );
    Ok(outcome)
}

/// Tries the session's failed turn again; its events arrive on `on_event` like a message's.
#[tauri::command]
pub async fn retry_turn(
    args: SessionArgs,
    on_event: Channel<Vec<AgentEvent>>,
    app: tauri::AppHandle,
) -> CmdResult<TurnOutcome> {
    let sessions = app.state::<Sessions>();
    let live = sessions
        .get(&args.session)
        .ok_or_else(|| invalid("This session has nothing to try again; send a message instead."))?;
    *lock(&live.sink) = Some(on_event);
    let started = std::time::Instant::now();
    let turn = live.session.retry().map_err(session_error)?;
    let outcome = turn.await.map_err(internal)?;
    notify_turn_end(
        &app,
        (&args.session, &live),
        "",
        &outcome,
        started.elapsed(),
    );
    if tokio::time::timeout(Duration::from_secs(2), live.turn_flushed.notified())
        .await
        .is_err()
    {
        tracing::warn!("the last events of the turn were not confirmed sent");
    }
    Ok(outcome)
}

#[tauri::command]
pub async fn answer_approval(args: AnswerApprovalArgs, app: tauri::AppHandle) -> CmdResult<()> {
    let sessions = app.state::<Sessions>();
    let live = sessions.get(&args.session).ok_or_else(|| {
        invalid("This session has no turn running; nothing is waiting for an answer.")
    })?;
    let answered = live
        .session
        .answer(&args.request, args.answer)
        .map_err(|_| invalid("That request was already answered, or its turn has ended."));
    show_pending(&app, &sessions, false);
    answered
}

/// Changes the mode of the running turn: the next call is judged in it.
#[tauri::command]
pub async fn set_mode(args: SetModeArgs, app: tauri::AppHandle) -> CmdResult<()> {
    if let Some(live) = app.state::<Sessions>().get(&args.session) {
        live.session.set_mode(args.mode);
    }
    Ok(())
}

#[tauri::command]
pub async fn stop_turn(args: SessionArgs, app: tauri::AppHandle) -> CmdResult<()> {
    let sessions = app.state::<Sessions>();
    if let Some(live) = sessions.get(&args.session) {
        live.session.stop();
        show_pending(&app, &sessions, false);
    }
    Ok(())
}

fn output_tail(path: &Path) -> String {
    use std::io::{Read as _, Seek as _, SeekFrom};
    let Ok(mut f) = std::fs::File::open(path) else {
        return String::new();
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let from = len.saturating_sub(OUTPUT_TAIL_BYTES);
    let mut bytes = Vec::new();
    if f.seek(SeekFrom::Start(from)).is_ok() {
        let _ = f.read_to_end(&mut bytes);
    }
    let text = String::from_utf8_lossy(&bytes).into_owned();
    // Start at a whole line when the tail was cut.
    match (from > 0, text.find('\n')) {
        (true, Some(i)) => text[i + 1..].to_string(),
        _ => text,
    }
}

fn task_list(tasks: Vec<TaskInfo>) -> Vec<BackgroundTask> {
    tasks
        .into_iter()
        .map(|t| BackgroundTask {
            running: t.state.is_running(),
            state: TaskRegistry::describe_state(&t.state),
            id: t.id,
            kind: t.kind.to_string(),
            title: t.title,
            runtime_ms: t.runtime_ms,
            output_tail: output_tail(&t.output_path),
            changes_waiting: t.changes_waiting,
            changes_so_far: t.changes_so_far,
        })
        .collect()
}

#[tauri::command]
pub async fn session_tasks(
    args: SessionArgs,
    app: tauri::AppHandle,
) -> CmdResult<Vec<BackgroundTask>> {
    let Some(live) = app.state::<Sessions>().get(&args.session) else {
        return Ok(Vec::new());
    };
    blocking(move || Ok(task_list(live.session.tasks(true)))).await
}

/// The open session a task belongs to, for an action on the task.
fn session_of_task(app: &tauri::AppHandle, session: &str) -> CmdResult<Arc<Live>> {
    app.state::<Sessions>()
        .get(session)
        .ok_or_else(|| invalid("This session has no running tasks."))
}

#[tauri::command]
pub async fn stop_task(
    args: StopTaskArgs,
    app: tauri::AppHandle,
) -> CmdResult<Vec<BackgroundTask>> {
    let live = session_of_task(&app, &args.session)?;
    live.session
        .stop_task(&args.task)
        .map_err(|e| invalid(e.to_string()))?;
    // The task ends within moments (SIGTERM, then SIGKILL); show it ended if it already has.
    tokio::time::sleep(Duration::from_millis(150)).await;
    blocking(move || Ok(task_list(live.session.tasks(true)))).await
}

/// The person asks to review what a running background command changed so far: the review
/// card comes as for any command's changes (at the agent's next step, or at once when idle).
#[tauri::command]
pub async fn review_task(
    args: StopTaskArgs,
    app: tauri::AppHandle,
) -> CmdResult<Vec<BackgroundTask>> {
    let live = session_of_task(&app, &args.session)?;
    live.session
        .review_task(&args.task)
        .map_err(|e| invalid(e.to_string()))?;
    blocking(move || Ok(task_list(live.session.tasks(true)))).await
}

#[tauri::command]
pub async fn session_changes(
    args: SessionArgs,
    app: tauri::AppHandle,
) -> CmdResult<Vec<SessionFileChange>> {
    let root = match app.state::<Sessions>().get(&args.session) {
        Some(l) => l.root.clone(),
        None => PathBuf::from(header_of(&args.session)?.project),
    };
    let dir = locations::session_files_dir(&args.session);
    blocking(move || agent::session_changes(&dir, &root).map_err(|e| invalid(e.to_string()))).await
}

/// A picture the session's `web_fetch` saved, for its card. Only a plain name among that
/// session's fetched files is read: the window cannot be made to read anything else this way.
#[tauri::command]
pub async fn fetched_picture(
    args: protocol::FetchedPictureArgs,
) -> CmdResult<protocol::FileContent> {
    // The id is checked as any session's (no path in it) before it names a folder.
    log_path(&args.session)?;
    let dir = locations::session_files_dir(&args.session).join("fetched");
    blocking(move || {
        tools::read_fetched_picture(&dir, &args.name).map_err(crate::commands::for_people)
    })
    .await
}

/// Writes the session to the file the person chose (Markdown or its JSON log), whole or not at
/// all; answers with where it went.
#[tauri::command]
pub async fn export_session(args: protocol::ExportSessionArgs) -> CmdResult<String> {
    let log = log_path(&args.session)?;
    let format = match args.format {
        protocol::ExportKind::Markdown => agent::ExportFormat::Markdown,
        protocol::ExportKind::Jsonl => agent::ExportFormat::Jsonl,
    };
    blocking(move || {
        let text = agent::export_session(&log, format)
            .map_err(|e| invalid(format!("The session could not be exported: {e}")))?;
        let path = PathBuf::from(&args.path);
        tools::write_atomic(&path, text.as_bytes())
            .map_err(|e| invalid(format!("{} could not be written: {e}", path.display())))?;
        Ok(path.display().to_string())
    })
    .await
}

/// The project's sessions that mention every word of the query, newest first.
#[tauri::command]
pub async fn search_sessions(
    args: protocol::SearchSessionsArgs,
) -> CmdResult<Vec<protocol::SearchHit>> {
    let root = ProjectRoot::open(&args.root).map_err(crate::commands::for_people)?;
    let root = root.path().display().to_string();
    blocking(move || {
        agent::search_sessions(&locations::sessions_dir(), &root, &args.query)
            .map_err(|e| invalid(format!("The sessions cannot be searched: {e}")))
    })
    .await
}

#[cfg(test)]
mod notice_tests {
    use super::*;

    #[test]
    fn only_a_long_turn_the_person_did_not_stop_is_told() {
        let done = TurnOutcome::Done {
            summary: "Fixed the parser.".into(),
        };
        let task = ("Fix the parser\nIt breaks on tabs", "myproject");
        assert_eq!(
            turn_end_notice(&done, Duration::from_secs(59), task, false),
            None
        );
        assert_eq!(
            turn_end_notice(&done, Duration::from_secs(61), task, false),
            Some((
                "Done: Fix the parser".to_string(),
                "Fixed the parser. — myproject".to_string()
            ))
        );
        // Issue 46: a task_done with warnings is no "finished".
        assert_eq!(
            turn_end_notice(&done, Duration::from_secs(61), task, true).map(|n| n.0),
            Some("Check this: Fix the parser".to_string())
        );
        assert_eq!(
            turn_end_notice(
                &TurnOutcome::Cancelled,
                Duration::from_secs(600),
                task,
                false
            ),
            None
        );
        let failed = TurnOutcome::Failed {
            error: protocol::EngineError::new(
                protocol::FailureCode::ServerError,
                "the provider had a server error",
                None,
            ),
        };
        assert_eq!(
            turn_end_notice(&failed, Duration::from_secs(90), task, false).map(|n| n.0),
            Some("Failed: Fix the parser".to_string())
        );
        let ended = turn_end_notice(
            &TurnOutcome::Ended,
            Duration::from_secs(90),
            ("", "p"),
            false,
        );
        assert_eq!(ended.map(|n| n.0), Some("Waiting for you".to_string()));
    }

    #[test]
    fn a_question_is_told_in_the_cards_words_with_the_project() {
        let q = protocol::ApprovalRequest {
            title: vec![
                protocol::TitlePart::words("Edit "),
                protocol::TitlePart::code("calc.py"),
            ],
            tool: "edit_file".into(),
            ..serde_json::from_value(
                serde_json::json!({"id": "a", "tool": "edit_file", "input": {},
                    "reason": "", "rule": "", "suggestions": [], "hunks": [], "commands": []}),
            )
            .expect("a request")
        };
        assert_eq!(question_words(&q, "myproject"), "Edit calc.py — myproject");
    }
}
