//! What can go wrong with the built-in model, typed so the front ends can word it.

use crate::machine::Unavailable;

#[derive(Debug, thiserror::Error)]
pub enum BuiltinError {
    /// This computer or this file cannot run it (checked before loading).
    #[error(transparent)]
    Unavailable(#[from] Unavailable),
    #[error("llama.cpp did not start: {0}")]
    Backend(String),
    #[error("the model file does not load ({path}): {detail}")]
    Load { path: String, detail: String },
    #[error("the model's context did not start: {0}")]
    Context(String),
    #[error("the model's chat template does not render this conversation: {0}")]
    Template(String),
    #[error(
        "the conversation is {tokens} tokens, more than the built-in model's context of {context} (with room to answer); start a new session"
    )]
    TooLong { tokens: usize, context: u32 },
    #[error("llama.cpp could not evaluate the prompt: {0}")]
    Decode(String),
    #[error("the model's thread has stopped")]
    WorkerGone,
    /// No token fits what the tools allow (a grammar that admits nothing).
    #[error("the model found no next word that fits the tool calls' form")]
    NoToken,
}

impl From<BuiltinError> for llm::LlmError {
    fn from(e: BuiltinError) -> Self {
        match e {
            BuiltinError::Unavailable(crate::machine::Unavailable::NoModelFile(path)) => {
                llm::LlmError::BuiltinNotDownloaded(path)
            }
            BuiltinError::Unavailable(u) => llm::LlmError::BuiltinUnavailable(u.to_string()),
            e @ BuiltinError::Load { .. } => llm::LlmError::BuiltinUnavailable(e.to_string()),
            BuiltinError::TooLong { tokens, context } => llm::LlmError::ContextFull {
                tokens: u32::try_from(tokens).unwrap_or(u32::MAX),
                context,
            },
            other => llm::LlmError::Builtin(other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 46: with no file, using the built-in model said it "cannot run on this computer",
    /// when it only needs the download.
    #[test]
    fn no_model_file_is_said_as_not_downloaded_yet() {
        let e: llm::LlmError = BuiltinError::Unavailable(crate::machine::Unavailable::NoModelFile(
            "/data/models/qwen.gguf".into(),
        ))
        .into();
        assert!(matches!(e, llm::LlmError::BuiltinNotDownloaded(_)), "{e:?}");
        let shown = llm::model_failure(&e, llm::FailureContext::default());
        assert_eq!(shown.code, protocol::FailureCode::BuiltinNotDownloaded);
        assert!(
            shown.message.contains("not downloaded yet"),
            "{}",
            shown.message
        );
        assert!(!shown.message.contains("cannot run"), "{}", shown.message);
        assert!(shown.next_step.settings && !shown.next_step.retry);
    }
}
