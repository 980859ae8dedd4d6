//! The one place a person's sessions are made: the window and `tandem-cli run` say what is
//! theirs to say (the project and its rules, how models are found), and the rest is the same
//! for both — logs in the data folder, commands in the machine's sandbox, the web search and
//! spending limits of the settings, the person's home and rule file. What a front end changes
//! afterwards (the command line's mode, step limit and `--max-cost`; the window's shared MCP
//! servers) it changes on the options this returns. The test harness
//! (`test_support::harness`) names every option itself: its folders and models are its own.

use super::options::{Sandboxing, SessionOptions};
use crate::spend::SpendOptions;
use config::ProviderResolver;
use config::Settings;
use policy::Policy;
use std::path::PathBuf;
use tools::ProjectRoot;

/// A person's session in a project, before its options are worked out.
pub struct PersonalSession {
    pub root: ProjectRoot,
    /// The project's rules, loaded with `user_policy_file`.
    pub policy: Policy,
    /// The person's own rule file (where "always allow" is written).
    pub user_policy_file: Option<PathBuf>,
    /// Finds the provider and model for each turn and each sub-agent's role.
    pub resolver: ProviderResolver,
}

impl PersonalSession {
    /// The session's options, with `settings` as read from the person's settings file.
    pub fn options(self, settings: &Settings) -> SessionOptions {
        SessionOptions::new(self.root, config::locations::sessions_dir(), self.resolver).with(|o| {
            o.policy = self.policy;
            o.config.home = std::env::var_os("HOME").map(PathBuf::from);
            o.config.user_policy_file = self.user_policy_file;
            o.config.ask_before_commands = settings.commands.ask_first();
            o.sandboxing = Sandboxing::Machine;
            o.web_search = config::web_search_of(settings);
            o.spend = SpendOptions {
                limits: settings.limits,
                ledger_dir: Some(config::locations::spend_dir()),
            };
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the window and `tandem-cli run` both rely on: the settings' web search and limits
    /// reach the session, logs go to the person's data folder, commands to the machine's
    /// sandbox, and a grant is written to the person's rule file.
    #[test]
    fn a_personal_session_takes_the_settings_and_the_persons_folders() {
        let dir = tempfile::tempdir().expect("tempdir");
        let settings: Settings = toml::from_str(
            "[commands]\nask_first = true\n\n[web_search]\nprovider = \"searxng\"\nbase_url = \"http://127.0.0.1:8888\"\n\n[limits]\nsession_usd = 2.5\nday_usd = 10.0\n",
        )
        .expect("settings");
        let rules = dir.path().join("policy.toml");
        let resolver: ProviderResolver = std::sync::Arc::new(|_: &str| {
            Err(protocol::EngineError::new(
                protocol::FailureCode::NoProvider,
                "none",
                None,
            ))
        });
        let opts = PersonalSession {
            root: ProjectRoot::open(dir.path()).expect("open"),
            policy: Policy::builtin(),
            user_policy_file: Some(rules.clone()),
            resolver,
        }
        .options(&settings);
        assert!(
            opts.web_search.is_some(),
            "the settings' web search is lost"
        );
        assert_eq!(opts.spend.limits.session_usd, Some(2.5));
        assert!(
            opts.config.ask_before_commands,
            "the settings' choice to be asked before every command is lost"
        );
        assert_eq!(opts.spend.limits.day_usd, Some(10.0));
        assert_eq!(opts.spend.ledger_dir, Some(config::locations::spend_dir()));
        assert_eq!(opts.sessions_dir, config::locations::sessions_dir());
        assert!(matches!(opts.sandboxing, Sandboxing::Machine));
        assert_eq!(opts.config.user_policy_file, Some(rules));
        assert!(opts.tmp_dir.is_none());
        let none = PersonalSession {
            root: ProjectRoot::open(dir.path()).expect("open"),
            policy: Policy::builtin(),
            user_policy_file: None,
            resolver: opts.resolver.clone(),
        }
        .options(&Settings::default());
        assert!(none.web_search.is_none());
        assert_eq!(none.spend.limits, protocol::SpendLimits::default());
    }
}
