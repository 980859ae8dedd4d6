//! A command's copy-on-write layer: the project as the command sees it is an overlay (the
//! project below, this layer above), so nothing it writes reaches the project until it lands.
//! When the command ends, the layer is read into changes, each sorted by what it could do
//! (ignored output, a project file, git's own work, a file that makes a program run code),
//! and the changes the rules allow are moved into the project — renames, not copies, when the
//! layer is on the project's file system. What does not land is said, typed, never dropped
//! without a word.

mod early;
mod found;
mod held;
mod kinds;
mod land;
mod merge;
mod mirror;
mod plan;
mod read;
mod review;
mod words;

pub use early::LayerView;
pub use found::{Before, ChangeFinder, FoundFile, found_changes};
pub use held::{Held, HeldChanges};
pub use land::Landing;
pub use merge::BaseOf;
pub use mirror::Mirror;
pub use words::{changes_words, why_words};

use protocol::CommandChanges;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

/// How far before its start a command's changes are compared: a file's change time comes from
/// the kernel's coarse clock, up to a tick (1–10 ms) behind the precise one. A change the
/// person made just before the command started reads as made during it (a conflict, never an
/// overwrite).
const CLOCK_SLACK: Duration = Duration::from_millis(20);

/// One command's layer, from before it starts until its changes have landed.
pub struct CommandLayer {
    root: PathBuf,
    project: PathBuf,
    started: SystemTime,
    /// The common ancestor of a file the person changed while the command ran.
    base_of: Option<BaseOf>,
    /// Where its ignored output (or changes taken out early) was copied into the project
    /// while it ran ([`Mirror`], [`LayerView::take`]).
    mirrored: Arc<Mutex<land::Mirrored>>,
    /// Changes taken out of it while it ran.
    early: Arc<early::Early>,
}

impl std::fmt::Debug for CommandLayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandLayer")
            .field("root", &self.root)
            .field("project", &self.project)
            .field("started", &self.started)
            .finish_non_exhaustive()
    }
}

/// What landing a command's changes did, with what the session keeps of each project file it
/// changed (its text before, for the Changes panel and the export).
#[derive(Debug, Default)]
pub struct Landed {
    pub changes: CommandChanges,
    /// Project files that landed and their text before (`None`: new, or not text).
    pub before: Vec<(String, Option<String>)>,
    /// What waits in the layer for a review (when the landing holds changes for one).
    pub held: HeldChanges,
}

impl Landed {
    /// Lines added and removed in the project's text files that landed: what the policy's
    /// limits on changed lines count.
    pub fn lines(&self) -> (u32, u32) {
        self.changes
            .files
            .iter()
            .filter(|f| {
                f.fate == protocol::Fate::Landed && f.class == protocol::ChangeClass::Project
            })
            .filter_map(|f| f.lines)
            .fold((0u32, 0u32), |(a, r), l| {
                (a.saturating_add(l.added), r.saturating_add(l.removed))
            })
    }

    /// Adds what a later landing of the same command did (its held changes, answered): one
    /// account of the command's changes.
    pub fn add(&mut self, more: Landed) {
        self.changes.files.extend(more.changes.files);
        // Deletions and replaced folders first, as the first account has them.
        self.changes
            .files
            .sort_by(|a, b| (a.change, &a.path).cmp(&(b.change, &b.path)));
        self.changes.ignored.extend(more.changes.ignored);
        self.before.extend(more.before);
        self.held = more.held;
    }
}

static NEXT: AtomicU64 = AtomicU64::new(0);

impl CommandLayer {
    /// A fresh layer for one command in `project`, under `state_dir` (Tandem's own folder for
    /// the session, which commands never see).
    pub fn make(state_dir: &Path, project: &Path) -> std::io::Result<Self> {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let root = layers_folder(state_dir, project).join(format!("{}-{n}", std::process::id()));
        if root.exists() {
            remove(&root)?;
        }
        std::fs::create_dir_all(root.join("upper"))?;
        std::fs::create_dir_all(root.join("work"))?;
        Ok(CommandLayer {
            root,
            project: project.to_path_buf(),
            started: SystemTime::now() - CLOCK_SLACK,
            base_of: None,
            mirrored: Arc::default(),
            early: Arc::default(),
        })
    }

    /// What copies the command's ignored output into the project while it still runs.
    pub fn mirror(&self) -> Mirror {
        Mirror::new(
            self.project.clone(),
            self.upper(),
            self.started,
            self.mirrored.clone(),
        )
    }

    fn mirrored(&self) -> land::Mirrored {
        self.mirrored
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Files the person changes while the command runs are merged with the command's changes,
    /// with what `base_of` gives as their common ancestor (without it, they are conflicts).
    pub fn merging_with(mut self, base_of: Option<BaseOf>) -> Self {
        self.base_of = base_of;
        self
    }

    /// Clears the layers under `state_dir` that no running Tandem owns (the app was killed). A
    /// layer whose landing had begun is landed to the end, as it was decided, when it was for
    /// `project` (a journal is a file on disk: it never chooses where files go); one whose
    /// command was still running is removed, and nothing of it lands.
    pub fn clear_stale(state_dir: &Path, project: &Path) {
        Self::clear_stale_in(&state_dir.join("layers"), project, false);
        if let Some(shared) = top_layers(project) {
            Self::clear_stale_in(&shared, project, true);
        }
    }

    /// Clears the stale layers in `folder`; in a folder `shared` with other projects, only
    /// this project's landings are finished, and another's are left for its own session.
    fn clear_stale_in(folder: &Path, project: &Path, shared: bool) {
        let Ok(listed) = std::fs::read_dir(folder) else {
            return;
        };
        for entry in listed.filter_map(Result::ok) {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(pid) = name.split('-').next().and_then(|p| p.parse::<i32>().ok()) else {
                continue;
            };
            let alive = pid == std::process::id() as i32
                || std::path::Path::new(&format!("/proc/{pid}")).exists();
            if alive {
                continue;
            }
            let layer = entry.path();
            if shared && land::journal_project(&layer).is_some_and(|p| p != project) {
                continue;
            }
            if layer.join(land::JOURNAL).exists()
                && let Err(e) = land::finish(&layer, project)
            {
                tracing::warn!(%e, layer = %layer.display(), "could not finish a landing cut short");
            }
            if let Err(e) = remove(&layer) {
                tracing::warn!(%e, layer = %layer.display(), "could not remove a stale layer");
            }
        }
    }

    /// Whether layers can be kept under `state_dir`: the overlay keeps its marks (deletions,
    /// replaced folders) in `user.*` attributes, which some file systems lack (tmpfs before
    /// Linux 6.6).
    pub fn can_live_in(state_dir: &Path) -> bool {
        let dir = state_dir.join("layers");
        std::fs::create_dir_all(&dir).is_ok() && Self::keeps_marks(&dir)
    }

    fn keeps_marks(dir: &Path) -> bool {
        let probe = dir.join(format!("attribute-probe-{}", std::process::id()));
        let works = std::fs::write(&probe, b"").is_ok()
            && rustix::fs::lsetxattr(
                &probe,
                "user.tandem.probe",
                b"y",
                rustix::fs::XattrFlags::empty(),
            )
            .is_ok();
        let _ = std::fs::remove_file(&probe);
        works
    }

    /// The layer as the sandbox's spec names it.
    pub fn spec(&self) -> sandbox::Layer {
        sandbox::Layer {
            upper: self.upper(),
            work: self.root.join("work"),
        }
    }

    /// The most a command may write into this layer: `limit`, or less when the disk has
    /// less room (nine tenths of what is free now, so the app and the person keep some).
    pub fn cap(&self, limit: u64) -> u64 {
        limit.min(free_bytes(&self.root).saturating_mul(9) / 10)
    }

    /// What the disk holding the layer has free now.
    pub fn free_now(&self) -> u64 {
        free_bytes(&self.root)
    }

    /// Bytes the layer takes on disk now: a walk of what the command wrote (never of the
    /// project).
    pub fn written(&self) -> u64 {
        disk_usage(&self.upper())
    }

    /// The folder that holds the layer, to keep out of the command's sight.
    pub fn folder(&self) -> &Path {
        &self.root
    }

    fn upper(&self) -> PathBuf {
        self.root.join("upper")
    }

    /// Reads what the command changed and lands what `landing` allows. What needs a yes is
    /// held in the layer for a review when `landing.review` (see [`Landed::held`]), refused
    /// otherwise; the layer is removed once nothing waits in it. `before_write` is called
    /// with each project path before it changes (the checkpoint).
    pub fn land(
        self,
        landing: &Landing,
        before_write: Option<&(dyn Fn(&str) + Send + Sync)>,
    ) -> std::io::Result<Landed> {
        // No change is taken out early from here on (one under way finishes first).
        self.early.close();
        let upper = self.upper();
        let mut steps = plan::plan(&self.project, &upper)?;
        self.early.drop_taken(&upper, &mut steps);
        let conflicts = merge::reconcile(
            &self.project,
            &upper,
            (self.started, &self.mirrored()),
            &mut steps,
            self.base_of.as_ref(),
        );
        // A conflict is decided now: nobody is asked about a change that cannot land.
        let (held, now): (Vec<_>, Vec<_>) = steps.into_iter().partition(|s| {
            landing.review
                && !conflicts.contains(&s.rel)
                && s.item != protocol::ItemKind::Special
                && !land::lands_unasked(s, landing)
        });
        let decide =
            |s: &plan::Step| (!land::lands_unasked(s, landing)).then_some(protocol::Fate::Refused);
        let journal = self.root.join(land::JOURNAL);
        let landing_now = self.early.landing();
        let mut landed = land::land(
            &self.project,
            &upper,
            now,
            (self.started, &self.mirrored()),
            &decide,
            before_write,
            &journal,
        );
        if self.early.copy {
            land::note_landed(&self.mirrored, &self.project, &landed);
        }
        drop(landing_now);
        if held.is_empty() {
            remove(&self.root)?;
        } else {
            // What landed is done with; what waits lands later from a journal of its own.
            let _ = std::fs::remove_file(&journal);
            landed.held =
                HeldChanges::new(Held::layer(review::LayerHeld::new(self, held, &landed)));
        }
        Ok(landed)
    }

    /// Removes the layer and all it holds, landing nothing.
    pub fn discard(self) -> std::io::Result<()> {
        remove(&self.root)
    }
}

/// Where a command's layers are kept for `project`: the session's folder when it is on the
/// project's file system (landing is then renames, not copies); else a folder of Tandem's at the
/// top of the project's file system (`.tandem-layers-<uid>`, as desktops keep `.Trash-<uid>`
/// there), when the project is below that top and the folder keeps the overlay's marks; else
/// the session's folder all the same (a landing copies).
fn layers_folder(state_dir: &Path, project: &Path) -> PathBuf {
    let own = state_dir.join("layers");
    let _ = std::fs::create_dir_all(&own);
    let same = |a: &Path, b: &Path| {
        use std::os::unix::fs::MetadataExt as _;
        matches!((std::fs::metadata(a), std::fs::metadata(b)), (Ok(x), Ok(y)) if x.dev() == y.dev())
    };
    if same(&own, project) {
        return own;
    }
    match top_layers(project) {
        Some(top) if usable(&top) => top,
        _ => own,
    }
}

/// The shared layers folder at the top of the file system `project` is on, when the project
/// is below that top (a layer must never be inside the folder below it).
fn top_layers(project: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt as _;
    let dev = std::fs::metadata(project).ok()?.dev();
    let mut top = project;
    while let Some(parent) = top.parent() {
        if std::fs::metadata(parent).map(|m| m.dev()).ok() != Some(dev) {
            break;
        }
        top = parent;
    }
    if top == project {
        return None;
    }
    let uid = rustix::process::getuid().as_raw();
    Some(top.join(format!(".tandem-layers-{uid}")))
}

/// Whether layers can be kept in `folder`: made (only the user may enter it) and able to keep
/// the overlay's `user.*` marks.
fn usable(folder: &Path) -> bool {
    use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _};
    let made = std::fs::DirBuilder::new().mode(0o700).create(folder);
    if made.is_err() && !folder.is_dir() {
        return false;
    }
    // Another user's folder of the same name is never used.
    let own = std::fs::symlink_metadata(folder).is_ok_and(|m| {
        m.is_dir() && m.uid() == rustix::process::getuid().as_raw() && m.mode() & 0o077 == 0
    });
    own && CommandLayer::keeps_marks(folder)
}

pub(crate) fn free_bytes(path: &Path) -> u64 {
    rustix::fs::statvfs(path)
        .map(|s| s.f_bavail.saturating_mul(s.f_frsize))
        .unwrap_or(u64::MAX)
}

pub(crate) fn disk_usage(path: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt as _;
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return 0;
    };
    let own = meta.blocks().saturating_mul(512);
    if !meta.is_dir() {
        return own;
    }
    std::fs::read_dir(path)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| disk_usage(&e.path()))
                .sum::<u64>()
        })
        .unwrap_or(0)
        .saturating_add(own)
}

/// Removes a layer's folder. The overlay leaves its work folder unreadable (mode 000), so
/// permissions are opened first.
fn remove(root: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let work = root.join("work").join("work");
    if work.is_dir() {
        std::fs::set_permissions(&work, std::fs::Permissions::from_mode(0o700))?;
    }
    match std::fs::remove_dir_all(root) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pid no process has (the highest the kernel hands out, plus one).
    fn dead_pid() -> u64 {
        std::fs::read_to_string("/proc/sys/kernel/pid_max")
            .ok()
            .and_then(|t| t.trim().parse::<u64>().ok())
            .unwrap_or(4_194_304)
            + 1
    }

    #[test]
    fn a_shared_layers_folder_leaves_another_projects_cut_short_landing_alone() {
        let d = tempfile::tempdir().expect("tmp");
        let (mine, theirs) = (d.path().join("mine"), d.path().join("theirs"));
        let shared = d.path().join(".tandem-layers");
        let layer = shared.join(format!("{}-0", dead_pid()));
        std::fs::create_dir_all(layer.join("upper")).expect("mkdir");
        let journal = serde_json::json!({"project": theirs, "steps": []});
        std::fs::write(layer.join(land::JOURNAL), journal.to_string()).expect("write");
        CommandLayer::clear_stale_in(&shared, &mine, true);
        assert!(
            layer.exists(),
            "another project's landing waits for its own session"
        );
        CommandLayer::clear_stale_in(&shared, &theirs, true);
        assert!(!layer.exists(), "its own session finishes and clears it");
    }
}
