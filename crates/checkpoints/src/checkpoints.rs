//! A session's checkpoints: taken at each turn boundary, previewed, restored, and a restore cut
//! short by a crash finished at the next start.
//!
//! A checkpoint records only what changed since the one before (found by the watcher, or by
//! looking at the whole project when the watcher may have missed something), with what each
//! path held before. Files the tools write have their content before kept as they are written,
//! so they come back in any project; in a git repository, every other file held either what a
//! recorded change says or what HEAD held when the session began, so changes made by commands
//! come back too.

use crate::error::{CheckpointError, Result, io};
use crate::git_view::GitView;
use crate::plan::{Plan, Write, wanted};
use crate::scan::{Known, Scanned, full_candidates};
use crate::state::{FileState, OnDisk, PutError, blob_id, put, read_now};
use crate::store::{Base, Blobs, Cause, Change, CheckpointRecord, GitBase, Record, Records};
use crate::uncopied::{Stamp, Uncopied};
use protocol::{NotRestorable, NotRestorableReason};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tools::path_text;
use tools::tree_feed::{FeedOptions, Taken, TreeFeed};

const JOURNAL: &str = "restore-journal.json";
/// Text bigger than this is not sent to the preview's diff.
const PREVIEW_TEXT_BYTES: usize = 512 * 1024;
/// How long a checkpoint waits for the watcher being set up (a big tree) before it looks at
/// the whole project instead.
const FEED_WAIT: Duration = Duration::from_secs(60);
/// Untracked files the session begins with are copied when there are at most this many, this
/// big in all; beyond, only their names and stamps are kept (a copy of 200,000 files took
/// minutes and as much disk as the project).
const COPY_AT_START_FILES: usize = 2_000;
const COPY_AT_START_BYTES: u64 = 32 * 1024 * 1024;

/// A restore in progress, written before the first file is touched: what it writes, so the
/// next start can finish it.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Journal {
    undo: u32,
    target: u32,
    writes: Vec<Write>,
    /// What the caller needs to finish its own part (the session's log).
    extra: serde_json::Value,
}

/// A restore that happened (or was finished at start).
#[derive(Debug, Clone)]
pub struct Restored {
    /// The checkpoint taken just before it: restoring there undoes it.
    pub undo: u32,
    /// The checkpoint it ended with.
    pub checkpoint: u32,
    pub plan: Plan,
    /// What the caller gave [`Checkpoints::restore`] to finish its own part.
    pub extra: serde_json::Value,
}

enum Feed {
    Off,
    Starting,
    On(TreeFeed),
    Failed,
}

struct Inner {
    blobs: Blobs,
    records: Records,
    base: Option<Base>,
    git: Option<GitView>,
    /// Every path whose content at the last checkpoint is recorded.
    recorded: BTreeMap<String, FileState>,
    tool_pre: BTreeMap<String, FileState>,
    /// Each path the agent changed (its tools, its commands), with the checkpoint after
    /// which it last did: a change since a checkpoint to a path not here was not the agent's.
    tool_wrote: BTreeMap<String, Wrote>,
    checkpoints: Vec<CheckpointRecord>,
    /// Untracked files the session began with and did not copy (a project with many).
    uncopied: Uncopied,
    /// Every change since the last checkpoint was seen by the watcher (false at first: this
    /// process was not watching before).
    observed: bool,
}

/// When the agent last changed a path: after which checkpoint, and at what time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Wrote {
    after: u32,
    at_ms: u64,
}

/// How long after the agent's write a file may still show that write's time (the write comes
/// just after its record; a landing keeps the command's own times, which are earlier).
const WRITE_SLACK_MS: u64 = 2_000;

impl Inner {
    /// The agent changed `path` now.
    fn wrote(&mut self, path: &str, at_ms: u64) {
        let after = self.last_id();
        self.tool_wrote
            .insert(path.to_string(), Wrote { after, at_ms });
    }

    /// The last checkpoint's id (0 before the first).
    fn last_id(&self) -> u32 {
        self.checkpoints.last().map_or(0, |c| c.id)
    }
}

pub struct Checkpoints {
    root: PathBuf,
    dir: PathBuf,
    inner: Mutex<Inner>,
    feed: Mutex<Feed>,
    feed_ready: Condvar,
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl Checkpoints {
    /// Opens the checkpoints kept in `dir` for the project at `root` (canonical), finishing a
    /// restore a crash cut short. Nothing is watched until [`Checkpoints::watch`].
    pub fn open(dir: &Path, root: &Path) -> Result<(Checkpoints, Option<Restored>)> {
        let blobs = Blobs::open(dir)?;
        let (records, read) = Records::open(dir)?;
        let mut inner = Inner {
            blobs,
            records,
            base: None,
            git: None,
            recorded: BTreeMap::new(),
            tool_pre: BTreeMap::new(),
            tool_wrote: BTreeMap::new(),
            checkpoints: Vec::new(),
            uncopied: Uncopied::default(),
            observed: false,
        };
        for r in read {
            match r {
                Record::Base(b) => {
                    inner.recorded = b.dirty.clone();
                    if b.uncopied > 0 {
                        inner.uncopied = Uncopied::read(dir, b.uncopied);
                    }
                    inner.base = Some(b);
                }
                Record::ToolPre { path, state, at_ms } => {
                    inner.wrote(&path, at_ms);
                    inner.tool_pre.entry(path).or_insert(state);
                }
                Record::ToolWrote { path, at_ms } => inner.wrote(&path, at_ms),
                Record::Checkpoint(c) => {
                    for ch in &c.changes {
                        inner.recorded.insert(ch.path.clone(), ch.after.clone());
                    }
                    inner.tool_pre.clear();
                    inner.checkpoints.push(c);
                }
            }
        }
        if let Some(GitBase { tree, prefix }) = inner.base.as_ref().and_then(|b| b.git.clone())
            && let Some((repo, _)) = GitView::discover(root)
        {
            let tree = tree.and_then(|t| git2::Oid::from_str(&t).ok());
            inner.git = Some(GitView::new(repo, prefix, tree));
        }
        let cps = Checkpoints {
            root: root.to_path_buf(),
            dir: dir.to_path_buf(),
            inner: Mutex::new(inner),
            feed: Mutex::new(Feed::Off),
            feed_ready: Condvar::new(),
        };
        let recovered = cps.recover()?;
        Ok((cps, recovered))
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn feed(&self) -> MutexGuard<'_, Feed> {
        self.feed.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Watches the project from now on, so each checkpoint costs what changed. Blocks while the
    /// watches are set (a walk of the folders git does not ignore): run it off the hot path.
    pub fn watch(&self) {
        {
            let mut feed = self.feed();
            if !matches!(*feed, Feed::Off) {
                return;
            }
            *feed = Feed::Starting;
        }
        let options = FeedOptions {
            skip_ignored: true,
            report_git: false,
        };
        let began = std::time::Instant::now();
        let started = TreeFeed::start(&self.root, &self.dir.join("sync"), options, &mut |_, _| {});
        let mut feed = self.feed();
        *feed = match started {
            Ok(f) => {
                tracing::debug!(ms = began.elapsed().as_millis(), "the project is watched");
                Feed::On(f)
            }
            Err(e) => {
                tracing::info!(%e, "the project cannot be watched; each checkpoint looks at the whole project");
                Feed::Failed
            }
        };
        self.feed_ready.notify_all();
    }

    /// The paths the watcher saw since the last take (`take`), or since the last checkpoint
    /// without taking them; None when there is no watcher. Waits for one being set up.
    fn watched(&self, take: bool) -> Option<Taken> {
        let mut feed = self.feed();
        let deadline = std::time::Instant::now() + FEED_WAIT;
        while matches!(*feed, Feed::Starting) {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return None;
            }
            feed = self
                .feed_ready
                .wait_timeout(feed, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        match &*feed {
            Feed::On(f) if take => Some(f.take()),
            Feed::On(f) => Some(f.peek()),
            _ => None,
        }
    }

    /// Whether the project is a git repository (command changes come back) — known once the
    /// first checkpoint is taken; until then, whether it is one now.
    pub fn git(&self) -> bool {
        match &self.inner().base {
            Some(b) => b.git.is_some(),
            None => GitView::discover(&self.root).is_some(),
        }
    }

    /// Whether a program made the file at `path`, not a person: git ignores it, or its name
    /// says so (`__pycache__/`, `*.pyc`, `node_modules/`, build output). For ordering a
    /// restore's preview; it restores like any other file.
    pub fn generated(&self, path: &str) -> bool {
        if crate::generated::by_name(path) {
            return true;
        }
        match &self.inner().git {
            Some(g) => g.is_ignored(path),
            None => GitView::discover(&self.root).is_some_and(|(repo, prefix)| {
                repo.is_path_ignored(format!("{prefix}{path}"))
                    .unwrap_or(false)
            }),
        }
    }

    /// The first checkpoint: the project before the session changed anything.
    pub fn session_start(&self) -> Option<u32> {
        self.inner().checkpoints.first().map(|c| c.id)
    }

    /// The session log's position when checkpoint `id` was taken.
    pub fn log_seq(&self, id: u32) -> Option<u64> {
        self.inner()
            .checkpoints
            .iter()
            .find(|c| c.id == id)
            .map(|c| c.log_seq)
    }

    /// Every checkpoint recorded, oldest first.
    pub fn records(&self) -> Vec<CheckpointRecord> {
        self.inner().checkpoints.clone()
    }

    /// Keeps what a tool finds at `path` (project-relative) before it first writes it after
    /// the last checkpoint. Called just before the write.
    pub fn before_write(&self, path: &str) -> Result<()> {
        let mut inner = self.inner();
        let at_ms = now_ms();
        if inner.tool_pre.contains_key(path) {
            // A later write: only its time is kept (a restore tells the person's changes
            // after it from the agent's).
            inner.records.append(&Record::ToolWrote {
                path: path.to_string(),
                at_ms,
            })?;
            inner.wrote(path, at_ms);
            return Ok(());
        }
        inner.wrote(path, at_ms);
        let full = self.root.join(path_text::to_path(path));
        let state = match read_now(&full).map_err(io(&full))? {
            OnDisk::Absent => FileState::Absent,
            OnDisk::File { bytes, mode } => {
                let oid = inner.blobs.put(&bytes)?;
                // The write that follows must not be able to outlive the copy.
                inner.blobs.sync(&[oid])?;
                FileState::file(oid, mode)
            }
            OnDisk::TooLarge => FileState::Unknown {
                reason: NotRestorableReason::TooLarge,
            },
            OnDisk::Folder | OnDisk::Other => FileState::Unknown {
                reason: NotRestorableReason::FolderInTheWay,
            },
            OnDisk::Unreadable => FileState::Unknown {
                reason: NotRestorableReason::Unreadable,
            },
        };
        inner.records.append(&Record::ToolPre {
            path: path.to_string(),
            state: state.clone(),
            at_ms,
        })?;
        inner.tool_pre.insert(path.to_string(), state);
        Ok(())
    }

    /// The agent changed `path` where nothing kept it first (a command without a layer; its
    /// change was found afterwards): recorded, so a restore never calls it the person's.
    pub fn agent_wrote(&self, path: &str) -> Result<()> {
        let mut inner = self.inner();
        let at_ms = now_ms();
        inner.records.append(&Record::ToolWrote {
            path: path.to_string(),
            at_ms,
        })?;
        inner.wrote(path, at_ms);
        Ok(())
    }

    /// Whether `path` changed after the agent last changed it (the person's edit on top of
    /// the agent's): its time is later than that write's. Unknown times say no.
    pub fn changed_after_agent(&self, path: &str) -> bool {
        let Some(wrote) = self.inner().tool_wrote.get(path).copied() else {
            return false;
        };
        if wrote.at_ms == 0 {
            return false;
        }
        let full = self.root.join(path_text::to_path(path));
        std::fs::symlink_metadata(&full)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .is_some_and(|d| d.as_millis() as u64 > wrote.at_ms + WRITE_SLACK_MS)
    }

    /// Whether the agent (its tools, its commands) changed `path` after checkpoint `target`:
    /// a change since then that it did not make is the person's own, or another program's.
    pub fn agent_changed_since(&self, target: u32, path: &str) -> bool {
        self.inner()
            .tool_wrote
            .get(path)
            .is_some_and(|w| w.after >= target)
    }

    /// The id the next checkpoint taken will have (a turn that goes on while its checkpoint is
    /// taken names it as its own).
    pub fn next_id(&self) -> u32 {
        let inner = self.inner();
        match inner.base {
            None => 0,
            Some(_) => inner.checkpoints.last().map_or(0, |c| c.id + 1),
        }
    }

    /// Records the project as it is now: a new checkpoint, with what changed since the last
    /// one. `log_seq` is the session log's next sequence number (the conversation's position).
    pub fn checkpoint(&self, log_seq: u64) -> Result<u32> {
        if self.dir.join(JOURNAL).exists() {
            return Err(CheckpointError::Unfinished);
        }
        let began = std::time::Instant::now();
        let watched = self.watched(true);
        let mut inner = self.inner();
        if inner.base.is_none() {
            tracing::debug!(ms = began.elapsed().as_millis(), "the watcher is ready");
            let id = self.make_base(&mut inner, log_seq);
            tracing::debug!(
                ms = began.elapsed().as_millis(),
                "the first checkpoint is taken"
            );
            return id;
        }
        // Outside git, what the watcher did not see is not known at all.
        let unwatched = inner.git.is_none()
            && !(inner.observed && watched.as_ref().is_some_and(|w| w.complete));
        let scanned = self.scan(&mut inner, watched)?;
        inner.blobs.sync(&scanned.written)?;
        let id = inner.checkpoints.last().map_or(0, |c| c.id + 1);
        let record = CheckpointRecord {
            id,
            at_ms: now_ms(),
            log_seq,
            cause: Cause::Work,
            changes: scanned.changes,
            ignored: scanned.ignored,
            unwatched,
        };
        self.commit(&mut inner, record)?;
        Ok(id)
    }

    /// What changed since the last checkpoint. `watched` is what the watcher saw; when it may
    /// have missed something (or there is none) the whole project is looked at.
    fn scan(&self, inner: &mut Inner, watched: Option<Taken>) -> Result<Scanned> {
        let inner = &mut *inner;
        let complete = inner.observed && watched.as_ref().is_some_and(|w| w.complete);
        let no_paths = BTreeSet::new();
        let known = Known {
            root: &self.root,
            blobs: &inner.blobs,
            git: inner.git.as_ref(),
            recorded: &inner.recorded,
            tool_pre: &inner.tool_pre,
            uncopied: &inner.uncopied,
            // Only a feed that saw every change since the last checkpoint knows what was new.
            created: match &watched {
                Some(w) if complete => &w.created,
                _ => &no_paths,
            },
        };
        let mut candidates: BTreeSet<String> = inner.tool_pre.keys().cloned().collect();
        if let Some(w) = &watched {
            candidates.extend(w.paths.iter().cloned());
        }
        if !complete {
            candidates.extend(full_candidates(&known)?);
        }
        let scanned = known.scan(&candidates)?;
        // From now on the watcher (if one runs) has seen everything since this look.
        inner.observed = watched.is_some();
        Ok(scanned)
    }

    fn commit(&self, inner: &mut Inner, record: CheckpointRecord) -> Result<()> {
        inner.records.append(&Record::Checkpoint(record.clone()))?;
        for c in &record.changes {
            inner.recorded.insert(c.path.clone(), c.after.clone());
        }
        inner.tool_pre.clear();
        inner.checkpoints.push(record);
        Ok(())
    }

    /// The first checkpoint: which files git saw as changed (their content kept: every other
    /// file held what HEAD holds), or, outside git, nothing. In a project with many untracked
    /// files, those are not copied: their names and stamps are kept instead (`uncopied`).
    fn make_base(&self, inner: &mut Inner, log_seq: u64) -> Result<u32> {
        let mut dirty = BTreeMap::new();
        let mut git_base = None;
        let mut written = Vec::new();
        let mut uncopied = BTreeMap::new();
        if let Some((repo, prefix)) = GitView::discover(&self.root) {
            let tree = GitView::head_tree(&repo);
            let view = GitView::new(repo, prefix.clone(), tree);
            let status: Vec<(String, bool, Option<std::fs::Metadata>)> = view
                .status(true)?
                .into_iter()
                .map(|(path, untracked)| {
                    let meta = std::fs::symlink_metadata(self.root.join(path_text::to_path(&path)));
                    (path, untracked, meta.ok())
                })
                .collect();
            let bytes: u64 = status
                .iter()
                .filter_map(|(_, _, m)| m.as_ref().filter(|m| m.is_file()).map(|m| m.len()))
                .sum();
            let copy_all = status.len() <= COPY_AT_START_FILES && bytes <= COPY_AT_START_BYTES;
            for (path, untracked, meta) in status {
                if !copy_all
                    && untracked
                    && let Some(meta) = meta.filter(|m| m.is_file() || m.is_symlink())
                {
                    uncopied.insert(path, Stamp::of(&meta));
                    continue;
                }
                let full = self.root.join(path_text::to_path(&path));
                let state = match read_now(&full).map_err(io(&full))? {
                    OnDisk::File { bytes, mode } => {
                        let oid = inner.blobs.put(&bytes)?;
                        written.push(oid);
                        FileState::file(oid, mode)
                    }
                    OnDisk::TooLarge => FileState::Unknown {
                        reason: NotRestorableReason::TooLarge,
                    },
                    OnDisk::Unreadable => FileState::Unknown {
                        reason: NotRestorableReason::Unreadable,
                    },
                    OnDisk::Absent | OnDisk::Folder | OnDisk::Other => FileState::Absent,
                };
                dirty.insert(path, state);
            }
            git_base = Some(GitBase {
                tree: tree.map(|t| t.to_string()),
                prefix,
            });
            inner.git = Some(view);
        }
        let uncopied = Uncopied::new(uncopied);
        if uncopied.len() > 0 {
            tracing::info!(
                files = uncopied.len(),
                "many untracked files: their content is copied only before the agent changes them"
            );
            uncopied.write(&self.dir)?;
        }
        inner.blobs.sync(&written)?;
        let base = Base {
            git: git_base,
            dirty,
            uncopied: uncopied.len() as u64,
        };
        inner.uncopied = uncopied;
        inner.records.append(&Record::Base(base.clone()))?;
        inner.recorded = base.dirty.clone();
        inner.base = Some(base);
        inner.tool_pre.clear();
        inner.observed = matches!(*self.feed(), Feed::On(_));
        let record = CheckpointRecord {
            id: 0,
            at_ms: now_ms(),
            log_seq,
            cause: Cause::Work,
            changes: Vec::new(),
            ignored: Vec::new(),
            unwatched: false,
        };
        self.commit(inner, record)?;
        Ok(0)
    }

    /// What each path holds now, given the changes not yet recorded.
    fn current<'a>(inner: &'a Inner, pending: &'a [Change]) -> impl Fn(&str) -> FileState + 'a {
        move |path: &str| {
            if let Some(c) = pending.iter().find(|c| c.path == path) {
                return c.after.clone();
            }
            if let Some(s) = inner.recorded.get(path) {
                return s.clone();
            }
            match &inner.git {
                Some(g) => match g.at_start(path) {
                    Ok(FileState::Absent) if inner.uncopied.holds(path) => FileState::Unknown {
                        reason: NotRestorableReason::NotCopied,
                    },
                    Ok(state) => state,
                    Err(_) => FileState::Unknown {
                        reason: NotRestorableReason::NotTracked,
                    },
                },
                None => FileState::Unknown {
                    reason: NotRestorableReason::OutsideGit,
                },
            }
        }
    }

    fn check_target(inner: &Inner, target: u32) -> Result<()> {
        if inner.checkpoints.is_empty() {
            return Err(CheckpointError::NoneYet);
        }
        if !inner.checkpoints.iter().any(|c| c.id == target) {
            return Err(CheckpointError::NoCheckpoint(target));
        }
        Ok(())
    }

    /// What restoring the files to `target` would do now (only `paths`, when given), without
    /// doing it or recording anything.
    pub fn preview(&self, target: u32, paths: Option<&[String]>) -> Result<Plan> {
        let watched = self.watched(false);
        let mut inner = self.inner();
        Self::check_target(&inner, target)?;
        // A look, not a checkpoint: the watcher keeps its paths for the next one.
        let observed = inner.observed;
        let scanned = self.scan(&mut inner, watched)?;
        inner.observed = observed;
        let current = Self::current(&inner, &scanned.changes);
        let mut plan = crate::plan::plan(
            &self.root,
            &inner.checkpoints,
            &scanned.changes,
            &scanned.ignored,
            target,
            paths,
            &current,
        );
        set_aside_missing_copies(&mut plan, &inner.blobs);
        Ok(plan)
    }

    /// The text `path` (project-relative) held at the last checkpoint, or before the tools
    /// first wrote it since: the common ancestor when a change made since is merged with
    /// another. `None` when there is no checkpoint yet, or it was not text.
    pub fn text_at_last(&self, path: &str) -> Option<String> {
        // Each look takes the lock on its own: `text` and `preview` take it again.
        let before_tools = self.inner().tool_pre.get(path).cloned();
        if let Some(state) = before_tools {
            return self.text(&state);
        }
        let last = self.inner().checkpoints.last().map(|c| c.id)?;
        let plan = self.preview(last, Some(&[path.to_string()])).ok()?;
        match plan.writes.iter().find(|w| w.path == path) {
            Some(w) => self.text(&w.to),
            // Nothing to restore: it is as it was then.
            None if plan.not_restorable.is_empty() => {
                std::fs::read_to_string(self.root.join(path_text::to_path(path))).ok()
            }
            None => None,
        }
    }

    /// The bytes a state names (of its target, for a link): from the session's store, or
    /// from the user's repository for a file unchanged since the session began.
    pub fn bytes(&self, state: &FileState) -> Option<Vec<u8>> {
        let oid = state.oid()?;
        let inner = self.inner();
        match inner.blobs.get(oid) {
            Ok(bytes) => Some(bytes),
            Err(_) => inner.git.as_ref()?.blob(oid),
        }
    }

    /// The text of a state, for the preview's diff: None when absent, not UTF-8 or too big.
    pub fn text(&self, state: &FileState) -> Option<String> {
        let bytes = self.bytes(state)?;
        if bytes.len() > PREVIEW_TEXT_BYTES {
            return None;
        }
        String::from_utf8(bytes).ok()
    }

    /// Restores the files to `target` (only `paths`, when given): first a checkpoint of the
    /// project as it is (the one that undoes this restore), then a journal of every write,
    /// then the writes, each whole or not at all, then a checkpoint of the result. `extra` is
    /// kept in the journal for the caller's own part; call [`Checkpoints::finish`] once that is
    /// done.
    pub fn restore(
        &self,
        target: u32,
        paths: Option<&[String]>,
        log_seq: u64,
        extra: serde_json::Value,
    ) -> Result<Restored> {
        self.restore_with(target, paths, log_seq, extra, &mut |_| true)
    }

    /// [`Checkpoints::restore`], asking `go_on` before each write (false stops there, as a
    /// crash would: the journal stays for the next start).
    fn restore_with(
        &self,
        target: u32,
        paths: Option<&[String]>,
        log_seq: u64,
        extra: serde_json::Value,
        go_on: &mut dyn FnMut(usize) -> bool,
    ) -> Result<Restored> {
        {
            let inner = self.inner();
            Self::check_target(&inner, target)?;
        }
        let undo = self.checkpoint(log_seq)?;
        let mut inner = self.inner();
        let mut plan = {
            let current = Self::current(&inner, &[]);
            crate::plan::plan(
                &self.root,
                &inner.checkpoints,
                &[],
                &[],
                target,
                paths,
                &current,
            )
        };
        // Every copy a write needs must be in the store, and durable, before anything is
        // touched: the content it brings back and the content it replaces (for the undo).
        set_aside_missing_copies(&mut plan, &inner.blobs);
        let oids: Vec<git2::Oid> = plan
            .writes
            .iter()
            .flat_map(|w| [w.to.oid(), w.from.oid()])
            .flatten()
            .collect();
        inner.blobs.sync(&oids)?;
        let journal = Journal {
            undo,
            target,
            writes: plan.writes.clone(),
            extra,
        };
        let text =
            serde_json::to_vec(&journal).map_err(|e| io(&self.dir)(std::io::Error::other(e)))?;
        let journal_path = self.dir.join(JOURNAL);
        tools::write_atomic(&journal_path, &text).map_err(io(&journal_path))?;
        let mut failed = Vec::new();
        for (i, w) in plan.writes.iter().enumerate() {
            if !go_on(i) {
                return Err(CheckpointError::Unfinished);
            }
            if let Err(reason) = self.put(&inner.blobs, w) {
                failed.push(NotRestorable {
                    path: w.path.clone(),
                    reason,
                });
            }
        }
        let mut restored = self.record_restore(&mut inner, &journal, log_seq, failed)?;
        restored.plan.not_restorable.extend(plan.not_restorable);
        restored.plan.not_restorable.sort();
        restored.plan.not_restorable.dedup();
        Ok(restored)
    }

    fn put(&self, blobs: &Blobs, w: &Write) -> std::result::Result<(), NotRestorableReason> {
        let bytes = match w.to.oid() {
            Some(oid) => Some(
                blobs
                    .get(oid)
                    .map_err(|_| NotRestorableReason::CopyMissing)?,
            ),
            None => None,
        };
        put(&self.root, &w.path, &w.to, bytes.as_deref()).map_err(|e| match e {
            PutError::InTheWay => NotRestorableReason::FolderInTheWay,
            PutError::Io(e) => {
                tracing::warn!(path = %w.path, %e, "a file could not be restored");
                NotRestorableReason::WriteFailed
            }
        })
    }

    /// The checkpoint a restore ends with: what each written path holds now.
    fn record_restore(
        &self,
        inner: &mut Inner,
        journal: &Journal,
        log_seq: u64,
        failed: Vec<NotRestorable>,
    ) -> Result<Restored> {
        let mut changes = Vec::new();
        for w in &journal.writes {
            let after = if failed.iter().any(|f| f.path == w.path) {
                self.state_now(&inner.blobs, &w.path)?
            } else {
                w.to.clone()
            };
            if after != w.from {
                changes.push(Change {
                    path: w.path.clone(),
                    before: w.from.clone(),
                    after,
                });
            }
        }
        let record = CheckpointRecord {
            id: journal.undo + 1,
            at_ms: now_ms(),
            log_seq,
            cause: Cause::Restore {
                target: journal.target,
                undo: journal.undo,
            },
            changes,
            ignored: Vec::new(),
            unwatched: false,
        };
        self.commit(inner, record)?;
        let mut plan = Plan {
            target: journal.target,
            writes: journal
                .writes
                .iter()
                .filter(|w| !failed.iter().any(|f| f.path == w.path))
                .cloned()
                .collect(),
            not_restorable: failed,
        };
        plan.not_restorable.sort();
        Ok(Restored {
            undo: journal.undo,
            checkpoint: journal.undo + 1,
            plan,
            extra: journal.extra.clone(),
        })
    }

    /// What a path holds now, kept in the store.
    fn state_now(&self, blobs: &Blobs, path: &str) -> Result<FileState> {
        let full = self.root.join(path_text::to_path(path));
        Ok(match read_now(&full).map_err(io(&full))? {
            OnDisk::File { bytes, mode } => FileState::file(blobs.put(&bytes)?, mode),
            OnDisk::TooLarge => FileState::Unknown {
                reason: NotRestorableReason::TooLarge,
            },
            OnDisk::Unreadable => FileState::Unknown {
                reason: NotRestorableReason::Unreadable,
            },
            OnDisk::Absent | OnDisk::Folder | OnDisk::Other => FileState::Absent,
        })
    }

    /// The restore is wholly done (the caller's part too): the journal goes.
    pub fn finish(&self) -> Result<()> {
        let path = self.dir.join(JOURNAL);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(io(&path)(e)),
        }
    }

    /// A restore a crash cut short is finished: each file still as it was is written as the
    /// restore meant; one already written is left; one changed since by someone else is left
    /// and named. The journal stays until the caller has finished its part.
    fn recover(&self) -> Result<Option<Restored>> {
        let path = self.dir.join(JOURNAL);
        let journal: Journal = match std::fs::read(&path) {
            Ok(bytes) => match serde_json::from_slice(&bytes) {
                Ok(j) => j,
                Err(e) => {
                    // The journal is written whole or not at all: this one is not ours.
                    tracing::warn!(%e, path = %path.display(), "an unreadable restore journal is set aside");
                    let _ = std::fs::rename(&path, path.with_extension("damaged"));
                    return Ok(None);
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(&path)(e)),
        };
        let mut inner = self.inner();
        let done = inner
            .checkpoints
            .iter()
            .find(|c| matches!(c.cause, Cause::Restore { undo, .. } if undo == journal.undo));
        if let Some(done) = done {
            // The files were all written; only the caller's part may be missing.
            let plan = Plan {
                target: journal.target,
                writes: journal.writes.clone(),
                not_restorable: Vec::new(),
            };
            return Ok(Some(Restored {
                undo: journal.undo,
                checkpoint: done.id,
                plan,
                extra: journal.extra,
            }));
        }
        let mut failed = Vec::new();
        for w in &journal.writes {
            let now = self.state_now(&inner.blobs, &w.path)?;
            if now == w.to {
                continue;
            }
            if now != w.from {
                failed.push(NotRestorable {
                    path: w.path.clone(),
                    reason: NotRestorableReason::WriteFailed,
                });
                continue;
            }
            if let Err(reason) = self.put(&inner.blobs, w) {
                failed.push(NotRestorable {
                    path: w.path.clone(),
                    reason,
                });
            }
        }
        let log_seq = inner
            .checkpoints
            .iter()
            .find(|c| c.id == journal.undo)
            .map_or(0, |c| c.log_seq);
        tracing::info!(
            target = journal.target,
            files = journal.writes.len(),
            "finished a restore cut short"
        );
        self.record_restore(&mut inner, &journal, log_seq, failed)
            .map(Some)
    }

    /// What a path holds now, as a checkpoint would record it (nothing is kept).
    pub fn state_of(&self, path: &str) -> Result<FileState> {
        let full = self.root.join(path_text::to_path(path));
        Ok(match read_now(&full).map_err(io(&full))? {
            OnDisk::File { bytes, mode } => FileState::file(blob_id(&bytes), mode),
            OnDisk::TooLarge => FileState::Unknown {
                reason: NotRestorableReason::TooLarge,
            },
            OnDisk::Unreadable => FileState::Unknown {
                reason: NotRestorableReason::Unreadable,
            },
            OnDisk::Absent | OnDisk::Folder | OnDisk::Other => FileState::Absent,
        })
    }

    /// Whether `path` is one the filter `paths` covers.
    pub fn covers(paths: Option<&[String]>, path: &str) -> bool {
        wanted(paths, path)
    }
}

/// Writes whose copies (what they bring back, or what they replace, for the undo) are not in
/// the store are named instead of planned: the preview must promise only what the restore does.
fn set_aside_missing_copies(plan: &mut Plan, blobs: &Blobs) {
    let (ok, missing): (Vec<Write>, Vec<Write>) = plan.writes.drain(..).partition(|w| {
        [&w.to, &w.from]
            .iter()
            .all(|s| s.oid().is_none_or(|o| blobs.has(o)))
    });
    for w in missing {
        plan.not_restorable.push(NotRestorable {
            path: w.path,
            reason: NotRestorableReason::CopyMissing,
        });
    }
    plan.not_restorable.sort();
    plan.writes = ok;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }

    /// A crash in the middle of a restore (simulated by stopping after two of six writes)
    /// leaves the journal; the next start finishes the restore, hands back what the caller
    /// kept in it, and the finished restore is undone like any other.
    #[test]
    fn a_restore_cut_short_is_finished_at_the_next_start() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        let store = tempfile::tempdir().expect("store");
        write(&root, "README.md", "# Project\n");
        {
            let (cps, _) = Checkpoints::open(store.path(), &root).expect("open");
            cps.checkpoint(1).expect("cp");
            for i in 0..5 {
                let rel = format!("f{i}.txt");
                cps.before_write(&rel).expect("pre");
                write(&root, &rel, &format!("new {i}\n"));
            }
            cps.before_write("README.md").expect("pre");
            write(&root, "README.md", "changed\n");
            cps.checkpoint(2).expect("cp");
            let cut = cps.restore_with(0, None, 3, serde_json::json!({"note": "mine"}), &mut |i| {
                i < 2
            });
            assert!(matches!(cut, Err(CheckpointError::Unfinished)));
        }
        let files = |root: &Path| {
            (0..5)
                .filter(|i| root.join(format!("f{i}.txt")).exists())
                .count()
        };
        let readme = |root: &Path| std::fs::read_to_string(root.join("README.md")).expect("read");
        // Each file is old or new, never half; some are each.
        let left = files(&root) + usize::from(readme(&root) == "changed\n");
        assert_eq!(left, 4, "two of the six writes were done");
        let (cps, recovered) = Checkpoints::open(store.path(), &root).expect("reopen");
        let recovered = recovered.expect("the restore was finished");
        assert_eq!(recovered.extra, serde_json::json!({"note": "mine"}));
        assert_eq!(recovered.plan.writes.len(), 6);
        assert!(recovered.plan.not_restorable.is_empty());
        assert_eq!((files(&root), readme(&root).as_str()), (0, "# Project\n"));
        // Until the caller says its part is done, the journal stays (and checkpoints wait).
        assert!(matches!(
            cps.checkpoint(4),
            Err(CheckpointError::Unfinished)
        ));
        cps.finish().expect("finish");
        cps.restore(recovered.undo, None, 9, serde_json::Value::Null)
            .expect("undo");
        cps.finish().expect("finish");
        assert_eq!((files(&root), readme(&root).as_str()), (5, "changed\n"));
    }
}
