//! A session's view of the project: the root, which files the agent has read (the freshness
//! guard), and how many lines it has changed: in all, and since the user last committed (what
//! the policy's change thresholds count). A commit the agent makes itself — with git_commit, a
//! command or a skill — does not start the count afresh, or committing would lift the limits.

use crate::error::{ToolError, ToolResult};
use crate::paths::ProjectRoot;
use std::collections::HashMap;
use std::hash::{Hash as _, Hasher as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

/// What a file looked like when the agent last read or wrote it: what `stat` says (as git
/// compares files), and for a file small enough, a hash of its bytes too (an edit within the
/// same clock tick that keeps the size is still seen).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    inode: u64,
    changed: (i64, i64),
    hash: Option<u64>,
}

/// One line of the kept record of what the agent has seen.
#[derive(serde::Serialize, serde::Deserialize)]
struct SeenLine {
    path: PathBuf,
    stamp: Stamp,
}

/// The record of what was seen is read back only up to this size.
const SEEN_LOG_CAP: u64 = 64 * 1024 * 1024;

/// Files up to this size are hashed; a bigger one is never read whole just to stamp it (a
/// 238 MB log held 254 MB of memory for a read of its last two lines).
const HASHED_UP_TO: u64 = 1024 * 1024;

fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    // A named pipe or a device is never read: opening a FIFO waits for a writer.
    if meta.len() > HASHED_UP_TO || !meta.is_file() {
        return Some(stat_stamp(&meta, None));
    }
    let bytes = crate::regular_file::read_regular(path, HASHED_UP_TO).ok()?;
    stamp_of(path, &bytes)
}

fn stat_stamp(meta: &std::fs::Metadata, hash: Option<u64>) -> Stamp {
    use std::os::unix::fs::MetadataExt as _;
    Stamp {
        len: meta.len(),
        modified: meta.modified().ok(),
        inode: meta.ino(),
        changed: (meta.ctime(), meta.ctime_nsec()),
        hash,
    }
}

/// The commit the project's HEAD points at, if it is a repository with one.
fn head_commit(root: &Path) -> Option<git2::Oid> {
    git2::Repository::open(root).ok()?.head().ok()?.target()
}

/// The stamp of a file whose bytes are already in hand (no second read).
fn stamp_of(path: &Path, bytes: &[u8]) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    let hash = (meta.len() <= HASHED_UP_TO).then(|| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        bytes.hash(&mut h);
        h.finish()
    });
    Some(stat_stamp(&meta, hash))
}

/// Lines added and removed in this session, across every write and edit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DiffTotals {
    pub added: u32,
    pub removed: u32,
}

impl DiffTotals {
    pub fn changed(&self) -> u32 {
        self.added.saturating_add(self.removed)
    }
}

/// Called with a file's project-relative path just before the tools write it: the session's
/// checkpoints keep what it held, so the write can be undone.
pub type BeforeWrite = std::sync::Arc<dyn Fn(&str) + Send + Sync>;

/// Lines changed since counting (re)started, and the commit HEAD is known to be at: where it
/// was then, or where the agent's own last action left it.
#[derive(Default)]
struct Uncommitted {
    head: Option<git2::Oid>,
    totals: DiffTotals,
}

type SharedCount = Arc<Mutex<Uncommitted>>;

fn lock(count: &SharedCount) -> std::sync::MutexGuard<'_, Uncommitted> {
    count.lock().unwrap_or_else(PoisonError::into_inner)
}

pub struct Workspace {
    root: ProjectRoot,
    before_write: Option<BeforeWrite>,
    base_of: Option<crate::BaseOf>,
    finder: Option<Arc<dyn crate::ChangeFinder>>,
    seen: Mutex<HashMap<PathBuf, Stamp>>,
    /// Where what the agent has seen is kept, so it survives a restart (see
    /// [`Workspace::keep_seen_in`]).
    seen_log: Mutex<Option<std::fs::File>>,
    diff: Mutex<DiffTotals>,
    /// Shared with the agent's actions still running (a background command ends later).
    uncommitted: SharedCount,
}

/// One action of the agent that may move HEAD (a command, a commit, a branch switch), from its
/// start until it is dropped: the HEAD it leaves is the agent's own, and the count of
/// uncommitted lines goes on from there instead of starting afresh.
#[must_use = "the action ends when this is dropped"]
pub struct AgentAction {
    root: PathBuf,
    uncommitted: SharedCount,
}

impl AgentAction {
    /// Lines the action changed in the project's files (a command's landed changes): they
    /// count toward the policy's limits on uncommitted lines as an edit's do.
    pub fn count(&self, added: u32, removed: u32) {
        let mut u = lock(&self.uncommitted);
        u.totals.added = u.totals.added.saturating_add(added);
        u.totals.removed = u.totals.removed.saturating_add(removed);
    }
}

impl Drop for AgentAction {
    fn drop(&mut self) {
        if let Some(head) = head_commit(&self.root) {
            lock(&self.uncommitted).head = Some(head);
        }
    }
}

impl Workspace {
    pub fn new(root: ProjectRoot) -> Self {
        Workspace {
            root,
            before_write: None,
            base_of: None,
            finder: None,
            seen: Mutex::new(HashMap::new()),
            seen_log: Mutex::new(None),
            diff: Mutex::new(DiffTotals::default()),
            uncommitted: SharedCount::default(),
        }
    }

    pub fn root(&self) -> &ProjectRoot {
        &self.root
    }

    /// Has `hook` called before every write the tools make.
    pub fn set_before_write(&mut self, hook: BeforeWrite) {
        self.before_write = Some(hook);
    }

    /// The hook called before each write, for work that outlives this borrow (a command's
    /// changes land when it ends).
    pub(crate) fn before_write_hook(&self) -> Option<BeforeWrite> {
        self.before_write.clone()
    }

    /// Has `base_of` give the common ancestor when a command's change to a file is merged with
    /// the person's own, made while it ran.
    pub fn set_base_of(&mut self, base_of: crate::BaseOf) {
        self.base_of = Some(base_of);
    }

    /// Has `finder` find what a command changed where it runs without a layer of the project.
    pub fn set_change_finder(&mut self, finder: Arc<dyn crate::ChangeFinder>) {
        self.finder = Some(finder);
    }

    pub(crate) fn change_finder(&self) -> Option<Arc<dyn crate::ChangeFinder>> {
        self.finder.clone()
    }

    pub(crate) fn base_of_hook(&self) -> Option<crate::BaseOf> {
        self.base_of.clone()
    }

    pub(crate) fn before_write(&self, path: &str) {
        if let Some(hook) = &self.before_write {
            hook(path);
        }
    }

    /// Keeps the files `is_secret` names out of every search of this workspace.
    pub fn hide_secrets(&mut self, is_secret: impl Into<crate::SecretTest>) {
        self.root = self.root.clone().hiding_secrets(is_secret);
    }

    /// `read_file`, remembering that the agent has now seen the file (the freshness guard).
    pub fn read_file(&self, args: &crate::ReadFileArgs) -> ToolResult<protocol::FileContent> {
        let content = crate::read_file(&self.root, args)?;
        if let Ok(r) = self.root.resolve(&args.path) {
            self.note_seen(&r.real);
        }
        Ok(content)
    }

    /// Records that the agent has seen this file as it is now.
    pub fn note_seen(&self, path: &Path) {
        if let Some(s) = stamp(path) {
            self.remember(path, s);
        }
    }

    /// Keeps what the agent has seen in `file` (one line per read or write) and takes back
    /// what an earlier run of the session kept there: after a crash, a resumed session may
    /// edit the files it had read, as long as they are still as it saw them.
    pub fn keep_seen_in(&self, file: &Path) -> std::io::Result<()> {
        use std::os::unix::fs::OpenOptionsExt as _;
        // One too large or unreadable is started afresh: it costs re-reads, never a wrong edit.
        let text = crate::regular_file::read_config_text(file, SEEN_LOG_CAP)
            .ok()
            .flatten();
        {
            let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
            // A line cut short by a crash is skipped; later lines win.
            for line in text.as_deref().unwrap_or("").lines() {
                if let Ok(SeenLine { path, stamp }) = serde_json::from_str(line) {
                    seen.insert(path, stamp);
                }
            }
            // Written again with one line per file, so a long session's record stays the
            // size of what it read, not of how often.
            let mut compact = String::new();
            for (path, stamp) in seen.iter() {
                if let Ok(line) = serde_json::to_string(&SeenLine {
                    path: path.clone(),
                    stamp: stamp.clone(),
                }) {
                    compact.push_str(&line);
                    compact.push('\n');
                }
            }
            crate::atomic::write_atomic(file, compact.as_bytes())?;
        }
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(file)?;
        *self.seen_log.lock().unwrap_or_else(PoisonError::into_inner) = Some(log);
        Ok(())
    }

    fn remember(&self, path: &Path, stamp: Stamp) {
        use std::io::Write as _;
        if let Some(log) = self
            .seen_log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()
            && let Ok(line) = serde_json::to_string(&SeenLine {
                path: path.to_path_buf(),
                stamp: stamp.clone(),
            })
        {
            // Best effort: losing it costs a re-read after a crash, never a wrong edit.
            let _ = log.write_all(format!("{line}\n").as_bytes());
        }
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(path.to_path_buf(), stamp);
    }

    /// Refuses to change an existing file the agent has not read since it last changed.
    pub fn check_fresh(&self, path: &Path, shown: &str) -> ToolResult<()> {
        let Some(now) = stamp(path) else {
            return Ok(());
        };
        self.compare(path, shown, &now)
    }

    /// Records a file the tools just wrote with these bytes.
    pub(crate) fn note_written(&self, path: &Path, bytes: &[u8]) {
        if let Some(s) = stamp_of(path, bytes) {
            self.remember(path, s);
        }
    }

    /// [`Workspace::check_fresh`] for a file whose current bytes are already read.
    pub(crate) fn check_fresh_bytes(
        &self,
        path: &Path,
        shown: &str,
        bytes: &[u8],
    ) -> ToolResult<()> {
        let Some(now) = stamp_of(path, bytes) else {
            return Ok(());
        };
        self.compare(path, shown, &now)
    }

    fn compare(&self, path: &Path, shown: &str, now: &Stamp) -> ToolResult<()> {
        let seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        match seen.get(path) {
            Some(s) if s == now => Ok(()),
            Some(_) => Err(ToolError::Stale {
                path: shown.to_string(),
                why: "it changed on disk since you last read it",
            }),
            None => Err(ToolError::Stale {
                path: shown.to_string(),
                why: "you have not read it in this session",
            }),
        }
    }

    pub fn record_diff(&self, added: u32, removed: u32) -> DiffTotals {
        // Counted against the commit the project is at now: a commit the user made since the
        // last write starts the count afresh first.
        self.uncommitted_totals();
        let add = |d: &mut DiffTotals| {
            d.added = d.added.saturating_add(added);
            d.removed = d.removed.saturating_add(removed);
        };
        add(&mut lock(&self.uncommitted).totals);
        let mut d = self.diff.lock().unwrap_or_else(PoisonError::into_inner);
        add(&mut d);
        *d
    }

    /// Lines changed since the user last committed (or since the session started, outside git
    /// or before any commit): what the policy's thresholds count. HEAD at a commit other than
    /// the one the count knows, and not left there by an [`AgentAction`], was moved by the
    /// user: the count starts afresh.
    pub fn uncommitted_totals(&self) -> DiffTotals {
        let head = head_commit(self.root.path());
        let mut u = lock(&self.uncommitted);
        if head.is_some() && u.head != head {
            *u = Uncommitted {
                head,
                totals: DiffTotals::default(),
            };
        }
        u.totals
    }

    /// The agent starts something that may commit or move HEAD. A move seen before it is the
    /// user's (and counted so); the HEAD it leaves when the returned guard drops is its own.
    pub fn agent_action(&self) -> AgentAction {
        self.uncommitted_totals();
        AgentAction {
            root: self.root.path().to_path_buf(),
            uncommitted: self.uncommitted.clone(),
        }
    }

    pub fn diff_totals(&self) -> DiffTotals {
        *self.diff.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
