//! The four modes, from strictest to loosest.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    ReadOnly,
    Ask,
    AutoEdit,
    FullAuto,
}

impl Mode {
    pub const ALL: [Mode; 4] = [Mode::ReadOnly, Mode::Ask, Mode::AutoEdit, Mode::FullAuto];

    pub fn name(self) -> &'static str {
        match self {
            Mode::ReadOnly => "read_only",
            Mode::Ask => "ask",
            Mode::AutoEdit => "auto_edit",
            Mode::FullAuto => "full_auto",
        }
    }

    /// One line a non-programmer can read in the mode selector.
    pub fn explanation(self) -> &'static str {
        match self {
            Mode::ReadOnly => {
                "The agent can look but not touch: no edits, no commands that change anything."
            }
            Mode::Ask => {
                "The agent reads freely and asks before every edit, command and web access."
            }
            Mode::AutoEdit => {
                "The agent edits files in the project without asking; commands still ask."
            }
            Mode::FullAuto => {
                "The agent works on its own; only blocked and dangerous actions stop it."
            }
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Mode::ALL
            .into_iter()
            .find(|m| m.name() == s || m.name().replace('_', "-") == s)
            .ok_or_else(|| {
                format!("unknown mode `{s}`; use read_only, ask, auto_edit or full_auto")
            })
    }
}
