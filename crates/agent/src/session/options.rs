//! What a session is made of: its project and rules, where its logs go, how it finds its
//! models, how its commands are sandboxed, and what it may spend.

use crate::agent::AgentConfig;
use config::ProviderResolver;
use policy::Policy;
use std::path::PathBuf;
use tools::{ProjectRoot, SandboxSetup};

/// How commands of the session are sandboxed.
pub enum Sandboxing {
    /// As this machine allows (the probe decides).
    Machine,
    /// Not at all (a machine without a sandbox, simulated).
    Off,
    /// With this setup (tests with a fake home).
    With(SandboxSetup),
}

/// What a session is made of.
pub struct SessionOptions {
    pub root: ProjectRoot,
    /// Where session logs live; the session's own folder is `<sessions_dir>/<id>/`.
    pub sessions_dir: PathBuf,
    pub policy: Policy,
    pub config: AgentConfig,
    /// Finds the provider and model for each turn (settings may change between turns) and for
    /// sub-agents' roles.
    pub resolver: ProviderResolver,
    pub sandboxing: Sandboxing,
    /// The private temporary folder, when the caller chooses it (tests).
    pub tmp_dir: Option<PathBuf>,
    /// Where `web_search` searches (from the settings), if anywhere.
    pub web_search: Option<tools::SearchProvider>,
    /// Skills and MCP servers beyond the registry (started servers are the caller's to start).
    pub extensions: config::Extensions,
    /// What the session and the day may spend on models.
    pub spend: crate::spend::SpendOptions,
}
