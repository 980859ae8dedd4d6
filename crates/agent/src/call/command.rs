//! A command run where the policy decided: in the sandbox (with the network when granted), or
//! outside it. When the sandbox stopped it, the person is asked whether to run it once outside
//! (never kept as a rule), except in read-only mode. Stop ends it.

use super::ask::{Asker, Subject};
use super::claims::WorkRecord;
use super::reply::{Answered, Halt, Ran, Reply};
use policy::Mode;
use protocol::{
    AgentEvent, ApprovalAnswer, ApprovalRequest, ChangeClass, CommandPreview, Confinement,
    OutsideReason, SandboxDenial, ToolOutcome,
};
use std::collections::BTreeSet;
use tokio_util::sync::CancellationToken;
use tools::{CallContext, Resolved, Toolbox};

/// A command about to run: the call, its text, where it runs, and in which mode.
pub(crate) struct Command<'a> {
    pub call: &'a Resolved,
    pub text: &'a str,
    pub confinement: Confinement,
    pub mode: Mode,
    /// Told the project files its layer landed, whenever it ends (it may go on in the
    /// background).
    pub on_landed: Option<tools::OnLanded>,
    /// Which of its changes land without a question; the rest are reviewed when it ends.
    pub landing: tools::Landing,
    /// Places outside the project it names for reading, which the person let it read.
    pub readable: Vec<std::path::PathBuf>,
}

/// Where a command's changes land without a question: in Ask mode, none of the project's
/// (they are reviewed as an edit is); in every mode, never a file that makes another program
/// run code. What needs a yes is reviewed when the command ends — by the call waiting on it,
/// or, for a command that went on in the background, when the agent hears it ended.
pub(crate) fn landing_for(mode: Mode) -> tools::Landing {
    tools::Landing {
        project: !matches!(mode, Mode::Ask | Mode::ReadOnly),
        review: true,
    }
}

/// Whether Ask mode's question before a command gives way to the review of what it changed:
/// a command Ask mode asks about only because it asks before commands — judged in Full auto,
/// the same rules let it run (no dangerous pattern, no rule of the person's, no secret in
/// git's history asks about it) — that runs in the sandbox over a layer of the project (so
/// nothing it does reaches the project before the person's yes), with no network, in the
/// foreground (someone waits to review), and that deletes nothing recursively; and unless the
/// person chose to be asked before every command. The policy names only the first reason it
/// asks, so the rule it names is not enough: a write before `git reset --hard` is asked about
/// by Ask mode's rule first.
pub(crate) fn reviewed_instead(
    decision: &policy::Decision,
    confinement: Option<Confinement>,
    call: &Resolved,
    (toolbox, rules): (&Toolbox, &super::rules::Rules),
    background: bool,
) -> bool {
    let Some(command) = super::prepare::command_of(call) else {
        return false;
    };
    decision.decision == policy::Verdict::Ask
        && toolbox.commands.sandbox.as_ref().is_some_and(|s| s.layers)
        && !rules.asks_before_commands()
        && !background
        && confinement
            == Some(Confinement::Sandboxed {
                network: false,
                read_only: false,
            })
        && !deletes_recursively(command)
        && rules
            .judge_in(toolbox, call, &tools::Worked::default(), Mode::FullAuto)
            .decision
            == policy::Verdict::Allow
}

/// Whether a command line removes folders with all they hold (`rm -r`, `git clean`, `find
/// -delete`): a dangerous pattern, asked about before it runs in every mode.
fn deletes_recursively(command: &str) -> bool {
    policy::shell::parse(command).commands.iter().any(|c| {
        let words: Vec<&str> = c.words.iter().map(|w| w.shown()).collect();
        let program = words
            .first()
            .map(|w| w.rsplit('/').next().unwrap_or(w))
            .unwrap_or_default();
        let mut flags = words.iter().skip(1).filter(|w| w.starts_with('-'));
        match program {
            "rm" => flags.any(|f| {
                *f == "--recursive"
                    || (!f.starts_with("--") && (f.contains('r') || f.contains('R')))
            }),
            "git" => words.iter().skip(1).any(|w| *w == "clean"),
            "find" => words.contains(&"-delete"),
            _ => false,
        }
    })
}

/// Runs the command; when the sandbox stopped it, asks whether to run it once outside. The
/// project files its layer landed, with their text before, go into `landed`.
pub(crate) async fn run(
    asker: &mut Asker<'_>,
    toolbox: &Toolbox,
    subject: &Subject<'_>,
    command: Command<'_>,
    record: &mut WorkRecord,
    cancel: &CancellationToken,
    landed: &mut Vec<(String, Option<String>)>,
) -> Answered {
    let confinement = command.confinement;
    let ctx = CallContext {
        confinement: Some(confinement),
        readable: command.readable.clone(),
        cancel: Some(cancel.clone()),
        on_started: Some(announce_started(asker, subject.id)),
        owner: asker.journal.agent_id().map(str::to_string),
        on_landed: command.on_landed.clone(),
        landing: Some(command.landing),
        ..Default::default()
    };
    let first = toolbox.run_call(command.call, &ctx).await;
    if cancel.is_cancelled() {
        return Err(Halt::Stop);
    }
    let mut out = match first {
        Ok(out) => out,
        Err(e) => return Ok(Reply::err(e.to_string()).at(confinement)),
    };
    let mut said = None;
    if let tools::Details::Command(outcome @ tools::CommandOutcome::Finished { held, .. }) =
        &out.details
        && let Some(held) = held.take()
    {
        let outcome = outcome.clone();
        let (answer, message) = review(
            asker,
            subject,
            (command.text, false),
            Some(confinement),
            &held,
            cancel,
        )
        .await?;
        match toolbox.land_reviewed(outcome, held, answer).await {
            Ok((reviewed, newly)) => {
                if let Some(told) = &command.on_landed
                    && !newly.is_empty()
                {
                    (told.0)(&newly);
                }
                out = reviewed;
            }
            Err(e) => return Ok(Reply::err(e.to_string()).at(confinement)),
        }
        said = message;
        if let tools::Details::Command(tools::CommandOutcome::Finished {
            changes: Some(changes),
            ..
        }) = &out.details
        {
            let rejected = changes
                .files
                .iter()
                .filter(|f| f.fate == protocol::Fate::Rejected)
                .map(|f| f.path.clone())
                .collect();
            record.changes_rejected(command.text, rejected);
        }
    }
    if let Some(message) = said {
        out.text.push_str(&format!("[{message}]\n"));
    }
    let ran = command_ran(&out.details);
    if let Some(passed) = ran.passed {
        record.ran(command.text, ran.exit_code, passed);
    }
    if let tools::Details::Command(tools::CommandOutcome::Finished { before, .. }) = &out.details {
        landed.extend(before.iter().cloned());
    }
    let sandboxed_reply = Reply {
        text: out.text,
        is_error: false,
        outcome: ran.outcome,
        summary: out.summary,
        ran: Ran {
            confinement: Some(confinement),
            exit_code: ran.exit_code,
            task: ran.task,
        },
        attachment: None,
    };
    let Some(denial) = ran
        .sandbox_denial
        .filter(|_| command.mode != Mode::ReadOnly)
    else {
        return Ok(sandboxed_reply);
    };
    if !leave_sandbox(asker, subject, command.text, &denial, cancel).await? {
        return Ok(Reply {
            text: format!(
                "{}The user chose not to run it outside the sandbox. Work within the project folder (and the temporary folder), or ask the user to do this step.\n",
                sandboxed_reply.text
            ),
            ..sandboxed_reply
        });
    }
    let outside = Confinement::Outside {
        reason: OutsideReason::Approved,
    };
    let ctx = CallContext {
        confinement: Some(outside),
        cancel: Some(cancel.clone()),
        owner: asker.journal.agent_id().map(str::to_string),
        ..Default::default()
    };
    let again = toolbox.run_call(command.call, &ctx).await;
    if cancel.is_cancelled() {
        return Err(Halt::Stop);
    }
    Ok(match again {
        Ok(out) => {
            let ran = command_ran(&out.details);
            if let Some(passed) = ran.passed {
                record.ran(command.text, ran.exit_code, passed);
            }
            Reply {
                text: format!(
                    "The sandbox stopped the first run ({}); the user approved running it once outside the sandbox. Its result:\n{}",
                    denial.evidence, out.text
                ),
                is_error: false,
                outcome: ran.outcome,
                summary: out.summary,
                ran: Ran {
                    confinement: Some(outside),
                    exit_code: ran.exit_code,
                    task: ran.task,
                },
                attachment: None,
            }
        }
        Err(e) => Reply::err(e.to_string()).at(outside),
    })
}

/// Puts a command's changes to the person: each file with its diff, the files that would make
/// other programs run code named with why. Returns the pieces they accepted, and what they
/// said when they turned the changes down.
pub(crate) async fn review(
    asker: &mut Asker<'_>,
    subject: &Subject<'_>,
    (command, still_running): (&str, bool),
    confinement: Option<Confinement>,
    held: &tools::Held,
    cancel: &CancellationToken,
) -> Result<(BTreeSet<u32>, Option<String>), Halt> {
    let review = held.review().clone();
    let files = review.files.len();
    let risky: Vec<String> = review
        .files
        .iter()
        .filter_map(|f| match f.class {
            ChangeClass::RunsCode { why } => {
                Some(format!("{} ({})", f.path, tools::why_words(why)))
            }
            _ => None,
        })
        .collect();
    let waiting = if files == 1 {
        "One of its changes waits for your yes; it is not in your project yet.".to_string()
    } else {
        format!("{files} of its changes wait for your yes; none of them is in your project yet.")
    };
    let mut reason = if still_running {
        format!(
            "The command still runs in the sandbox, over a copy of your project; these are its changes so far. {waiting} What you keep lands now; the rest is thrown away, and what it changes from now on is asked when it ends."
        )
    } else {
        format!(
            "The command ran in the sandbox, over a copy of your project. {waiting} What you keep lands; the rest is thrown away."
        )
    };
    if !risky.is_empty() {
        reason.push_str(&format!(
            " Careful: some of these would make other programs run code — {}.",
            risky.join("; ")
        ));
    }
    let request = ApprovalRequest {
        run: CommandPreview {
            commands: commands_in(command),
            command: Some(command.to_string()),
            confinement,
            sandbox_denial: None,
        },
        review: Some(Box::new(review)),
        ..subject.card(asker.journal, &reason, "review")
    };
    let answer = asker.ask(request, cancel).await?;
    Ok(match answer {
        ApprovalAnswer::Approve
        | ApprovalAnswer::ApproveForSession { .. }
        | ApprovalAnswer::ApproveAlways { .. } => (held.all(), None),
        ApprovalAnswer::ApprovePartial { accepted_hunks } => {
            let kept: BTreeSet<u32> = accepted_hunks.into_iter().collect();
            let note = kept_in_part(held.review(), &kept);
            (kept, note)
        }
        ApprovalAnswer::Deny { message } => (
            BTreeSet::new(),
            message.map(|m| format!("What the user said of its changes: {m}")),
        ),
    })
}

/// The files the person kept only some hunks of, in words for the model (the landing says
/// each file changed; this says it is not all the command did to it).
fn kept_in_part(review: &protocol::ChangeReview, kept: &BTreeSet<u32>) -> Option<String> {
    let parts: Vec<String> = review
        .files
        .iter()
        .filter_map(|f| {
            let total = f.hunks.len();
            let yes = f.hunks.iter().filter(|h| kept.contains(&h.index)).count();
            (yes > 0 && yes < total).then(|| {
                format!(
                    "The user kept {yes} of {total} changes to {} and left the others out. Read it again before changing it further.",
                    f.path
                )
            })
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join(" "))
}

/// Tells the front end which task holds a command's output as soon as it runs, so the card
/// shows it live.
pub(crate) fn announce_started(asker: &Asker<'_>, id: &str) -> tools::OnStarted {
    let events = asker.journal.sink();
    let id = asker.journal.event_id(id);
    tools::OnStarted(std::sync::Arc::new(move |task: &str| {
        events.send(AgentEvent::CommandStarted {
            id: id.clone(),
            task: task.to_string(),
        });
    }))
}

/// Puts "run this once outside the sandbox?" to the person; whether they said yes.
async fn leave_sandbox(
    asker: &mut Asker<'_>,
    subject: &Subject<'_>,
    command: &str,
    denial: &SandboxDenial,
    cancel: &CancellationToken,
) -> Result<bool, Halt> {
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
        run: CommandPreview {
            commands: commands_in(command),
            command: Some(command.to_string()),
            confinement: Some(Confinement::Outside {
                reason: OutsideReason::Approved,
            }),
            sandbox_denial: Some(denial.clone()),
        },
        ..subject.card(asker.journal, &reason, "sandbox")
    };
    let answer = asker.ask(request, cancel).await?;
    // Only a plain approval runs it: an approval that asks for a rule to be kept is not
    // offered here, so it is read as a plain one, never remembered.
    Ok(!matches!(answer, ApprovalAnswer::Deny { .. }))
}

/// Each simple command the policy finds in a command line: what really runs.
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
    pub sandbox_denial: Option<SandboxDenial>,
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
