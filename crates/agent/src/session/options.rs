//! What a session is made of: its project and rules, where its logs go, how it finds its
//! models, how its commands are sandboxed, and what it may spend.

use crate::agent::AgentConfig;
use config::ProviderResolver;
use policy::Policy;
use std::path::PathBuf;
use tools::{ProjectRoot, SandboxSetup};

/// How commands of the session are sandboxed.
#[derive(Clone)]
#[expect(
    clippy::large_enum_variant,
    reason = "one value per session, read once when it starts: boxing it buys nothing"
)]
pub enum Sandboxing {
    /// As this machine allows (the probe decides).
    Machine,
    /// Not at all (a machine without a sandbox, simulated).
    Off,
    /// With this setup (tests with a fake home).
    With(SandboxSetup),
}

/// What a session is made of.
#[derive(Clone)]
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

impl SessionOptions {
    /// A session of the project at `root`, logged in `sessions_dir`, finding its models with
    /// `resolver`, and otherwise as a session starts: the built-in rules in their own mode,
    /// commands in this machine's sandbox, no web search, nothing beyond the registry, no
    /// spending limits. What a front end or a test needs otherwise it changes (see
    /// [`SessionOptions::with`]).
    pub fn new(root: ProjectRoot, sessions_dir: PathBuf, resolver: ProviderResolver) -> Self {
        SessionOptions {
            root,
            sessions_dir,
            policy: Policy::builtin(),
            config: AgentConfig::new(String::new()),
            resolver,
            sandboxing: Sandboxing::Machine,
            tmp_dir: None,
            web_search: None,
            extensions: config::Extensions::none(),
            spend: crate::spend::SpendOptions::default(),
        }
    }

    /// The same options with what `change` changes.
    pub fn with(mut self, change: impl FnOnce(&mut SessionOptions)) -> Self {
        change(&mut self);
        self
    }
}
