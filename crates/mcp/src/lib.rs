//! MCP servers: tools from programs and addresses outside Tandem's catalog, spoken to over
//! the Model Context Protocol with the official SDK (`rmcp`).
//!
//! Owns their configuration (the user's `mcp.json` and the project's `.tandem/mcp.json`), the
//! user's approvals of a project's servers (kept in the user's config folder: opening a
//! repository must not run its programs), and each server's life: started, its tools listed
//! as `server__tool`, called with a time limit, and started again when it fails, crashes or
//! hangs — at most three times — with its last stderr lines kept to show.
//!
//! Must not decide whether a call may run (that is the policy engine, through the agent),
//! confine processes (the caller's [`Launcher`] puts each program in the sandbox) or fence
//! results for the model (the agent does); no Tauri.

mod approvals;
mod capped_stdio;
mod config;
mod config_edit;
mod error;
mod hub;
mod names;
mod result;
mod server;

pub use approvals::{APPROVALS_FILE, Approval, Approvals};
pub use config::{Config, PROJECT_FILE, Server, Transport, USER_FILE};
pub use config_edit::{ConfigEditError, NewServer, with_server_added, with_server_removed};
pub use error::McpError;
pub use hub::{Hub, HubSetup};
pub use names::exposed_name;
pub use result::CallOutcome;
pub use server::{Launch, Launcher, MAX_RESTARTS, Timing, ToolEntry};
