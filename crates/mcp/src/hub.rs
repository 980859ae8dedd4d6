//! A project's MCP servers: configured by the user and the project, started when allowed (a
//! project's only after the user approved it for this project), their tools offered as
//! `server__tool`, called, and shown with their state — for the sessions of one project.

use crate::approvals::{Approval, Approvals};
use crate::config::{Config, Server};
use crate::error::McpError;
use crate::result::{CallOutcome, render};
use crate::server::{Ctx, Launcher, Slot, Timing, ToolEntry};
use protocol::{McpProblem, McpState, McpView};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// What a hub is made of.
pub struct HubSetup {
    /// The project folder (canonical).
    pub project: PathBuf,
    /// The user's `mcp.json`.
    pub user_file: PathBuf,
    pub approvals: Approvals,
    pub launcher: Arc<dyn Launcher>,
    pub timing: Timing,
}

pub struct Hub {
    project: PathBuf,
    user_file: PathBuf,
    approvals: Approvals,
    ctx: Arc<Ctx>,
    slots: RwLock<Vec<Arc<Slot>>>,
    problems: Mutex<Vec<McpProblem>>,
    started: AtomicBool,
}

fn read<T>(l: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    l.read().unwrap_or_else(PoisonError::into_inner)
}

impl Hub {
    /// Reads the configuration; starts nothing yet (see [`Hub::start`]).
    pub fn new(setup: HubSetup) -> Arc<Hub> {
        let hub = Hub {
            project: setup.project,
            user_file: setup.user_file,
            approvals: setup.approvals,
            ctx: Arc::new(Ctx {
                launcher: setup.launcher,
                timing: setup.timing,
            }),
            slots: RwLock::new(Vec::new()),
            problems: Mutex::new(Vec::new()),
            started: AtomicBool::new(false),
        };
        hub.load();
        Arc::new(hub)
    }

    fn load(&self) {
        let config = Config::load(&self.user_file, &self.project);
        let slots = config
            .servers
            .into_iter()
            .map(|s| {
                let (state, message) = self.initial_state(&s);
                Arc::new(Slot::new(s, state, message))
            })
            .collect();
        *self.slots.write().unwrap_or_else(PoisonError::into_inner) = slots;
        *self.problems.lock().unwrap_or_else(PoisonError::into_inner) = config.problems;
    }

    fn initial_state(&self, s: &Server) -> (McpState, Option<String>) {
        if s.disabled {
            return (McpState::Disabled, None);
        }
        match self.approvals.check(&self.project, s) {
            Approval::Approved => (McpState::Starting, None),
            Approval::Never => (
                McpState::NeedsApproval,
                Some("it comes from this project's .tandem/mcp.json; it starts once you approve it".into()),
            ),
            Approval::Changed => (
                McpState::NeedsApproval,
                Some("its configuration in this project changed since you approved it; approve it again to start it".into()),
            ),
        }
    }

    pub fn project(&self) -> &Path {
        &self.project
    }

    /// Starts every server that may start (once; later calls do nothing).
    pub fn start(&self) {
        if self.started.swap(true, Ordering::SeqCst) {
            return;
        }
        for slot in read(&self.slots).iter() {
            if slot.state() == McpState::Starting {
                slot.launch(&self.ctx);
            }
        }
    }

    /// Waits until no server is starting, or `limit` passes.
    pub async fn settle(&self, limit: Duration) {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let slots: Vec<Arc<Slot>> = read(&self.slots).clone();
            let starting = slots.iter().find(|s| s.state() == McpState::Starting);
            let Some(slot) = starting else { return };
            let changed = slot.changed.notified();
            if slot.state() != McpState::Starting {
                continue;
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                return;
            }
        }
    }

    /// Whether any server is starting.
    pub fn starting(&self) -> bool {
        read(&self.slots)
            .iter()
            .any(|s| s.state() == McpState::Starting)
    }

    /// The tools of the running servers.
    pub fn tools(&self) -> Vec<ToolEntry> {
        read(&self.slots).iter().flat_map(|s| s.tools()).collect()
    }

    fn slot_for_tool(&self, exposed: &str) -> Option<(Arc<Slot>, String)> {
        read(&self.slots)
            .iter()
            .find_map(|s| s.knows(exposed).map(|tool| (s.clone(), tool)))
    }

    /// Whether a tool of this name is offered by a server that runs, or is starting again
    /// after a failure (a call then waits for it).
    pub fn knows(&self, exposed: &str) -> bool {
        self.slot_for_tool(exposed).is_some()
    }

    /// Calls a tool by the name the model knows it by. A server that crashes or hangs is
    /// started again (at most three times) and the caller gets the error.
    pub async fn call(
        &self,
        exposed: &str,
        args: &Value,
        cancel: &CancellationToken,
    ) -> Result<CallOutcome, McpError> {
        let (slot, tool) = self
            .slot_for_tool(exposed)
            .ok_or_else(|| McpError::UnknownTool(exposed.to_string()))?;
        let args = match args {
            Value::Object(m) => m.clone(),
            Value::Null => serde_json::Map::new(),
            _ => {
                return Err(McpError::Refused {
                    server: slot.server.name.clone(),
                    message: "the arguments must be a JSON object".into(),
                });
            }
        };
        // A server starting again after a crash is waited for, as long as a start may take.
        tokio::select! {
            () = slot.until_started(self.ctx.timing.start) => {}
            () = cancel.cancelled() => return Err(McpError::Cancelled),
        }
        let ctx = self.ctx.clone();
        let resume = slot.clone();
        let result = slot
            .call(&tool, args, self.ctx.timing, cancel, move || {
                resume.resume(&ctx)
            })
            .await?;
        Ok(CallOutcome {
            server: slot.server.name.clone(),
            tool,
            text: render(&result),
            is_error: result.is_error == Some(true),
        })
    }

    /// Every server with its state, tools and last stderr lines, and what could not be read.
    pub fn view(&self) -> McpView {
        McpView {
            servers: read(&self.slots).iter().map(|s| s.view()).collect(),
            problems: self
                .problems
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone(),
            user_file: self.user_file.display().to_string(),
            project_file: self
                .project
                .join(crate::config::PROJECT_FILE)
                .display()
                .to_string(),
        }
    }

    fn slot(&self, name: &str) -> Result<Arc<Slot>, McpError> {
        read(&self.slots)
            .iter()
            .find(|s| s.server.name == name)
            .cloned()
            .ok_or_else(|| McpError::NoSuchServer(name.to_string()))
    }

    /// The user approves a project's server for this project: the approval is kept in their
    /// config folder, and the server starts.
    pub fn approve(&self, name: &str) -> Result<(), McpError> {
        let slot = self.slot(name)?;
        self.approvals.approve(&self.project, &slot.server)?;
        if !slot.server.disabled {
            self.started.store(true, Ordering::SeqCst);
            slot.launch(&self.ctx);
        }
        Ok(())
    }

    /// Starts a server again from a count of zero restarts (after it was given up on). A
    /// server waiting for approval or turned off stays as it is.
    pub fn restart(&self, name: &str) -> Result<(), McpError> {
        let slot = self.slot(name)?;
        if slot.server.disabled
            || self.approvals.check(&self.project, &slot.server) != Approval::Approved
        {
            return Ok(());
        }
        slot.launch(&self.ctx);
        Ok(())
    }

    /// Whether the configuration on disk differs from what this hub runs (a file was edited).
    pub fn is_stale(&self) -> bool {
        let now = Config::load(&self.user_file, &self.project);
        let slots = read(&self.slots);
        now.servers.len() != slots.len()
            || now
                .servers
                .iter()
                .zip(slots.iter())
                .any(|(a, b)| *a != b.server)
    }

    /// Stops every server (the hub is being replaced, or the app closes).
    pub fn stop_all(&self) {
        for slot in read(&self.slots).iter() {
            slot.stop(slot.state(), None);
        }
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        self.stop_all();
    }
}
