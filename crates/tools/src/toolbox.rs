//! The toolbox a session holds: the workspace, its background tasks, command and web settings,
//! and the cache. [`Toolbox::run`] is the one door through which the agent loop and
//! `tandem-cli tool` run any tool by name.

use crate::cache::{self, Cache};
use crate::error::{ToolError, ToolResult};
use crate::paths::ProjectRoot;
use crate::registry::{Caching, Resolved, Runs, ToolOutput};
use crate::run_command::{CommandConfig, RunContext};
use crate::saved_outputs::SavedOutputs;
use crate::tasks::TaskRegistry;
use crate::web::{FetchContext, WebConfig};
use crate::workspace::Workspace;
use protocol::Confinement;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::path::PathBuf;

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskListArgs {
    /// Include tasks that already ended.
    #[serde(default)]
    pub include_finished: bool,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskIdArgs {
    pub id: String,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WakeupArgs {
    pub delay_ms: u64,
    #[serde(default)]
    pub hint: Option<String>,
}

/// What the engine decided about one call, beyond its arguments.
#[derive(Clone, Default)]
pub struct CallContext {
    /// For run_command: where it runs (unset: the toolbox's default).
    pub confinement: Option<Confinement>,
    /// For run_command: places outside the project the person let it read.
    pub readable: Vec<std::path::PathBuf>,
    /// For web_fetch: where the first request goes and who judges redirects.
    pub fetch: FetchContext,
    /// The agent on whose behalf it runs (a sub-agent's id): background tasks it starts are
    /// its own, and end with it.
    pub owner: Option<String>,
    /// Stop: a command still running in the foreground (or a pull request's push or `gh`) is
    /// ended.
    pub cancel: Option<tokio_util::sync::CancellationToken>,
    /// For run_command and a skill's tool: told the task id as soon as the command runs.
    pub on_started: Option<crate::run_command::OnStarted>,
    /// For commands over a layer: which changes land without a question (unset: project
    /// files do).
    pub landing: Option<crate::Landing>,
    /// For commands over a layer: told the project files that landed, when the command ends.
    pub on_landed: Option<crate::run_command::OnLanded>,
}

pub struct Toolbox {
    pub ws: Workspace,
    pub tasks: TaskRegistry,
    pub commands: CommandConfig,
    pub web: WebConfig,
    pub cache: Cache,
    /// Whether the project's git history ever held a secret file (found in the background;
    /// `None` until a session's confinement starts looking).
    pub history: Option<crate::HistorySecrets>,
    /// A scratch folder made for this session alone (its private temporary folder), removed
    /// when the session ends; `None` for one the caller gave, which is theirs to keep.
    pub scratch: Option<PathBuf>,
    /// The session's own saved files, which read_file and search_codebase read back.
    pub saved: SavedOutputs,
}

impl Toolbox {
    /// The file a read_file result names (in the project, or a saved output) as base64, to
    /// attach for the model itself; `None` when it is gone or larger than an attachment may be.
    pub fn attachable(&self, path: &str) -> Option<String> {
        use base64::Engine as _;
        let real = match self.saved.find(path).ok()? {
            Some(saved) => saved.root.resolve(&saved.inside).ok()?.real,
            None => self.ws.root().resolve(path).ok()?.real,
        };
        let (mut file, size) = crate::open_regular(&real).ok()?;
        if size > crate::read_file::IMAGE_INLINE_BYTES {
            return None;
        }
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut bytes).ok()?;
        Some(base64::engine::general_purpose::STANDARD.encode(bytes))
    }

    /// Whether a path a reading tool names can be read at all: inside the project, or (with
    /// `saved_too`) one of the session's saved outputs. The error says why not.
    pub(crate) fn check_readable(&self, path: &str, saved_too: bool) -> ToolResult<()> {
        if path.is_empty() || (saved_too && self.saved.find(path)?.is_some()) {
            return Ok(());
        }
        self.ws.root().resolve(path).map(|_| ())
    }

    /// Whether git's history may hold a secret file: the policy asks before commands that
    /// print history then. Not known counts as yes.
    pub fn history_holds_secrets(&self) -> bool {
        self.history.as_ref().is_none_or(|h| h.holds_secrets())
    }

    /// A toolbox for a project, with command outputs and fetched bodies under `session_dir`.
    pub fn new(root: ProjectRoot, session_dir: PathBuf) -> Self {
        Toolbox {
            ws: Workspace::new(root),
            tasks: TaskRegistry::new(),
            commands: CommandConfig::new(session_dir.join("outputs")),
            web: WebConfig::new(session_dir.join("fetched")),
            cache: Cache::default(),
            history: None,
            scratch: None,
            saved: SavedOutputs::new(
                ["outputs", "fetched", "agents"]
                    .iter()
                    .map(|d| session_dir.join(d))
                    .collect(),
            ),
        }
    }

    /// Runs a tool as nothing more was decided about it: a command where
    /// [`CommandConfig::default_confinement`] says, a fetch without following redirects.
    pub async fn run(&self, name: &str, args: Value) -> ToolResult<ToolOutput> {
        self.run_in(name, args, &CallContext::default()).await
    }

    /// Runs a tool by name with what the engine decided about this call.
    pub async fn run_in(
        &self,
        name: &str,
        args: Value,
        ctx: &CallContext,
    ) -> ToolResult<ToolOutput> {
        self.run_call(&crate::resolve(name, args)?, ctx).await
    }

    /// Runs a call with what the engine decided about it: a call on a saved file where that
    /// is, a project tool's from the cache when it may be, anything that changes the project
    /// as the agent's own doing.
    pub async fn run_call(&self, call: &Resolved, ctx: &CallContext) -> ToolResult<ToolOutput> {
        if let Some(out) = call.on_saved(self)? {
            return Ok(out);
        }
        let spec = call.spec;
        match spec.runs() {
            Runs::Project if spec.caching != Caching::Never => self.run_cached(call),
            Runs::Project if spec.read_only => call.run_on(&self.ws),
            Runs::Project => {
                // It changes the project: what was cached is stale; a commit or a branch
                // switch among them is the agent's own.
                self.cache.clear();
                let _acting = self.ws.agent_action();
                call.run_on(&self.ws)
            }
            Runs::Toolbox | Runs::Waits => {
                let mut out = call.run_with(self, ctx).await?;
                // What a program printed: a command's, a background task's, a skill's.
                if matches!(out.details, crate::Details::Command(_)) || spec.name == "task_poll" {
                    self.hide_history_secrets(&mut out);
                }
                Ok(out)
            }
            Runs::Engine => Err(ToolError::InvalidArgument(format!(
                "{} is run by the agent engine, not the toolbox",
                spec.name
            ))),
        }
    }

    /// What a command printed, with the values of secret files the project's git history once
    /// held hidden (a script that runs `git log -p` is not seen into by the policy): in the
    /// text the model reads, the result's fields and the saved output it may read back.
    fn hide_history_secrets(&self, out: &mut ToolOutput) {
        let Some(history) = &self.history else {
            return;
        };
        if !history.holds_secrets() {
            return;
        }
        if let Some(text) = history.redact(&out.text) {
            out.text = text;
        }
        redact_value(&mut out.structured, history);
        if let crate::Details::Command(crate::CommandOutcome::Finished {
            output,
            output_path,
            ..
        }) = &mut out.details
        {
            if let Some(text) = history.redact(output) {
                *output = text;
            }
            if let Ok(saved) = std::fs::read_to_string(&*output_path)
                && let Some(text) = history.redact(&saved)
                && let Err(e) = std::fs::write(&*output_path, text)
            {
                tracing::warn!(%e, "could not hide a secret in a command's saved output");
            }
        }
    }

    /// Writes a change planned (and judged, and perhaps approved) before, exactly as planned:
    /// see [`crate::registry::apply_change`].
    pub fn apply_change(&self, planned: &crate::Planned) -> ToolResult<ToolOutput> {
        self.cache.clear();
        let _acting = self.ws.agent_action();
        crate::registry::apply_change(&self.ws, planned)
    }

    /// A read-only tool's result from the cache, or run and kept.
    fn run_cached(&self, call: &Resolved) -> ToolResult<ToolOutput> {
        let key = cache::key(call.spec.name, &call.input);
        // The file a per-file result is of: the one the call reads.
        let file = (call.spec.caching == Caching::PerFile)
            .then(|| match call.policy(&Default::default()).first() {
                Some(policy::ToolCall::Read { path }) => self.ws.root().resolve(path).ok(),
                _ => None,
            })
            .flatten()
            .map(|r| r.real);
        self.cache.watch(self.ws.root().path());
        if let Some(hit) = self.cache.get(&key) {
            if let Some(f) = &file {
                self.ws.note_seen(f);
            }
            return Ok(hit);
        }
        let generation = self.cache.generation();
        let out = call.run_on(&self.ws)?;
        self.cache.put(key, out.clone(), file, generation);
        Ok(out)
    }
}

impl Toolbox {
    /// Where a skill's `{{skill_dir}}` is for a run with `confinement`: the project's own
    /// skills are inside the project, which the sandbox shows; a user's skill lives in the
    /// config folder, which the sandbox hides, so the sandbox shows that one folder read-only
    /// under `/run/tandem` (nothing is copied into a folder commands can write).
    pub fn skill_dir(&self, skill: &crate::Skill, confinement: Confinement) -> PathBuf {
        match skill_bind(skill, confinement, self.commands.sandbox.is_some()) {
            Some(bind) => bind.inside(),
            None => skill.dir.clone(),
        }
    }

    /// Runs one call of a skill's tool: `argv` (from [`crate::skill_argv`], with
    /// [`Toolbox::skill_dir`] for the same confinement) as a program, never through a shell.
    pub async fn run_skill_tool(
        &self,
        skill: &crate::Skill,
        argv: &[String],
        ctx: &CallContext,
    ) -> ToolResult<ToolOutput> {
        let confinement = ctx
            .confinement
            .unwrap_or_else(|| self.commands.default_confinement(false));
        let binds = skill_bind(skill, confinement, self.commands.sandbox.is_some())
            .into_iter()
            .collect();
        self.cache.clear();
        let outcome = crate::run_command::run_program(
            &self.ws,
            &self.tasks,
            &self.commands,
            argv,
            &format!("skill {}", skill.name),
            &RunContext {
                confinement,
                owner: ctx.owner.clone(),
                cancel: ctx.cancel.clone(),
                binds,
                readable: ctx.readable.clone(),
                on_started: ctx.on_started.clone(),
                landing: ctx.landing.unwrap_or(crate::Landing::UNREVIEWED),
                on_landed: ctx.on_landed.clone(),
            },
        )
        .await;
        self.cache.clear();
        Ok(crate::registry::command_output(outcome?))
    }
}

/// Every string in a result's fields, with the history's secret values hidden.
fn redact_value(v: &mut serde_json::Value, history: &crate::HistorySecrets) {
    match v {
        serde_json::Value::String(s) => {
            if let Some(text) = history.redact(s) {
                *s = text;
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(|i| redact_value(i, history)),
        serde_json::Value::Object(map) => map.values_mut().for_each(|i| redact_value(i, history)),
        _ => {}
    }
}

/// The folder a user's skill is shown at in the sandbox, when it runs there.
fn skill_bind(
    skill: &crate::Skill,
    confinement: Confinement,
    has_sandbox: bool,
) -> Option<sandbox::Bind> {
    (skill.origin == protocol::ExtensionOrigin::User && confinement.is_sandboxed() && has_sandbox)
        .then(|| sandbox::Bind {
            source: skill.dir.clone(),
            name: format!("skill-{}", skill.name),
        })
}

impl Drop for Toolbox {
    /// A session's background commands end with it.
    fn drop(&mut self) {
        self.tasks.stop_all();
        // A run left its /tmp/tandem-UID/SESSION behind every time; a resumed session starts
        // with an empty one, as a new process would.
        if let Some(dir) = self.scratch.take() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

impl Toolbox {
    /// Takes what running background task `task` changed so far out of its layer and lands
    /// it as its end would (see [`crate::LayerView::take`]): what needs a yes comes back held.
    /// `None` when it runs over no layer.
    pub async fn take_running(&self, task: &str) -> ToolResult<Option<crate::Landed>> {
        let Some(view) = self.tasks.layer_view(task) else {
            return Ok(None);
        };
        let hook = self.ws.before_write_hook();
        let landed = tokio::task::spawn_blocking(move || view.take(hook.as_deref()))
            .await
            .map_err(|e| ToolError::InvalidArgument(format!("taking its changes stopped: {e}")))?
            .map_err(|e| {
                ToolError::InvalidArgument(format!(
                    "its changes so far could not be read, and the project keeps what it had: {e}"
                ))
            })?;
        self.cache.clear();
        let (added, removed) = landed.lines();
        self.ws.record_diff(added, removed);
        Ok(Some(landed))
    }

    /// Lands a command's held changes as the person answered (the pieces of its review they
    /// accepted), each project file kept by the checkpoint before it changes; the command's
    /// result is said again with what became of every change, and the project files that
    /// landed are returned with their text before.
    pub async fn land_reviewed(
        &self,
        outcome: crate::CommandOutcome,
        held: crate::Held,
        accepted: std::collections::BTreeSet<u32>,
    ) -> ToolResult<(ToolOutput, Vec<crate::LandedFile>)> {
        let landed = self.land_held(held, accepted).await?;
        let mut outcome = outcome;
        if let crate::CommandOutcome::Finished {
            changes, before, ..
        } = &mut outcome
        {
            let mut all = crate::Landed {
                changes: changes.take().unwrap_or_default(),
                ..Default::default()
            };
            all.add(crate::Landed {
                changes: landed.changes,
                before: Vec::new(),
                held: Default::default(),
            });
            *changes = Some(all.changes);
            before.extend(landed.before.iter().cloned());
        }
        Ok((crate::registry::command_output(outcome), landed.before))
    }

    /// Lands a command's held changes as the person answered (the pieces of its review they
    /// accepted), each project file kept by the checkpoint before it changes.
    pub async fn land_held(
        &self,
        held: crate::Held,
        accepted: std::collections::BTreeSet<u32>,
    ) -> ToolResult<crate::Landed> {
        let hook = self.ws.before_write_hook();
        let landed = tokio::task::spawn_blocking(move || held.land(&accepted, hook.as_deref()))
            .await
            .map_err(|e| ToolError::InvalidArgument(format!("landing stopped: {e}")))?
            .map_err(|e| {
                ToolError::InvalidArgument(format!(
                    "the command's changes could not land, and the project keeps what it had: {e}"
                ))
            })?;
        self.cache.clear();
        let (added, removed) = landed.lines();
        self.ws.record_diff(added, removed);
        Ok(landed)
    }
}
