//! A session as people keep it, for `tandem-cli export` and the window's Export: Markdown (the
//! conversation, each tool call with who decided it and how it ended, what sub-agents did, the
//! files the session changed as diffs, and what it cost) or its JSON log, one entry per line
//! with the large values a log keeps beside it put back in.

use crate::history::log::{LogError, read_session};
use protocol::{
    AgentEvent, ApprovalAnswer, ContentBlock, Role, SessionFileChange, ToolOutcome, TurnOutcome,
};
use serde_json::Value;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

/// The form of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    Markdown,
    Jsonl,
}

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(transparent)]
    Log(#[from] LogError),
    #[error("the session's log could not be written out: {0}")]
    Json(#[from] serde_json::Error),
}

/// The session whose log is at `log_path`, in `format`.
pub fn export_session(log_path: &Path, format: ExportFormat) -> Result<String, ExportError> {
    match format {
        ExportFormat::Jsonl => jsonl(log_path),
        ExportFormat::Markdown => markdown(log_path),
    }
}

fn jsonl(log_path: &Path) -> Result<String, ExportError> {
    let read = read_session::<Value>(log_path)?;
    let mut out = serde_json::to_string(&serde_json::json!({ "header": read.header }))?;
    out.push('\n');
    for e in &read.entries {
        out.push_str(&serde_json::to_string(e)?);
        out.push('\n');
    }
    Ok(out)
}

/// "2026-12-02 07:30 UTC".
fn when(ms: u64) -> String {
    let secs = ms / 1000;
    let (h, min) = ((secs % 86_400) / 3600, (secs % 3600) / 60);
    format!("{} {h:02}:{min:02} UTC", crate::spend::day_of(ms))
}

fn first_line(text: &str, max: usize) -> String {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if line.chars().count() > max {
        format!("{}…", line.chars().take(max).collect::<String>())
    } else {
        line.to_string()
    }
}

/// What a call was about, in a few words: its file, command or query.
fn call_subject(input: &Value) -> String {
    for key in [
        "path", "command", "pattern", "query", "url", "message", "task",
    ] {
        if let Some(v) = input.get(key).and_then(Value::as_str) {
            return format!(" `{}`", first_line(v, 100).replace('`', "'"));
        }
    }
    String::new()
}

fn answer_words(a: &ApprovalAnswer) -> String {
    match a {
        ApprovalAnswer::Approve => "you approved it".into(),
        ApprovalAnswer::ApproveForSession { .. } => "you approved it for the session".into(),
        ApprovalAnswer::ApproveAlways { .. } => "you approved it always".into(),
        ApprovalAnswer::Deny { message: Some(m) } => format!("you denied it (“{m}”)"),
        ApprovalAnswer::Deny { message: None } => "you denied it".into(),
        ApprovalAnswer::ApprovePartial { accepted_hunks } => {
            format!("you approved {} of its changes", accepted_hunks.len())
        }
    }
}

fn outcome_words(o: Option<&ToolOutcome>, is_error: bool) -> &'static str {
    match o {
        Some(ToolOutcome::Ok) => "done",
        Some(ToolOutcome::Failed) => "failed",
        Some(ToolOutcome::Denied) => "not run",
        Some(ToolOutcome::Refused) => "refused by the rules",
        Some(ToolOutcome::Stopped) => "stopped",
        Some(ToolOutcome::Background) => "running in the background",
        Some(ToolOutcome::SentBack) => "sent back",
        Some(ToolOutcome::Repeated) => "stopped by Tandem as a repeated step",
        None if is_error => "failed",
        None => "done",
    }
}

fn turn_end_words(o: &TurnOutcome) -> String {
    match o {
        TurnOutcome::Done { summary } => format!("done — {summary}"),
        TurnOutcome::Ended => "the turn ended".into(),
        TurnOutcome::Paused { reason } => format!("paused: {reason}"),
        TurnOutcome::StepLimit => "stopped at the step limit".into(),
        TurnOutcome::BudgetSpent { used } => format!("stopped: the token budget is spent ({used})"),
        TurnOutcome::LimitReached { reached } => {
            format!("stopped: {}", crate::spend::limit_words(reached))
        }
        TurnOutcome::Cancelled => "stopped by you".into(),
        TurnOutcome::Failed { error } => format!("failed: {}", error.message),
    }
}

/// A fence longer than any run of backticks in `text`.
fn fence(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    "`".repeat(longest.max(2) + 1)
}

fn diff_of(change: &SessionFileChange) -> String {
    let before = change.before.as_deref().unwrap_or("");
    let after = change.after.as_deref().unwrap_or("");
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(
            if change.before.is_some() {
                &change.path
            } else {
                "/dev/null"
            },
            if change.after.is_some() {
                &change.path
            } else {
                "/dev/null"
            },
        )
        .to_string()
}

fn markdown(log_path: &Path) -> Result<String, ExportError> {
    let read = read_session::<Value>(log_path)?;
    let t = crate::history::view::load_transcript(log_path, None)?;
    let mut out = header_markdown(&t.info);
    // Who decided each call: the person's answer where one was asked.
    let mut asked: HashMap<String, String> = HashMap::new();
    for e in &t.events {
        if let AgentEvent::ApprovalAnswered { id, answer } = e {
            asked.insert(id.clone(), answer_words(answer));
        }
    }
    let mut story = Story {
        asked,
        ..Story::default()
    };
    for e in &t.events {
        story.tell(&mut out, e);
    }
    let dir = log_path.with_extension("");
    let changes = crate::history::changes::session_changes(&dir, Path::new(&read.header.project))
        .unwrap_or_default();
    changes_markdown(&mut out, &changes);
    Ok(out)
}

/// The session's title and facts: id, project, model, start, cost.
fn header_markdown(info: &protocol::SessionInfo) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", info.title.replace('\n', " "));
    let _ = writeln!(out, "- Session: `{}`", info.id);
    let _ = writeln!(out, "- Project: `{}`", info.project);
    if !info.model.is_empty() {
        let _ = writeln!(out, "- Model: {}", info.model);
    }
    let _ = writeln!(out, "- Started: {}", when(info.started_ms));
    let cost = match info.cost_usd {
        Some(c) => format!("${c:.4}"),
        None => "unknown (no price for the model)".into(),
    };
    let _ = writeln!(
        out,
        "- Cost: {cost} — {} tokens in, {} out\n",
        info.input_tokens, info.output_tokens
    );
    out
}

/// What the transcript's events come to in words, told one event at a time.
#[derive(Default)]
struct Story {
    /// The person's answer per call id, where one was asked.
    asked: HashMap<String, String>,
    /// Each call's tool and input, by id, as the model made it.
    calls: HashMap<String, (String, Value)>,
    /// Each call in words for people ("Read `calc.py`"), by id, where the log has them.
    titles: HashMap<String, String>,
    turn: u32,
}

/// A call's title as Markdown: its code parts in backticks. Also the words of a pause and of
/// a compaction's dropped calls.
pub(crate) fn title_words(title: &[protocol::TitlePart]) -> String {
    title
        .iter()
        .map(|p| {
            if p.code {
                format!("`{}`", first_line(&p.text, 100).replace('`', "'"))
            } else {
                p.text.clone()
            }
        })
        .collect()
}

/// What contradicts a task's summary, in the window's words (Markdown).
fn done_warning_words(w: &protocol::DoneWarning) -> String {
    use protocol::DoneWarning as W;
    let code = |t: &str| format!("`{}`", first_line(t, 100).replace('`', "'"));
    match w {
        W::EditRejected { path } => format!("{} is unchanged: you rejected its edit.", code(path)),
        W::FileUnchanged { path } => {
            format!(
                "{} is listed as changed, but nothing changed it.",
                code(path)
            )
        }
        W::CheckFailed {
            command,
            exit_code: Some(c),
        } => format!(
            "The last check failed: {} ended with exit code {c}.",
            code(command)
        ),
        W::CheckFailed {
            command,
            exit_code: None,
        } => format!(
            "The last check was stopped before it finished: {}.",
            code(command)
        ),
        W::CheckNotRun { command } => format!(
            "The check the task asked for did not run after the last change: {}.",
            code(command)
        ),
        W::FileMissing { path } => {
            format!(
                "{} is listed as changed, but it does not exist.",
                code(path)
            )
        }
        W::CommandDenied { command } => format!("You denied {}: it did not run.", code(command)),
        W::CallDenied { title } => format!("You said no to: {title}."),
        W::EditPartlyKept { path, kept, total } => {
            format!("You kept {kept} of {total} changes to {}.", code(path))
        }
        W::ChangesRejected { command, paths } => format!(
            "You rejected what {} did to {}: it did not land.",
            code(command),
            paths.iter().map(|p| code(p)).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// Why the agent woke, in words.
fn wake_words(reason: &protocol::WakeReason) -> String {
    match reason {
        protocol::WakeReason::TaskFinished { title, state, .. } if state == "reported" => {
            format!("`{title}` reported back")
        }
        protocol::WakeReason::TaskFinished { title, state, .. } => {
            format!("background task `{title}` ended: {state}")
        }
        protocol::WakeReason::ChangesAsked { title, .. } => {
            format!("you asked to review what `{title}` changed so far")
        }
        protocol::WakeReason::Timer { hint: Some(h) } => format!("the wake-up it asked for: {h}"),
        protocol::WakeReason::Timer { hint: None } => "the wake-up it asked for".into(),
        protocol::WakeReason::Retry => "you asked it to try again".into(),
    }
}

impl Story {
    fn tell(&mut self, out: &mut String, e: &AgentEvent) {
        match e {
            AgentEvent::UserMessage { text, .. } => {
                self.turn += 1;
                let _ = writeln!(out, "## {}. {}\n", self.turn, first_line(text, 80));
                for line in text.lines() {
                    let _ = writeln!(out, "> {line}");
                }
                out.push('\n');
            }
            AgentEvent::Wake { reason, .. } => {
                self.turn += 1;
                let _ = writeln!(
                    out,
                    "## {}. The agent went on: {}\n",
                    self.turn,
                    wake_words(reason)
                );
            }
            AgentEvent::AssistantMessage { message } if message.role == Role::Assistant => {
                for b in &message.content {
                    match b {
                        ContentBlock::Text { text } if !text.trim().is_empty() => {
                            let _ = writeln!(out, "{}\n", text.trim());
                        }
                        ContentBlock::ToolUse { id, name, input } => {
                            self.calls.insert(id.clone(), (name.clone(), input.clone()));
                        }
                        _ => {}
                    }
                }
            }
            AgentEvent::ToolCallProposed { id, title, .. } if !title.is_empty() => {
                self.titles.insert(id.clone(), title_words(title));
            }
            AgentEvent::ToolFinished {
                id,
                name,
                output,
                is_error,
                outcome,
                ..
            } => {
                // The call as people read it; a log from before titles names the tool.
                let what = self.titles.get(id).cloned().unwrap_or_else(|| {
                    let subject = self
                        .calls
                        .get(id)
                        .map(|(_, input)| call_subject(input))
                        .unwrap_or_default();
                    format!("**{name}**{subject}")
                });
                // Who decided, where someone did: the person's answer, or a refusal.
                let decided = match (self.asked.get(id), outcome) {
                    (Some(a), _) => format!(" — {a}"),
                    (None, Some(ToolOutcome::Refused)) => " — the rules refused it".into(),
                    (None, _) => String::new(),
                };
                let _ = writeln!(
                    out,
                    "- {what}{decided} — {}: {}",
                    outcome_words(outcome.as_ref(), *is_error),
                    first_line(output, 160)
                );
            }
            AgentEvent::SubagentStarted { name, task, .. } => {
                let _ = writeln!(
                    out,
                    "- Sub-agent **{name}** started: {}",
                    first_line(task, 120)
                );
            }
            AgentEvent::SubagentEnded {
                outcome, report, ..
            } => {
                let _ = writeln!(
                    out,
                    "- A sub-agent ended ({}): {}",
                    turn_end_words(outcome),
                    first_line(report, 160)
                );
            }
            AgentEvent::Restored { record } => {
                // Named as the window names it: no turn or checkpoint numbers, which the
                // person never sees.
                let when = match (record.turn, record.turn_words.as_deref()) {
                    (None, _) => "before a restore".to_string(),
                    (Some(1), _) => "the start of the session".to_string(),
                    (_, Some(words)) => format!("before “{}”", first_line(words, 80)),
                    (Some(_), None) => "an earlier turn".to_string(),
                };
                let files = match record.files.as_slice() {
                    [] => "no files changed back".to_string(),
                    [one] => format!("`{one}` changed back"),
                    many => format!("{} files changed back", many.len()),
                };
                let _ = writeln!(out, "\n_Restored to {when} ({files})._\n");
            }
            AgentEvent::Done { warnings, .. } if !warnings.is_empty() => {
                // The window ends such a task amber, "check this": so does the export, or
                // it read "done — Generated report.txt" after the person denied the command.
                let _ = writeln!(out, "\n**Check this** — the agent says it is done, but:\n");
                for w in warnings {
                    let _ = writeln!(out, "- {}", done_warning_words(w));
                }
            }
            AgentEvent::Compacted {
                summary,
                messages_before,
                messages_after,
                ..
            } => {
                let _ = writeln!(
                    out,
                    "\n_Earlier messages summarised for the model ({messages_before} → {messages_after} messages); the summary:_\n"
                );
                for line in summary.lines() {
                    let _ = writeln!(out, "> {line}");
                }
                out.push('\n');
            }
            AgentEvent::TurnEnded { outcome } => {
                let _ = writeln!(out, "\n**Turn ended:** {}\n", turn_end_words(outcome));
            }
            _ => {}
        }
    }
}

/// Every file the session changed, with its diff.
fn changes_markdown(out: &mut String, changes: &[SessionFileChange]) {
    if changes.is_empty() {
        return;
    }
    out.push_str("## Files changed\n\n");
    for c in changes {
        let diff = diff_of(c);
        let f = fence(&diff);
        let _ = writeln!(
            out,
            "### `{}` (+{} −{})\n\n{f}diff\n{}{f}\n",
            c.path,
            c.added_lines,
            c.removed_lines,
            if diff.ends_with('\n') {
                diff.clone()
            } else {
                format!("{diff}\n")
            }
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fence_is_longer_than_any_backticks_inside() {
        assert_eq!(fence("plain"), "```");
        assert_eq!(fence("a ```` b"), "`````");
    }

    /// Issue 46: the export read "done — Generated report.txt" after the person denied the
    /// command, and "Restored to checkpoint 3" where the window shows no numbers.
    #[test]
    fn an_ending_that_claims_more_than_happened_says_so_and_a_restore_names_its_turn() {
        let mut story = Story::default();
        let mut out = String::new();
        story.tell(
            &mut out,
            &AgentEvent::Done {
                summary: "Generated report.txt".into(),
                warnings: vec![
                    protocol::DoneWarning::CommandDenied {
                        command: "python3 gen.py".into(),
                    },
                    protocol::DoneWarning::FileMissing {
                        path: "report.txt".into(),
                    },
                ],
            },
        );
        story.tell(
            &mut out,
            &AgentEvent::Restored {
                record: protocol::RestoreRecord {
                    checkpoint: 3,
                    turn: Some(3),
                    turn_words: Some("Now break it".into()),
                    scope: protocol::RestoreScope::Both,
                    files: vec!["calc.py".into()],
                    not_restorable: vec![],
                    turns_removed: 1,
                    undo_checkpoint: 4,
                },
            },
        );
        assert!(
            out.contains("**Check this** — the agent says it is done, but:"),
            "{out}"
        );
        assert!(
            out.contains("- You denied `python3 gen.py`: it did not run."),
            "{out}"
        );
        assert!(
            out.contains("- `report.txt` is listed as changed, but it does not exist."),
            "{out}"
        );
        assert!(
            out.contains("_Restored to before “Now break it” (`calc.py` changed back)._"),
            "{out}"
        );
        assert!(!out.contains("checkpoint 3"), "{out}");
    }

    #[test]
    fn times_are_utc_dates() {
        assert_eq!(when(0), "1970-01-01 00:00 UTC");
        assert_eq!(when(1_796_196_000_000), "2026-12-02 07:20 UTC");
    }
}
