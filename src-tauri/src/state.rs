//! What the app holds between commands: how it was started, the recent list, which project
//! folders the window has opened, and a short-lived git status cache per project.

use crate::recent::RecentStore;
use protocol::Startup;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use tools::{GitStatus, ProjectRoot, ToolResult};

/// A tree expanding several folders in a row asks for the same status; reuse it this long.
const GIT_STATUS_TTL: Duration = Duration::from_millis(1500);

/// When a status was read, and what it was (`None`: not a repository).
type CachedStatus = (Instant, Option<Arc<GitStatus>>);

pub struct AppState {
    pub startup: Startup,
    pub recent: RecentStore,
    opened: Mutex<HashSet<PathBuf>>,
    git: Mutex<HashMap<PathBuf, CachedStatus>>,
    /// The project the window shows, watched for changes made outside the app.
    pub watcher: Mutex<Option<(PathBuf, tools::ProjectWatcher)>>,
}

impl AppState {
    pub fn new(startup: Startup, recent: RecentStore) -> Self {
        Self {
            startup,
            recent,
            opened: Mutex::new(HashSet::new()),
            git: Mutex::new(HashMap::new()),
            watcher: Mutex::new(None),
        }
    }

    /// Remembers a folder the user opened; only those can be browsed.
    pub fn allow(&self, root: &ProjectRoot) {
        self.opened
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(root.path().to_path_buf());
    }

    pub fn is_allowed(&self, root: &ProjectRoot) -> bool {
        self.opened
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(root.path())
    }

    /// Something changed in the project: the next status is read again.
    pub fn forget_git_status(&self, root: &std::path::Path) {
        self.git
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(root);
    }

    /// The project's git status, reused for a moment unless `fresh` asks for a new reading.
    pub fn git_status(
        &self,
        root: &ProjectRoot,
        fresh: bool,
    ) -> ToolResult<Option<Arc<GitStatus>>> {
        let key = root.path().to_path_buf();
        let cached = self
            .git
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
            .filter(|(at, _)| !fresh && at.elapsed() < GIT_STATUS_TTL)
            .map(|(_, status)| status.clone());
        if let Some(status) = cached {
            return Ok(status);
        }
        let status = tools::git_status(root)?.map(Arc::new);
        self.git
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, (Instant::now(), status.clone()));
        Ok(status)
    }
}
