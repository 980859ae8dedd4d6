//! How an engine failure crosses to a front end: once, as a code plus words for people (a
//! model's failure in the model's words, `llm::model_failure`).

use crate::outcome::AgentError;
use llm::FailureContext;
use protocol::{EngineError, FailureCode};

/// The code and the words a front end shows for a failed turn, where nothing more is known.
pub fn failure(e: &AgentError) -> EngineError {
    failure_at(e, FailureContext::default())
}

/// The code and the words for a failed turn, naming the server and model it was talking to.
pub fn failure_at(e: &AgentError, at: FailureContext<'_>) -> EngineError {
    match e {
        AgentError::Model(m) => llm::model_failure(m, at),
        AgentError::Log(log) => EngineError::new(
            FailureCode::LogFailed,
            "Tandem could not save the session to disk. Free some space or check that the \
             sessions folder can be written, then press Retry.",
            Some(log.to_string()),
        ),
        AgentError::NoProvider => config::no_provider(),
    }
}

/// A failure that is not the model's: the session busy elsewhere, a broken engine.
pub fn engine_error(code: FailureCode, message: impl Into<String>) -> EngineError {
    EngineError::new(code, message, None)
}
