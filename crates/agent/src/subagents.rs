//! Sub-agents: `spawn_subagent` runs a child to completion while its parent waits;
//! `agent_spawn` starts a named agent in the background, whose reports wake the session's
//! agent and whom `agent_send` talks to. Every child works under its parent's rules, mode,
//! sandbox and question queue (a question names the agent that asks), shares the session's
//! change counter, has a log of its own, and is bounded (depth, steps, tokens). A child never
//! has more permissions than its parent, and stopping the parent stops its children.

use crate::session_log::{SessionHeader, SessionLog};
use crate::turn::{Agent, AgentError, AgentStats, ToolReply};
use llm::Provider;
use protocol::{AgentEvent, EngineError, TurnOutcome};
use serde_json::Value;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tools::{AgentSendArgs, AgentSpawnArgs, EngineTool, SpawnSubagentArgs, TaskState};

type BoxedReply<'a> = std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<Option<ToolReply>, AgentError>> + Send + 'a>,
>;

/// Steps and tokens a sub-agent may use (its parent's own limits are the session's).
const CHILD_MAX_STEPS: u32 = 30;
const CHILD_TOKEN_BUDGET: u64 = 400_000;

/// A model as the settings map a role to it.
pub struct ResolvedModel {
    pub provider: Provider,
    pub model: String,
    /// The role had no model of its own and the default one is used.
    pub fell_back: bool,
}

/// Finds the provider and model for a role (`default`, `fast`, `coder`, `architect`).
pub type ProviderResolver = Arc<dyn Fn(&str) -> Result<ResolvedModel, EngineError> + Send + Sync>;

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

impl Agent {
    /// Runs `spawn_subagent`, `agent_spawn` or `agent_send`. Its future is boxed and declared
    /// `Send`: a sub-agent's turn runs inside it, which may start sub-agents in turn.
    pub(crate) fn run_agent_tool<'a>(
        &'a mut self,
        tool: EngineTool,
        name: &'a str,
        input: &'a Value,
        cancel: &'a CancellationToken,
    ) -> BoxedReply<'a> {
        Box::pin(self.run_agent_tool_inner(tool, name, input, cancel))
    }

    async fn run_agent_tool_inner(
        &mut self,
        tool: EngineTool,
        name: &str,
        input: &Value,
        cancel: &CancellationToken,
    ) -> Result<Option<ToolReply>, AgentError> {
        let bad = |e: serde_json::Error| {
            Ok(Some(ToolReply::err(format!(
                "the arguments for {name} are not valid ({e}); check them against its schema"
            ))))
        };
        let Some(kit) = self.kit.clone() else {
            return Ok(Some(ToolReply::err(
                "sub-agents are not available in this session".into(),
            )));
        };
        let deepest = self.config.depth >= self.config.max_depth;
        match tool {
            _ if tool.spawns() && deepest => Ok(Some(ToolReply::err(format!(
                "sub-agents go {} levels deep at most; do this part yourself",
                self.config.max_depth
            )))),
            EngineTool::SpawnSubagent => {
                match serde_json::from_value::<SpawnSubagentArgs>(input.clone()) {
                    Ok(a) => self.spawn_subagent(&kit, a, cancel).await,
                    Err(e) => bad(e),
                }
            }
            EngineTool::AgentSpawn => match serde_json::from_value::<AgentSpawnArgs>(input.clone())
            {
                Ok(a) => self.agent_spawn(&kit, a).await,
                Err(e) => bad(e),
            },
            _ => match serde_json::from_value::<AgentSendArgs>(input.clone()) {
                Ok(a) => Ok(Some(agent_send(&kit, &a))),
                Err(e) => bad(e),
            },
        }
    }

    /// The model a child works with: the settings' model for `role`, or with no role named,
    /// this agent's own (the seed: a spawned agent inherits its parent's model).
    async fn model_for(&self, kit: &Kit, role: Option<&str>) -> Result<ResolvedModel, String> {
        if role.is_none()
            && let Some(provider) = &self.provider
        {
            return Ok(ResolvedModel {
                provider: provider.clone(),
                model: self.config.model.clone(),
                fell_back: false,
            });
        }
        let resolver = kit.resolver.clone();
        let wanted = role.unwrap_or("default").to_string();
        // Finding a provider may ask the keychain: off the async threads.
        tokio::task::spawn_blocking(move || resolver(&wanted))
            .await
            .map_err(|e| e.to_string())
            .and_then(|r| r.map_err(|e| e.message))
    }

    /// A child of this agent: its own conversation and log, everything else shared.
    async fn child(
        &mut self,
        kit: &Arc<Kit>,
        name: &str,
        task: &str,
        role: Option<&str>,
        background: bool,
        instructions: Option<String>,
    ) -> Result<(Agent, bool), ToolReply> {
        let resolved = self
            .model_for(kit, role)
            .await
            .map_err(|why| ToolReply::err(format!("the sub-agent could not start: {why}")))?;
        let n = kit.next.fetch_add(1, Ordering::Relaxed) + 1;
        let id = format!("a{n}");
        let header = SessionHeader {
            id: id.clone(),
            project: self.toolbox.ws.root().path().display().to_string(),
            task: task.to_string(),
            model: resolved.model.clone(),
            started_ms: crate::locations::now_ms(),
        };
        let log = SessionLog::create(&kit.agents_dir, &header)
            .map_err(|e| ToolReply::err(format!("the sub-agent could not start: {e}")))?;
        let mut config = self.config.clone();
        config.model = resolved.model.clone();
        config.depth += 1;
        config.max_steps = CHILD_MAX_STEPS.min(self.config.max_steps);
        config.token_budget = Some(
            self.config
                .token_budget
                .map_or(CHILD_TOKEN_BUDGET, |b| b.min(CHILD_TOKEN_BUDGET)),
        );
        let mut child = Agent::new(
            Some(resolved.provider),
            self.toolbox.clone(),
            self.policy.clone(),
            config,
            log,
            self.events.nested(&id),
            self.approvals.clone(),
            self.mode_now.clone(),
        );
        child.identity = Some((id.clone(), name.to_string()));
        child.kit = Some(kit.clone());
        child.spend = self.spend.clone();
        child.instructions = instructions;
        child.extensions = self.extensions.clone();
        let parent = self.identity.as_ref().map(|(p, _)| p.clone());
        let started = AgentEvent::SubagentStarted {
            agent: id,
            name: name.to_string(),
            task: task.to_string(),
            background,
            model: resolved.model,
            parent,
        };
        if let Err(e) = self.emit(started) {
            return Err(ToolReply::err(format!(
                "the sub-agent could not start: {e}"
            )));
        }
        Ok((child, resolved.fell_back))
    }

    async fn spawn_subagent(
        &mut self,
        kit: &Arc<Kit>,
        args: SpawnSubagentArgs,
        cancel: &CancellationToken,
    ) -> Result<Option<ToolReply>, AgentError> {
        let role = args.model_role.map(|r| r.name());
        let (mut child, fell_back) = match self
            .child(kit, &args.title, &args.description, role, false, None)
            .await
        {
            Ok(c) => c,
            Err(reply) => return Ok(Some(reply)),
        };
        let id = child
            .identity
            .as_ref()
            .map(|(i, _)| i.clone())
            .unwrap_or_default();
        let child_cancel = cancel.child_token();
        // Listed as a task while it works, so the window's task list can stop it; its result
        // comes back here, so its end never wakes the agent a second time.
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let owner = self.identity.as_ref().map(|(p, _)| p.clone());
        let tasks = self.toolbox.tasks.clone();
        let output = kit.agents_dir.join(format!("{id}.txt"));
        let task = tasks.register("agent", &args.title, output.clone(), stop_tx, owner);
        let on_stop = child_cancel.clone();
        let stopper = tokio::spawn(async move {
            if stop_rx.await.is_ok() {
                on_stop.cancel();
            }
        });
        let outcome = child.run_turn(&args.description, &child_cancel).await;
        stopper.abort();
        self.toolbox.tasks.stop_owned(&id);
        let last_text = child
            .messages
            .iter()
            .rev()
            .find(|m| m.role == protocol::Role::Assistant)
            .map(|m| m.text())
            .unwrap_or_default();
        let report = report_of(&outcome, &last_text);
        let _ = std::fs::write(&output, format!("{report}\n"));
        tasks.forget(&task);
        let stats = child.stats;
        let files: Vec<String> = child.changed_files.iter().cloned().collect();
        self.emit(AgentEvent::SubagentEnded {
            agent: id.clone(),
            outcome: outcome.clone(),
            report: report.clone(),
            steps: stats.steps,
            tokens: stats.tokens,
            cost_usd: stats.priced.then_some(stats.cost_usd),
        })?;
        if cancel.is_cancelled() {
            return Ok(None);
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
            child.config.model,
        );
        if let (true, Some(role)) = (fell_back, role) {
            text.push_str(&format!(
                "The role `{role}` has no model of its own in the settings, so it used the default one.\n"
            ));
        }
        text.push_str(&format!(
            "Its whole transcript is {}: read it with read_file if you need more than this report.\n",
            child.log.path().display()
        ));
        let files_count = files.len();
        self.changed_files.extend(files);
        let failed = !matches!(outcome, TurnOutcome::Done { .. } | TurnOutcome::Ended);
        let summary = Some(protocol::ToolSummary::HelperReported {
            name: args.title.clone(),
            finished: !failed,
            files_changed: files_count as u32,
        });
        Ok(Some(
            if failed {
                ToolReply::err(text)
            } else {
                ToolReply::ok(text)
            }
            .summed(summary),
        ))
    }

    async fn agent_spawn(
        &mut self,
        kit: &Arc<Kit>,
        args: AgentSpawnArgs,
    ) -> Result<Option<ToolReply>, AgentError> {
        let name = unique_name(kit, &args.name);
        let instructions = format!(
            "You are `{name}`, a named agent: {}.\n{}",
            args.desc, args.prompt
        );
        let first = args.task.clone();
        let (mut child, _) = match self
            .child(
                kit,
                &name,
                first.as_deref().unwrap_or(&args.desc),
                None,
                true,
                Some(instructions),
            )
            .await
        {
            Ok(c) => c,
            Err(reply) => return Ok(Some(reply)),
        };
        let id = child
            .identity
            .as_ref()
            .map(|(i, _)| i.clone())
            .unwrap_or_default();
        let output = kit.agents_dir.join(format!("{id}.txt"));
        let transcript = child.log.path().display().to_string();
        let (stop_tx, stop_rx) = oneshot::channel();
        let owner = self.identity.as_ref().map(|(p, _)| p.clone());
        let tasks = self.toolbox.tasks.clone();
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
        let parent_sink = self.events.clone();
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
            let stats = child.stats;
            let ended = AgentEvent::SubagentEnded {
                agent: id,
                outcome,
                report: "stopped".into(),
                steps: stats.steps,
                tokens: stats.tokens,
                cost_usd: stats.priced.then_some(stats.cost_usd),
            };
            let _ = child.log.append(&ended);
            parent_sink.send(ended);
        });
        let waiting = if args.task.is_some() {
            "It is working on its task"
        } else {
            "It waits for a message (agent_send)"
        };
        Ok(Some(ToolReply::ok(format!(
            "Started the agent `{name}` as background task {task}. {waiting}; its report arrives when it stops. Message it with agent_send; stop it with task_stop. Its whole transcript is {transcript} (read_file reads it).\n"
        ))))
    }
}

/// A named agent's life: a turn for its first task and for each message, a report after each,
/// until it is stopped.
#[allow(clippy::too_many_arguments)]
async fn work(
    child: &mut Agent,
    first: Option<String>,
    mut messages: mpsc::UnboundedReceiver<String>,
    mut stop: oneshot::Receiver<()>,
    cancel: &CancellationToken,
    tasks: &tools::TaskRegistry,
    task: &str,
    output: &std::path::Path,
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
            o = child.run_turn(&message, &turn_cancel) => o,
            _ = &mut stop => {
                turn_cancel.cancel();
                return TurnOutcome::Cancelled;
            }
        };
        let last_text = child
            .messages
            .iter()
            .rev()
            .find(|m| m.role == protocol::Role::Assistant)
            .map(|m| m.text())
            .unwrap_or_default();
        let report = report_of(&outcome, &last_text);
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

fn agent_send(kit: &Kit, args: &AgentSendArgs) -> ToolReply {
    let named = kit.named.lock().unwrap_or_else(PoisonError::into_inner);
    let Some(agent) = named.get(&args.to) else {
        let names = kit_names(&named);
        return ToolReply::err(format!(
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
        return ToolReply::err(format!("the agent `{}` has stopped", args.to));
    }
    ToolReply::ok(format!(
        "Sent to `{}` (task {}); it works on it now, or as soon as it finishes what it is doing. Its report arrives when it stops.\n",
        args.to, agent.task
    ))
}

fn kit_names(named: &HashMap<String, Named>) -> Vec<String> {
    let mut v: Vec<String> = named.keys().cloned().collect();
    v.sort();
    v
}
