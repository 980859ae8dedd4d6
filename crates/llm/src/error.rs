//! What can go wrong talking to a model, and which failures are worth another try.

use std::time::Duration;

#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum LlmError {
    /// 401/403: retrying will not help.
    #[error("the provider rejected the API key (HTTP {status}); check your API key in Settings")]
    Auth { status: u16 },
    /// 429: retried after `retry_after` (or a backoff).
    #[error("the provider is rate limiting requests (HTTP 429){}", wait_hint(.retry_after))]
    RateLimited { retry_after: Option<Duration> },
    /// 529 or an `overloaded_error`: retried like a rate limit.
    #[error("the provider is overloaded{}", wait_hint(.retry_after))]
    Overloaded { retry_after: Option<Duration> },
    /// Other 5xx.
    #[error("the provider had a server error (HTTP {status}): {message}")]
    Server { status: u16, message: String },
    #[error("the provider could not be reached: {0}")]
    Connect(String),
    /// The stream ended before the message did.
    #[error("the response stream was cut off mid-message")]
    StreamCut,
    /// 4xx other than auth and rate limits: the request itself is wrong.
    #[error("the provider refused the request (HTTP {status}): {message}")]
    BadRequest { status: u16, message: String },
    #[error("the provider sent something unreadable: {0}")]
    Protocol(String),
    #[error("cancelled")]
    Cancelled,
}

fn wait_hint(d: &Option<Duration>) -> String {
    let Some(d) = d else {
        return String::new();
    };
    let secs = d.as_secs();
    let wait = match secs {
        0..120 => format!("{} s", d.as_secs_f32()),
        120..7_200 => format!("{} min", secs / 60),
        7_200..86_400 => format!("{} h", secs / 3_600),
        _ => "more than a day".to_string(),
    };
    format!("; it asks to wait {wait}")
}

impl LlmError {
    /// A request that got no answer, with every cause in the chain: reqwest's own message is
    /// only "error sending request", while the reason people can act on ("invalid peer
    /// certificate: UnknownIssuer", "connection refused") sits in its sources.
    pub(crate) fn connect(err: &(dyn std::error::Error + 'static)) -> Self {
        let mut parts: Vec<String> = Vec::new();
        let mut next = Some(err);
        while let Some(e) = next {
            let text = e.to_string();
            if !parts.iter().any(|p| p.contains(&text)) {
                parts.push(text);
            }
            next = e.source();
        }
        LlmError::Connect(parts.join(": "))
    }

    /// Maps an HTTP error status and body to the error it means.
    pub fn from_status(status: u16, retry_after: Option<Duration>, body: &str) -> Self {
        let message = serde_json::from_str::<serde_json::Value>(body)
            .ok()
            .and_then(|v| {
                v.pointer("/error/message")
                    .or_else(|| v.pointer("/message"))
                    .and_then(|m| m.as_str().map(str::to_string))
            })
            .unwrap_or_else(|| body.chars().take(300).collect());
        match status {
            401 | 403 => LlmError::Auth { status },
            429 => LlmError::RateLimited { retry_after },
            529 => LlmError::Overloaded { retry_after },
            500..=599 => LlmError::Server { status, message },
            _ => LlmError::BadRequest { status, message },
        }
    }
}
