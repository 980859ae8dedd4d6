//! What can go wrong with a server, in words for the model and for people. Each variant says
//! whether the server is being started again.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// The name matches no tool of a running server.
    #[error("there is no tool named `{0}` on a running server")]
    UnknownTool(String),
    /// The server is not running (not approved, disabled, starting, or given up on).
    #[error("the server {server} is not running ({why}); its tools cannot be used now")]
    NotRunning { server: String, why: String },
    /// The server's process ended (or its connection closed) during the call; it is being
    /// started again if it may still be.
    /// `stderr` (its last words) is the server's own text: shown to people, never put in the
    /// message the model reads.
    #[error("the server {server} stopped during the call{}", restart_words(*.restarting))]
    Crashed {
        server: String,
        restarting: bool,
        stderr: Vec<String>,
    },
    /// No answer within the time a call may take: the server was stopped (and is being
    /// started again if it may still be).
    #[error("the server {server} did not answer within {seconds} s, so it was stopped{}", restart_words(*.restarting))]
    Hung {
        server: String,
        seconds: u64,
        restarting: bool,
    },
    /// The server answered with a protocol error (an unknown tool, invalid arguments).
    #[error("the server {server} refused the call: {message}")]
    Refused { server: String, message: String },
    /// The user stopped the task during the call.
    #[error("the call was stopped")]
    Cancelled,
    #[error("no server named {0} is configured for this project")]
    NoSuchServer(String),
    #[error("{}: {message}", .file.display())]
    Approvals { file: PathBuf, message: String },
}

fn restart_words(restarting: bool) -> &'static str {
    if restarting {
        "; it is being started again"
    } else {
        "; it will not be started again"
    }
}
