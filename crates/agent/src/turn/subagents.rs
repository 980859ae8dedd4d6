//! Sub-agents: `spawn_subagent` runs a child to completion while its parent waits;
//! `agent_spawn` starts a named agent in the background, whose reports wake the session's
//! agent and whom `agent_send` talks to. Every child works under its parent's rules, mode,
//! sandbox and question queue (a question names the agent that asks), shares the session's
//! change counter, has a log of its own, and is bounded (depth, steps, tokens). A child never
//! has more permissions than its parent, and stopping the parent stops its children.
//!
//! The agent makes its children (a [`Worker`] each); this module knows them by what they do.

use crate::call::reply::{Halt, Reply};
use crate::history::log::{SessionHeader, SessionLog};
use crate::journal::Journal;
use crate::outcome::AgentStats;
use config::{ProviderResolver, ResolvedModel};
use llm::Provider;
use protocol::{AgentEvent, TurnOutcome};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tools::{
    AgentSendArgs, AgentSpawnArgs, EngineCall, SpawnSubagentArgs, TaskRegistry, TaskState,
};

/// A future a sub-agent's turn runs in: boxed, as a turn may start sub-agents in turn.
pub(crate) type BoxFuture<'a, T> =
    std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// What a sub-agent is to its parent: turns run to their end, and what it reports.
pub(crate) trait Worker: Send + 'static {
    fn work<'a>(
        &'a mut self,
        task: &'a str,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, TurnOutcome>;
    fn stats(&self) -> AgentStats;
    /// What its model said last.
    fn last_words(&self) -> String;
    fn changed_files(&self) -> Vec<String>;
    /// Its whole transcript.
    fn log_path(&self) -> PathBuf;
    /// The model it works with.
    fn model(&self) -> String;
    /// Keeps an event about it in its own log.
    fn log(&mut self, event: &AgentEvent);
}

/// A child about to be made: who it is, its model and log, and a named agent's instructions.
pub(crate) struct ChildPlan {
    pub id: String,
    pub name: String,
    pub model: ResolvedModel,
    pub log: SessionLog,
    pub instructions: Option<String>,
}

/// Steps and tokens a sub-agent may use (its parent's own limits are the session's).
pub(crate) const CHILD_MAX_STEPS: u32 = 30;
pub(crate) const CHILD_TOKEN_BUDGET: u64 = 400_000;

struct Named {
    task: String,
    inbox: mpsc::UnboundedSender<String>,
}

/// What a session gives its agents to start sub-agents: shared by all of them.
pub(crate) struct Kit {
    pub resolver: ProviderResolver,
    /// Where the sub-agents' logs and outputs go (`<session folder>/agents`).
    pub agents_dir: PathBuf,
    named: Mutex<HashMap<String, Named>>,
    next: AtomicU64,
    /// Cancelled when the session stops everything: named agents end with it.
    stop_all: Mutex<CancellationToken>,
}

impl Kit {
    pub(crate) fn new(resolver: ProviderResolver, agents_dir: PathBuf) -> Self {
        Kit {
            resolver,
            agents_dir,
            named: Mutex::new(HashMap::new()),
            next: AtomicU64::new(0),
            stop_all: Mutex::new(CancellationToken::new()),
        }
    }

    /// Stops every named agent (the session was stopped or closed); later ones start afresh.
    pub(crate) fn stop_named(&self) {
        let mut token = self.stop_all.lock().unwrap_or_else(PoisonError::into_inner);
        token.cancel();
        *token = CancellationToken::new();
    }

    fn named_token(&self) -> CancellationToken {
        self.stop_all
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .child_token()
    }

    fn names(&self) -> Vec<String> {
        kit_names(&self.named.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// The agent a call of the agent tools comes from.
pub(crate) struct Parent<'a> {
    pub kit: &'a Arc<Kit>,
    pub journal: &'a mut Journal,
    pub tasks: &'a TaskRegistry,
    pub project: &'a Path,
    /// Its own model: a child that names no role works with it.
    pub model: Option<(Provider, String)>,
    /// Whether it is as deep as sub-agents go, and how deep that is.
    pub deepest: Option<u32>,
}

/// What a call of an agent tool comes to: the reply, and the files the child changed.
pub(crate) type AgentReply = Result<(Reply, Vec<String>), Halt>;

/// Runs `spawn_subagent`, `agent_spawn` or `agent_send`; `make` makes a child from its plan.
pub(crate) async fn run<W: Worker>(
    parent: Parent<'_>,
    call: EngineCall,
    make: impl FnOnce(ChildPlan) -> W,
    cancel: &CancellationToken,
) -> AgentReply {
    if let Some(depth) = parent.deepest.filter(|_| call.spawns()) {
        return Ok((
            Reply::err(format!(
                "sub-agents go {depth} levels deep at most; do this part yourself"
            )),
            Vec::new(),
        ));
    }
    match call {
        EngineCall::SpawnSubagent(args) => spawn_subagent(parent, args, make, cancel).await,
        EngineCall::AgentSpawn(args) => agent_spawn(parent, args, make).await,
        EngineCall::AgentSend(args) => Ok((agent_send(parent.kit, &args), Vec::new())),
        EngineCall::SkillList | EngineCall::SkillActivate(_) => Ok((
            Reply::err("the skill tools are not the sub-agents'".into()),
            Vec::new(),
        )),
    }
}

/// What the parent learns when a sub-agent stops.
fn report_of(outcome: &TurnOutcome, last_text: &str) -> String {
    match outcome {
        TurnOutcome::Done { summary } => summary.clone(),
        TurnOutcome::Ended if !last_text.is_empty() => last_text.to_string(),
        TurnOutcome::Ended => "it stopped without a summary".into(),
        TurnOutcome::Paused { reason } => format!("it was paused: {reason}"),
        TurnOutcome::StepLimit => "it reached its step limit before finishing".into(),
        TurnOutcome::BudgetSpent { used } => {
            format!("it spent its token budget ({used} tokens) before finishing")
        }
        TurnOutcome::LimitReached { reached } => {
            format!(
                "it stopped before finishing: {}",
                crate::spend::limit_words(reached)
            )
        }
        TurnOutcome::Cancelled => "it was stopped before finishing".into(),
        TurnOutcome::Failed { error } => format!("it failed: {}", error.message),
    }
}

fn cost_text(stats: &AgentStats) -> String {
    if stats.priced {
        format!("{} tokens, ${:.4}", stats.tokens, stats.cost_usd)
    } else {
        format!("{} tokens", stats.tokens)
    }
}

/// The model a child works with: the settings' model for `role`, or with no role named, its
/// parent's own (the seed: a spawned agent inherits its parent's model).
async fn model_for(parent: &Parent<'_>, role: Option<&str>) -> Result<ResolvedModel, String> {
    if role.is_none()
        && let Some((provider, model)) = &parent.model
    {
        return Ok(ResolvedModel {
            provider: provider.clone(),
            model: model.clone(),
            fell_back: false,
        });
    }
    let resolver = parent.kit.resolver.clone();
    let wanted = role.unwrap_or("default").to_string();
    // Finding a provider may ask the keychain: off the async threads.
    tokio::task::spawn_blocking(move || resolver(&wanted))
        .await
        .map_err(|e| e.to_string())
        .and_then(|r| r.map_err(|e| e.message))
}

/// A child of the parent: its own conversation and log, everything else shared. Its id, and
/// whether its role fell back to the default model.
async fn child<W: Worker>(
    parent: &mut Parent<'_>,
    name: &str,
    task: &str,
    role: Option<&str>,
    background: bool,
    instructions: Option<String>,
    make: impl FnOnce(ChildPlan) -> W,
) -> Result<(W, String, bool), Reply> {
    let resolved = model_for(parent, role)
        .await
        .map_err(|why| Reply::err(format!("the sub-agent could not start: {why}")))?;
    let n = parent.kit.next.fetch_add(1, Ordering::Relaxed) + 1;
    let id = format!("a{n}");
    let header = SessionHeader {
        id: id.clone(),
        project: parent.project.display().to_string(),
        task: task.to_string(),
        model: resolved.model.clone(),
        started_ms: config::locations::now_ms(),
    };
    let log = SessionLog::create(&parent.kit.agents_dir, &header)
        .map_err(|e| Reply::err(format!("the sub-agent could not start: {e}")))?;
    let model = resolved.model.clone();
    let fell_back = resolved.fell_back;
    let child = make(ChildPlan {
        id: id.clone(),
        name: name.to_string(),
        model: resolved,
        log,
        instructions,
    });
    let started = AgentEvent::SubagentStarted {
        agent: id.clone(),
        name: name.to_string(),
        task: task.to_string(),
        background,
        model,
        parent: parent.journal.agent_id().map(str::to_string),
    };
    if let Err(e) = parent.journal.emit(started) {
        return Err(Reply::err(format!("the sub-agent could not start: {e}")));
    }
    Ok((child, id, fell_back))
}

async fn spawn_subagent<W: Worker>(
    mut parent: Parent<'_>,
    args: SpawnSubagentArgs,
    make: impl FnOnce(ChildPlan) -> W,
    cancel: &CancellationToken,
) -> AgentReply {
    let role = args.model_role.map(|r| r.name());
    let (mut child, id, fell_back) = match child(
        &mut parent,
        &args.title,
        &args.description,
        role,
        false,
        None,
        make,
    )
    .await
    {
        Ok(c) => c,
        Err(reply) => return Ok((reply, Vec::new())),
    };
    let child_cancel = cancel.child_token();
    // Listed as a task while it works, so the window's task list can stop it; its result
    // comes back here, so its end never wakes the agent a second time.
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let owner = parent.journal.agent_id().map(str::to_string);
    let tasks = parent.tasks.clone();
    let output = parent.kit.agents_dir.join(format!("{id}.txt"));
    let task = tasks.register("agent", &args.title, output.clone(), stop_tx, owner);
    let on_stop = child_cancel.clone();
    let stopper = tokio::spawn(async move {
        if stop_rx.await.is_ok() {
            on_stop.cancel();
        }
    });
    let outcome = child.work(&args.description, &child_cancel).await;
    stopper.abort();
    tasks.stop_owned(&id);
    let report = report_of(&outcome, &child.last_words());
    let _ = std::fs::write(&output, format!("{report}\n"));
    tasks.forget(&task);
    let stats = child.stats();
    let files = child.changed_files();
    parent.journal.emit(AgentEvent::SubagentEnded {
        agent: id.clone(),
        outcome: outcome.clone(),
        report: report.clone(),
        steps: stats.steps,
        tokens: stats.tokens,
        cost_usd: stats.priced.then_some(stats.cost_usd),
    })?;
    if cancel.is_cancelled() {
        return Err(Halt::Stop);
    }
    let mut text = format!(
        "Sub-agent {id} ({}) {}: {report}\nFiles it changed: {}\nIt used {} in {} steps ({}).\n",
        args.title,
        if matches!(outcome, TurnOutcome::Done { .. }) {
            "finished"
        } else {
            "stopped"
        },
        if files.is_empty() {
            "none".to_string()
        } else {
            files.join(", ")
        },
        cost_text(&stats),
        stats.steps,
        child.model(),
    );
    if let (true, Some(role)) = (fell_back, role) {
        text.push_str(&format!(
            "The role `{role}` has no model of its own in the settings, so it used the default one.\n"
        ));
    }
    text.push_str(&format!(
        "Its whole transcript is {}: read it with read_file if you need more than this report.\n",
        child.log_path().display()
    ));
    let failed = !matches!(outcome, TurnOutcome::Done { .. } | TurnOutcome::Ended);
    let summary = Some(protocol::ToolSummary::HelperReported {
        name: args.title.clone(),
        finished: !failed,
        files_changed: files.len() as u32,
    });
    let reply = if failed {
        Reply::err(text)
    } else {
        Reply::ok(text)
    }
    .summed(summary);
    Ok((reply, files))
}

async fn agent_spawn<W: Worker>(
    mut parent: Parent<'_>,
    args: AgentSpawnArgs,
    make: impl FnOnce(ChildPlan) -> W,
) -> AgentReply {
    let kit = parent.kit.clone();
    let name = unique_name(&kit, &args.name);
    let instructions = format!(
        "You are `{name}`, a named agent: {}.\n{}",
        args.desc, args.prompt
    );
    let first = args.task.clone();
    let (mut child, id, _) = match child(
        &mut parent,
        &name,
        first.as_deref().unwrap_or(&args.desc),
        None,
        true,
        Some(instructions),
        make,
    )
    .await
    {
        Ok(c) => c,
        Err(reply) => return Ok((reply, Vec::new())),
    };
    let output = kit.agents_dir.join(format!("{id}.txt"));
    let transcript = child.log_path().display().to_string();
    let (stop_tx, stop_rx) = oneshot::channel();
    let owner = parent.journal.agent_id().map(str::to_string);
    let tasks = parent.tasks.clone();
    let task = tasks.register("agent", &name, output.clone(), stop_tx, owner);
    let (inbox, messages) = mpsc::unbounded_channel();
    kit.named
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(
            name.clone(),
            Named {
                task: task.clone(),
                inbox,
            },
        );
    let cancel = kit.named_token();
    let parent_sink = parent.journal.sink();
    let kit2 = kit.clone();
    let name2 = name.clone();
    let task2 = task.clone();
    tokio::spawn(async move {
        let outcome = work(
            &mut child, first, messages, stop_rx, &cancel, &tasks, &task2, &output,
        )
        .await;
        tasks.stop_owned(&id);
        tasks.finish(&task2, TaskState::Stopped);
        kit2.named
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&name2);
        let stats = child.stats();
        let ended = AgentEvent::SubagentEnded {
            agent: id,
            outcome,
            report: "stopped".into(),
            steps: stats.steps,
            tokens: stats.tokens,
            cost_usd: stats.priced.then_some(stats.cost_usd),
        };
        child.log(&ended);
        parent_sink.send(ended);
    });
    let waiting = if args.task.is_some() {
        "It is working on its task"
    } else {
        "It waits for a message (agent_send)"
    };
    Ok((
        Reply::ok(format!(
            "Started the agent `{name}` as background task {task}. {waiting}; its report arrives when it stops. Message it with agent_send; stop it with task_stop. Its whole transcript is {transcript} (read_file reads it).\n"
        )),
        Vec::new(),
    ))
}

/// A named agent's life: a turn for its first task and for each message, a report after each,
/// until it is stopped.
#[allow(clippy::too_many_arguments)]
async fn work<W: Worker>(
    child: &mut W,
    first: Option<String>,
    mut messages: mpsc::UnboundedReceiver<String>,
    mut stop: oneshot::Receiver<()>,
    cancel: &CancellationToken,
    tasks: &TaskRegistry,
    task: &str,
    output: &Path,
) -> TurnOutcome {
    let mut next = first;
    let mut last = TurnOutcome::Cancelled;
    loop {
        let message = match next.take() {
            Some(m) => m,
            None => {
                tokio::select! {
                    m = messages.recv() => match m {
                        Some(m) => m,
                        None => return last,
                    },
                    _ = &mut stop => return TurnOutcome::Cancelled,
                    () = cancel.cancelled() => return TurnOutcome::Cancelled,
                }
            }
        };
        tasks.resume(task);
        let turn_cancel = cancel.child_token();
        let outcome = tokio::select! {
            o = child.work(&message, &turn_cancel) => o,
            _ = &mut stop => {
                turn_cancel.cancel();
                return TurnOutcome::Cancelled;
            }
        };
        let report = report_of(&outcome, &child.last_words());
        let _ = std::fs::write(output, format!("{report}\n"));
        if cancel.is_cancelled() {
            return outcome;
        }
        tasks.report(task, &report);
        last = outcome;
    }
}

fn unique_name(kit: &Kit, wanted: &str) -> String {
    let base: String = wanted
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let base = if base.is_empty() {
        "agent".to_string()
    } else {
        base
    };
    let taken = kit.names();
    if !taken.contains(&base) {
        return base;
    }
    (2..)
        .map(|n| format!("{base}-{n}"))
        .find(|n| !taken.contains(n))
        .unwrap_or(base)
}

fn agent_send(kit: &Kit, args: &AgentSendArgs) -> Reply {
    let named = kit.named.lock().unwrap_or_else(PoisonError::into_inner);
    let Some(agent) = named.get(&args.to) else {
        let names = kit_names(&named);
        return Reply::err(format!(
            "there is no agent named `{}`; the named agents are: {}",
            args.to,
            if names.is_empty() {
                "none".into()
            } else {
                names.join(", ")
            }
        ));
    };
    if agent.inbox.send(args.content.clone()).is_err() {
        return Reply::err(format!("the agent `{}` has stopped", args.to));
    }
    Reply::ok(format!(
        "Sent to `{}` (task {}); it works on it now, or as soon as it finishes what it is doing. Its report arrives when it stops.\n",
        args.to, agent.task
    ))
}

fn kit_names(named: &HashMap<String, Named>) -> Vec<String> {
    let mut v: Vec<String> = named.keys().cloned().collect();
    v.sort();
    v
}
