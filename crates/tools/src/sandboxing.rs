//! Commands in the OS sandbox: what a session keeps for it (the helper, its private folders,
//! the secret locations to hide), the spec for one command, the secret files found in the
//! project, and reading a refusal of the sandbox out of a command's output.

use protocol::{DenialKind, SandboxDenial};
use sandbox::SandboxSpec;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// Folders never searched for secret files: big, generated, and not where people keep keys.
const SKIPPED_DIRS: &[&str] = &[
    ".git",
    "node_modules",
    "target",
    ".venv",
    "venv",
    "__pycache__",
    ".mypy_cache",
    ".pytest_cache",
    ".tox",
    ".gradle",
];
/// A search for secret files stops after this many entries (a huge tree still gets the
/// secrets found so far hidden, and the policy engine refuses the rest by name).
const MAX_SCANNED: usize = 200_000;

/// What a session keeps to sandbox its commands. Clones share the secret files found.
#[derive(Debug, Clone)]
pub struct SandboxSetup {
    /// The `tandem-sandbox` program.
    pub helper: PathBuf,
    /// The helper's own files (outside the project).
    pub state_dir: PathBuf,
    /// Hidden from every command: the user's keys and credentials, Tandem's configuration
    /// and data, the session bus and keyring sockets.
    pub hidden: Vec<PathBuf>,
    /// Folders that must stay visible at their path (the home folder).
    pub keep_visible: Vec<PathBuf>,
    /// Which files hold secrets (the policy engine's judgement, handed in: this crate does
    /// not depend on the policy).
    pub is_secret: fn(&Path) -> bool,
    /// The project's secret files as last found (a refresh in the background writes here).
    secrets: Arc<Mutex<Option<Vec<PathBuf>>>>,
}

impl SandboxSetup {
    pub fn new(
        helper: PathBuf,
        state_dir: PathBuf,
        hidden: Vec<PathBuf>,
        keep_visible: Vec<PathBuf>,
        is_secret: fn(&Path) -> bool,
    ) -> Self {
        SandboxSetup {
            helper,
            state_dir,
            hidden,
            keep_visible,
            is_secret,
            secrets: Arc::new(Mutex::new(None)),
        }
    }

    /// The spec for one command in `project`, with `tmp` as its private temporary folder.
    pub fn spec(&self, project: &Path, tmp: &Path, network: bool, read_only: bool) -> SandboxSpec {
        let git = project.join(".git");
        // A hook written by a command would run at the user's next commit, outside any
        // sandbox: the folder must exist to be kept read-only, so an absent one is made.
        if git.is_dir() && !git.join("hooks").exists() {
            let _ = std::fs::create_dir(git.join("hooks"));
        }
        // A hidden folder that holds the project or the temporary folder would hide them too.
        let mut hidden: Vec<PathBuf> = self
            .hidden
            .iter()
            .filter(|h| !project.starts_with(h) && !tmp.starts_with(h))
            .cloned()
            .collect();
        hidden.extend(self.project_secrets(project));
        SandboxSpec {
            project: project.to_path_buf(),
            project_writable: !read_only,
            tmp: tmp.to_path_buf(),
            keep_visible: self.keep_visible.clone(),
            read_only: vec![
                git.join("hooks"),
                git.join("config"),
                project.join(".tandem"),
            ],
            hidden,
            network,
            state_dir: self.state_dir.clone(),
        }
    }

    /// The project's secret files: found on first use, then as of the last refresh.
    pub fn project_secrets(&self, project: &Path) -> Vec<PathBuf> {
        let mut cached = self.secrets.lock().unwrap_or_else(PoisonError::into_inner);
        cached
            .get_or_insert_with(|| find_secrets(project, self.is_secret))
            .clone()
    }

    /// Looks for secret files again on a thread of its own (after a command, which may have
    /// added some): the next command does not wait for the search.
    pub fn refresh_secrets_in_background(&self, project: &Path) {
        let project = project.to_path_buf();
        let is_secret = self.is_secret;
        let slot = Arc::clone(&self.secrets);
        std::thread::spawn(move || {
            let found = find_secrets(&project, is_secret);
            *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(found);
        });
    }
}

fn find_secrets(project: &Path, is_secret: fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![project.to_path_buf()];
    let mut seen = 0usize;
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > MAX_SCANNED {
                return found;
            }
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                let skip = entry
                    .file_name()
                    .to_str()
                    .is_some_and(|n| SKIPPED_DIRS.contains(&n));
                if !skip {
                    stack.push(path);
                }
            } else if is_secret(&path) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

const FILE_REFUSALS: &[&str] = &[
    "permission denied",
    "read-only file system",
    "operation not permitted",
    "eacces",
    "erofs",
];
const NETWORK_REFUSALS: &[&str] = &[
    "network is unreachable",
    "could not resolve host",
    "couldn't resolve host",
    "temporary failure in name resolution",
    "name or service not known",
    "no address associated with hostname",
    "getaddrinfo",
    "enetunreach",
    "eai_again",
    "failed to resolve",
];

/// Whether a failed command's output shows the sandbox refusing it: a file it may not touch,
/// or the network it does not have. The kernel tells the command, not us, so its own words
/// are all there is to go on.
pub fn sandbox_denial(output: &str, network: bool) -> Option<SandboxDenial> {
    let shown = |line: &str| line.trim().chars().take(300).collect::<String>();
    for line in output.lines().rev() {
        let lower = line.to_ascii_lowercase();
        if !network && NETWORK_REFUSALS.iter().any(|m| lower.contains(m)) {
            return Some(SandboxDenial {
                kind: DenialKind::Network,
                evidence: shown(line),
            });
        }
        if FILE_REFUSALS.iter().any(|m| lower.contains(m)) {
            return Some(SandboxDenial {
                kind: DenialKind::Files,
                evidence: shown(line),
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_are_read_from_the_output() {
        let d = sandbox_denial(
            "ok\ntouch: cannot touch '/home/x': Permission denied\n",
            false,
        );
        assert_eq!(d.map(|d| d.kind), Some(DenialKind::Files));
        let d = sandbox_denial("curl: (6) Could not resolve host: example.com\n", false);
        assert_eq!(d.map(|d| d.kind), Some(DenialKind::Network));
        assert_eq!(
            sandbox_denial("curl: (6) Could not resolve host: example.com\n", true),
            None
        );
        assert_eq!(sandbox_denial("assertion failed: 1 == 2\n", false), None);
    }

    #[test]
    fn secret_files_are_found_but_not_in_skipped_folders() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        std::fs::create_dir_all(root.join("a/node_modules")).expect("mkdir");
        std::fs::write(root.join(".env"), "K=1").expect("write");
        std::fs::write(root.join("a/.env.local"), "K=1").expect("write");
        std::fs::write(root.join("a/node_modules/.env"), "K=1").expect("write");
        std::fs::write(root.join("a/main.rs"), "").expect("write");
        fn secret(p: &Path) -> bool {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(".env"))
        }
        let found = find_secrets(root, secret);
        assert_eq!(found, vec![root.join(".env"), root.join("a/.env.local")]);
    }
}
