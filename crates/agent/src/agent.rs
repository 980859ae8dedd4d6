//! One agent: its turn loop. The model streams a reply; each tool call it makes goes through
//! the agent's calls (judged by the policy engine, put to the person when the policy asks, run)
//! and its result is fed back — until the model calls `task_done`, the person stops it, or a
//! limit is hit. Every step is an [`AgentEvent`] on the session's stream and a line in the
//! agent's log.
//!
//! The agent is made of owned parts — its journal (log and events), its conversation, its
//! model, its calls, its skills and a small model's drafts — and composes them here; none of
//! them knows the agent. A [`crate::Session`] owns the session's agent and drives it;
//! sub-agents are agents too, with their own journal and conversation, sharing the session's
//! toolbox, rules and questions.

use crate::assist::whole_file_draft::{Drafts, Retry};
use crate::call::approvals::Approvals;
use crate::call::calls::{Asked, Called, Caller, Calls, SessionFiles};
use crate::call::reply::{Halt, Reply};
use crate::call::round::{Reader, Round, report_finished};
use crate::call::rules::{ModeSwitch, Rules, SharedPolicy};
use crate::call::skills::Skills;
use crate::event_sink::EventSink;
use crate::failure::failure_at;
use crate::history::log::SessionLog;
use crate::history::turn_checkpoint::TurnCheckpoint;
use crate::journal::{Identity, Journal};
use crate::outcome::{AgentError, AgentStats, Outcome};
use crate::spend::SpendMeter;
use crate::turn::conversation::Conversation;
use crate::turn::model::Model;
use crate::turn::subagents::{
    self, BoxFuture, CHILD_MAX_STEPS, CHILD_TOKEN_BUDGET, ChildPlan, Kit, Parent, Worker,
};
use config::Extensions;
use llm::{ChatResponse, LlmError, Provider};
use policy::{Mode, Policy};
use protocol::{AgentEvent, ContentBlock, Message, Role, TurnOutcome, WakeReason};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use tokio_util::sync::CancellationToken;
use tools::{EngineCall, Toolbox};

/// How long a turn waits for MCP servers that are still starting before its first request.
const MCP_START_WAIT: std::time::Duration = std::time::Duration::from_secs(15);
/// Replies in a row whose text calls could not run before the turn ends on them.
const MAX_LENIENT_RETRIES: u32 = 3;
/// Empty replies (no text, no call) answered with a nudge before the turn ends on one.
const MAX_EMPTY_NUDGES: u32 = 2;
/// What a model that replied with nothing hears. Models do this after a tool's result (a small
/// local one after an error; Anthropic documents it too), and "continue" is the known remedy.
const EMPTY_REPLY_NUDGE: &str = "Your reply was empty. Go on with the task: call the next tool, or task_done if the task is complete.";

/// What a front end sets of an agent.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    pub model: String,
    pub max_steps: u32,
    pub max_tokens: u32,
    /// Overrides the rules' mode.
    pub mode: Option<Mode>,
    /// Input plus output tokens one task may use; the task stops when it is spent.
    pub token_budget: Option<u64>,
    /// The model's context window in tokens. Nearing it (80 %), older turns are compacted into
    /// a summary written by the model, instead of failing.
    pub context_window: u32,
    pub home: Option<PathBuf>,
    pub user_policy_file: Option<PathBuf>,
    /// Sub-agents may start sub-agents down to this depth.
    pub max_depth: u32,
    /// In Ask mode, ask before every command instead of reviewing what it changed.
    pub ask_before_commands: bool,
}

impl AgentConfig {
    pub fn new(model: impl Into<String>) -> Self {
        AgentConfig {
            model: model.into(),
            max_steps: 50,
            max_tokens: 8192,
            mode: None,
            token_budget: None,
            context_window: 200_000,
            home: None,
            user_policy_file: None,
            max_depth: 2,
            ask_before_commands: false,
        }
    }
}

/// What an agent shares with the session and its other agents.
pub(crate) struct Shared {
    pub toolbox: Arc<Toolbox>,
    pub policy: SharedPolicy,
    pub approvals: Approvals,
    pub mode: ModeSwitch,
    pub spend: Arc<SpendMeter>,
    pub session: SessionFiles,
}

pub struct Agent {
    config: AgentConfig,
    /// How deep it is: 0 for the session's own agent, 1 for its sub-agents…
    depth: u32,
    journal: Journal,
    conversation: Conversation,
    model: Model,
    calls: Calls,
    skills: Skills,
    /// A small model's whole-file drafts.
    drafts: Drafts,
    /// Whether the task asks for work (not a question): then each of a small model's steps
    /// must be a call — it ends with task_done — and its replies are held to one.
    work_task: bool,
    /// What it needs to start sub-agents (absent in tests that do not use them).
    kit: Option<Arc<Kit>>,
}

impl Agent {
    /// The session's own agent.
    pub(crate) fn new(
        shared: Shared,
        config: AgentConfig,
        log: SessionLog,
        events: EventSink,
        (messages, notes): (Vec<Message>, Vec<String>),
        extensions: Extensions,
        kit: Option<Arc<Kit>>,
    ) -> Self {
        Agent::made(
            shared,
            config,
            Journal::new(log, events, None),
            Conversation::new(messages, notes, None),
            Skills::new(extensions),
            kit,
            0,
        )
    }

    fn made(
        shared: Shared,
        config: AgentConfig,
        journal: Journal,
        conversation: Conversation,
        skills: Skills,
        kit: Option<Arc<Kit>>,
        depth: u32,
    ) -> Self {
        let rules = Rules {
            policy: shared.policy,
            mode_now: shared.mode,
            mode: config.mode,
            home: config.home.clone(),
            user_policy_file: config.user_policy_file.clone(),
            ask_before_commands: config.ask_before_commands,
        };
        Agent {
            model: Model::new(None, config.model.clone(), shared.spend),
            calls: Calls {
                toolbox: shared.toolbox,
                rules,
                approvals: shared.approvals,
                record: Default::default(),
                changed_files: Default::default(),
                breaker: Default::default(),
                session: shared.session,
                checkpoint: None,
            },
            config,
            depth,
            journal,
            conversation,
            skills,
            drafts: Drafts::default(),
            work_task: false,
            kit,
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
        let shared = Shared {
            toolbox: Arc::new(toolbox),
            policy: Arc::new(RwLock::new(policy)),
            approvals: Approvals::default(),
            mode: ModeSwitch::default(),
            spend: Arc::default(),
            session: SessionFiles::default(),
        };
        Agent::new(
            shared,
            config,
            log,
            EventSink::new(events),
            (Vec::new(), Vec::new()),
            Extensions::none(),
            None,
        )
    }

    /// The model for the next request (the session finds it at the start of each turn).
    pub(crate) fn use_model(&mut self, provider: Provider, name: String, window: Option<u32>) {
        self.model.set(provider, name, window);
    }

    pub(crate) fn journal(&mut self) -> &mut Journal {
        &mut self.journal
    }

    /// The turn's checkpoint is still being taken: calls that may change the project wait for
    /// it, and so does the turn's end.
    pub(crate) fn checkpoint_pending(&mut self, pending: TurnCheckpoint) {
        self.calls.checkpoint = Some(pending);
    }

    /// Waits for the turn's checkpoint, when it is still being taken.
    pub(crate) async fn checkpoint_taken(&mut self) {
        if let Err(e) = self.calls.checkpoint_taken(&mut self.journal).await {
            tracing::warn!(%e, "the checkpoint's end could not be logged");
        }
    }

    pub(crate) fn conversation(&mut self) -> &mut Conversation {
        &mut self.conversation
    }

    pub(crate) fn kit(&self) -> Option<&Arc<Kit>> {
        self.kit.as_ref()
    }

    /// The conversation as a restore left it: what was said since is gone, and with it the
    /// calls the loop breaker remembers.
    pub(crate) fn rewound(&mut self, messages: Vec<Message>, notes: Vec<String>) {
        self.conversation.messages = messages;
        self.conversation.notes = notes;
        self.calls.breaker.forget_calls();
    }

    /// The project's files were put back: nothing read before may be reused.
    pub(crate) fn files_restored(&mut self) {
        self.calls.toolbox.cache.clear();
    }

    /// Runs one turn started by the user and says how it ended, in the event stream and the
    /// log. A model failure is an outcome here, not an error: the session stays usable.
    pub async fn run_turn(&mut self, task: &str, cancel: &CancellationToken) -> TurnOutcome {
        let mut result = self.run_task(task, cancel).await;
        if result.is_ok()
            && let Err(e) = self.review_left_waiting(cancel).await
        {
            result = Err(e);
        }
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
            let checkpoint = self.conversation.turn_checkpoint.take();
            let task = match &reason {
                WakeReason::TaskFinished { task, title, .. } => {
                    Some((task.clone(), title.clone(), false))
                }
                WakeReason::ChangesAsked { task, title } => {
                    Some((task.clone(), title.clone(), true))
                }
                _ => None,
            };
            self.journal.emit(AgentEvent::Wake { reason, checkpoint })?;
            // A wake-up is new work: the calls of earlier turns are no circle of this one.
            self.calls.breaker.new_task();
            let mut message = message.to_string();
            // A command that ended in the background left its changes waiting (or the person
            // asked about one still running): the person says what lands before the model
            // hears of it.
            if let Some((task, title, running)) = task {
                let reviewed = if running {
                    self.calls
                        .review_running(&mut self.journal, &task, &title, cancel)
                        .await
                } else {
                    self.calls
                        .review_waiting(&mut self.journal, &task, &title, cancel)
                        .await
                };
                match reviewed {
                    Ok(Some(words)) => message.push_str(&words),
                    Ok(None) => {}
                    Err(Halt::Stop) => return Ok(Outcome::Cancelled),
                    Err(Halt::Fatal(e)) => return Err(e),
                }
            }
            self.conversation.say(&message);
            let outcome = self.run_loop(cancel).await?;
            self.review_left_waiting(cancel).await?;
            Ok(outcome)
        }
        .await;
        self.end_turn(result)
    }

    /// Tries a failed turn again from where the conversation stands (the user's message and
    /// any results are already in it), without a new message.
    pub async fn run_retry(&mut self, cancel: &CancellationToken) -> TurnOutcome {
        let result = async {
            let checkpoint = self.conversation.turn_checkpoint.take();
            self.journal.emit(AgentEvent::Wake {
                reason: WakeReason::Retry,
                checkpoint,
            })?;
            if self.conversation.messages.is_empty() || self.conversation.ends_with_reply() {
                self.conversation.say("Please continue.");
            }
            self.run_loop(cancel).await
        }
        .await;
        self.end_turn(result)
    }

    /// Changes background commands left waiting that no wake-up reviewed (the model read
    /// their end with task_poll, or they ended during the turn): put to the person before the
    /// turn ends, and what became of them kept for the model's next request.
    async fn review_left_waiting(&mut self, cancel: &CancellationToken) -> Result<(), AgentError> {
        for task in self.calls.toolbox.tasks.held_ids() {
            let title = self
                .calls
                .toolbox
                .tasks
                .list(true)
                .into_iter()
                .find(|t| t.id == task)
                .map(|t| t.title)
                .unwrap_or_default();
            match self
                .calls
                .review_waiting(&mut self.journal, &task, &title, cancel)
                .await
            {
                Ok(Some(words)) => {
                    let note =
                        format!("[Tandem] Background task {task} ({title}) ended earlier.{words}");
                    self.journal
                        .append(&crate::log_entry::EngineEntry::ModelNote { text: note.clone() })?;
                    self.conversation.notes.push(note);
                }
                Ok(None) => {}
                Err(Halt::Stop) => return Ok(()),
                Err(Halt::Fatal(e)) => return Err(e),
            }
        }
        Ok(())
    }

    /// Reviews the person asked for, of running background commands' changes, while a turn
    /// goes on: done at the start of a step, and the model told in a note.
    async fn review_asked(
        &mut self,
        cancel: &CancellationToken,
    ) -> Result<Option<Outcome>, AgentError> {
        for (task, title) in self.calls.toolbox.tasks.take_asked() {
            match self
                .calls
                .review_running(&mut self.journal, &task, &title, cancel)
                .await
            {
                Ok(Some(words)) => {
                    let note = format!(
                        "[Tandem] The person reviewed what background task {task} ({title}) changed so far; it goes on running.{words}"
                    );
                    self.journal
                        .append(&crate::log_entry::EngineEntry::ModelNote { text: note.clone() })?;
                    self.conversation.notes.push(note);
                }
                Ok(None) => {}
                Err(Halt::Stop) => return Ok(Some(Outcome::Cancelled)),
                Err(Halt::Fatal(e)) => return Err(e),
            }
        }
        Ok(None)
    }

    fn end_turn(&mut self, result: Result<Outcome, AgentError>) -> TurnOutcome {
        self.drafts.drop_pending();
        // A call reserved and never made (the turn stopped before it) gives its room back.
        self.model.call_ended();
        let outcome = match result {
            Ok(o) => o.to_turn_outcome(),
            Err(e) => TurnOutcome::Failed {
                error: failure_at(&e, self.model.failure_context()),
            },
        };
        let ended = AgentEvent::TurnEnded {
            outcome: outcome.clone(),
        };
        let logged = self
            .journal
            .emit(ended.clone())
            .and_then(|()| self.journal.sync());
        if let Err(e) = logged {
            tracing::warn!(error = %e, "the end of the turn could not be logged");
            self.journal.send(ended);
        }
        outcome
    }

    /// Runs one task to its end.
    pub async fn run_task(
        &mut self,
        task: &str,
        cancel: &CancellationToken,
    ) -> Result<Outcome, AgentError> {
        self.conversation.say(task);
        self.calls.record.new_task(task);
        self.calls.breaker.new_task();
        let checkpoint = self.conversation.turn_checkpoint.take();
        self.journal.emit(AgentEvent::UserMessage {
            text: task.to_string(),
            checkpoint,
        })?;
        self.skills.activate_for_task(task, &mut self.journal)?;
        let Some(read) = self.read_named_files(task, cancel).await? else {
            return Ok(Outcome::Cancelled);
        };
        let may_write = crate::call::round::may_write(&self.calls);
        self.work_task = crate::assist::whole_file_draft::asks_for_change(task);
        self.drafts.plan_first(
            task,
            read,
            self.calls.toolbox.ws.root(),
            self.model.is_small(),
            may_write,
        );
        self.run_loop(cancel).await
    }

    async fn run_loop(&mut self, cancel: &CancellationToken) -> Result<Outcome, AgentError> {
        let base = self.conversation.system_base(
            self.calls.toolbox.ws.root(),
            self.calls.toolbox.commands.sandbox.is_some(),
            self.model.is_small(),
        );
        let may_spawn = self.depth < self.config.max_depth && self.kit.is_some();
        // Servers still starting get a moment, so the first request can offer their tools.
        if let Some(hub) = self.skills.starting_servers() {
            tokio::select! {
                () = hub.settle(MCP_START_WAIT) => {}
                () = cancel.cancelled() => {}
            }
        }
        let mut used_tokens: u64 = 0;
        let mut lenient_retries = 0;
        // A task_done that what happened contradicts is sent back once (see `round`).
        let mut done_pushbacks = 0;
        let mut empty_nudges = 0;
        for step in 1..=self.config.max_steps {
            if let Some(budget) = self.config.token_budget.filter(|b| used_tokens >= *b) {
                self.journal.emit(AgentEvent::Notice {
                    text: format!("the task's token budget ({budget}) is spent"),
                })?;
                self.journal.sync()?;
                return Ok(Outcome::BudgetSpent { used: used_tokens });
            }
            let prompt = crate::turn::prompt::estimate_tokens(&self.conversation.messages);
            if let Some(stop) = self.model.spending_stop(&mut self.journal.log, prompt)? {
                return Ok(stop);
            }
            self.journal.emit(AgentEvent::StepStarted { step })?;
            if let Some(stop) = self.review_asked(cancel).await? {
                return Ok(stop);
            }
            // Skills activated and servers started since the last step change both.
            let system = format!("{base}{}", self.skills.prompt());
            let tools = {
                let (rules, toolbox) = (&self.calls.rules, &self.calls.toolbox);
                let unavailable = |n: &str| rules.unavailable(toolbox, n).is_some();
                self.skills
                    .catalog(may_spawn, self.model.is_small(), &unavailable)
            };
            self.model.step_taken();
            if let Some(stop) = self
                .conversation
                .mind_the_context(
                    // The model's own context, never more than the agent's setting (its default
                    // is a hosted model's 200k; a test or a person may set less), less the
                    // reply's room.
                    crate::turn::compaction::prompt_room(
                        self.model.window().map_or(self.config.context_window, |w| {
                            w.min(self.config.context_window)
                        }),
                        self.config.max_tokens,
                    ),
                    crate::turn::prompt::estimate_fixed(&system, &tools),
                    &mut self.model,
                    &mut self.journal,
                    &system,
                    cancel,
                )
                .await?
            {
                return Ok(stop);
            }
            let Some((resp, tokens)) = self.reply(system, tools, step, cancel).await? else {
                return Ok(Outcome::Cancelled);
            };
            used_tokens += tokens;
            let drafted = resp.drafted;
            let miss = resp.miss;
            let resp = resp.response;
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
            if calls.is_empty() && drafted {
                // A draft that wrote nothing is asked again, told why, while retries remain;
                // then the task goes on with the tools, or pauses when it was a repair.
                let retry = miss.map(|m| self.drafts.plan_retry(m, self.calls.toolbox.ws.root()));
                self.journal.sync()?;
                if let Some(Retry::GiveUp { command, tries }) = retry {
                    return Ok(Outcome::Paused {
                        reason: Retry::reason(&command, tries),
                    });
                }
                // A first draft that gives the file back unchanged says nothing needs to
                // change; the check the task names says whether that is so. Failing, its
                // report brings the draft again; without it, the tools' edits circled
                // (py-word-count in make bench-agent).
                if retry == Some(Retry::WithTools)
                    && miss == Some(crate::assist::whole_file_draft::DraftMiss::Unchanged)
                    && let Some(o) = self
                        .check_the_draft(CheckAfter::Unchanged, &mut done_pushbacks, cancel)
                        .await?
                {
                    return Ok(o);
                }
                continue;
            }
            if calls.is_empty() {
                // A small model wrote calls as text and none of them could run: it hears why
                // and tries again, a few times, instead of the turn ending on it.
                if let Some(note) = lenient_note.filter(|_| lenient_retries < MAX_LENIENT_RETRIES) {
                    lenient_retries += 1;
                    self.conversation.messages.push(Message::user_text(note));
                    self.journal.sync()?;
                    continue;
                }
                if resp.message.is_blank() && empty_nudges < MAX_EMPTY_NUDGES {
                    empty_nudges += 1;
                    self.conversation
                        .messages
                        .push(Message::user_text(EMPTY_REPLY_NUDGE.to_string()));
                    self.journal.sync()?;
                    continue;
                }
                self.journal.sync()?;
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
            if drafted
                && let Some(o) = self
                    .check_the_draft(CheckAfter::Written, &mut done_pushbacks, cancel)
                    .await?
            {
                return Ok(o);
            }
        }
        Ok(Outcome::StepLimit)
    }

    /// One reply of the model, streamed as it is written, counted, logged, and kept in the
    /// conversation unless blank: to the conversation with the tools, or a small model's
    /// whole-file draft without them. The reply read as the calls it means, and the tokens it
    /// used; none when the person stopped it.
    async fn reply(
        &mut self,
        system: String,
        tools: Vec<protocol::ToolDefinition>,
        step: u32,
        cancel: &CancellationToken,
    ) -> Result<Option<(ModelReply, u64)>, AgentError> {
        let draft = self.drafts.take();
        let req = match &draft {
            Some(d) => {
                let mut req = self.model.request(
                    Some(d.system().to_string()),
                    d.messages(),
                    Vec::new(),
                    self.config.max_tokens,
                );
                // The example is the same in every draft: kept with the system message, a
                // new session's first draft reads only the files and the task.
                req.fixed_messages = crate::assist::whole_file_draft::EXAMPLE_MESSAGES;
                req.temperature = d.temperature();
                req
            }
            None => {
                let mut req = self.model.request(
                    Some(system),
                    self.conversation.messages.clone(),
                    tools,
                    self.config.max_tokens,
                );
                // Where the agent needs a call, a small model is held to one: it answered in
                // prose instead (5 of its 6 misses on the Berkeley function-calling suite).
                req.call_required = self.model.is_small() && self.work_task;
                req
            }
        };
        let streamed = self
            .model
            .stream(&req, draft.is_some(), self.journal.sink(), cancel)
            .await;
        let mut miss = None;
        let resp = match streamed {
            Ok(r) => match &draft {
                Some(d) => {
                    let (r, m) = d.read(r, step);
                    miss = m;
                    r
                }
                None if self.model.is_small() => {
                    crate::assist::file_blocks::as_write_call(r, step, self.calls.toolbox.ws.root())
                }
                None => r,
            },
            Err(AgentError::Model(LlmError::Cancelled)) => {
                self.model.call_ended();
                self.journal.sync()?;
                return Ok(None);
            }
            Err(e) => {
                self.model.call_ended();
                let error = failure_at(&e, self.model.failure_context());
                self.journal.emit(AgentEvent::Error { error })?;
                self.journal.sync()?;
                return Err(e);
            }
        };
        let mut resp = resp;
        // Megabytes of text (a broken server) are kept cut, here as in the log and the next
        // request; the whole of it is saved beside the command outputs.
        crate::turn::reply_cap::fit(
            &mut resp.message,
            &self.calls.toolbox.commands.output_dir,
            config::locations::now_ms(),
        );
        let (cost_usd, tokens) = self.model.count(&resp.usage);
        self.journal.emit(AgentEvent::Usage {
            usage: resp.usage,
            cost_usd,
        })?;
        self.journal.emit(AgentEvent::AssistantMessage {
            message: resp.message.clone(),
        })?;
        // A blank reply is logged (the transcript shows what happened) but not kept in the
        // conversation: providers refuse an empty assistant message in the next request.
        if !resp.message.is_blank() {
            self.conversation.messages.push(resp.message.clone());
        }
        Ok(Some((
            ModelReply {
                response: resp,
                drafted: draft.is_some(),
                miss,
            },
            tokens,
        )))
    }

    /// Runs the calls of `resp`, in order; what ends the task, if anything.
    async fn run_calls(
        &mut self,
        resp: &ChatResponse,
        calls: Vec<(String, String, Value)>,
        done_pushbacks: &mut u32,
        cancel: &CancellationToken,
    ) -> Result<Option<Outcome>, AgentError> {
        let mut round = Round::new(resp);
        let mut calls = calls.into_iter();
        while let Some((id, name, input)) = calls.next() {
            let malformed = resp.malformed_tool_calls.iter().find(|m| m.id == id);
            let asked = Asked {
                id: &id,
                name: &name,
                input: &input,
                malformed: malformed.map(|m| (m.error.as_str(), m.raw.as_str())),
            };
            let mut caller = Caller {
                journal: &mut self.journal,
                skills: &mut self.skills,
                small_model: self.model.is_small(),
            };
            let called = self.calls.call(&mut caller, &asked, cancel).await;
            let answered = match called {
                Ok((Called::Answered(reply), facts)) => Ok((reply, facts)),
                Ok((Called::Engine(engine), facts)) => self
                    .run_engine(engine, cancel)
                    .await
                    .map(|reply| (reply, facts)),
                Err(halt) => Err(halt),
            };
            let (reply, facts) = match answered {
                Ok(r) => r,
                Err(Halt::Fatal(e)) => return Err(e),
                Err(Halt::Stop) => {
                    let mut stopped = vec![(id, name)];
                    stopped.extend(calls.by_ref().map(|(i, n, _)| (i, n)));
                    round.stopped(&mut self.journal, stopped)?;
                    let (message, _, _) = round.end(None);
                    self.conversation.messages.push(message);
                    self.journal.sync()?;
                    return Ok(Some(Outcome::Cancelled));
                }
            };
            let reader = Reader {
                name: self.model.name(),
                small: self.model.is_small(),
                takes_images: self.model.takes(false),
                takes_documents: self.model.takes(true),
            };
            round.ended(
                &mut self.calls,
                &mut self.drafts,
                &mut self.journal,
                &reader,
                (id, &name),
                reply,
                facts,
                done_pushbacks,
            )?;
        }
        let (message, outcome, warnings) = round.end(Some(&self.calls.toolbox.tasks));
        self.conversation.messages.push(message);
        self.journal.sync()?;
        if let Some(Outcome::Done { summary }) = &outcome {
            self.journal.emit(AgentEvent::Done {
                summary: summary.clone(),
                warnings,
            })?;
            self.journal.sync()?;
        }
        Ok(outcome)
    }

    /// After a small model's draft landed, the check the task names runs at once as the
    /// agent's own call (see [`crate::assist::draft_check`]): failing, the next step is the
    /// draft again with what failed; passing, a task that ends with its check is done. Nothing
    /// runs when the draft wrote nothing (the person said no to its writes).
    async fn check_the_draft(
        &mut self,
        after: CheckAfter,
        done_pushbacks: &mut u32,
        cancel: &CancellationToken,
    ) -> Result<Option<Outcome>, AgentError> {
        let Some(check) = self.drafts.check().cloned() else {
            return Ok(None);
        };
        let due = match after {
            CheckAfter::Written => self.calls.record.written_since_check(),
            CheckAfter::Unchanged => self.calls.record.last_check().is_none(),
        };
        if !due {
            return Ok(None);
        }
        let id = format!("check_{}", self.conversation.messages.len());
        let input = json!({ "command": check.command });
        let message = Message {
            role: Role::Assistant,
            content: vec![ContentBlock::ToolUse {
                id: id.clone(),
                name: "run_command".into(),
                input: input.clone(),
            }],
        };
        self.journal.emit(AgentEvent::AssistantMessage {
            message: message.clone(),
        })?;
        self.conversation.messages.push(message.clone());
        let asked = ChatResponse {
            message,
            stop_reason: protocol::StopReason::ToolUse,
            usage: protocol::Usage::default(),
            malformed_tool_calls: Vec::new(),
            lenient: None,
            attempts: 0,
        };
        let calls = vec![(id, "run_command".to_string(), input)];
        if let Some(o) = self
            .run_calls(&asked, calls, done_pushbacks, cancel)
            .await?
        {
            return Ok(Some(o));
        }
        let record = &self.calls.record;
        let passed = record
            .last_check()
            .is_some_and(|c| c.passed && c.command == check.command)
            && !record.written_since_check();
        // Passing on a file the draft left as it was, the check ends nothing: the task
        // asked for a change, and the tools look further.
        if !passed || !check.ends_task || after == CheckAfter::Unchanged {
            return Ok(None);
        }
        let files = record.touched();
        let summary = check.summary(&files);
        let warnings = record.warnings(
            &crate::call::claims::Claim {
                summary: &summary,
                files: &files,
            },
            &crate::call::claims::Project {
                root: self.calls.toolbox.ws.root(),
                session_started_ms: self.calls.session.started_ms,
            },
        );
        self.journal.emit(AgentEvent::Done {
            summary: summary.clone(),
            warnings,
        })?;
        self.journal.sync()?;
        Ok(Some(Outcome::Done { summary }))
    }

    /// One of the engine's own calls: a sub-agent started or a named agent messaged.
    /// Boxed: a sub-agent's turn runs inside it, which may start sub-agents in turn.
    fn run_engine<'a>(
        &'a mut self,
        call: EngineCall,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<Reply, Halt>> {
        Box::pin(async move {
            let Some(kit) = self.kit.clone() else {
                return Ok(Reply::err(
                    "sub-agents are not available in this session".into(),
                ));
            };
            let make = self.child_maker(kit.clone());
            let parent = Parent {
                kit: &kit,
                journal: &mut self.journal,
                tasks: &self.calls.toolbox.tasks,
                project: self.calls.toolbox.ws.root().path(),
                model: self
                    .model
                    .provider()
                    .map(|p| (p.clone(), self.model.name().to_string())),
                deepest: (self.depth >= self.config.max_depth).then_some(self.config.max_depth),
            };
            let (reply, files) = subagents::run(parent, call, make, cancel).await?;
            self.calls.changed_files.extend(files);
            Ok(reply)
        })
    }

    /// Makes a child of this agent from its plan: its own journal and conversation, the rest
    /// shared, its limits its parent's or a sub-agent's, whichever is lower.
    fn child_maker(&self, kit: Arc<Kit>) -> impl FnOnce(ChildPlan) -> Agent + use<> {
        let shared = Shared {
            toolbox: self.calls.toolbox.clone(),
            policy: self.calls.rules.policy.clone(),
            approvals: self.calls.approvals.clone(),
            mode: self.calls.rules.mode_now.clone(),
            spend: self.model.spend().clone(),
            session: self.calls.session.clone(),
        };
        let mut config = self.config.clone();
        config.max_steps = CHILD_MAX_STEPS.min(self.config.max_steps);
        // The parent's model's context holds for a child on the same model.
        let parent = (self.model.name().to_string(), self.model.window());
        config.token_budget = Some(
            self.config
                .token_budget
                .map_or(CHILD_TOKEN_BUDGET, |b| b.min(CHILD_TOKEN_BUDGET)),
        );
        let events = self.journal.sink();
        let skills = self.skills.for_child();
        let depth = self.depth + 1;
        move |plan: ChildPlan| {
            config.model = plan.model.model.clone();
            let identity = Identity {
                id: plan.id.clone(),
                name: plan.name,
            };
            let journal = Journal::new(plan.log, events.nested(&plan.id), Some(identity));
            let mut child = Agent::made(
                shared,
                config,
                journal,
                Conversation::new(Vec::new(), Vec::new(), plan.instructions),
                skills,
                Some(kit),
                depth,
            );
            let window = parent.1.filter(|_| parent.0 == plan.model.model);
            child.use_model(plan.model.provider, plan.model.model, window);
            child
        }
    }

    /// Reads the files `task` attaches (and, for a small model, names) through `read_file`
    /// calls made for the model: the paths read. None when the person stopped the task
    /// meanwhile.
    async fn read_named_files(
        &mut self,
        task: &str,
        cancel: &CancellationToken,
    ) -> Result<Option<Vec<String>>, AgentError> {
        let small = self.model.is_small();
        let root = self.calls.toolbox.ws.root().path().to_path_buf();
        let paths = crate::assist::named_files::to_read_first(task, &root, small);
        if paths.is_empty() {
            return Ok(Some(paths));
        }
        let first = self.conversation.messages.len();
        let calls: Vec<(String, Value)> = paths
            .iter()
            .enumerate()
            .map(|(i, p)| (format!("named_{first}_{i}"), json!({ "path": p })))
            .collect();
        let message = Message {
            role: Role::Assistant,
            content: calls
                .iter()
                .map(|(id, input)| ContentBlock::ToolUse {
                    id: id.clone(),
                    name: "read_file".into(),
                    input: input.clone(),
                })
                .collect(),
        };
        self.journal.emit(AgentEvent::AssistantMessage {
            message: message.clone(),
        })?;
        self.conversation.messages.push(message);
        let mut results = Vec::new();
        let mut stopped = false;
        let mut read = Vec::new();
        for ((id, input), path) in calls.into_iter().zip(paths) {
            let reply = if stopped {
                Reply::stopped()
            } else {
                let asked = Asked {
                    id: &id,
                    name: "read_file",
                    input: &input,
                    malformed: None,
                };
                let mut caller = Caller {
                    journal: &mut self.journal,
                    skills: &mut self.skills,
                    small_model: small,
                };
                match self.calls.call_for_model(&mut caller, &asked, cancel).await {
                    Ok(reply) => reply,
                    Err(Halt::Fatal(e)) => return Err(e),
                    Err(Halt::Stop) => {
                        stopped = true;
                        Reply::stopped()
                    }
                }
            };
            if !reply.is_error {
                read.push(path);
            }
            let shown = self.journal.event_id(&id);
            results.push(report_finished(
                &mut self.journal,
                id,
                shown,
                "read_file",
                &reply,
            )?);
        }
        self.conversation.messages.push(Message {
            role: Role::User,
            content: results,
        });
        self.journal.sync()?;
        Ok((!stopped).then_some(read))
    }

    /// One tool call through the engine — shown, judged, asked about, run, reported — as the
    /// loop does it; the result text and whether it is an error. `None` when the task must
    /// stop. For the overhead benchmark.
    pub async fn handle_tool_call(
        &mut self,
        id: &str,
        name: &str,
        input: &Value,
        cancel: &CancellationToken,
    ) -> Result<Option<(String, bool)>, AgentError> {
        let asked = Asked {
            id,
            name,
            input,
            malformed: None,
        };
        let mut caller = Caller {
            journal: &mut self.journal,
            skills: &mut self.skills,
            small_model: self.model.is_small(),
        };
        let reply = match self.calls.call_for_model(&mut caller, &asked, cancel).await {
            Ok(reply) => reply,
            Err(Halt::Stop) => return Ok(None),
            Err(Halt::Fatal(e)) => return Err(e),
        };
        let shown = self.journal.event_id(id);
        report_finished(&mut self.journal, id.to_string(), shown, name, &reply)?;
        Ok(Some((reply.text, reply.is_error)))
    }

    /// Running totals, for the session's meter and a sub-agent's report.
    pub fn stats(&self) -> AgentStats {
        self.model.stats()
    }
}

/// A reply of the model, whether it was a small model's whole-file draft, and why such a
/// draft wrote nothing.
struct ModelReply {
    response: ChatResponse,
    drafted: bool,
    miss: Option<crate::assist::whole_file_draft::DraftMiss>,
}

impl Worker for Agent {
    fn work<'a>(
        &'a mut self,
        task: &'a str,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, TurnOutcome> {
        Box::pin(self.run_turn(task, cancel))
    }

    fn stats(&self) -> AgentStats {
        self.model.stats()
    }

    fn last_words(&self) -> String {
        self.conversation.last_words()
    }

    fn changed_files(&self) -> Vec<String> {
        self.calls.changed_files.iter().cloned().collect()
    }

    fn log_path(&self) -> PathBuf {
        self.journal.log.path().to_path_buf()
    }

    fn model(&self) -> String {
        self.model.name().to_string()
    }

    fn log(&mut self, event: &AgentEvent) {
        let _ = self.journal.append(event);
    }
}

/// What a small model's draft did before the check the task names runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CheckAfter {
    /// Its writes landed.
    Written,
    /// It gave the file back unchanged, and no check ran yet.
    Unchanged,
}
