//! Spending limits: what one session and one day (UTC, every session and front end together)
//! may spend on models — in money where the model's price is known, in tokens for any model.
//! The engine stops before the model call that would go past a limit.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// `[limits]` in settings.toml, and `tandem-cli run --max-cost`. Unset: no limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct SpendLimits {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub session_usd: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub day_usd: Option<f64>,
    /// Input and output tokens, every reply counted (the built-in model's too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub session_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub day_tokens: Option<u64>,
}

impl SpendLimits {
    pub fn is_empty(&self) -> bool {
        *self == SpendLimits::default()
    }
}

/// Which limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SpendScope {
    Session,
    /// Today (UTC), every session together.
    Day,
}

/// An amount of money or of tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "unit", rename_all = "snake_case")]
pub enum Amount {
    Usd { usd: f64 },
    Tokens { tokens: u64 },
}

/// A limit the next model call would go past: the turn stopped before it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, TS)]
pub struct LimitReached {
    pub scope: SpendScope,
    pub spent: Amount,
    pub limit: Amount,
}

/// What the cost meter shows: the limits in force for a session, and what today has spent.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, TS)]
pub struct SpendStatus {
    /// The settings' limits, with what the person raised for this session.
    pub limits: SpendLimits,
    pub session_usd: f64,
    pub session_tokens: u64,
    pub day_usd: f64,
    pub day_tokens: u64,
}

/// Which desktop notifications the window shows (Settings → Notifications).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct NotificationPrefs {
    /// A question waits while the window is not in front.
    pub questions: bool,
    /// A turn that took over a minute ended.
    pub turns: bool,
}

/// How Ask mode asks about commands (Settings → Rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CommandPrefs {
    /// Ask before every command runs, rather than run it in the sandbox over a copy of the
    /// project and ask about what it changed.
    pub ask_first: bool,
    /// Whether this computer can run commands over a copy of the project at all (when it
    /// cannot, every command in Ask mode is asked about before it runs). Read only.
    pub copies: bool,
}
