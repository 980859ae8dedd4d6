//! How an engine failure crosses to a front end: once, as a code plus words for people.

use crate::turn::AgentError;
use llm::LlmError;
use protocol::{EngineError, FailureCode};

/// The code and the message a front end shows for a failed turn.
pub fn failure(e: &AgentError) -> EngineError {
    let code = match e {
        AgentError::Log(_) => FailureCode::LogFailed,
        AgentError::NoProvider => FailureCode::NoProvider,
        AgentError::Model(m) => match m {
            LlmError::Auth { .. } => FailureCode::Auth,
            LlmError::RateLimited { .. } | LlmError::Overloaded { .. } => FailureCode::RateLimited,
            LlmError::Server { .. } => FailureCode::ServerError,
            LlmError::Connect(_) => FailureCode::Unreachable,
            LlmError::StreamCut | LlmError::Protocol(_) => FailureCode::StreamBroken,
            LlmError::BadRequest { status: 404, .. } => FailureCode::ModelNotFound,
            // The provider's own words are the only sign of this one; read at the edge, once.
            LlmError::BadRequest { message, .. } if too_long(message) => {
                FailureCode::ContextTooLong
            }
            LlmError::BadRequest { .. } => FailureCode::BadRequest,
            LlmError::Cancelled => FailureCode::Internal,
        },
    };
    EngineError {
        code,
        message: e.to_string(),
    }
}

fn too_long(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    m.contains("context length")
        || m.contains("context window")
        || m.contains("too many tokens")
        || m.contains("prompt is too long")
        || m.contains("maximum context")
}

/// A failure that is not the model's: no provider set up, the session busy elsewhere.
pub fn engine_error(code: FailureCode, message: impl Into<String>) -> EngineError {
    EngineError {
        code,
        message: message.into(),
    }
}
