//! An agent's calls: the pipeline every tool call goes through — looked up once (a registry
//! tool's arguments read into its type, a skill's or a server's tool found), shown, checked
//! and worked out, judged by the policy, put to the person when the policy asks, run where it
//! was decided, and what it came to — with what the agent keeps across calls: the record a
//! task_done is weighed against, the files it changed, and the loop breaker.

use super::approvals::Approvals;
use super::ask::{Asker, Settled, Subject};
use super::claims::WorkRecord;
use super::command::{Command, commands_in};
use super::external::{log_decision, run_server_tool, run_skill_tool};
use super::loop_breaker::{LoopBreaker, Verdict as Circle};
use super::prepare::{Prepared, prepare};
use super::reply::{Answered, Attachment, Halt, Reply};
use super::rules::Rules;
use super::skills::{Elsewhere, Skills};
use crate::history::log::LogError;
use crate::history::turn_checkpoint::TurnCheckpoint;
use crate::journal::Journal;
use policy::Verdict;
use protocol::{AgentEvent, ApprovalRequest, Confinement, ToolSummary};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use tools::{EngineCall, Resolved, TaskDoneArgs, Toolbox};

/// The session's own folder (each file's content before the session first changed it is kept
/// there, for the review of everything the session changed) and when the session started (a
/// file last modified before that was not changed by it).
#[derive(Debug, Clone, Default)]
pub(crate) struct SessionFiles {
    pub dir: Option<PathBuf>,
    pub started_ms: Option<u64>,
}

pub(crate) struct Calls {
    pub(crate) toolbox: Arc<Toolbox>,
    pub(crate) rules: Rules,
    pub(crate) approvals: Approvals,
    /// What a task_done's summary is checked against.
    pub(crate) record: WorkRecord,
    /// Files this agent wrote or edited (a sub-agent reports them).
    pub(crate) changed_files: BTreeSet<String>,
    /// Circles of calls and of failing checks.
    pub(crate) breaker: LoopBreaker,
    pub(crate) session: SessionFiles,
    /// The turn's checkpoint, while it is still being taken: a call that may change the
    /// project waits for it.
    pub(crate) checkpoint: Option<TurnCheckpoint>,
}

/// Who makes a call, and what it may reach: the agent's journal, its skills and servers, and
/// whether its model is a small one.
pub(crate) struct Caller<'a> {
    pub journal: &'a mut Journal,
    pub skills: &'a mut Skills,
    pub small_model: bool,
}

/// What a call came to: the reply the model hears, or one of the engine's own calls (an
/// agent started or messaged) for the agent to run.
pub(crate) enum Called {
    Answered(Reply),
    Engine(EngineCall),
}

/// What the turn goes on with after a call, read from the call's typed arguments: the command
/// it ran, the file it changed, what it said was done.
#[derive(Debug, Default)]
pub(crate) struct Facts {
    pub command: Option<String>,
    /// The file changed and the text its edit put there.
    pub edited: Option<(String, Option<String>)>,
    /// A task_done's claims.
    pub finish: Option<TaskDoneArgs>,
    /// The breaker paused the task on this call (its reason, for people).
    pub paused: Option<String>,
}

/// One call as the model wrote it.
pub(crate) struct Asked<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub input: &'a Value,
    /// Why its arguments were not JSON, when they were not.
    pub malformed: Option<(&'a str, &'a str)>,
}

/// Where a name leads.
enum Target {
    Registry(Resolved),
    Elsewhere(Elsewhere),
    /// Not a tool, or arguments that do not fit it: the model's to fix.
    Mistake(String),
}

impl Calls {
    /// A call the model made in its reply: shown, then refused for its shape, stopped by the
    /// loop breaker, or put through the pipeline — repaired first where what it meant is
    /// plain.
    pub(crate) async fn call(
        &mut self,
        caller: &mut Caller<'_>,
        asked: &Asked<'_>,
        cancel: &CancellationToken,
    ) -> Result<(Called, Facts), Halt> {
        let target = self.target(caller, asked.name, asked.input);
        self.show(caller.journal, asked, &target)?;
        let mut facts = Facts::default();
        if let Some((error, raw)) = asked.malformed {
            let text = format!(
                "Your arguments for {} were not valid JSON ({error}): {raw}. Send them again as one JSON object.",
                asked.name
            );
            return Ok((Called::Answered(Reply::err(text)), facts));
        }
        let circle = {
            // Waiting on a task is no circle, nor is finishing: a task_done repeated over
            // several wake-ups (each after a report) is the model saying it is done again.
            let polls = matches!(&target, Target::Registry(c)
                if matches!(c.spec.step, tools::Step::Polls | tools::Step::Finishes));
            let root = self.toolbox.ws.root();
            let read = |p: &str| crate::assist::project_text::read(root, p);
            self.breaker
                .before_call(asked.name, &asked.input.to_string(), polls, &read)
        };
        if let Some(circle) = circle {
            let (text, paused) = match circle {
                Circle::StepBack { text } => (text, false),
                Circle::Pause { reason, text } => {
                    facts.paused = Some(reason);
                    (text, true)
                }
            };
            // The words are the model's; people see a quiet line, typed.
            let mut reply = Reply::err(text);
            reply.outcome = protocol::ToolOutcome::Repeated;
            reply.summary = Some(protocol::ToolSummary::Repeated { paused });
            return Ok((Called::Answered(reply), facts));
        }
        let (target, note) = match target {
            Target::Registry(call) => {
                let (call, note) = self.repaired(call, caller.small_model);
                (Target::Registry(call), note)
            }
            other => (other, None),
        };
        let (mut called, facts_of) = self.through(caller, asked, target, cancel).await?;
        if let (Some(note), Called::Answered(reply)) = (note, &mut called)
            && !reply.is_error
        {
            // What was put right, for the model to learn the right shape.
            reply.text.push_str(&note);
        }
        facts.command = facts_of.command;
        facts.edited = facts_of.edited;
        facts.finish = facts_of.finish;
        Ok((called, facts))
    }

    /// A call the engine makes for the model (a file the task attached, read before the first
    /// step): shown and put through the pipeline as any other.
    pub(crate) async fn call_for_model(
        &mut self,
        caller: &mut Caller<'_>,
        asked: &Asked<'_>,
        cancel: &CancellationToken,
    ) -> Answered {
        let target = self.target(caller, asked.name, asked.input);
        self.show(caller.journal, asked, &target)?;
        match self.through(caller, asked, target, cancel).await? {
            (Called::Answered(reply), _) => Ok(reply),
            (Called::Engine(_), _) => Ok(Reply::err(format!(
                "{} cannot be called for the model",
                asked.name
            ))),
        }
    }

    /// Where `name` leads: a skill's or server's tool, the registry's (its arguments read into
    /// the tool's type, once), or nowhere.
    fn target(&self, caller: &Caller<'_>, name: &str, input: &Value) -> Target {
        if let Some(elsewhere) = caller.skills.elsewhere(name) {
            return Target::Elsewhere(elsewhere);
        }
        match tools::resolve(name, input.clone()) {
            Ok(call) => Target::Registry(call),
            Err(e) if tools::find_tool(name).is_none() => {
                // Unknown: the model's mistake to fix, never a question for the user.
                let _ = e;
                let others: Vec<String> = caller
                    .skills
                    .other_names()
                    .into_iter()
                    .filter(|n| self.rules.unavailable(&self.toolbox, n).is_none())
                    .collect();
                Target::Mistake(tools::no_tool_named(name, &others))
            }
            Err(e) => Target::Mistake(e.to_string()),
        }
    }

    /// The call as people see it, before anything is decided about it.
    fn show(&self, journal: &mut Journal, asked: &Asked<'_>, target: &Target) -> Result<(), Halt> {
        let (title, look) = match target {
            Target::Registry(call) => (call.title(), call.look()),
            _ => (
                vec![protocol::TitlePart::words(tools::words_for(asked.name))],
                protocol::CallLook::default(),
            ),
        };
        journal.emit(AgentEvent::ToolCallProposed {
            id: journal.event_id(asked.id),
            name: asked.name.to_string(),
            input: asked.input.clone(),
            title,
            look,
        })?;
        Ok(())
    }

    /// A write or an edit put right where what the model meant is plain (see `call_repair`):
    /// the repaired call is judged and shown like any other, and the model told what was
    /// changed once it ran.
    fn repaired(&self, call: Resolved, small_model: bool) -> (Resolved, Option<String>) {
        let writes = call
            .policy(&tools::Worked::default())
            .iter()
            .any(|c| matches!(c, policy::ToolCall::Write { .. }));
        if !writes {
            return (call, None);
        }
        let root = self.toolbox.ws.root();
        match crate::assist::call_repair::repaired_call(root, small_model, &call.input) {
            Some((input, note)) => match call.with_input(input) {
                Ok(repaired) => (repaired, Some(note)),
                Err(_) => (call, None),
            },
            None => (call, None),
        }
    }

    /// The pipeline: what is not available is refused, a skill's or server's tool goes its
    /// own way, a registry tool is checked and worked out, judged, asked about, and run.
    async fn through(
        &mut self,
        caller: &mut Caller<'_>,
        asked: &Asked<'_>,
        target: Target,
        cancel: &CancellationToken,
    ) -> Result<(Called, Facts), Halt> {
        let answered = |reply| Ok((Called::Answered(reply), Facts::default()));
        if let Some(why) = self.rules.unavailable(&self.toolbox, asked.name) {
            return answered(
                Reply::err(why.refusal(asked.name))
                    .with(protocol::ToolOutcome::Refused)
                    .summed(Some(ToolSummary::Refused {
                        reason: why.words(),
                    })),
            );
        }
        let title = match &target {
            Target::Registry(call) => call.title(),
            _ => vec![protocol::TitlePart::words(tools::words_for(asked.name))],
        };
        let subject = Subject {
            id: asked.id,
            name: asked.name,
            input: asked.input,
            title,
        };
        let may_change = match &target {
            Target::Registry(call) => !call.spec.read_only,
            Target::Elsewhere(_) => true,
            Target::Mistake(_) => false,
        };
        if may_change {
            self.checkpoint_taken(caller.journal).await?;
        }
        let call = match target {
            Target::Mistake(text) => return answered(Reply::err(text)),
            Target::Elsewhere(elsewhere) => {
                let mut asker = self.asker(caller.journal);
                let reply = match elsewhere {
                    Elsewhere::Skill(skill) => {
                        let (skill, tool) = &*skill;
                        run_skill_tool(&mut asker, &self.toolbox, &subject, (skill, tool), cancel)
                            .await?
                    }
                    Elsewhere::Server(hub) => {
                        run_server_tool(&mut asker, &self.toolbox, &subject, hub, cancel).await?
                    }
                };
                return answered(reply);
            }
            Target::Registry(call) => call,
        };
        // The skill tools list and activate skills: nothing to judge.
        if let Some(engine) = call.engine()
            && let Some(reply) = caller.skills.run(&engine, caller.journal)?
        {
            return answered(reply);
        }
        let prepared = match prepare(&self.toolbox, call, caller.small_model).await {
            Ok(p) => p,
            Err(reply) => return answered(reply),
        };
        let facts = Facts {
            command: prepared.command().map(str::to_string),
            edited: prepared
                .planned
                .as_ref()
                .map(|p| (p.path.clone(), p.new_text.clone())),
            finish: prepared.call.finish(),
            paused: None,
        };
        let called = self
            .decide_and_run(caller, &subject, prepared, cancel)
            .await?;
        // A call that did not go through changed nothing and ended nothing.
        let facts = match &called {
            Called::Answered(reply) if reply.is_error => Facts {
                command: facts.command,
                ..Facts::default()
            },
            _ => facts,
        };
        Ok((called, facts))
    }

    /// Judged, asked about when the policy asks, and run where it was decided.
    async fn decide_and_run(
        &mut self,
        caller: &mut Caller<'_>,
        subject: &Subject<'_>,
        prepared: Prepared,
        cancel: &CancellationToken,
    ) -> Result<Called, Halt> {
        let mode = self.rules.mode();
        let sandboxed = self.toolbox.commands.sandbox.is_some();
        let decision = self
            .rules
            .judge(&self.toolbox, &prepared.call, &prepared.worked());
        let mut asker = Asker {
            journal: caller.journal,
            approvals: &self.approvals,
            rules: &self.rules,
            root: self.toolbox.ws.root().path(),
        };
        log_decision(&mut asker, subject.id, &decision, None)?;
        let confinement = prepared
            .command()
            .map(|_| crate::sandboxing::confinement(&decision, mode, sandboxed));
        let background = prepared
            .call
            .input
            .get("background")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let reviewed = super::command::reviewed_instead(
            &decision,
            confinement,
            &prepared.call,
            (&self.toolbox, &self.rules),
            background,
        );
        let accepted = match decision.decision {
            Verdict::Deny => return Ok(Called::Answered(Reply::refused(&decision))),
            // What it changes is what the person is asked about, once it has run.
            Verdict::Ask if reviewed => None,
            Verdict::Ask => {
                let mut request =
                    approval_request(&asker, subject, &decision, &prepared, confinement);
                request.commit = commit_preview(&self.toolbox, &self.session, &prepared);
                let splits = prepared.planned.is_some();
                match asker.settle(request, &decision, splits, cancel).await? {
                    Settled::Go(accepted) => accepted,
                    Settled::Reply(reply) => {
                        // What the person said no to is named at the task's end.
                        match (&prepared.planned, prepared.command()) {
                            (Some(p), _) => self.record.rejected(&p.path, p.original.as_deref()),
                            (None, Some(command)) => self.record.command_denied(command),
                            (None, None) => {
                                let title: String =
                                    subject.title.iter().map(|t| t.text.as_str()).collect();
                                self.record.call_denied(&title);
                            }
                        }
                        return Ok(Called::Answered(reply));
                    }
                }
            }
            Verdict::Allow => None,
        };
        if let Some(p) = &prepared.planned
            && let Some(dir) = &self.session.dir
            && let Err(e) =
                crate::history::changes::record_baseline(dir, &p.path, p.original.as_deref())
        {
            // The review panel loses this file's "before"; the write itself is still right.
            tracing::warn!(error = %e, "could not keep the file's content before the change");
        }
        if let (Some(p), Some(acc)) = (&prepared.planned, &accepted) {
            return Ok(Called::Answered(self.apply_in_part(p, acc)));
        }
        if let (Some(confinement), Some(text)) = (confinement, prepared.command()) {
            let command = Command {
                call: &prepared.call,
                text,
                confinement,
                mode,
                on_landed: self.session.dir.clone().map(keep_baselines),
                landing: super::command::landing_for(mode),
                readable: decision.sandbox.reads.iter().map(Into::into).collect(),
            };
            let mut landed = Vec::new();
            let reply = super::command::run(
                &mut asker,
                &self.toolbox,
                subject,
                command,
                &mut self.record,
                cancel,
                &mut landed,
            )
            .await;
            self.note_landed(Some(text), &landed);
            return Ok(Called::Answered(reply?));
        }
        if let Some(engine) = prepared.call.engine() {
            return Ok(Called::Engine(engine));
        }
        let reply = self.run(caller.journal, &prepared, cancel).await?;
        Ok(Called::Answered(reply))
    }

    /// Waits for the turn's checkpoint, when it is still being taken.
    pub(crate) async fn checkpoint_taken(&mut self, journal: &mut Journal) -> Result<(), LogError> {
        match self.checkpoint.take() {
            Some(pending) => pending.settle(journal).await,
            None => Ok(()),
        }
    }

    fn asker<'a>(&'a self, journal: &'a mut Journal) -> Asker<'a> {
        Asker {
            journal,
            approvals: &self.approvals,
            rules: &self.rules,
            root: self.toolbox.ws.root().path(),
        }
    }

    /// The changes a command left waiting in its layer when it ended in the background: put
    /// to the person as any command's changes, and landed as answered. What became of them,
    /// in words for the model; `None` when nothing waited.
    pub(crate) async fn review_waiting(
        &mut self,
        journal: &mut Journal,
        task: &str,
        title: &str,
        cancel: &CancellationToken,
    ) -> Result<Option<String>, Halt> {
        let Some(held) = self.toolbox.tasks.take_held(task) else {
            return Ok(None);
        };
        let heading = format!("What background task {task} changed: ");
        self.answer_held(
            journal,
            (task, title, heading, false),
            held,
            tools::Landed::default(),
            cancel,
        )
        .await
        .map(Some)
    }

    /// The changes a background command made so far, while it still runs (the person asked):
    /// taken out of its layer, what lands unasked lands, the rest is put to the person; the
    /// command goes on, and its end asks only about what it changes after. What became of
    /// them, in words for the model; `None` when nothing waited.
    pub(crate) async fn review_running(
        &mut self,
        journal: &mut Journal,
        task: &str,
        title: &str,
        cancel: &CancellationToken,
    ) -> Result<Option<String>, Halt> {
        let first = match self.toolbox.take_running(task).await {
            Ok(Some(landed)) => landed,
            Ok(None) => return Ok(None),
            Err(e) => return Ok(Some(format!("\n[{e}]"))),
        };
        let held = first.held.take();
        let heading = format!("What background task {task} changed so far (it goes on running): ");
        let words = match held {
            Some(held) => {
                self.answer_held(journal, (task, title, heading, true), held, first, cancel)
                    .await?
            }
            None if first.changes.files.is_empty() => return Ok(None),
            None => {
                self.keep_landed(&first.before);
                format!("\n{}", tools::changes_words(&first.changes))
            }
        };
        Ok(Some(words))
    }

    /// Puts `held` to the person and lands it as answered, after what already landed
    /// unasked (`first`); what became of all of it, in words for the model.
    async fn answer_held(
        &mut self,
        journal: &mut Journal,
        (task, title, heading, running): (&str, &str, String, bool),
        held: tools::Held,
        mut first: tools::Landed,
        cancel: &CancellationToken,
    ) -> Result<String, Halt> {
        let input = serde_json::json!({ "command": title, "task": task });
        let subject = Subject {
            id: task,
            name: "run_command",
            input: &input,
            title: vec![
                protocol::TitlePart::words(heading),
                protocol::TitlePart::code(title),
            ],
        };
        let mut asker = self.asker(journal);
        let (accepted, said) =
            super::command::review(&mut asker, &subject, (title, running), None, &held, cancel)
                .await?;
        let landed = match self.toolbox.land_held(held, accepted).await {
            Ok(landed) => landed,
            Err(e) => {
                self.keep_landed(&first.before);
                return Ok(format!("\n[Its changes: {e}]"));
            }
        };
        first.add(landed);
        self.keep_landed(&first.before);
        let mut words = format!("\n{}", tools::changes_words(&first.changes));
        if let Some(said) = said {
            words.push_str(&format!("[{said}]\n"));
        }
        Ok(words)
    }

    /// Files a command's reviewed changes put in the project: the session's record keeps
    /// their text before, and the turn counts them as changed.
    fn keep_landed(&mut self, before: &[(String, Option<String>)]) {
        if before.is_empty() {
            return;
        }
        if let Some(dir) = &self.session.dir {
            (keep_baselines(dir.clone()).0)(before);
        }
        // A background command's changes, reviewed later: changes like an edit's.
        self.note_landed(None, before);
    }

    /// Project files a command's layer landed (`by`: the command, when it ran in the
    /// foreground): the files changed this turn take them as they take an edit's (the
    /// session's record has them from `keep_baselines`).
    fn note_landed(&mut self, by: Option<&str>, landed: &[(String, Option<String>)]) {
        for (path, _) in landed {
            self.changed_files.insert(path.clone());
            match by {
                Some(command) => self.record.landed_by(command, path),
                None => self.record.written(path),
            }
        }
    }

    /// A change approved in part: the hunks kept are written, and the model told which.
    fn apply_in_part(&mut self, p: &tools::Planned, acc: &[u32]) -> Reply {
        let total = p.hunks().len();
        let set: BTreeSet<usize> = acc
            .iter()
            .map(|&i| i as usize)
            .filter(|&i| i < total)
            .collect();
        let merged = p.merge(&set);
        let rejected: Vec<usize> = (0..total).filter(|i| !set.contains(i)).collect();
        match tools::apply_planned(&self.toolbox.ws, p, &merged) {
            Ok(change) => {
                self.toolbox.cache.clear();
                self.changed_files.insert(change.path.clone());
                if set.is_empty() {
                    self.record.rejected(&p.path, p.original.as_deref());
                } else if set.len() < total {
                    self.record
                        .kept_in_part(&p.path, set.len() as u32, total as u32);
                } else {
                    self.record.written(&p.path);
                }
                Reply::ok(format!(
                    "The user applied hunks {:?} of {total} to {} and rejected hunks {rejected:?} (numbered from 0, in file order). {}. Read the file again before editing it further.",
                    set.iter().collect::<Vec<_>>(),
                    change.path,
                    tools::render_change(&change, "Wrote").trim_end_matches('.')
                ))
                .summed(Some(ToolSummary::ChangesKept {
                    path: change.path.clone(),
                    kept: set.len() as u32,
                    total: total as u32,
                }))
            }
            Err(e) => Reply::err(e.to_string()),
        }
    }

    /// Runs a registry tool the policy let through: a change as it was planned, judged and
    /// shown; a fetch only to the addresses judged (and its redirects judged again); anything
    /// the tool runs stopped with the task.
    async fn run(
        &mut self,
        journal: &mut Journal,
        prepared: &Prepared,
        cancel: &CancellationToken,
    ) -> Answered {
        let out = match &prepared.planned {
            // A change is written as it was planned, judged and shown, not worked out again.
            Some(p) => self.toolbox.apply_change(p),
            None => {
                let ctx = tools::CallContext {
                    // Stop ends what the tool runs (create_pull_request's push and `gh`).
                    cancel: Some(cancel.clone()),
                    fetch: tools::FetchContext {
                        addrs: prepared.addrs.clone(),
                        gate: prepared.url().map(|url| {
                            self.rules
                                .fetch_gate(&self.toolbox, url, prepared.addrs.clone())
                        }),
                    },
                    owner: journal.agent_id().map(str::to_string),
                    ..Default::default()
                };
                self.toolbox.run_call(&prepared.call, &ctx).await
            }
        };
        let out = match out {
            Ok(out) => out,
            Err(e) => return Ok(Reply::err(e.to_string())),
        };
        if let Some(p) = &prepared.planned {
            self.changed_files.insert(p.path.clone());
            self.record.written(&p.path);
        }
        if let tools::Details::Plan(items) = &out.details {
            journal.emit(AgentEvent::PlanUpdated {
                items: items.clone(),
            })?;
        }
        let attachment = attachment_of(&self.toolbox, &out.details);
        let mut reply = Reply::ok(out.text).summed(out.summary);
        reply.attachment = attachment;
        Ok(reply)
    }
}

/// Files a commit card lists; more are counted.
const COMMIT_FILES_SHOWN: usize = 50;

/// For a commit: its files and their diffs, and whether the person saw each change in Tandem
/// (the session changed it). None for any other call.
fn commit_preview(
    toolbox: &Toolbox,
    session: &SessionFiles,
    prepared: &Prepared,
) -> Option<protocol::CommitPreview> {
    let paths = prepared.call.commits(&toolbox.ws)?.ok()?;
    let diffs = match tools::commit_diffs(toolbox.ws.root(), &paths) {
        Ok(d) => d,
        Err(e) => {
            tracing::warn!(%e, "a commit's files could not be read for its card");
            return None;
        }
    };
    let seen = session
        .dir
        .as_deref()
        .map(crate::history::changes::changed_paths)
        .unwrap_or_default();
    let message = prepared
        .call
        .input
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let more = diffs.len().saturating_sub(COMMIT_FILES_SHOWN) as u32;
    let files = diffs
        .into_iter()
        .take(COMMIT_FILES_SHOWN)
        .map(|d| protocol::CommitFile {
            seen: seen.contains(&d.path),
            path: d.path,
            change: d.change,
            added: d.added,
            removed: d.removed,
            diff: d.diff,
            secret: d.secret,
        })
        .collect();
    Some(protocol::CommitPreview {
        message,
        files,
        more,
    })
}

/// What the person is asked: the call, the policy's reason, and for a change the file before
/// and after with its hunks, for a command its parts and where it would run.
fn approval_request(
    asker: &Asker<'_>,
    subject: &Subject<'_>,
    decision: &policy::Decision,
    prepared: &Prepared,
    confinement: Option<Confinement>,
) -> ApprovalRequest {
    let planned = prepared.planned.as_ref();
    let command = confinement.and(prepared.command());
    ApprovalRequest {
        change: protocol::ChangePreview {
            path: planned.map(|p| p.path.clone()),
            original: planned.map(|p| p.original.clone().unwrap_or_default()),
            proposed: planned.map(|p| p.content.clone()),
            hunks: planned.map(tools::Planned::hunks).unwrap_or_default(),
        },
        run: protocol::CommandPreview {
            commands: command.map(commands_in).unwrap_or_default(),
            command: command.map(str::to_string),
            confinement,
            sandbox_denial: None,
        },
        ..subject.question(asker.journal, decision)
    }
}

/// Keeps, in the session's record of changes (the Changes panel, the export), each project
/// file a command's layer landed and its text before — when the command ends, in the
/// foreground or the background.
fn keep_baselines(dir: std::path::PathBuf) -> tools::OnLanded {
    tools::OnLanded(std::sync::Arc::new(
        move |landed: &[(String, Option<String>)]| {
            for (path, before) in landed {
                if let Err(e) =
                    crate::history::changes::record_baseline(&dir, path, before.as_deref())
                {
                    tracing::warn!(error = %e, "could not keep the file's content before the change");
                }
            }
        },
    ))
}

/// A file a tool's output carries for the model itself: an image or a PDF read, an image or
/// a document fetched.
fn attachment_of(toolbox: &Toolbox, details: &tools::Details) -> Option<Attachment> {
    match details {
        tools::Details::File(protocol::FileContent::Image {
            path,
            mime,
            data_base64,
            ..
        }) if !data_base64.is_empty() => Some(Attachment {
            path: path.clone(),
            media_type: mime.clone(),
            data: data_base64.clone(),
        }),
        tools::Details::File(protocol::FileContent::Text {
            path,
            extracted_from: Some(protocol::ExtractedFrom::Pdf),
            ..
        }) => Some(Attachment {
            path: path.clone(),
            media_type: "application/pdf".into(),
            data: toolbox.attachable(path)?,
        }),
        tools::Details::Fetched(fetched) => {
            let file = fetched.image.as_ref().or(fetched.document.as_ref())?;
            Some(Attachment {
                path: fetched.url.clone(),
                media_type: file.mime.clone(),
                data: file.data_base64.clone(),
            })
        }
        _ => None,
    }
}
