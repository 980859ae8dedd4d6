//! One server's life: started (in the caller's sandbox for a program), its tools listed, its
//! last stderr lines kept, and when it fails to start, crashes or hangs, started again — at
//! most [`MAX_RESTARTS`] times; then it is left failed and the session goes on without it.

use crate::config::{Server, Transport};
use crate::error::McpError;
use crate::names::exposed_name;
use protocol::McpState;
use rmcp::ServiceExt as _;
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig, Implementation};
use rmcp::service::{Peer, RoleClient, RunningService};
use serde_json::Value;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio::io::AsyncReadExt as _;
use tokio_util::sync::CancellationToken;

/// Times a server is started again after failing, before it is given up on.
pub const MAX_RESTARTS: u32 = 3;
/// Lines of its standard error kept (each cut to a length).
const STDERR_LINES: usize = 20;
const STDERR_LINE_CHARS: usize = 400;

/// How long things may take.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// Starting and listing its tools.
    pub start: Duration,
    /// One call, unless the server's own `timeout` says otherwise.
    pub call: Duration,
    /// The pause before a restart (times the restarts so far).
    pub backoff: Duration,
}

impl Default for Timing {
    fn default() -> Self {
        Timing {
            start: Duration::from_secs(60),
            call: Duration::from_secs(120),
            backoff: Duration::from_millis(500),
        }
    }
}

/// A program's process, as the caller confines it.
pub struct Launch {
    /// The program (wrapped in the sandbox, with its environment and working folder).
    pub command: std::process::Command,
    /// Where the sandbox reports a failure to set itself up, read when the process ends.
    pub status: Option<PathBuf>,
}

/// Makes the processes of stdio servers: the caller owns the sandbox and the environment.
pub trait Launcher: Send + Sync {
    fn launch(&self, server: &Server) -> Result<Launch, String>;
    /// Why the sandbox could not start the program, from its status file, if it says so.
    fn setup_error(&self, status: &std::path::Path) -> Option<String>;
}

/// A tool of a running server.
#[derive(Debug, Clone)]
pub struct ToolEntry {
    /// The name the model calls it by: `server__tool`.
    pub exposed: String,
    /// The server's own name for it.
    pub tool: String,
    pub description: String,
    pub schema: Value,
}

struct Connection {
    peer: Peer<RoleClient>,
    stop: CancellationToken,
}

struct Inner {
    state: McpState,
    message: Option<String>,
    restarts: u32,
    tools: Vec<ToolEntry>,
    conn: Option<Connection>,
    /// Each start gets the next number; what belongs to an older one is ignored.
    generation: u64,
}

pub(crate) struct Slot {
    pub server: Server,
    inner: Mutex<Inner>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    pub(crate) changed: tokio::sync::Notify,
}

/// What the hub lends a slot to start its server.
pub(crate) struct Ctx {
    pub launcher: Arc<dyn Launcher>,
    pub timing: Timing,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Slot {
    pub fn new(server: Server, state: McpState, message: Option<String>) -> Slot {
        Slot {
            server,
            inner: Mutex::new(Inner {
                state,
                message,
                restarts: 0,
                tools: Vec::new(),
                conn: None,
                generation: 0,
            }),
            stderr: Arc::default(),
            changed: tokio::sync::Notify::new(),
        }
    }

    pub fn state(&self) -> McpState {
        lock(&self.inner).state
    }

    /// Whether the server offers (or offered, and is starting again) a tool of this name.
    pub fn knows(&self, exposed: &str) -> Option<String> {
        let i = lock(&self.inner);
        if !matches!(i.state, McpState::Running | McpState::Starting) {
            return None;
        }
        i.tools
            .iter()
            .find(|t| t.exposed == exposed)
            .map(|t| t.tool.clone())
    }

    /// Waits while it starts, at most `limit`.
    pub async fn until_started(&self, limit: Duration) {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let changed = self.changed.notified();
            if self.state() != McpState::Starting {
                return;
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                return;
            }
        }
    }

    pub fn tools(&self) -> Vec<ToolEntry> {
        let i = lock(&self.inner);
        if i.state == McpState::Running {
            i.tools.clone()
        } else {
            Vec::new()
        }
    }

    pub fn view(&self) -> protocol::McpServerView {
        let i = lock(&self.inner);
        let (local, network) = match &self.server.transport {
            Transport::Stdio { network, .. } => (true, *network),
            Transport::Http { .. } => (false, false),
        };
        protocol::McpServerView {
            name: self.server.name.clone(),
            origin: self.server.origin,
            target: self.server.target(),
            local,
            network,
            state: i.state,
            message: i.message.clone(),
            restarts: i.restarts,
            tools: i
                .tools
                .iter()
                .filter(|_| i.state == McpState::Running)
                .map(|t| protocol::McpToolView {
                    name: t.exposed.clone(),
                    tool: t.tool.clone(),
                    description: t.description.clone(),
                })
                .collect(),
            stderr: self.stderr_tail(),
        }
    }

    fn stderr_tail(&self) -> Vec<String> {
        lock(&self.stderr).iter().cloned().collect()
    }

    fn set(&self, f: impl FnOnce(&mut Inner)) {
        f(&mut lock(&self.inner));
        self.changed.notify_waiters();
    }

    /// Stops the server (its connection and process) and forgets its tools.
    pub fn stop(&self, state: McpState, message: Option<String>) {
        self.set(|i| {
            i.generation += 1;
            if let Some(c) = i.conn.take() {
                c.stop.cancel();
            }
            i.tools.clear();
            i.state = state;
            i.message = message;
        });
    }

    /// Starts the server in the background (again, from a count of zero restarts).
    pub fn launch(self: &Arc<Self>, ctx: &Arc<Ctx>) {
        self.stop(McpState::Starting, None);
        self.set(|i| i.restarts = 0);
        let (slot, ctx) = (self.clone(), ctx.clone());
        tokio::spawn(async move { slot.attempt(ctx).await });
    }

    /// Starts it, and while that fails and it may be started again, again.
    async fn attempt(self: Arc<Self>, ctx: Arc<Ctx>) {
        loop {
            let mut generation = 0;
            self.set(|i| {
                i.generation += 1;
                generation = i.generation;
                i.state = McpState::Starting;
                i.conn = None;
            });
            let why = match self.connect(&ctx).await {
                Ok((service, tools)) => {
                    let peer = service.peer().clone();
                    let stop = CancellationToken::new();
                    let mut current = false;
                    self.set(|i| {
                        if i.generation == generation {
                            current = true;
                            i.state = McpState::Running;
                            i.message = None;
                            i.tools = tools;
                            i.conn = Some(Connection {
                                peer,
                                stop: stop.clone(),
                            });
                        }
                    });
                    if !current {
                        // Stopped or restarted while it was starting.
                        let _ = service.cancel().await;
                        return;
                    }
                    let ended = tokio::select! {
                        r = service.waiting() => Some(r),
                        () = stop.cancelled() => None,
                    };
                    if ended.is_none() {
                        return;
                    }
                    match self.lost(generation, "it stopped unexpectedly") {
                        Some(true) => {}
                        // Given up on, or already handled by a call that saw it go.
                        Some(false) | None => return,
                    }
                    tokio::time::sleep(ctx.timing.backoff).await;
                    continue;
                }
                Err(why) => why,
            };
            if lock(&self.inner).generation != generation {
                return;
            }
            if !self.count_restart(&why) {
                return;
            }
            let n = lock(&self.inner).restarts;
            tokio::time::sleep(ctx.timing.backoff * n).await;
        }
    }

    /// Counts one more restart, or gives up: false when it may not be started again.
    fn count_restart(&self, why: &str) -> bool {
        let mut again = false;
        self.set(|i| {
            i.conn = None;
            // Its tools are kept while it restarts: a call waits for it rather than failing.
            if i.restarts >= MAX_RESTARTS {
                i.state = McpState::Failed;
                i.message = Some(format!(
                    "{why}. It was started again {MAX_RESTARTS} times and failed each time, so Tandem gave up on it; sessions go on without it"
                ));
            } else {
                i.restarts += 1;
                i.state = McpState::Starting;
                i.message = Some(format!("{why}; starting it again"));
                again = true;
            }
        });
        again
    }

    /// The server of `generation` went away. `None` when that was already handled (or it is
    /// an older start); otherwise whether it is being started again — by whoever got
    /// `Some(true)`.
    fn lost(&self, generation: u64, why: &str) -> Option<bool> {
        {
            let mut i = lock(&self.inner);
            if i.generation != generation || i.state != McpState::Running {
                return None;
            }
            if let Some(c) = i.conn.take() {
                c.stop.cancel();
            }
            // Nobody else handles this start any more.
            i.generation += 1;
        }
        Some(self.count_restart(why))
    }

    async fn connect(
        &self,
        ctx: &Ctx,
    ) -> Result<(RunningService<RoleClient, ClientConfig>, Vec<ToolEntry>), String> {
        let mut info = ClientConfig::default();
        info.client_info = Implementation::new("tandem", env!("CARGO_PKG_VERSION"));
        let (service, status) = match &self.server.transport {
            Transport::Stdio { .. } => {
                let launch = ctx.launcher.launch(&self.server)?;
                let mut wrapped = process_wrap::tokio::CommandWrap::from(
                    tokio::process::Command::from(launch.command),
                );
                // Its whole process tree ends with it, and with Tandem.
                wrapped
                    .wrap(process_wrap::tokio::ProcessGroup::leader())
                    .wrap(process_wrap::tokio::KillOnDrop);
                wrapped
                    .command_mut()
                    .stdin(std::process::Stdio::piped())
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped());
                let mut child = wrapped
                    .spawn()
                    .map_err(|e| format!("it could not be started: {e}"))?;
                if let Some(stderr) = child.stderr().take() {
                    self.read_stderr(stderr);
                }
                // Its answers capped, so one too large fails its call at once instead of
                // being dropped by the library while the call waits.
                let transport = crate::capped_stdio::CappedChild::new(child)
                    .map_err(|e| format!("it could not be started: {e}"))?;
                let served = tokio::time::timeout(ctx.timing.start, info.serve(transport)).await;
                (served, launch.status)
            }
            Transport::Http { url, headers } => {
                let mut config =
                    rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(
                        url.as_str(),
                    );
                for (k, v) in headers {
                    let name = reqwest::header::HeaderName::from_bytes(k.as_bytes())
                        .map_err(|e| format!("the header {k:?} is not valid: {e}"))?;
                    let value = reqwest::header::HeaderValue::from_str(v).map_err(|e| {
                        format!("the header {k:?} has a value that is not valid: {e}")
                    })?;
                    config.custom_headers.insert(name, value);
                }
                let transport = rmcp::transport::StreamableHttpClientTransport::from_config(config);
                let served = tokio::time::timeout(ctx.timing.start, info.serve(transport)).await;
                (served, None)
            }
        };
        let sandbox_error = || {
            status
                .as_deref()
                .and_then(|s| ctx.launcher.setup_error(s))
                .map(|e| format!("the sandbox could not start it: {e}"))
        };
        let service = match service {
            Ok(Ok(s)) => s,
            Ok(Err(e)) => {
                return Err(sandbox_error()
                    .unwrap_or_else(|| format!("it did not start as an MCP server ({e})")));
            }
            Err(_) => {
                return Err(format!(
                    "it did not answer within {} s of starting",
                    ctx.timing.start.as_secs()
                ));
            }
        };
        let listed = tokio::time::timeout(ctx.timing.start, service.list_all_tools()).await;
        let tools = match listed {
            Ok(Ok(t)) => t,
            Ok(Err(e)) => return Err(format!("it did not list its tools ({e})")),
            Err(_) => {
                return Err(format!(
                    "it did not list its tools within {} s",
                    ctx.timing.start.as_secs()
                ));
            }
        };
        let mut entries: Vec<ToolEntry> = Vec::new();
        for t in tools {
            let exposed = exposed_name(&self.server.name, &t.name);
            // Two names that read the same once cleaned up: the first is kept.
            if entries.iter().any(|e| e.exposed == exposed) {
                continue;
            }
            entries.push(ToolEntry {
                exposed,
                tool: t.name.to_string(),
                description: t
                    .description
                    .as_deref()
                    .or(t.title.as_deref())
                    .unwrap_or("")
                    .to_string(),
                schema: Value::Object((*t.input_schema).clone()),
            });
        }
        Ok((service, entries))
    }

    /// Keeps the last lines the server writes to its standard error, across its restarts
    /// (the last words before a crash are the ones worth showing).
    fn read_stderr(&self, stderr: tokio::process::ChildStderr) {
        let keep = self.stderr.clone();
        {
            let mut k = lock(&keep);
            if !k.is_empty() {
                if k.len() == STDERR_LINES {
                    k.pop_front();
                }
                k.push_back("— started again —".into());
            }
        }
        tokio::spawn(async move {
            // Read as bytes to the end: a byte that is not UTF-8 or a line that never ends
            // must neither stop the reading (the server would die on a closed pipe) nor grow
            // without bound. A line is kept up to its first STDERR_LINE_CHARS characters.
            let mut stderr = stderr;
            let mut chunk = vec![0u8; 8192];
            let mut line: Vec<u8> = Vec::new();
            let mut overlong = false;
            let keep_line = |line: &[u8], overlong: bool| {
                let text = String::from_utf8_lossy(line);
                let mut kept: String = text.chars().take(STDERR_LINE_CHARS).collect();
                if overlong {
                    kept.push('…');
                }
                let mut k = lock(&keep);
                if k.len() == STDERR_LINES {
                    k.pop_front();
                }
                k.push_back(kept);
            };
            loop {
                let n = match stderr.read(&mut chunk).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                for piece in chunk[..n].split_inclusive(|b| *b == b'\n') {
                    let (body, ends) = match piece.strip_suffix(b"\n") {
                        Some(body) => (body, true),
                        None => (piece, false),
                    };
                    // Four bytes a character at most: enough for the kept characters.
                    let room = (STDERR_LINE_CHARS * 4).saturating_sub(line.len());
                    line.extend_from_slice(&body[..body.len().min(room)]);
                    overlong |= body.len() > room;
                    if ends {
                        keep_line(&line, overlong);
                        line.clear();
                        overlong = false;
                    }
                }
            }
            if !line.is_empty() {
                keep_line(&line, overlong);
            }
        });
    }

    /// Calls one of its tools. A crash or a hang during the call stops the server and starts
    /// it again if it may still be; the caller gets an error either way.
    pub async fn call(
        &self,
        tool: &str,
        args: serde_json::Map<String, Value>,
        timing: Timing,
        cancel: &CancellationToken,
        restart: impl FnOnce(),
    ) -> Result<CallToolResult, McpError> {
        let (peer, generation) = {
            let i = lock(&self.inner);
            match (&i.state, &i.conn) {
                (McpState::Running, Some(c)) => (c.peer.clone(), i.generation),
                (state, _) => {
                    return Err(McpError::NotRunning {
                        server: self.server.name.clone(),
                        why: state_words(*state, i.message.as_deref()),
                    });
                }
            }
        };
        let limit = self
            .server
            .timeout
            .map(Duration::from_secs)
            .unwrap_or(timing.call);
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(args);
        let answered = tokio::select! {
            r = tokio::time::timeout(limit, peer.call_tool(params)) => r,
            () = cancel.cancelled() => return Err(McpError::Cancelled),
        };
        match answered {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(rmcp::ServiceError::McpError(e))) => Err(McpError::Refused {
                server: self.server.name.clone(),
                message: e.message.to_string(),
            }),
            Ok(Err(
                other
                @ (rmcp::ServiceError::TransportClosed | rmcp::ServiceError::TransportSend(_)),
            )) => {
                // The connection is gone: give the stderr reader a moment for its last words.
                tokio::time::sleep(Duration::from_millis(100)).await;
                let restarting = match self.lost(generation, "it stopped during a call") {
                    Some(again) => {
                        if again {
                            restart();
                        }
                        again
                    }
                    // Whoever saw it go first started it again, unless it was given up on.
                    None => self.state() != McpState::Failed,
                };
                tracing::warn!(server = %self.server.name, error = %other, "an MCP server went away during a call");
                Err(McpError::Crashed {
                    server: self.server.name.clone(),
                    restarting,
                    stderr: self.stderr_tail().into_iter().rev().take(5).rev().collect(),
                })
            }
            Ok(Err(other)) => Err(McpError::Refused {
                server: self.server.name.clone(),
                message: other.to_string(),
            }),
            Err(_) => {
                let why = format!("it did not answer a call within {} s", limit.as_secs());
                let restarting = match self.lost(generation, &why) {
                    Some(again) => {
                        if again {
                            restart();
                        }
                        again
                    }
                    // Whoever saw it go first started it again, unless it was given up on.
                    None => self.state() != McpState::Failed,
                };
                Err(McpError::Hung {
                    server: self.server.name.clone(),
                    seconds: limit.as_secs(),
                    restarting,
                })
            }
        }
    }

    /// Starts it again after a call saw it go (the count was taken by [`Slot::lost`]).
    pub fn resume(self: &Arc<Self>, ctx: &Arc<Ctx>) {
        let (slot, ctx) = (self.clone(), ctx.clone());
        tokio::spawn(async move {
            tokio::time::sleep(ctx.timing.backoff).await;
            slot.attempt(ctx).await
        });
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Some(c) = lock(&self.inner).conn.take() {
            c.stop.cancel();
        }
    }
}

/// Why a server's tools cannot be used now, in words.
pub(crate) fn state_words(state: McpState, message: Option<&str>) -> String {
    let base = match state {
        McpState::NeedsApproval => "it is waiting for your approval in Settings",
        McpState::Disabled => "it is turned off in its configuration",
        McpState::Starting => "it is starting",
        McpState::Running => "it is running",
        McpState::Failed => "it failed",
    };
    match message {
        Some(m) => format!("{base}: {m}"),
        None => base.to_string(),
    }
}
