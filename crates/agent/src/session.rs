//! A session, owned by the engine: its log, toolbox, rules, provider, questions, background
//! tasks and sub-agents. Front ends (the window, `tandem-cli`, tests) create or open one and
//! drive it only through operations — submit a message, answer a question, change the mode,
//! stop — and read one stream of typed events. When the session is idle, a background task
//! that ends, a wake-up the agent asked for, or a named agent's report starts the next turn.

pub(crate) mod options;
pub(crate) mod personal;
mod wake;

pub use options::{Sandboxing, SessionOptions};

use crate::agent::{Agent, Shared as AgentShared};
use crate::call::approvals::{AnswerError, Approvals};
use crate::call::calls::SessionFiles;
use crate::call::rules::{ModeSwitch, SharedPolicy};
use crate::event_sink::EventSink;
use crate::failure::engine_error;
use crate::history::entry::EngineEntry;
use crate::history::log::{LogError, SessionHeader, SessionLog};
use crate::history::restore::{RestoreError, RestoreRequest};
use crate::history::turn_checkpoint::{Started, TurnCheckpoint};
use crate::turn::subagents::Kit;
use checkpoints::Checkpoints;
use policy::Mode;
use protocol::{
    AgentEvent, ApprovalAnswer, ApprovalRequest, FailureCode, RestorePreview, RestoreRecord,
    SessionState, TurnOutcome, WakeReason,
};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tools::{Event, TaskInfo, TaskRegistry, Toolbox};
use wake::{cancelled_wakeup, wake_words};

/// Turns in a row that start without the user before the session waits for them: a wake-up
/// that sets another wake-up must not run forever.
const MAX_AUTOMATIC_TURNS: u32 = 25;

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error(transparent)]
    Log(#[from] LogError),
    #[error("a turn is already running in this session; wait for it, or stop it")]
    Busy,
    #[error(transparent)]
    Answer(#[from] AnswerError),
    #[error("the session has closed")]
    Closed,
    #[error("{0}")]
    Task(String),
    #[error(transparent)]
    Restore(#[from] RestoreError),
    #[error(
        "session {id} belongs to the project {session_project}, not {project}; continue it there (--project {session_project}), or start a new session here"
    )]
    OtherProject {
        id: String,
        session_project: String,
        project: String,
    },
    /// Retry was asked for while the session's last turn did not fail (a later turn got past
    /// the failure): trying it again would run finished work twice.
    #[error("the session's last turn did not fail: there is nothing to try again")]
    NothingToRetry,
}

impl SessionError {
    /// The code front ends act on.
    pub fn code(&self) -> FailureCode {
        match self {
            SessionError::Log(LogError::Busy(_)) => FailureCode::SessionBusy,
            SessionError::Log(_) => FailureCode::LogFailed,
            SessionError::Busy => FailureCode::SessionBusy,
            SessionError::Restore(RestoreError::Log(LogError::Busy(_))) => FailureCode::SessionBusy,
            SessionError::Restore(RestoreError::Log(_)) => FailureCode::LogFailed,
            SessionError::Answer(_)
            | SessionError::OtherProject { .. }
            | SessionError::Closed
            | SessionError::Task(_)
            | SessionError::NothingToRetry
            | SessionError::Restore(_) => FailureCode::Internal,
        }
    }
}

enum Op {
    Turn {
        start: Start,
        done: oneshot::Sender<TurnOutcome>,
    },
    Preview {
        request: RestoreRequest,
        done: oneshot::Sender<Result<RestorePreview, SessionError>>,
    },
    Restore {
        request: RestoreRequest,
        done: oneshot::Sender<Result<RestoreRecord, SessionError>>,
    },
}

/// What the handle and the engine share.
struct Shared {
    turns: Turns,
    cancel: Mutex<CancellationToken>,
    approvals: Approvals,
    mode: ModeSwitch,
    tasks: TaskRegistry,
    kit: Arc<Kit>,
    closed: CancellationToken,
    /// The session's checkpoints, or why they cannot be kept.
    checkpoints: Result<Arc<Checkpoints>, String>,
    /// What the session has spent and may spend (its agents share it).
    spend: Arc<crate::spend::SpendMeter>,
}

/// Where the session's turns stand.
#[derive(Default)]
struct Turns {
    running: AtomicBool,
    /// Turns since the user last said something.
    automatic: AtomicU32,
    /// The last turn failed and nothing came after it: the only state Retry acts in. A Retry
    /// pressed on an old error (scrolled back to) ran the finished task again.
    last_failed: AtomicBool,
}

/// A handle on a session: cheap to clone; the session ends when the last handle is dropped.
#[derive(Clone)]
pub struct Session {
    id: String,
    ops: mpsc::UnboundedSender<Op>,
    shared: Arc<Shared>,
    _guard: Arc<CloseGuard>,
    /// The private temporary folder it made for its commands (the app removes it at quit,
    /// when no drop runs).
    private_tmp: Option<PathBuf>,
}

/// Ends the engine when the last handle goes: its tasks and agents stop with it (the toolbox,
/// dropped with the engine, removes the private temporary folder).
struct CloseGuard(Arc<Shared>);

impl Drop for CloseGuard {
    fn drop(&mut self) {
        self.0
            .cancel
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .cancel();
        self.0.approvals.drop_all();
        self.0.closed.cancel();
        self.0.kit.stop_named();
        self.0.tasks.stop_all();
    }
}

/// The session's events, in order.
pub type Events = mpsc::UnboundedReceiver<AgentEvent>;

/// Whether a session's recorded project is the project at `root` (the same folder, by its
/// canonical path when it still exists).
fn same_project(recorded: &str, root: &std::path::Path) -> bool {
    let recorded = std::path::Path::new(recorded);
    recorded == root
        || match (std::fs::canonicalize(recorded), std::fs::canonicalize(root)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
}

impl Session {
    /// Starts a new session for `task` (its title), with a fresh log.
    pub fn create(opts: SessionOptions, task: &str) -> Result<(Session, Events), SessionError> {
        let (log, header) = begin_session(
            &opts.sessions_dir,
            opts.root.path(),
            task,
            &opts.config.model,
        )?;
        let id = header.id.clone();
        let checkpoints = open_checkpoints(&opts, &id).map(|(c, _)| c);
        Ok(Self::start(
            opts,
            id,
            log,
            (Vec::new(), Vec::new()),
            header.started_ms,
            checkpoints,
            (0.0, 0),
        ))
    }

    /// Continues a session from its log (the conversation as the model last saw it).
    pub fn open(opts: SessionOptions, id: &str) -> Result<(Session, Events), SessionError> {
        let (mut log, mut read) = SessionLog::reopen::<Value>(&opts.sessions_dir, id)?;
        // Its checkpoints and restores are of the project it was started in: run in another,
        // a later restore wrote this project's files into that one.
        if !same_project(&read.header.project, opts.root.path()) {
            return Err(SessionError::OtherProject {
                id: id.to_string(),
                session_project: read.header.project.clone(),
                project: opts.root.path().display().to_string(),
            });
        }
        for w in &read.warnings {
            tracing::warn!(session = id, "{w}");
        }
        let checkpoints = match open_checkpoints(&opts, id) {
            Ok((cps, Some(recovered))) => {
                // A restore a crash cut short: its files are finished; its log part now.
                if let Some(done) = crate::history::restore::recovered(&read.entries, &recovered) {
                    for line in &done.lines {
                        log.append(line)?;
                    }
                    log.append(&AgentEvent::Restored {
                        record: done.record,
                    })?;
                    log.sync()?;
                    read = crate::history::log::read_session(log.path())?;
                }
                match cps.finish() {
                    Ok(()) => Ok(cps),
                    Err(e) => Err(e.to_string()),
                }
            }
            Ok((cps, None)) => Ok(cps),
            Err(e) => Err(e),
        };
        // Written afresh from the log: a crash may have cut its last line off.
        log.keep_search_text(&read.header.project, &read.header.task, &read.entries);
        let effective = crate::history::rewind::effective(&read.entries);
        let conversation = crate::history::replay::replay(&effective);
        let spent = crate::history::view::spent(log.path(), &read.entries);
        let (session, events) = Self::start(
            opts,
            id.to_string(),
            log,
            conversation,
            read.header.started_ms,
            checkpoints,
            spent,
        );
        session
            .shared
            .turns
            .last_failed
            .store(ends_failed(&effective), Ordering::SeqCst);
        Ok((session, events))
    }

    fn start(
        opts: SessionOptions,
        id: String,
        log: SessionLog,
        (messages, notes): (Vec<protocol::Message>, Vec<String>),
        started_ms: u64,
        checkpoints: Result<Arc<Checkpoints>, String>,
        (spent_usd, spent_tokens): (f64, u64),
    ) -> (Session, Events) {
        let files_dir = opts.sessions_dir.join(&id);
        let mut toolbox = Toolbox::new(opts.root, files_dir.clone());
        if let Ok(cps) = &checkpoints {
            let keep = cps.clone();
            toolbox.ws.set_before_write(Arc::new(move |path: &str| {
                if let Err(e) = keep.before_write(path) {
                    // The write goes ahead; only undoing it is lost.
                    tracing::warn!(%e, path, "could not keep a file's content before a write");
                }
            }));
            let base = cps.clone();
            toolbox
                .ws
                .set_base_of(Arc::new(move |path: &str| base.text_at_last(path)));
            toolbox
                .ws
                .set_change_finder(Arc::new(crate::history::found::CheckpointFinder(
                    cps.clone(),
                )));
            // Watching is set up off the hot path; the first checkpoint waits for it.
            let watch = cps.clone();
            tokio::task::spawn_blocking(move || watch.watch());
        }
        toolbox.web.search = opts.web_search;
        let policy: SharedPolicy = Arc::new(RwLock::new(opts.policy));
        crate::sandboxing::confine(&mut toolbox, &id, &files_dir, &policy);
        // What the agent read survives a crash: a resumed session may edit those files.
        let kept = std::fs::create_dir_all(&files_dir)
            .and_then(|()| toolbox.ws.keep_seen_in(&files_dir.join("seen.jsonl")));
        if let Err(e) = kept {
            tracing::warn!(session = %id, %e, "what the agent reads is not kept for a restart");
        }
        match opts.sandboxing {
            Sandboxing::Machine => {}
            Sandboxing::Off => toolbox.commands.sandbox = None,
            Sandboxing::With(setup) => toolbox.commands.sandbox = Some(setup),
        }
        if let Some(tmp) = opts.tmp_dir {
            toolbox.commands.tmp_dir = tmp;
            toolbox.scratch = None;
        }
        crate::sandboxing::start_watching(&toolbox);
        let tasks = toolbox.tasks.clone();
        // Only the folder the session made for itself (a caller's own is the caller's).
        let private_tmp = toolbox.scratch.clone();
        let (etx, erx) = mpsc::unbounded_channel();
        let approvals = Approvals::default();
        let mode = ModeSwitch::default();
        let kit = Arc::new(Kit::new(opts.resolver, files_dir.join("agents")));
        let spend = Arc::new(crate::spend::SpendMeter::new(
            opts.spend,
            spent_usd,
            spent_tokens,
        ));
        // The provider is found at the start of each turn (settings may change in between).
        let agent = Agent::new(
            AgentShared {
                toolbox: Arc::new(toolbox),
                policy,
                approvals: approvals.clone(),
                mode: mode.clone(),
                spend: spend.clone(),
                session: SessionFiles {
                    dir: Some(files_dir),
                    started_ms: Some(started_ms),
                },
            },
            opts.config,
            log,
            EventSink::new(etx),
            (messages, notes),
            opts.extensions,
            Some(kit.clone()),
        );
        let shared = Arc::new(Shared {
            turns: Turns::default(),
            cancel: Mutex::new(CancellationToken::new()),
            approvals,
            mode,
            tasks,
            kit,
            closed: CancellationToken::new(),
            checkpoints,
            spend,
        });
        let (ops_tx, ops_rx) = mpsc::unbounded_channel();
        tokio::spawn(drive(agent, ops_rx, shared.clone()));
        (
            Session {
                id,
                ops: ops_tx,
                _guard: Arc::new(CloseGuard(shared.clone())),
                private_tmp,
                shared,
            },
            erx,
        )
    }

    /// The private temporary folder the session made for its commands (not one a caller
    /// handed in), removed as the session closes (see `Toolbox`'s drop).
    pub fn private_tmp(&self) -> Option<PathBuf> {
        self.private_tmp.clone()
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    /// Starts a turn with the user's message; resolves with how it ended. `Busy` while a
    /// turn runs.
    pub fn submit(&self, text: &str) -> Result<oneshot::Receiver<TurnOutcome>, SessionError> {
        if self.shared.turns.running.swap(true, Ordering::SeqCst) {
            return Err(SessionError::Busy);
        }
        self.shared.turns.automatic.store(0, Ordering::SeqCst);
        self.begin(Start::User(text.to_string()))
    }

    /// What the session has spent, today's spending, and the limits in force.
    pub fn spend_status(&self) -> protocol::SpendStatus {
        self.shared.spend.status()
    }

    /// The person's new limits for this session (raised where a limit stopped it); Retry then
    /// goes on.
    pub fn set_limits(&self, limits: protocol::SpendLimits) -> protocol::SpendStatus {
        self.shared.spend.set_limits(limits);
        self.shared.spend.status()
    }

    /// Tries the last turn again (it failed: the provider was down, the stream broke).
    /// `NothingToRetry` once anything came after the failure.
    pub fn retry(&self) -> Result<oneshot::Receiver<TurnOutcome>, SessionError> {
        if self.shared.turns.running.swap(true, Ordering::SeqCst) {
            return Err(SessionError::Busy);
        }
        if !self.shared.turns.last_failed.load(Ordering::SeqCst) {
            self.shared.turns.running.store(false, Ordering::SeqCst);
            return Err(SessionError::NothingToRetry);
        }
        self.begin(Start::Retry)
    }

    fn begin(&self, start: Start) -> Result<oneshot::Receiver<TurnOutcome>, SessionError> {
        let (done, rx) = oneshot::channel();
        self.ops.send(Op::Turn { start, done }).map_err(|_| {
            self.shared.turns.running.store(false, Ordering::SeqCst);
            SessionError::Closed
        })?;
        Ok(rx)
    }

    /// Runs a turn to its end.
    pub async fn run(&self, text: &str) -> Result<TurnOutcome, SessionError> {
        self.submit(text)?.await.map_err(|_| SessionError::Closed)
    }

    /// What restoring would do now, for the user to see before it happens. `Busy` while a turn
    /// runs.
    pub async fn preview_restore(
        &self,
        request: RestoreRequest,
    ) -> Result<RestorePreview, SessionError> {
        if self.shared.turns.running.load(Ordering::SeqCst) {
            return Err(SessionError::Busy);
        }
        let (done, rx) = oneshot::channel();
        self.ops
            .send(Op::Preview { request, done })
            .map_err(|_| SessionError::Closed)?;
        rx.await.map_err(|_| SessionError::Closed)?
    }

    /// Brings the files, the conversation or both back to a checkpoint; background work is
    /// stopped first. The `restored` event it logs says how to undo it. `Busy` while a turn
    /// runs.
    pub async fn restore(&self, request: RestoreRequest) -> Result<RestoreRecord, SessionError> {
        if self.shared.turns.running.swap(true, Ordering::SeqCst) {
            return Err(SessionError::Busy);
        }
        let (done, rx) = oneshot::channel();
        if self.ops.send(Op::Restore { request, done }).is_err() {
            self.shared.turns.running.store(false, Ordering::SeqCst);
            return Err(SessionError::Closed);
        }
        rx.await.map_err(|_| SessionError::Closed)?
    }

    /// Answers a question of any of the session's agents.
    pub fn answer(&self, request: &str, answer: ApprovalAnswer) -> Result<(), SessionError> {
        Ok(self.shared.approvals.answer(request, answer)?)
    }

    /// Where questions are answered, without keeping the session open: a front end's event
    /// loop holds this, so the session still ends when its last handle goes.
    pub fn approvals(&self) -> Approvals {
        self.shared.approvals.clone()
    }

    /// The questions waiting, oldest first.
    pub fn questions(&self) -> Vec<ApprovalRequest> {
        self.shared.approvals.waiting()
    }

    /// Resolves when a question arrives or is answered.
    pub async fn questions_changed(&self) {
        self.shared.approvals.changed().await;
    }

    /// The mode the next call is judged in (also for a running turn and its sub-agents).
    pub fn set_mode(&self, mode: Mode) {
        self.shared.mode.set(mode);
    }

    /// Whether Ask mode asks before every command (`true`) or reviews what each changed,
    /// from the next call on (the person changed the setting).
    pub fn set_ask_before_commands(&self, on: bool) {
        self.shared.mode.set_ask_first(on);
    }

    /// Stops the running turn, its sub-agents and the commands they run in the foreground;
    /// open questions are dropped (never approved). Background commands keep running.
    pub fn stop(&self) {
        self.shared
            .cancel
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .cancel();
        self.shared.approvals.drop_all();
        self.shared.kit.stop_named();
    }

    /// Running or waiting for the user; `None` when idle. A question waits whichever agent
    /// asked it: a named agent works on while the session's own turn is over, and its question
    /// waits for the user as much as one of the turn's.
    pub fn state(&self) -> Option<SessionState> {
        if self.shared.approvals.count() > 0 {
            return Some(SessionState::Waiting);
        }
        self.shared
            .turns
            .running
            .load(Ordering::SeqCst)
            .then_some(SessionState::Running)
    }

    pub fn tasks(&self, include_finished: bool) -> Vec<TaskInfo> {
        self.shared.tasks.list(include_finished)
    }

    pub fn stop_task(&self, id: &str) -> Result<TaskInfo, SessionError> {
        self.shared.tasks.stop(id).map_err(SessionError::Task)
    }

    /// The person asks to review what running background command `id` changed so far: put to
    /// them at the agent's next step, or at once when no turn runs (a turn of its own, so the
    /// model hears what landed and the landing can be undone).
    pub fn review_task(&self, id: &str) -> Result<(), SessionError> {
        self.shared.tasks.ask_review(id).map_err(SessionError::Task)
    }

    /// Waits until nothing can wake the agent any more (no background task or agent running,
    /// no wake-up due) and no turn runs, or `limit` passes; then stops what is left and says
    /// what it stopped. For `tandem-cli run`, which must not leave processes behind.
    pub async fn settle(&self, limit: Duration) -> Vec<TaskInfo> {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let idle = !self.shared.turns.running.load(Ordering::SeqCst);
            if idle && !self.shared.tasks.has_pending() {
                return Vec::new();
            }
            if tokio::time::Instant::now() >= deadline {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let left = self.shared.tasks.list(false);
        // What is stopped now must not wake the agent again: the front end is leaving.
        self.shared
            .turns
            .automatic
            .store(MAX_AUTOMATIC_TURNS, Ordering::SeqCst);
        self.stop();
        self.shared.tasks.stop_all();
        left
    }
}

/// The engine's side: runs turns as they are asked for, and wakes the agent when something
/// it waited for happens while the session is idle.
async fn drive(mut agent: Agent, mut ops: mpsc::UnboundedReceiver<Op>, shared: Arc<Shared>) {
    loop {
        let tasks = shared.tasks.clone();
        let wake = async {
            if !tasks.has_pending()
                || shared.turns.automatic.load(Ordering::SeqCst) >= MAX_AUTOMATIC_TURNS
            {
                return std::future::pending::<Option<Event>>().await;
            }
            tasks.next_event(Duration::from_secs(3600)).await
        };
        tokio::select! {
            op = ops.recv() => match op {
                Some(Op::Turn { start, done }) => {
                    let _running = Running(&shared.turns.running);
                    // The checkpoint is placed before the person's words, so going back to it
                    // takes them away; the words are kept first, as taking a checkpoint of a
                    // big project is long, and a crash then must not lose what was asked.
                    let at = agent.journal().log.next_seq();
                    if let Start::User(text) = &start {
                        if let Some(note) = cancelled_wakeup(&shared.tasks, "the user's message") {
                            let _ = agent.journal().append(&EngineEntry::ModelNote { text: note.clone() });
                            agent.conversation().notes.push(note);
                        }
                        keep_received(&mut agent, text);
                    }
                    // A retry goes on where the turn stood; a task's first call is the model's.
                    agent.conversation().turn_checkpoint = checkpoint(&mut agent, &shared, at, false).await;
                    shared.turns.last_failed.store(false, Ordering::SeqCst);
                    let outcome = turn(&mut agent, &shared, start).await;
                    agent.checkpoint_taken().await;
                    shared.turns.last_failed.store(
                        outcome.goes_on_with_retry(),
                        Ordering::SeqCst,
                    );
                    drop(_running);
                    let _ = done.send(outcome);
                }
                Some(Op::Preview { request, done }) => {
                    let _ = done.send(preview(&mut agent, &shared, request).await);
                }
                Some(Op::Restore { request, done }) => {
                    let _running = Running(&shared.turns.running);
                    let result = restore(&mut agent, &shared, request).await;
                    drop(_running);
                    let _ = done.send(result);
                }
                None => return,
            },
            event = wake => {
                let Some(event) = event else { continue };
                // The front end may have said it is leaving while this event was on its way.
                if shared.turns.automatic.load(Ordering::SeqCst) >= MAX_AUTOMATIC_TURNS {
                    continue;
                }
                if shared.turns.running.swap(true, Ordering::SeqCst) {
                    continue;
                }
                let _running = Running(&shared.turns.running);
                shared.turns.automatic.fetch_add(1, Ordering::SeqCst);
                let (reason, mut message) = wake_words(&event, &shared.tasks);
                let cause = match &event {
                    Event::TaskFinished { .. } => Some("a background task ending"),
                    Event::ChangesAsked { .. } => Some("your review of a running task's changes"),
                    Event::AgentReport { .. } => Some("an agent's report"),
                    Event::Wakeup { .. } => None,
                };
                if let Some(note) = cause.and_then(|c| cancelled_wakeup(&shared.tasks, c)) {
                    message = format!("{message}\n\n{note}");
                }
                // Before the model's message is logged: going back to this turn takes it away.
                let at = agent.journal().log.next_seq();
                // A wake-up may land a command's changes at once: its checkpoint comes first.
                agent.conversation().turn_checkpoint = checkpoint(&mut agent, &shared, at, true).await;
                let _ = agent.journal().append(&EngineEntry::WakeMessage {
                    text: message.clone(),
                });
                shared.turns.last_failed.store(false, Ordering::SeqCst);
                let outcome = turn(&mut agent, &shared, Start::Wake(reason, message)).await;
                agent.checkpoint_taken().await;
                shared.turns.last_failed.store(
                    outcome.goes_on_with_retry(),
                    Ordering::SeqCst,
                );
            }
            () = shared.closed.cancelled() => return,
        }
    }
}

/// Opens the session's checkpoints (finishing a restore a crash cut short), or says why not.
#[allow(clippy::type_complexity)]
fn open_checkpoints(
    opts: &SessionOptions,
    id: &str,
) -> Result<(Arc<Checkpoints>, Option<checkpoints::Restored>), String> {
    let dir = crate::history::restore::checkpoints_dir(&opts.sessions_dir.join(id));
    match Checkpoints::open(&dir, opts.root.path()) {
        Ok((cps, recovered)) => Ok((Arc::new(cps), recovered)),
        Err(e) => {
            tracing::warn!(%e, session = id, "the session's checkpoints cannot be kept");
            Err(e.to_string())
        }
    }
}

/// Takes the checkpoint a turn begins at. A turn without one still runs; the user is told it
/// cannot be undone.
/// Logs the person's message as it arrives, durably (see `received_task`).
fn keep_received(agent: &mut Agent, text: &str) {
    let entry = EngineEntry::TaskReceived {
        text: text.to_string(),
    };
    let journal = agent.journal();
    if let Err(e) = journal.append(&entry).and_then(|()| journal.sync()) {
        tracing::warn!(%e, "the message could not be logged before the checkpoint");
    }
}

/// Takes the checkpoint a turn begins at; `seq` is where the turn begins in the log. A turn
/// whose first step cannot change the project (`wait` false) goes on while a slow one is still
/// taken; its calls that may change something wait for it.
async fn checkpoint(agent: &mut Agent, shared: &Shared, seq: u64, wait: bool) -> Option<u32> {
    let cps = shared.checkpoints.as_ref().ok()?.clone();
    match TurnCheckpoint::start(cps, seq, wait).await {
        Started::Taken(id) => Some(id),
        Started::Taking(pending) => {
            let id = pending.id();
            agent.checkpoint_pending(pending);
            Some(id)
        }
        Started::Failed(e) => {
            let _ = crate::history::turn_checkpoint::failed(agent.journal(), &e);
            None
        }
    }
}

fn session_checkpoints(shared: &Shared) -> Result<Arc<Checkpoints>, SessionError> {
    shared
        .checkpoints
        .clone()
        .map_err(|e| RestoreError::Unavailable(e).into())
}

/// Background work still running, by title: a restore stops it first.
fn running_tasks(shared: &Shared) -> Vec<String> {
    shared
        .tasks
        .list(false)
        .into_iter()
        .filter(|t| t.state.is_running())
        .map(|t| t.title)
        .collect()
}

async fn preview(
    agent: &mut Agent,
    shared: &Shared,
    request: RestoreRequest,
) -> Result<RestorePreview, SessionError> {
    let cps = session_checkpoints(shared)?;
    let entries = crate::history::log::read_session::<Value>(agent.journal().log.path())?.entries;
    let tasks = running_tasks(shared);
    tokio::task::spawn_blocking(move || {
        crate::history::restore::preview(&cps, &entries, &request, tasks)
    })
    .await
    .map_err(|e| SessionError::Task(e.to_string()))?
    .map_err(SessionError::from)
}

/// How long a restore waits for stopped background commands to end before writing files.
const TASKS_END_WAIT: Duration = Duration::from_secs(7);

async fn restore(
    agent: &mut Agent,
    shared: &Shared,
    request: RestoreRequest,
) -> Result<RestoreRecord, SessionError> {
    let cps = session_checkpoints(shared)?;
    // Nothing may write while files are put back.
    shared.kit.stop_named();
    shared.tasks.stop_all();
    let deadline = tokio::time::Instant::now() + TASKS_END_WAIT;
    while !running_tasks(shared).is_empty() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let journal = agent.journal();
    let entries = crate::history::log::read_session::<Value>(journal.log.path())?.entries;
    let seq = journal.log.next_seq();
    let scope = request.scope;
    let cps2 = cps.clone();
    let done = tokio::task::spawn_blocking(move || {
        crate::history::restore::restore_files(&cps2, &entries, &request, seq)
    })
    .await
    .map_err(|e| SessionError::Task(e.to_string()))??;
    let journal = agent.journal();
    for line in &done.lines {
        journal.log.append(line)?;
    }
    journal
        .emit(AgentEvent::Restored {
            record: done.record.clone(),
        })
        .map_err(|e| SessionError::Task(e.to_string()))?;
    journal.sync()?;
    if let Err(e) = cps.finish() {
        tracing::warn!(%e, "the restore's journal could not be removed");
    }
    if scope.conversation() {
        let entries =
            crate::history::log::read_session::<Value>(agent.journal().log.path())?.entries;
        let (messages, notes) =
            crate::history::replay::replay(&crate::history::rewind::effective(&entries));
        agent.rewound(messages, notes);
    } else if let Some(note) = done.note {
        agent.conversation().notes.push(note);
    }
    if scope.files() {
        agent.files_restored();
    }
    Ok(done.record)
}

/// Marks the session idle when a turn ends, however it ends (even by a panic in the engine,
/// which must not leave the session "already running" for good).
struct Running<'a>(&'a AtomicBool);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

enum Start {
    User(String),
    Retry,
    Wake(WakeReason, String),
}

async fn turn(agent: &mut Agent, shared: &Shared, start: Start) -> TurnOutcome {
    let cancel = CancellationToken::new();
    *shared.cancel.lock().unwrap_or_else(PoisonError::into_inner) = cancel.clone();
    let resolved = match agent.kit().map(|k| k.resolver.clone()) {
        // Finding a provider may ask the keychain: off the async threads.
        Some(resolver) => tokio::task::spawn_blocking(move || resolver("default"))
            .await
            .unwrap_or_else(|e| Err(engine_error(FailureCode::Internal, e.to_string()))),
        None => Err(config::no_provider()),
    };
    match resolved {
        Ok(r) => {
            // The model's own context, where it can say (a local server is asked quickly).
            let window = r.provider.context_window(&r.model).await;
            agent.use_model(r.provider, r.model, window);
        }
        Err(error) => {
            let outcome = TurnOutcome::Failed {
                error: error.clone(),
            };
            let _ = agent.journal().emit(AgentEvent::Error { error });
            let _ = agent.journal().emit(AgentEvent::TurnEnded {
                outcome: outcome.clone(),
            });
            return outcome;
        }
    }
    let outcome = match start {
        Start::User(text) => agent.run_turn(&text, &cancel).await,
        Start::Retry => agent.run_retry(&cancel).await,
        Start::Wake(reason, message) => agent.run_wake(reason, &message, &cancel).await,
    };
    shared.approvals.drop_all();
    outcome
}

/// Begins a session's log: its header, and what a search of sessions finds it by. Every new
/// session starts here, whether its engine runs at once ([`Session::create`]) or when the
/// window first sends it a message.
pub fn begin_session(
    sessions_dir: &Path,
    project: &Path,
    task: &str,
    model: &str,
) -> Result<(SessionLog, SessionHeader), SessionError> {
    let header = SessionHeader {
        id: config::locations::new_session_id(),
        project: project.display().to_string(),
        task: task.to_string(),
        model: model.to_string(),
        started_ms: config::locations::now_ms(),
    };
    let mut log = SessionLog::create(sessions_dir, &header)?;
    log.keep_search_text(&header.project, &header.task, &[]);
    Ok((log, header))
}

/// Whether a log's last turn ended failed, nothing after it: a reopened session offers Retry
/// only then.
fn ends_failed(entries: &[crate::history::log::Entry<Value>]) -> bool {
    entries
        .iter()
        .rev()
        .find_map(
            |e| match crate::history::entry::LogEntry::read(&e.event).event()? {
                AgentEvent::TurnEnded { outcome } => Some(outcome.goes_on_with_retry()),
                AgentEvent::UserMessage { .. } | AgentEvent::Wake { .. } => Some(false),
                _ => None,
            },
        )
        .unwrap_or(false)
}
