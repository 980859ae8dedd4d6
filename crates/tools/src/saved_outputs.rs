//! The files the engine saves for a session as it works: results cut to fit the model, long
//! command output, fetched pages, sub-agents' transcripts. The model is told to read them, but
//! they live in the session's folder, outside the project (and hidden from commands' sandbox),
//! so `read_file` and `search_codebase` reach them here, read-only, by the absolute path the
//! model was given. Nothing else outside the project is reachable this way.

use crate::error::{ToolError, ToolResult};
use crate::paths::{ProjectRoot, to_slash};
use std::path::{Path, PathBuf};

/// The folders of one session whose files the agent may read back.
#[derive(Debug, Clone, Default)]
pub struct SavedOutputs {
    dirs: Vec<PathBuf>,
}

/// A saved file (or folder) asked for: the folder it is in, opened as a root the tools can read
/// from, and the path inside it.
pub struct SavedPath {
    pub root: ProjectRoot,
    pub inside: String,
}

impl SavedOutputs {
    /// The folders `dirs` (which need not exist yet).
    pub fn new(dirs: Vec<PathBuf>) -> Self {
        SavedOutputs { dirs }
    }

    /// The folders, as given.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// Where an absolute path the model gave lies among the saved folders, or `None` when it
    /// is not in one (then it is the project's path to resolve, as any other). The path must
    /// be inside a folder both as written and once links are followed.
    pub fn find(&self, asked: &str) -> ToolResult<Option<SavedPath>> {
        let asked_path = Path::new(asked);
        if !asked_path.is_absolute() {
            return Ok(None);
        }
        let lexical = crate::paths::normalize(asked_path);
        for dir in &self.dirs {
            let Ok(rel) = lexical.strip_prefix(dir) else {
                continue;
            };
            let root = ProjectRoot::open(dir).map_err(|_| missing(asked))?;
            // The folder's real place (it may sit behind a link such as /tmp on some
            // machines): the rest is resolved against it, links and all, by the same code
            // that keeps the project's paths inside the project.
            let inside = to_slash(rel);
            root.resolve(&inside)?;
            return Ok(Some(SavedPath { root, inside }));
        }
        Ok(None)
    }
}

fn missing(asked: &str) -> ToolError {
    ToolError::InvalidArgument(format!(
        "{asked} does not exist (nothing was saved there in this session); use the exact path a result named"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_absolute_paths_inside_a_saved_folder_are_found() {
        let session = tempfile::tempdir().expect("tempdir");
        let outputs = session.path().join("outputs");
        std::fs::create_dir_all(&outputs).expect("mkdir");
        std::fs::write(outputs.join("result-1.txt"), "x\n").expect("write");
        std::fs::write(session.path().join("seen.jsonl"), "x\n").expect("write");
        let saved = SavedOutputs::new(vec![outputs.clone()]);

        let found = saved
            .find(&outputs.join("result-1.txt").display().to_string())
            .expect("ok")
            .expect("found");
        assert_eq!(found.inside, "result-1.txt");
        assert!(saved.find("result-1.txt").expect("ok").is_none());
        // Beside the folder, or climbing out of it, is not a saved output.
        let beside = session.path().join("seen.jsonl").display().to_string();
        assert!(saved.find(&beside).expect("ok").is_none());
        let climbing = format!("{}/../seen.jsonl", outputs.display());
        assert!(saved.find(&climbing).expect("ok").is_none());
    }

    #[test]
    fn a_link_in_a_saved_folder_leads_nowhere_else() {
        let session = tempfile::tempdir().expect("tempdir");
        let elsewhere = tempfile::tempdir().expect("tempdir");
        std::fs::write(elsewhere.path().join("private"), "p\n").expect("write");
        let outputs = session.path().join("outputs");
        std::fs::create_dir_all(&outputs).expect("mkdir");
        std::os::unix::fs::symlink(elsewhere.path(), outputs.join("link")).expect("symlink");
        let saved = SavedOutputs::new(vec![outputs.clone()]);
        let through = format!("{}/link/private", outputs.display());
        assert!(saved.find(&through).is_err());
    }
}
