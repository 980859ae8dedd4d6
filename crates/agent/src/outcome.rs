//! How a task ends, and the failures that end it early.

use crate::history::log::LogError;
use llm::LlmError;
use protocol::TurnOutcome;

#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The model called task_done.
    Done {
        summary: String,
    },
    /// The model stopped calling tools without task_done.
    Ended {
        text: String,
    },
    /// Paused for the user (a loop of identical calls).
    Paused {
        reason: String,
    },
    StepLimit,
    /// The task's token budget is spent.
    BudgetSpent {
        used: u64,
    },
    /// A spending limit stopped it before the next model call.
    LimitReached {
        reached: protocol::LimitReached,
    },
    Cancelled,
}

impl Outcome {
    pub fn to_turn_outcome(&self) -> TurnOutcome {
        match self {
            Outcome::Done { summary } => TurnOutcome::Done {
                summary: summary.clone(),
            },
            Outcome::Ended { .. } => TurnOutcome::Ended,
            Outcome::Paused { reason } => TurnOutcome::Paused {
                reason: reason.clone(),
            },
            Outcome::StepLimit => TurnOutcome::StepLimit,
            Outcome::BudgetSpent { used } => TurnOutcome::BudgetSpent { used: *used },
            Outcome::LimitReached { reached } => TurnOutcome::LimitReached { reached: *reached },
            Outcome::Cancelled => TurnOutcome::Cancelled,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("the model failed: {0}")]
    Model(#[from] LlmError),
    #[error(transparent)]
    Log(#[from] LogError),
    #[error("no model provider is set up; choose one in Settings")]
    NoProvider,
}

/// Running totals of one agent, for the session's meter and a sub-agent's report.
#[derive(Debug, Clone, Copy)]
pub struct AgentStats {
    pub steps: u32,
    pub tokens: u64,
    pub cost_usd: f64,
    /// False once any reply's price was unknown.
    pub priced: bool,
}

impl Default for AgentStats {
    fn default() -> Self {
        AgentStats {
            steps: 0,
            tokens: 0,
            cost_usd: 0.0,
            priced: true,
        }
    }
}
