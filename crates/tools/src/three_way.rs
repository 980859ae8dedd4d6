//! Merging two texts changed from one ancestor, as git merges: a change only one side made is
//! taken, the same change made on both sides is taken once, and different changes to the same
//! or neighbouring lines are a conflict. Used where a command changed a file the person was
//! editing meanwhile: their work is kept, merged or not landed over, never overwritten.

use similar::{Algorithm, DiffOp, capture_diff_slices};

/// One side's change: the ancestor's lines `start..end` become `lines`.
struct Hunk<'a> {
    start: usize,
    end: usize,
    lines: Vec<&'a str>,
}

/// The two sides merged, or `None` where they changed the same (or touching) lines
/// differently. Touching changes count as a conflict, as in git: two edits to neighbouring
/// lines often belong together, and a person decides those.
pub fn merge(base: &str, ours: &str, theirs: &str) -> Option<String> {
    let base_lines: Vec<&str> = base.split_inclusive('\n').collect();
    let our_lines: Vec<&str> = ours.split_inclusive('\n').collect();
    let their_lines: Vec<&str> = theirs.split_inclusive('\n').collect();
    let ours = hunks(&base_lines, &our_lines);
    let theirs = hunks(&base_lines, &their_lines);
    let mut out = String::with_capacity(base.len().max(ours.len()).max(theirs.len()));
    let (mut i, mut j) = (0, 0);
    let mut at = 0;
    loop {
        let lo = match (ours.get(i), theirs.get(j)) {
            (Some(a), Some(b)) => a.start.min(b.start),
            (Some(a), None) => a.start,
            (None, Some(b)) => b.start,
            (None, None) => break,
        };
        let mut hi = lo;
        let (from_i, from_j) = (i, j);
        // Grow the block while a hunk of either side starts within it (or touches it).
        loop {
            let mut grew = false;
            while let Some(h) = ours.get(i).filter(|h| h.start <= hi) {
                hi = hi.max(h.end);
                i += 1;
                grew = true;
            }
            while let Some(h) = theirs.get(j).filter(|h| h.start <= hi) {
                hi = hi.max(h.end);
                j += 1;
                grew = true;
            }
            if !grew {
                break;
            }
        }
        out.extend(base_lines[at..lo].iter().copied());
        let mine = &ours[from_i..i];
        let other = &theirs[from_j..j];
        let text = match (mine.is_empty(), other.is_empty()) {
            (true, _) => side(&base_lines, lo, hi, other),
            (_, true) => side(&base_lines, lo, hi, mine),
            _ => {
                let a = side(&base_lines, lo, hi, mine);
                let b = side(&base_lines, lo, hi, other);
                if a != b {
                    return None;
                }
                a
            }
        };
        out.push_str(&text);
        at = hi;
    }
    out.extend(base_lines[at..].iter().copied());
    Some(out)
}

/// The ancestor's lines `lo..hi` with one side's hunks (all within them) applied.
fn side(base: &[&str], lo: usize, hi: usize, hunks: &[Hunk<'_>]) -> String {
    let mut text = String::new();
    let mut pos = lo;
    for h in hunks {
        text.extend(base[pos..h.start].iter().copied());
        text.extend(h.lines.iter().copied());
        pos = h.end;
    }
    text.extend(base[pos..hi].iter().copied());
    text
}

/// One side's changes against the ancestor, neighbouring operations joined into one hunk.
fn hunks<'a>(base: &[&'a str], side: &[&'a str]) -> Vec<Hunk<'a>> {
    let mut out: Vec<Hunk<'a>> = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, base, side) {
        let (old, new) = match op {
            DiffOp::Equal { .. } => continue,
            DiffOp::Delete {
                old_index,
                old_len,
                new_index,
            } => (old_index..old_index + old_len, new_index..new_index),
            DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            } => (old_index..old_index, new_index..new_index + new_len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => (
                old_index..old_index + old_len,
                new_index..new_index + new_len,
            ),
        };
        match out.last_mut() {
            Some(last) if last.end == old.start => {
                last.end = old.end;
                last.lines.extend(side[new].iter().copied());
            }
            _ => out.push(Hunk {
                start: old.start,
                end: old.end,
                lines: side[new].to_vec(),
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::merge;

    const BASE: &str = "a\nb\nc\nd\ne\nf\n";

    #[test]
    fn changes_to_different_lines_both_land() {
        let ours = "a\nB\nc\nd\ne\nf\n";
        let theirs = "a\nb\nc\nd\nE\nf\n";
        assert_eq!(
            merge(BASE, ours, theirs).as_deref(),
            Some("a\nB\nc\nd\nE\nf\n")
        );
    }

    #[test]
    fn an_added_line_and_a_change_elsewhere_both_land() {
        let ours = "a\nb\nc\nd\ne\nf\ng\n";
        let theirs = "A\nb\nc\nd\ne\nf\n";
        assert_eq!(
            merge(BASE, ours, theirs).as_deref(),
            Some("A\nb\nc\nd\ne\nf\ng\n")
        );
    }

    #[test]
    fn the_same_change_on_both_sides_lands_once() {
        let both = "a\nb\nC\nd\ne\nf\n";
        assert_eq!(merge(BASE, both, both).as_deref(), Some(both));
        let theirs = "a\nb\nC\nd\ne\nF\n";
        assert_eq!(merge(BASE, both, theirs).as_deref(), Some(theirs));
    }

    #[test]
    fn different_changes_to_the_same_or_touching_lines_conflict() {
        assert_eq!(
            merge(BASE, "a\nb\nX\nd\ne\nf\n", "a\nb\nY\nd\ne\nf\n"),
            None
        );
        assert_eq!(
            merge(BASE, "a\nb\nX\nd\ne\nf\n", "a\nb\nc\nY\ne\nf\n"),
            None
        );
        assert_eq!(
            merge(
                BASE,
                "a\nb\nc\nd\ne\nf\nours\n",
                "a\nb\nc\nd\ne\nf\ntheirs\n"
            ),
            None
        );
    }

    #[test]
    fn one_side_unchanged_gives_the_other() {
        let theirs = "a\nc\nd\ne\n";
        assert_eq!(merge(BASE, BASE, theirs).as_deref(), Some(theirs));
        assert_eq!(merge(BASE, theirs, BASE).as_deref(), Some(theirs));
    }

    #[test]
    fn a_missing_final_newline_is_kept() {
        let base = "a\nb\nc";
        assert_eq!(
            merge(base, "A\nb\nc", "a\nb\nC").as_deref(),
            Some("A\nb\nC")
        );
    }
}
