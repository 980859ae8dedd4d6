//! The agent inside the app: one live engine per session the window has talked to, the GUI
//! being another subscriber to its events (over a `Channel`) and another answerer of its
//! approval requests — the same engine `tandem-cli run` drives. Rust decides; the window shows
//! and asks.

use crate::commands::{CmdResult, blocking, internal, invalid, opened_root};
use crate::event_pump::{self, Sink};
use crate::state::AppState;
use agent::{Agent, AgentConfig, SessionHeader, SessionLog, locations};
use protocol::{
    AgentEvent, AgentMode, AnswerApprovalArgs, ApprovalAnswer, ApprovalRequest, BackgroundTask,
    CommandError, CreateSessionArgs, ErrorCode, ProjectArgs, SendMessageArgs, SessionArgs,
    SessionFileChange, SessionInfo, SessionState, SessionTranscript, SetModeArgs, StopTaskArgs,
    TurnOutcome,
};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tauri::ipc::Channel;
use tauri::{Manager as _, State};
use tokio::sync::{Notify, mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tools::{ProjectRoot, TaskRegistry, Toolbox};

/// How much of a background task's output the task list shows.
const OUTPUT_TAIL_BYTES: u64 = 4000;

/// A session with an engine in this process.
struct Live {
    agent: tokio::sync::Mutex<Agent>,
    tasks: TaskRegistry,
    root: PathBuf,
    sink: Sink,
    turn_flushed: Arc<Notify>,
    open_questions: event_pump::OpenQuestions,
    cancel: Mutex<CancellationToken>,
    pending: Mutex<Vec<(String, oneshot::Sender<ApprovalAnswer>)>>,
    running: AtomicBool,
    mode: agent::ModeSwitch,
}

impl Live {
    fn state(&self) -> Option<SessionState> {
        if !self.running.load(Ordering::SeqCst) {
            return None;
        }
        let waiting = !lock(&self.open_questions).is_empty();
        Some(if waiting {
            SessionState::Waiting
        } else {
            SessionState::Running
        })
    }
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

    fn state_of(&self, id: &str) -> Option<SessionState> {
        self.get(id).and_then(|l| l.state())
    }

    /// Cancels every turn and stops every background task (the app is closing). Waits a moment
    /// so the stop signals reach the processes before the runtime goes away.
    pub fn stop_everything(&self) {
        let live: Vec<Arc<Live>> = lock(&self.live).values().cloned().collect();
        let mut stopped = 0;
        for l in &live {
            lock(&l.cancel).cancel();
            for t in l.tasks.list(false) {
                if l.tasks.stop(&t.id).is_ok() {
                    stopped += 1;
                }
            }
        }
        if stopped > 0 {
            tracing::info!(stopped, "stopping background tasks as the app closes");
            std::thread::sleep(Duration::from_millis(300));
        }
    }

    fn pending_count(&self) -> usize {
        lock(&self.live)
            .values()
            .map(|l| lock(&l.pending).len())
            .sum()
    }
}

fn log_path(id: &str) -> CmdResult<PathBuf> {
    let path =
        agent::session_path(&locations::sessions_dir(), id).map_err(|e| invalid(e.to_string()))?;
    if !path.exists() {
        return Err(CommandError {
            code: ErrorCode::NotFound,
            message: format!("The session {id} no longer exists; it may have been deleted."),
        });
    }
    Ok(path)
}

fn header_of(id: &str) -> CmdResult<SessionHeader> {
    let path = log_path(id)?;
    agent::read_session::<Value>(&path)
        .map(|r| r.header)
        .map_err(|e| invalid(format!("The session's log cannot be read: {e}")))
}

fn to_mode(m: AgentMode) -> policy::Mode {
    match m {
        AgentMode::ReadOnly => policy::Mode::ReadOnly,
        AgentMode::Ask => policy::Mode::Ask,
        AgentMode::AutoEdit => policy::Mode::AutoEdit,
        AgentMode::FullAuto => policy::Mode::FullAuto,
    }
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

/// Builds the engine for a session read back from its log (resumable after a crash: a turn cut
/// short is dropped from the conversation, not replayed).
fn start_live(app: &tauri::AppHandle, id: &str, root: ProjectRoot) -> CmdResult<Arc<Live>> {
    let dir = locations::sessions_dir();
    let (log, read) = SessionLog::reopen::<Value>(&dir, id)
        .map_err(|e| invalid(format!("The session cannot be continued: {e}")))?;
    let user_file = locations::user_policy_file();
    let policy = agent::load_project_policy(root.path(), Some(&user_file)).map_err(|e| {
        invalid(format!(
            "The rules do not load, so nothing can run safely: {e}. Fix the file, then send again."
        ))
    })?;
    let session_dir = locations::session_files_dir(id);
    let mut toolbox = Toolbox::new(root.clone(), session_dir.clone());
    agent::sandboxing::confine(&mut toolbox, id, &session_dir);
    let tasks = toolbox.tasks.clone();
    let mut config = AgentConfig::new(read.header.model.clone());
    config.home = std::env::var_os("HOME").map(PathBuf::from);
    config.user_policy_file = Some(user_file);
    config.session_dir = Some(session_dir);
    // A placeholder until the turn picks the provider (settings may change between turns).
    let provider = llm::Provider::new(llm::ProviderConfig::new(
        llm::ProviderKind::OpenAi,
        "http://127.0.0.1:9",
        None,
    ))
    .map_err(internal)?;
    let (etx, erx) = mpsc::unbounded_channel();
    let (atx, mut arx) = mpsc::channel::<(ApprovalRequest, oneshot::Sender<ApprovalAnswer>)>(8);
    let mut agent = Agent::new(provider, toolbox, policy, config, log, etx, atx);
    agent.messages = agent::replay_messages(&read.entries);
    let mode = agent.mode_switch();
    let live = Arc::new(Live {
        mode,
        agent: tokio::sync::Mutex::new(agent),
        tasks,
        root: root.path().to_path_buf(),
        sink: Arc::new(Mutex::new(None)),
        turn_flushed: Arc::new(Notify::new()),
        open_questions: Arc::default(),
        cancel: Mutex::new(CancellationToken::new()),
        pending: Mutex::new(Vec::new()),
        running: AtomicBool::new(false),
    });
    tauri::async_runtime::spawn(event_pump::pump(
        erx,
        live.sink.clone(),
        live.turn_flushed.clone(),
        live.open_questions.clone(),
    ));
    let weak = Arc::downgrade(&live);
    let app2 = app.clone();
    tauri::async_runtime::spawn(async move {
        while let Some((request, reply)) = arx.recv().await {
            let Some(live) = weak.upgrade() else { return };
            lock(&live.pending).push((request.id, reply));
            drop(live);
            let sessions = app2.state::<Sessions>();
            show_pending(&app2, &sessions, true);
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
fn default_model() -> String {
    if let Ok(Some(p)) = agent::Preset::from_env() {
        return p.model;
    }
    agent::read_settings(&locations::settings_file())
        .ok()
        .and_then(|s| s.roles.get("default").map(|r| r.model.clone()))
        .unwrap_or_default()
}

#[tauri::command]
pub async fn create_session(
    args: CreateSessionArgs,
    state: State<'_, AppState>,
) -> CmdResult<SessionInfo> {
    let root = opened_root(&state, &args.root)?;
    if args.task.trim().is_empty() {
        return Err(invalid("Type what the agent should do first."));
    }
    blocking(move || {
        let header = SessionHeader {
            id: locations::new_session_id(),
            project: root.path().display().to_string(),
            task: args.task.trim().to_string(),
            model: default_model(),
            started_ms: locations::now_ms(),
        };
        let log = SessionLog::create(&locations::sessions_dir(), &header)
            .map_err(|e| invalid(format!("The session cannot be saved: {e}")))?;
        let path = log.path().to_path_buf();
        drop(log);
        agent::load_transcript(&path, None)
            .map(|t| t.info)
            .map_err(|e| invalid(format!("The session cannot be read back: {e}")))
    })
    .await
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
    let header = header_of(&args.session)?;
    let root = opened_root(&state, &header.project)?;
    let sessions = app.state::<Sessions>();
    let live = match sessions.get(&args.session) {
        Some(l) => l,
        None => {
            let app2 = app.clone();
            let id = args.session.clone();
            let live = blocking(move || start_live(&app2, &id, root)).await?;
            lock(&sessions.live)
                .entry(args.session.clone())
                .or_insert(live)
                .clone()
        }
    };
    if live.running.swap(true, Ordering::SeqCst) {
        return Err(invalid(
            "A turn is already running in this session. Wait for it, or press Stop.",
        ));
    }
    let outcome = run_turn(&live, &args, on_event).await;
    live.running.store(false, Ordering::SeqCst);
    lock(&live.pending).clear();
    show_pending(&app, &sessions, false);
    outcome
}

async fn run_turn(
    live: &Live,
    args: &SendMessageArgs,
    on_event: Channel<Vec<AgentEvent>>,
) -> CmdResult<TurnOutcome> {
    let chosen = tauri::async_runtime::spawn_blocking(|| {
        agent::choose_provider(
            agent::Preset::from_env().ok().flatten().as_ref(),
            &locations::settings_file(),
            "default",
            &agent::StoredKeys::from_env(),
        )
    })
    .await
    .map_err(internal)?;
    let (config, model) = chosen.map_err(|e| invalid(e.to_string()))?;
    let provider = llm::Provider::new(config).map_err(|e| invalid(e.to_string()))?;
    let cancel = CancellationToken::new();
    *lock(&live.cancel) = cancel.clone();
    *lock(&live.sink) = Some(on_event);
    let outcome = {
        let mut agent = live.agent.lock().await;
        agent.provider = provider;
        agent.config.model = model;
        agent.config.mode = Some(to_mode(args.mode));
        live.mode.set(to_mode(args.mode));
        agent.run_turn(&args.text, &cancel).await
    };
    // The window must have every event before the call resolves.
    if tokio::time::timeout(Duration::from_secs(2), live.turn_flushed.notified())
        .await
        .is_err()
    {
        tracing::warn!("the last events of the turn were not confirmed sent");
    }
    *lock(&live.sink) = None;
    Ok(outcome)
}

#[tauri::command]
pub async fn answer_approval(args: AnswerApprovalArgs, app: tauri::AppHandle) -> CmdResult<()> {
    let sessions = app.state::<Sessions>();
    let live = sessions.get(&args.session).ok_or_else(|| {
        invalid("This session has no turn running; nothing is waiting for an answer.")
    })?;
    // The question reaches this side a moment after the engine sent it; a quick click can
    // arrive first, so wait briefly for it.
    let mut reply = None;
    for _ in 0..40 {
        {
            let mut pending = lock(&live.pending);
            if let Some(at) = pending.iter().position(|(id, _)| *id == args.request) {
                reply = Some(pending.remove(at).1);
            }
        }
        if reply.is_some() || !live.running.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let reply = reply
        .ok_or_else(|| invalid("That request was already answered, or its turn has ended."))?;
    let sent = reply.send(args.answer).is_ok();
    show_pending(&app, &sessions, false);
    if sent {
        Ok(())
    } else {
        Err(invalid("The turn ended before the answer arrived."))
    }
}

/// Changes the mode of the running turn: the next call is judged in it.
#[tauri::command]
pub async fn set_mode(args: SetModeArgs, app: tauri::AppHandle) -> CmdResult<()> {
    if let Some(live) = app.state::<Sessions>().get(&args.session) {
        live.mode.set(to_mode(args.mode));
    }
    Ok(())
}

#[tauri::command]
pub async fn stop_turn(args: SessionArgs, app: tauri::AppHandle) -> CmdResult<()> {
    let sessions = app.state::<Sessions>();
    if let Some(live) = sessions.get(&args.session) {
        lock(&live.cancel).cancel();
        lock(&live.pending).clear();
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

fn task_list(tasks: &TaskRegistry) -> Vec<BackgroundTask> {
    tasks
        .list(true)
        .into_iter()
        .map(|t| BackgroundTask {
            running: t.state.is_running(),
            state: TaskRegistry::describe_state(&t.state),
            id: t.id,
            kind: t.kind.to_string(),
            title: t.title,
            runtime_ms: t.runtime_ms,
            output_tail: output_tail(&t.output_path),
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
    blocking(move || Ok(task_list(&live.tasks))).await
}

#[tauri::command]
pub async fn stop_task(
    args: StopTaskArgs,
    app: tauri::AppHandle,
) -> CmdResult<Vec<BackgroundTask>> {
    let live = app
        .state::<Sessions>()
        .get(&args.session)
        .ok_or_else(|| invalid("This session has no running tasks."))?;
    live.tasks.stop(&args.task).map_err(invalid)?;
    // The task ends within moments (SIGTERM, then SIGKILL); show it ended if it already has.
    tokio::time::sleep(Duration::from_millis(150)).await;
    blocking(move || Ok(task_list(&live.tasks))).await
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
