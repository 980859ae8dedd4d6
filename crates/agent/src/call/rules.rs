//! The rules a session's calls are judged by: the policy (shared by the session's agents, so
//! a rule granted from one agent's question holds for all), the mode in force, and the
//! person's home and rule file; and the situation each call is judged in.

use super::availability::{Situation, Unavailable};
use super::judge::{judge_call, judge_one};
use policy::{Context, Decision, Mode, Policy, ToolCall};
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};
use tools::{Resolved, Toolbox, Worked};

/// The rules of a session, shared by its agents.
pub type SharedPolicy = Arc<RwLock<Policy>>;

/// How the session asks, as a front end can change it while a turn runs (the next call is
/// judged by it): the mode, and whether Ask mode asks before every command. Unset, what the
/// session was made with holds. Sub-agents share their parent's: never more permissive.
#[derive(Clone, Default)]
pub struct ModeSwitch {
    mode: Arc<std::sync::Mutex<Option<Mode>>>,
    ask_first: Arc<std::sync::Mutex<Option<bool>>>,
}

impl ModeSwitch {
    pub fn set(&self, mode: Mode) {
        *self.mode.lock().unwrap_or_else(PoisonError::into_inner) = Some(mode);
    }

    pub fn get(&self) -> Option<Mode> {
        *self.mode.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Ask mode asks before every command (`true`), or reviews what it changed.
    pub fn set_ask_first(&self, on: bool) {
        *self
            .ask_first
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(on);
    }

    pub fn ask_first(&self) -> Option<bool> {
        *self
            .ask_first
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// Whose rules, and where they are kept.
#[derive(Clone)]
pub(crate) struct Rules {
    pub policy: SharedPolicy,
    pub mode_now: ModeSwitch,
    /// The mode the session was started in, over the rules' own.
    pub mode: Option<Mode>,
    /// The person's home folder (its secrets are judged as such).
    pub home: Option<PathBuf>,
    /// The person's own rule file, where "always in this project" is written.
    pub user_policy_file: Option<PathBuf>,
    /// In Ask mode, ask before every command, rather than review what a command changed
    /// (the way before commands ran over a layer; a setting), as the session was made.
    pub ask_before_commands: bool,
}

impl Rules {
    /// Whether Ask mode asks before every command now (the setting, as last changed).
    pub(crate) fn asks_before_commands(&self) -> bool {
        self.mode_now
            .ask_first()
            .unwrap_or(self.ask_before_commands)
    }

    /// The mode calls are judged in now.
    pub(crate) fn mode(&self) -> Mode {
        self.mode_now.get().or(self.mode).unwrap_or_else(|| {
            self.policy
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .mode
                .value
        })
    }

    /// A registry tool's call, judged now.
    pub(crate) fn judge(
        &self,
        toolbox: &Toolbox,
        call: &Resolved,
        worked: &Worked<'_>,
    ) -> Decision {
        self.with_policy(toolbox, |policy, ctx| {
            judge_call(policy, ctx, &toolbox.ws, call, worked)
        })
    }

    /// A call from outside the registry (a skill's program, a server's tool), judged now.
    pub(crate) fn judge_outside(&self, toolbox: &Toolbox, call: &ToolCall<'_>) -> Decision {
        self.with_policy(toolbox, |policy, ctx| judge_one(policy, call, ctx))
    }

    /// A registry tool's call, judged as if the session were in `mode`.
    pub(crate) fn judge_in(
        &self,
        toolbox: &Toolbox,
        call: &Resolved,
        worked: &Worked<'_>,
        mode: Mode,
    ) -> Decision {
        self.with_policy_in(toolbox, mode, |policy, ctx| {
            judge_call(policy, ctx, &toolbox.ws, call, worked)
        })
    }

    /// Hands `judge` the rules in force and the situation a call is judged in now.
    pub(crate) fn with_policy<R>(
        &self,
        toolbox: &Toolbox,
        judge: impl FnOnce(&Policy, &Context<'_>) -> R,
    ) -> R {
        self.with_policy_in(toolbox, self.mode(), judge)
    }

    fn with_policy_in<R>(
        &self,
        toolbox: &Toolbox,
        mode: Mode,
        judge: impl FnOnce(&Policy, &Context<'_>) -> R,
    ) -> R {
        let ws = &toolbox.ws;
        let resolver = |p: &Path| tools::real_path(p);
        let exists = |p: &Path| p.symlink_metadata().is_ok();
        let history = || toolbox.history_holds_secrets();
        let ctx = Context {
            project_root: ws.root().path(),
            home: self.home.as_deref(),
            mode: Some(mode),
            session_diff_lines: ws.uncommitted_totals().changed(),
            user_policy_file: self.user_policy_file.as_deref(),
            sandboxed: toolbox.commands.sandbox.is_some(),
            resolver: &resolver,
            exists: Some(&exists),
            history_holds_secrets: &history,
            saved_outputs: toolbox.saved.dirs(),
        };
        let policy = self.policy.read().unwrap_or_else(PoisonError::into_inner);
        judge(&policy, &ctx)
    }

    /// A rule granted for the session; why it could not be, if so.
    pub(crate) fn grant(&self, grant: &policy::Grant) -> Result<(), String> {
        self.policy
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .grant(grant)
            .map_err(|e| e.to_string())
    }

    /// Writes an "always in this project" grant into the person's rule file, whole or not at
    /// all (a crash mid-write must not leave half a rule file); the file's name.
    pub(crate) fn keep_grant(
        &self,
        root: &Path,
        grant: &policy::Grant,
        label: &str,
    ) -> Result<String, String> {
        let file = self
            .user_policy_file
            .as_ref()
            .ok_or("no user policy file is configured")?;
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(format!("cannot read {}: {e}", file.display())),
        };
        let updated = policy::add_project_grant(&text, &file.display().to_string(), root, grant)
            .map_err(|e| e.to_string())?;
        config::locations::write_atomically(file, updated.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        tracing::info!(file = %file.display(), rule = label, "kept an approval as a project rule");
        Ok(file.display().to_string())
    }

    /// Why this session does not offer `tool`, or `None` when it does.
    pub(crate) fn unavailable(&self, toolbox: &Toolbox, tool: &str) -> Option<Unavailable> {
        let policy = self.policy.read().unwrap_or_else(PoisonError::into_inner);
        let path = std::env::var_os("PATH");
        Situation {
            policy: &policy,
            search_service: toolbox.web.search.is_some(),
            path_env: path.as_deref(),
        }
        .unavailable(tool)
    }

    /// Who judges a fetch's redirects, for a fetch of `url` that runs now (the policy allowed
    /// it or the person approved it) to the addresses judged.
    pub(crate) fn fetch_gate(
        &self,
        toolbox: &Toolbox,
        url: &str,
        resolved: Vec<std::net::IpAddr>,
    ) -> tools::HopGate {
        super::fetch_gate::FetchJudge {
            policy: self
                .policy
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .clone(),
            mode: self.mode(),
            root: toolbox.ws.root().path().to_path_buf(),
            home: self.home.clone(),
            user_policy_file: self.user_policy_file.clone(),
            sandboxed: toolbox.commands.sandbox.is_some(),
            cleared: super::fetch_gate::origin(url).map(|o| (o, resolved)),
        }
        .gate()
    }
}
