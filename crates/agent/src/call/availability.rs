//! Which tools a session offers: the seed's "availability depends on the tools setting,
//! credentials, and plugins". A tool turned off (`[tools] off` in the rules) or one that cannot
//! work on this machine (web_search with no search service, create_pull_request without the
//! GitHub CLI) is not offered to the model, is refused in words if called anyway, and
//! `tandem-cli tool --list` says why.

use std::ffi::OsStr;
use tools::Needs;

/// Why a tool is not offered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unavailable {
    /// Turned off by a rule, in the file named.
    TurnedOff { file: String },
    /// web_search, with no search service in the settings.
    NoSearchService,
    /// create_pull_request, with no `gh` on `PATH`.
    NoGitHubCli,
}

impl Unavailable {
    /// Why, for people (and the model).
    pub fn words(&self) -> String {
        match self {
            Unavailable::TurnedOff { file } => {
                format!("turned off for this project ({file}, tools.off)")
            }
            Unavailable::NoSearchService => {
                "no search service is set up (settings.toml [web_search], or Settings in the window)".into()
            }
            Unavailable::NoGitHubCli => {
                "the GitHub CLI `gh` is not installed".into()
            }
        }
    }

    /// What the model hears when it calls the tool anyway.
    pub fn refusal(&self, tool: &str) -> String {
        let instead = match self {
            Unavailable::TurnedOff { .. } => "do without it, or ask the user to turn it on",
            Unavailable::NoSearchService => {
                "fetch a page you know instead (web_fetch), or ask the user"
            }
            Unavailable::NoGitHubCli => {
                "commit on a branch and tell the user to push it and open the pull request"
            }
        };
        format!("{tool} is not available here: {}. {instead}.", self.words())
    }
}

/// What a tool's availability depends on, found once per question.
pub struct Situation<'a> {
    pub policy: &'a policy::Policy,
    pub search_service: bool,
    /// `PATH` as commands of this session see it.
    pub path_env: Option<&'a OsStr>,
}

impl Situation<'_> {
    /// Why `tool` is not offered, or `None` when it is.
    pub fn unavailable(&self, tool: &str) -> Option<Unavailable> {
        if let Some(rule) = self.policy.turned_off(tool) {
            return Some(Unavailable::TurnedOff {
                file: rule.source.to_string(),
            });
        }
        match tools::find_tool(tool)?.offer.needs {
            Needs::SearchService if !self.search_service => Some(Unavailable::NoSearchService),
            Needs::GitHubCli if !on_path("gh", self.path_env) => Some(Unavailable::NoGitHubCli),
            Needs::Nothing | Needs::SearchService | Needs::GitHubCli => None,
        }
    }
}

/// Whether an executable named `program` is in one of `path_env`'s folders.
pub fn on_path(program: &str, path_env: Option<&OsStr>) -> bool {
    tools::find_program(program, path_env).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_that_cannot_work_here_say_why() {
        let policy = policy::Policy::builtin();
        let empty = tempfile::tempdir().expect("tempdir");
        let bare = Situation {
            policy: &policy,
            search_service: false,
            path_env: Some(empty.path().as_os_str()),
        };
        assert_eq!(
            bare.unavailable("web_search"),
            Some(Unavailable::NoSearchService)
        );
        assert_eq!(
            bare.unavailable("create_pull_request"),
            Some(Unavailable::NoGitHubCli)
        );
        assert_eq!(bare.unavailable("read_file"), None);

        let bin = tempfile::tempdir().expect("tempdir");
        let gh = bin.path().join("gh");
        std::fs::write(&gh, "#!/bin/sh\n").expect("write");
        std::fs::set_permissions(&gh, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .expect("chmod");
        let ready = Situation {
            policy: &policy,
            search_service: true,
            path_env: Some(bin.path().as_os_str()),
        };
        assert_eq!(ready.unavailable("web_search"), None);
        assert_eq!(ready.unavailable("create_pull_request"), None);
    }
}
