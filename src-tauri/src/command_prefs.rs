//! Settings → Rules, "Commands in Ask mode": whether a command is asked about before it runs,
//! or runs in the sandbox over a copy of the project and what it changed is asked about.
//! Kept in settings.toml's `[commands]`; open sessions follow it from their next call.

use config::locations;
use tauri::Manager as _;

/// Whether this computer can run commands over a copy of the project, as a session would
/// keep its layers (in the data folder).
fn copies() -> bool {
    let probe = locations::sessions_dir().join(".layers-probe");
    let works = config::machine_sandbox::layers_in(&probe);
    let _ = std::fs::remove_dir_all(&probe);
    works
}

fn prefs_of(commands: &config::CommandSettings) -> protocol::CommandPrefs {
    protocol::CommandPrefs {
        ask_first: commands.ask_first(),
        copies: copies(),
    }
}

#[tauri::command]
pub async fn get_command_prefs() -> crate::commands::CmdResult<protocol::CommandPrefs> {
    crate::commands::blocking(|| {
        let settings = config::read_settings(&locations::settings_file()).unwrap_or_default();
        Ok(prefs_of(&settings.commands))
    })
    .await
}

/// Keeps the choice in settings.toml's `[commands]`.
#[tauri::command]
pub async fn save_command_prefs(
    args: protocol::CommandPrefs,
    app: tauri::AppHandle,
) -> crate::commands::CmdResult<protocol::CommandPrefs> {
    let ask_first = args.ask_first;
    let saved = crate::commands::blocking(move || {
        let mut settings = config::read_settings(&locations::settings_file()).map_err(|e| {
            crate::commands::invalid(format!(
                "settings.toml cannot be read ({e}); fix it before changing how commands are asked about."
            ))
        })?;
        settings.commands = config::CommandSettings {
            ask_first: args.ask_first.then_some(true),
        };
        crate::settings_host::write_settings(&settings)?;
        Ok(prefs_of(&settings.commands))
    })
    .await?;
    // Kept first: the open sessions follow what is saved.
    for session in app.state::<crate::session_host::Sessions>().all() {
        session.set_ask_before_commands(ask_first);
    }
    Ok(saved)
}

/// Whether commands in the project at `root` run over a copy of it (`None`: this computer runs
/// none over a copy). Tried with a command that does nothing; Settings says so when the
/// project's file system refuses.
#[tauri::command]
pub async fn project_copies(
    args: protocol::ProjectArgs,
) -> crate::commands::CmdResult<Option<bool>> {
    crate::commands::blocking(move || {
        let root = std::path::Path::new(&args.root)
            .canonicalize()
            .map_err(|e| {
                crate::commands::invalid(format!("{} cannot be opened: {e}", args.root))
            })?;
        // Beside the sessions' own layers (the probe's files go with it).
        let state =
            locations::sessions_dir().join(format!(".project-probe-{}", std::process::id()));
        let layered = config::machine_sandbox::project_layered(&root, &state);
        let _ = std::fs::remove_dir_all(&state);
        Ok(layered)
    })
    .await
}
