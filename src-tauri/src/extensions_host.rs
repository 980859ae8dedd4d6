//! Skills and MCP servers in the app: one set of MCP servers per open project, shared by its
//! sessions and shown in Settings (started when a session or Settings first needs them, a
//! project's own only once approved), and the commands of Settings' Skills and Tool servers
//! tabs.

use crate::commands::{CmdResult, blocking, invalid, opened_root};
use crate::state::AppState;
use config::locations;
use protocol::{
    AddMcpServerArgs, AddSkillArgs, McpServerArgs, McpView, NewMcpServerInput, ProjectArgs,
    RemoveSkillArgs, SetSkillEnabledArgs, SkillsView,
};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use tauri::Manager as _;
use tools::ProjectRoot;

/// The MCP servers of each project the window has used.
#[derive(Default)]
pub struct McpHubs {
    hubs: Mutex<HashMap<PathBuf, Arc<mcp::Hub>>>,
}

impl McpHubs {
    /// The project's servers, started (again, when their configuration changed on disk).
    /// Call it inside the async runtime.
    pub fn for_project(&self, root: &ProjectRoot) -> Arc<mcp::Hub> {
        let mut hubs = self.hubs.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(hub) = hubs.get(root.path()).filter(|h| !h.is_stale()) {
            return hub.clone();
        }
        let hub = config::mcp_hub(
            root,
            &locations::config_dir(),
            config::machine_sandbox(root.path()),
            mcp::Timing::default(),
        );
        hub.start();
        // A replaced hub's servers stop when the last session using it ends.
        hubs.insert(root.path().to_path_buf(), hub.clone());
        hub
    }

    /// Stops every server (the app is closing).
    pub fn stop_everything(&self) {
        for hub in self
            .hubs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
        {
            hub.stop_all();
        }
    }
}

/// What a new session of the project uses beyond the catalog.
pub fn session_extensions(app: &tauri::AppHandle, root: &ProjectRoot) -> config::Extensions {
    let settings = config::read_settings(&locations::settings_file()).unwrap_or_default();
    config::Extensions {
        skills: Arc::new(config::session_skills(
            root,
            &locations::config_dir(),
            &settings,
        )),
        mcp: Some(app.state::<McpHubs>().for_project(root)),
    }
}

fn skills_of(root: &ProjectRoot) -> CmdResult<SkillsView> {
    let settings = config::read_settings(&locations::settings_file())
        .map_err(|e| invalid(format!("The settings cannot be read: {e}")))?;
    Ok(config::skills_view(
        root,
        &locations::config_dir(),
        &settings,
    ))
}

#[tauri::command]
pub async fn skills_view(args: ProjectArgs, app: tauri::AppHandle) -> CmdResult<SkillsView> {
    blocking(move || {
        let root = opened_root(&app.state::<AppState>(), &args.root)?;
        skills_of(&root)
    })
    .await
}

/// Turns a skill on or off for every project (kept in settings.toml); sessions started from
/// now on follow it.
#[tauri::command]
pub async fn set_skill_enabled(
    args: SetSkillEnabledArgs,
    app: tauri::AppHandle,
) -> CmdResult<SkillsView> {
    blocking(move || {
        let root = opened_root(&app.state::<AppState>(), &args.root)?;
        config::set_skill_enabled(&locations::settings_file(), &args.name, args.enabled)
            .map_err(|e| invalid(format!("Not saved: {e}")))?;
        skills_of(&root)
    })
    .await
}

#[tauri::command]
pub async fn mcp_view(args: ProjectArgs, app: tauri::AppHandle) -> CmdResult<McpView> {
    blocking(move || {
        let root = opened_root(&app.state::<AppState>(), &args.root)?;
        Ok(app.state::<McpHubs>().for_project(&root).view())
    })
    .await
}

/// The user approves a server of the project's `.tandem/mcp.json` for this project: kept in
/// their config folder, and the server starts.
#[tauri::command]
pub async fn approve_mcp_server(args: McpServerArgs, app: tauri::AppHandle) -> CmdResult<McpView> {
    blocking(move || {
        let root = opened_root(&app.state::<AppState>(), &args.root)?;
        let hub = app.state::<McpHubs>().for_project(&root);
        hub.approve(&args.name)
            .map_err(|e| invalid(format!("Not approved: {e}")))?;
        tracing::info!(server = %args.name, project = %root.path().display(), "MCP server approved");
        Ok(hub.view())
    })
    .await
}

/// Starts a server again after it was given up on.
#[tauri::command]
pub async fn restart_mcp_server(args: McpServerArgs, app: tauri::AppHandle) -> CmdResult<McpView> {
    blocking(move || {
        let root = opened_root(&app.state::<AppState>(), &args.root)?;
        let hub = app.state::<McpHubs>().for_project(&root);
        hub.restart(&args.name)
            .map_err(|e| invalid(e.to_string()))?;
        Ok(hub.view())
    })
    .await
}

/// Copies a skill folder the user picked into their own skills (sessions opened afterwards
/// find it; what its tools run is judged and asked about as for any skill).
#[tauri::command]
pub async fn add_skill(args: AddSkillArgs, app: tauri::AppHandle) -> CmdResult<SkillsView> {
    blocking(move || {
        let root = opened_root(&app.state::<AppState>(), &args.root)?;
        let name = config::add_user_skill(&locations::config_dir(), &PathBuf::from(&args.folder))
            .map_err(|e| invalid(e.to_string()))?;
        tracing::info!(skill = %name, from = %args.folder, "skill added");
        skills_of(&root)
    })
    .await
}

/// Removes one of the user's own skills.
#[tauri::command]
pub async fn remove_skill(args: RemoveSkillArgs, app: tauri::AppHandle) -> CmdResult<SkillsView> {
    blocking(move || {
        let root = opened_root(&app.state::<AppState>(), &args.root)?;
        config::remove_user_skill(&locations::config_dir(), &args.name)
            .map_err(|e| invalid(e.to_string()))?;
        tracing::info!(skill = %args.name, "skill removed");
        skills_of(&root)
    })
    .await
}

/// Adds a server to the user's own mcp.json; the project's servers are started again with it.
#[tauri::command]
pub async fn add_mcp_server(args: AddMcpServerArgs, app: tauri::AppHandle) -> CmdResult<McpView> {
    blocking(move || {
        let root = opened_root(&app.state::<AppState>(), &args.root)?;
        let server = match &args.server {
            NewMcpServerInput::Program {
                command_line,
                network,
            } => mcp::NewServer::program_from_line(command_line, *network)
                .map_err(|e| invalid(e.to_string()))?,
            NewMcpServerInput::Address { url } => mcp::NewServer::Address { url: url.clone() },
        };
        config::add_user_mcp_server(&locations::config_dir(), args.name.trim(), &server)
            .map_err(|e| invalid(e.to_string()))?;
        tracing::info!(server = %args.name, "MCP server added");
        Ok(app.state::<McpHubs>().for_project(&root).view())
    })
    .await
}

/// Removes a server from the user's own mcp.json.
#[tauri::command]
pub async fn remove_mcp_server(args: McpServerArgs, app: tauri::AppHandle) -> CmdResult<McpView> {
    blocking(move || {
        let root = opened_root(&app.state::<AppState>(), &args.root)?;
        config::remove_user_mcp_server(&locations::config_dir(), &args.name)
            .map_err(|e| invalid(e.to_string()))?;
        tracing::info!(server = %args.name, "MCP server removed");
        Ok(app.state::<McpHubs>().for_project(&root).view())
    })
    .await
}
