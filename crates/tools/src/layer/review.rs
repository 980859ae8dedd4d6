//! A command's changes held in its layer for the person's review: each one read into a diff
//! (a text file's hunks, or a change taken or left whole), then landed as answered — the
//! accepted pieces through the same landing as any change, the rest left in the layer and
//! said to be rejected. A partly accepted file lands as the project's text with only the
//! accepted hunks applied.

use super::kinds::Kind;
use super::land;
use super::plan::Step;
use super::{CommandLayer, Landed};
use crate::diff;
use protocol::{ChangeClass, ChangeKind, ChangeReview, Fate, FolderContents, ItemKind, ReviewFile};
use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

/// Text files larger than this are reviewed whole, without a diff.
pub(super) const MAX_DIFFED_BYTES: u64 = 1024 * 1024;
/// The text one review carries at most (both sides of every file): a command that rewrote
/// thousands of files is reviewed without a question of gigabytes. Files past it are kept or
/// rejected whole, with their line counts.
pub(super) const REVIEW_TEXT_BYTES: usize = 8 * 1024 * 1024;

/// What a review's piece stands for.
#[derive(Debug, Clone, Copy)]
enum Piece {
    /// A hunk of the text file at this step (its position among the file's hunks).
    Hunk { step: usize, at: usize },
    /// The step taken or left whole.
    Whole { step: usize },
    /// Git's own work, all of it.
    Git,
}

/// A text file's two sides, kept to merge a partial answer.
#[derive(Debug)]
struct Texts {
    original: String,
    proposed: String,
    hunks: usize,
}

/// A command's changes held for review, in its layer.
#[derive(Debug)]
pub(crate) struct LayerHeld {
    layer: Option<CommandLayer>,
    steps: Vec<Step>,
    texts: Vec<Option<Texts>>,
    pieces: Vec<Piece>,
    review: ChangeReview,
}

impl LayerHeld {
    pub(crate) fn new(layer: CommandLayer, steps: Vec<Step>, ignored: &Landed) -> Self {
        let project = layer.project.clone();
        let upper = layer.upper();
        let mut pieces = Vec::new();
        let mut texts = Vec::new();
        let mut files = Vec::new();
        let mut git_lines = None;
        let mut text_left = REVIEW_TEXT_BYTES;
        for (i, step) in steps.iter().enumerate() {
            if step.kind == Kind::Git {
                texts.push(None);
                git_lines = Some(());
                continue;
            }
            let sides =
                text_sides(&project, &upper, step).filter(|(o, p)| o.len() + p.len() <= text_left);
            if let Some((o, p)) = &sides {
                text_left -= o.len() + p.len();
            }
            let mut file = ReviewFile {
                path: step.rel.to_string_lossy().into_owned(),
                change: step.change,
                item: step.item,
                class: match step.kind {
                    Kind::RunsCode(why) => ChangeClass::RunsCode { why },
                    _ => ChangeClass::Project,
                },
                lines: step.lines,
                original: None,
                proposed: None,
                hunks: Vec::new(),
                whole: None,
                folder: FolderContents::default(),
            };
            if step.item == ItemKind::Folder {
                // What it makes, or what a deletion takes away.
                let from = match step.change {
                    ChangeKind::Created | ChangeKind::Replaced => Some(&upper),
                    ChangeKind::Deleted => Some(&project),
                    _ => None,
                };
                if let Some(from) = from {
                    let (inside, more_inside) = inside_of(from, &step.rel);
                    file.folder = FolderContents {
                        inside,
                        more_inside,
                    };
                }
            }
            match sides {
                Some((original, proposed)) => {
                    let mut hunks = diff::hunks(&original, &proposed);
                    for (at, h) in hunks.iter_mut().enumerate() {
                        h.index = pieces.len() as u32;
                        pieces.push(Piece::Hunk { step: i, at });
                    }
                    if hunks.is_empty() {
                        // Same text, another mode or a whitespace-free touch: taken whole.
                        file.whole = Some(pieces.len() as u32);
                        pieces.push(Piece::Whole { step: i });
                    }
                    texts.push(Some(Texts {
                        original: original.clone(),
                        proposed: proposed.clone(),
                        hunks: hunks.len(),
                    }));
                    file.original = Some(original);
                    file.proposed = Some(proposed);
                    file.hunks = hunks;
                }
                None => {
                    texts.push(None);
                    file.whole = Some(pieces.len() as u32);
                    pieces.push(Piece::Whole { step: i });
                }
            }
            files.push(file);
        }
        if git_lines.is_some() {
            files.push(ReviewFile {
                path: ".git".into(),
                change: ChangeKind::Modified,
                item: ItemKind::Folder,
                class: ChangeClass::Git,
                lines: None,
                original: None,
                proposed: None,
                hunks: Vec::new(),
                whole: Some(pieces.len() as u32),
                folder: FolderContents::default(),
            });
            pieces.push(Piece::Git);
        }
        let review = ChangeReview {
            files,
            ignored: ignored.changes.ignored.clone(),
            pieces: pieces.len() as u32,
        };
        LayerHeld {
            layer: Some(layer),
            steps,
            texts,
            pieces,
            review,
        }
    }

    /// What waits for the person's answer.
    pub(crate) fn review(&self) -> &ChangeReview {
        &self.review
    }

    /// Lands the accepted pieces (indices into the review) and says what became of every
    /// change: the rest are rejected and the project keeps its own copy. A change to a file
    /// the person changed meanwhile is a conflict, never landed over their work.
    pub(crate) fn land(
        mut self,
        accepted: &BTreeSet<u32>,
        before_write: Option<&(dyn Fn(&str) + Send + Sync)>,
    ) -> std::io::Result<Landed> {
        let Some(upper) = self.layer.as_ref().map(CommandLayer::upper) else {
            return Ok(Landed::default());
        };
        // Per step: how many of its pieces were accepted, out of how many.
        let mut taken = vec![(0usize, 0usize); self.steps.len()];
        let mut git_taken = false;
        let mut kept_hunks: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); self.steps.len()];
        for (i, piece) in self.pieces.iter().enumerate() {
            let yes = accepted.contains(&(i as u32));
            match *piece {
                Piece::Hunk { step, at } => {
                    taken[step].1 += 1;
                    if yes {
                        taken[step].0 += 1;
                        kept_hunks[step].insert(at);
                    }
                }
                Piece::Whole { step } => {
                    taken[step].1 += 1;
                    taken[step].0 += usize::from(yes);
                }
                Piece::Git => git_taken = yes,
            }
        }
        let mut rejected: HashSet<PathBuf> = HashSet::new();
        let mut partly = Vec::new();
        for (i, step) in self.steps.iter().enumerate() {
            if step.kind == Kind::Git {
                if !git_taken {
                    rejected.insert(step.rel.clone());
                }
                continue;
            }
            let (yes, of) = taken[i];
            if yes == 0 {
                rejected.insert(step.rel.clone());
            } else if yes < of
                && let Some(t) = &self.texts[i]
                && t.hunks == of
            {
                // Accepted in part: the layer's copy becomes the project's text with only
                // those hunks in, and lands as a whole.
                let merged = diff::merge_hunks(&t.original, &t.proposed, &kept_hunks[i]);
                super::merge::write_in_place(&upper.join(&step.rel), merged.as_bytes())?;
                let (added, removed) = diff::line_counts(&t.original, &merged);
                partly.push((i, protocol::LineCounts { added, removed }));
            }
        }
        for (i, lines) in partly {
            if let Some(step) = self.steps.get_mut(i) {
                step.lines = Some(lines);
            }
        }
        let decide = |s: &Step| rejected.contains(&s.rel).then_some(Fate::Rejected);
        self.land_deciding(&decide, before_write)
    }

    /// Lands nothing: every change is refused (nobody could answer), and the layer goes.
    pub(crate) fn refuse(self) -> std::io::Result<Landed> {
        let refuse = |_: &Step| Some(Fate::Refused);
        self.land_deciding(&refuse, None)
    }

    fn land_deciding(
        mut self,
        decide: &land::Decide<'_>,
        before_write: Option<&(dyn Fn(&str) + Send + Sync)>,
    ) -> std::io::Result<Landed> {
        let Some(layer) = self.layer.take() else {
            return Ok(Landed::default());
        };
        let landing_now = layer.early.landing();
        let landed = land::land(
            &layer.project,
            &layer.upper(),
            std::mem::take(&mut self.steps),
            (layer.started, &layer.mirrored()),
            decide,
            before_write,
            &layer.root.join(land::JOURNAL),
        );
        if layer.early.copy {
            land::note_landed(&layer.mirrored, &layer.project, &landed);
        }
        drop(landing_now);
        layer.discard()?;
        Ok(landed)
    }
}

impl Drop for LayerHeld {
    fn drop(&mut self) {
        if let Some(layer) = self.layer.take() {
            // Nobody answered: changes taken early from a running command are its again.
            layer.early.untake();
            if let Err(e) = layer.discard() {
                tracing::warn!(%e, "could not remove a command's layer nobody reviewed");
            }
        }
    }
}

/// A file's text in the project and in the layer, when both sides are text a person can
/// read as a diff (a side that is not there reads as empty).
fn text_sides(project: &Path, upper: &Path, step: &Step) -> Option<(String, String)> {
    if step.item != ItemKind::File
        || !matches!(
            step.change,
            ChangeKind::Modified | ChangeKind::Created | ChangeKind::Deleted
        )
    {
        return None;
    }
    let read = |path: &Path| -> Option<String> {
        let meta = std::fs::symlink_metadata(path).ok()?;
        if !meta.is_file() || meta.len() > MAX_DIFFED_BYTES {
            return None;
        }
        let bytes = std::fs::read(path).ok()?;
        if bytes.contains(&0) {
            return None;
        }
        String::from_utf8(bytes).ok()
    };
    let original = match step.change {
        ChangeKind::Created => String::new(),
        _ => read(&project.join(&step.rel))?,
    };
    let proposed = match step.change {
        ChangeKind::Deleted => String::new(),
        _ => read(&upper.join(&step.rel))?,
    };
    Some((original, proposed))
}

/// Files listed of a folder under review, and the text shown of each.
const INSIDE_LISTED: usize = 20;
const INSIDE_TEXT_BYTES: u64 = 16 * 1024;

/// The first files of a folder (in the layer, or in the project), in name order, with their text when short; and
/// how many more there are.
fn inside_of(root: &Path, rel: &Path) -> (Vec<protocol::InsideFile>, u32) {
    let mut files = Vec::new();
    let mut more = 0u32;
    let mut stack = vec![rel.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(listed) = std::fs::read_dir(root.join(&dir)) else {
            continue;
        };
        let mut names: Vec<_> = listed.filter_map(Result::ok).collect();
        names.sort_by_key(|e| std::cmp::Reverse(e.file_name()));
        for e in names {
            let path = dir.join(e.file_name());
            let Ok(meta) = std::fs::symlink_metadata(e.path()) else {
                continue;
            };
            if meta.is_dir() {
                stack.push(path);
            } else if files.len() < INSIDE_LISTED {
                let text = (meta.is_file() && meta.len() <= INSIDE_TEXT_BYTES)
                    .then(|| std::fs::read(e.path()).ok())
                    .flatten()
                    .filter(|b| !b.contains(&0))
                    .and_then(|b| String::from_utf8(b).ok());
                files.push(protocol::InsideFile {
                    path: path.to_string_lossy().into_owned(),
                    text,
                });
            } else {
                more += 1;
            }
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    (files, more)
}
