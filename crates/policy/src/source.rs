//! Where a rule came from, so every decision can say so.

use serde::Serialize;
use std::fmt;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "path", rename_all = "snake_case")]
pub enum Source {
    /// Compiled into Tandem: the defaults and the hard floors.
    Builtin,
    /// The user's policy file.
    User(PathBuf),
    /// The project's `.tandem/policy.toml`.
    Project(PathBuf),
    /// Granted in the approval dialog for this session.
    Session,
}

impl Source {
    pub fn label(&self) -> &'static str {
        match self {
            Source::Builtin => "built-in rule",
            Source::User(_) => "your rules",
            Source::Project(_) => "project rules",
            Source::Session => "allowed this session",
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Builtin => write!(f, "built-in"),
            Source::User(p) => write!(f, "user file {}", p.display()),
            Source::Project(p) => write!(f, "project file {}", p.display()),
            Source::Session => write!(f, "this session"),
        }
    }
}
