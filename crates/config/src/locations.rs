//! Where the engine keeps its files, shared by the desktop app and `tandem-cli` so both see the
//! same sessions, settings and rules.
//!
//! - config: `$TANDEM_CONFIG_DIR`, else `$XDG_CONFIG_HOME/tandem`, else `~/.config/tandem`
//!   (settings.toml, policy.toml, recent projects, the opt-in key file);
//! - data: `$TANDEM_DATA_DIR`, else `$XDG_DATA_HOME/tandem`, else `~/.local/share/tandem`
//!   (sessions/).

use std::path::PathBuf;

fn env_dir(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
}

fn home() -> Option<PathBuf> {
    env_dir("HOME")
}

pub fn config_dir() -> PathBuf {
    env_dir("TANDEM_CONFIG_DIR")
        .or_else(|| env_dir("XDG_CONFIG_HOME").map(|d| d.join("tandem")))
        .or_else(|| home().map(|h| h.join(".config/tandem")))
        .unwrap_or_else(|| std::env::temp_dir().join("tandem-config"))
}

/// The default built-in model's file name (`builtin::DEFAULT_MODEL.file_name`; a test in
/// `tandem-cli` holds the two together, as the engine does not link the built-in model).
pub const DEFAULT_MODEL_FILE: &str = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf";

pub fn data_dir() -> PathBuf {
    env_dir("TANDEM_DATA_DIR")
        .or_else(|| env_dir("XDG_DATA_HOME").map(|d| d.join("tandem")))
        .or_else(|| home().map(|h| h.join(".local/share/tandem")))
        .unwrap_or_else(|| std::env::temp_dir().join("tandem"))
}

pub fn sessions_dir() -> PathBuf {
    data_dir().join("sessions")
}

/// Today's spending, every session together (`spend/YYYY-MM-DD.jsonl`).
pub fn spend_dir() -> PathBuf {
    data_dir().join("spend")
}

/// A session's own folder (command outputs, fetched pages, the files' content before).
pub fn session_files_dir(id: &str) -> PathBuf {
    sessions_dir().join(id)
}

pub fn settings_file() -> PathBuf {
    config_dir().join("settings.toml")
}

pub fn user_policy_file() -> PathBuf {
    config_dir().join("policy.toml")
}

/// The opt-in key file used where no keychain service runs.
pub fn key_file() -> PathBuf {
    config_dir().join("keys.toml")
}

pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// A new session id: sortable by time, unique across processes.
pub fn new_session_id() -> String {
    format!("s{}-{}", now_ms(), std::process::id())
}

/// Writes a file whole or not at all (see `tools::write_atomic`), making its folder first.
pub fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    // The same whole-or-nothing write the tools use for the project's files.
    tools::write_atomic(path, bytes)
}

/// Writes a file only its owner may read, whole or not at all.
pub fn write_private(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    if let Some(dir) = path.parent() {
        std::fs::DirBuilder::new().recursive(true).create(dir)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    write_atomically(path, bytes)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
}
