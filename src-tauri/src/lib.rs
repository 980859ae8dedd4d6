//! The Tandem desktop app: the Tauri shell.
//!
//! Owns the window, the command line, the commands the UI invokes, app-level state (recent
//! projects, logs, the keychain, desktop notifications) and plugins. What a command *does*
//! lives in the engine crates (`tools`, `policy`, `agent`, `llm`), which never depend on Tauri:
//! sessions are made by `agent::PersonalSession` and `agent::begin_session`, and what Settings
//! saves is checked and merged by the engine (`config::settings_from_screen`,
//! `with_default_model`, `with_web_search`, `with_builtin_model`). The hosts turn commands into
//! those calls and their errors into `CommandError`s.

mod builtin_host;
mod cli_args;
mod command_prefs;
mod commands;
mod event_pump;
mod extensions_host;
mod logging;
mod notify_host;
mod recent;
mod rendering;
mod session_host;
mod settings_host;
mod spend_host;
mod startup_marks;
mod state;
mod ui_errors;

use cli_args::CliAction;
use protocol::Startup;
use std::path::PathBuf;
use tauri::Manager as _;

/// Where the config lives: the engine's folder (`TANDEM_CONFIG_DIR` when set, else
/// `~/.config/tandem`), shared with `tandem-cli`.
fn config_dir() -> PathBuf {
    config::locations::config_dir()
}

fn log_dir(app: &tauri::App) -> PathBuf {
    if let Some(dir) = std::env::var_os("TANDEM_CONFIG_DIR") {
        return PathBuf::from(dir).join("logs");
    }
    app.path()
        .app_log_dir()
        .unwrap_or_else(|_| std::env::temp_dir().join("tandem-logs"))
}

/// What to show first for the folder given on the command line.
fn startup_for(project: Option<PathBuf>, state: &state::AppState) -> Startup {
    let Some(path) = project else {
        return Startup::Welcome;
    };
    let shown = path.display().to_string();
    match commands::project_info(&shown) {
        Ok((root, info)) => {
            state.allow(&root);
            Startup::Project { project: info }
        }
        Err(err) => {
            tracing::warn!(path = %shown, %err, "cannot open the project given on the command line");
            Startup::Error {
                path: shown,
                message: commands::for_people(err).message,
            }
        }
    }
}

/// The window calls this once its first screen has painted, with what it did until then.
#[tauri::command]
fn ui_ready(args: protocol::UiReadyArgs) {
    startup_marks::ready(&args);
}

/// The window's own failures (a part that could not draw or load) go to the log with the
/// rest, so a blank or degraded window leaves a trace.
#[tauri::command]
fn ui_error(args: protocol::UiErrorArgs) {
    ui_errors::log(&args);
}

pub fn run() {
    startup_marks::start();
    rendering::choose_before_any_thread();
    let project = match cli_args::parse(std::env::args().skip(1)) {
        CliAction::Launch { project } => project,
        CliAction::Help => {
            println!("{}", cli_args::USAGE);
            return;
        }
        CliAction::Version => {
            println!("tandem {}", env!("CARGO_PKG_VERSION"));
            return;
        }
        CliAction::Invalid(msg) => {
            eprintln!("tandem: {msg}\n\n{}", cli_args::USAGE);
            std::process::exit(2);
        }
    };

    // GTK panics deep inside the event loop without a display; say so plainly instead.
    if cfg!(target_os = "linux")
        && std::env::var_os("DISPLAY").is_none()
        && std::env::var_os("WAYLAND_DISPLAY").is_none()
    {
        eprintln!(
            "tandem: no graphical display (neither DISPLAY nor WAYLAND_DISPLAY is set). Run it in a desktop session, or under xvfb-run."
        );
        std::process::exit(1);
    }

    let result = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_opener::init())
        .setup(move |app| {
            startup_marks::mark("setup: begins");
            let guard = logging::init(&log_dir(app));
            app.manage(guard);
            startup_marks::mark("setup: log open");
            let config = config_dir();
            tracing::info!(version = env!("CARGO_PKG_VERSION"), config = %config.display(), "Tandem starting");
            let mut state = state::AppState::new(Startup::Welcome, recent::RecentStore::new(&config));
            // Without a folder on the command line, the project open at the last quit returns.
            let project = project.clone().or_else(|| state.recent.last_open());
            state.startup = startup_for(project, &state);
            startup_marks::mark("setup: project read");
            if let Startup::Project { project } = &state.startup {
                if let Err(err) = state.recent.touch(&project.root, commands::now_ms()) {
                    tracing::warn!(%err, "could not save the recent projects list");
                }
                if let Some(window) = app.get_webview_window("main") {
                    let _ = window.set_title(&format!("{} — Tandem", project.name));
                }
            }
            app.manage(state);
            app.manage(session_host::Sessions::default());
            app.manage(notify_host::Notifier::default());
            app.manage(extensions_host::McpHubs::default());
            app.manage(builtin_host::BuiltinDownloads::default());
            // TANDEM_PROVIDER & co. choose the model until the user picks one in the window.
            app.manage(config::PresetSlot::new(config::Preset::from_env().ok().flatten()));
            // What a killed app or CLI left in /tmp/tandem-UID goes, off the window's thread.
            std::thread::spawn(|| {
                let removed = config::machine_sandbox::sweep_private_tmps(&config::locations::sessions_dir());
                if removed > 0 {
                    tracing::info!(removed, "removed private /tmp folders no session uses");
                }
            });
            // Whether commands can be sandboxed is found by starting one: do it now, off the
            // window's thread, so the first command and the mode selector do not wait for it.
            std::thread::spawn(|| {
                let caps = agent::sandboxing::capabilities();
                tracing::info!(sandboxed = caps.sandboxed, summary = %caps.summary(), "sandbox");
            });
            startup_marks::mark("setup: ends");
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![
            commands::startup,
            ui_ready,
            ui_error,
            commands::open_project,
            commands::recent_projects,
            commands::remove_recent,
            commands::close_project,
            commands::watch_project,
            commands::list_dir,
            commands::project_files,
            commands::read_file,
            session_host::list_sessions,
            session_host::load_session,
            session_host::create_session,
            session_host::send_message,
            session_host::answer_approval,
            session_host::stop_turn,
            session_host::retry_turn,
            session_host::set_mode,
            session_host::session_tasks,
            session_host::stop_task,
            session_host::review_task,
            session_host::session_changes,
            session_host::fetched_picture,
            session_host::restore_preview,
            session_host::restore,
            settings_host::get_settings,
            settings_host::save_settings,
            settings_host::set_api_key,
            settings_host::save_web_search,
            settings_host::test_web_search,
            settings_host::test_connection,
            settings_host::detect_local,
            builtin_host::builtin_status,
            builtin_host::start_builtin_download,
            builtin_host::cancel_builtin_download,
            builtin_host::use_builtin,
            settings_host::provider_models,
            settings_host::use_model,
            settings_host::policy_rules,
            settings_host::remove_rule,
            settings_host::add_rule,
            settings_host::trust_project,
            settings_host::set_policy_default,
            commands::sandbox_status,
            extensions_host::skills_view,
            extensions_host::set_skill_enabled,
            extensions_host::mcp_view,
            extensions_host::approve_mcp_server,
            extensions_host::restart_mcp_server,
            extensions_host::add_skill,
            extensions_host::remove_skill,
            extensions_host::add_mcp_server,
            extensions_host::remove_mcp_server,
            session_host::export_session,
            session_host::search_sessions,
            notify_host::get_notifications,
            notify_host::save_notifications,
            command_prefs::get_command_prefs,
            command_prefs::save_command_prefs,
            command_prefs::project_copies,
            spend_host::get_limits,
            spend_host::save_limits,
            spend_host::spend_status,
            spend_host::raise_limits,
        ])
        .build(tauri::generate_context!());
    startup_marks::mark("tauri: built");
    let app = match result {
        Ok(app) => app,
        Err(err) => {
            eprintln!("tandem: could not start: {err}");
            std::process::exit(1);
        }
    };
    app.run(|handle, event| {
        // Background commands live in their own process groups: stop them with the app rather
        // than leave them running unseen.
        if let tauri::RunEvent::Exit = event {
            handle.state::<session_host::Sessions>().stop_everything();
            handle.state::<extensions_host::McpHubs>().stop_everything();
        }
    });
}
