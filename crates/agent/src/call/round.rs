//! The calls of one reply, after each has an answer: its result cut to what the model may get,
//! its edit and its check remembered (a failing check may close a circle, or ask a small model
//! for its draft again), a file it brought attached for a model that takes it, a task_done
//! weighed against what happened, its end told to people — and the results fed back as one
//! message.

use super::calls::{Calls, Facts};
use super::loop_breaker::Verdict;
use super::reply::{Attachment, Reply};
use crate::assist::project_text;
use crate::assist::whole_file_draft::{Drafts, Repair};
use crate::history::log::LogError;
use crate::journal::Journal;
use crate::outcome::Outcome;
use llm::ChatResponse;
use protocol::{AgentEvent, ContentBlock, DoneWarning, Message, Role, ToolOutcome};

/// What the round needs to know of the model that reads the results.
pub(crate) struct Reader<'a> {
    pub name: &'a str,
    pub small: bool,
    pub takes_images: bool,
    pub takes_documents: bool,
}

/// The results of one reply's calls, as they come.
pub(crate) struct Round {
    /// The reply held several calls as text, one ran: what the model learns of the others,
    /// and the call it goes with.
    lenient_note: Option<(String, String)>,
    results: Vec<ContentBlock>,
    pictures: Vec<ContentBlock>,
    outcome: Option<Outcome>,
    done_warnings: Vec<DoneWarning>,
}

impl Round {
    pub(crate) fn new(resp: &ChatResponse) -> Self {
        let lenient_note = resp.lenient.as_ref().and_then(|l| {
            let note = l.note()?;
            Some((l.call_id.clone()?, note))
        });
        Round {
            lenient_note,
            results: Vec::new(),
            pictures: Vec::new(),
            outcome: None,
            done_warnings: Vec::new(),
        }
    }

    /// A call that ended: everything between its answer and its report.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn ended(
        &mut self,
        calls: &mut Calls,
        drafts: &mut Drafts,
        journal: &mut Journal,
        reader: &Reader<'_>,
        (id, name): (String, &str),
        mut reply: Reply,
        facts: Facts,
        done_pushbacks: &mut u32,
    ) -> Result<(), LogError> {
        if let Some(reason) = &facts.paused {
            self.outcome = Some(Outcome::Paused {
                reason: reason.clone(),
            });
        }
        if let Some((noted, note)) = &self.lenient_note
            && *noted == id
        {
            // The reply held several calls as text; one ran, and the model learns which did
            // not.
            reply.text.push_str("\n\n");
            reply.text.push_str(note);
        }
        let root = calls.toolbox.ws.root();
        let mut redrafted = false;
        if let Some(command) = &facts.command
            && reply.ran.exit_code.is_some_and(|c| c != 0)
        {
            let may_write = may_write(calls);
            let plan = drafts.plan_repair(command, &reply.text, root, may_write);
            redrafted = plan == Repair::Drafted;
            if let Repair::Exhausted { repairs } = plan {
                // Tool calls after the last repair circled until the loop guard stopped them:
                // the task pauses now, saying why.
                reply.text.push_str(&format!(
                    "\n\nThe check still fails after {repairs} rewrites of the file. Stop here; the person will say how to go on."
                ));
                self.outcome = Some(Outcome::Paused {
                    reason: crate::assist::whole_file_draft::Retry::reason(command, repairs),
                });
            }
        }
        reply.text = fit_for_model(calls, &id, reply.text);
        if !reply.is_error
            && let Some(verdict) = watch_for_circles(calls, &facts, &reply)
        {
            match verdict {
                // The next move is the draft again, shown what failed: the step back's advice
                // (one edit) is for tool calls, and would only reach the card.
                Verdict::StepBack { .. } if redrafted => {}
                Verdict::StepBack { text } => reply.text.push_str(&text),
                Verdict::Pause { reason, text } => {
                    reply.text.push_str("\n\n");
                    reply.text.push_str(&text);
                    self.outcome = Some(Outcome::Paused { reason });
                }
            }
        }
        attachment_for_model(reader, &mut reply);
        if let Some(finish) = &facts.finish
            && !reply.is_error
            && let Some((done, warnings)) =
                weigh_done(calls, reader, finish, &mut reply, done_pushbacks)
        {
            self.done_warnings = warnings;
            self.outcome = Some(done);
        }
        let shown = journal.event_id(&id);
        let attachment = reply.attachment.take();
        self.results
            .push(report_finished(journal, id, shown, name, &reply)?);
        if let Some(a) = attachment {
            self.pictures.extend(attached_blocks(name, a));
        }
        Ok(())
    }

    /// The person stopped the turn at a call: it and every call after it get a result, so the
    /// conversation stays one the provider accepts when the session continues.
    pub(crate) fn stopped(
        &mut self,
        journal: &mut Journal,
        calls: impl IntoIterator<Item = (String, String)>,
    ) -> Result<(), LogError> {
        // Nothing more is shown the model this turn.
        self.pictures.clear();
        for (id, name) in calls {
            let shown = journal.event_id(&id);
            self.results.push(report_finished(
                journal,
                id,
                shown,
                &name,
                &Reply::stopped(),
            )?);
        }
        Ok(())
    }

    /// The results as the message the model reads next (the pictures after them, then what
    /// background tasks printed), and how the task ends, if it does.
    pub(crate) fn end(
        mut self,
        tasks: Option<&tools::TaskRegistry>,
    ) -> (Message, Option<Outcome>, Vec<DoneWarning>) {
        self.results.append(&mut self.pictures);
        if let Some(note) = tasks.and_then(heartbeat) {
            self.results.push(ContentBlock::Text { text: note });
        }
        let message = Message {
            role: Role::User,
            content: self.results,
        };
        (message, self.outcome, self.done_warnings)
    }
}

/// Tells people a call has ended (the event, logged) and gives its result for the model.
pub(crate) fn report_finished(
    journal: &mut Journal,
    id: String,
    shown_id: String,
    name: &str,
    reply: &Reply,
) -> Result<ContentBlock, LogError> {
    journal.emit(AgentEvent::ToolFinished {
        id: shown_id,
        name: name.to_string(),
        output: reply.text.clone(),
        is_error: reply.is_error,
        outcome: Some(reply.outcome),
        confinement: reply.ran.confinement,
        exit_code: reply.ran.exit_code,
        task: reply.ran.task.clone(),
        summary: reply.summary.clone(),
    })?;
    Ok(ContentBlock::ToolResult {
        tool_use_id: id,
        content: reply.text.clone(),
        is_error: reply.is_error,
    })
}

/// Whether a small model's draft may be written: not in read-only mode, not with write_file
/// turned off. The mode may change during a task, so it is asked each time.
pub(crate) fn may_write(calls: &Calls) -> bool {
    calls.rules.mode() != policy::Mode::ReadOnly
        && calls
            .rules
            .unavailable(&calls.toolbox, "write_file")
            .is_none()
}

/// A tool's result cut to what the model may get (see `tools::cap_result`); the whole text
/// goes to the session's outputs folder, and the model is told where.
fn fit_for_model(calls: &Calls, call_id: &str, text: String) -> String {
    let Some(mut capped) = tools::cap_result(&text) else {
        return text;
    };
    let dir = &calls.toolbox.commands.output_dir;
    let safe: String = call_id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let file = dir.join(format!("result-{safe}.txt"));
    let saved = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&file, text.as_bytes()));
    match saved {
        Ok(()) => capped.push_str(&format!(
            "[This result was cut to fit ({} characters in all). The whole of it is in {}: read parts of it with read_file (path, offset, limit) or search it with search_codebase (path); commands cannot see it.]\n",
            text.chars().count(),
            file.display(),
        )),
        Err(e) => {
            tracing::warn!(%e, file = %file.display(), "could not save a cut tool result");
            capped.push_str("[This result was cut to fit; narrow the call to see the rest.]\n");
        }
    }
    capped
}

/// After a call that went through: an edit is remembered, and a check that failed again may
/// close a circle.
fn watch_for_circles(calls: &mut Calls, facts: &Facts, reply: &Reply) -> Option<Verdict> {
    if let Some((path, new_text)) = &facts.edited {
        calls.breaker.edited(path, new_text.as_deref());
        return None;
    }
    let command = facts.command.as_deref()?;
    let code = reply.ran.exit_code?;
    if !crate::assist::checks::is_check(command) {
        return None;
    }
    let root = calls.toolbox.ws.root();
    let read = |p: &str| project_text::read(root, p);
    calls
        .breaker
        .after_check(command, code == 0, &reply.text, &read)
}

/// A file a tool attached goes to a model that takes it; otherwise the result says so.
fn attachment_for_model(reader: &Reader<'_>, reply: &mut Reply) {
    let Some(pdf) = reply.attachment.as_ref().map(Attachment::is_pdf) else {
        return;
    };
    let takes = if pdf {
        reader.takes_documents
    } else {
        reader.takes_images
    };
    match (takes, pdf) {
        (true, true) => reply.text.push_str("\nThe PDF itself is attached below."),
        (true, false) => reply.text.push_str(" It is attached below."),
        // A PDF's text is in the result already: nothing is missing.
        (false, true) => reply.attachment = None,
        (false, false) => {
            reply.attachment = None;
            reply.text.push_str(&format!(
                " It was not sent: the model in use ({}) does not take images. If it does, set `images = true` for its provider in settings.toml; otherwise ask the user to describe it.",
                reader.name
            ));
        }
    }
}

/// A task_done weighed against what happened: sent back (its reply rewritten) or the task's
/// end with the warnings people see beside it.
fn weigh_done(
    calls: &mut Calls,
    reader: &Reader<'_>,
    finish: &tools::TaskDoneArgs,
    reply: &mut Reply,
    done_pushbacks: &mut u32,
) -> Option<(Outcome, Vec<DoneWarning>)> {
    let files = finish.files_changed.clone().unwrap_or_default();
    let warnings = calls.record.warnings(
        &super::claims::Claim {
            summary: &finish.summary,
            files: &files,
        },
        &super::claims::Project {
            root: calls.toolbox.ws.root(),
            session_started_ms: calls.session.started_ms,
        },
    );
    // Once: the model hears what contradicts it and goes on. A model that calls task_done
    // again has said its last word; the user sees the warnings with it. A small model gave up
    // at once when offered to (make bench-agent): it hears twice, the first time with the
    // failing assertion and its function, and only the second time that it may stop.
    let allowed = if reader.small { 2 } else { 1 };
    let contradicting: Vec<DoneWarning> = warnings
        .iter()
        .filter(|w| w.contradicts_claim())
        .cloned()
        .collect();
    if !contradicting.is_empty() && *done_pushbacks < allowed {
        *done_pushbacks += 1;
        let last = *done_pushbacks == allowed;
        reply.text = done_pushback(&contradicting, last);
        if !last {
            let root = calls.toolbox.ws.root();
            let read = |p: &str| project_text::read(root, p);
            reply.text.push_str(&calls.breaker.what_to_look_at(&read));
        }
        // An error for the model (its call did not end the task); for people, the work
        // going on.
        reply.is_error = true;
        reply.outcome = ToolOutcome::SentBack;
        reply.summary = Some(protocol::ToolSummary::SentBack {
            warnings: contradicting,
        });
        return None;
    }
    Some((
        Outcome::Done {
            summary: finish.summary.clone(),
        },
        warnings,
    ))
}

/// What a task_done is told when what happened contradicts it: each point in words, and the
/// two ways on (fix it, or finish anyway saying why).
fn done_pushback(warnings: &[DoneWarning], may_stop: bool) -> String {
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
            DoneWarning::FileMissing { path } => format!(
                "- {path} does not exist, and nothing in this task made it. Make it if the task needs it, or do not list it in files_changed."
            ),
            // What the person said no to: the model was told as it happened.
            DoneWarning::CommandDenied { .. }
            | DoneWarning::CallDenied { .. }
            | DoneWarning::EditPartlyKept { .. }
            | DoneWarning::ChangesRejected { .. } => continue,
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
fn heartbeat(tasks: &tools::TaskRegistry) -> Option<String> {
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

/// A file a tool attached, after the results as the user's own attachment: both providers take
/// a file there (OpenAI's tool messages hold text only).
fn attached_blocks(tool: &str, a: Attachment) -> [ContentBlock; 2] {
    let what = if a.is_pdf() { "PDF" } else { "image" };
    let said = ContentBlock::Text {
        text: format!("The {what} {} that {tool} attached:", a.path),
    };
    let file = if a.is_pdf() {
        ContentBlock::Document {
            media_type: a.media_type,
            name: a.path,
            data: a.data,
        }
    } else {
        ContentBlock::Image {
            media_type: a.media_type,
            data: a.data,
        }
    };
    [said, file]
}
