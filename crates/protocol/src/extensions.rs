//! Tools from outside the catalog, as front ends show them: skills (a folder with a
//! `skill.json` whose tools run programs) and MCP servers (programs or addresses that offer
//! tools over the Model Context Protocol).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Where a skill or a server is configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ExtensionOrigin {
    /// The project's `.tandem/` folder: from the repository, trusted no more than it is.
    Project,
    /// The user's Tandem config folder.
    User,
}

/// One skill found, as Settings and `tandem-cli skills` list it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SkillView {
    pub name: String,
    pub description: String,
    pub origin: ExtensionOrigin,
    /// Its `skill.json`.
    pub file: String,
    /// As written: words, or `/regular expressions/`.
    pub triggers: Vec<String>,
    pub tools: Vec<SkillToolView>,
    /// Whether it has a `SKILL.md` whose text joins the system prompt while it is active.
    pub has_instructions: bool,
    /// False when the user turned it off in Settings.
    pub enabled: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SkillToolView {
    pub name: String,
    pub description: String,
    /// The program and its arguments as written, `{{param}}` placeholders included.
    pub run: Vec<String>,
}

/// A skill that could not be loaded: skipped, never breaking a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SkillProblem {
    pub origin: ExtensionOrigin,
    /// The file (or folder) at fault.
    pub file: String,
    /// What is wrong, in words.
    pub error: String,
}

/// The skills of a project and of the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SkillsView {
    pub skills: Vec<SkillView>,
    pub problems: Vec<SkillProblem>,
    /// Where they are looked for: the project's folder and the user's.
    pub project_dir: String,
    pub user_dir: String,
}

/// Turns a skill on or off (kept in settings.toml).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SetSkillEnabledArgs {
    /// The open project (its skills are listed again after the change).
    pub root: String,
    pub name: String,
    pub enabled: bool,
}

/// How a skill became active for a task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SkillActivation {
    /// The task's text matched one of its triggers.
    Trigger { trigger: String },
    /// The model activated it with `skill_activate`.
    Model,
}

/// Where an MCP server is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum McpState {
    /// From the project's `mcp.json`, and the user has not approved it for this project: it
    /// is not started (opening a repository must not run its programs).
    NeedsApproval,
    /// `"disabled": true` in its configuration.
    Disabled,
    Starting,
    Running,
    /// It failed to start, crashed or hung, and was restarted as often as it may be; the
    /// session goes on without it.
    Failed,
}

/// One MCP server, as Settings and `tandem-cli mcp list` show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct McpServerView {
    pub name: String,
    pub origin: ExtensionOrigin,
    /// What runs (the command line) or where it is (the address).
    pub target: String,
    /// A program on this machine (stdio) rather than an address (streamable HTTP).
    pub local: bool,
    /// For a program: whether its sandbox lets it reach the network.
    pub network: bool,
    pub state: McpState,
    /// Why it failed, or what it is doing, in words.
    pub message: Option<String>,
    /// Times it was started again after failing (at most three).
    pub restarts: u32,
    pub tools: Vec<McpToolView>,
    /// The last lines it wrote to its standard error.
    pub stderr: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct McpToolView {
    /// The name the model calls it by: `server__tool`.
    pub name: String,
    /// The server's own name for it.
    pub tool: String,
    pub description: String,
}

/// A configuration file that could not be read: its servers are left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct McpProblem {
    pub file: String,
    pub error: String,
}

/// The MCP servers of a project and of the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct McpView {
    pub servers: Vec<McpServerView>,
    pub problems: Vec<McpProblem>,
    /// The files they are configured in: the user's and the project's `mcp.json`.
    pub user_file: String,
    pub project_file: String,
}

/// Names one server of the open project (to approve it, or to start it again).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct McpServerArgs {
    pub root: String,
    pub name: String,
}

/// Copies a skill folder the user picked into their own skills.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct AddSkillArgs {
    /// The open project (its skills are listed again after the change).
    pub root: String,
    /// The folder that holds the skill's `skill.json`.
    pub folder: String,
}

/// Removes one of the user's own skills.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RemoveSkillArgs {
    pub root: String,
    pub name: String,
}

/// A server as a person adds it in Settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NewMcpServerInput {
    /// A program on this machine: the command line as typed, split as a shell would split it
    /// (nothing expanded or run), and whether its sandbox lets it reach the network.
    Program { command_line: String, network: bool },
    /// A streamable-HTTP address.
    Address { url: String },
}

/// Adds a server to the user's own `mcp.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct AddMcpServerArgs {
    pub root: String,
    pub name: String,
    pub server: NewMcpServerInput,
}
