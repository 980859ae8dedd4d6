//! What a call comes to: a [`Reply`] the model hears (whether it ran, failed, was refused or
//! denied), or a [`Halt`] of the turn — stopped by the person, or a failure of the engine's own.

use crate::outcome::AgentError;
use protocol::{Confinement, ToolOutcome, ToolSummary};

/// A file a tool brings for the model itself: a picture, or a PDF (its text is in the result
/// too, for models that cannot take the file).
pub(crate) struct Attachment {
    /// As the model named it: a path or a URL.
    pub path: String,
    pub media_type: String,
    /// Base64 of the file.
    pub data: String,
}

impl Attachment {
    pub(crate) fn is_pdf(&self) -> bool {
        self.media_type == "application/pdf"
    }
}

/// What the model is told of one call, and what people see of it.
pub(crate) struct Reply {
    pub text: String,
    pub is_error: bool,
    pub outcome: ToolOutcome,
    /// What it came to, for people.
    pub summary: Option<ToolSummary>,
    /// What ran, for a command: where, its exit code, the task it became.
    pub ran: Ran,
    /// A file for the model itself (an image, a PDF) the tool read or fetched.
    pub attachment: Option<Attachment>,
}

/// Where a command ran and how it ended.
#[derive(Debug, Clone, Default)]
pub(crate) struct Ran {
    pub confinement: Option<Confinement>,
    pub exit_code: Option<i32>,
    /// For a command that went on in the background: its task's id.
    pub task: Option<String>,
}

impl Reply {
    pub(crate) fn ok(text: String) -> Self {
        Reply {
            text,
            is_error: false,
            outcome: ToolOutcome::Ok,
            summary: None,
            ran: Ran::default(),
            attachment: None,
        }
    }

    pub(crate) fn err(text: String) -> Self {
        Reply {
            is_error: true,
            outcome: ToolOutcome::Failed,
            ..Reply::ok(text)
        }
    }

    /// For a call the person's stop cut short.
    pub(crate) fn stopped() -> Self {
        Self::err(
            "The user stopped the task before this call finished; it may not have run.".into(),
        )
        .with(ToolOutcome::Stopped)
    }

    /// For a call the policy refused.
    pub(crate) fn refused(decision: &policy::Decision) -> Self {
        Reply::err(format!(
            "The policy refused this call: {} [{}]. Do not retry it; find another way or ask the user.",
            decision.reason, decision.rule.name
        ))
        .with(ToolOutcome::Refused)
        .summed(Some(ToolSummary::Refused {
            reason: decision.reason.clone(),
        }))
    }

    /// For a call the person denied, with what they said.
    pub(crate) fn denied(message: Option<String>) -> Self {
        let note = message
            .as_ref()
            .map(|m| format!(" The user says: {m}"))
            .unwrap_or_default();
        Reply::err(format!("The user denied this call.{note}"))
            .with(ToolOutcome::Denied)
            .summed(Some(ToolSummary::Denied { message }))
    }

    /// For a call approved in part that cannot be split.
    pub(crate) fn not_split() -> Self {
        Reply::err(
            "The user approved only part of a call that cannot be split; it did not run.".into(),
        )
        .with(ToolOutcome::Denied)
    }

    pub(crate) fn with(mut self, outcome: ToolOutcome) -> Self {
        self.outcome = outcome;
        self
    }

    pub(crate) fn summed(mut self, summary: Option<ToolSummary>) -> Self {
        self.summary = summary;
        self
    }

    /// Where the command ran.
    pub(crate) fn at(mut self, confinement: Confinement) -> Self {
        self.ran.confinement = Some(confinement);
        self
    }
}

/// Why a turn stops at a call instead of telling the model something.
#[derive(Debug)]
pub(crate) enum Halt {
    /// The person stopped the turn, or nobody is there to answer a question.
    Stop,
    /// The engine itself failed (the log cannot be written).
    Fatal(AgentError),
}

impl<E: Into<AgentError>> From<E> for Halt {
    fn from(e: E) -> Self {
        Halt::Fatal(e.into())
    }
}

/// What a call comes to: the reply the model hears, or the turn's halt.
pub(crate) type Answered = Result<Reply, Halt>;
