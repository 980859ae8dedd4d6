//! The rules in force as the Settings screen shows them: in groups of plain words, the user's
//! own rules first (each removable), and the limits no mode lifts.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The rules for one project, for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RulesView {
    /// Rules the user wrote or granted ("always allow … in this project"): their own file's,
    /// then the project's file's. The ones for this project come first.
    pub yours: Vec<OwnRule>,
    /// The built-in rules, grouped, in words.
    pub groups: Vec<RuleGroup>,
    /// What holds in every mode, Full auto included, one sentence each.
    pub limits: Vec<String>,
    /// Rules left out of a file and why (a project file that tried to loosen them).
    pub notes: Vec<String>,
    /// Whether you trust this project's own rules file (`trusted_projects` in your file).
    pub trusted: bool,
    /// The tools a rule may turn off, by name.
    pub tools: Vec<String>,
    /// The mode new sessions start in and the limits on how much a session changes, as in
    /// force for this project.
    pub defaults: PolicyDefaults,
}

/// The settings a rules file sets once (not lists): in force for a project.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PolicyDefaults {
    /// The mode new sessions start in.
    pub mode: crate::Mode,
    /// Beyond this many lines changed in a session, changes are refused.
    pub max_diff_lines: u32,
    /// Beyond this many, every further change asks, whatever the mode.
    pub require_approval_above: u32,
}

/// One default set in the person's own rules file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum PolicyDefault {
    Mode(crate::Mode),
    MaxDiffLines(u32),
    RequireApprovalAbove(u32),
}

/// Sets one default in the person's own rules file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SetPolicyDefaultArgs {
    pub root: String,
    pub setting: PolicyDefault,
}

/// Built-in rules of one kind, in words: "Files Tandem never reads or changes: .env files, SSH
/// keys, …".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RuleGroup {
    pub kind: RuleGroupKind,
    /// What the items have in common, as a sentence start.
    pub title: String,
    /// Each item in words (a kind of file, a command).
    pub items: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum RuleGroupKind {
    /// Secret and protected files: never read or changed.
    NeverRead,
    /// Files that look secret but are not (`.env.example`, public keys).
    NotSecret,
    /// Commands refused in every mode.
    NeverRun,
    /// Commands that ask in every mode.
    AlwaysAsk,
    /// Commands that run without a question.
    RunsWithoutAsking,
    /// Web access.
    Web,
    /// How much one session may change.
    Limits,
}

/// One rule of the user's, as it reads and where it lives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct OwnRule {
    /// The rule in words: "Run “make check” without asking".
    pub words: String,
    /// The rule as written in its file, for a tooltip: `commands.allow "make check"`.
    pub rule: String,
    /// Which rule it is, to remove it.
    pub key: RuleKey,
}

/// Names one rule in one rule file, exactly: what `remove_rule` removes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RuleKey {
    pub file: RuleFileKind,
    /// The project the rule is kept for (a `[projects."…"]` grant in the user's file); None
    /// for a rule that applies everywhere the file does.
    pub project: Option<String>,
    pub list: RuleList,
    /// The pattern, glob or domain as written.
    pub value: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum RuleFileKind {
    /// `~/.config/tandem/policy.toml`.
    User,
    /// The project's `.tandem/policy.toml`.
    Project,
}

/// The lists a rule file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum RuleList {
    CommandsAllow,
    CommandsAsk,
    CommandsDeny,
    PathsProtected,
    PathsProtectedExceptions,
    PathsAllowWrite,
    /// Folders outside the project that the agent and its commands may read.
    PathsAllowRead,
    NetworkAllowedDomains,
    NetworkDeniedDomains,
    /// Tools of MCP servers used without asking.
    ToolsAllow,
    /// Tools turned off: never offered to the agent.
    ToolsOff,
}

impl RuleList {
    pub const ALL: [RuleList; 11] = [
        RuleList::CommandsAllow,
        RuleList::CommandsAsk,
        RuleList::CommandsDeny,
        RuleList::PathsProtected,
        RuleList::PathsProtectedExceptions,
        RuleList::PathsAllowWrite,
        RuleList::PathsAllowRead,
        RuleList::NetworkAllowedDomains,
        RuleList::NetworkDeniedDomains,
        RuleList::ToolsAllow,
        RuleList::ToolsOff,
    ];

    /// Its table and key in a rule file: `[commands] allow = […]`.
    pub fn path(self) -> (&'static str, &'static str) {
        match self {
            RuleList::CommandsAllow => ("commands", "allow"),
            RuleList::CommandsAsk => ("commands", "ask"),
            RuleList::CommandsDeny => ("commands", "deny"),
            RuleList::PathsProtected => ("paths", "protected"),
            RuleList::PathsProtectedExceptions => ("paths", "protected_exceptions"),
            RuleList::PathsAllowWrite => ("paths", "allow_write"),
            RuleList::PathsAllowRead => ("paths", "allow_read"),
            RuleList::NetworkAllowedDomains => ("network", "allowed_domains"),
            RuleList::NetworkDeniedDomains => ("network", "denied_domains"),
            RuleList::ToolsAllow => ("tools", "allow"),
            RuleList::ToolsOff => ("tools", "off"),
        }
    }
}

/// Adds one of the user's rules to its file (or, with `replacing`, changes one: the old rule
/// goes and the new one comes in one write).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct AddRuleArgs {
    /// The open project (its rules are shown again after the change).
    pub root: String,
    pub rule: RuleKey,
    #[ts(optional)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replacing: Option<RuleKey>,
}

/// Trusts the open project's own rules file (its rules may loosen yours), or stops trusting it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TrustProjectArgs {
    pub root: String,
    pub trusted: bool,
}

/// Removes one of the user's rules from its file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RemoveRuleArgs {
    /// The open project (its rules are shown again after the removal).
    pub root: String,
    pub rule: RuleKey,
}
