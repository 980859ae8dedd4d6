//! The built-in model's commands for the first-run screen and Settings: whether this computer
//! can run it (and why not), its download (resumable, checked against the pinned sha256 before
//! it gets its final name; the screen polls `builtin_status` for progress), and choosing it,
//! with the downloaded file or a GGUF the user already has. The engine work is in
//! crates/builtin; this only keeps the download's state for the window.

use crate::commands::{CmdResult, blocking, invalid};
use config::{PresetSlot, locations};
use llm::ProviderKind;
use protocol::{BuiltinDownload, BuiltinStatus, SettingsView, UseBuiltinArgs};
use std::sync::{Arc, Mutex, PoisonError};
use tauri::State;
use tokio_util::sync::CancellationToken;

/// The provider name the built-in model is saved under.
const PROVIDER: &str = config::BUILTIN_PROVIDER;

/// The download in progress (or the last one), shared with its task.
#[derive(Default, Clone)]
pub struct BuiltinDownloads(Arc<Mutex<DownloadState>>);

#[derive(Default)]
struct DownloadState {
    running: bool,
    done: u64,
    total: Option<u64>,
    error: Option<protocol::DownloadFailure>,
    cancel: Option<CancellationToken>,
}

impl BuiltinDownloads {
    fn lock(&self) -> std::sync::MutexGuard<'_, DownloadState> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Where and what to download: the settings' `download_url` and `sha256` for the provider, else
/// the default model's.
/// The built-in model as sessions load it: the engine does not link llama.cpp, the shell does.
pub(crate) fn loader() -> config::BuiltinLoader {
    Arc::new(|config| builtin::launch(config, &locations::data_dir(), config::default_model_path()))
}

fn source(settings: &config::Settings) -> (String, String) {
    let p = settings.providers.get(PROVIDER);
    let url = p
        .and_then(|p| p.file.download_url.clone())
        .unwrap_or_else(|| builtin::DEFAULT_MODEL.url.to_string());
    let sha = p
        .and_then(|p| p.file.sha256.clone())
        .unwrap_or_else(|| builtin::DEFAULT_MODEL.sha256.to_string());
    (url, sha)
}

/// Whether the built-in model has a file to load: the checked download, or the person's own
/// GGUF file. Blocking (reads the settings and the file system).
pub(crate) fn model_file_present() -> bool {
    let settings = config::read_settings(&locations::settings_file()).unwrap_or_default();
    let own = settings
        .providers
        .get(PROVIDER)
        .and_then(|p| p.file.model_path.clone());
    config::default_model_path().is_file()
        || own.is_some_and(|f| std::path::Path::new(&f).is_file())
}

/// Blocking (reads the settings and the file system).
fn status(downloads: &BuiltinDownloads) -> BuiltinStatus {
    let settings = config::read_settings(&locations::settings_file()).unwrap_or_default();
    let dest = config::default_model_path();
    let own_file = settings
        .providers
        .get(PROVIDER)
        .and_then(|p| p.file.model_path.clone());
    let spec = builtin::DEFAULT_MODEL;
    // The file the model would load decides the memory it needs.
    let size = own_file
        .as_ref()
        .and_then(|f| std::fs::metadata(f).ok())
        .map_or(spec.size, |m| m.len());
    let unavailable = builtin::check_cpu()
        .and_then(|()| builtin::check_memory(size))
        .err()
        .map(|u| u.to_string());
    let d = downloads.lock();
    let partial = std::fs::metadata(builtin::partial_path(&dest)).map_or(0, |m| m.len());
    let in_use = settings
        .roles
        .get("default")
        .is_some_and(|r| r.provider == PROVIDER)
        && settings
            .providers
            .get(PROVIDER)
            .is_some_and(|p| p.kind == ProviderKind::Builtin);
    BuiltinStatus {
        unavailable,
        model_name: spec.name.to_string(),
        download_size: spec.size,
        model_path: dest.display().to_string(),
        // Only a checked file gets this name (see builtin::download).
        downloaded: dest.is_file(),
        own_file,
        download: BuiltinDownload {
            running: d.running,
            done: if d.running { d.done } else { partial },
            total: d.total.or(Some(spec.size)),
            error: d.error.clone(),
        },
        in_use,
    }
}

#[tauri::command]
pub async fn builtin_status(downloads: State<'_, BuiltinDownloads>) -> CmdResult<BuiltinStatus> {
    let d = downloads.inner().clone();
    blocking(move || Ok(status(&d))).await
}

/// Starts (or resumes) the download; a second call while one runs changes nothing.
#[tauri::command]
pub async fn start_builtin_download(
    downloads: State<'_, BuiltinDownloads>,
) -> CmdResult<BuiltinStatus> {
    let d = downloads.inner().clone();
    let settings = blocking(|| {
        config::read_settings(&locations::settings_file()).map_err(|e| invalid(e.to_string()))
    })
    .await?;
    let (url, sha) = source(&settings);
    let dest = config::default_model_path();
    // The lock is taken and let go before any await (its guard cannot cross one).
    let started = {
        let mut s = d.lock();
        if s.running {
            None
        } else {
            let cancel = CancellationToken::new();
            *s = DownloadState {
                running: true,
                cancel: Some(cancel.clone()),
                ..DownloadState::default()
            };
            Some(cancel)
        }
    };
    let Some(cancel) = started else {
        return blocking(move || Ok(status(&d))).await;
    };
    let task = d.clone();
    tauri::async_runtime::spawn(async move {
        let progress = task.clone();
        let result = builtin::download(
            &url,
            &sha,
            &dest,
            &mut |p| {
                let mut s = progress.lock();
                s.done = p.done;
                s.total = p.total;
            },
            &cancel,
        )
        .await;
        let mut s = task.lock();
        s.running = false;
        s.cancel = None;
        // Stopped by the person: no failure (`failure` is None), the bytes wait for the next
        // start.
        s.error = result.err().and_then(|e| {
            tracing::warn!(%e, "built-in model download stopped");
            e.failure()
        });
    });
    blocking(move || Ok(status(&d))).await
}

#[tauri::command]
pub async fn cancel_builtin_download(
    downloads: State<'_, BuiltinDownloads>,
) -> CmdResult<BuiltinStatus> {
    let d = downloads.inner().clone();
    if let Some(c) = d.lock().cancel.take() {
        c.cancel();
    }
    blocking(move || Ok(status(&d))).await
}

/// The built-in model serves the default role from now on.
#[tauri::command]
pub async fn use_builtin(
    args: UseBuiltinArgs,
    slot: State<'_, PresetSlot>,
) -> CmdResult<SettingsView> {
    let slot = slot.inner().clone();
    blocking(move || {
        let path = locations::settings_file();
        let mut settings = config::read_settings(&path).map_err(|e| invalid(e.to_string()))?;
        config::with_builtin_model(&mut settings, args.model_path)
            .map_err(|e| invalid(e.to_string()))?;
        crate::settings_host::write_settings(&settings)?;
        slot.clear();
        Ok(crate::settings_host::view(&slot))
    })
    .await
}
