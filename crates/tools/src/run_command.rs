//! `run_command`: a shell command in the project root, in its own process group. Output is
//! saved to a file (its first and last megabytes when it is long, see `command_output`) and
//! shown to the model as head + tail; a timeout or a stop ends the whole process tree (SIGTERM,
//! then SIGKILL). A command still running after the grace window, or started with
//! `background: true`, becomes a background task.

use crate::command_env;
use crate::command_output::{
    CappedOutput, KEPT_HEAD_BYTES, KEPT_TAIL_BYTES, OutputSize, head_tail,
};
use crate::error::{ToolError, ToolResult};
use crate::layer::CommandLayer;
use crate::project_guard::Known;
use crate::sandboxing::{SandboxSetup, sandbox_denial};
use crate::tasks::{TaskRegistry, TaskState};
use crate::workspace::Workspace;
use process_wrap::tokio::{CommandWrap, ProcessGroup};
use protocol::{Confinement, SandboxDenial};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt as _};
use tokio::sync::{mpsc, oneshot};

const SIGTERM: i32 = 15;
const SIGKILL: i32 = 9;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunCommandArgs {
    /// The shell command, run by bash in the project root.
    pub command: String,
    /// What it does, in a few words, for the person watching.
    #[serde(default)]
    pub description: Option<String>,
    /// Seconds before the command is killed. Default 120.
    #[serde(default)]
    pub timeout: Option<u64>,
    /// Start it as a background task and go on at once.
    #[serde(default)]
    pub background: bool,
}

/// What the engine decided about one command run.
#[derive(Debug, Clone)]
pub struct RunContext {
    pub confinement: Confinement,
    /// The agent whose task it becomes when it runs long (a sub-agent's id).
    pub owner: Option<String>,
    /// Stop: a command still in the foreground is ended, and the call returns at once.
    pub cancel: Option<tokio_util::sync::CancellationToken>,
    /// Folders shown read-only under `/run/tandem` in the sandbox (a user's skill).
    pub binds: Vec<sandbox::Bind>,
    /// Places outside the project the person let this command read (the sandbox hides
    /// everything outside its allow-list).
    pub readable: Vec<PathBuf>,
    /// Told the task id as soon as the command runs, so its output can be shown live.
    pub on_started: Option<OnStarted>,
    /// Which of its changes land without a question, when it runs over a layer.
    pub landing: crate::Landing,
    /// Told the project files that landed (and their text before) when it ends, in the
    /// foreground or the background.
    pub on_landed: Option<OnLanded>,
}

/// A project file that landed, and its text before (`None`: it was not there).
pub type LandedFile = (String, Option<String>);

/// Told the project files a command's layer landed, with their text before.
#[derive(Clone)]
pub struct OnLanded(pub std::sync::Arc<LandedHook>);

/// What [`OnLanded`] calls.
pub type LandedHook = dyn Fn(&[LandedFile]) + Send + Sync;

impl std::fmt::Debug for OnLanded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OnLanded")
    }
}

/// Told a command's task id as soon as it runs.
#[derive(Clone)]
pub struct OnStarted(pub std::sync::Arc<dyn Fn(&str) + Send + Sync>);

impl std::fmt::Debug for OnStarted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OnStarted")
    }
}

impl RunContext {
    pub fn new(confinement: Confinement) -> Self {
        RunContext {
            confinement,
            owner: None,
            cancel: None,
            binds: Vec::new(),
            readable: Vec::new(),
            on_started: None,
            landing: crate::Landing::UNREVIEWED,
            on_landed: None,
        }
    }
}

/// How commands run; the defaults are the spec's.
#[derive(Debug, Clone)]
pub struct CommandConfig {
    pub shell: PathBuf,
    pub timing: Timing,
    pub kept: Kept,
    /// Where full outputs are saved (the session folder).
    pub output_dir: PathBuf,
    /// Variables of the app's environment the user lets commands see, beyond the built-in
    /// allow-list (see `command_env`).
    pub env_extra: Vec<String>,
    /// How commands are sandboxed; `None` on a machine without a sandbox.
    pub sandbox: Option<SandboxSetup>,
    /// The session's private temporary folder (`TMPDIR`), also for commands that run outside
    /// the sandbox.
    pub tmp_dir: PathBuf,
    /// The helper that runs a command outside the sandbox and ends whatever it leaves behind
    /// (`tandem-sandbox outside`); without it, a daemon that left the command's process group
    /// would outlive it.
    pub reaper: Option<PathBuf>,
}

/// How long a command may take, in each of the ways it can.
#[derive(Debug, Clone)]
pub struct Timing {
    /// A command still running after this becomes a background task.
    pub grace: Duration,
    pub default_timeout: Duration,
    /// A background command without a timeout of its own is stopped after this long.
    pub background_timeout: Duration,
    /// Between SIGTERM and SIGKILL.
    pub kill_grace: Duration,
}

/// How much of a command's output is kept.
#[derive(Debug, Clone)]
pub struct Kept {
    /// Lines kept from the start and from the end of the output for the model.
    pub head_lines: usize,
    pub tail_lines: usize,
    /// Bytes of the start and of the end of an output its file keeps; the middle of a longer
    /// one is cut.
    pub head_bytes: u64,
    pub tail_bytes: usize,
}

impl CommandConfig {
    pub fn new(output_dir: PathBuf) -> Self {
        CommandConfig {
            shell: ["/bin/bash", "/usr/bin/bash", "/bin/sh"]
                .iter()
                .map(PathBuf::from)
                .find(|p| p.exists())
                .unwrap_or_else(|| PathBuf::from("sh")),
            timing: Timing {
                grace: Duration::from_secs(10),
                default_timeout: Duration::from_secs(120),
                background_timeout: Duration::from_secs(30 * 60),
                kill_grace: Duration::from_secs(5),
            },
            kept: Kept {
                head_lines: 100,
                tail_lines: 100,
                head_bytes: KEPT_HEAD_BYTES,
                tail_bytes: KEPT_TAIL_BYTES,
            },
            tmp_dir: output_dir.with_file_name("tmp"),
            output_dir,
            env_extra: Vec::new(),
            sandbox: None,
            reaper: None,
        }
    }

    /// Where a command runs when nothing asks for more: in the sandbox without network when
    /// there is one, else with the user's permissions.
    pub fn default_confinement(&self, read_only: bool) -> Confinement {
        if self.sandbox.is_some() {
            Confinement::Sandboxed {
                network: false,
                read_only,
            }
        } else {
            Confinement::Outside {
                reason: protocol::OutsideReason::Unavailable,
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CommandOutcome {
    Finished {
        task_id: String,
        exit_code: Option<i32>,
        timed_out: bool,
        duration_ms: u64,
        output_path: PathBuf,
        /// Head and tail of the output, for the model.
        output: String,
        /// Lines of the saved output.
        total_lines: usize,
        /// Bytes the command printed, and how many of them the saved output keeps (fewer when
        /// its middle was cut). Results saved before these were counted read as 0.
        #[serde(default)]
        bytes_total: u64,
        #[serde(default)]
        bytes_kept: u64,
        confinement: Confinement,
        /// What the sandbox seems to have refused, when the command failed.
        sandbox_denial: Option<SandboxDenial>,
        /// What the command made that would have run programs at the user's next git command,
        /// and that was undone (a `.git/commondir`, a new repository's `.git` renamed).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        undone: Vec<String>,
        /// A limit of the sandbox the command ran into, as its output shows.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit_hit: Option<LimitHit>,
        /// What it changed in the project, when it ran over a layer, and what became of it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        changes: Option<protocol::CommandChanges>,
        /// The project files that landed and their text before, for the session's record.
        #[serde(skip)]
        before: Vec<(String, Option<String>)>,
        /// Its changes that wait in its layer for the person's review, when the run asked
        /// for one ([`crate::Landing::review`]).
        #[serde(skip)]
        held: crate::HeldChanges,
    },
    Background {
        task_id: String,
        output_path: PathBuf,
        reason: String,
        confinement: Confinement,
        /// What it printed before it went to the background (its first and last lines):
        /// task_poll then returns only what comes after.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        so_far: String,
    },
}

impl CommandOutcome {
    pub fn confinement(&self) -> Confinement {
        match self {
            CommandOutcome::Finished { confinement, .. }
            | CommandOutcome::Background { confinement, .. } => *confinement,
        }
    }
}

/// A per-command limit of the sandbox that a command ran into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LimitHit {
    /// It could not start another process or thread.
    Processes { limit: u64 },
    /// A process could not get more memory.
    Memory { bytes: u64 },
    /// It wrote more into its layer of the project than it may (see
    /// [`sandbox::Limits::layer_bytes`]).
    Layer { bytes: u64 },
    /// A file it wrote reached the size one file may have (see
    /// [`sandbox::Limits::file_bytes`]).
    FileSize { bytes: u64 },
    /// Its processes together took all the memory the command may have (its control group's
    /// cap): the kernel ended one.
    CommandMemory { bytes: u64 },
    /// Its processes together were as many as the command may have (its control group's cap).
    CommandProcesses { limit: u64 },
    /// It filled the session's private `/tmp` past what it may hold (see
    /// [`sandbox::Limits::tmp_bytes`]).
    Tmp { bytes: u64 },
}

/// Which limit a failed command's output shows it reached: the kernel tells the command, not
/// us, so its own words are what there is (as for [`sandbox_denial`]).
fn limit_hit(output: &str, limits: &sandbox::Limits) -> Option<LimitHit> {
    const MEMORY: &[&str] = &[
        "memoryerror",
        "cannot allocate memory",
        "out of memory",
        "std::bad_alloc",
        "memory allocation of",
        "heap out of memory",
    ];
    for line in output.lines().rev() {
        let lower = line.to_ascii_lowercase();
        // The shell's words for a child ended by SIGXFSZ, the system's for a write refused
        // with EFBIG, the sandbox's own for the command itself.
        if [
            "file size limit exceeded",
            "file too large",
            "limit on the size of one file",
        ]
        .iter()
        .any(|w| lower.contains(w))
        {
            return Some(LimitHit::FileSize {
                bytes: limits.file_bytes,
            });
        }
        let spawning = ["fork", "spawn", "thread", "clone"]
            .iter()
            .any(|w| lower.contains(w));
        let refused = [
            "resource temporarily unavailable",
            "retry",
            "cannot",
            "can't",
            "interrupted system call",
            "wouldblock",
        ]
        .iter()
        .any(|w| lower.contains(w));
        if spawning && refused {
            return Some(LimitHit::Processes {
                limit: limits.processes,
            });
        }
        if MEMORY.iter().any(|m| lower.contains(m)) {
            return Some(LimitHit::Memory {
                bytes: limits.memory_bytes,
            });
        }
    }
    None
}

/// What a process runs: a command line the shell reads, or a program and its arguments that
/// no shell ever reads (a skill's tool: the model's values must stay whole arguments).
#[derive(Debug, Clone, Copy)]
pub enum Program<'a> {
    Shell(&'a str),
    Argv(&'a [String]),
}

/// The process to start: inside the sandbox (as `known` of the project, showing the run's
/// binds, over `layer`), or alone.
fn build_command(
    ws: &Workspace,
    config: &CommandConfig,
    program: Program<'_>,
    run: &RunContext,
    status: &Path,
    known: Option<&Known>,
    layer: Option<&CommandLayer>,
) -> ToolResult<(std::process::Command, Option<sandbox::CommandCgroup>)> {
    let mut group = None;
    let project = ws.root().path();
    let (exe, args): (&std::ffi::OsStr, Vec<&std::ffi::OsStr>) = match program {
        Program::Shell(command) => (
            config.shell.as_os_str(),
            vec!["-c".as_ref(), command.as_ref()],
        ),
        Program::Argv([exe, args @ ..]) => {
            (exe.as_ref(), args.iter().map(|a| a.as_ref()).collect())
        }
        Program::Argv([]) => {
            return Err(ToolError::InvalidArgument(
                "there is no program to run".into(),
            ));
        }
    };
    let (mut cmd, tmp_inside) = match (run.confinement, &config.sandbox) {
        (Confinement::Sandboxed { network, read_only }, Some(setup)) => {
            let known = match known {
                Some(k) => k.clone(),
                None => setup.known(project),
            };
            let mut spec = setup.spec_for(
                project,
                &config.tmp_dir,
                network,
                read_only,
                &known,
                run.binds.clone(),
                &run.readable,
            );
            if let Some(layer) = layer {
                spec.layer = Some(layer.spec());
                // Written to directly, it would be the command's way around the overlay.
                spec.guarded.hidden.push(layer.folder().to_path_buf());
            }
            // Its memory and processes capped as a whole, where the machine lets us.
            if let Some(place) = sandbox::cgroup_place() {
                match sandbox::CommandCgroup::make(
                    place,
                    setup.limits.memory_bytes,
                    setup.limits.processes,
                ) {
                    Ok(g) => {
                        spec.cgroup_procs = g.procs_files();
                        group = Some(g);
                    }
                    Err(e) => {
                        tracing::warn!(%e, "could not make the command's control group: its limits are per process");
                    }
                }
            }
            let tmp = spec.tmp_inside();
            let cmd = sandbox::wrap(&setup.helper, &spec, status, exe, args);
            (cmd, tmp)
        }
        (Confinement::Sandboxed { .. }, None) => {
            return Err(ToolError::InvalidArgument(
                "commands cannot be sandboxed on this machine, and this one may only run in the sandbox; it did not run".into(),
            ));
        }
        (Confinement::Outside { .. }, _) => {
            let cmd = match &config.reaper {
                Some(helper) => sandbox::wrap_outside(helper, exe, args),
                None => {
                    let mut cmd = std::process::Command::new(exe);
                    cmd.args(args);
                    cmd
                }
            };
            (cmd, config.tmp_dir.clone())
        }
    };
    std::fs::create_dir_all(&config.tmp_dir).map_err(|e| ToolError::io(&config.tmp_dir, e))?;
    cmd.current_dir(project)
        .env_clear()
        .envs(command_env::allowed_env(&config.env_extra))
        .envs(command_env::FIXED.iter().copied())
        .env("TMPDIR", &tmp_inside)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if run.confinement.is_sandboxed() {
        // Caches go to the private folder: the home folder is read-only in the sandbox.
        cmd.env("XDG_CACHE_HOME", tmp_inside.join(".cache"))
            .env("npm_config_cache", tmp_inside.join(".npm"));
    }
    if let Confinement::Sandboxed { network, read_only } = run.confinement
        && (network || read_only)
    {
        // A command that only reads, or that has the network, runs git without the programs
        // the repository's configuration names (fsmonitor, filters, diff drivers, ssh, upload
        // and pager commands, hooks): they would run repository code, or run it with the
        // network.
        cmd.envs(crate::git_places::neutral_git_env());
    }
    if let Confinement::Sandboxed {
        read_only: true, ..
    } = run.confinement
    {
        // `python3 -m json.tool` would import the project's own `json/` first.
        cmd.env("PYTHONSAFEPATH", "1");
    }
    Ok((cmd, group))
}

/// A file name no other command of this process uses, for the helper's status report.
fn status_file(config: &CommandConfig) -> Option<PathBuf> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    config.sandbox.as_ref().map(|s| {
        s.state_dir.join(format!(
            "status-{}-{}.json",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ))
    })
}

fn pump(
    mut reader: impl AsyncRead + Unpin + Send + 'static,
    tx: mpsc::Sender<Vec<u8>>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            match reader.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx.send(buf[..n].to_vec()).await.is_err() {
                        break;
                    }
                }
            }
        }
    })
}

/// Runs a command. Returns when it finishes within the grace window, or as soon as it becomes
/// a background task.
pub async fn run_command(
    ws: &Workspace,
    tasks: &TaskRegistry,
    config: &CommandConfig,
    args: &RunCommandArgs,
    run: &RunContext,
) -> ToolResult<CommandOutcome> {
    check_command(args)?;
    run_process(ws, tasks, config, Program::Shell(&args.command), args, run).await
}

/// What makes a command call impossible before it runs: checked before anyone is asked to
/// approve it, and again when it runs.
pub fn check_command(args: &RunCommandArgs) -> ToolResult<()> {
    if args.command.trim().is_empty() {
        return Err(ToolError::InvalidArgument(
            "the command is empty; give the shell command to run".into(),
        ));
    }
    if args.timeout == Some(0) {
        return Err(ToolError::InvalidArgument(
            "timeout must be at least 1 second (leave it out for the default of 120)".into(),
        ));
    }
    Ok(())
}

/// Runs a program with its arguments, no shell in between (a skill's tool), as `run_command`
/// runs a command line: output saved and cut, timeout, background after the grace window.
pub async fn run_program(
    ws: &Workspace,
    tasks: &TaskRegistry,
    config: &CommandConfig,
    argv: &[String],
    title: &str,
    run: &RunContext,
) -> ToolResult<CommandOutcome> {
    let shown = RunCommandArgs {
        command: crate::skills::shell_words(argv),
        description: Some(title.to_string()),
        timeout: None,
        background: false,
    };
    run_process(ws, tasks, config, Program::Argv(argv), &shown, run).await
}

async fn run_process(
    ws: &Workspace,
    tasks: &TaskRegistry,
    config: &CommandConfig,
    program: Program<'_>,
    args: &RunCommandArgs,
    run: &RunContext,
) -> ToolResult<CommandOutcome> {
    let confinement = run.confinement;
    let timeout = match args.timeout {
        Some(s) => Some(Duration::from_secs(s.max(1))),
        None if args.background => Some(config.timing.background_timeout),
        None => Some(config.timing.default_timeout),
    };
    std::fs::create_dir_all(&config.output_dir)
        .map_err(|e| ToolError::io(&config.output_dir, e))?;

    let status_path = status_file(config);
    let status_for_cmd = status_path.clone().unwrap_or_default();
    if let Some(setup) = &config.sandbox {
        std::fs::create_dir_all(&setup.state_dir)
            .map_err(|e| ToolError::io(&setup.state_dir, e))?;
    }
    // What the sandbox knows of the project as the command starts: its secrets are hidden, and
    // a repository that is not among these when it ends was made by a command.
    let sandbox_setup = config
        .sandbox
        .as_ref()
        .filter(|_| confinement.is_sandboxed())
        .cloned();
    let known = sandbox_setup.as_ref().map(|s| s.known(ws.root().path()));
    // A command that may write works on a layer of the project; what it changed lands when it
    // ends, as the rules allow.
    let layered = match (&sandbox_setup, confinement) {
        (
            Some(setup),
            Confinement::Sandboxed {
                read_only: false, ..
            },
        ) if setup.layers => {
            let (setup, project, tmp) = (
                setup.clone(),
                ws.root().path().to_path_buf(),
                config.tmp_dir.clone(),
            );
            tokio::task::spawn_blocking(move || setup.layers_for(&project, &tmp))
                .await
                .unwrap_or(false)
        }
        _ => false,
    };
    let refusal_note = sandbox_setup
        .as_ref()
        .is_some_and(|s| s.refusal_to_tell(ws.root().path()));
    let layer = match (&sandbox_setup, confinement) {
        (
            Some(setup),
            Confinement::Sandboxed {
                read_only: false, ..
            },
        ) if layered => Some(
            CommandLayer::make(&setup.state_dir, ws.root().path())
                .map_err(|e| ToolError::io(&setup.state_dir, e))?
                .merging_with(ws.base_of_hook()),
        ),
        _ => None,
    };
    // Without a layer, what a command that may write changes is found afterwards, from a mark
    // of the project taken now.
    let finder = ws.change_finder().filter(|_| {
        layer.is_none()
            && !matches!(
                confinement,
                Confinement::Sandboxed {
                    read_only: true,
                    ..
                }
            )
    });
    let mark = match &finder {
        Some(f) => {
            let f = f.clone();
            tokio::task::spawn_blocking(move || f.mark())
                .await
                .ok()
                .flatten()
        }
        None => None,
    };
    // The command's control group lives as long as the command, and is read when it ends.
    let (cmd, group) = build_command(
        ws,
        config,
        program,
        run,
        &status_for_cmd,
        known.as_ref(),
        layer.as_ref(),
    )?;
    let mut wrapped = CommandWrap::from(tokio::process::Command::from(cmd));
    wrapped.wrap(ProcessGroup::leader());
    let exe = match program {
        Program::Shell(_) => config.shell.clone(),
        Program::Argv(argv) => PathBuf::from(argv.first().map(String::as_str).unwrap_or("")),
    };
    let mut child = wrapped.spawn().map_err(|e| ToolError::io(&exe, e))?;

    let (stop_tx, mut stop_rx) = oneshot::channel();
    let title = args
        .description
        .clone()
        .unwrap_or_else(|| args.command.clone());
    // The id names the output file, so it is taken before the file exists.
    let placeholder = config.output_dir.join("pending.log");
    let id = tasks.register("command", &title, placeholder, stop_tx, run.owner.clone());
    if let Some(started) = &run.on_started {
        (started.0)(&id);
    }
    let output_path = config.output_dir.join(format!("{id}.log"));
    tasks.set_output_path(&id, output_path.clone());
    if let Some(l) = &layer {
        // Should it go on in the background, its changes can be counted and reviewed on
        // request while it runs.
        tasks.watch_layer(&id, l.view(run.landing));
    }
    let file = tokio::fs::File::create(&output_path)
        .await
        .map_err(|e| ToolError::io(&output_path, e))?;
    let mut sink = CappedOutput::new(file, config.kept.head_bytes, config.kept.tail_bytes);

    let (tx, mut rx) = mpsc::channel::<Vec<u8>>(64);
    let mut pumps = Vec::new();
    if let Some(out) = child.stdout().take() {
        pumps.push(pump(out, tx.clone()));
    }
    if let Some(err) = child.stderr().take() {
        pumps.push(pump(err, tx.clone()));
    }
    drop(tx);

    // Whatever it commits is the agent's, even when it ends in the background.
    let acting = ws.agent_action();
    let started = Instant::now();
    let (done_tx, done_rx) = oneshot::channel::<Ended>();
    let landing = run.landing;
    let on_landed = run.on_landed.clone();
    let background = args.background;
    let before_write = ws.before_write_hook();
    let project = ws.root().path().to_path_buf();
    let registry = tasks.clone();
    let task_id = id.clone();
    let kill_grace = config.timing.kill_grace;
    let group_limits = sandbox_setup
        .as_ref()
        .map_or((0, 0), |s| (s.limits.memory_bytes, s.limits.processes));
    // What the layer may hold, and the disk's room as the command starts: the disk is looked
    // at often (cheap), the layer walked only once the disk has lost that much.
    let layer_watch = layer.as_ref().and_then(|l| {
        let limit = sandbox_setup.as_ref()?.limits.layer_bytes;
        Some((l.cap(limit), l.free_now()))
    });
    // The private /tmp's cap, watched the same way: the disk as it goes, the folder walked
    // only once the disk has lost enough to matter.
    let mut tmp_watch = match (&sandbox_setup, confinement.is_sandboxed()) {
        (Some(setup), true) => Some(TmpWatch::new(
            config.tmp_dir.clone(),
            setup.limits.tmp_bytes,
        )),
        _ => None,
    };
    // Ignored output of a command nobody waits on (a server, a watcher) is copied into the
    // project as it comes; the rest of its changes wait until it ends.
    let mut mirror = layer.as_ref().map(CommandLayer::mirror);
    tokio::spawn(async move {
        let deadline = timeout.map(|t| tokio::time::Instant::now() + t);
        let mut mirror_look = tokio::time::interval(MIRROR_LOOK);
        let mut stopped = false;
        let mut timed_out = false;
        let mut over_cap = None;
        let mut tmp_full = None;
        let mut output_open = true;
        let mut look = tokio::time::interval(LAYER_LOOK);
        let mut tmp_look = tokio::time::interval(LAYER_LOOK);
        let status = loop {
            let timer = async {
                match deadline {
                    Some(d) => tokio::time::sleep_until(d).await,
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                chunk = rx.recv(), if output_open => match chunk {
                    Some(bytes) => sink.write(&bytes).await,
                    None => output_open = false,
                },
                status = child.wait() => break status,
                _ = timer, if !timed_out && !stopped => {
                    timed_out = true;
                    let _ = child.signal(SIGTERM);
                    let term_deadline = tokio::time::Instant::now() + kill_grace;
                    let _ = tokio::time::timeout_at(term_deadline, child.wait()).await;
                    let _ = child.signal(SIGKILL);
                }
                _ = &mut stop_rx, if !stopped && !timed_out => {
                    stopped = true;
                    let _ = child.signal(SIGTERM);
                    let term_deadline = tokio::time::Instant::now() + kill_grace;
                    let _ = tokio::time::timeout_at(term_deadline, child.wait()).await;
                    let _ = child.signal(SIGKILL);
                }
                _ = mirror_look.tick(), if mirror.is_some() && over_cap.is_none() && (background || done_tx.is_closed()) => {
                    if let Some(mut m) = mirror.take() {
                        mirror = tokio::task::spawn_blocking(move || {
                            m.sync();
                            m
                        })
                        .await
                        .ok();
                    }
                }
                _ = look.tick(), if layer_watch.is_some() && over_cap.is_none() => {
                    if let (Some(l), Some((cap, free_then))) = (&layer, layer_watch)
                        && free_then.saturating_sub(l.free_now()) > cap
                        && l.written() > cap
                    {
                        // Past its cap: stopped at once, and nothing of it will land.
                        over_cap = Some(cap);
                        let _ = child.signal(SIGKILL);
                    }
                }
                _ = tmp_look.tick(), if tmp_watch.is_some() && tmp_full.is_none() => {
                    if let Some(w) = tmp_watch.take() {
                        let (w, full) = tokio::task::spawn_blocking(move || {
                            let mut w = w;
                            let full = w.full();
                            (w, full)
                        })
                        .await
                        .unwrap_or_else(|_| (TmpWatch::gone(), None));
                        tmp_watch = Some(w);
                        if full.is_some() {
                            tmp_full = full;
                            let _ = child.signal(SIGKILL);
                        }
                    }
                }
            }
        };
        // The group is gone; drain what is left in the pipes (bounded: the writers are dead).
        while let Ok(Some(bytes)) =
            tokio::time::timeout(Duration::from_millis(500), rx.recv()).await
        {
            sink.write(&bytes).await;
        }
        for p in pumps {
            p.abort();
        }
        // What the command's group saw, then the group is gone (waiting for it to empty).
        let group_hit = match group {
            Some(g) => tokio::task::spawn_blocking(move || {
                let hit = if g.memory_ran_out() {
                    Some(LimitHit::CommandMemory {
                        bytes: group_limits.0,
                    })
                } else if g.processes_ran_out() {
                    Some(LimitHit::CommandProcesses {
                        limit: group_limits.1,
                    })
                } else {
                    None
                };
                drop(g);
                hit
            })
            .await
            .ok()
            .flatten(),
            None => None,
        };
        let report = status_path
            .as_deref()
            .map(sandbox::read_report)
            .unwrap_or_default();
        let setup_error = report.setup_error;
        let mut undone = report.undone;
        // Over a layer a command's repositories are in its layer (and land only with a yes);
        // one that appeared in the project meanwhile is the person's, never touched.
        if let (Some(setup), Some(before), None) = (&sandbox_setup, &known, &layer) {
            let project = project.clone();
            let setup = setup.clone();
            let before = before.clone();
            if let Ok(found) =
                tokio::task::spawn_blocking(move || setup.undo_new_repositories(&project, &before))
                    .await
            {
                undone.extend(found);
            }
        }
        if !undone.is_empty() {
            // Said at the end of the output, where both the model (in the result or in a
            // background task's output) and the person read it.
            sink.write(format!("\n{}", undone_note(&undone)).as_bytes())
                .await;
        }
        if let Some(cap) = over_cap {
            sink.write(layer_full_note(cap).as_bytes()).await;
        }
        // A result says it in its own words; a command nobody waits on says it here.
        if let Some(cap) = tmp_full
            && (background || done_tx.is_closed())
        {
            sink.write(format!("\n{}\n", tmp_full_note(cap)).as_bytes())
                .await;
        }
        if refusal_note {
            sink.write(LAYER_REFUSED_NOTE.as_bytes()).await;
        }
        let read = match layer {
            Some(layer) if over_cap.is_some() => {
                let _ = tokio::task::spawn_blocking(move || layer.discard()).await;
                None
            }
            Some(layer) => {
                let hook = before_write.clone();
                let landing =
                    tokio::task::spawn_blocking(move || layer.land(&landing, hook.as_deref()))
                        .await;
                match landing {
                    Ok(Ok(landed)) => Some(landed),
                    Ok(Err(e)) => {
                        sink.write(format!("\n[Tandem could not read what the command changed, so none of it landed: {e}]\n").as_bytes()).await;
                        None
                    }
                    Err(_) => None,
                }
            }
            // No layer: what it changed is in the project already, found now.
            None => match (&finder, mark) {
                (Some(finder), Some(mark)) => {
                    let finder = finder.clone();
                    let project = project.clone();
                    tokio::task::spawn_blocking(move || {
                        finder
                            .since(mark)
                            .map(|found| crate::layer::found_changes(&project, found, &landing))
                    })
                    .await
                    .ok()
                    .flatten()
                }
                _ => None,
            },
        };
        let landed = match read {
            Some(landed) => {
                if (background || done_tx.is_closed()) && landed.held.waiting() {
                    // Nobody waits on it now: what needs a yes waits (in its layer, or as
                    // found) until the person reviews it (when the agent hears it ended).
                    registry.hold_changes(&task_id, landed.held.clone());
                    sink.write(HELD_NOTE.as_bytes()).await;
                }
                if let Some(told) = &on_landed
                    && !landed.before.is_empty()
                {
                    (told.0)(&landed.before);
                }
                if background || done_tx.is_closed() {
                    // Read by task_poll, when no result carries it (it went on in the
                    // background).
                    sink.write(format!("\n{}", crate::changes_words(&landed.changes)).as_bytes())
                        .await;
                }
                Some(landed)
            }
            None => None,
        };
        if let Some(landed) = &landed {
            let (added, removed) = landed.lines();
            acting.count(added, removed);
        }
        let size = sink.finish().await;
        drop(acting);
        let state = if let Some(why) = setup_error {
            TaskState::Failed {
                message: format!("the sandbox could not start, so the command did not run: {why}"),
            }
        } else if timed_out {
            TaskState::TimedOut
        } else if stopped {
            TaskState::Stopped
        } else {
            match status {
                Ok(s) => TaskState::Exited { code: s.code() },
                Err(e) => TaskState::Failed {
                    message: e.to_string(),
                },
            }
        };
        let ms = started.elapsed().as_millis() as u64;
        let sent = done_tx.send(Ended {
            state: state.clone(),
            ms,
            size,
            undone,
            landed,
            over_cap,
            tmp_full,
            group_hit,
        });
        if let Err(Ended {
            landed: Some(landed),
            ..
        }) = sent
            && landed.held.waiting()
        {
            // The wait ended just as the command did: its changes wait for a review.
            registry.hold_changes(&task_id, landed.held);
        }
        registry.finish(&task_id, state);
    });

    let background = |reason: &str| CommandOutcome::Background {
        task_id: id.clone(),
        output_path: output_path.clone(),
        reason: reason.to_string(),
        confinement,
        so_far: String::new(),
    };
    if args.background {
        return Ok(background("started in the background as asked"));
    }
    let cancelled = async {
        match &run.cancel {
            Some(c) => c.cancelled().await,
            None => std::future::pending().await,
        }
    };
    let waited = tokio::select! {
        w = tokio::time::timeout(config.timing.grace, done_rx) => w,
        () = cancelled => {
            // Stopped: the command ends now (SIGTERM, then SIGKILL), not in the background.
            let _ = tasks.stop(&id);
            tasks.mark_reported(&id);
            return Err(ToolError::InvalidArgument("the command was stopped".into()));
        }
    };
    match waited {
        Ok(Ok(Ended {
            state,
            ms: duration_ms,
            size,
            undone,
            landed,
            over_cap,
            tmp_full,
            group_hit,
        })) => {
            tasks.forget(&id);
            // Read a line at a time, never whole: the file holds up to ten megabytes.
            let (output, total_lines) =
                head_tail(&output_path, config.kept.head_lines, config.kept.tail_lines)
                    .map_err(|e| ToolError::io(&output_path, e))?;
            let (exit_code, timed_out) = match state {
                TaskState::Exited { code } => (code, false),
                TaskState::TimedOut => (None, true),
                TaskState::Failed { message } => return Err(ToolError::InvalidArgument(message)),
                _ => (None, false),
            };
            let denial = match confinement {
                Confinement::Sandboxed { network, .. } if exit_code != Some(0) => {
                    sandbox_denial(&output, network)
                }
                _ => None,
            };
            let limit = match (&config.sandbox, confinement.is_sandboxed()) {
                _ if over_cap.is_some() => over_cap.map(|bytes| LimitHit::Layer { bytes }),
                _ if tmp_full.is_some() => tmp_full.map(|bytes| LimitHit::Tmp { bytes }),
                _ if group_hit.is_some() => group_hit,
                // A file past its size limit is said even when the command went on to succeed
                // (the shell reports the write it stopped; a later step may hide it).
                (Some(setup), true) => limit_hit(&output, &setup.limits).filter(|h| {
                    exit_code != Some(0) || timed_out || matches!(h, LimitHit::FileSize { .. })
                }),
                _ => None,
            };
            Ok(CommandOutcome::Finished {
                task_id: id,
                exit_code,
                timed_out,
                duration_ms,
                output_path,
                output,
                total_lines,
                bytes_total: size.bytes_total,
                bytes_kept: size.bytes_kept,
                confinement,
                sandbox_denial: denial,
                undone,
                limit_hit: limit,
                changes: landed.as_ref().map(|l| l.changes.clone()),
                held: landed.as_ref().map(|l| l.held.clone()).unwrap_or_default(),
                before: landed.map(|l| l.before).unwrap_or_default(),
            })
        }
        Ok(Err(_)) => Err(ToolError::InvalidArgument(
            "the command's supervisor ended unexpectedly".into(),
        )),
        Err(_) => {
            // The seed's partial snapshot: what it printed so far, so a build's progress is
            // seen without a poll; the next task_poll starts after it.
            let so_far = tasks.snapshot(&id, SNAPSHOT_HEAD_LINES, SNAPSHOT_TAIL_LINES);
            let mut out = background(&format!(
                "still running after {} s, so it continues in the background",
                config.timing.grace.as_secs_f32()
            ));
            if let CommandOutcome::Background { so_far: slot, .. } = &mut out {
                *slot = so_far;
            }
            Ok(out)
        }
    }
}

/// Said in a command's output when its changes wait for a review after it ended in the
/// background.
const HELD_NOTE: &str = "\n[Some of its changes wait for the user's review; they land only once the user has answered.]\n";

/// How a command ended, as its supervisor tells the caller waiting in the foreground.
struct Ended {
    state: TaskState,
    ms: u64,
    size: OutputSize,
    undone: Vec<String>,
    landed: Option<crate::layer::Landed>,
    /// The layer's cap, when the command wrote past it.
    over_cap: Option<u64>,
    /// The private /tmp's cap, when the command filled it past that.
    tmp_full: Option<u64>,
    /// A cap of the command's control group it reached (its memory or processes as a whole).
    group_hit: Option<LimitHit>,
}

/// Watches what a command puts in the session's private `/tmp` against its cap. The disk's
/// free room is read at each look (cheap); the folder is walked only each time the disk has
/// lost as much as the folder still had room for (at least [`TMP_STEP`]).
struct TmpWatch {
    dir: PathBuf,
    cap: u64,
    free_then: u64,
    /// How far the disk's free room must fall before the folder is walked again.
    next_walk: u64,
}

/// The least the disk must lose before the private /tmp is walked again.
const TMP_STEP: u64 = 256 << 20;

impl TmpWatch {
    fn new(dir: PathBuf, limit: u64) -> Self {
        let free_then = crate::layer::free_bytes(&dir);
        // Never more than the disk has room for: a nearly full disk caps it lower.
        let cap = limit.min(free_then.saturating_mul(9) / 10);
        TmpWatch {
            dir,
            cap,
            free_then,
            next_walk: TMP_STEP.min(cap).max(1),
        }
    }

    /// A watch that never fires (its look could not be made).
    fn gone() -> Self {
        TmpWatch {
            dir: PathBuf::new(),
            cap: u64::MAX,
            free_then: 0,
            next_walk: u64::MAX,
        }
    }

    /// The cap, when the folder holds more than it now.
    fn full(&mut self) -> Option<u64> {
        if self.dir.as_os_str().is_empty() {
            return None;
        }
        let lost = self
            .free_then
            .saturating_sub(crate::layer::free_bytes(&self.dir));
        if lost < self.next_walk {
            return None;
        }
        let used = crate::layer::disk_usage(&self.dir);
        if used > self.cap {
            return Some(self.cap);
        }
        self.next_walk = lost + (self.cap - used).max(TMP_STEP);
        None
    }
}

/// Said when a command filled the private /tmp past its cap.
fn tmp_full_note(cap: u64) -> String {
    format!(
        "[The session's temporary folder (/tmp) reached its limit of {}, so the command was stopped. Remove what is no longer needed there (for example `rm -rf /tmp/build-cache`) and go on; write large results into the project instead.]",
        short_size(cap)
    )
}

/// "8.0 GB", "48 MB".
fn short_size(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{:.1} GB", bytes as f64 / f64::from(1u32 << 30))
    } else {
        format!("{} MB", bytes >> 20)
    }
}

/// How often a layered command's disk use is looked at.
const LAYER_LOOK: Duration = Duration::from_millis(250);
/// How often a running command's ignored output is copied into the project.
const MIRROR_LOOK: Duration = Duration::from_secs(2);

/// Said when a command wrote past its layer's cap.
/// Said once per project, on the first command that runs without a layer because the
/// project's file system refused one.
const LAYER_REFUSED_NOTE: &str = "\n[This project's file system does not take a copy-on-write layer (overlayfs refuses it), so commands here write the project directly, as they did before layers; what each one changes is found afterwards and shown for review.]\n";

fn layer_full_note(cap: u64) -> String {
    format!(
        "\n[The command wrote more than {} into its copy of the project, the most a command may write here (less when the disk has less room), so it was stopped and none of its changes landed. Write less at once (clean old build output first), or ask the user to run it themselves.]\n",
        size_words(cap)
    )
}

/// Lines of a still-running command's output shown when it goes to the background.
const SNAPSHOT_HEAD_LINES: usize = 10;
const SNAPSHOT_TAIL_LINES: usize = 30;

/// A byte count in words: exact, and in megabytes when large.
fn size_words(bytes: u64) -> String {
    if bytes < 1024 * 1024 {
        format!("{bytes} bytes")
    } else {
        format!("{bytes} bytes ({:.1} MB)", bytes as f64 / (1024.0 * 1024.0))
    }
}

/// The program the shell could not find (`bash: line 1: pytest: command not found`).
fn missing_program(output: &str) -> Option<&str> {
    output.lines().find_map(|line| {
        let before = line.strip_suffix(": command not found")?;
        let program = before.rsplit(": ").next()?.trim();
        (!program.is_empty() && !program.contains(char::is_whitespace)).then_some(program)
    })
}

/// What to run instead of a program that is not installed: small models reach for pytest and
/// `python` and stop when they are missing.
fn not_installed_hint(program: &str) -> String {
    let instead = match program {
        "pytest" | "py.test" => {
            " For Python tests, `python3 -m unittest` runs them with the standard library alone (no install)."
        }
        "python" => " Use `python3`.",
        "pip" | "pip3" => " Use `python3 -m pip`, if the project needs it.",
        _ => "",
    };
    format!(
        "[`{program}` is not installed here (exit code 127: command not found). Run a program that is; `command -v NAME` tells whether one is.{instead}]\n"
    )
}

/// What the sandbox undid after a command, in words for the model and the person.
pub fn undone_note(undone: &[String]) -> String {
    format!(
        "[The command made what would run programs the next time you use git here, so it was undone: {}. Commands may not create git repositories or redirect git's settings inside the project.]\n",
        undone.join(", ")
    )
}

pub fn render_outcome(outcome: &CommandOutcome) -> String {
    match outcome {
        CommandOutcome::Finished {
            exit_code,
            timed_out,
            duration_ms,
            output_path,
            output,
            sandbox_denial,
            bytes_total,
            bytes_kept,
            limit_hit,
            changes,
            ..
        } => {
            let status = match (timed_out, exit_code) {
                (true, _) => "killed at its timeout".to_string(),
                (false, Some(c)) => format!("exit code {c}"),
                (false, None) => "ended by a signal".to_string(),
            };
            let body = if output.is_empty() {
                "(no output)\n".to_string()
            } else {
                output.clone()
            };
            let mut text = format!(
                "{body}[{status}; {:.1} s; full output: {}]\n",
                *duration_ms as f64 / 1000.0,
                output_path.display()
            );
            if bytes_total > bytes_kept {
                text.push_str(&format!(
                    "[The command printed {}; the saved output keeps its start and its end, and {} in the middle were cut. To see the middle, run it again with its output filtered (grep, head, tail) or redirected to a file.]\n",
                    size_words(*bytes_total),
                    size_words(bytes_total - bytes_kept)
                ));
            }
            if *exit_code == Some(127)
                && let Some(program) = missing_program(output)
            {
                text.push_str(&not_installed_hint(program));
            }
            if let Some(changes) = changes {
                text.push_str(&crate::changes_words(changes));
            }
            if let Some(hit) = limit_hit {
                text.push_str(&match hit {
                    LimitHit::Processes { limit } => format!(
                        "[The command reached the sandbox's limit of {limit} processes at once, so it could not start more. Run fewer at a time (for example `make -j4`, `cargo test -- --test-threads=4`).]\n"
                    ),
                    LimitHit::Memory { bytes } => format!(
                        "[The command reached the sandbox's limit of {:.1} GB of memory per process. Work on less at once, or find what grows without end.]\n",
                        *bytes as f64 / 1e9
                    ),
                    LimitHit::Layer { bytes } => format!(
                        "[The command reached the limit of {} it may write, so it was stopped and none of its changes landed.]\n",
                        size_words(*bytes)
                    ),
                    LimitHit::Tmp { bytes } => format!("{}\n", tmp_full_note(*bytes)),
                    LimitHit::CommandMemory { bytes } => format!(
                        "[The command's processes together reached the sandbox's limit of {} of memory for one command, so the system ended one of them. Work on less at once (fewer parallel jobs, smaller inputs), or find what grows without end.]\n",
                        short_size(*bytes)
                    ),
                    LimitHit::CommandProcesses { limit } => format!(
                        "[The command reached the sandbox's limit of {limit} processes for one command, so it could not start more. Run fewer at a time (for example `make -j4`, `cargo test -- --test-threads=4`).]\n"
                    ),
                    LimitHit::FileSize { bytes } => format!(
                        "[A file the command wrote reached the sandbox's limit of {} for one file, so that write was stopped. Write less into one file (filter or compress the output), or split it.]\n",
                        if *bytes >= 1 << 30 {
                            format!("{:.1} GB", *bytes as f64 / f64::from(1u32 << 30))
                        } else {
                            format!("{:.1} MB", *bytes as f64 / f64::from(1u32 << 20))
                        }
                    ),
                });
            }
            if let Some(d) = sandbox_denial {
                text.push_str(&format!(
                    "[This looks like the sandbox refusing it ({}): `{}`. Commands here can change only the project folder and the temporary folder, cannot read secrets, and have no network unless it was granted.]\n",
                    match d.kind {
                        protocol::DenialKind::Files => "a file outside what it may touch",
                        protocol::DenialKind::Network => "no network",
                    },
                    d.evidence
                ));
            }
            text
        }
        CommandOutcome::Background {
            task_id,
            output_path,
            reason,
            so_far,
            ..
        } => format!(
            "{}The command is now background task {task_id} ({reason}). Its result arrives by itself when it ends; task_poll shows what it prints meanwhile, task_stop stops it. Output goes to {}.\n",
            if so_far.is_empty() {
                String::new()
            } else {
                format!("Its output so far:\n{so_far}")
            },
            output_path.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_is_read_from_a_failed_commands_words() {
        let limits = sandbox::Limits {
            processes: 400,
            memory_bytes: 1 << 30,
            layer_bytes: 1 << 30,
            file_bytes: 8 << 30,
            tmp_bytes: 10 << 30,
        };
        for (output, hit) in [
            (
                "/bin/bash: fork: Resource temporarily unavailable\n",
                Some(LimitHit::Processes { limit: 400 }),
            ),
            (
                "bash: fork: retry: Resource temporarily unavailable\n",
                Some(LimitHit::Processes { limit: 400 }),
            ),
            (
                "thread 'main' panicked: failed to spawn thread: Os { code: 11, kind: WouldBlock }\n",
                Some(LimitHit::Processes { limit: 400 }),
            ),
            (
                "Traceback (most recent call last):\nMemoryError\n",
                Some(LimitHit::Memory { bytes: 1 << 30 }),
            ),
            (
                "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n",
                Some(LimitHit::Memory { bytes: 1 << 30 }),
            ),
            (
                "sh: 1: head: File size limit exceeded (core dumped)\n",
                Some(LimitHit::FileSize { bytes: 8 << 30 }),
            ),
            (
                "tandem-sandbox: the command was stopped: a file it wrote reached the sandbox's limit on the size of one file\n",
                Some(LimitHit::FileSize { bytes: 8 << 30 }),
            ),
            ("assertion failed: 1 == 2\n", None),
            ("cannot open file x\n", None),
        ] {
            assert_eq!(limit_hit(output, &limits), hit, "{output}");
        }
    }

    #[test]
    fn the_missing_program_is_read_from_the_shells_message() {
        assert_eq!(
            missing_program("/bin/bash: line 1: pytest: command not found\n"),
            Some("pytest")
        );
        assert_eq!(missing_program("sh: 1: rg: command not found"), Some("rg"));
        assert_eq!(missing_program("all fine\n"), None);
        assert!(not_installed_hint("pytest").contains("python3 -m unittest"));
    }
}
