//! Which project servers the user approved: kept in the user's config folder (a repository
//! cannot approve its own servers), per project folder, with each server's entry exactly as
//! it was approved — a changed command is a new question.

use crate::config::Server;
use crate::error::McpError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file's name in the config folder.
pub const APPROVALS_FILE: &str = "mcp-approvals.json";

#[derive(Debug, Default, Serialize, Deserialize)]
struct Stored {
    /// Project folder → server name → its entry as approved.
    #[serde(default)]
    projects: BTreeMap<String, BTreeMap<String, Value>>,
}

/// The approvals file.
#[derive(Debug, Clone)]
pub struct Approvals {
    pub file: PathBuf,
}

/// Whether a server may start, and if not, why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approval {
    Approved,
    /// Never approved for this project.
    Never,
    /// Approved, but its entry changed since.
    Changed,
}

impl Approvals {
    pub fn new(file: PathBuf) -> Self {
        Approvals { file }
    }

    fn read(&self) -> Result<Stored, McpError> {
        match std::fs::read_to_string(&self.file) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| McpError::Approvals {
                file: self.file.clone(),
                message: e.to_string(),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Stored::default()),
            Err(e) => Err(McpError::Approvals {
                file: self.file.clone(),
                message: e.to_string(),
            }),
        }
    }

    /// A user's own server needs no approval; a project's needs one for exactly its entry.
    /// An unreadable approvals file approves nothing.
    pub fn check(&self, project: &Path, server: &Server) -> Approval {
        if server.origin == protocol::ExtensionOrigin::User {
            return Approval::Approved;
        }
        let Ok(stored) = self.read() else {
            return Approval::Never;
        };
        match stored
            .projects
            .get(&project.display().to_string())
            .and_then(|p| p.get(&server.name))
        {
            Some(entry) if *entry == server.raw => Approval::Approved,
            Some(_) => Approval::Changed,
            None => Approval::Never,
        }
    }

    /// Records the user's approval of `server` for `project`; the file is written whole or
    /// not at all, readable by the user alone.
    pub fn approve(&self, project: &Path, server: &Server) -> Result<(), McpError> {
        let mut stored = self.read()?;
        stored
            .projects
            .entry(project.display().to_string())
            .or_default()
            .insert(server.name.clone(), server.raw.clone());
        let fail = |e: std::io::Error| McpError::Approvals {
            file: self.file.clone(),
            message: e.to_string(),
        };
        let text = serde_json::to_string_pretty(&stored).map_err(|e| McpError::Approvals {
            file: self.file.clone(),
            message: e.to_string(),
        })?;
        write_private(&self.file, text.as_bytes()).map_err(fail)
    }
}

/// Writes through a temporary file renamed into place, mode 0600.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("approvals"),
        std::process::id()
    ));
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    #[test]
    fn an_approval_holds_for_that_project_and_that_entry_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let project = dir.path().join("p");
        std::fs::create_dir_all(project.join(".tandem")).expect("mkdir");
        let write = |cmd: &str| {
            std::fs::write(
                project.join(".tandem/mcp.json"),
                format!(r#"{{"mcpServers": {{"tiny": {{"command": "{cmd}"}}}}}}"#),
            )
            .expect("write")
        };
        write("python3");
        let server = |p: &Path| Config::load(&dir.path().join("none.json"), p).servers[0].clone();
        let approvals = Approvals::new(dir.path().join("config").join(APPROVALS_FILE));
        assert_eq!(
            approvals.check(&project, &server(&project)),
            Approval::Never
        );
        approvals
            .approve(&project, &server(&project))
            .expect("approve");
        assert_eq!(
            approvals.check(&project, &server(&project)),
            Approval::Approved
        );
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&approvals.file)
            .expect("file")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        // The same entry in another folder is another question.
        let other = dir.path().join("q");
        std::fs::create_dir_all(other.join(".tandem")).expect("mkdir");
        std::fs::copy(
            project.join(".tandem/mcp.json"),
            other.join(".tandem/mcp.json"),
        )
        .expect("copy");
        assert_eq!(approvals.check(&other, &server(&other)), Approval::Never);
        // A repository that changes its command after the approval is asked about again.
        write("sh");
        assert_eq!(
            approvals.check(&project, &server(&project)),
            Approval::Changed
        );
    }
}
