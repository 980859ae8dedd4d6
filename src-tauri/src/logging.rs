//! Logs: a daily-rotated file in the app's log folder (7 kept), and stderr in debug builds.
//! `RUST_LOG` overrides the level (default `info`).

use std::path::Path;
use tracing_appender::non_blocking::WorkerGuard;
use tracing_appender::rolling::{RollingFileAppender, Rotation};
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;
use tracing_subscriber::{EnvFilter, Layer as _, fmt};

/// Installs the subscriber. The returned guard flushes the file on drop: keep it for the
/// app's lifetime. Failing to open the log folder degrades to stderr only.
pub fn init(log_dir: &Path) -> Option<WorkerGuard> {
    let filter = || EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let stderr = cfg!(debug_assertions).then(|| {
        fmt::layer()
            .with_writer(std::io::stderr)
            .with_filter(filter())
    });
    let file = std::fs::create_dir_all(log_dir)
        .map_err(|e| e.to_string())
        .and_then(|()| {
            RollingFileAppender::builder()
                .rotation(Rotation::DAILY)
                .filename_prefix("tandem")
                .filename_suffix("log")
                .max_log_files(7)
                .build(log_dir)
                .map_err(|e| e.to_string())
        });
    let (file_layer, guard, file_err) = match file {
        Ok(appender) => {
            let (writer, guard) = tracing_appender::non_blocking(appender);
            let layer = fmt::layer()
                .with_ansi(false)
                .with_writer(writer)
                .with_filter(filter());
            (Some(layer), Some(guard), None)
        }
        Err(err) => (None, None, Some(err)),
    };
    let _ = tracing_subscriber::registry()
        .with(stderr)
        .with(file_layer)
        .try_init();
    if let Some(err) = file_err {
        tracing::warn!(dir = %log_dir.display(), %err, "cannot open the log folder; logging to stderr only");
    }
    guard
}
