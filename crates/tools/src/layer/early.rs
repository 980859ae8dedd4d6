//! A background command's changes while it still runs: how many wait in its layer, and, when
//! someone asks, a copy of them taken out into a layer of their own and landed as the
//! command's end would land them (ignored output is the mirror's). The live layer is only read,
//! never changed under its mount. Each entry taken is remembered by its stamp, so the command's
//! end lands or asks about only what changed after; what the early landing put in the project
//! is noted as the command's own, so it is never taken for the person's work.

use super::kinds::Kind;
use super::land::{self, Landing, Mirrored};
use super::read::{self, OPAQUE};
use super::{CommandLayer, Landed, plan};
use std::collections::HashMap;
use std::hash::{Hash as _, Hasher as _};
use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long a count of waiting changes is reused: the window asks every second or two, and a
/// count walks the layer.
const COUNT_REUSED: Duration = Duration::from_secs(2);

/// What a layer keeps about changes taken out of it before it ended.
#[derive(Debug, Default)]
pub(crate) struct Early {
    state: Mutex<EarlyState>,
    /// This layer is itself a copy taken out of a running command's: what it lands is noted
    /// as that command's own.
    pub(crate) copy: bool,
}

#[derive(Debug, Default)]
struct EarlyState {
    /// Each entry of the layer taken out (relative path), with its stamp then.
    taken: HashMap<PathBuf, u64>,
    /// The command ended and its layer is landing: nothing more is taken out.
    closed: bool,
    /// The last count of changes waiting, and when it was made.
    counted: Option<(Instant, u32)>,
}

impl Early {
    pub(crate) fn for_copy() -> Self {
        Early {
            copy: true,
            ..Early::default()
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, EarlyState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Closes the layer to early takes (its landing begins); waits for one under way.
    pub(crate) fn close(&self) {
        self.state().closed = true;
    }

    /// Drops from `steps` those taken out already whose entry in `upper` has not changed
    /// since: they were landed or answered then.
    pub(crate) fn drop_taken(&self, upper: &Path, steps: &mut Vec<plan::Step>) {
        drop_taken(&self.state().taken, upper, steps);
    }
}

fn drop_taken(taken: &HashMap<PathBuf, u64>, upper: &Path, steps: &mut Vec<plan::Step>) {
    if taken.is_empty() {
        return;
    }
    steps.retain(|s| {
        taken
            .get(&s.rel)
            .is_none_or(|t| stamp(&upper.join(&s.rel)) != Some(*t))
    });
}

/// A running command's layer as seen from outside: shared with its task in the registry.
#[derive(Clone)]
pub struct LayerView {
    project: PathBuf,
    root: PathBuf,
    started: std::time::SystemTime,
    base_of: Option<super::BaseOf>,
    mirrored: Arc<Mutex<Mirrored>>,
    early: Arc<Early>,
    landing: Landing,
}

impl std::fmt::Debug for LayerView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LayerView")
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

impl CommandLayer {
    /// The view of this layer its background task keeps, to count and take out its changes
    /// while it runs; `landing` says what lands unasked, as at its end.
    pub fn view(&self, landing: Landing) -> LayerView {
        LayerView {
            project: self.project.clone(),
            root: self.root.clone(),
            started: self.started,
            base_of: self.base_of.clone(),
            mirrored: self.mirrored.clone(),
            early: self.early.clone(),
            landing,
        }
    }
}

impl LayerView {
    fn upper(&self) -> PathBuf {
        self.root.join("upper")
    }

    /// The changes that wait in the layer now: not ignored output (the mirror's), not what
    /// never lands (a FIFO: said at the end), not taken out already.
    fn waiting_steps(&self, taken: &HashMap<PathBuf, u64>) -> std::io::Result<Vec<plan::Step>> {
        let upper = self.upper();
        let mut steps = plan::plan(&self.project, &upper)?;
        steps.retain(|s| s.kind != Kind::Ignored && s.item != protocol::ItemKind::Special);
        drop_taken(taken, &upper, &mut steps);
        Ok(steps)
    }

    /// How many changes wait in the layer for its end (or a review on request): project
    /// files, git's work and files that make programs run code. Counted at most every two
    /// seconds.
    pub fn waiting(&self) -> u32 {
        let taken = {
            let state = self.early.state();
            if let Some((at, n)) = state.counted
                && at.elapsed() < COUNT_REUSED
            {
                return n;
            }
            state.taken.clone()
        };
        let n = self.waiting_steps(&taken).map_or(0, |s| s.len() as u32);
        let mut state = self.early.state();
        if !state.closed {
            state.counted = Some((Instant::now(), n));
        }
        n
    }

    /// Takes the changes waiting now out of the running command's layer (copies, the live
    /// layer is only read) and lands them as its end would: what lands unasked lands, what
    /// needs a yes is held for a review ([`Landed::held`]). An entry that changes while it is
    /// copied is left for later. Nothing is taken once the command's own landing began.
    pub fn take(
        &self,
        before_write: Option<&(dyn Fn(&str) + Send + Sync)>,
    ) -> std::io::Result<Landed> {
        let mut state = self.early.state();
        if state.closed {
            return Ok(Landed::default());
        }
        let steps = self.waiting_steps(&state.taken)?;
        if steps.is_empty() {
            return Ok(Landed::default());
        }
        let copy = CommandLayer::copy_of(self)?;
        let (upper, to) = (self.upper(), copy.upper());
        let mut any = false;
        for step in &steps {
            let from = upper.join(&step.rel);
            let Some(before) = stamp(&from) else { continue };
            let copied = copy_entry(&from, &to.join(&step.rel), &to);
            if copied.is_ok() && stamp(&from) == Some(before) {
                state.taken.insert(step.rel.clone(), before);
                any = true;
            } else {
                if let Err(e) = &copied {
                    tracing::debug!(%e, path = %step.rel.display(), "a change not taken out yet");
                }
                let _ = land::remove_any(&to.join(&step.rel));
            }
        }
        state.counted = None;
        drop(state);
        if !any {
            copy.discard()?;
            return Ok(Landed::default());
        }
        copy.land(&self.landing, before_write)
    }
}

impl CommandLayer {
    /// A fresh layer beside `view`'s, for changes taken out of it: the same project, start and
    /// merge base, and the same record of what was copied into the project for it.
    fn copy_of(view: &LayerView) -> std::io::Result<Self> {
        let parent = view
            .root
            .parent()
            .ok_or_else(|| std::io::Error::other("a layer with no folder"))?;
        let n = super::NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let root = parent.join(format!("{}-{n}", std::process::id()));
        std::fs::create_dir_all(root.join("upper"))?;
        std::fs::create_dir_all(root.join("work"))?;
        Ok(CommandLayer {
            root,
            project: view.project.clone(),
            started: view.started,
            base_of: view.base_of.clone(),
            mirrored: view.mirrored.clone(),
            early: Arc::new(Early::for_copy()),
        })
    }
}

/// An entry's stamp: what it is and when it last changed (for a folder, all it holds), to
/// tell whether it changed after it was taken out.
pub(crate) fn stamp(path: &Path) -> Option<u64> {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    stamp_into(path, &mut h)?;
    Some(h.finish())
}

fn stamp_into(path: &Path, h: &mut impl std::hash::Hasher) -> Option<()> {
    let m = std::fs::symlink_metadata(path).ok()?;
    (
        m.ino(),
        m.mode(),
        m.len(),
        m.rdev(),
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec(),
    )
        .hash(h);
    if m.is_dir() {
        let mut names: Vec<_> = std::fs::read_dir(path)
            .ok()?
            .filter_map(Result::ok)
            .map(|e| e.file_name())
            .collect();
        names.sort();
        for name in names {
            name.hash(h);
            stamp_into(&path.join(&name), h)?;
        }
    }
    Some(())
}

/// Copies one entry of a layer (a file, a link, a deletion mark, a folder with all it holds)
/// to `to` in another layer rooted at `root`, making the folders above it as plain folders.
fn copy_entry(from: &Path, to: &Path, root: &Path) -> std::io::Result<()> {
    if let Some(parent) = to.parent()
        && parent.starts_with(root)
    {
        std::fs::create_dir_all(parent)?;
    }
    let meta = std::fs::symlink_metadata(from)?;
    let ft = meta.file_type();
    if ft.is_dir() {
        std::fs::create_dir(to)?;
        if read::xattr(from, OPAQUE).is_some_and(|v| v == b"y") {
            rustix::fs::lsetxattr(to, OPAQUE, b"y", rustix::fs::XattrFlags::empty())?;
        }
        for e in std::fs::read_dir(from)? {
            let e = e?;
            copy_entry(&e.path(), &to.join(e.file_name()), root)?;
        }
        std::fs::set_permissions(to, meta.permissions())?;
    } else if ft.is_symlink() {
        std::os::unix::fs::symlink(std::fs::read_link(from)?, to)?;
    } else if ft.is_file() {
        // Opened without following a link or blocking on a FIFO the command swapped in.
        use std::os::unix::fs::OpenOptionsExt as _;
        let mut src = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(
                (rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK).bits() as i32,
            )
            .open(from)?;
        if !src.metadata()?.is_file() {
            return Err(std::io::Error::other("not a file any more"));
        }
        let mut dst = std::fs::File::create(to)?;
        std::io::copy(&mut src, &mut dst)?;
        std::fs::set_permissions(to, meta.permissions())?;
    } else if ft.is_char_device() && meta.rdev() == 0 {
        // A deletion: the overlay's own mark, which any user may make.
        rustix::fs::mknodat(
            rustix::fs::CWD,
            to,
            rustix::fs::FileType::CharacterDevice,
            rustix::fs::Mode::from(0o600),
            0,
        )?;
    }
    // FIFOs, sockets and devices never land: not taken out.
    Ok(())
}
