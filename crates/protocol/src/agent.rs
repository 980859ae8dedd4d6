//! What the agent tells its front ends (the GUI, the CLI) while it works, and how they answer
//! its approval questions.

use crate::{Hunk, Message, PlanItem, TurnOutcome, Usage};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// Everything a reviewer needs to decide on one tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ApprovalRequest {
    /// The tool call's id.
    pub id: String,
    pub tool: String,
    pub input: Value,
    /// The policy's reason, in plain words, and the rule that asked.
    pub reason: String,
    pub rule: String,
    /// Rules the user could grant instead of answering each time, in order.
    pub suggestions: Vec<ApprovalSuggestion>,
    /// For writes and edits: the file, its content now and the proposed content, and the hunks.
    pub path: Option<String>,
    pub original: Option<String>,
    pub proposed: Option<String>,
    pub hunks: Vec<Hunk>,
    /// For commands: the command line, and each simple command the policy found in it (what
    /// really runs, wrappers and substitutions included).
    pub command: Option<String>,
    pub commands: Vec<String>,
}

/// A rule offered as a button: approving with it grants it for the session
/// (`ApproveForSession`) or keeps it in the user's rules for the project (`ApproveAlways`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ApprovalSuggestion {
    pub label: String,
    /// True when the rule is meant to be kept for the project, not just this session.
    pub always: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub enum ApprovalAnswer {
    Approve,
    /// Approve, and grant the suggestion at this index for the rest of the session.
    ApproveForSession {
        suggestion: u32,
    },
    /// Approve, and keep the suggestion at this index as your rule for this project (in your
    /// own policy file, shown by `tandem-cli policy show`).
    ApproveAlways {
        suggestion: u32,
    },
    Deny {
        message: Option<String>,
    },
    /// For writes and edits: apply only these hunks (indices into `ApprovalRequest::hunks`).
    ApprovePartial {
        accepted_hunks: Vec<u32>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    /// The user's message that starts a turn.
    UserMessage {
        text: String,
    },
    StepStarted {
        step: u32,
    },
    TextDelta {
        text: String,
    },
    ThinkingDelta {
        text: String,
    },
    AssistantMessage {
        message: Message,
    },
    ToolCallProposed {
        id: String,
        name: String,
        input: Value,
    },
    ApprovalNeeded {
        request: Box<ApprovalRequest>,
    },
    ToolFinished {
        id: String,
        name: String,
        output: String,
        is_error: bool,
    },
    Usage {
        usage: Usage,
        /// This call's cost, when the model's price is known.
        cost_usd: Option<f64>,
    },
    Notice {
        text: String,
    },
    Error {
        message: String,
    },
    Done {
        summary: String,
    },
    /// The plan as `update_plan` left it.
    PlanUpdated {
        items: Vec<PlanItem>,
    },
    /// How the user answered an approval request.
    ApprovalAnswered {
        id: String,
        answer: ApprovalAnswer,
    },
    /// The turn is over; nothing more comes until the next message.
    TurnEnded {
        outcome: TurnOutcome,
    },
}
