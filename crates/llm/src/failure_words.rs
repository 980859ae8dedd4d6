//! A model server's failure in words for people: what happened and what to do, naming the
//! server and the model when they are known, built from the typed error (never from its text).
//! The technical cause travels beside them as `detail`, for a "details" fold and bug reports.

use crate::{AddressProblem, ConnectCause, LlmError};
use protocol::{DEFAULT_LOCAL_URL, EngineError, FailureCode};

/// Where a model failure happened, so the words can name it.
#[derive(Debug, Default, Clone, Copy)]
pub struct FailureContext<'a> {
    /// The server's base URL.
    pub server: Option<&'a str>,
    /// The model that was asked for.
    pub model: Option<&'a str>,
}

impl FailureContext<'_> {
    /// "the model server at http://127.0.0.1:11434/v1", or "the model server".
    fn server(&self) -> String {
        match self.server {
            Some(url) => format!("the model server at {}", url.trim_end_matches('/')),
            None => "the model server".to_string(),
        }
    }

    fn address(&self) -> String {
        match self.server {
            Some(url) => url.trim_end_matches('/').to_string(),
            None => "that address".to_string(),
        }
    }
}

/// A model server's failure in words: what happened, what to do.
pub fn model_failure(e: &LlmError, at: FailureContext<'_>) -> EngineError {
    let server = at.server();
    let server_cap = first_upper(&server);
    let (code, message, detail) = match e {
        LlmError::Auth { status } => (
            FailureCode::Auth,
            format!(
                "{server_cap} did not accept the API key (HTTP {status}). Check the key in Settings."
            ),
            None,
        ),
        LlmError::RateLimited { .. } => (
            FailureCode::RateLimited,
            format!(
                "{server_cap} is limiting how many requests Tandem may send. Wait a moment, then press Retry."
            ),
            Some(e.to_string()),
        ),
        LlmError::Overloaded { .. } => (
            FailureCode::RateLimited,
            format!("{server_cap} is overloaded right now. Wait a moment, then press Retry."),
            Some(e.to_string()),
        ),
        LlmError::Server { status, message } => (
            FailureCode::ServerError,
            format!(
                "{server_cap} had a problem of its own (HTTP {status}). Press Retry; if it keeps happening, check the server."
            ),
            Some(message.clone()).filter(|m| !m.trim().is_empty()),
        ),
        LlmError::Connect { cause, detail } => (
            FailureCode::Unreachable,
            unreachable_words(cause, &at),
            Some(detail.clone()),
        ),
        LlmError::BadAddress { url, problem } => (
            FailureCode::BadAddress,
            address_words(url, problem),
            None,
        ),
        LlmError::NotAnApi { status } => (
            FailureCode::NotAModelServer,
            format!(
                "The address {} answered with a web page (HTTP {status}), not as a model server, so it is probably wrong. Check it in Settings: OpenAI-compatible servers usually end in /v1, like {DEFAULT_LOCAL_URL}.",
                at.address()
            ),
            None,
        ),
        LlmError::StreamCut => (
            FailureCode::StreamBroken,
            "The model's reply was cut off before it ended. Press Retry.".into(),
            None,
        ),
        LlmError::Silent { seconds } => (
            FailureCode::StreamBroken,
            format!(
                "{server_cap} kept the reply open for {seconds} seconds without sending any of it, so Tandem stopped waiting. Press Retry; if it happens again, the server may be stuck."
            ),
            None,
        ),
        LlmError::Protocol(detail) => (
            FailureCode::StreamBroken,
            format!(
                "{server_cap} sent a reply Tandem could not read. Press Retry; if it happens again, the server may not speak the API it is set up as."
            ),
            Some(detail.clone()),
        ),
        LlmError::BadRequest {
            status: 404,
            message,
        } => (
            FailureCode::ModelNotFound,
            match at.model {
                Some(model) => format!(
                    "{server_cap} does not know the model “{model}”. Choose another model in Settings."
                ),
                None => format!(
                    "{server_cap} does not know this model. Choose another model in Settings."
                ),
            },
            Some(message.clone()).filter(|m| !m.trim().is_empty()),
        ),
        // The provider's own words are the only sign of this one; read at the edge, once.
        LlmError::BadRequest { message, .. } if too_long(message) => (
            FailureCode::ContextTooLong,
            "The conversation is too long for this model. Start a new session, or ask for a smaller step."
                .into(),
            Some(message.clone()),
        ),
        LlmError::BadRequest { status, message } => (
            FailureCode::BadRequest,
            format!(
                "{server_cap} refused the request (HTTP {status}). Check the model and its settings, then press Retry."
            ),
            Some(message.clone()).filter(|m| !m.trim().is_empty()),
        ),
        LlmError::BuiltinNotDownloaded(path) => (
            FailureCode::BuiltinNotDownloaded,
            "The built-in model is not downloaded yet. Download it in Settings (about 1 GB, once), or choose a GGUF model file you already have.".into(),
            Some(format!("no model file at {path}")),
        ),
        LlmError::BuiltinUnavailable(why) => (
            FailureCode::BuiltinUnavailable,
            "The built-in model cannot run on this computer as set up. Settings says why; a model server or an API key still works.".into(),
            Some(why.clone()),
        ),
        LlmError::Builtin(why) => (
            FailureCode::Internal,
            "The built-in model failed while answering. Press Retry.".into(),
            Some(why.clone()),
        ),
        LlmError::ContextFull { .. } => (
            FailureCode::ContextTooLong,
            "The conversation is too long for this model. Start a new session, or ask for a smaller step."
                .into(),
            Some(e.to_string()),
        ),
        LlmError::Cancelled => (FailureCode::Internal, "Stopped.".into(), None),
    };
    EngineError::new(code, message, detail)
}

/// Why nothing answered at the model server's address, and what to do.
fn unreachable_words(cause: &ConnectCause, at: &FailureContext<'_>) -> String {
    let server = at.server();
    let server_cap = first_upper(&server);
    match cause {
        ConnectCause::Refused => format!(
            "Nothing answered at {}: the model server is not running there, or the address is wrong. Start the server or check the address in Settings, then press Retry.",
            at.address()
        ),
        ConnectCause::TimedOut => format!(
            "{server_cap} did not answer in time. Check that it is running and that this computer is online, then press Retry."
        ),
        ConnectCause::Other => format!(
            "Tandem could not connect to {server}. Check the address in Settings and that this computer is online, then press Retry."
        ),
    }
}

/// What is wrong with an address typed in Settings, and how to write it.
fn address_words(url: &str, problem: &AddressProblem) -> String {
    match problem {
        AddressProblem::NoScheme => format!(
            "The address “{url}” is missing http:// at the start. Change it in Settings to http://{}.",
            url.trim()
        ),
        AddressProblem::NotHttp => format!(
            "The address “{url}” cannot be used: it must start with http:// or https://. Change it in Settings."
        ),
        AddressProblem::Unreadable => format!(
            "“{url}” is not a web address. Change it in Settings (a server on this computer looks like {DEFAULT_LOCAL_URL})."
        ),
    }
}

/// One line while a failed request is tried again: what happened, in words, and that Tandem
/// tries again (the final failure, if it comes, says what to do).
pub fn retry_notice(e: &LlmError, at: FailureContext<'_>) -> String {
    let server = first_upper(&at.server());
    let what = match e {
        LlmError::Connect {
            cause: ConnectCause::Refused,
            ..
        } => format!("Nothing answered at {}", at.address()),
        LlmError::Connect {
            cause: ConnectCause::TimedOut,
            ..
        } => format!("{server} did not answer in time"),
        LlmError::Connect { .. } => format!("Tandem could not connect to {}", at.server()),
        LlmError::RateLimited { .. } => format!("{server} asks Tandem to slow down"),
        LlmError::Overloaded { .. } => format!("{server} is overloaded"),
        LlmError::Server { status, .. } => {
            format!("{server} had a problem of its own (HTTP {status})")
        }
        LlmError::StreamCut => "The reply was cut off".into(),
        _ => "The request failed".into(),
    };
    format!("{what}; trying again…")
}

fn first_upper(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

fn too_long(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    m.contains("context length")
        || m.contains("context window")
        || m.contains("too many tokens")
        || m.contains("prompt is too long")
        || m.contains("maximum context")
}

#[cfg(test)]
mod tests {
    use super::*;

    const AT: FailureContext<'static> = FailureContext {
        server: Some("http://127.0.0.1:8080/v1/"),
        model: Some("qwen2.5-coder:7b"),
    };

    /// Every message says what happened and what to do, without the raw error in it.
    #[test]
    fn model_failures_say_what_happened_and_what_to_do_in_words() {
        let html = "<!DOCTYPE html><html><body>Not Found</body></html>";
        let cases: Vec<(LlmError, FailureCode, &str)> = vec![
            (
                LlmError::from_status(404, None, html),
                FailureCode::NotAModelServer,
                "http://127.0.0.1:8080/v1 answered with a web page (HTTP 404), not as a model server",
            ),
            (
                LlmError::Connect {
                    cause: ConnectCause::Refused,
                    detail: "error sending request for url (http://127.0.0.1:8080/v1/chat/completions): client error (Connect): tcp connect error: Connection refused (os error 111)".into(),
                },
                FailureCode::Unreachable,
                "Nothing answered at http://127.0.0.1:8080/v1: the model server is not running there",
            ),
            (
                LlmError::BadAddress {
                    url: "127.0.0.1:8080/v1".into(),
                    problem: AddressProblem::NoScheme,
                },
                FailureCode::BadAddress,
                "is missing http:// at the start. Change it in Settings to http://127.0.0.1:8080/v1.",
            ),
            (
                LlmError::BadRequest {
                    status: 404,
                    message: "model not found".into(),
                },
                FailureCode::ModelNotFound,
                "does not know the model “qwen2.5-coder:7b”",
            ),
            (
                LlmError::Auth { status: 401 },
                FailureCode::Auth,
                "did not accept the API key (HTTP 401). Check the key in Settings.",
            ),
        ];
        for (err, code, words) in cases {
            let shown = model_failure(&err, AT);
            assert_eq!(shown.code, code, "{err:?}");
            assert!(shown.message.contains(words), "{}", shown.message);
            for raw in ["<", "error sending request", "builder error", "`"] {
                assert!(!shown.message.contains(raw), "{raw:?} in {}", shown.message);
            }
        }
        let refused = model_failure(
            &LlmError::Connect {
                cause: ConnectCause::Refused,
                detail: "tcp connect error: Connection refused".into(),
            },
            AT,
        );
        assert_eq!(
            refused.detail.as_deref(),
            Some("tcp connect error: Connection refused"),
            "the cause stays available as detail"
        );
    }

    #[test]
    fn a_retry_is_one_plain_line() {
        let notice = retry_notice(
            &LlmError::Connect {
                cause: ConnectCause::Refused,
                detail: "error sending request for url (…)".into(),
            },
            AT,
        );
        assert_eq!(
            notice,
            "Nothing answered at http://127.0.0.1:8080/v1; trying again…"
        );
    }
}
