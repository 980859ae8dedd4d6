//! What `evaluate` returns: the verdict, why, which rule decided, and for Ask, the precise
//! rules the user could grant instead of answering every time.

use crate::source::Source;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Allow,
    Ask,
    Deny,
}

/// The rule that decided, named so a person can find it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuleRef {
    /// e.g. `paths.protected ".env"` or `floor: sudo`.
    pub name: String,
    pub source: Source,
}

/// How long a granted suggestion lasts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    Session,
    Project,
}

/// A rule the UI can offer as a button; granting it would have allowed this call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Suggestion {
    pub label: String,
    pub scope: Scope,
    pub grant: Grant,
}

/// A rule added by the user from the approval dialog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Grant {
    /// A command pattern, e.g. `cargo test` (matched strictly, like every allow rule).
    AllowCommand(String),
    /// A glob of project paths that may be written, e.g. `src/**`.
    AllowWrite(String),
    /// A domain (and its sub-domains) that may be fetched.
    AllowDomain(String),
    /// An absolute path outside the project that may be read.
    AllowRead(String),
    /// Web searches.
    AllowSearch,
    /// One tool of an MCP server, by the name the model calls it (`server__tool`).
    AllowTool(String),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decision {
    pub decision: Verdict,
    pub reason: String,
    pub rule: RuleRef,
    pub suggestions: Vec<Suggestion>,
    /// For commands: what the OS sandbox must let this command do if it runs.
    pub sandbox: SandboxNeeds,
}

/// What a command needs from the OS sandbox. The engine sets these; the caller builds the
/// sandbox from them. Neither is ever granted silently: a command that needs to leave the
/// sandbox is never `Allow` on its own.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxNeeds {
    /// The command needs the network (a package install, `git fetch`, a rule the user granted).
    pub network: bool,
    /// The command can only do what it says outside the sandbox (it writes outside the
    /// project, or touches a path the sandbox keeps read-only or hidden).
    pub outside: bool,
    /// Places outside the project the command names for reading (absolute): the sandbox hides
    /// everything outside its allow-list, so a command the person let read one is shown it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reads: Vec<String>,
}

impl Decision {
    pub fn is_allowed(&self) -> bool {
        self.decision == Verdict::Allow
    }
}

/// One rule's opinion on a call. `evaluate` keeps the strongest (deny beats ask beats allow);
/// among allows the most specific one is reported.
#[derive(Debug, Clone)]
pub(crate) struct Finding {
    pub verdict: Verdict,
    pub reason: String,
    pub rule: RuleRef,
    pub specificity: usize,
    pub suggestions: Vec<Suggestion>,
    /// What the command needs from the sandbox if this finding's part of it runs.
    pub needs: SandboxNeeds,
}

impl Finding {
    pub fn new(
        verdict: Verdict,
        reason: impl Into<String>,
        name: impl Into<String>,
        source: Source,
    ) -> Self {
        Finding {
            verdict,
            reason: reason.into(),
            rule: RuleRef {
                name: name.into(),
                source,
            },
            specificity: 0,
            suggestions: Vec::new(),
            needs: SandboxNeeds::default(),
        }
    }

    pub fn floor(verdict: Verdict, reason: impl Into<String>, name: &str) -> Self {
        Finding::new(verdict, reason, format!("floor: {name}"), Source::Builtin)
    }

    pub fn with_specificity(mut self, s: usize) -> Self {
        self.specificity = s;
        self
    }

    pub fn with_suggestions(mut self, s: Vec<Suggestion>) -> Self {
        self.suggestions = s;
        self
    }

    pub fn with_network(mut self, network: bool) -> Self {
        self.needs.network |= network;
        self
    }

    /// The command reads `place`, outside the project: shown to it if it runs.
    pub fn reading(mut self, place: &std::path::Path) -> Self {
        self.needs.reads.push(place.display().to_string());
        self
    }

    pub fn leaving_sandbox(mut self) -> Self {
        self.needs.outside = true;
        self
    }
}

/// The strongest finding; ties go to the first deny/ask found and the most specific allow.
pub(crate) fn decide(findings: Vec<Finding>) -> Option<Decision> {
    let top = findings.iter().map(|f| f.verdict).max()?;
    // Every part of a command line runs in the one sandbox, so it must allow what any part needs.
    let sandbox = findings.iter().fold(SandboxNeeds::default(), |mut acc, f| {
        acc.network |= f.needs.network;
        acc.outside |= f.needs.outside;
        for r in &f.needs.reads {
            if !acc.reads.contains(r) {
                acc.reads.push(r.clone());
            }
        }
        acc
    });
    let mut chosen: Option<Finding> = None;
    let mut suggestions: Vec<Suggestion> = Vec::new();
    let suggest = top == Verdict::Ask
        && findings
            .iter()
            .filter(|f| f.verdict == Verdict::Ask)
            .all(|f| !f.suggestions.is_empty());
    for f in findings.into_iter().filter(|f| f.verdict == top) {
        if suggest {
            for s in &f.suggestions {
                if !suggestions.contains(s) {
                    suggestions.push(s.clone());
                }
            }
        }
        let better = match &chosen {
            None => true,
            Some(c) => top == Verdict::Allow && f.specificity > c.specificity,
        };
        if better {
            chosen = Some(f);
        }
    }
    let chosen = chosen?;
    Some(Decision {
        decision: top,
        reason: chosen.reason,
        rule: chosen.rule,
        suggestions,
        sandbox,
    })
}
