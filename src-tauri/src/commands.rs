//! The commands the UI invokes. Thin: each validates the project, calls the `tools` crate off
//! the UI thread, and maps errors to `CommandError`. Names and argument types match
//! `protocol::COMMANDS`, from which the UI's typed wrapper is generated.

use crate::state::AppState;
use protocol::{
    CommandError, FailureCode, FileContent, FileListing, ListDirArgs, OpenProjectArgs, ProjectArgs,
    ProjectChanged, ProjectInfo, ReadFileArgs, RecentProject, RemoveRecentArgs, Startup,
};
use std::sync::PoisonError;
use std::time::{SystemTime, UNIX_EPOCH};
use tauri::{Emitter as _, Manager as _, State};
use tools::{ProjectRoot, ToolError};

pub(crate) type CmdResult<T> = Result<T, CommandError>;

/// A directory of 100,000 entries must still paint at once: the tree shows this many per folder
/// and says how many more there are.
const TREE_FOLDER_LIMIT: u32 = 5000;
/// Files the composer's `@` offers at most: a project's own files, not its dependencies
/// (ignored files are left out).
const MENTION_FILES_LIMIT: u32 = 20_000;

/// A request the app cannot carry out as asked; the message says why and what to do.
pub(crate) fn invalid(message: impl Into<String>) -> CommandError {
    CommandError::new(FailureCode::InvalidArgument, message.into(), None)
}

pub(crate) fn internal(err: impl std::fmt::Display) -> CommandError {
    CommandError::new(
        FailureCode::Internal,
        format!("Internal error: {err}. Please report this; the log folder has details."),
        None,
    )
}

pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> CmdResult<T> + Send + 'static,
) -> CmdResult<T> {
    tauri::async_runtime::spawn_blocking(f)
        .await
        .map_err(internal)?
}

/// Tool errors are worded for the model ("use list_files"); people get the same facts with a
/// next step they can take in the app.
pub fn for_people(err: ToolError) -> CommandError {
    let code = err.code();
    let message = match &err {
        ToolError::NotFound(p) => format!(
            "{} does not exist. It may have been moved, renamed or deleted.",
            p.display()
        ),
        ToolError::NotADirectory(p) => format!(
            "{} is a file, not a folder. Open the folder that contains it.",
            p.display()
        ),
        ToolError::NotAFile(p) => format!("{} is a folder, not a file.", p.display()),
        ToolError::PermissionDenied(p) => format!(
            "Tandem is not allowed to read {}. Check its permissions, or choose another folder.",
            p.display()
        ),
        ToolError::OutsideProject { path, .. } => {
            format!("{path} is outside the project folder, so Tandem will not open it.")
        }
        ToolError::NoSuchPath { path, .. } => {
            format!("{path} does not exist. It may have been moved, renamed or deleted.")
        }
        _ => err.to_string(),
    };
    CommandError::new(code, message, None)
}

/// Opens a folder as a project: validates it and reads what the header shows.
pub fn project_info(path: &str) -> Result<(ProjectRoot, ProjectInfo), ToolError> {
    let root = ProjectRoot::open(path)?;
    let status = tools::git_status(&root).unwrap_or_else(|err| {
        tracing::warn!(%err, "git status failed; showing the project without badges");
        None
    });
    let info = ProjectInfo {
        root: root.path().to_string_lossy().into_owned(),
        name: root.name(),
        is_git: status.is_some(),
        branch: status.and_then(|s| s.branch),
    };
    Ok((root, info))
}

pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Root paths come from the UI; only folders the user opened in this run may be browsed.
pub(crate) fn opened_root(state: &AppState, root: &str) -> CmdResult<ProjectRoot> {
    let root = ProjectRoot::open(root).map_err(for_people)?;
    if !state.is_allowed(&root) {
        return Err(CommandError::new(
            FailureCode::InvalidArgument,
            format!(
                "{} is not an open project. Open it first.",
                root.path().display()
            ),
            None,
        ));
    }
    Ok(root)
}

/// Whether commands run in the OS sandbox on this machine (found once, by starting one).
#[tauri::command]
pub async fn sandbox_status() -> CmdResult<protocol::SandboxStatus> {
    blocking(|| {
        let caps = agent::sandboxing::capabilities();
        Ok(protocol::SandboxStatus {
            sandboxed: caps.sandboxed,
            summary: caps.summary(),
        })
    })
    .await
}

#[tauri::command]
pub fn startup(state: State<'_, AppState>) -> Startup {
    state.startup.clone()
}

#[tauri::command]
pub async fn open_project(
    args: OpenProjectArgs,
    window: tauri::WebviewWindow,
) -> CmdResult<ProjectInfo> {
    let app = window.app_handle().clone();
    let info = blocking(move || {
        let state = app.state::<AppState>();
        let (root, info) = project_info(&args.path).map_err(for_people)?;
        state.allow(&root);
        if let Err(err) = state.recent.touch(&info.root, now_ms()) {
            tracing::warn!(%err, "could not save the recent projects list");
        }
        Ok(info)
    })
    .await?;
    tracing::info!(root = %info.root, git = info.is_git, "project opened");
    if let Err(err) = window.set_title(&format!("{} — Tandem", info.name)) {
        tracing::warn!(%err, "could not set the window title");
    }
    Ok(info)
}

#[tauri::command]
pub async fn recent_projects(app: tauri::AppHandle) -> CmdResult<Vec<RecentProject>> {
    blocking(move || Ok(app.state::<AppState>().recent.list())).await
}

/// Watches the project the window shows (one at a time) and tells the window, with the
/// `project-changed` event, when files in it change outside the app.
#[tauri::command]
pub async fn watch_project(args: ProjectArgs, app: tauri::AppHandle) -> CmdResult<()> {
    blocking(move || {
        let state = app.state::<AppState>();
        let root = opened_root(&state, &args.root)?;
        let path = root.path().to_path_buf();
        let mut slot = state.watcher.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.as_ref().is_some_and(|(p, _)| *p == path) {
            return Ok(());
        }
        // The old project's watcher goes first: one project, one watcher.
        *slot = None;
        let handle = app.clone();
        let shown = args.root.clone();
        let watched = path.clone();
        match tools::ProjectWatcher::start(&path, move |paths| {
            handle.state::<AppState>().forget_git_status(&watched);
            let changed = ProjectChanged {
                root: shown.clone(),
                paths,
            };
            if let Err(err) = handle.emit("project-changed", changed) {
                tracing::warn!(%err, "could not tell the window about changed files");
            }
        }) {
            Ok(w) => *slot = Some((path, w)),
            // Without it the tree still refreshes on focus and with its Refresh button.
            Err(err) => tracing::warn!(%err, "cannot watch the project for changes"),
        }
        Ok(())
    })
    .await
}

/// The user closed the project: the next launch shows the welcome screen instead of it.
#[tauri::command]
pub async fn close_project(app: tauri::AppHandle) -> CmdResult<()> {
    blocking(move || {
        let state = app.state::<AppState>();
        *state.watcher.lock().unwrap_or_else(PoisonError::into_inner) = None;
        if let Err(err) = state.recent.closed() {
            // Reopening it at the next launch is the worst that follows: not worth an error.
            tracing::warn!(%err, "could not forget the open project");
        }
        Ok(())
    })
    .await
}

#[tauri::command]
pub async fn remove_recent(
    args: RemoveRecentArgs,
    app: tauri::AppHandle,
) -> CmdResult<Vec<RecentProject>> {
    blocking(move || {
        app.state::<AppState>()
            .recent
            .remove(&args.path)
            .map_err(|err| {
                CommandError::new(
                    FailureCode::Io,
                    format!("Could not update the recent projects list: {err}"),
                    None,
                )
            })
    })
    .await
}

/// The project's files (not ignored, not hidden), for attaching one with `@` in the composer.
#[tauri::command]
pub async fn project_files(args: ProjectArgs, app: tauri::AppHandle) -> CmdResult<Vec<String>> {
    blocking(move || {
        let state = app.state::<AppState>();
        let root = opened_root(&state, &args.root)?;
        let listing = tools::list_files(
            &root,
            &tools::ListFilesArgs {
                path: String::new(),
                recursive: true,
                pattern: None,
                hidden: false,
                limit: Some(MENTION_FILES_LIMIT),
                include_ignored: false,
            },
        )
        .map_err(for_people)?;
        Ok(listing
            .entries
            .into_iter()
            .filter(|e| e.kind == protocol::EntryKind::File)
            .map(|e| e.path)
            .collect())
    })
    .await
}

#[tauri::command]
pub async fn list_dir(args: ListDirArgs, app: tauri::AppHandle) -> CmdResult<FileListing> {
    blocking(move || {
        let state = app.state::<AppState>();
        let root = opened_root(&state, &args.root)?;
        let mut listing = tools::list_files(
            &root,
            &tools::ListFilesArgs {
                path: args.path,
                recursive: false,
                pattern: None,
                hidden: args.hidden,
                limit: Some(TREE_FOLDER_LIMIT),
                include_ignored: false,
            },
        )
        .map_err(for_people)?;
        match state.git_status(&root, args.fresh) {
            Ok(Some(status)) => {
                for entry in &mut listing.entries {
                    entry.git = match entry.kind {
                        protocol::EntryKind::Dir => status.dir_badge(&entry.path),
                        protocol::EntryKind::File => status.file_badge(&entry.path),
                    };
                }
            }
            Ok(None) => {}
            Err(err) => tracing::warn!(%err, "git status failed; listing without badges"),
        }
        Ok(listing)
    })
    .await
}

#[tauri::command]
pub async fn read_file(args: ReadFileArgs, app: tauri::AppHandle) -> CmdResult<FileContent> {
    blocking(move || {
        let state = app.state::<AppState>();
        let root = opened_root(&state, &args.root)?;
        tools::read_file(
            &root,
            &tools::ReadFileArgs {
                path: args.path,
                offset: args.offset,
                limit: args.limit,
            },
        )
        .map_err(for_people)
    })
    .await
}
