//! Calls of tools from outside the registry, through the same policy, questions and sandbox as
//! the registry's: a skill's tool is judged as the command it runs and runs as a program in the
//! sandbox (the model's values are whole arguments, never shell text); a server's tool asks
//! by name unless a rule allows it, and its result reaches the model fenced as untrusted.

use crate::turn::{Agent, AgentError, ToolReply};
use policy::{ToolCall, Verdict};
use protocol::{ApprovalAnswer, Confinement, ToolOutcome};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// The tag a server's result is fenced in (a random token follows it).
const TOOL_FENCE: &str = "untrusted-tool-result";

impl Agent {
    pub(crate) fn is_server_tool(&self, name: &str) -> bool {
        self.extensions.mcp.as_ref().is_some_and(|h| h.knows(name))
    }

    /// The policy said Ask: puts the question and says whether to go on. `Err(reply)` is what
    /// the model hears when the user said no; `Ok(None)` when the task must stop.
    async fn settle_question(
        &mut self,
        request: protocol::ApprovalRequest,
        decision: &policy::Decision,
        cancel: &CancellationToken,
    ) -> Result<Option<Result<(), ToolReply>>, AgentError> {
        let Some(answer) = self.ask(request, cancel).await? else {
            return Ok(None);
        };
        self.keep_answer(decision, &answer)?;
        Ok(Some(match answer {
            ApprovalAnswer::Deny { message } => {
                let note = message
                    .as_ref()
                    .map(|m| format!(" The user says: {m}"))
                    .unwrap_or_default();
                Err(ToolReply::err(format!("The user denied this call.{note}"))
                    .with(ToolOutcome::Denied)
                    .summed(Some(protocol::ToolSummary::Denied { message })))
            }
            ApprovalAnswer::ApprovePartial { .. } => Err(ToolReply::err(
                "The user approved only part of a call that cannot be split; it did not run."
                    .into(),
            )
            .with(ToolOutcome::Denied)),
            _ => Ok(()),
        }))
    }

    fn refused(decision: &policy::Decision) -> ToolReply {
        ToolReply::err(format!(
            "The policy refused this call: {} [{}]. Do not retry it; find another way or ask the user.",
            decision.reason, decision.rule.name
        ))
        .with(ToolOutcome::Refused)
        .summed(Some(protocol::ToolSummary::Refused {
            reason: decision.reason.clone(),
        }))
    }

    /// A skill's tool: its program and arguments worked out, judged as that command, asked
    /// about when the policy asks, and run without a shell where the policy decided.
    pub(crate) async fn run_skill_tool(
        &mut self,
        id: &str,
        name: &str,
        skill_name: &str,
        tool_name: &str,
        input: &Value,
        cancel: &CancellationToken,
    ) -> Result<Option<ToolReply>, AgentError> {
        let skills = self.extensions.skills.clone();
        let Some((skill, tool)) = skills
            .get(skill_name)
            .and_then(|s| s.tool(tool_name).map(|t| (s, t)))
        else {
            return Ok(Some(ToolReply::err(format!(
                "the skill tool {name} is gone"
            ))));
        };
        let mode = self.mode();
        let sandboxed = self.toolbox.commands.sandbox.is_some();
        let argv_for = |agent: &Agent, confinement: Confinement| {
            let dir = agent.toolbox.skill_dir(skill, confinement);
            tools::skill_argv(tool, input, &dir.display().to_string())
        };
        let provisional = self
            .toolbox
            .commands
            .default_confinement(mode == policy::Mode::ReadOnly);
        let argv = match argv_for(self, provisional) {
            Ok(a) => a,
            Err(e) => return Ok(Some(ToolReply::err(e.to_string()))),
        };
        let command = tools::shell_words(&argv);
        let decision = self.judge(&ToolCall::Command { command: &command }, mode, sandboxed);
        self.log_decision(id, &decision, Some(&command))?;
        let confinement = crate::sandboxing::confinement(&decision, mode, sandboxed);
        match decision.decision {
            Verdict::Deny => return Ok(Some(Self::refused(&decision))),
            Verdict::Ask => {
                let mut request = self.question(id, name, input, &decision);
                request.commands = crate::tool_call::commands_in(&command);
                request.command = Some(command.clone());
                request.confinement = Some(confinement);
                match self.settle_question(request, &decision, cancel).await? {
                    None => return Ok(None),
                    Some(Err(reply)) => return Ok(Some(reply)),
                    Some(Ok(())) => {}
                }
            }
            Verdict::Allow => {}
        }
        // The skill's folder is elsewhere outside the sandbox (a user's skill runs from a copy
        // inside it): only that part of the arguments can differ.
        let argv = if confinement.is_sandboxed() == provisional.is_sandboxed() {
            argv
        } else {
            match argv_for(self, confinement) {
                Ok(a) => a,
                Err(e) => return Ok(Some(ToolReply::err(e.to_string()))),
            }
        };
        let ctx = tools::CallContext {
            confinement: Some(confinement),
            cancel: Some(cancel.clone()),
            ..self.call_context()
        };
        let ran = self.toolbox.run_skill_tool(skill, &argv, &ctx).await;
        if cancel.is_cancelled() {
            return Ok(None);
        }
        let out = match ran {
            Ok(out) => out,
            Err(e) => {
                let mut r = ToolReply::err(e.to_string());
                r.confinement = Some(confinement);
                return Ok(Some(r));
            }
        };
        let ran = crate::tool_call::command_ran(&out.details);
        let (exit_code, outcome, task) = (ran.exit_code, ran.outcome, ran.task);
        Ok(Some(ToolReply {
            text: format!("[ran: {command}]\n{}", out.text),
            is_error: false,
            outcome,
            confinement: Some(confinement),
            exit_code,
            attachment: None,
            task,
            summary: out.summary.clone(),
        }))
    }

    /// A server's tool: judged by name, asked about unless allowed, called with the stop
    /// honoured; what it says is fenced as untrusted data. A server that crashes or hangs is
    /// started again by the hub, and the model hears what happened.
    pub(crate) async fn run_server_tool(
        &mut self,
        id: &str,
        name: &str,
        input: &Value,
        cancel: &CancellationToken,
    ) -> Result<Option<ToolReply>, AgentError> {
        let Some(hub) = self.extensions.mcp.clone() else {
            return Ok(Some(ToolReply::err(format!(
                "there is no tool named `{name}`"
            ))));
        };
        let mode = self.mode();
        let sandboxed = self.toolbox.commands.sandbox.is_some();
        let decision = self.judge(&ToolCall::ServerTool { name }, mode, sandboxed);
        self.log_decision(id, &decision, None)?;
        match decision.decision {
            Verdict::Deny => return Ok(Some(Self::refused(&decision))),
            Verdict::Ask => {
                let request = self.question(id, name, input, &decision);
                match self.settle_question(request, &decision, cancel).await? {
                    None => return Ok(None),
                    Some(Err(reply)) => return Ok(Some(reply)),
                    Some(Ok(())) => {}
                }
            }
            Verdict::Allow => {}
        }
        // A server may commit too (a git server): what it leaves is the agent's doing.
        let acting = self.toolbox.ws.agent_action();
        let called = hub.call(name, input, cancel).await;
        drop(acting);
        Ok(Some(match called {
            Ok(out) => {
                let text = tools::fence::fence(
                    TOOL_FENCE,
                    &format!("MCP server {}, tool {}", out.server, out.tool),
                    &out.text,
                    &format!("came from the outside server {}", out.server),
                );
                if out.is_error {
                    ToolReply::err(format!("The tool reports a failure.\n{text}"))
                } else {
                    ToolReply::ok(text)
                }
            }
            Err(mcp::McpError::Cancelled) => return Ok(None),
            Err(e) => ToolReply::err(format!(
                "{e}. Go on without this tool, or try it again later."
            )),
        }))
    }
}
