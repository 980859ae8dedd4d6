//! The policy engine: every tool call is judged before it runs.
//!
//! Owns the rules (built-in defaults, the user's and the project's TOML files, session grants),
//! the modes and hard floors, the shell parsing that finds every command hidden in a command
//! line, and [`evaluate`], which returns Allow, Ask (with suggested rules) or Deny with the rule
//! that decided, in words a non-programmer understands. Pure: no file, network or process I/O,
//! no tokio, no Tauri. Callers read rule files and resolve symlinks, and hand the results in.

mod call;
mod command;
mod decision;
mod engine;
mod mode;
mod paths;
mod pattern;
mod readonly;
mod rules;
pub mod shell;
mod source;
mod suggest;

pub use call::{Context, ToolCall, lexical, normalize};
pub use command::MAX_COMMAND_BYTES;
pub use decision::{Decision, Grant, RuleRef, Scope, Suggestion, Verdict};
pub use engine::evaluate;
pub use mode::Mode;
pub use paths::is_secret;
pub use rules::{
    BUILTIN_TOML, NetworkMode, Policy, PolicyError, RuleText, project_policy_path, user_policy_path,
};
pub use source::Source;
