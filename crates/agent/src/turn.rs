//! One agent's turn loop: the model streams a reply; each tool call it makes is judged by the
//! policy engine, put to the user when the policy asks, run, and its result fed back — until the
//! model calls `task_done`, the user stops it, or a limit is hit. Every step is an
//! [`AgentEvent`] on the session's stream and a line in the agent's log.
//!
//! A [`crate::Session`] owns the session's agent and drives it; sub-agents are agents too, with
//! their own log and conversation, sharing the session's toolbox, rules and questions.

use crate::approvals::Approvals;
use crate::event_sink::EventSink;
use crate::failure::{FailureContext, failure_at};
use crate::loop_breaker::LoopBreaker;
use crate::session_log::{LogError, SessionLog};
use crate::subagents::Kit;
use llm::{LlmError, Provider};
use policy::{Mode, Policy};
use protocol::{
    AgentEvent, Confinement, ContentBlock, Message, Role, ToolOutcome, TurnOutcome, WakeReason,
};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::{Arc, PoisonError, RwLock};
use tokio_util::sync::CancellationToken;
use tools::Toolbox;

/// How long a turn waits for MCP servers that are still starting before its first request.
const MCP_START_WAIT: std::time::Duration = std::time::Duration::from_secs(15);

/// Replies in a row whose text calls could not run before the turn ends on them.
const MAX_LENIENT_RETRIES: u32 = 3;
/// Empty replies (no text, no call) answered with a nudge before the turn ends on one.
const MAX_EMPTY_NUDGES: u32 = 2;
/// What a model that replied with nothing hears. Models do this after a tool's result (a small
/// local one after an error; Anthropic documents it too), and "continue" is the known remedy.
const EMPTY_REPLY_NUDGE: &str = "Your reply was empty. Go on with the task: call the next tool, or task_done if the task is complete.";

#[derive(Debug, Clone)]
pub struct AgentConfig {
    pub model: String,
    pub max_steps: u32,
    pub max_tokens: u32,
    /// Overrides the rules' mode.
    pub mode: Option<Mode>,
    pub home: Option<PathBuf>,
    pub user_policy_file: Option<PathBuf>,
    /// Input plus output tokens one task may use; the task stops when it is spent.
    pub token_budget: Option<u64>,
    /// The model's context window in tokens. Nearing it (80 %), older turns are compacted into
    /// a summary written by the model, instead of failing.
    pub context_window: u32,
    /// The session's own folder: each file's content before the session first changed it is
    /// kept here, for the review of everything the session changed.
    pub session_dir: Option<PathBuf>,
    /// When the session started (ms since the epoch): a file last modified before that was
    /// not changed by it. Unset, no file is judged unchanged by its age.
    pub session_started_ms: Option<u64>,
    /// How deep this agent is: 0 for the session's own agent, 1 for its sub-agents…
    pub depth: u32,
    /// Sub-agents may start sub-agents down to this depth.
    pub max_depth: u32,
}

impl AgentConfig {
    pub fn new(model: impl Into<String>) -> Self {
        AgentConfig {
            model: model.into(),
            max_steps: 50,
            max_tokens: 8192,
            mode: None,
            home: None,
            user_policy_file: None,
            token_budget: None,
            context_window: 200_000,
            session_dir: None,
            session_started_ms: None,
            depth: 0,
            max_depth: 2,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The model called task_done.
    Done {
        summary: String,
    },
    /// The model stopped calling tools without task_done.
    Ended {
        text: String,
    },
    /// Paused for the user (a loop of identical calls).
    Paused {
        reason: String,
    },
    StepLimit,
    /// The task's token budget is spent.
    BudgetSpent {
        used: u64,
    },
    /// A spending limit stopped it before the next model call.
    LimitReached {
        reached: protocol::LimitReached,
    },
    Cancelled,
}

impl Outcome {
    pub fn to_turn_outcome(&self) -> TurnOutcome {
        match self {
            Outcome::Done { summary } => TurnOutcome::Done {
                summary: summary.clone(),
            },
            Outcome::Ended { .. } => TurnOutcome::Ended,
            Outcome::Paused { reason } => TurnOutcome::Paused {
                reason: reason.clone(),
            },
            Outcome::StepLimit => TurnOutcome::StepLimit,
            Outcome::BudgetSpent { used } => TurnOutcome::BudgetSpent { used: *used },
            Outcome::LimitReached { reached } => TurnOutcome::LimitReached { reached: *reached },
            Outcome::Cancelled => TurnOutcome::Cancelled,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("the model failed: {0}")]
    Model(#[from] LlmError),
    #[error(transparent)]
    Log(#[from] LogError),
    #[error("no model provider is set up; choose one in Settings")]
    NoProvider,
}

/// The mode a front end can change while a turn runs (the next call is judged in it). Unset,
/// the configured mode holds. Sub-agents share their parent's: never more permissive.
#[derive(Clone, Default)]
pub struct ModeSwitch(Arc<std::sync::Mutex<Option<Mode>>>);

impl ModeSwitch {
    pub fn set(&self, mode: Mode) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(mode);
    }

    pub fn get(&self) -> Option<Mode> {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The rules of a session, shared by its agents: a rule granted from one agent's question
/// holds for all of them.
pub type SharedPolicy = Arc<RwLock<Policy>>;

/// A file a tool brings for the model itself: a picture, or a PDF (its text is in the result
/// too, for models that cannot take the file).
pub(crate) struct Attachment {
    /// As the model named it: a path or a URL.
    pub path: String,
    pub media_type: String,
    /// Base64 of the file.
    pub data: String,
}

impl Attachment {
    pub(crate) fn is_pdf(&self) -> bool {
        self.media_type == "application/pdf"
    }
}

/// What one tool call came to.
pub(crate) struct ToolReply {
    pub text: String,
    pub is_error: bool,
    pub outcome: ToolOutcome,
    /// For commands that ran: where, and their exit code.
    pub confinement: Option<Confinement>,
    pub exit_code: Option<i32>,
    /// A file for the model itself (an image, a PDF) the tool read or fetched.
    pub attachment: Option<Attachment>,
    /// For a command that went on in the background: its task's id.
    pub task: Option<String>,
    /// What it came to, for people.
    pub summary: Option<protocol::ToolSummary>,
}

impl ToolReply {
    pub fn ok(text: String) -> Self {
        ToolReply {
            text,
            is_error: false,
            outcome: ToolOutcome::Ok,
            confinement: None,
            exit_code: None,
            attachment: None,
            task: None,
            summary: None,
        }
    }

    pub fn err(text: String) -> Self {
        ToolReply {
            text,
            is_error: true,
            outcome: ToolOutcome::Failed,
            confinement: None,
            exit_code: None,
            attachment: None,
            task: None,
            summary: None,
        }
    }

    /// For a call the person's stop cut short.
    pub fn stopped() -> Self {
        Self::err(
            "The user stopped the task before this call finished; it may not have run.".into(),
        )
        .with(ToolOutcome::Stopped)
    }

    pub fn with(mut self, outcome: ToolOutcome) -> Self {
        self.outcome = outcome;
        self
    }

    pub fn summed(mut self, summary: Option<protocol::ToolSummary>) -> Self {
        self.summary = summary;
        self
    }
}

/// Running totals of one agent, for the session's meter and a sub-agent's report.
#[derive(Debug, Clone, Copy, Default)]
pub struct AgentStats {
    pub steps: u32,
    pub tokens: u64,
    pub cost_usd: f64,
    /// False once any reply's price was unknown.
    pub priced: bool,
}

pub struct Agent {
    /// The model for the next request; the session finds it at the start of each turn.
    pub(crate) provider: Option<Provider>,
    pub(crate) toolbox: Arc<Toolbox>,
    pub(crate) policy: SharedPolicy,
    pub config: AgentConfig,
    pub(crate) log: SessionLog,
    pub(crate) events: EventSink,
    pub(crate) approvals: Approvals,
    pub messages: Vec<Message>,
    /// Circles of calls and of failing checks (see `loop_breaker`).
    pub(crate) breaker: LoopBreaker,
    pub(crate) prices: llm::PriceTable,
    pub(crate) mode_now: ModeSwitch,
    /// This agent's id and name when it is a sub-agent (its events and questions carry them).
    pub(crate) identity: Option<(String, String)>,
    /// What it needs to start sub-agents (absent in tests that do not use them).
    pub(crate) kit: Option<Arc<Kit>>,
    pub(crate) stats: AgentStats,
    /// A named agent's own instructions, after the system prompt.
    pub(crate) instructions: Option<String>,
    /// The system prompt as the first turn made it, kept for the session: a prompt that
    /// changed between turns (a file added at the top level) would make the provider's prompt
    /// cache — and a local server's, which re-reads thousands of tokens on a CPU — start over.
    pub(crate) base_prompt: Option<String>,
    /// Files this agent wrote or edited (a sub-agent reports them).
    pub(crate) changed_files: BTreeSet<String>,
    /// What a task_done's summary is checked against.
    pub(crate) record: crate::claims::WorkRecord,
    /// Words for the model before the next message it reads (after a restore).
    pub(crate) notes: Vec<String>,
    /// The checkpoint the next turn began at: its first event carries it.
    pub(crate) turn_checkpoint: Option<u32>,
    /// Skills and MCP servers the session may use.
    pub(crate) extensions: crate::extensions::Extensions,
    /// The skills active for the task at hand.
    pub(crate) active: crate::active_skills::ActiveSkills,
    /// What the session may spend, shared by its agents.
    pub(crate) spend: Arc<crate::spend::SpendMeter>,
    /// The person was told the conversation nears the context's limit (until it is compacted).
    pub(crate) context_warned: bool,
    /// The whole-file draft a small model is asked for at the next step.
    pub(crate) pending_draft: Option<crate::whole_file_draft::Draft>,
    /// What the task's drafts are made from (see `whole_file_draft`).
    pub(crate) draft_basis: Option<crate::whole_file_draft::DraftBasis>,
}

impl Agent {}

impl Agent {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        provider: Option<Provider>,
        toolbox: Arc<Toolbox>,
        policy: SharedPolicy,
        config: AgentConfig,
        log: SessionLog,
        events: EventSink,
        approvals: Approvals,
        mode_now: ModeSwitch,
    ) -> Self {
        Agent {
            provider,
            toolbox,
            policy,
            config,
            log,
            events,
            approvals,
            messages: Vec::new(),
            breaker: LoopBreaker::default(),
            prices: llm::PriceTable::default(),
            mode_now,
            identity: None,
            kit: None,
            stats: AgentStats {
                priced: true,
                ..AgentStats::default()
            },
            instructions: None,
            base_prompt: None,
            changed_files: BTreeSet::new(),
            record: crate::claims::WorkRecord::default(),
            notes: Vec::new(),
            turn_checkpoint: None,
            extensions: crate::extensions::Extensions::none(),
            active: crate::active_skills::ActiveSkills::default(),
            spend: Arc::default(),
            context_warned: false,
            pending_draft: None,
            draft_basis: None,
        }
    }

    /// An agent on its own, without a session or a model: for measuring the engine itself
    /// (the overhead benchmark). Front ends create a [`crate::Session`].
    pub fn standalone(
        toolbox: Toolbox,
        policy: Policy,
        config: AgentConfig,
        log: SessionLog,
        events: tokio::sync::mpsc::UnboundedSender<AgentEvent>,
    ) -> Self {
        Agent::new(
            None,
            Arc::new(toolbox),
            Arc::new(RwLock::new(policy)),
            config,
            log,
            EventSink::new(events),
            Approvals::default(),
            ModeSwitch::default(),
        )
    }

    /// The mode calls are judged in now.
    pub(crate) fn mode(&self) -> Mode {
        self.mode_now.get().or(self.config.mode).unwrap_or_else(|| {
            self.policy
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .mode
                .value
        })
    }

    /// A tool call's id as events and questions name it: a sub-agent's are prefixed with its
    /// own id, so they are unique in the session.
    pub(crate) fn event_id(&self, id: &str) -> String {
        match &self.identity {
            Some((agent, _)) => format!("{agent}:{id}"),
            None => id.to_string(),
        }
    }

    pub(crate) fn emit(&mut self, event: AgentEvent) -> Result<(), AgentError> {
        let logged = !matches!(
            event,
            AgentEvent::TextDelta { .. }
                | AgentEvent::ThinkingDelta { .. }
                | AgentEvent::ToolCallWriting { .. }
                | AgentEvent::PromptProgress { .. }
        );
        if logged {
            self.log.append(&event)?;
        }
        self.events.send(event);
        Ok(())
    }

    /// Runs one turn started by the user and says how it ended, in the event stream and the
    /// log. A model failure is an outcome here, not an error: the session stays usable.
    pub async fn run_turn(&mut self, task: &str, cancel: &CancellationToken) -> TurnOutcome {
        let result = self.run_task(task, cancel).await;
        self.end_turn(result)
    }

    /// Runs one turn that starts without the user: what the agent waited for happened, and the
    /// model is told so in `message`.
    pub async fn run_wake(
        &mut self,
        reason: WakeReason,
        message: &str,
        cancel: &CancellationToken,
    ) -> TurnOutcome {
        let result = async {
            let checkpoint = self.turn_checkpoint.take();
            self.emit(AgentEvent::Wake { reason, checkpoint })?;
            let text = crate::replay::with_notes(&mut self.notes, message);
            self.messages.push(Message::user_text(text));
            self.run_loop(cancel).await
        }
        .await;
        self.end_turn(result)
    }

    /// Tries a failed turn again from where the conversation stands (the user's message and
    /// any results are already in it), without a new message.
    pub async fn run_retry(&mut self, cancel: &CancellationToken) -> TurnOutcome {
        let result = async {
            let checkpoint = self.turn_checkpoint.take();
            self.emit(AgentEvent::Wake {
                reason: WakeReason::Retry,
                checkpoint,
            })?;
            let ends_with_reply = self.messages.last().is_some_and(|m| {
                m.role == Role::Assistant
                    && !m
                        .content
                        .iter()
                        .any(|b| matches!(b, ContentBlock::ToolUse { .. }))
            });
            if self.messages.is_empty() || ends_with_reply {
                let text = crate::replay::with_notes(&mut self.notes, "Please continue.");
                self.messages.push(Message::user_text(text));
            }
            self.run_loop(cancel).await
        }
        .await;
        self.end_turn(result)
    }

    /// The turn's end when a spending limit is reached, the log made durable.
    pub(crate) fn spending_stop(&mut self) -> Result<Option<Outcome>, AgentError> {
        let Err(reached) = self.spend.check() else {
            return Ok(None);
        };
        // The outcome carries it, typed: the window shows it as a card, the CLI in words.
        self.log.sync()?;
        Ok(Some(Outcome::LimitReached { reached }))
    }

    /// The server and model this agent talks to, for the words of a failure.
    pub(crate) fn failure_context(&self) -> FailureContext<'_> {
        FailureContext {
            server: self.provider.as_ref().map(|p| p.config().base_url.as_str()),
            model: Some(self.config.model.as_str()).filter(|m| !m.is_empty()),
        }
    }

    /// A reply's cost: the price table's, else nothing for a model on this computer (it is
    /// free, and saying "unknown" for it would show the same nothing two ways).
    pub(crate) fn cost_of(&self, usage: &protocol::Usage) -> Option<f64> {
        self.prices.cost(&self.config.model, usage).or_else(|| {
            self.provider
                .as_ref()
                .filter(|p| crate::is_loopback(&p.config().base_url))
                .map(|_| 0.0)
        })
    }

    fn end_turn(&mut self, result: Result<Outcome, AgentError>) -> TurnOutcome {
        // A repair draft planned as the turn ended belongs to it, not to the next turn.
        self.pending_draft = None;
        let outcome = match result {
            Ok(o) => o.to_turn_outcome(),
            Err(e) => TurnOutcome::Failed {
                error: failure_at(&e, self.failure_context()),
            },
        };
        let ended = AgentEvent::TurnEnded {
            outcome: outcome.clone(),
        };
        if let Err(e) = self.emit(ended.clone()).and_then(|()| Ok(self.log.sync()?)) {
            tracing::warn!(error = %e, "the end of the turn could not be logged");
            self.events.send(ended);
        }
        outcome
    }

    /// Runs one task to its end.
    pub async fn run_task(
        &mut self,
        task: &str,
        cancel: &CancellationToken,
    ) -> Result<Outcome, AgentError> {
        let text = crate::replay::with_notes(&mut self.notes, task);
        self.messages.push(Message::user_text(text));
        self.record.new_task(task);
        self.breaker.new_task();
        let checkpoint = self.turn_checkpoint.take();
        self.emit(AgentEvent::UserMessage {
            text: task.to_string(),
            checkpoint,
        })?;
        self.activate_for_task(task)?;
        let Some(read) = self.read_named_files(task, cancel).await? else {
            return Ok(Outcome::Cancelled);
        };
        self.plan_first_draft(task, read);
        self.run_loop(cancel).await
    }

    async fn run_loop(&mut self, cancel: &CancellationToken) -> Result<Outcome, AgentError> {
        let base = self.system_base();
        let may_spawn = self.config.depth < self.config.max_depth && self.kit.is_some();
        // Servers still starting get a moment, so the first request can offer their tools.
        if let Some(hub) = self.extensions.mcp.clone().filter(|h| h.starting()) {
            tokio::select! {
                () = hub.settle(MCP_START_WAIT) => {}
                () = cancel.cancelled() => {}
            }
        }
        let mut used_tokens: u64 = 0;
        let mut lenient_retries = 0;
        // A task_done that what happened contradicts is sent back once (see `done_pushback`).
        let mut done_pushbacks = 0;
        let mut empty_nudges = 0;
        for step in 1..=self.config.max_steps {
            if let Some(budget) = self.config.token_budget.filter(|b| used_tokens >= *b) {
                self.emit(AgentEvent::Notice {
                    text: format!("the task's token budget ({budget}) is spent"),
                })?;
                self.log.sync()?;
                return Ok(Outcome::BudgetSpent { used: used_tokens });
            }
            if let Some(stop) = self.spending_stop()? {
                return Ok(stop);
            }
            self.emit(AgentEvent::StepStarted { step })?;
            // Skills activated and servers started since the last step change both.
            let system = format!("{base}{}", self.skills_prompt());
            let tools = self.catalog(may_spawn);
            self.stats.steps += 1;
            if let Some(stop) = self.mind_the_context(&system, cancel).await? {
                return Ok(stop);
            }
            let draft = self.pending_draft.take();
            let req = self.step_request(&system, tools, draft.as_ref());
            let Some((resp, tokens)) = self.ask_model(&req, draft.as_ref(), step, cancel).await?
            else {
                return Ok(Outcome::Cancelled);
            };
            used_tokens += tokens;

            let calls: Vec<(String, String, Value)> = resp
                .message
                .content
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::ToolUse { id, name, input } => {
                        Some((id.clone(), name.clone(), input.clone()))
                    }
                    _ => None,
                })
                .collect();
            let lenient_note = resp.lenient.as_ref().and_then(|l| l.note());
            if calls.is_empty() && draft.is_some() {
                // A draft that changed nothing: the task goes on with the tools.
                self.log.sync()?;
                continue;
            }
            if calls.is_empty() {
                // A small model wrote calls as text and none of them could run: it hears why
                // and tries again, a few times, instead of the turn ending on it.
                if let Some(note) = lenient_note.filter(|_| lenient_retries < MAX_LENIENT_RETRIES) {
                    lenient_retries += 1;
                    self.messages.push(Message::user_text(note));
                    self.log.sync()?;
                    continue;
                }
                if resp.message.is_blank() && empty_nudges < MAX_EMPTY_NUDGES {
                    empty_nudges += 1;
                    self.messages
                        .push(Message::user_text(EMPTY_REPLY_NUDGE.to_string()));
                    self.log.sync()?;
                    continue;
                }
                self.log.sync()?;
                return Ok(Outcome::Ended {
                    text: resp.message.text(),
                });
            }
            if let Some(o) = self
                .run_calls(&resp, calls, &mut done_pushbacks, cancel)
                .await?
            {
                return Ok(o);
            }
        }
        Ok(Outcome::StepLimit)
    }

    /// One tool call through the engine — policy, approval, execution, events and log — as
    /// the loop does it; returns the result text and whether it is an error. `None` when the
    /// task must stop. For the overhead benchmark.
    pub async fn handle_tool_call(
        &mut self,
        id: &str,
        name: &str,
        input: &Value,
        cancel: &CancellationToken,
    ) -> Result<Option<(String, bool)>, AgentError> {
        self.emit(AgentEvent::ToolCallProposed {
            id: self.event_id(id),
            name: name.to_string(),
            input: input.clone(),
        })?;
        let Some(reply) = self.judge_and_run(id, name, input, cancel).await? else {
            return Ok(None);
        };
        self.report_finished(id.to_string(), self.event_id(id), name, &reply)?;
        Ok(Some((reply.text, reply.is_error)))
    }

    /// Tells people a call has ended (the event, logged) and gives its result for the model.
    pub(crate) fn report_finished(
        &mut self,
        id: String,
        shown_id: String,
        name: &str,
        reply: &ToolReply,
    ) -> Result<ContentBlock, AgentError> {
        self.emit(AgentEvent::ToolFinished {
            id: shown_id,
            name: name.to_string(),
            output: reply.text.clone(),
            is_error: reply.is_error,
            outcome: Some(reply.outcome),
            confinement: reply.confinement,
            exit_code: reply.exit_code,
            task: reply.task.clone(),
            summary: reply.summary.clone(),
        })?;
        Ok(ContentBlock::ToolResult {
            tool_use_id: id,
            content: reply.text.clone(),
            is_error: reply.is_error,
        })
    }
}

/// A project file's text, for a step back or a widened edit; nothing for a path outside the
/// project or a file too big to show a function of.
pub(crate) fn read_project_text(root: &tools::ProjectRoot, path: &str) -> Option<String> {
    const LARGEST: u64 = 1 << 20;
    let real = root.resolve(path).ok()?.real;
    if std::fs::metadata(&real).ok()?.len() > LARGEST {
        return None;
    }
    std::fs::read_to_string(real).ok()
}

/// What a task_done is told when what happened contradicts it: each point in words, and the
/// two ways on (fix it, or finish anyway saying why).
pub(crate) fn done_pushback(warnings: &[protocol::DoneWarning], may_stop: bool) -> String {
    use protocol::DoneWarning;
    let mut text = String::from("Not finished yet, because of what happened in this task:\n");
    for w in warnings {
        let line = match w {
            DoneWarning::EditRejected { path } => format!(
                "- The user rejected your edit to {path}: it is unchanged. Do not report it as changed."
            ),
            DoneWarning::FileUnchanged { path } => format!(
                "- {path} was not changed in this task. Change it if the task needs it, or do not list it in files_changed."
            ),
            DoneWarning::CheckFailed {
                command,
                exit_code: Some(code),
            } => format!(
                "- Your last check `{command}` failed with exit code {code}. Fix the cause (read its output above) and run it again."
            ),
            DoneWarning::CheckFailed {
                command,
                exit_code: None,
            } => format!(
                "- Your last check `{command}` was killed before it ended. Fix the cause or run a quicker check."
            ),
            DoneWarning::CheckNotRun { command } => format!(
                "- The task asks for `{command}`, and it has not run since your last change. Run it (run_command) and read what it reports."
            ),
        };
        text.push_str(&line);
        text.push('\n');
    }
    text.push_str(if may_stop {
        "Then call task_done again. If it cannot be done, call task_done again with a summary that says so and why."
    } else {
        "Then call task_done again."
    });
    text
}

/// The seed's heartbeat, at the model's next stop: background tasks that printed something new
/// since it last saw their output, each flagged once per burst. `None` when there are none.
pub(crate) fn heartbeat(tasks: &tools::TaskRegistry) -> Option<String> {
    let fresh = tasks.new_output();
    if fresh.is_empty() {
        return None;
    }
    let listed: Vec<String> = fresh
        .iter()
        .map(|(t, bytes)| format!("{} ({}, {bytes} new bytes)", t.id, t.title))
        .collect();
    Some(format!(
        "[Tandem] Background tasks printed new output: {}. task_poll reads it; there is no need to wait for them, their results arrive by themselves when they end.",
        listed.join(", ")
    ))
}
