//! `run_command`: a shell command in the project root, in its own process group. Output is
//! saved whole to a file and shown to the model as head + tail; a timeout or a stop ends the
//! whole process tree (SIGTERM, then SIGKILL). A command still running after the grace window,
//! or started with `background: true`, becomes a background task.

use crate::error::{ToolError, ToolResult};
use crate::tasks::{TaskRegistry, TaskState};
use crate::workspace::Workspace;
use process_wrap::tokio::{CommandWrap, ProcessGroup};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWriteExt as _};
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

/// How commands run; the defaults are the spec's.
#[derive(Debug, Clone)]
pub struct CommandConfig {
    pub shell: PathBuf,
    /// A command still running after this becomes a background task.
    pub grace: Duration,
    pub default_timeout: Duration,
    /// Between SIGTERM and SIGKILL.
    pub kill_grace: Duration,
    /// Lines kept from the start and from the end of the output for the model.
    pub head_lines: usize,
    pub tail_lines: usize,
    /// Where full outputs are saved (the session folder).
    pub output_dir: PathBuf,
    /// Environment variables that hold secrets the app knows, removed from every command's
    /// environment (besides every `*_API_KEY`).
    pub secret_vars: Vec<String>,
}

impl CommandConfig {
    pub fn new(output_dir: PathBuf) -> Self {
        CommandConfig {
            shell: ["/bin/bash", "/usr/bin/bash", "/bin/sh"]
                .iter()
                .map(PathBuf::from)
                .find(|p| p.exists())
                .unwrap_or_else(|| PathBuf::from("sh")),
            grace: Duration::from_secs(10),
            default_timeout: Duration::from_secs(120),
            kill_grace: Duration::from_secs(5),
            head_lines: 100,
            tail_lines: 100,
            output_dir,
            secret_vars: vec![
                "ANTHROPIC_API_KEY".into(),
                "OPENAI_API_KEY".into(),
                "OPENROUTER_API_KEY".into(),
                "BRAVE_API_KEY".into(),
                "TAVILY_API_KEY".into(),
            ],
        }
    }

    fn is_secret(&self, name: &str) -> bool {
        self.secret_vars.iter().any(|s| s == name) || name.ends_with("_API_KEY")
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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
        total_lines: usize,
    },
    Background {
        task_id: String,
        output_path: PathBuf,
        reason: String,
    },
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

/// Head and tail lines with a marker for what was cut.
pub fn head_tail(text: &str, head: usize, tail: usize, path: &Path) -> (String, usize) {
    let lines: Vec<&str> = text.lines().collect();
    let total = lines.len();
    if total <= head + tail {
        return (text.to_string(), total);
    }
    let mut out = String::new();
    for l in &lines[..head] {
        let _ = writeln!(out, "{l}");
    }
    let _ = writeln!(
        out,
        "… [{} lines cut; the full output is in {}] …",
        total - head - tail,
        path.display()
    );
    for l in &lines[total - tail..] {
        let _ = writeln!(out, "{l}");
    }
    (out, total)
}

/// Runs a command. Returns when it finishes within the grace window, or as soon as it becomes
/// a background task.
pub async fn run_command(
    ws: &Workspace,
    tasks: &TaskRegistry,
    config: &CommandConfig,
    args: &RunCommandArgs,
) -> ToolResult<CommandOutcome> {
    if args.command.trim().is_empty() {
        return Err(ToolError::InvalidArgument("the command is empty".into()));
    }
    let timeout = match args.timeout {
        Some(0) => {
            return Err(ToolError::InvalidArgument(
                "timeout must be at least 1 second".into(),
            ));
        }
        Some(s) => Some(Duration::from_secs(s)),
        None if args.background => None,
        None => Some(config.default_timeout),
    };
    std::fs::create_dir_all(&config.output_dir)
        .map_err(|e| ToolError::io(&config.output_dir, e))?;

    let mut cmd = tokio::process::Command::new(&config.shell);
    cmd.arg("-c")
        .arg(&args.command)
        .current_dir(ws.root().path())
        .env_clear()
        .envs(std::env::vars_os().filter(|(k, _)| !config.is_secret(&k.to_string_lossy())))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut wrapped = CommandWrap::from(cmd);
    wrapped.wrap(ProcessGroup::leader());
    let mut child = wrapped
        .spawn()
        .map_err(|e| ToolError::io(&config.shell, e))?;

    let (stop_tx, mut stop_rx) = oneshot::channel();
    let title = args
        .description
        .clone()
        .unwrap_or_else(|| args.command.clone());
    // The id names the output file, so it is taken before the file exists.
    let placeholder = config.output_dir.join("pending.log");
    let id = tasks.register("command", &title, placeholder, stop_tx);
    let output_path = config.output_dir.join(format!("{id}.log"));
    tasks.set_output_path(&id, output_path.clone());
    let mut file = tokio::fs::File::create(&output_path)
        .await
        .map_err(|e| ToolError::io(&output_path, e))?;

    let (tx, mut rx) = mpsc::channel::<Vec<u8>>(64);
    let mut pumps = Vec::new();
    if let Some(out) = child.stdout().take() {
        pumps.push(pump(out, tx.clone()));
    }
    if let Some(err) = child.stderr().take() {
        pumps.push(pump(err, tx.clone()));
    }
    drop(tx);

    let started = Instant::now();
    let (done_tx, done_rx) = oneshot::channel::<(TaskState, u64)>();
    let registry = tasks.clone();
    let task_id = id.clone();
    let kill_grace = config.kill_grace;
    tokio::spawn(async move {
        let deadline = timeout.map(|t| tokio::time::Instant::now() + t);
        let mut stopped = false;
        let mut timed_out = false;
        let mut output_open = true;
        let status = loop {
            let timer = async {
                match deadline {
                    Some(d) => tokio::time::sleep_until(d).await,
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                chunk = rx.recv(), if output_open => match chunk {
                    Some(bytes) => { let _ = file.write_all(&bytes).await; }
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
            }
        };
        // The group is gone; drain what is left in the pipes (bounded: the writers are dead).
        while let Ok(Some(bytes)) =
            tokio::time::timeout(Duration::from_millis(500), rx.recv()).await
        {
            let _ = file.write_all(&bytes).await;
        }
        let _ = file.flush().await;
        for p in pumps {
            p.abort();
        }
        let state = if timed_out {
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
        let _ = done_tx.send((state.clone(), ms));
        registry.finish(&task_id, state);
    });

    let background = |reason: &str| CommandOutcome::Background {
        task_id: id.clone(),
        output_path: output_path.clone(),
        reason: reason.to_string(),
    };
    if args.background {
        return Ok(background("started in the background as asked"));
    }
    match tokio::time::timeout(config.grace, done_rx).await {
        Ok(Ok((state, duration_ms))) => {
            tasks.mark_reported(&id);
            let text = std::fs::read(&output_path)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            let (output, total_lines) =
                head_tail(&text, config.head_lines, config.tail_lines, &output_path);
            let (exit_code, timed_out) = match state {
                TaskState::Exited { code } => (code, false),
                TaskState::TimedOut => (None, true),
                _ => (None, false),
            };
            Ok(CommandOutcome::Finished {
                task_id: id,
                exit_code,
                timed_out,
                duration_ms,
                output_path,
                output,
                total_lines,
            })
        }
        Ok(Err(_)) => Err(ToolError::InvalidArgument(
            "the command's supervisor ended unexpectedly".into(),
        )),
        Err(_) => Ok(background(&format!(
            "still running after {} s, so it continues in the background",
            config.grace.as_secs_f32()
        ))),
    }
}

pub fn render_outcome(outcome: &CommandOutcome) -> String {
    match outcome {
        CommandOutcome::Finished {
            exit_code,
            timed_out,
            duration_ms,
            output_path,
            output,
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
            format!(
                "{body}[{status}; {:.1} s; full output: {}]\n",
                *duration_ms as f64 / 1000.0,
                output_path.display()
            )
        }
        CommandOutcome::Background {
            task_id,
            output_path,
            reason,
        } => format!(
            "The command is now background task {task_id} ({reason}). Check it with task_poll, stop it with task_stop. Output goes to {}.\n",
            output_path.display()
        ),
    }
}
