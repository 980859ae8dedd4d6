//! Calls of tools from outside the registry, through the same policy, questions and sandbox as
//! the registry's: a skill's tool is judged as the command it runs and runs as a program in the
//! sandbox (the model's values are whole arguments, never shell text); a server's tool asks
//! by name unless a rule allows it, and its result reaches the model fenced as untrusted.

use super::ask::{Asker, Settled, Subject};
use super::command::{command_ran, commands_in};
use super::reply::{Answered, Halt, Ran, Reply};
use crate::history::entry::EngineEntry;
use policy::{ToolCall, Verdict};
use protocol::Confinement;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use tools::{Skill, SkillTool, Toolbox};

/// The tag a server's result is fenced in (a random token follows it).
const TOOL_FENCE: &str = "untrusted-tool-result";

/// A skill's tool: its program and arguments worked out, judged as that command, asked about
/// when the policy asks, and run without a shell where the policy decided.
pub(crate) async fn run_skill_tool(
    asker: &mut Asker<'_>,
    toolbox: &Toolbox,
    subject: &Subject<'_>,
    (skill, tool): (&Skill, &SkillTool),
    cancel: &CancellationToken,
) -> Answered {
    let mode = asker.rules.mode();
    let sandboxed = toolbox.commands.sandbox.is_some();
    let argv_for = |confinement: Confinement| {
        let dir = toolbox.skill_dir(skill, confinement);
        tools::skill_argv(tool, subject.input, &dir.display().to_string())
    };
    let provisional = toolbox
        .commands
        .default_confinement(mode == policy::Mode::ReadOnly);
    let argv = match argv_for(provisional) {
        Ok(a) => a,
        Err(e) => return Ok(Reply::err(e.to_string())),
    };
    let command = tools::shell_words(&argv);
    let decision = asker
        .rules
        .judge_outside(toolbox, &ToolCall::Command { command: &command });
    log_decision(asker, subject.id, &decision, Some(&command))?;
    let confinement = crate::sandboxing::confinement(&decision, mode, sandboxed);
    match decision.decision {
        Verdict::Deny => return Ok(Reply::refused(&decision)),
        Verdict::Ask => {
            let mut request = subject.question(asker.journal, &decision);
            request.run.commands = commands_in(&command);
            request.run.command = Some(command.clone());
            request.run.confinement = Some(confinement);
            if let Settled::Reply(reply) = asker.settle(request, &decision, false, cancel).await? {
                return Ok(reply);
            }
        }
        Verdict::Allow => {}
    }
    // The skill's folder is elsewhere outside the sandbox (a user's skill runs from a copy
    // inside it): only that part of the arguments can differ.
    let argv = if confinement.is_sandboxed() == provisional.is_sandboxed() {
        argv
    } else {
        match argv_for(confinement) {
            Ok(a) => a,
            Err(e) => return Ok(Reply::err(e.to_string())),
        }
    };
    let ctx = tools::CallContext {
        confinement: Some(confinement),
        cancel: Some(cancel.clone()),
        owner: asker.journal.agent_id().map(str::to_string),
        ..Default::default()
    };
    let ran = toolbox.run_skill_tool(skill, &argv, &ctx).await;
    if cancel.is_cancelled() {
        return Err(Halt::Stop);
    }
    let out = match ran {
        Ok(out) => out,
        Err(e) => return Ok(Reply::err(e.to_string()).at(confinement)),
    };
    let ran = command_ran(&out.details);
    Ok(Reply {
        text: format!("[ran: {command}]\n{}", out.text),
        is_error: false,
        outcome: ran.outcome,
        summary: out.summary,
        ran: Ran {
            confinement: Some(confinement),
            exit_code: ran.exit_code,
            task: ran.task,
        },
        attachment: None,
    })
}

/// A server's tool: judged by name, asked about unless allowed, called with the stop
/// honoured; what it says is fenced as untrusted data. A server that crashes or hangs is
/// started again by the hub, and the model hears what happened.
pub(crate) async fn run_server_tool(
    asker: &mut Asker<'_>,
    toolbox: &Toolbox,
    subject: &Subject<'_>,
    hub: Arc<mcp::Hub>,
    cancel: &CancellationToken,
) -> Answered {
    let name = subject.name;
    let decision = asker
        .rules
        .judge_outside(toolbox, &ToolCall::ServerTool { name });
    log_decision(asker, subject.id, &decision, None)?;
    match decision.decision {
        Verdict::Deny => return Ok(Reply::refused(&decision)),
        Verdict::Ask => {
            let request = subject.question(asker.journal, &decision);
            if let Settled::Reply(reply) = asker.settle(request, &decision, false, cancel).await? {
                return Ok(reply);
            }
        }
        Verdict::Allow => {}
    }
    // A server may commit too (a git server): what it leaves is the agent's doing.
    let acting = toolbox.ws.agent_action();
    let called = hub.call(name, subject.input, cancel).await;
    drop(acting);
    Ok(match called {
        Ok(out) => {
            let text = tools::fence::fence(
                TOOL_FENCE,
                &format!("MCP server {}, tool {}", out.server, out.tool),
                &out.text,
                &format!("came from the outside server {}", out.server),
            );
            if out.is_error {
                Reply::err(format!("The tool reports a failure.\n{text}"))
            } else {
                Reply::ok(text)
            }
        }
        Err(mcp::McpError::Cancelled) => return Err(Halt::Stop),
        Err(e) => Reply::err(format!(
            "{e}. Go on without this tool, or try it again later."
        )),
    })
}

/// Keeps the policy's decision on a call in the log.
pub(crate) fn log_decision(
    asker: &mut Asker<'_>,
    id: &str,
    decision: &policy::Decision,
    command: Option<&str>,
) -> Result<(), Halt> {
    let id = asker.journal.event_id(id);
    asker.journal.append(&EngineEntry::Decision {
        id,
        decision: decision.decision,
        reason: decision.reason.clone(),
        rule: decision.rule.name.clone(),
        sandbox: decision.sandbox.clone(),
        command: command.map(str::to_string),
    })?;
    Ok(())
}
