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
use rustix::fs::{FileType, OFlags};
use std::collections::HashMap;
use std::hash::{Hash as _, Hasher as _};
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::PermissionsExt as _;
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
    /// For a copy: the running command's layer it was taken from.
    parent: Option<Arc<Early>>,
    /// Held while changes land in the project, by the command's own landing and by those of
    /// copies taken from it: one after the other, each seeing what the other noted.
    landing: Mutex<()>,
}

#[derive(Debug, Default)]
struct EarlyState {
    /// Each entry of the layer taken out (relative path), with its stamp then.
    taken: HashMap<PathBuf, u64>,
    /// The command ended and its layer is landing: nothing more is taken out.
    closed: bool,
    /// The last count of changes waiting, and when it was made.
    counted: Option<(Instant, u32)>,
    /// For a copy: the entries it took from its command's layer, given back if nobody answers.
    given: Vec<PathBuf>,
}

impl Early {
    pub(crate) fn for_copy(parent: Arc<Early>) -> Self {
        Early {
            copy: true,
            parent: Some(parent),
            ..Early::default()
        }
    }

    /// Lands one after another: a copy's landing and its command's own never interleave.
    pub(crate) fn landing(&self) -> std::sync::MutexGuard<'_, ()> {
        self.parent
            .as_deref()
            .unwrap_or(self)
            .landing
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// A copy's changes were never answered (its review was dropped): its command's end
    /// asks about them again.
    pub(crate) fn untake(&self) {
        if let Some(parent) = &self.parent {
            let took = std::mem::take(&mut self.state().given);
            let mut state = parent.state();
            for rel in took {
                state.taken.remove(&rel);
            }
            state.counted = None;
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
            .is_none_or(|t| stamp(upper, &s.rel) != Some(*t))
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
        let mut taken = Vec::new();
        for step in &steps {
            let Some(before) = stamp(&upper, &step.rel) else {
                continue;
            };
            let copied = copy_entry(&upper, &to, &step.rel);
            if copied.is_ok() && stamp(&upper, &step.rel) == Some(before) {
                taken.push((step.rel.clone(), before));
            } else {
                if let Err(e) = &copied {
                    tracing::debug!(%e, path = %step.rel.display(), "a change not taken out yet");
                }
                let _ = land::remove_any(&to.join(&step.rel));
            }
        }
        state.counted = None;
        if taken.is_empty() {
            copy.discard()?;
            return Ok(Landed::default());
        }
        state.taken.extend(taken.iter().cloned());
        // The copy knows what it took, to give it back if nobody answers.
        copy.early
            .state()
            .given
            .extend(taken.iter().map(|(rel, _)| rel.clone()));
        // Landed with the lock held: the command's own landing (which closes it first) waits
        // for this one, and sees what it noted.
        let landed = copy.land(&self.landing, before_write);
        if landed.is_err() {
            for (rel, _) in &taken {
                state.taken.remove(rel);
            }
        }
        landed
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
            early: Arc::new(Early::for_copy(view.early.clone())),
        })
    }
}

/// An entry's stamp: what it is and when it last changed (for a folder, all it holds), to
/// tell whether it changed after it was taken out. Read below `root` without following links.
pub(crate) fn stamp(root: &Path, rel: &Path) -> Option<u64> {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    stamp_into(root, rel, &mut h)?;
    Some(h.finish())
}

fn stamp_into(root: &Path, rel: &Path, h: &mut impl std::hash::Hasher) -> Option<()> {
    let fd = read::open_beneath(root, rel, OFlags::PATH).ok()?;
    let m = rustix::fs::fstat(&fd).ok()?;
    (
        m.st_ino,
        m.st_mode,
        m.st_size,
        m.st_rdev,
        m.st_mtime,
        m.st_mtime_nsec,
        m.st_ctime,
        m.st_ctime_nsec,
    )
        .hash(h);
    if FileType::from_raw_mode(m.st_mode) == FileType::Directory {
        for name in listing(root, rel)? {
            name.hash(h);
            stamp_into(root, &rel.join(&name), h)?;
        }
    }
    Some(())
}

/// The names in folder `rel` below `root`, sorted (not followed if it became a link).
fn listing(root: &Path, rel: &Path) -> Option<Vec<std::ffi::OsString>> {
    let fd = read::open_beneath(root, rel, OFlags::RDONLY | OFlags::DIRECTORY).ok()?;
    let mut names: Vec<std::ffi::OsString> = rustix::fs::Dir::read_from(&fd)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| std::ffi::OsStr::from_bytes(e.file_name().to_bytes()).to_os_string())
        .filter(|n| n != "." && n != "..")
        .collect();
    names.sort();
    Some(names)
}

/// Copies entry `rel` of the layer at `from` (a file, a link, a deletion mark, a folder with
/// all it holds) to the same place in the layer at `to`. Nothing is followed: a command that
/// swaps a folder for a link to the rest of the machine meanwhile gets an error, not a copy
/// of what the link names. The folders above it are made with the layer's own modes.
fn copy_entry(from: &Path, to: &Path, rel: &Path) -> std::io::Result<()> {
    make_parents(from, to, rel)?;
    copy_one(from, to, rel)
}

fn make_parents(from: &Path, to: &Path, rel: &Path) -> std::io::Result<()> {
    let mut at = PathBuf::new();
    for part in rel.parent().into_iter().flat_map(Path::components) {
        at.push(part);
        let there = to.join(&at);
        if std::fs::symlink_metadata(&there).is_ok() {
            continue;
        }
        let fd = read::open_beneath(from, &at, OFlags::PATH | OFlags::DIRECTORY)?;
        let mode = rustix::fs::fstat(&fd)?.st_mode & 0o7777;
        std::fs::create_dir(&there)?;
        std::fs::set_permissions(&there, std::fs::Permissions::from_mode(mode))?;
    }
    Ok(())
}

fn copy_one(from: &Path, to: &Path, rel: &Path) -> std::io::Result<()> {
    let target = to.join(rel);
    let fd = read::open_beneath(from, rel, OFlags::PATH)?;
    let meta = rustix::fs::fstat(&fd)?;
    let mode = meta.st_mode & 0o7777;
    match FileType::from_raw_mode(meta.st_mode) {
        FileType::Directory => {
            std::fs::create_dir(&target)?;
            let dir = read::open_beneath(from, rel, OFlags::RDONLY | OFlags::DIRECTORY)?;
            let mut buf = [0u8; 8];
            if rustix::fs::fgetxattr(&dir, OPAQUE, &mut buf).is_ok_and(|n| &buf[..n] == b"y") {
                rustix::fs::lsetxattr(&target, OPAQUE, b"y", rustix::fs::XattrFlags::empty())?;
            }
            for name in listing(from, rel).ok_or_else(|| std::io::Error::other("unreadable"))? {
                copy_one(from, to, &rel.join(name))?;
            }
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(mode))?;
        }
        FileType::Symlink => {
            let link = rustix::fs::readlinkat(&fd, "", Vec::new())?;
            std::os::unix::fs::symlink(std::ffi::OsStr::from_bytes(link.as_bytes()), &target)?;
        }
        FileType::RegularFile => {
            let mut src = read::open_regular(from, rel)?
                .ok_or_else(|| std::io::Error::other("not a file any more"))?;
            let mut dst = std::fs::File::create(&target)?;
            std::io::copy(&mut src, &mut dst)?;
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(mode))?;
        }
        FileType::CharacterDevice if meta.st_rdev == 0 => {
            // A deletion: the overlay's own mark, which any user may make.
            rustix::fs::mknodat(
                rustix::fs::CWD,
                &target,
                FileType::CharacterDevice,
                rustix::fs::Mode::from(0o600),
                0,
            )?;
        }
        // FIFOs, sockets and devices never land: not taken out.
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A running command may swap a folder of its layer for a link to the rest of the machine
    /// between the look and the copy: nothing is followed, so nothing outside is copied.
    #[test]
    fn a_folder_swapped_for_a_link_is_never_followed() {
        let tmp = tempfile::tempdir().expect("tmp");
        let (outside, upper, to) = (
            tmp.path().join("outside"),
            tmp.path().join("upper"),
            tmp.path().join("copy"),
        );
        for d in [&outside, &upper, &to] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        std::fs::write(outside.join("id_rsa"), "PRIVATE-KEY").expect("write");
        std::os::unix::fs::symlink(&outside, upper.join("d")).expect("link");
        assert!(copy_entry(&upper, &to, Path::new("d/id_rsa")).is_err());
        assert!(!to.join("d/id_rsa").exists());
        assert_eq!(stamp(&upper, Path::new("d/id_rsa")), None);
        // The link itself is copied as a link, never as what it names.
        copy_entry(&upper, &to, Path::new("d")).expect("the link");
        assert!(
            std::fs::symlink_metadata(to.join("d"))
                .expect("there")
                .file_type()
                .is_symlink()
        );
    }

    /// A folder made above a copied entry keeps the layer's mode: a 0700 folder landed as
    /// 0755 would loosen the project's, unasked.
    #[test]
    fn the_folders_above_a_copied_entry_keep_their_modes() {
        let tmp = tempfile::tempdir().expect("tmp");
        let (upper, to) = (tmp.path().join("upper"), tmp.path().join("copy"));
        std::fs::create_dir_all(upper.join("private")).expect("mkdir");
        std::fs::create_dir_all(&to).expect("mkdir");
        std::fs::set_permissions(
            upper.join("private"),
            std::fs::Permissions::from_mode(0o700),
        )
        .expect("chmod");
        std::fs::write(upper.join("private/notes.txt"), "x").expect("write");
        copy_entry(&upper, &to, Path::new("private/notes.txt")).expect("copied");
        use std::os::unix::fs::MetadataExt as _;
        let mode = std::fs::metadata(to.join("private")).expect("there").mode() & 0o777;
        assert_eq!(mode, 0o700);
        assert_eq!(
            std::fs::read_to_string(to.join("private/notes.txt")).expect("read"),
            "x"
        );
    }
}
