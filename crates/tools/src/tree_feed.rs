//! Which paths of a project changed since the last look, without reading the tree: an inotify
//! watch on every folder (or every folder git does not ignore), read by a thread of its own.
//! This is what makes a checkpoint, or keeping the sandbox's list of secret files current, cost
//! what changed, not what the project holds.
//!
//! Before the paths are taken the feed is flushed: a marker file is written in a folder of the
//! session's own, watched by the same inotify instance, and the taker waits for its event. The
//! kernel queues events in order, so every change made before the flush has been seen by then.
//! When the kernel's queue overflowed, or a folder could not be watched (the watch limit), the
//! feed says it is not complete and the caller looks at the whole project instead.

use rustix::event::{EventfdFlags, PollFd, PollFlags};
use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};
use std::collections::{BTreeSet, HashMap};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd as _, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long a flush waits for its marker before the feed is taken as incomplete.
const FLUSH_WAIT: Duration = Duration::from_secs(2);

fn watch_flags() -> WatchFlags {
    WatchFlags::CREATE
        | WatchFlags::DELETE
        | WatchFlags::MODIFY
        | WatchFlags::CLOSE_WRITE
        | WatchFlags::MOVED_FROM
        | WatchFlags::MOVED_TO
        | WatchFlags::ATTRIB
        | WatchFlags::DELETE_SELF
        | WatchFlags::MOVE_SELF
        | WatchFlags::ONLYDIR
        | WatchFlags::DONT_FOLLOW
        | WatchFlags::EXCL_UNLINK
}

/// What a feed watches.
#[derive(Debug, Clone, Copy, Default)]
pub struct FeedOptions {
    /// Leave out the folders git ignores (`target/`, `node_modules/` in most projects).
    pub skip_ignored: bool,
    /// Report entries named `.git` (a repository inside the project), without looking into
    /// them; otherwise they are passed over silently.
    pub report_git: bool,
}

#[derive(Default)]
struct FeedState {
    paths: BTreeSet<String>,
    /// Paths whose first event since the last take was their creation: they were absent then.
    created: BTreeSet<String>,
    /// Events were lost (the queue overflowed, the reader failed) since the last take.
    lost: bool,
    /// Some folder could not be watched: the feed never sees everything.
    partial: bool,
    /// The highest flush marker seen.
    synced: u64,
    stop: bool,
}

struct Shared {
    options: FeedOptions,
    state: Mutex<FeedState>,
    flushed: Condvar,
    /// Watch descriptor → the folder it watches, project-relative (`""` for the root).
    dirs: Mutex<HashMap<i32, String>>,
}

impl Shared {
    fn state(&self) -> std::sync::MutexGuard<'_, FeedState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// What the feed saw since the last take.
#[derive(Debug, Default)]
pub struct Taken {
    pub paths: BTreeSet<String>,
    /// Those of `paths` that did not exist at the last take (made since; maybe gone again).
    pub created: BTreeSet<String>,
    /// False when changes may be missing from `paths`.
    pub complete: bool,
}

pub struct TreeFeed {
    shared: Arc<Shared>,
    fd: Arc<OwnedFd>,
    sync_dir: PathBuf,
    sync_wd: i32,
    /// Wakes the reader to stop: the sync folder may be gone (a session deleted), and with it
    /// the watch whose removal would have woken it.
    wake: Arc<OwnedFd>,
    next_marker: AtomicU64,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl TreeFeed {
    /// Watches every folder under `root` (as `options` say), and `sync_dir` (a folder of the
    /// caller's own, outside the project) for flushing. `found` is called with each entry the
    /// first walk meets (project-relative, and whether it is a folder). Returns once every
    /// watch is set.
    pub fn start(
        root: &Path,
        sync_dir: &Path,
        options: FeedOptions,
        found: &mut dyn FnMut(&str, bool),
    ) -> std::io::Result<TreeFeed> {
        std::fs::create_dir_all(sync_dir)?;
        // Non-blocking: the reader waits in poll, on this and on `wake`.
        let fd = Arc::new(inotify::init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK)?);
        let wake = Arc::new(rustix::event::eventfd(0, EventfdFlags::CLOEXEC)?);
        let sync_wd = inotify::add_watch(
            &*fd,
            sync_dir,
            WatchFlags::CREATE | WatchFlags::CLOSE_WRITE | WatchFlags::ONLYDIR,
        )?;
        let shared = Arc::new(Shared {
            options,
            state: Mutex::new(FeedState::default()),
            flushed: Condvar::new(),
            dirs: Mutex::new(HashMap::new()),
        });
        // The reader starts first, so the queue is drained while a big tree is being watched.
        let thread = {
            let (shared, fd, root) = (shared.clone(), fd.clone(), root.to_path_buf());
            let wake = wake.clone();
            std::thread::Builder::new()
                .name("checkpoint-watch".into())
                .spawn(move || {
                    // Its own handle on the repository (a handle is not shared across
                    // threads), to leave alone the new folders git ignores.
                    let git = if shared.options.skip_ignored {
                        discover(&root)
                    } else {
                        None
                    };
                    read_events(&root, &fd, &wake, sync_wd, &shared, git.as_ref())
                })?
        };
        let partial = !watch_tree(&fd, root, "", &shared, found);
        if partial {
            shared.state().partial = true;
        }
        Ok(TreeFeed {
            shared,
            fd,
            sync_dir: sync_dir.to_path_buf(),
            sync_wd,
            wake,
            next_marker: AtomicU64::new(1),
            thread: Some(thread),
        })
    }

    /// Waits until every change made before this call has been seen.
    fn flush(&self) -> bool {
        let n = self.next_marker.fetch_add(1, Ordering::SeqCst);
        let marker = self.sync_dir.join(n.to_string());
        if std::fs::write(&marker, b"").is_err() {
            return false;
        }
        let deadline = Instant::now() + FLUSH_WAIT;
        let mut state = self.shared.state();
        let seen = loop {
            if state.synced >= n {
                break true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || state.stop {
                break false;
            }
            state = self
                .shared
                .flushed
                .wait_timeout(state, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        };
        drop(state);
        let _ = std::fs::remove_file(&marker);
        seen
    }

    /// The paths changed since the last take (flushed first), and whether that is all of them.
    pub fn take(&self) -> Taken {
        let flushed = self.flush();
        let mut state = self.shared.state();
        let complete = flushed && !state.lost && !state.partial;
        state.lost = false;
        Taken {
            paths: std::mem::take(&mut state.paths),
            created: std::mem::take(&mut state.created),
            complete,
        }
    }

    /// The paths changed since the last take, left for the next one (a preview looks without
    /// taking).
    pub fn peek(&self) -> Taken {
        let flushed = self.flush();
        let state = self.shared.state();
        Taken {
            paths: state.paths.clone(),
            created: state.created.clone(),
            complete: flushed && !state.lost && !state.partial,
        }
    }
}

impl Drop for TreeFeed {
    fn drop(&mut self) {
        self.shared.state().stop = true;
        let _ = rustix::io::write(&*self.wake, &1u64.to_ne_bytes());
        let _ = inotify::remove_watch(&*self.fd, self.sync_wd);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

/// The repository `root` is in, and the project's folder inside it (`""` or ending in `/`).
fn discover(root: &Path) -> Option<(git2::Repository, String)> {
    let repo = git2::Repository::discover(root).ok()?;
    let workdir = repo.workdir()?.canonicalize().ok()?;
    let rel = root.strip_prefix(&workdir).ok()?;
    let mut prefix = rel.to_string_lossy().into_owned();
    if !prefix.is_empty() && !prefix.ends_with('/') {
        prefix.push('/');
    }
    Some((repo, prefix))
}

/// Watches `rel` (under `root`) and every folder below it (git's ignored ones left out when
/// asked), calling `found` with each entry met (but the top). False when some folder could not
/// be watched.
fn watch_tree(
    fd: &OwnedFd,
    root: &Path,
    rel: &str,
    shared: &Shared,
    found: &mut dyn FnMut(&str, bool),
) -> bool {
    let start = if rel.is_empty() {
        root.to_path_buf()
    } else {
        root.join(crate::path_text::to_path(rel))
    };
    let options = shared.options;
    let walk = ignore::WalkBuilder::new(&start)
        .standard_filters(options.skip_ignored)
        .hidden(false)
        .parents(options.skip_ignored)
        .require_git(false)
        .follow_links(false)
        // A `.git` is never looked into; reported (not watched) when asked.
        .filter_entry(move |e| {
            let inside_git = e
                .path()
                .parent()
                .is_some_and(|p| p.file_name().is_some_and(|n| n == ".git"));
            !inside_git && (e.file_name() != ".git" || options.report_git)
        })
        .build();
    let mut all = true;
    for entry in walk.flatten() {
        let Some(kind) = entry.file_type() else {
            continue;
        };
        let Ok(inner) = entry.path().strip_prefix(root) else {
            continue;
        };
        let inner = crate::path_text::from_path(inner);
        if entry.file_name() == ".git" {
            if !inner.is_empty() {
                found(&inner, kind.is_dir());
            }
            continue;
        }
        if kind.is_dir() {
            match inotify::add_watch(fd, entry.path(), watch_flags()) {
                Ok(wd) => {
                    shared
                        .dirs
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .insert(wd, inner.clone());
                }
                // Removed before it could be watched: nothing of it to see.
                Err(rustix::io::Errno::NOENT) | Err(rustix::io::Errno::NOTDIR) => {}
                Err(e) => {
                    if all {
                        tracing::info!(%e, dir = %entry.path().display(), "a folder cannot be watched; checkpoints look at the whole project instead");
                    }
                    all = false;
                }
            }
            if !inner.is_empty() {
                found(&inner, true);
            }
        } else if !inner.is_empty() {
            found(&inner, false);
        }
    }
    all
}

/// Waits until the inotify queue has events or the reader is woken to stop.
fn wait_readable(fd: &OwnedFd, wake: &OwnedFd) -> rustix::io::Result<()> {
    let mut fds = [
        PollFd::new(fd, PollFlags::IN),
        PollFd::new(wake, PollFlags::IN),
    ];
    match rustix::event::poll(&mut fds, None) {
        Ok(_) | Err(rustix::io::Errno::INTR) => Ok(()),
        Err(e) => Err(e),
    }
}

fn read_events(
    root: &Path,
    fd: &OwnedFd,
    wake: &OwnedFd,
    sync_wd: i32,
    shared: &Shared,
    git: Option<&(git2::Repository, String)>,
) {
    let mut buf = [MaybeUninit::<u8>::uninit(); 16 * 1024];
    let mut reader = inotify::Reader::new(fd.as_fd(), &mut buf);
    loop {
        if shared.state().stop {
            shared.flushed.notify_all();
            return;
        }
        let event = match reader.next() {
            Ok(e) => e,
            Err(rustix::io::Errno::INTR) => continue,
            Err(rustix::io::Errno::AGAIN) => match wait_readable(fd, wake) {
                Ok(()) => continue,
                Err(e) => {
                    tracing::warn!(%e, "the project watcher stopped waiting");
                    let mut state = shared.state();
                    state.lost = true;
                    state.partial = true;
                    shared.flushed.notify_all();
                    return;
                }
            },
            Err(e) => {
                tracing::warn!(%e, "the project watcher stopped reading");
                let mut state = shared.state();
                state.lost = true;
                state.partial = true;
                shared.flushed.notify_all();
                return;
            }
        };
        let flags = event.events();
        let wd = event.wd();
        let name = event
            .file_name()
            .map(|n| crate::path_text::from_bytes(n.to_bytes()))
            .filter(|n| !n.is_empty());
        if shared.state().stop {
            shared.flushed.notify_all();
            return;
        }
        if flags.contains(ReadFlags::QUEUE_OVERFLOW) {
            shared.state().lost = true;
            continue;
        }
        if wd == sync_wd {
            if let Some(n) = name.and_then(|n| n.parse::<u64>().ok()) {
                let mut state = shared.state();
                state.synced = state.synced.max(n);
                shared.flushed.notify_all();
            }
            continue;
        }
        let dir = {
            let mut dirs = shared.dirs.lock().unwrap_or_else(PoisonError::into_inner);
            if flags.contains(ReadFlags::IGNORED) {
                dirs.remove(&wd);
                continue;
            }
            dirs.get(&wd).cloned()
        };
        let Some(dir) = dir else { continue };
        let Some(name) = name else {
            // The watched folder itself was removed or moved: its parent's event names it too.
            if flags.intersects(ReadFlags::DELETE_SELF | ReadFlags::MOVE_SELF) && !dir.is_empty() {
                shared.state().paths.insert(dir);
            }
            continue;
        };
        let path = join(&dir, &name);
        if name == ".git" && !shared.options.report_git {
            // The project's own git folder changes with every git command: never a change of
            // the project's files.
            continue;
        }
        // Made (not moved in: a rename may replace a file that was there).
        let made = flags.contains(ReadFlags::CREATE);
        let mut found = vec![path.clone()];
        let ignored = || {
            git.is_some_and(|(repo, prefix)| {
                repo.is_path_ignored(format!("{prefix}{path}/"))
                    .unwrap_or(false)
            })
        };
        if flags.contains(ReadFlags::ISDIR)
            && flags.intersects(ReadFlags::CREATE | ReadFlags::MOVED_TO)
            && name != ".git"
            && !ignored()
        {
            // Files may be made in a new folder before its watch is set: each one found now
            // counts as changed.
            let complete = watch_tree(fd, root, &path, shared, &mut |f, _| {
                found.push(f.to_string())
            });
            if !complete {
                shared.state().partial = true;
            }
        }
        let mut state = shared.state();
        for p in found {
            // Only a first event counts: a file removed and made again was there before.
            if made && !state.paths.contains(&p) {
                state.created.insert(p.clone());
            }
            state.paths.insert(p);
        }
    }
}
