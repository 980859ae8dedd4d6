//! The turn loop: the model streams a reply; each tool call it makes is judged by the policy
//! engine, put to the user when the policy asks, run, and its result fed back — until the model
//! calls `task_done`, the user stops it, or a limit is hit. Every step is an [`AgentEvent`] on
//! the events channel and a line in the session log.

use crate::policy_call::policy_call;
use crate::session_log::{LogError, SessionLog};
use llm::{ChatRequest, LlmError, Provider, StreamEvent};
use policy::{Context, Mode, Policy, Verdict};
use protocol::{
    AgentEvent, ApprovalAnswer, ApprovalRequest, Confinement, ContentBlock, Message, OutsideReason,
    PlanItem, Role, SandboxDenial, ToolDefinition, TurnOutcome,
};
use serde_json::Value;
use std::collections::{BTreeSet, VecDeque};
use std::path::{Path, PathBuf};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tools::Toolbox;

/// Identical calls in a row before the loop pauses for the user.
pub const LOOP_LIMIT: usize = 3;

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
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
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
    Cancelled,
}

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("the model failed: {0}")]
    Model(#[from] LlmError),
    #[error(transparent)]
    Log(#[from] LogError),
}

/// An approval question and where its answer goes. Dropping the sender answers nothing: the
/// call is cancelled, never approved.
pub type ApprovalTx = mpsc::Sender<(ApprovalRequest, oneshot::Sender<ApprovalAnswer>)>;

pub struct Agent {
    pub provider: Provider,
    pub toolbox: Toolbox,
    pub policy: Policy,
    pub config: AgentConfig,
    pub log: SessionLog,
    pub events: mpsc::UnboundedSender<AgentEvent>,
    pub approvals: ApprovalTx,
    pub messages: Vec<Message>,
    recent_calls: VecDeque<String>,
    prices: llm::PriceTable,
    mode_now: ModeSwitch,
}

/// The mode a front end can change while a turn runs (the next call is judged in it). Unset,
/// the configured mode holds.
#[derive(Clone, Default)]
pub struct ModeSwitch(std::sync::Arc<std::sync::Mutex<Option<Mode>>>);

impl ModeSwitch {
    pub fn set(&self, mode: Mode) {
        *self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(mode);
    }

    pub fn get(&self) -> Option<Mode> {
        *self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Project instructions the model should follow, from the first of these files present.
const INSTRUCTION_FILES: &[&str] = &["AGENTS.md", "CLAUDE.md", ".tandem/instructions.md"];

/// Today's date (UTC) as YYYY-MM-DD, from the days since 1970 (Howard Hinnant's algorithm).
fn today() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() / 86_400)
        .unwrap_or(0) as i64;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The most of an instruction file that goes into the system prompt.
const INSTRUCTIONS_CAP: usize = 32 * 1024;

fn system_prompt(root: &tools::ProjectRoot, sandboxed: bool) -> String {
    let mut s = format!(
        "You are Tandem, a coding agent working in the project folder {} on {}. Today is {}.\n\
         Work with the tools: read before you edit, keep changes small, run the project's tests when you change code. \
         Paths are relative to the project folder. Some calls need the user's approval; if one is refused, read why and adapt. \
         When the task is complete, call task_done with a short summary for the user.\n",
        root.path().display(),
        std::env::consts::OS,
        today()
    );
    if sandboxed {
        s.push_str(
            "Commands run in a sandbox: they can change only the project folder and a private temporary folder ($TMPDIR), \
             cannot read secrets such as .env files and keys, and have no network unless the user granted it.\n",
        );
    }
    if let Some((name, text)) = instructions(root) {
        s.push_str(&format!("\nThe project's instructions ({name}):\n{text}\n"));
    }
    s
}

/// The first instruction file present, read under the same confinement as `read_file`: a
/// link out of the project or to a secret is not followed (a cloned repository's `AGENTS.md`
/// may point at `~/.aws/credentials`), and a long file is cut.
fn instructions(root: &tools::ProjectRoot) -> Option<(&'static str, String)> {
    INSTRUCTION_FILES.iter().find_map(|f| {
        let resolved = root.resolve(f).ok()?;
        if policy::is_secret(&resolved.real) || !resolved.real.is_file() {
            return None;
        }
        let mut text = String::new();
        std::io::Read::read_to_string(
            &mut std::io::Read::take(
                std::fs::File::open(&resolved.real).ok()?,
                INSTRUCTIONS_CAP as u64 + 1,
            ),
            &mut text,
        )
        .ok()?;
        if text.len() > INSTRUCTIONS_CAP {
            let mut cut = INSTRUCTIONS_CAP;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            text.push_str("\n[… the rest of the file was cut]");
        }
        Some((*f, text))
    })
}

/// A rough token count (four characters a token), enough to see the window filling up.
fn estimate_tokens(messages: &[Message]) -> u64 {
    let chars: usize = messages
        .iter()
        .flat_map(|m| &m.content)
        .map(|b| match b {
            ContentBlock::Text { text } => text.len(),
            ContentBlock::Thinking { thinking, .. } => thinking.len(),
            ContentBlock::ToolUse { input, .. } => input.to_string().len(),
            ContentBlock::ToolResult { content, .. } => content.len(),
            ContentBlock::Image { data, .. } => data.len() / 10,
        })
        .sum();
    (chars / 4) as u64
}

fn tool_definitions() -> Vec<ToolDefinition> {
    tools::TOOLS
        .iter()
        .map(|t| ToolDefinition {
            name: t.name.to_string(),
            description: t.description.to_string(),
            input_schema: t.schema(),
        })
        .collect()
}

struct ToolReply {
    text: String,
    is_error: bool,
    /// For commands that ran: where.
    confinement: Option<Confinement>,
}

impl ToolReply {
    fn ok(text: String) -> Self {
        ToolReply {
            text,
            is_error: false,
            confinement: None,
        }
    }
    fn err(text: String) -> Self {
        ToolReply {
            text,
            is_error: true,
            confinement: None,
        }
    }
}

impl Agent {
    pub fn new(
        provider: Provider,
        toolbox: Toolbox,
        policy: Policy,
        config: AgentConfig,
        log: SessionLog,
        events: mpsc::UnboundedSender<AgentEvent>,
        approvals: ApprovalTx,
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
            recent_calls: VecDeque::new(),
            prices: llm::PriceTable::default(),
            mode_now: ModeSwitch::default(),
        }
    }

    /// A handle to change the mode mid-turn.
    pub fn mode_switch(&self) -> ModeSwitch {
        self.mode_now.clone()
    }

    fn emit(&mut self, event: AgentEvent) -> Result<(), AgentError> {
        let logged = !matches!(
            event,
            AgentEvent::TextDelta { .. } | AgentEvent::ThinkingDelta { .. }
        );
        if logged {
            self.log.append(&event)?;
        }
        let _ = self.events.send(event);
        Ok(())
    }

    /// Runs one turn and says how it ended, in the event stream and the log: the front end's
    /// entry point. A model failure is an outcome here, not an error: the session stays usable.
    pub async fn run_turn(&mut self, task: &str, cancel: &CancellationToken) -> TurnOutcome {
        let outcome = match self.run_task(task, cancel).await {
            Ok(Outcome::Done { summary }) => TurnOutcome::Done { summary },
            Ok(Outcome::Ended { .. }) => TurnOutcome::Ended,
            Ok(Outcome::Paused { reason }) => TurnOutcome::Paused { reason },
            Ok(Outcome::StepLimit) => TurnOutcome::StepLimit,
            Ok(Outcome::BudgetSpent { used }) => TurnOutcome::BudgetSpent { used },
            Ok(Outcome::Cancelled) => TurnOutcome::Cancelled,
            Err(e) => TurnOutcome::Failed {
                message: e.to_string(),
            },
        };
        let ended = AgentEvent::TurnEnded {
            outcome: outcome.clone(),
        };
        if let Err(e) = self.emit(ended.clone()).and_then(|()| Ok(self.log.sync()?)) {
            tracing::warn!(error = %e, "the end of the turn could not be logged");
            let _ = self.events.send(ended);
        }
        outcome
    }

    /// Runs one task to its end.
    pub async fn run_task(
        &mut self,
        task: &str,
        cancel: &CancellationToken,
    ) -> Result<Outcome, AgentError> {
        self.messages.push(Message::user_text(task));
        self.emit(AgentEvent::UserMessage {
            text: task.to_string(),
        })?;
        let system = system_prompt(
            self.toolbox.ws.root(),
            self.toolbox.commands.sandbox.is_some(),
        );
        let tools = tool_definitions();
        let mut used_tokens: u64 = 0;
        for step in 1..=self.config.max_steps {
            if let Some(budget) = self.config.token_budget.filter(|b| used_tokens >= *b) {
                self.emit(AgentEvent::Notice {
                    text: format!("the task's token budget ({budget}) is spent"),
                })?;
                self.log.sync()?;
                return Ok(Outcome::BudgetSpent { used: used_tokens });
            }
            self.emit(AgentEvent::StepStarted { step })?;
            if estimate_tokens(&self.messages) > u64::from(self.config.context_window) * 4 / 5 {
                match self.compact(&system, cancel).await {
                    Ok(()) => {}
                    Err(AgentError::Model(LlmError::Cancelled)) => {
                        self.log.sync()?;
                        return Ok(Outcome::Cancelled);
                    }
                    Err(e) => return Err(e),
                }
            }
            let req = ChatRequest {
                model: self.config.model.clone(),
                system: Some(system.clone()),
                messages: self.messages.clone(),
                tools: tools.clone(),
                max_tokens: self.config.max_tokens,
                temperature: None,
            };
            let events = self.events.clone();
            let mut forward = move |e: StreamEvent| {
                let _ = events.send(match e {
                    StreamEvent::TextDelta(text) => AgentEvent::TextDelta { text },
                    StreamEvent::ThinkingDelta(text) => AgentEvent::ThinkingDelta { text },
                    StreamEvent::Notice(text) => AgentEvent::Notice { text },
                    // The reply's total usage is reported once, with its cost, when it ends.
                    StreamEvent::Usage(_) => return,
                    StreamEvent::Restart => AgentEvent::Notice {
                        text: "the reply is starting over".into(),
                    },
                    StreamEvent::ToolUseStarted { .. } | StreamEvent::ToolUseDelta { .. } => return,
                });
            };
            let resp = match self.provider.stream(&req, &mut forward, cancel).await {
                Ok(r) => r,
                Err(LlmError::Cancelled) => {
                    self.log.sync()?;
                    return Ok(Outcome::Cancelled);
                }
                Err(e) => {
                    self.emit(AgentEvent::Error {
                        message: e.to_string(),
                    })?;
                    self.log.sync()?;
                    return Err(e.into());
                }
            };
            let cost_usd = self.prices.cost(&self.config.model, &resp.usage);
            self.emit(AgentEvent::Usage {
                usage: resp.usage,
                cost_usd,
            })?;
            used_tokens += u64::from(resp.usage.input_tokens) + u64::from(resp.usage.output_tokens);
            self.emit(AgentEvent::AssistantMessage {
                message: resp.message.clone(),
            })?;
            self.messages.push(resp.message.clone());

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
            if calls.is_empty() {
                self.log.sync()?;
                return Ok(Outcome::Ended {
                    text: resp.message.text(),
                });
            }
            let mut results = Vec::new();
            let mut outcome = None;
            for (id, name, input) in calls {
                self.emit(AgentEvent::ToolCallProposed {
                    id: id.clone(),
                    name: name.clone(),
                    input: input.clone(),
                })?;
                let reply = if let Some(bad) = resp.malformed_tool_calls.iter().find(|m| m.id == id)
                {
                    ToolReply::err(format!(
                        "Your arguments for {name} were not valid JSON ({}): {}. Send them again as one JSON object.",
                        bad.error, bad.raw
                    ))
                } else if self.is_loop(&name, &input) {
                    outcome = Some(Outcome::Paused {
                        reason: format!(
                            "the model called {name} with the same arguments {LOOP_LIMIT} times in a row"
                        ),
                    });
                    ToolReply::err(format!(
                        "You have called {name} with the same arguments {LOOP_LIMIT} times in a row. The task is paused for the user; try a different approach."
                    ))
                } else {
                    match self.judge_and_run(&id, &name, &input, cancel).await? {
                        Some(r) => r,
                        None => {
                            self.log.sync()?;
                            return Ok(Outcome::Cancelled);
                        }
                    }
                };
                if name == "task_done" && !reply.is_error {
                    let summary = input
                        .get("summary")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string();
                    outcome = Some(Outcome::Done { summary });
                }
                self.emit(AgentEvent::ToolFinished {
                    id: id.clone(),
                    name: name.clone(),
                    output: reply.text.clone(),
                    is_error: reply.is_error,
                    confinement: reply.confinement,
                })?;
                results.push(ContentBlock::ToolResult {
                    tool_use_id: id,
                    content: reply.text,
                    is_error: reply.is_error,
                });
            }
            self.messages.push(Message {
                role: Role::User,
                content: results,
            });
            self.log.sync()?;
            if let Some(o) = outcome {
                if let Outcome::Done { summary } = &o {
                    self.emit(AgentEvent::Done {
                        summary: summary.clone(),
                    })?;
                    self.log.sync()?;
                }
                return Ok(o);
            }
        }
        Ok(Outcome::StepLimit)
    }

    /// One tool call through the engine — policy, approval, execution, events and log — as
    /// the loop does it; returns the result text and whether it is an error. `None` when the
    /// task must stop. Public for the overhead benchmark and for front ends that replay calls.
    pub async fn handle_tool_call(
        &mut self,
        id: &str,
        name: &str,
        input: &Value,
        cancel: &CancellationToken,
    ) -> Result<Option<(String, bool)>, AgentError> {
        self.emit(AgentEvent::ToolCallProposed {
            id: id.to_string(),
            name: name.to_string(),
            input: input.clone(),
        })?;
        let Some(reply) = self.judge_and_run(id, name, input, cancel).await? else {
            return Ok(None);
        };
        self.emit(AgentEvent::ToolFinished {
            id: id.to_string(),
            name: name.to_string(),
            output: reply.text.clone(),
            is_error: reply.is_error,
            confinement: reply.confinement,
        })?;
        Ok(Some((reply.text, reply.is_error)))
    }

    /// Replaces the older part of the conversation with a summary the model writes, keeping
    /// the task and the most recent turns. Cuts only where no tool call waits for its result.
    async fn compact(
        &mut self,
        system: &str,
        cancel: &CancellationToken,
    ) -> Result<(), AgentError> {
        const KEEP: usize = 4;
        if self.messages.len() <= KEEP + 1 {
            return Ok(());
        }
        // The first kept message must not be a tool result whose call would be summarized away.
        let mut cut = self.messages.len() - KEEP;
        while cut < self.messages.len()
            && self.messages[cut]
                .content
                .iter()
                .any(|b| matches!(b, ContentBlock::ToolResult { .. }))
        {
            cut += 1;
        }
        if cut >= self.messages.len() || cut <= 1 {
            return Ok(());
        }
        let mut older: Vec<Message> = self.messages[..cut].to_vec();
        older.push(Message::user_text(
            "Summarize the conversation so far for your own later use: the task, what you have done and found, \
             files changed, decisions the user made, and what remains. Be concise and concrete; do not call tools.",
        ));
        let req = ChatRequest {
            model: self.config.model.clone(),
            system: Some(system.to_string()),
            messages: older,
            tools: Vec::new(),
            max_tokens: 2048,
            temperature: None,
        };
        let resp = self.provider.stream(&req, &mut |_| {}, cancel).await?;
        let summary = resp.message.text();
        let before = self.messages.len();
        let mut compacted = vec![Message::user_text(format!(
            "Summary of earlier work in this session (older turns were compacted to fit the context window):\n{summary}"
        ))];
        compacted.extend(self.messages[cut..].iter().cloned());
        self.messages = compacted;
        self.log.append(&serde_json::json!({"type": "compaction", "summary": summary, "messages_before": before, "messages_after": self.messages.len()}))?;
        self.emit(AgentEvent::Notice {
            text: format!(
                "older turns were compacted into a summary ({before} messages → {})",
                self.messages.len()
            ),
        })?;
        Ok(())
    }

    /// Writes an "always in this project" grant into the user's policy file.
    fn keep_grant(&self, grant: &policy::Grant, label: &str) -> Result<String, String> {
        let file = self
            .config
            .user_policy_file
            .as_ref()
            .ok_or("no user policy file is configured")?;
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(format!("cannot read {}: {e}", file.display())),
        };
        let root = self.toolbox.ws.root().path().to_path_buf();
        let updated = policy::add_project_grant(&text, &file.display().to_string(), &root, grant)
            .map_err(|e| e.to_string())?;
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        std::fs::write(file, updated)
            .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        tracing::info!(file = %file.display(), rule = label, "kept an approval as a project rule");
        Ok(file.display().to_string())
    }

    fn is_loop(&mut self, name: &str, input: &Value) -> bool {
        let key = format!("{name}:{input}");
        self.recent_calls.push_back(key.clone());
        while self.recent_calls.len() > LOOP_LIMIT {
            self.recent_calls.pop_front();
        }
        self.recent_calls.len() == LOOP_LIMIT && self.recent_calls.iter().all(|k| *k == key)
    }

    /// Policy, approval, execution. `None` when the task must stop (cancelled, or the front end
    /// went away while a question was open).
    async fn judge_and_run(
        &mut self,
        id: &str,
        name: &str,
        input: &Value,
        cancel: &CancellationToken,
    ) -> Result<Option<ToolReply>, AgentError> {
        let ws = &self.toolbox.ws;
        // Writes and edits are worked out first, so the approval shows what will be written.
        // Arguments that do not fit the tool are the model's error to fix: nothing is asked.
        let bad_args = |e: serde_json::Error| {
            ToolReply::err(format!(
                "the arguments for {name} are not valid ({e}); check them against its schema"
            ))
        };
        let planned = match name {
            "write_file" => match serde_json::from_value(input.clone()) {
                Ok(a) => Some(tools::plan_write(ws, &a)),
                Err(e) => return Ok(Some(bad_args(e))),
            },
            "edit_file" => match serde_json::from_value(input.clone()) {
                Ok(a) => Some(tools::plan_edit(ws, &a)),
                Err(e) => return Ok(Some(bad_args(e))),
            },
            _ => None,
        };
        let planned = match planned {
            Some(Ok(p)) => Some(p),
            // The write itself would fail: let the tool say why, with nothing asked.
            Some(Err(e)) => return Ok(Some(ToolReply::err(e.to_string()))),
            None => None,
        };
        let diff_lines = planned
            .as_ref()
            .map(|p| {
                let (a, r) = tools::line_counts(p.original.as_deref().unwrap_or(""), &p.content);
                a + r
            })
            .unwrap_or(0);
        // A fetch is judged on the addresses its host looks up to, and goes to those.
        let resolved = if name == "web_fetch" {
            match crate::fetch_gate::resolve_fetch(input).await {
                Ok(a) => a,
                Err(why) => {
                    return Ok(Some(ToolReply::err(format!(
                        "fetching failed: {why}. Nothing was sent."
                    ))));
                }
            }
        } else {
            Vec::new()
        };
        let ws = &self.toolbox.ws;
        // Judged in a block: the context borrows a resolver that must not live across awaits.
        let decision = {
            let resolver = |p: &Path| tools::real_path(p);
            let ctx = Context {
                project_root: ws.root().path(),
                home: self.config.home.as_deref(),
                mode: self.mode_now.get().or(self.config.mode),
                session_diff_lines: ws.diff_totals().changed(),
                user_policy_file: self.config.user_policy_file.as_deref(),
                sandboxed: self.toolbox.commands.sandbox.is_some(),
                resolver: &resolver,
            };
            policy::evaluate(
                &self.policy,
                &policy_call(name, input, diff_lines, &resolved),
                &ctx,
            )
        };
        self.log.append(&serde_json::json!({"type": "decision", "id": id, "decision": decision.decision, "reason": decision.reason, "rule": decision.rule.name, "sandbox": decision.sandbox}))?;
        let mode = self
            .mode_now
            .get()
            .or(self.config.mode)
            .unwrap_or(self.policy.mode.value);
        let confinement = (name == "run_command").then(|| {
            crate::sandboxing::confinement(&decision, mode, self.toolbox.commands.sandbox.is_some())
        });
        let mut accepted: Option<Vec<u32>> = None;
        match decision.decision {
            Verdict::Deny => {
                return Ok(Some(ToolReply::err(format!(
                    "The policy refused this call: {} [{}]. Do not retry it; find another way or ask the user.",
                    decision.reason, decision.rule.name
                ))));
            }
            Verdict::Ask => {
                let request = ApprovalRequest {
                    id: id.to_string(),
                    tool: name.to_string(),
                    input: input.clone(),
                    reason: decision.reason.clone(),
                    rule: decision.rule.name.clone(),
                    suggestions: decision
                        .suggestions
                        .iter()
                        .map(|s| protocol::ApprovalSuggestion {
                            label: s.label.clone(),
                            always: s.scope == policy::Scope::Project,
                        })
                        .collect(),
                    path: planned.as_ref().map(|p| p.path.clone()),
                    original: planned
                        .as_ref()
                        .map(|p| p.original.clone().unwrap_or_default()),
                    proposed: planned.as_ref().map(|p| p.content.clone()),
                    hunks: planned
                        .as_ref()
                        .map(|p| tools::hunks(p.original.as_deref().unwrap_or(""), &p.content))
                        .unwrap_or_default(),
                    commands: if name == "run_command" {
                        simple_commands(input)
                    } else {
                        Vec::new()
                    },
                    command: (name == "run_command").then(|| {
                        input
                            .get("command")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string()
                    }),
                    confinement,
                    sandbox_denial: None,
                };
                let Some(answer) = self.ask(request, cancel).await? else {
                    return Ok(None);
                };
                match answer {
                    ApprovalAnswer::Approve => {}
                    ApprovalAnswer::ApproveForSession { suggestion } => {
                        if let Some(s) = decision.suggestions.get(suggestion as usize)
                            && let Err(e) = self.policy.grant(&s.grant)
                        {
                            self.emit(AgentEvent::Notice {
                                text: format!("the rule could not be added: {e}"),
                            })?;
                        }
                    }
                    ApprovalAnswer::ApproveAlways { suggestion } => {
                        if let Some(sug) = decision.suggestions.get(suggestion as usize) {
                            let kept = self.keep_grant(&sug.grant, &sug.label);
                            let text = match kept {
                                Ok(file) => format!(
                                    "added to your rules for this project ({file}): {}",
                                    sug.label
                                ),
                                Err(e) => format!("the rule is kept for this session only: {e}"),
                            };
                            self.emit(AgentEvent::Notice { text })?;
                            if let Err(e) = self.policy.grant(&sug.grant) {
                                self.emit(AgentEvent::Notice {
                                    text: format!("the rule could not be added: {e}"),
                                })?;
                            }
                        }
                    }
                    ApprovalAnswer::Deny { message } => {
                        let note = message
                            .map(|m| format!(" The user says: {m}"))
                            .unwrap_or_default();
                        return Ok(Some(ToolReply::err(format!(
                            "The user denied this call.{note}"
                        ))));
                    }
                    ApprovalAnswer::ApprovePartial { accepted_hunks } => {
                        if planned.is_none() {
                            return Ok(Some(ToolReply::err("The user approved only part of a call that cannot be split; it did not run.".into())));
                        }
                        accepted = Some(accepted_hunks);
                    }
                }
            }
            Verdict::Allow => {}
        }

        if let Some(p) = &planned
            && let Some(dir) = &self.config.session_dir
            && let Err(e) = crate::changes::record_baseline(dir, &p.path, p.original.as_deref())
        {
            // The review panel loses this file's "before"; the write itself is still right.
            tracing::warn!(error = %e, "could not keep the file's content before the change");
        }
        if let (Some(p), Some(acc)) = (&planned, &accepted) {
            let original = p.original.clone().unwrap_or_default();
            let total = tools::hunks(&original, &p.content).len();
            let set: BTreeSet<usize> = acc
                .iter()
                .map(|&i| i as usize)
                .filter(|&i| i < total)
                .collect();
            let merged = tools::merge_hunks(&original, &p.content, &set);
            let rejected: Vec<usize> = (0..total).filter(|i| !set.contains(i)).collect();
            return Ok(Some(
                match tools::apply_planned(&self.toolbox.ws, p, &merged) {
                    Ok(change) => {
                        self.toolbox.cache.clear();
                        ToolReply::ok(format!(
                            "The user applied hunks {:?} of {total} to {} and rejected hunks {rejected:?} (numbered from 0, in file order). {}. Read the file again before editing it further.",
                            set.iter().collect::<Vec<_>>(),
                            change.path,
                            tools::render_change(&change, "Wrote").trim_end_matches('.')
                        ))
                    }
                    Err(e) => ToolReply::err(e.to_string()),
                },
            ));
        }
        if let Some(confinement) = confinement {
            return self.run_command(id, input, confinement, mode, cancel).await;
        }
        let call = tools::CallContext {
            confinement: None,
            fetch: tools::FetchContext {
                addrs: resolved,
                gate: Some(
                    crate::fetch_gate::FetchJudge {
                        policy: self.policy.clone(),
                        mode,
                        root: self.toolbox.ws.root().path().to_path_buf(),
                        home: self.config.home.clone(),
                        user_policy_file: self.config.user_policy_file.clone(),
                        sandboxed: self.toolbox.commands.sandbox.is_some(),
                    }
                    .gate(),
                ),
            },
        };
        Ok(Some(
            match self.toolbox.run_in(name, input.clone(), &call).await {
                Ok(out) => {
                    if name == "update_plan"
                        && let Ok(items) = serde_json::from_value::<Vec<PlanItem>>(out.structured)
                    {
                        self.emit(AgentEvent::PlanUpdated { items })?;
                    }
                    ToolReply::ok(out.text)
                }
                Err(e) => ToolReply::err(e.to_string()),
            },
        ))
    }

    /// Runs a command where it was decided. When the sandbox stopped it, the user is asked
    /// whether to run it once outside (never kept as a rule), except in read-only mode.
    async fn run_command(
        &mut self,
        id: &str,
        input: &Value,
        confinement: Confinement,
        mode: Mode,
        cancel: &CancellationToken,
    ) -> Result<Option<ToolReply>, AgentError> {
        let first = self
            .toolbox
            .run_in("run_command", input.clone(), &in_place(confinement))
            .await;
        let out = match first {
            Ok(out) => out,
            Err(e) => {
                let mut r = ToolReply::err(e.to_string());
                r.confinement = Some(confinement);
                return Ok(Some(r));
            }
        };
        let denial = serde_json::from_value::<tools::CommandOutcome>(out.structured.clone())
            .ok()
            .and_then(|o| match o {
                tools::CommandOutcome::Finished { sandbox_denial, .. } => sandbox_denial,
                tools::CommandOutcome::Background { .. } => None,
            });
        let sandboxed_reply = ToolReply {
            text: out.text,
            is_error: false,
            confinement: Some(confinement),
        };
        let Some(denial) = denial.filter(|_| mode != Mode::ReadOnly) else {
            return Ok(Some(sandboxed_reply));
        };
        match self
            .ask_to_leave_sandbox(id, input, &denial, cancel)
            .await?
        {
            None => Ok(None),
            Some(false) => Ok(Some(ToolReply {
                text: format!(
                    "{}The user chose not to run it outside the sandbox. Work within the project folder (and the temporary folder), or ask the user to do this step.\n",
                    sandboxed_reply.text
                ),
                ..sandboxed_reply
            })),
            Some(true) => {
                let outside = Confinement::Outside {
                    reason: OutsideReason::Approved,
                };
                let again = self
                    .toolbox
                    .run_in("run_command", input.clone(), &in_place(outside))
                    .await;
                Ok(Some(match again {
                    Ok(out) => ToolReply {
                        text: format!(
                            "The sandbox stopped the first run ({}); the user approved running it once outside the sandbox. Its result:\n{}",
                            denial.evidence, out.text
                        ),
                        is_error: false,
                        confinement: Some(outside),
                    },
                    Err(e) => ToolReply {
                        text: e.to_string(),
                        is_error: true,
                        confinement: Some(outside),
                    },
                }))
            }
        }
    }

    /// Puts a question to the user and waits for the answer; both go into the events and the
    /// log. `None` when the task must stop (cancelled, or nobody is there to answer).
    async fn ask(
        &mut self,
        request: ApprovalRequest,
        cancel: &CancellationToken,
    ) -> Result<Option<ApprovalAnswer>, AgentError> {
        let id = request.id.clone();
        // The question goes to the answerer before the event goes out, so a front end that
        // answers the moment it sees the event finds the question waiting.
        let (tx, rx) = oneshot::channel();
        if self.approvals.send((request.clone(), tx)).await.is_err() {
            return Ok(None);
        }
        self.emit(AgentEvent::ApprovalNeeded {
            request: Box::new(request),
        })?;
        let answer = tokio::select! {
            a = rx => a.ok(),
            _ = cancel.cancelled() => None,
        };
        let Some(answer) = answer else {
            return Ok(None);
        };
        self.emit(AgentEvent::ApprovalAnswered {
            id,
            answer: answer.clone(),
        })?;
        Ok(Some(answer))
    }

    /// Puts "run this once outside the sandbox?" to the user. `None` when the task must stop.
    async fn ask_to_leave_sandbox(
        &mut self,
        id: &str,
        input: &Value,
        denial: &SandboxDenial,
        cancel: &CancellationToken,
    ) -> Result<Option<bool>, AgentError> {
        let command = input
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let what = match denial.kind {
            protocol::DenialKind::Files => "it touched a file the sandbox keeps out of reach",
            protocol::DenialKind::Network => "it needed the network, which the sandbox keeps off",
        };
        // The same call asks again: front ends show it on the same card.
        let request = ApprovalRequest {
            id: id.to_string(),
            tool: "run_command".into(),
            input: input.clone(),
            reason: format!(
                "The sandbox stopped this command: {what} (`{}`). Run it once outside the sandbox, with your own permissions?",
                denial.evidence
            ),
            rule: "sandbox".into(),
            suggestions: Vec::new(),
            path: None,
            original: None,
            proposed: None,
            hunks: Vec::new(),
            commands: simple_commands(input),
            command: Some(command),
            confinement: Some(Confinement::Outside {
                reason: OutsideReason::Approved,
            }),
            sandbox_denial: Some(denial.clone()),
        };
        let Some(answer) = self.ask(request, cancel).await? else {
            return Ok(None);
        };
        // Only a plain approval runs it: an approval that asks for a rule to be kept is not
        // offered here, so it is read as a plain one, never remembered.
        Ok(Some(!matches!(answer, ApprovalAnswer::Deny { .. })))
    }
}

/// A command's call context: where it runs.
fn in_place(confinement: Confinement) -> tools::CallContext {
    tools::CallContext {
        confinement: Some(confinement),
        ..Default::default()
    }
}

/// Each simple command the policy found in a `run_command` call: what really runs.
fn simple_commands(input: &Value) -> Vec<String> {
    policy::shell::parse(input.get("command").and_then(Value::as_str).unwrap_or(""))
        .commands
        .iter()
        .map(|c| {
            c.words
                .iter()
                .map(|w| w.shown())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn instruction_files_are_read_like_read_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let outside = dir.path().join("credentials");
        std::fs::write(&outside, "aws_secret_access_key = LEAKED").expect("write");
        let project = dir.path().join("p");
        std::fs::create_dir(&project).expect("mkdir");
        std::os::unix::fs::symlink(&outside, project.join("AGENTS.md")).expect("link");
        let root = tools::ProjectRoot::open(&project).expect("open");
        let prompt = super::system_prompt(&root, true);
        assert!(!prompt.contains("LEAKED"), "{prompt}");
        assert!(prompt.contains("Commands run in a sandbox"));

        // A link to a secret inside the project is not followed either.
        std::fs::remove_file(project.join("AGENTS.md")).expect("rm");
        std::fs::write(project.join(".env"), "TOKEN=LEAKED").expect("write");
        std::os::unix::fs::symlink(".env", project.join("AGENTS.md")).expect("link");
        assert!(!super::system_prompt(&root, false).contains("LEAKED"));

        // A real file is read, and a long one is cut.
        std::fs::remove_file(project.join("AGENTS.md")).expect("rm");
        let long = format!("Use tabs.\n{}", "x".repeat(100_000));
        std::fs::write(project.join("AGENTS.md"), long).expect("write");
        let prompt = super::system_prompt(&root, false);
        assert!(prompt.contains("Use tabs."));
        assert!(prompt.contains("the rest of the file was cut"));
        assert!(prompt.len() < 40_000);
    }

    #[test]
    fn today_is_a_date() {
        let t = super::today();
        assert_eq!(t.len(), 10);
        assert!(t.starts_with("20"), "{t}");
        assert_eq!(&t[4..5], "-");
    }
}
