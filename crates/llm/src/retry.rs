//! Which failures are retried, how often, and how long to wait.

use crate::error::LlmError;
use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts after a 429 or an overload.
    pub rate_limit_retries: u32,
    /// Attempts after a 5xx or a connection failure.
    pub server_retries: u32,
    /// A stream cut mid-message is retried this many times.
    pub cut_stream_retries: u32,
    pub base_delay: Duration,
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            rate_limit_retries: 5,
            server_retries: 3,
            cut_stream_retries: 1,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// How long to wait before attempt `attempt + 1` after `err`, or `None` when it is not
    /// worth another try. `retries` counts earlier retries of the same kind.
    pub fn delay(&self, err: &LlmError, retries: u32) -> Option<Duration> {
        let backoff = || {
            let d = self.base_delay.saturating_mul(2u32.saturating_pow(retries));
            d.min(self.max_delay)
        };
        match err {
            LlmError::RateLimited { retry_after } | LlmError::Overloaded { retry_after } => {
                (retries < self.rate_limit_retries).then(|| {
                    retry_after
                        .map(|d| d.min(self.max_delay))
                        .unwrap_or_else(backoff)
                })
            }
            LlmError::Server { .. } | LlmError::Connect(_) => {
                (retries < self.server_retries).then(backoff)
            }
            LlmError::StreamCut => (retries < self.cut_stream_retries).then_some(Duration::ZERO),
            LlmError::Auth { .. }
            | LlmError::BadRequest { .. }
            | LlmError::Protocol(_)
            | LlmError::Cancelled => None,
        }
    }
}
