//! One tool call through the engine: worked out (a write's diff), judged by the policy engine,
//! put to the user when the policy asks, run where it was decided (a command in the sandbox,
//! a fetch to the addresses judged), and told back to the model.

use crate::log_entry::EngineEntry;
use crate::policy_call::judge_tool_call;
use crate::turn::{Agent, AgentError, Attachment, ToolReply};
use policy::{Context, Mode, Verdict};
use protocol::{
    AgentEvent, ApprovalAnswer, ApprovalRequest, Confinement, OutsideReason, SandboxDenial,
    ToolOutcome, ToolSummary,
};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::PoisonError;
use tokio_util::sync::CancellationToken;
use tools::PolicyView;

impl Agent {
    /// Policy, approval, execution. `None` when the task must stop (cancelled, or nobody is
    /// there to answer a question).
    pub(crate) async fn judge_and_run(
        &mut self,
        id: &str,
        name: &str,
        input: &Value,
        cancel: &CancellationToken,
    ) -> Result<Option<ToolReply>, AgentError> {
        if let Routed::Answered(reply) = self.route(id, name, input, cancel).await? {
            return Ok(reply);
        }
        let prepared = match self.prepare(name, input).await {
            Ok(p) => p,
            Err(reply) => return Ok(Some(reply)),
        };
        let Prepared { planned, resolved } = prepared;
        let diff_lines = planned.as_ref().map_or(0, tools::Planned::changed_lines);
        let ws = &self.toolbox.ws;
        let mode = self.mode();
        let sandboxed = self.toolbox.commands.sandbox.is_some();
        let decision = self.with_policy(mode, sandboxed, |policy, ctx| {
            judge_tool_call(policy, ctx, ws.root(), name, input, diff_lines, &resolved)
        });
        self.log_decision(id, &decision, None)?;
        let confinement = (tools::policy_view(name) == Some(PolicyView::Command))
            .then(|| crate::sandboxing::confinement(&decision, mode, sandboxed));
        let accepted = match decision.decision {
            Verdict::Deny => {
                return Ok(Some(
                    ToolReply::err(format!(
                        "The policy refused this call: {} [{}]. Do not retry it; find another way or ask the user.",
                        decision.reason, decision.rule.name
                    ))
                    .with(ToolOutcome::Refused)
                    .summed(Some(ToolSummary::Refused {
                        reason: decision.reason.clone(),
                    })),
                ));
            }
            Verdict::Ask => {
                let request = self.approval_request(
                    id,
                    name,
                    input,
                    &decision,
                    planned.as_ref(),
                    confinement,
                );
                match self
                    .settle_approval(request, &decision, planned.as_ref(), cancel)
                    .await?
                {
                    Settled::Go(accepted) => accepted,
                    Settled::Reply(reply) => return Ok(Some(reply)),
                    Settled::Stop => return Ok(None),
                }
            }
            Verdict::Allow => None,
        };

        if let Some(p) = &planned
            && let Some(dir) = &self.config.session_dir
            && let Err(e) = crate::changes::record_baseline(dir, &p.path, p.original.as_deref())
        {
            // The review panel loses this file's "before"; the write itself is still right.
            tracing::warn!(error = %e, "could not keep the file's content before the change");
        }
        if let (Some(p), Some(acc)) = (&planned, &accepted) {
            return Ok(Some(self.apply_in_part(p, acc)));
        }
        if let Some(confinement) = confinement {
            return self
                .run_command(id, name, input, confinement, mode, cancel)
                .await;
        }
        if let Some(tool) = tools::find_tool(name).and_then(tools::ToolSpec::engine_tool)
            && tool.is_agent_tool()
        {
            return self.run_agent_tool(tool, name, input, cancel).await;
        }
        self.run_catalog_tool(name, input, planned.as_ref(), resolved, cancel)
            .await
            .map(Some)
    }

    /// Calls the registry does not run the usual way: a tool not on offer, an active skill's
    /// or a server's, a name no tool has, the skill tools, a read outside the project.
    async fn route(
        &mut self,
        id: &str,
        name: &str,
        input: &Value,
        cancel: &CancellationToken,
    ) -> Result<Routed, AgentError> {
        if let Some(why) = self.unavailable(name) {
            return Ok(Routed::Answered(Some(
                ToolReply::err(why.refusal(name))
                    .with(ToolOutcome::Refused)
                    .summed(Some(ToolSummary::Refused {
                        reason: why.words(),
                    })),
            )));
        }
        // Tools from outside the registry: an active skill's, a server's.
        if let Some((skill, tool)) = self.active.resolve(name) {
            return self
                .run_skill_tool(id, name, &skill, &tool, input, cancel)
                .await
                .map(Routed::Answered);
        }
        if self.is_server_tool(name) {
            return self
                .run_server_tool(id, name, input, cancel)
                .await
                .map(Routed::Answered);
        }
        let Some(spec) = tools::find_tool(name) else {
            // Unknown: the model's mistake to fix, never a question for the user.
            let mut names: Vec<String> = tools::TOOLS.iter().map(|t| t.name.to_string()).collect();
            names.extend(
                self.catalog(true)
                    .into_iter()
                    .map(|d| d.name)
                    .filter(|n| tools::find_tool(n).is_none()),
            );
            return Ok(Routed::Answered(Some(ToolReply::err(format!(
                "There is no tool named `{name}`. The tools are: {}.",
                names.join(", ")
            )))));
        };
        if let Some(tool) = spec.engine_tool()
            && tool.is_skill_tool()
        {
            return self
                .run_skill_meta(tool, input)
                .map(|r| Routed::Answered(Some(r)));
        }
        // A read outside the project can never run: the model hears why, nobody is asked.
        if let Err(e) = self.toolbox.readable(name, input) {
            return Ok(Routed::Answered(Some(ToolReply::err(e.to_string()))));
        }
        Ok(Routed::Catalog)
    }

    /// What is worked out before the policy judges: a write's change (so the approval shows
    /// what will be written) and a fetch's addresses (judged, and then the ones used).
    /// Arguments that do not fit the tool, or a write that would fail, are the model's to fix:
    /// the tool says why, with nothing asked.
    async fn prepare(&self, name: &str, input: &Value) -> Result<Prepared, ToolReply> {
        let ws = &self.toolbox.ws;
        let planned = match tools::plan_change(ws, name, input) {
            Some(Ok(p)) => Some(p),
            Some(Err(e)) => return Err(ToolReply::err(e.to_string())),
            None => None,
        };
        if let Err(e) = tools::check_before_asking(ws, name, input) {
            return Err(ToolReply::err(e.to_string()));
        }
        // A small model's rewrite of a whole file must keep what the file had.
        if self.small_model()
            && let Some(p) = planned.as_ref().filter(|p| p.whole)
            && let Some(old) = &p.original
            && let Some(why) = crate::write_guard::refusal(&p.path, old, &p.content)
        {
            return Err(ToolReply::err(why));
        }
        // A fetch is judged on the addresses its host looks up to, and goes to those.
        let resolved = if tools::policy_view(name) == Some(PolicyView::Fetch) {
            crate::fetch_gate::resolve_fetch(input)
                .await
                .map_err(|why| {
                    ToolReply::err(format!("fetching failed: {why}. Nothing was sent."))
                })?
        } else {
            Vec::new()
        };
        Ok(Prepared { planned, resolved })
    }

    /// What the person is asked: the call, the policy's reason, and for a change the file
    /// before and after with its hunks, for a command its parts and where it would run.
    fn approval_request(
        &self,
        id: &str,
        name: &str,
        input: &Value,
        decision: &policy::Decision,
        planned: Option<&tools::Planned>,
        confinement: Option<Confinement>,
    ) -> ApprovalRequest {
        ApprovalRequest {
            path: planned.map(|p| p.path.clone()),
            original: planned.map(|p| p.original.clone().unwrap_or_default()),
            proposed: planned.map(|p| p.content.clone()),
            hunks: planned.map(tools::Planned::hunks).unwrap_or_default(),
            commands: if confinement.is_some() {
                simple_commands(input)
            } else {
                Vec::new()
            },
            command: confinement.is_some().then(|| {
                input
                    .get("command")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            }),
            confinement,
            ..self.question(id, name, input, decision)
        }
    }

    /// Puts the call to the person and keeps what they answered: go on (with the hunks they
    /// kept, for a change approved in part), the reply a denial makes, or stop.
    async fn settle_approval(
        &mut self,
        request: ApprovalRequest,
        decision: &policy::Decision,
        planned: Option<&tools::Planned>,
        cancel: &CancellationToken,
    ) -> Result<Settled, AgentError> {
        let Some(answer) = self.ask(request, cancel).await? else {
            return Ok(Settled::Stop);
        };
        self.keep_answer(decision, &answer)?;
        Ok(match answer {
            ApprovalAnswer::Approve
            | ApprovalAnswer::ApproveForSession { .. }
            | ApprovalAnswer::ApproveAlways { .. } => Settled::Go(None),
            ApprovalAnswer::Deny { message } => {
                if let Some(p) = planned {
                    self.record.rejected(&p.path, p.original.as_deref());
                }
                let note = message
                    .as_ref()
                    .map(|m| format!(" The user says: {m}"))
                    .unwrap_or_default();
                Settled::Reply(
                    ToolReply::err(format!("The user denied this call.{note}"))
                        .with(ToolOutcome::Denied)
                        .summed(Some(ToolSummary::Denied { message })),
                )
            }
            ApprovalAnswer::ApprovePartial { accepted_hunks } => {
                if planned.is_none() {
                    return Ok(Settled::Reply(ToolReply::err("The user approved only part of a call that cannot be split; it did not run.".into()).with(ToolOutcome::Denied)));
                }
                Settled::Go(Some(accepted_hunks))
            }
        })
    }

    /// A change approved in part: the hunks kept are written, and the model told which.
    fn apply_in_part(&mut self, p: &tools::Planned, acc: &[u32]) -> ToolReply {
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
                } else {
                    self.record.written(&p.path);
                }
                ToolReply::ok(format!(
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
            Err(e) => ToolReply::err(e.to_string()),
        }
    }

    /// Runs a registry tool the policy let through: a fetch only to the addresses judged (and
    /// its redirects judged again), anything the tool runs stopped with the task.
    async fn run_catalog_tool(
        &mut self,
        name: &str,
        input: &Value,
        planned: Option<&tools::Planned>,
        resolved: Vec<std::net::IpAddr>,
        cancel: &CancellationToken,
    ) -> Result<ToolReply, AgentError> {
        let mode = self.mode();
        let sandboxed = self.toolbox.commands.sandbox.is_some();
        let call = tools::CallContext {
            confinement: None,
            // Stop ends what the tool runs (create_pull_request's push and `gh`).
            cancel: Some(cancel.clone()),
            fetch: tools::FetchContext {
                addrs: resolved.clone(),
                gate: Some(
                    crate::fetch_gate::FetchJudge {
                        policy: self
                            .policy
                            .read()
                            .unwrap_or_else(PoisonError::into_inner)
                            .clone(),
                        mode,
                        root: self.toolbox.ws.root().path().to_path_buf(),
                        home: self.config.home.clone(),
                        user_policy_file: self.config.user_policy_file.clone(),
                        sandboxed,
                        // It runs: the policy allowed it or the person approved it.
                        cleared: input
                            .get("url")
                            .and_then(Value::as_str)
                            .and_then(crate::fetch_gate::origin)
                            .map(|o| (o, resolved)),
                    }
                    .gate(),
                ),
            },
            ..self.call_context()
        };
        // A change is written as it was planned, judged and shown, not worked out again.
        let out = match planned {
            Some(p) => self.toolbox.apply_change(p),
            None => self.toolbox.run_in(name, input.clone(), &call).await,
        };
        let out = match out {
            Ok(out) => out,
            Err(e) => return Ok(ToolReply::err(e.to_string())),
        };
        if let Some(p) = planned {
            self.changed_files.insert(p.path.clone());
            self.record.written(&p.path);
        }
        if let tools::Details::Plan(items) = &out.details {
            self.emit(AgentEvent::PlanUpdated {
                items: items.clone(),
            })?;
        }
        let attachment = self.attachment_of(&out.details);
        let mut reply = ToolReply::ok(out.text).summed(out.summary);
        reply.attachment = attachment;
        Ok(reply)
    }

    /// A file a tool's output carries for the model itself: an image or a PDF read, an image
    /// or a document fetched.
    fn attachment_of(&self, details: &tools::Details) -> Option<Attachment> {
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
                data: self.toolbox.attachable(path)?,
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

    /// Keeps the policy's decision on a call in the log.
    pub(crate) fn log_decision(
        &mut self,
        id: &str,
        decision: &policy::Decision,
        command: Option<&str>,
    ) -> Result<(), AgentError> {
        self.log.append(&EngineEntry::Decision {
            id: self.event_id(id),
            decision: decision.decision,
            reason: decision.reason.clone(),
            rule: decision.rule.name.clone(),
            sandbox: decision.sandbox,
            command: command.map(str::to_string),
        })?;
        Ok(())
    }

    /// The policy's judgement of one call, in the mode it is judged in now.
    pub(crate) fn judge(
        &self,
        call: &policy::ToolCall<'_>,
        mode: Mode,
        sandboxed: bool,
    ) -> policy::Decision {
        self.with_policy(mode, sandboxed, |policy, ctx| {
            crate::sandboxing::checked_for_this_machine(policy::evaluate(policy, call, ctx), ctx)
        })
    }

    /// Hands `judge` the rules in force and the situation a call is judged in now.
    fn with_policy<R>(
        &self,
        mode: Mode,
        sandboxed: bool,
        judge: impl FnOnce(&policy::Policy, &Context<'_>) -> R,
    ) -> R {
        let ws = &self.toolbox.ws;
        let resolver = |p: &Path| tools::real_path(p);
        let exists = |p: &Path| p.symlink_metadata().is_ok();
        let history = || self.toolbox.history_holds_secrets();
        let ctx = Context {
            project_root: ws.root().path(),
            home: self.config.home.as_deref(),
            mode: Some(mode),
            session_diff_lines: ws.uncommitted_totals().changed(),
            user_policy_file: self.config.user_policy_file.as_deref(),
            sandboxed,
            resolver: &resolver,
            exists: Some(&exists),
            history_holds_secrets: &history,
            saved_outputs: self.toolbox.saved.dirs(),
        };
        let policy = self.policy.read().unwrap_or_else(PoisonError::into_inner);
        judge(&policy, &ctx)
    }

    /// The rule an approval asked to grant: for the session, or kept for the project (and
    /// said so).
    pub(crate) fn keep_answer(
        &mut self,
        decision: &policy::Decision,
        answer: &ApprovalAnswer,
    ) -> Result<(), AgentError> {
        match answer {
            ApprovalAnswer::ApproveForSession { suggestion } => {
                if let Some(s) = decision.suggestions.get(*suggestion as usize) {
                    self.grant(&s.grant)?;
                }
            }
            ApprovalAnswer::ApproveAlways { suggestion } => {
                if let Some(sug) = decision.suggestions.get(*suggestion as usize) {
                    let kept = self.keep_grant(&sug.grant, &sug.label);
                    let text = match kept {
                        Ok(file) => format!(
                            "added to your rules for this project ({file}): {}",
                            sug.label
                        ),
                        Err(e) => format!("the rule is kept for this session only: {e}"),
                    };
                    self.emit(AgentEvent::Notice { text })?;
                    self.grant(&sug.grant)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The approval card's question for a call, with what the decision says.
    pub(crate) fn question(
        &self,
        id: &str,
        name: &str,
        input: &Value,
        decision: &policy::Decision,
    ) -> ApprovalRequest {
        ApprovalRequest {
            suggestions: decision
                .suggestions
                .iter()
                .map(|s| protocol::ApprovalSuggestion {
                    label: s.label.clone(),
                    always: s.scope == policy::Scope::Project,
                })
                .collect(),
            ..self.card(id, name, input, &decision.reason, &decision.rule.name)
        }
    }

    /// An approval card for a call, asked for `reason` under `rule`: what every question
    /// carries before what is particular to it (a change's hunks, a command's parts).
    fn card(
        &self,
        id: &str,
        name: &str,
        input: &Value,
        reason: &str,
        rule: &str,
    ) -> ApprovalRequest {
        ApprovalRequest {
            id: self.event_id(id),
            tool: name.to_string(),
            input: input.clone(),
            reason: reason.to_string(),
            rule: rule.to_string(),
            suggestions: Vec::new(),
            path: None,
            original: None,
            proposed: None,
            hunks: Vec::new(),
            commands: Vec::new(),
            command: None,
            confinement: None,
            sandbox_denial: None,
            agent: self.identity.as_ref().map(|(_, n)| n.clone()),
        }
    }

    /// Tells the front end which task holds a command's output as soon as it runs, so the
    /// card shows it live.
    pub(crate) fn announce_started(&self, id: &str) -> tools::OnStarted {
        let events = self.events.clone();
        let id = self.event_id(id);
        tools::OnStarted(std::sync::Arc::new(move |task: &str| {
            events.send(AgentEvent::CommandStarted {
                id: id.clone(),
                task: task.to_string(),
            });
        }))
    }

    /// What every tool call of this agent carries: who owns the tasks it starts, and the stop.
    pub(crate) fn call_context(&self) -> tools::CallContext {
        tools::CallContext {
            owner: self.identity.as_ref().map(|(id, _)| id.clone()),
            ..Default::default()
        }
    }

    fn grant(&mut self, grant: &policy::Grant) -> Result<(), AgentError> {
        let granted = self
            .policy
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .grant(grant);
        if let Err(e) = granted {
            self.emit(AgentEvent::Notice {
                text: format!("the rule could not be added: {e}"),
            })?;
        }
        Ok(())
    }

    /// Runs a command where it was decided; Stop ends it. When the sandbox stopped it, the
    /// user is asked whether to run it once outside (never kept as a rule), except in
    /// read-only mode.
    async fn run_command(
        &mut self,
        id: &str,
        name: &str,
        input: &Value,
        confinement: Confinement,
        mode: Mode,
        cancel: &CancellationToken,
    ) -> Result<Option<ToolReply>, AgentError> {
        let ctx = tools::CallContext {
            confinement: Some(confinement),
            cancel: Some(cancel.clone()),
            on_started: Some(self.announce_started(id)),
            ..self.call_context()
        };
        let first = self.toolbox.run_in(name, input.clone(), &ctx).await;
        if cancel.is_cancelled() {
            return Ok(None);
        }
        let out = match first {
            Ok(out) => out,
            Err(e) => {
                let mut r = ToolReply::err(e.to_string());
                r.confinement = Some(confinement);
                return Ok(Some(r));
            }
        };
        let command = input
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let ran = command_ran(&out.details);
        if let Some(passed) = ran.passed {
            self.record.ran(command, ran.exit_code, passed);
        }
        let (exit_code, denial, outcome, task) =
            (ran.exit_code, ran.sandbox_denial, ran.outcome, ran.task);
        let sandboxed_reply = ToolReply {
            text: out.text,
            is_error: false,
            outcome,
            confinement: Some(confinement),
            exit_code,
            attachment: None,
            task,
            summary: out.summary.clone(),
        };
        let Some(denial) = denial.filter(|_| mode != Mode::ReadOnly) else {
            return Ok(Some(sandboxed_reply));
        };
        match self
            .ask_to_leave_sandbox(id, name, input, &denial, cancel)
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
                let ctx = tools::CallContext {
                    confinement: Some(outside),
                    cancel: Some(cancel.clone()),
                    ..self.call_context()
                };
                let again = self.toolbox.run_in(name, input.clone(), &ctx).await;
                if cancel.is_cancelled() {
                    return Ok(None);
                }
                Ok(Some(match again {
                    Ok(out) => {
                        let ran = command_ran(&out.details);
                        if let Some(passed) = ran.passed {
                            self.record.ran(command, ran.exit_code, passed);
                        }
                        let (exit_code, outcome, task) = (ran.exit_code, ran.outcome, ran.task);
                        ToolReply {
                            text: format!(
                                "The sandbox stopped the first run ({}); the user approved running it once outside the sandbox. Its result:\n{}",
                                denial.evidence, out.text
                            ),
                            is_error: false,
                            outcome,
                            confinement: Some(outside),
                            exit_code,
                            attachment: None,
                            task,
                            summary: out.summary.clone(),
                        }
                    }
                    Err(e) => {
                        let mut r = ToolReply::err(e.to_string());
                        r.confinement = Some(outside);
                        r
                    }
                }))
            }
        }
    }

    /// Puts a question to the user and waits for the answer; both go into the events and the
    /// log. `None` when the task must stop (cancelled, or nobody is there to answer).
    pub(crate) async fn ask(
        &mut self,
        request: ApprovalRequest,
        cancel: &CancellationToken,
    ) -> Result<Option<ApprovalAnswer>, AgentError> {
        let id = request.id.clone();
        // The question is filed before the event goes out, so a front end that answers the
        // moment it sees the event finds it waiting.
        let rx = self.approvals.ask(request.clone());
        self.emit(AgentEvent::ApprovalNeeded {
            request: Box::new(request),
        })?;
        let answer = tokio::select! {
            a = rx => a.ok(),
            _ = cancel.cancelled() => None,
        };
        let Some(answer) = answer else {
            self.approvals.withdraw(&id);
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
        name: &str,
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
        let reason = format!(
            "The sandbox stopped this command: {what} (`{}`). Run it once outside the sandbox, with your own permissions?",
            denial.evidence
        );
        let request = ApprovalRequest {
            commands: simple_commands(input),
            command: Some(command),
            confinement: Some(Confinement::Outside {
                reason: OutsideReason::Approved,
            }),
            sandbox_denial: Some(denial.clone()),
            ..self.card(id, name, input, &reason, "sandbox")
        };
        let Some(answer) = self.ask(request, cancel).await? else {
            return Ok(None);
        };
        // Only a plain approval runs it: an approval that asks for a rule to be kept is not
        // offered here, so it is read as a plain one, never remembered.
        Ok(Some(!matches!(answer, ApprovalAnswer::Deny { .. })))
    }

    /// Writes an "always in this project" grant into the user's policy file, whole or not at
    /// all (a crash mid-write must not leave half a rule file).
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
        crate::locations::write_atomically(file, updated.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        tracing::info!(file = %file.display(), rule = label, "kept an approval as a project rule");
        Ok(file.display().to_string())
    }
}

/// Each simple command the policy found in a `run_command` call: what really runs.
fn simple_commands(input: &Value) -> Vec<String> {
    commands_in(input.get("command").and_then(Value::as_str).unwrap_or(""))
}

/// Each simple command the policy finds in a command line.
pub(crate) fn commands_in(command: &str) -> Vec<String> {
    policy::shell::parse(command)
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

/// What a command's structured result says about how it ended: one reading for the sandboxed
/// run, the approved run outside it and a skill's tool.
pub(crate) struct CommandRan {
    pub exit_code: Option<i32>,
    /// Ended with exit code 0 within its time; None when it has not ended (background) or the
    /// result is not a command's.
    pub passed: Option<bool>,
    pub outcome: ToolOutcome,
    /// The task it became, when it went on in the background.
    pub task: Option<String>,
    pub sandbox_denial: Option<protocol::SandboxDenial>,
}

pub(crate) fn command_ran(details: &tools::Details) -> CommandRan {
    match details {
        tools::Details::Command(tools::CommandOutcome::Finished {
            exit_code,
            timed_out,
            sandbox_denial,
            ..
        }) => {
            let passed = *exit_code == Some(0) && !timed_out;
            CommandRan {
                exit_code: *exit_code,
                passed: Some(passed),
                outcome: if passed {
                    ToolOutcome::Ok
                } else {
                    ToolOutcome::Failed
                },
                task: None,
                sandbox_denial: sandbox_denial.clone(),
            }
        }
        // Not ended yet: neither a success nor a failure to show.
        tools::Details::Command(tools::CommandOutcome::Background { task_id, .. }) => CommandRan {
            exit_code: None,
            passed: None,
            outcome: ToolOutcome::Background,
            task: Some(task_id.clone()),
            sandbox_denial: None,
        },
        // Every command's output carries its outcome; one without is no success to show.
        _ => CommandRan {
            exit_code: None,
            passed: None,
            outcome: ToolOutcome::Failed,
            task: None,
            sandbox_denial: None,
        },
    }
}

/// Where a call goes: answered outside the registry's usual way, or on through the policy.
enum Routed {
    Answered(Option<ToolReply>),
    Catalog,
}

/// What a call needs worked out before the policy judges it.
struct Prepared {
    planned: Option<tools::Planned>,
    resolved: Vec<std::net::IpAddr>,
}

/// What the person's answer comes to.
enum Settled {
    /// Run it; with the hunks kept when approved in part.
    Go(Option<Vec<u32>>),
    /// Do not run it; the model hears this.
    Reply(ToolReply),
    /// Nobody answered: the task stops.
    Stop,
}

#[cfg(test)]
mod tests {
    use super::command_ran;
    use protocol::ToolOutcome;

    /// A command's result was read back out of its JSON, and one that did not parse counted as
    /// a success. The outcome travels typed now; a result without one is never shown as passed.
    #[test]
    fn a_result_without_a_command_outcome_is_no_success() {
        let ran = command_ran(&tools::Details::None);
        assert_eq!(ran.outcome, ToolOutcome::Failed);
        assert_eq!(ran.passed, None);
    }
}
