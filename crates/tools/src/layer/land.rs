//! Moving a command's accepted changes from its layer into the project. Each step is checked
//! against the project as it is now: what changed there while the command ran (the person's
//! own work, another program's) is a conflict and stays as it is. Paths are opened below the
//! project without following links, so no step can lead outside it.

use super::Landed;
use super::kinds::Kind;
use super::plan::Step;
use super::read::strip_marks;
use protocol::{ChangeClass, ChangeKind, CommandFileChange, Fate, IgnoredOutput, ItemKind};
use rustix::fs::{Mode, OFlags, ResolveFlags};
use std::collections::BTreeMap;
use std::os::fd::{AsRawFd as _, OwnedFd};
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Which changes land without a person's yes. Ignored output always does; files that make a
/// program run code never do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Landing {
    /// Project files, and git's own work with them.
    pub project: bool,
    /// What does not land without a yes is held in the layer for a review
    /// ([`Landed::held`](super::Landed)), rather than refused: someone waits to answer.
    pub review: bool,
}

impl Landing {
    /// Everything that may land without a question lands; the rest is refused, as nobody
    /// reviews it.
    pub const UNREVIEWED: Landing = Landing {
        project: true,
        review: false,
    };
}

type Hook<'a> = Option<&'a (dyn Fn(&str) + Send + Sync)>;

/// What becomes of a step, decided before anything moves: `None` lands it (unless the
/// project's copy changed meanwhile), `Some` says why not.
pub(crate) type Decide<'a> = dyn Fn(&Step) -> Option<Fate> + 'a;

/// Whether a step lands without anyone's yes under `landing`.
pub(crate) fn lands_unasked(step: &Step, landing: &Landing) -> bool {
    match step.kind {
        Kind::Ignored => true,
        Kind::Project | Kind::Git => landing.project,
        Kind::RunsCode(_) => false,
    }
}

/// Project paths a command's ignored output was copied to while it ran, with the change time
/// the copy left them at: what the copy changed is not a conflict, a change after it is.
pub(crate) type Mirrored = std::collections::HashMap<PathBuf, (i64, i64)>;

/// Notes `rel` (and each folder above it: adding an entry changes a folder's own change
/// time) as the command's own, at their change times now.
pub(crate) fn note_ours(mirrored: &mut Mirrored, project: &Path, rel: &Path) {
    let mut at = Some(rel);
    while let Some(p) = at.filter(|p| !p.as_os_str().is_empty()) {
        let full = project.join(p);
        if let Some(stamp) = change_stamp(&full) {
            mirrored.insert(full, stamp);
        }
        at = p.parent();
    }
}

/// Notes what `landed` put in the project as the command's own (each landed path, all a
/// landed folder holds, the folders above), so a later landing of the same command does not
/// take it for the person's work.
pub(crate) fn note_landed(mirrored: &std::sync::Mutex<Mirrored>, project: &Path, landed: &Landed) {
    let mut mirrored = mirrored
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    for f in &landed.changes.files {
        if f.fate != Fate::Landed || f.class == ChangeClass::Git {
            continue;
        }
        let rel = Path::new(&f.path);
        if f.change == ChangeKind::Deleted {
            note_ours(
                &mut mirrored,
                project,
                rel.parent().unwrap_or(Path::new("")),
            );
            continue;
        }
        note_ours(&mut mirrored, project, rel);
        if f.item == ItemKind::Folder {
            note_inside(&mut mirrored, &project.join(rel));
        }
    }
}

fn note_inside(mirrored: &mut Mirrored, folder: &Path) {
    let Ok(listed) = std::fs::read_dir(folder) else {
        return;
    };
    for e in listed.filter_map(Result::ok) {
        let path = e.path();
        if let Some(stamp) = change_stamp(&path) {
            mirrored.insert(path.clone(), stamp);
        }
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            note_inside(mirrored, &path);
        }
    }
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn land(
    project: &Path,
    upper: &Path,
    steps: Vec<Step>,
    (started, mirrored): (SystemTime, &Mirrored),
    decide: &Decide<'_>,
    before_write: Hook<'_>,
    journal: &Path,
) -> Landed {
    let (git, rest): (Vec<Step>, Vec<Step>) = steps.into_iter().partition(|s| s.kind == Kind::Git);
    // Decided before anything moves, and written down: a landing cut short (the app killed)
    // is finished from this list when the session opens again, so the project is never left
    // half-landed for good.
    let verdicts: Vec<Option<Fate>> = rest
        .iter()
        .map(|s| verdict(project, s, (started, mirrored), decide))
        .collect();
    let all_project_go = rest
        .iter()
        .zip(&verdicts)
        .all(|(s, v)| s.kind != Kind::Project || v.is_none());
    let git_fate = if git.is_empty() {
        None
    } else if let Some(fate) = git.first().and_then(decide) {
        Some(fate)
    } else if !all_project_go {
        Some(Fate::Refused)
    } else if git
        .iter()
        .any(|s| changed_since(&project.join(&s.rel), started))
    {
        Some(Fate::Conflict)
    } else {
        None
    };
    let mut git = git;
    // Objects first: refs that name missing objects would be a broken repository.
    git.sort_by_key(|s| !s.rel.starts_with(".git/objects"));
    let going: Vec<&Step> = rest
        .iter()
        .zip(&verdicts)
        .filter(|(_, v)| v.is_none())
        .map(|(s, _)| s)
        .chain(git.iter().filter(|_| git_fate.is_none()))
        .collect();
    if !going.is_empty()
        && let Err(e) = write_journal(journal, project, &going)
    {
        tracing::warn!(%e, "could not write down a landing before it starts; it goes ahead");
    }
    let mut out = Landed::default();
    let mut ignored: BTreeMap<String, IgnoredOutput> = BTreeMap::new();
    for (step, verdict) in rest.into_iter().zip(verdicts) {
        // Counted before it lands: a landed folder is no longer where it was.
        let files = (step.kind == Kind::Ignored).then(|| step.files(project));
        let before = if step.kind == Kind::Project {
            befores(project, upper, &step)
        } else {
            Vec::new()
        };
        let fate = verdict.unwrap_or_else(|| apply(project, upper, &step, before_write));
        let landed = fate == Fate::Landed;
        match step.kind {
            Kind::Ignored => {
                let (added, modified, deleted) = files.unwrap_or_default();
                let entry = ignored_under(&mut ignored, &step.rel);
                entry.added += added;
                entry.modified += modified;
                entry.deleted += deleted;
                entry.landed &= landed;
            }
            _ => {
                if landed {
                    out.before.extend(before);
                }
                out.changes.files.push(file_change(&step, fate));
            }
        }
    }
    if !git.is_empty() {
        // Git's work lands whole or not at all, and only beside the working tree it belongs
        // to: a commit without the files it committed would leave the repository half-changed.
        let fate = git_fate.unwrap_or_else(|| {
            git.iter()
                .map(|s| apply(project, upper, s, before_write))
                .find(|f| *f != Fate::Landed)
                .unwrap_or(Fate::Landed)
        });
        out.changes.files.push(CommandFileChange {
            path: ".git".into(),
            change: ChangeKind::Modified,
            item: ItemKind::Folder,
            class: ChangeClass::Git,
            fate,
            lines: None,
            merged: false,
        });
    }
    out.changes.ignored = ignored.into_values().collect();
    out
}

/// What becomes of a step without landing it (`None`: it lands).
fn verdict(
    project: &Path,
    step: &Step,
    (started, mirrored): (SystemTime, &Mirrored),
    decide: &Decide<'_>,
) -> Option<Fate> {
    if step.item == ItemKind::Special {
        return Some(Fate::NotLandable);
    }
    if let Some(fate) = decide(step) {
        return Some(fate);
    }
    let path = project.join(&step.rel);
    let merged_over = step.merged.is_some() && change_stamp(&path) == step.merged;
    if !merged_over && changed_since_except(&path, started, mirrored) {
        return Some(Fate::Conflict);
    }
    None
}

/// A landing written down before it starts: the project, and each step in the order it runs.
#[derive(serde::Serialize, serde::Deserialize)]
struct Journal {
    project: PathBuf,
    steps: Vec<JournalStep>,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct JournalStep {
    rel: PathBuf,
    change: ChangeKind,
    folder: bool,
    #[serde(default)]
    marked: Vec<PathBuf>,
}

pub(crate) const JOURNAL: &str = "landing.json";

fn write_journal(journal: &Path, project: &Path, steps: &[&Step]) -> std::io::Result<()> {
    let j = Journal {
        project: project.to_path_buf(),
        steps: steps
            .iter()
            .map(|s| JournalStep {
                rel: s.rel.clone(),
                change: s.change,
                folder: s.item == ItemKind::Folder,
                marked: s.marked.clone(),
            })
            .collect(),
    };
    let text = serde_json::to_vec(&j).map_err(std::io::Error::other)?;
    crate::atomic::write_atomic(journal, &text)
}

/// The project a layer's landing was written down for, if one was.
pub(crate) fn journal_project(layer: &Path) -> Option<PathBuf> {
    let text = std::fs::read(layer.join(JOURNAL)).ok()?;
    serde_json::from_slice::<Journal>(&text)
        .ok()
        .map(|j| j.project)
}

/// Finishes a landing cut short: each step still in the layer is moved in (a deletion is
/// done again), in the order written down; what already moved is left as it is.
pub(crate) fn finish(layer: &Path, project: &Path) -> std::io::Result<()> {
    let text = std::fs::read(layer.join(JOURNAL))?;
    let j: Journal = serde_json::from_slice(&text).map_err(std::io::Error::other)?;
    if j.project != project {
        return Err(std::io::Error::other(format!(
            "the landing names {} as its project, not {}; nothing of it lands",
            j.project.display(),
            project.display()
        )));
    }
    let upper = layer.join("upper");
    for s in &j.steps {
        let step = Step {
            rel: s.rel.clone(),
            change: s.change,
            item: if s.folder {
                ItemKind::Folder
            } else {
                ItemKind::File
            },
            kind: Kind::Project,
            files_inside: 0,
            marked: s.marked.clone(),
            lines: None,
            merged: None,
        };
        let moved = s.change != ChangeKind::Deleted
            && std::fs::symlink_metadata(upper.join(&s.rel)).is_err();
        if !moved && let Err(e) = try_apply(&j.project, &upper, &step, None) {
            tracing::warn!(%e, path = %s.rel.display(), "a change cut short did not land");
        }
    }
    Ok(())
}

/// Whether the project's copy of a path changed after `started` (for a folder: anything in
/// it). A path that is not there has nothing to lose.
pub(crate) fn changed_since(path: &Path, started: SystemTime) -> bool {
    changed_since_except(path, started, &Mirrored::new())
}

/// [`changed_since`], but a path the command's own output was copied to counts as changed
/// only if it changed again after the copy.
pub(crate) fn changed_since_except(path: &Path, started: SystemTime, mirrored: &Mirrored) -> bool {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return false;
    };
    if let Some(stamp) = mirrored.get(path) {
        if *stamp != (meta.ctime(), meta.ctime_nsec()) {
            return true;
        }
        return meta.is_dir()
            && std::fs::read_dir(path).is_ok_and(|d| {
                d.filter_map(Result::ok)
                    .any(|e| changed_since_except(&e.path(), started, mirrored))
            });
    }
    let changed = SystemTime::UNIX_EPOCH
        + std::time::Duration::new(meta.ctime().max(0) as u64, meta.ctime_nsec().max(0) as u32);
    if changed > started {
        return true;
    }
    meta.is_dir()
        && std::fs::read_dir(path).is_ok_and(|d| {
            d.filter_map(Result::ok)
                .any(|e| changed_since_except(&e.path(), started, mirrored))
        })
}

/// A path's change time (seconds, nanoseconds), to tell whether it changed after a look.
pub(crate) fn change_stamp(path: &Path) -> Option<(i64, i64)> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    Some((meta.ctime(), meta.ctime_nsec()))
}

fn apply(project: &Path, upper: &Path, step: &Step, before_write: Hook<'_>) -> Fate {
    match try_apply(project, upper, step, before_write) {
        Ok(()) => Fate::Landed,
        Err(e) => {
            tracing::warn!(%e, path = %step.rel.display(), "a command's change did not land");
            Fate::Failed {
                message: e.to_string(),
            }
        }
    }
}

fn try_apply(
    project: &Path,
    upper: &Path,
    step: &Step,
    before_write: Hook<'_>,
) -> std::io::Result<()> {
    let (parent, name) = parent_of(project, &step.rel)?;
    let target = PathBuf::from(format!("/proc/self/fd/{}", parent.as_raw_fd())).join(&name);
    if let Some(hook) = before_write {
        for rel in files_at(&target, &step.rel) {
            hook(&rel);
        }
    }
    let source = upper.join(&step.rel);
    match step.change {
        ChangeKind::Deleted => remove_any(&target),
        ChangeKind::ModeChanged if step.item == ItemKind::Folder => {
            let mode = std::fs::symlink_metadata(&source)?.permissions();
            std::fs::set_permissions(&target, mode)
        }
        _ => {
            let replaced_kind = std::fs::symlink_metadata(&target).is_ok_and(|m| {
                m.is_dir() != (step.item == ItemKind::Folder) || step.change == ChangeKind::Replaced
            });
            if replaced_kind {
                remove_any(&target)?;
            }
            move_in(&source, &parent, &name, &target)?;
            // Landed: the overlay's own attributes go (only where the layer had them).
            for rel in &step.marked {
                strip_marks(&project.join(rel));
            }
            Ok(())
        }
    }
}

/// The folder that holds `rel`, opened below the project without following a link, and the
/// last name.
pub(crate) fn parent_of(
    project: &Path,
    rel: &Path,
) -> std::io::Result<(OwnedFd, std::ffi::OsString)> {
    let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let root = rustix::fs::open(project, flags, Mode::empty())?;
    let name = rel
        .file_name()
        .ok_or_else(|| std::io::Error::other("a change with no name"))?
        .to_os_string();
    let parent = rel.parent().filter(|p| !p.as_os_str().is_empty());
    let fd = match parent {
        None => root,
        Some(p) => rustix::fs::openat2(
            &root,
            p,
            flags,
            Mode::empty(),
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
        )?,
    };
    Ok((fd, name))
}

/// Moves `source` to `name` in `parent`: a rename, which replaces a file in one step; a copy
/// where the layer is on another file system.
fn move_in(
    source: &Path,
    parent: &OwnedFd,
    name: &std::ffi::OsStr,
    target: &Path,
) -> std::io::Result<()> {
    match rustix::fs::renameat(rustix::fs::CWD, source, parent, name) {
        Ok(()) => Ok(()),
        Err(rustix::io::Errno::XDEV) => {
            let staged =
                target.with_file_name(format!(".{}.tandem-landing", name.to_string_lossy()));
            // A copy cut short (a full disk) leaves nothing of itself in the project.
            let copied = copy_tree(source, &staged).and_then(|()| std::fs::rename(&staged, target));
            if copied.is_err() {
                let _ = remove_any(&staged);
            }
            copied
        }
        Err(e) => Err(e.into()),
    }
}

fn copy_tree(source: &Path, target: &Path) -> std::io::Result<()> {
    let meta = std::fs::symlink_metadata(source)?;
    if meta.is_dir() {
        std::fs::create_dir(target)?;
        for e in std::fs::read_dir(source)? {
            let e = e?;
            copy_tree(&e.path(), &target.join(e.file_name()))?;
        }
        std::fs::set_permissions(target, meta.permissions())
    } else if meta.file_type().is_symlink() {
        std::os::unix::fs::symlink(std::fs::read_link(source)?, target)
    } else {
        std::fs::copy(source, target).map(|_| ())
    }
}

pub(crate) fn remove_any(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// The project paths of the files at `target` (itself, or all a folder holds), for the
/// checkpoint before they change.
fn files_at(target: &Path, rel: &Path) -> Vec<String> {
    match std::fs::symlink_metadata(target) {
        Ok(m) if m.is_dir() => std::fs::read_dir(target)
            .map(|d| {
                d.filter_map(Result::ok)
                    .flat_map(|e| files_at(&e.path(), &rel.join(e.file_name())))
                    .collect()
            })
            .unwrap_or_default(),
        _ => vec![slashed(rel)],
    }
}

/// Files one step changes, with their text before (`None`: not there), for the session's
/// record of changes. A folder gives each file in it, up to a bound: the record is for
/// reading, and a folder of thousands of project files is summed up by the step itself.
fn befores(project: &Path, upper: &Path, step: &Step) -> Vec<(String, Option<String>)> {
    const MOST: usize = 2000;
    let mut out: Vec<(String, Option<String>)> = files_at(&project.join(&step.rel), &step.rel)
        .into_iter()
        .filter(|rel| std::fs::symlink_metadata(project.join(rel)).is_ok_and(|m| m.is_file()))
        .take(MOST)
        .map(|rel| {
            let text = text_of(&project.join(&rel));
            (rel, text)
        })
        .collect();
    if step.change != ChangeKind::Deleted {
        for rel in files_at(&upper.join(&step.rel), &step.rel)
            .into_iter()
            .take(MOST)
        {
            if !out.iter().any(|(p, _)| *p == rel)
                && std::fs::symlink_metadata(upper.join(&rel)).is_ok_and(|m| m.is_file())
            {
                out.push((rel, None));
            }
        }
    }
    out
}

/// A file's text as it is, read as text whatever it holds (the Changes panel shows text),
/// for files up to a megabyte.
fn text_of(path: &Path) -> Option<String> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(1024 * 1024)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

fn slashed(rel: &Path) -> String {
    rel.to_string_lossy().into_owned()
}

/// The summary line of ignored output that `rel` counts toward (one per top folder).
pub(crate) fn ignored_under<'a>(
    ignored: &'a mut BTreeMap<String, IgnoredOutput>,
    rel: &Path,
) -> &'a mut IgnoredOutput {
    let top = top_of(rel);
    ignored.entry(top.clone()).or_insert(IgnoredOutput {
        path: top,
        added: 0,
        modified: 0,
        deleted: 0,
        landed: true,
    })
}

/// The folder at the top of a path, for one line of ignored output per folder.
fn top_of(rel: &Path) -> String {
    let mut parts = rel.components();
    let first = parts
        .next()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .unwrap_or_default();
    if parts.next().is_some() {
        format!("{first}/")
    } else {
        first
    }
}

fn file_change(step: &Step, fate: Fate) -> CommandFileChange {
    CommandFileChange {
        path: slashed(&step.rel),
        change: step.change,
        item: step.item,
        class: match step.kind {
            Kind::RunsCode(why) => ChangeClass::RunsCode { why },
            Kind::Git => ChangeClass::Git,
            _ => ChangeClass::Project,
        },
        fate,
        lines: step.lines,
        merged: step.merged.is_some(),
    }
}
