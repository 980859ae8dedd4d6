//! The calls of one reply, in order: each judged and run (or refused for its shape, or stopped
//! by the loop breaker), its result reported, a task_done weighed against what happened, and
//! the results fed back as one message.

use crate::loop_breaker::Verdict;
use crate::turn::{
    Agent, AgentError, Attachment, Outcome, ToolReply, done_pushback, read_project_text,
};
use llm::ChatResponse;
use protocol::{AgentEvent, ContentBlock, Message, Role, ToolOutcome};
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tools::PolicyView;

impl Agent {
    /// Runs `calls` of `resp`; what ends the task, if anything.
    pub(crate) async fn run_calls(
        &mut self,
        resp: &ChatResponse,
        calls: Vec<(String, String, Value)>,
        done_pushbacks: &mut u32,
        cancel: &CancellationToken,
    ) -> Result<Option<Outcome>, AgentError> {
        let lenient_note = resp.lenient.as_ref().and_then(|l| l.note());
        let noted_call = resp.lenient.as_ref().and_then(|l| l.call_id.clone());
        let mut results = Vec::new();
        let mut pictures = Vec::new();
        let mut outcome = None;
        let mut done_warnings = Vec::new();
        let mut calls = calls.into_iter();
        while let Some((id, name, input)) = calls.next() {
            let shown_id = self.event_id(&id);
            self.emit(AgentEvent::ToolCallProposed {
                id: shown_id.clone(),
                name: name.clone(),
                input: input.clone(),
            })?;
            let (reply, paused) = self.reply_to_call(resp, &id, &name, &input, cancel).await?;
            if paused.is_some() {
                outcome = paused;
            }
            let Some(reply) = reply else {
                // Stopped: every call of this reply gets a result, so the conversation
                // stays one the provider accepts when the session continues.
                let mut stopped = vec![(id, name)];
                stopped.extend(calls.by_ref().map(|(i, n, _)| (i, n)));
                for (i, n) in stopped {
                    let shown = self.event_id(&i);
                    results.push(self.report_finished(i, shown, &n, &ToolReply::stopped())?);
                }
                self.messages.push(Message {
                    role: Role::User,
                    content: results,
                });
                self.log.sync()?;
                return Ok(Some(Outcome::Cancelled));
            };
            let mut reply = reply;
            if noted_call.as_deref() == Some(id.as_str())
                && let Some(note) = &lenient_note
            {
                // The reply held several calls as text; one ran, and the model learns
                // which did not.
                reply.text.push_str("\n\n");
                reply.text.push_str(note);
            }
            let view = tools::policy_view(&name);
            if view == Some(PolicyView::Command)
                && reply.exit_code.is_some_and(|c| c != 0)
                && let Some(command) = input.get("command").and_then(Value::as_str)
            {
                self.plan_repair_draft(command, &reply.text);
            }
            reply.text = self.fit_for_model(&id, reply.text);
            if let Some(verdict) = self.watch_for_circles(&name, &input, &reply) {
                match verdict {
                    Verdict::StepBack { text } => reply.text.push_str(&text),
                    Verdict::Pause { reason, text } => {
                        reply.text.push_str("\n\n");
                        reply.text.push_str(&text);
                        outcome = Some(Outcome::Paused { reason });
                    }
                }
            }
            self.attachment_for_model(&mut reply);
            if tools::find_tool(&name).is_some_and(|t| t.finishes)
                && !reply.is_error
                && let Some((done, warnings)) = self.weigh_done(&input, &mut reply, done_pushbacks)
            {
                done_warnings = warnings;
                outcome = Some(done);
            }
            results.push(self.report_finished(id, shown_id, &name, &reply)?);
            if let Some(a) = reply.attachment {
                pictures.extend(attached_blocks(&name, a));
            }
        }
        results.append(&mut pictures);
        if let Some(note) = crate::turn::heartbeat(&self.toolbox.tasks) {
            results.push(ContentBlock::Text { text: note });
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
                    warnings: std::mem::take(&mut done_warnings),
                })?;
                self.log.sync()?;
            }
            return Ok(Some(o));
        }
        Ok(None)
    }

    /// What a call gets back: refused for its shape, stopped by the loop breaker (and the
    /// task paused, said in the second value), or judged and run, repaired first when it
    /// can be. None when the person stopped the task.
    async fn reply_to_call(
        &mut self,
        resp: &ChatResponse,
        id: &str,
        name: &str,
        input: &Value,
        cancel: &CancellationToken,
    ) -> Result<(Option<ToolReply>, Option<Outcome>), AgentError> {
        if let Some(bad) = resp.malformed_tool_calls.iter().find(|m| m.id == id) {
            let text = format!(
                "Your arguments for {name} were not valid JSON ({}): {}. Send them again as one JSON object.",
                bad.error, bad.raw
            );
            return Ok((Some(ToolReply::err(text)), None));
        }
        let verdict = {
            let root = self.toolbox.ws.root();
            let read = |p: &str| read_project_text(root, p);
            self.breaker.before_call(name, &input.to_string(), &read)
        };
        if let Some(verdict) = verdict {
            return Ok(match verdict {
                Verdict::StepBack { text } => (Some(ToolReply::err(text)), None),
                Verdict::Pause { reason, text } => {
                    (Some(ToolReply::err(text)), Some(Outcome::Paused { reason }))
                }
            });
        }
        let repaired = crate::call_repair::repaired_call(
            self.toolbox.ws.root(),
            self.small_model(),
            name,
            input,
        );
        let reply = match repaired {
            Some((repaired, note)) => {
                self.judge_and_run(id, name, &repaired, cancel)
                    .await?
                    .map(|mut r| {
                        if !r.is_error {
                            r.text.push_str(&note);
                        }
                        r
                    })
            }
            None => self.judge_and_run(id, name, input, cancel).await?,
        };
        Ok((reply, None))
    }

    /// A file a tool attached goes to a model that takes it; otherwise the result says so.
    fn attachment_for_model(&self, reply: &mut ToolReply) {
        let Some(pdf) = reply.attachment.as_ref().map(Attachment::is_pdf) else {
            return;
        };
        let config = self.provider.as_ref().map(|p| p.config());
        let takes = config.is_some_and(|c| if pdf { c.documents } else { c.images });
        match (takes, pdf) {
            (true, true) => reply.text.push_str("\nThe PDF itself is attached below."),
            (true, false) => reply.text.push_str(" It is attached below."),
            // A PDF's text is in the result already: nothing is missing.
            (false, true) => reply.attachment = None,
            (false, false) => {
                reply.attachment = None;
                reply.text.push_str(&format!(
                    " It was not sent: the model in use ({}) does not take images. If it does, set `images = true` for its provider in settings.toml; otherwise ask the user to describe it.",
                    self.config.model
                ));
            }
        }
    }

    /// A task_done weighed against what happened: sent back (its reply rewritten) or the
    /// task's end with the warnings people see beside it.
    fn weigh_done(
        &mut self,
        input: &Value,
        reply: &mut ToolReply,
        done_pushbacks: &mut u32,
    ) -> Option<(Outcome, Vec<protocol::DoneWarning>)> {
        let warnings = self.done_warnings(input);
        // Once: the model hears what contradicts it and goes on. A model that calls
        // task_done again has said its last word; the user sees the warnings with it. A
        // small model gave up at once when offered to (make bench-agent): it hears twice,
        // the first time with the failing assertion and its function, and only the second
        // time that it may stop.
        let allowed = if self.small_model() { 2 } else { 1 };
        if !warnings.is_empty() && *done_pushbacks < allowed {
            *done_pushbacks += 1;
            let last = *done_pushbacks == allowed;
            reply.text = done_pushback(&warnings, last);
            if !last {
                let root = self.toolbox.ws.root();
                let read = |p: &str| read_project_text(root, p);
                reply.text.push_str(&self.breaker.what_to_look_at(&read));
            }
            // An error for the model (its call did not end the task); for people, the
            // work going on.
            reply.is_error = true;
            reply.outcome = ToolOutcome::SentBack;
            reply.summary = Some(protocol::ToolSummary::SentBack { warnings });
            return None;
        }
        let summary = input
            .get("summary")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        Some((Outcome::Done { summary }, warnings))
    }

    /// A tool's result cut to what the model may get (see `tools::cap_result`); the whole text
    /// goes to the session's outputs folder, and the model is told where.
    fn fit_for_model(&self, call_id: &str, text: String) -> String {
        let Some(mut capped) = tools::cap_result(&text) else {
            return text;
        };
        let dir = &self.toolbox.commands.output_dir;
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
        let saved =
            std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&file, text.as_bytes()));
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

    /// Where a task_done's summary and files disagree with what this agent did.
    fn done_warnings(&self, input: &Value) -> Vec<protocol::DoneWarning> {
        let Ok(args) = serde_json::from_value::<tools::TaskDoneArgs>(input.clone()) else {
            return Vec::new();
        };
        let files = args.files_changed.unwrap_or_default();
        self.record.warnings(
            &crate::claims::Claim {
                summary: &args.summary,
                files: &files,
            },
            &crate::claims::Project {
                root: self.toolbox.ws.root(),
                session_started_ms: self.config.session_started_ms,
            },
        )
    }

    /// After a call: an edit is remembered, and a check that failed again may close a circle.
    fn watch_for_circles(
        &mut self,
        name: &str,
        input: &Value,
        reply: &ToolReply,
    ) -> Option<Verdict> {
        if reply.is_error {
            return None;
        }
        let text = |k: &str| input.get(k).and_then(Value::as_str);
        match tools::policy_view(name)? {
            PolicyView::Write => {
                let new_text = text("new_string").or_else(|| {
                    input
                        .get("edits")
                        .and_then(Value::as_array)
                        .and_then(|e| e.last())
                        .and_then(|e| e.get("new_string"))
                        .and_then(Value::as_str)
                });
                self.breaker.edited(text("path")?, new_text);
                None
            }
            PolicyView::Command => {
                let command = text("command")?;
                let code = reply.exit_code?;
                if !crate::checks::is_check(command) {
                    return None;
                }
                let root = self.toolbox.ws.root();
                let read = |p: &str| read_project_text(root, p);
                self.breaker
                    .after_check(command, code == 0, &reply.text, &read)
            }
            _ => None,
        }
    }
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
