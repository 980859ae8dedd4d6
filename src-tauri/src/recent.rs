//! The recent-projects list, persisted as JSON in the app's config folder, and which project
//! was open when the app last quit (reopened at the next launch, as a desktop app does).

use protocol::RecentProject;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

const MAX_RECENT: usize = 20;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
struct Stored {
    path: String,
    opened_at_ms: u64,
}

/// Reads and writes `recent-projects.json`. A missing or unreadable file is an empty list (and
/// is logged): losing the recent list must never stop the app from starting.
#[derive(Debug, Clone)]
pub struct RecentStore {
    file: PathBuf,
    /// The project open now (or when the app quit); absent after the user closed it.
    open_file: PathBuf,
}

impl RecentStore {
    pub fn new(config_dir: &Path) -> Self {
        Self {
            file: config_dir.join("recent-projects.json"),
            open_file: config_dir.join("open-project"),
        }
    }

    /// The project that was open when the app last quit, if its folder is still there.
    pub fn last_open(&self) -> Option<PathBuf> {
        let text = std::fs::read_to_string(&self.open_file).ok()?;
        let path = PathBuf::from(text.trim_end_matches('\n'));
        path.is_dir().then_some(path)
    }

    /// The user closed the project: the next launch shows the welcome screen.
    pub fn closed(&self) -> std::io::Result<()> {
        match std::fs::remove_file(&self.open_file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    fn set_open(&self, path: &str) -> std::io::Result<()> {
        let tmp = self.open_file.with_extension("tmp");
        std::fs::write(&tmp, format!("{path}\n"))?;
        std::fs::rename(tmp, &self.open_file)
    }

    fn load(&self) -> Vec<Stored> {
        match std::fs::read(&self.file) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|err| {
                tracing::warn!(file = %self.file.display(), %err, "recent projects file unreadable; starting empty");
                Vec::new()
            }),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(err) => {
                tracing::warn!(file = %self.file.display(), %err, "cannot read recent projects");
                Vec::new()
            }
        }
    }

    /// Writes through a temporary file and a rename, so a crash never leaves half a list.
    fn save(&self, items: &[Stored]) -> std::io::Result<()> {
        if let Some(dir) = self.file.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = self.file.with_extension("json.tmp");
        let json = serde_json::to_vec_pretty(items).map_err(std::io::Error::other)?;
        std::fs::write(&tmp, json)?;
        std::fs::rename(tmp, &self.file)
    }

    /// The list, most recent first, each marked with whether its folder still exists.
    pub fn list(&self) -> Vec<RecentProject> {
        self.load()
            .into_iter()
            .map(|s| {
                let path = Path::new(&s.path);
                RecentProject {
                    name: path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_else(|| s.path.clone()),
                    exists: path.is_dir(),
                    path: s.path,
                    opened_at_ms: s.opened_at_ms,
                }
            })
            .collect()
    }

    /// Moves (or adds) `path` to the top.
    pub fn touch(&self, path: &str, now_ms: u64) -> std::io::Result<Vec<RecentProject>> {
        let mut items = self.load();
        items.retain(|s| s.path != path);
        items.insert(
            0,
            Stored {
                path: path.to_string(),
                opened_at_ms: now_ms,
            },
        );
        items.truncate(MAX_RECENT);
        self.save(&items)?;
        self.set_open(path)?;
        Ok(self.list())
    }

    pub fn remove(&self, path: &str) -> std::io::Result<Vec<RecentProject>> {
        let mut items = self.load();
        items.retain(|s| s.path != path);
        self.save(&items)?;
        Ok(self.list())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn most_recent_first_without_duplicates_and_vanished_marked() {
        let cfg = tempfile::tempdir().expect("tempdir");
        let projects = tempfile::tempdir().expect("tempdir");
        let a = projects.path().join("a");
        let b = projects.path().join("b");
        std::fs::create_dir_all(&a).expect("mkdir");
        std::fs::create_dir_all(&b).expect("mkdir");
        let store = RecentStore::new(cfg.path());
        assert!(store.list().is_empty());
        store.touch(&a.to_string_lossy(), 1).expect("touch");
        store.touch(&b.to_string_lossy(), 2).expect("touch");
        let list = store.touch(&a.to_string_lossy(), 3).expect("touch");
        let names: Vec<_> = list.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(list[0].opened_at_ms, 3);

        std::fs::remove_dir(&b).expect("rmdir");
        let list = RecentStore::new(cfg.path()).list();
        assert!(list[0].exists);
        assert!(!list[1].exists, "a vanished folder is kept but marked");

        let list = store.remove(&b.to_string_lossy()).expect("remove");
        assert_eq!(list.len(), 1);
    }

    #[test]
    fn the_project_open_at_quit_is_reopened_unless_it_was_closed_or_is_gone() {
        let cfg = tempfile::tempdir().expect("tempdir");
        let projects = tempfile::tempdir().expect("tempdir");
        let a = projects.path().join("a");
        std::fs::create_dir_all(&a).expect("mkdir");
        let store = RecentStore::new(cfg.path());
        assert_eq!(store.last_open(), None);
        store.touch(&a.to_string_lossy(), 1).expect("touch");
        assert_eq!(RecentStore::new(cfg.path()).last_open(), Some(a.clone()));
        store.closed().expect("closed");
        assert_eq!(store.last_open(), None);
        store.closed().expect("closing twice is fine");
        store.touch(&a.to_string_lossy(), 2).expect("touch");
        std::fs::remove_dir(&a).expect("rmdir");
        assert_eq!(store.last_open(), None, "a vanished folder is not reopened");
    }

    #[test]
    fn corrupt_file_is_an_empty_list_and_is_replaced() {
        let cfg = tempfile::tempdir().expect("tempdir");
        std::fs::write(cfg.path().join("recent-projects.json"), "{not json").expect("write");
        let store = RecentStore::new(cfg.path());
        assert!(store.list().is_empty());
        store.touch("/x", 1).expect("touch");
        assert_eq!(store.list().len(), 1);
    }

    #[test]
    fn keeps_at_most_twenty() {
        let cfg = tempfile::tempdir().expect("tempdir");
        let store = RecentStore::new(cfg.path());
        for i in 0..30 {
            store.touch(&format!("/p{i}"), i).expect("touch");
        }
        let list = store.list();
        assert_eq!(list.len(), 20);
        assert_eq!(list[0].path, "/p29");
    }
}
