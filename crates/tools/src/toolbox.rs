//! The toolbox a session holds: the workspace, its background tasks, command and web settings,
//! and the cache. [`Toolbox::run`] is the one door through which the agent loop and
//! `tandem-cli tool` run any tool by name.

use crate::cache::{self, CACHED_TOOLS, Cache};
use crate::catalog::{ToolOutput, parse, run_tool, to_value};
use crate::error::{ToolError, ToolResult};
use crate::paths::ProjectRoot;
use crate::read_file::{ReadFileArgs, read_file, render_content};
use crate::run_command::{CommandConfig, RunCommandArgs, RunContext, render_outcome, run_command};
use crate::saved_outputs::SavedOutputs;
use crate::search::{SearchArgs, render_search, search_codebase};
use crate::tasks::TaskRegistry;
use crate::web::{
    FetchContext, WebConfig, WebFetchArgs, WebSearchArgs, render_fetch, render_search_hits,
    web_fetch, web_search,
};
use crate::workspace::Workspace;
use protocol::Confinement;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

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

/// A saved file's content, named by the path the model used for it (its tools read it from
/// the folder it is in, and would name it relative to that).
fn named_as(content: &mut protocol::FileContent, asked: String) {
    use protocol::FileContent::*;
    match content {
        Text { path, .. } | Image { path, .. } | Binary { path, .. } => *path = asked,
    }
}

/// What the engine decided about one call, beyond its arguments.
#[derive(Clone, Default)]
pub struct CallContext {
    /// For run_command: where it runs (unset: the toolbox's default).
    pub confinement: Option<Confinement>,
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
    /// read_file or search_codebase of a file the session saved (named by its absolute path),
    /// read where it is; `None` for any other call. Never cached: a running command's output
    /// file grows, and the project's watch does not see it.
    fn run_on_saved(&self, name: &str, args: &Value) -> ToolResult<Option<ToolOutput>> {
        let asked = |key: &str| args.get(key).and_then(Value::as_str).map(str::to_string);
        match name {
            "read_file" => {
                let Some(path) = asked("path") else {
                    return Ok(None);
                };
                let Some(saved) = self.saved.find(&path)? else {
                    return Ok(None);
                };
                let mut a: ReadFileArgs = parse(name, args.clone())?;
                a.path = saved.inside;
                let mut content = read_file(&saved.root, &a)?;
                named_as(&mut content, path);
                Ok(Some(ToolOutput {
                    text: render_content(&content),
                    structured: to_value(&content),
                }))
            }
            "search_codebase" => {
                let Some(path) = asked("path") else {
                    return Ok(None);
                };
                let Some(saved) = self.saved.find(&path)? else {
                    return Ok(None);
                };
                let mut a: SearchArgs = parse(name, args.clone())?;
                a.path = Some(saved.inside);
                // What the project's searches never open, a saved folder's do not either.
                let root = saved.root.hiding_secrets_as(self.ws.root());
                let mut found = search_codebase(&root, &a)?;
                for line in &mut found.lines {
                    line.path = root.path().join(&line.path).display().to_string();
                }
                Ok(Some(ToolOutput {
                    text: render_search(&found),
                    structured: to_value(&found),
                }))
            }
            _ => Ok(None),
        }
    }

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

    /// Whether the paths a read_file, list_files or search_codebase call names can be read at
    /// all: inside the project, or (read_file's and search_codebase's `path`) one of the
    /// session's saved outputs. The error says why not; other tools are not its business.
    pub fn readable(&self, name: &str, args: &Value) -> ToolResult<()> {
        if !matches!(name, "read_file" | "list_files" | "search_codebase") {
            return Ok(());
        }
        if let Some(path) = args.get("path").and_then(Value::as_str) {
            let saved = name != "list_files" && self.saved.find(path)?.is_some();
            if !saved {
                self.ws.root().resolve(path)?;
            }
        }
        let paths = args.get("paths").and_then(Value::as_array);
        for path in paths.into_iter().flatten().filter_map(Value::as_str) {
            self.ws.root().resolve(path)?;
        }
        Ok(())
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

    /// Runs a tool with what the engine decided about this call.
    pub async fn run_in(
        &self,
        name: &str,
        args: Value,
        ctx: &CallContext,
    ) -> ToolResult<ToolOutput> {
        let confinement = ctx
            .confinement
            .unwrap_or_else(|| self.commands.default_confinement(false));
        let args = if args.is_null() {
            Value::Object(Default::default())
        } else {
            args
        };
        if let Some(out) = self.run_on_saved(name, &args)? {
            return Ok(out);
        }
        if CACHED_TOOLS.contains(&name) {
            let key = cache::key(name, &args);
            let file = (name == "read_file")
                .then(|| {
                    args.get("path")
                        .and_then(Value::as_str)
                        .and_then(|p| self.ws.root().resolve(p).ok())
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
            let out = run_tool(&self.ws, name, args)?;
            self.cache.put(key, out.clone(), file, generation);
            return Ok(out);
        }
        match name {
            "run_command" => {
                let a: RunCommandArgs = parse(name, args)?;
                // A command may change anything: what was cached is stale before and after.
                self.cache.clear();
                let outcome = run_command(
                    &self.ws,
                    &self.tasks,
                    &self.commands,
                    &a,
                    &RunContext {
                        confinement,
                        owner: ctx.owner.clone(),
                        cancel: ctx.cancel.clone(),
                        binds: Vec::new(),
                        on_started: ctx.on_started.clone(),
                    },
                )
                .await;
                self.cache.clear();
                let outcome = outcome?;
                Ok(ToolOutput {
                    text: render_outcome(&outcome),
                    structured: to_value(&outcome),
                })
            }
            "task_list" => {
                let a: TaskListArgs = parse(name, args)?;
                let list = self.tasks.list(a.include_finished);
                Ok(ToolOutput {
                    text: TaskRegistry::render_list(&list),
                    structured: to_value(&list),
                })
            }
            "task_poll" => {
                let a: TaskIdArgs = parse(name, args)?;
                let (info, output, more) =
                    self.tasks.poll(&a.id).map_err(ToolError::InvalidArgument)?;
                let mut text = format!(
                    "{} is {}.\n",
                    info.id,
                    TaskRegistry::describe_state(&info.state)
                );
                if output.is_empty() {
                    text.push_str("(no new output)\n");
                } else {
                    text.push_str(&output);
                    if !output.ends_with('\n') {
                        text.push('\n');
                    }
                }
                if more {
                    text.push_str("(more output is waiting: poll again)\n");
                }
                Ok(ToolOutput {
                    text,
                    structured: serde_json::json!({"task": info, "output": output, "more": more}),
                })
            }
            "task_stop" => {
                let a: TaskIdArgs = parse(name, args)?;
                let info = self.tasks.stop(&a.id).map_err(ToolError::InvalidArgument)?;
                self.cache.clear();
                Ok(ToolOutput {
                    text: format!("Stopping {} ({}).\n", info.id, info.title),
                    structured: to_value(&info),
                })
            }
            "wakeup" => {
                let a: WakeupArgs = parse(name, args)?;
                self.tasks
                    .wakeup(Duration::from_millis(a.delay_ms), a.hint.clone());
                Ok(ToolOutput {
                    text: format!(
                        "You will be woken in {} ms, or sooner if a task finishes.\n",
                        a.delay_ms
                    ),
                    structured: serde_json::json!({"delay_ms": a.delay_ms, "hint": a.hint}),
                })
            }
            "web_fetch" => {
                let a: WebFetchArgs = parse(name, args)?;
                let r = web_fetch(&self.web, &a, &ctx.fetch).await?;
                Ok(ToolOutput {
                    text: render_fetch(&r),
                    structured: to_value(&r),
                })
            }
            "web_search" => {
                let a: WebSearchArgs = parse(name, args)?;
                let hits = web_search(&self.web, &a).await?;
                Ok(ToolOutput {
                    text: render_search_hits(&a.query, &hits),
                    structured: to_value(&hits),
                })
            }
            "update_plan" => {
                let a: crate::UpdatePlanArgs = parse(name, args)?;
                let items = crate::update_plan(&a)?;
                Ok(ToolOutput {
                    text: crate::render_plan(&items),
                    structured: to_value(&items),
                })
            }
            "task_done" => {
                let a: crate::TaskDoneArgs = parse(name, args)?;
                let d = crate::task_done(&a)?;
                Ok(ToolOutput {
                    text: format!("Task complete: {}\n", d.summary),
                    structured: to_value(&d),
                })
            }
            "create_pull_request" => {
                let a: crate::PullRequestArgs = parse(name, args)?;
                let path = std::env::var_os("PATH");
                let pr = crate::create_pull_request(
                    self.ws.root(),
                    &a,
                    &crate::PullRequestRun {
                        path_env: path.as_deref(),
                        cancel: ctx.cancel.clone(),
                        limit: crate::PULL_REQUEST_STEP_LIMIT,
                    },
                )
                .await?;
                Ok(ToolOutput {
                    text: crate::render_pull_request(&pr),
                    structured: to_value(&pr),
                })
            }
            name if crate::ENGINE_TOOLS.contains(&name) => Err(ToolError::InvalidArgument(
                format!("{name} is run by the agent engine, not the toolbox"),
            )),
            _ => {
                // Everything else changes the project (or is unknown, which run_tool explains);
                // a commit or a branch switch among them is the agent's own.
                self.cache.clear();
                let _acting = self.ws.agent_action();
                run_tool(&self.ws, name, args)
            }
        }
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
                on_started: ctx.on_started.clone(),
            },
        )
        .await;
        self.cache.clear();
        let outcome = outcome?;
        Ok(ToolOutput {
            text: render_outcome(&outcome),
            structured: to_value(&outcome),
        })
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
