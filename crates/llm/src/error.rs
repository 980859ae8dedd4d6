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
    /// No answer came back: nothing listens there, the network or TLS failed, or it took too
    /// long. Retried like a server error (a server may be starting up).
    #[error("the provider could not be reached: {detail}")]
    Connect { cause: ConnectCause, detail: String },
    /// The address cannot be used at all (no `http://`, not a URL): never sent, not retried.
    #[error("`{url}` is not a usable address: {problem}")]
    BadAddress {
        url: String,
        problem: AddressProblem,
    },
    /// Something answered, but with a web page rather than the API (a wrong port or path, a
    /// router's login page, a proxy's error page). Not retried: the address is wrong.
    #[error("the address answered with a web page (HTTP {status}), not as a model API")]
    NotAnApi { status: u16 },
    /// The stream ended before the message did.
    #[error("the response stream was cut off mid-message")]
    StreamCut,
    /// The stream stayed open but brought nothing of the reply for this long: only keep-alive
    /// signals (SSE comments, `ping` events), which a stuck server can send forever. Not
    /// retried by itself: the person decides (Retry).
    #[error("the model sent nothing of its reply for {seconds} s (only keep-alive signals)")]
    Silent { seconds: u64 },
    /// 4xx other than auth and rate limits: the request itself is wrong.
    #[error("the provider refused the request (HTTP {status}): {message}")]
    BadRequest { status: u16, message: String },
    #[error("the provider sent something unreadable: {0}")]
    Protocol(String),
    /// The built-in model cannot run on this computer or with this file (no AVX2, too little
    /// memory, no model file, a file that fails its checksum): not retried.
    #[error("the built-in model cannot run: {0}")]
    BuiltinUnavailable(String),
    /// The built-in model has no file yet: it only needs the download (or a GGUF file the
    /// person has). Not retried: the person downloads it first.
    #[error("the built-in model is not downloaded yet (no file at {0})")]
    BuiltinNotDownloaded(String),
    /// The built-in model failed while answering (llama.cpp refused a batch, the prompt does
    /// not fit its context): not retried.
    #[error("the built-in model failed: {0}")]
    Builtin(String),
    /// The conversation does not fit the model's context (the built-in model counts its
    /// tokens itself, so this is known for sure, not read from a server's words).
    #[error("the conversation is {tokens} tokens, more than the model's context of {context}")]
    ContextFull { tokens: u32, context: u32 },
    #[error("cancelled")]
    Cancelled,
}

/// Why a connection failed, as far as the error chain says it in types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnectCause {
    /// Nothing listens at that address (the server is not running, or the port is wrong).
    Refused,
    /// No answer in time.
    TimedOut,
    /// Anything else: name lookup, TLS, a reset connection (the detail says which).
    Other,
}

/// What is wrong with an address that cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AddressProblem {
    /// `127.0.0.1:8080/v1`: the `http://` is missing.
    #[error("it must start with http:// or https://")]
    NoScheme,
    /// `ftp://…`, `file://…`.
    #[error("only http:// and https:// addresses can be used")]
    NotHttp,
    /// Not readable as an address at all.
    #[error("it is not a web address")]
    Unreadable,
}

/// Checks a provider's base URL before anything is sent to it.
pub fn check_address(url: &str) -> Result<(), LlmError> {
    let bad = |problem| LlmError::BadAddress {
        url: url.to_string(),
        problem,
    };
    match reqwest::Url::parse(url.trim()) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => Ok(()),
        Ok(u) if matches!(u.scheme(), "http" | "https") => Err(bad(AddressProblem::Unreadable)),
        // `localhost:11434` parses with the scheme `localhost`: an address without `http://`.
        Ok(_) if !url.contains("://") => Err(bad(AddressProblem::NoScheme)),
        Ok(_) => Err(bad(AddressProblem::NotHttp)),
        Err(_) if !url.contains("://") => Err(bad(AddressProblem::NoScheme)),
        Err(_) => Err(bad(AddressProblem::Unreadable)),
    }
}

/// Whether an answer is a web page: servers that are not the API (a wrong port, a login page, a
/// proxy's error page) answer with HTML, and no API error body ever starts with `<`.
pub(crate) fn is_web_page(content_type: Option<&str>, body: &str) -> bool {
    content_type.is_some_and(|t| t.to_ascii_lowercase().contains("text/html"))
        || body.trim_start().starts_with('<')
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
    pub(crate) fn connect(err: &reqwest::Error) -> Self {
        if err.is_builder()
            && let Some(url) = err.url()
        {
            // A request that could not even be built: the address is the problem.
            return LlmError::BadAddress {
                url: url.to_string(),
                problem: AddressProblem::Unreadable,
            };
        }
        let mut parts: Vec<String> = Vec::new();
        let mut cause = if err.is_timeout() {
            ConnectCause::TimedOut
        } else {
            ConnectCause::Other
        };
        let mut next: Option<&(dyn std::error::Error + 'static)> = Some(err);
        while let Some(e) = next {
            let text = e.to_string();
            if !parts.iter().any(|p| p.contains(&text)) {
                parts.push(text);
            }
            if let Some(io) = e.downcast_ref::<std::io::Error>() {
                match io.kind() {
                    std::io::ErrorKind::ConnectionRefused => cause = ConnectCause::Refused,
                    std::io::ErrorKind::TimedOut => cause = ConnectCause::TimedOut,
                    _ => {}
                }
            }
            next = e.source();
        }
        LlmError::Connect {
            cause,
            detail: parts.join(": "),
        }
    }

    /// Maps an HTTP error status and body to the error it means.
    pub fn from_status(status: u16, retry_after: Option<Duration>, body: &str) -> Self {
        Self::from_response(status, retry_after, None, body)
    }

    /// [`Self::from_status`], with the answer's content type: a web page is a wrong address
    /// whatever its status.
    pub(crate) fn from_response(
        status: u16,
        retry_after: Option<Duration>,
        content_type: Option<&str>,
        body: &str,
    ) -> Self {
        if is_web_page(content_type, body) {
            return LlmError::NotAnApi { status };
        }
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
