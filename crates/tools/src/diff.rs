//! Line diffs: how many lines a change adds and removes (the session's counter feeds the
//! policy thresholds), the hunks of a proposed change, and merging a chosen subset of hunks —
//! the basis of per-hunk review.
//!
//! A hunk is one run of changed lines, never two: changes a few lines apart are separate
//! hunks (not merged by their shared context as `git diff` does), so each can be kept or
//! rejected on its own. When the change comes from `edit_file`, the lines each edit touched
//! form a [`Region`], and no hunk spans two regions: two edits on neighbouring lines are still
//! two hunks.

use protocol::{Hunk, LineRange};
use similar::{Algorithm, DiffTag, TextDiff};
use std::collections::BTreeSet;
use std::ops::Range;

/// Lines of context shown around each hunk, as in `git diff`.
pub const HUNK_CONTEXT: usize = 3;

/// Lines `old` of the old text that became lines `new` of the new one, as one edit changed
/// them. Outside its regions the two texts are the same, line for line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    pub old: Range<usize>,
    pub new: Range<usize>,
}

/// Lines added and removed going from `old` to `new`.
pub fn line_counts(old: &str, new: &str) -> (u32, u32) {
    let diff = TextDiff::from_lines(old, new);
    let (mut added, mut removed) = (0u32, 0u32);
    for op in diff.ops() {
        match op.tag() {
            DiffTag::Insert => added += op.new_range().len() as u32,
            DiffTag::Delete => removed += op.old_range().len() as u32,
            DiffTag::Replace => {
                added += op.new_range().len() as u32;
                removed += op.old_range().len() as u32;
            }
            DiffTag::Equal => {}
        }
    }
    (added, removed)
}

/// A text's lines, each with its line break (the last one may have none). Splicing whole
/// lines keeps every byte, CRLF and a missing final newline included.
fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// One hunk's lines: `old` of the old text replaced by `new` of the new one.
type Change = (Range<usize>, Range<usize>);

/// True when `regions` describe these two texts: in order, inside them, and with the same
/// lines between and around them. Anything else (a file whose line endings the write changed)
/// is diffed whole instead.
fn regions_fit(old: &[&str], new: &[&str], regions: &[Region]) -> bool {
    let (mut o, mut n) = (0, 0);
    for r in regions {
        if r.old.start < o || r.new.start < n || r.old.end < r.old.start || r.new.end < r.new.start
        {
            return false;
        }
        if old.get(o..r.old.start) != new.get(n..r.new.start)
            || old.get(r.old.clone()).is_none()
            || new.get(r.new.clone()).is_none()
        {
            return false;
        }
        (o, n) = (r.old.end, r.new.end);
    }
    old.get(o..) == new.get(n..)
}

/// The runs of changed lines going from `old` to `new`, in order; none crosses a region.
fn changes(old: &[&str], new: &[&str], regions: &[Region]) -> Vec<Change> {
    let whole = [Region {
        old: 0..old.len(),
        new: 0..new.len(),
    }];
    let regions = if !regions.is_empty() && regions_fit(old, new, regions) {
        regions
    } else {
        &whole
    };
    let mut out: Vec<Change> = Vec::new();
    for r in regions {
        let (Some(a), Some(b)) = (old.get(r.old.clone()), new.get(r.new.clone())) else {
            continue;
        };
        let mut run: Option<Change> = None;
        for op in similar::capture_diff_slices(Algorithm::Myers, a, b) {
            if op.tag() == DiffTag::Equal {
                out.extend(run.take());
                continue;
            }
            let o = op.old_range();
            let n = op.new_range();
            let o = r.old.start + o.start..r.old.start + o.end;
            let n = r.new.start + n.start..r.new.start + n.end;
            run = Some(match run {
                Some((ro, rn)) => (ro.start..o.end, rn.start..n.end),
                None => (o, n),
            });
        }
        out.extend(run);
    }
    out
}

/// Appends lines to a hunk's text with their mark; a last line without a line break says so,
/// as `diff` does.
fn push_lines(text: &mut String, mark: char, lines: &[&str]) {
    for l in lines {
        text.push(mark);
        text.push_str(l);
        if !l.ends_with('\n') {
            text.push_str("\n\\ No newline at end of file\n");
        }
    }
}

/// The hunks going from `old` to `new`, numbered from 0, the whole text diffed as one.
pub fn hunks(old: &str, new: &str) -> Vec<Hunk> {
    hunks_in(old, new, &[])
}

/// The hunks going from `old` to `new`, numbered from 0; none spans two of `regions` (empty:
/// the whole text is one region).
pub fn hunks_in(old: &str, new: &str, regions: &[Region]) -> Vec<Hunk> {
    let (old_lines, new_lines) = (lines(old), lines(new));
    let found = changes(&old_lines, &new_lines, regions);
    let mut out = Vec::with_capacity(found.len());
    for (i, (o, n)) in found.iter().enumerate() {
        // Context never reaches into a neighbouring hunk: its lines are that hunk's to show.
        let previous_end = i
            .checked_sub(1)
            .and_then(|p| found.get(p))
            .map_or(0, |c| c.0.end);
        let next_start = found.get(i + 1).map_or(old_lines.len(), |c| c.0.start);
        let before = o.start.saturating_sub(previous_end).min(HUNK_CONTEXT);
        let after = next_start.saturating_sub(o.end).min(HUNK_CONTEXT);
        let (old_from, old_to) = (o.start - before, o.end + after);
        let (new_from, new_to) = (n.start - before, n.end + after);
        // The unified header's convention: an empty side names the line before it.
        let head = |from: usize, to: usize| {
            if to == from {
                format!("{from},0")
            } else {
                format!("{},{}", from + 1, to - from)
            }
        };
        let mut text = format!(
            "@@ -{} +{} @@\n",
            head(old_from, old_to),
            head(new_from, new_to)
        );
        push_lines(
            &mut text,
            ' ',
            old_lines.get(old_from..o.start).unwrap_or_default(),
        );
        push_lines(&mut text, '-', old_lines.get(o.clone()).unwrap_or_default());
        push_lines(&mut text, '+', new_lines.get(n.clone()).unwrap_or_default());
        push_lines(
            &mut text,
            ' ',
            old_lines.get(o.end..old_to).unwrap_or_default(),
        );
        out.push(Hunk {
            index: i as u32,
            old_start: old_from as u32 + 1,
            old_lines: (old_to - old_from) as u32,
            new_start: new_from as u32 + 1,
            new_lines: (new_to - new_from) as u32,
            text,
            removed: line_range(o),
            added: line_range(n),
        });
    }
    out
}

fn line_range(r: &Range<usize>) -> LineRange {
    LineRange {
        start: r.start as u32,
        end: r.end as u32,
    }
}

/// `old` with only the accepted hunks of `new` applied, the whole text diffed as one.
/// Accepting every hunk gives `new`, accepting none gives `old`.
pub fn merge_hunks(old: &str, new: &str, accepted: &BTreeSet<usize>) -> String {
    merge_hunks_in(old, new, &[], accepted)
}

/// `old` with only the accepted hunks of [`hunks_in`] applied.
pub fn merge_hunks_in(
    old: &str,
    new: &str,
    regions: &[Region],
    accepted: &BTreeSet<usize>,
) -> String {
    let (old_lines, new_lines) = (lines(old), lines(new));
    let mut out = String::with_capacity(old.len().max(new.len()));
    let mut at = 0;
    for (i, (o, n)) in changes(&old_lines, &new_lines, regions)
        .into_iter()
        .enumerate()
    {
        out.extend(
            old_lines
                .get(at..o.start)
                .unwrap_or_default()
                .iter()
                .copied(),
        );
        if accepted.contains(&i) {
            out.extend(new_lines.get(n).unwrap_or_default().iter().copied());
        } else {
            out.extend(old_lines.get(o.clone()).unwrap_or_default().iter().copied());
        }
        at = o.end;
    }
    out.extend(old_lines.get(at..).unwrap_or_default().iter().copied());
    out
}

/// The regions of a text changed by replacements: `edits` are the byte ranges of `old` that
/// were replaced and where their replacements sit in `new`, in order and not overlapping;
/// the text between them is the same in both. Each edit is widened to whole lines, and edits
/// sharing a line become one region (a line is kept or rejected whole).
pub fn edit_regions(old: &str, new: &str, edits: &[(Range<usize>, Range<usize>)]) -> Vec<Region> {
    let at_line_start =
        |t: &str, p: usize| p == 0 || p == t.len() || t.as_bytes().get(p - 1) == Some(&b'\n');
    let mut out = Vec::new();
    let mut k = 0;
    while let Some((o, n)) = edits.get(k) {
        // The start goes back to its line's start: the text before it is the same in both.
        let line_start = old
            .get(..o.start)
            .and_then(|s| s.rfind('\n'))
            .map_or(0, |p| p + 1);
        let back = o.start.saturating_sub(line_start);
        let (old_from, new_from) = (o.start - back, n.start.saturating_sub(back));
        let (mut old_to, mut new_to) = (o.end, n.end);
        // The end goes on to where both texts are at a line start; the text after an edit is
        // the same in both up to the next edit, which joins this region if they share a line.
        while !(at_line_start(old, old_to) && at_line_start(new, new_to)) {
            let limit = edits.get(k + 1).map_or(old.len(), |(next, _)| next.start);
            match old.get(old_to..limit).and_then(|s| s.find('\n')) {
                Some(p) => {
                    old_to += p + 1;
                    new_to += p + 1;
                }
                None => match edits.get(k + 1) {
                    Some((next_old, next_new)) => {
                        k += 1;
                        old_to = next_old.end;
                        new_to = next_new.end;
                    }
                    None => {
                        let rest = old.len().saturating_sub(old_to);
                        old_to += rest;
                        new_to += rest;
                    }
                },
            }
        }
        out.push(Region {
            old: line_index(old, old_from)..line_index(old, old_to),
            new: line_index(new, new_from)..line_index(new, new_to),
        });
        k += 1;
    }
    out
}

/// The index of the line starting at byte `at` (at the end: the number of lines).
fn line_index(text: &str, at: usize) -> usize {
    let before = text.get(..at).unwrap_or(text);
    let unterminated = at >= text.len() && !text.is_empty() && !text.ends_with('\n');
    before.matches('\n').count() + usize::from(unterminated)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn text(lines: &[String]) -> String {
        lines.iter().map(|l| format!("{l}\n")).collect()
    }

    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("line {i}\n")).collect()
    }

    /// Applies `(old_string, new_string)` replacements, each found once, as `edit_file` does,
    /// and returns the new text with the regions of the edits.
    fn edit(old: &str, edits: &[(&str, &str)]) -> (String, Vec<Region>) {
        let mut spans: Vec<(usize, &str, &str)> = edits
            .iter()
            .map(|(o, n)| (old.find(o).expect("old_string"), *o, *n))
            .collect();
        spans.sort();
        let mut new = String::new();
        let mut at = 0;
        let mut ranges = Vec::new();
        for (start, o, n) in spans {
            new.push_str(&old[at..start]);
            let from = new.len();
            new.push_str(n);
            ranges.push((start..start + o.len(), from..new.len()));
            at = start + o.len();
        }
        new.push_str(&old[at..]);
        let regions = edit_regions(old, &new, &ranges);
        (new, regions)
    }

    #[test]
    fn counts_added_and_removed_lines() {
        assert_eq!(line_counts("a\nb\nc\n", "a\nB\nc\nd\n"), (2, 1));
        assert_eq!(line_counts("", "x\n"), (1, 0));
        assert_eq!(line_counts("x\n", "x\n"), (0, 0));
    }

    #[test]
    fn hunks_are_separated_by_context_and_numbered() {
        let old = numbered(40);
        let new = old
            .replace("line 3\n", "line three\n")
            .replace("line 30\n", "line thirty\n");
        let h = hunks(&old, &new);
        assert_eq!(h.len(), 2);
        assert_eq!((h[0].old_start, h[0].old_lines, h[0].new_start), (1, 6, 1));
        assert!(h[0].text.starts_with("@@ -1,6 +1,6 @@"), "{}", h[0].text);
        assert_eq!(
            (h[0].removed, h[0].added),
            (
                LineRange { start: 2, end: 3 },
                LineRange { start: 2, end: 3 }
            )
        );
        assert!(h[1].text.contains("+line thirty"));
        let only_second = merge_hunks(&old, &new, &BTreeSet::from([1]));
        assert!(only_second.contains("line 3\n") && only_second.contains("line thirty\n"));
    }

    /// Two changes three lines apart used to share one hunk through their context, so one
    /// could not be kept without the other.
    #[test]
    fn changes_three_lines_apart_are_two_hunks() {
        let old = numbered(20);
        let new = old
            .replace("line 5\n", "line five\n")
            .replace("line 9\n", "line nine\n");
        let h = hunks(&old, &new);
        assert_eq!(h.len(), 2, "{h:#?}");
        assert!(h[0].text.contains("-line 5\n+line five\n"), "{}", h[0].text);
        assert!(!h[0].text.contains("nine"), "{}", h[0].text);
        assert!(h[1].text.contains("-line 9\n+line nine\n"), "{}", h[1].text);
        // The lines between are context of both, never a change of either.
        assert!(
            h[0].text.ends_with(" line 6\n line 7\n line 8\n"),
            "{}",
            h[0].text
        );
        assert!(
            h[1].text.starts_with("@@ -6,7 +6,7 @@\n line 6\n"),
            "{}",
            h[1].text
        );
        let kept_second = merge_hunks(&old, &new, &BTreeSet::from([1]));
        assert_eq!(kept_second, old.replace("line 9\n", "line nine\n"));
    }

    /// Two edits on neighbouring lines are one run of changed lines; each edit is still its
    /// own hunk.
    #[test]
    fn edits_on_neighbouring_lines_are_one_hunk_each() {
        let old = numbered(10);
        let (new, regions) = edit(
            &old,
            &[("line 4\n", "line four\n"), ("line 5\n", "line five\n")],
        );
        assert_eq!(hunks(&old, &new).len(), 1, "diffed whole, they are one run");
        let h = hunks_in(&old, &new, &regions);
        assert_eq!(h.len(), 2, "{h:#?}");
        assert_eq!(h[0].removed, LineRange { start: 3, end: 4 });
        assert_eq!(h[1].removed, LineRange { start: 4, end: 5 });
        let kept_second = merge_hunks_in(&old, &new, &regions, &BTreeSet::from([1]));
        assert_eq!(kept_second, old.replace("line 5\n", "line five\n"));
    }

    #[test]
    fn edits_sharing_a_line_are_one_region() {
        let old = "let a = 1; let b = 2;\nnext\n";
        let (new, regions) = edit(old, &[("a = 1", "a = 10"), ("b = 2", "b = 20")]);
        assert_eq!(
            regions,
            [Region {
                old: 0..1,
                new: 0..1
            }]
        );
        assert_eq!(hunks_in(old, &new, &regions).len(), 1);
    }

    #[test]
    fn a_region_follows_a_replacement_that_drops_or_adds_a_line_break() {
        let old = numbered(4);
        // The line break of line 2 goes: lines 2 and 3 become one.
        let (new, regions) = edit(&old, &[("line 2\n", "line two ")]);
        assert_eq!(new, "line 1\nline two line 3\nline 4\n");
        assert_eq!(
            regions,
            [Region {
                old: 1..3,
                new: 1..2
            }]
        );
        // A whole line removed.
        let (new, regions) = edit(&old, &[("line 1\n", "")]);
        assert_eq!(
            regions,
            [Region {
                old: 0..1,
                new: 0..0
            }]
        );
        assert_eq!(
            hunks_in(&old, &new, &regions)[0].text,
            "@@ -1,4 +1,3 @@\n-line 1\n line 2\n line 3\n line 4\n"
        );
    }

    #[test]
    fn regions_that_do_not_fit_the_texts_are_ignored() {
        let old = numbered(6);
        let new = old.replace("line 2\n", "line two\n");
        let wrong = [Region {
            old: 4..5,
            new: 4..5,
        }];
        assert_eq!(hunks_in(&old, &new, &wrong), hunks(&old, &new));
    }

    #[test]
    fn no_trailing_newline_is_kept() {
        let old = "a\nb";
        let new = "a\nc";
        assert_eq!(merge_hunks(old, new, &BTreeSet::from([0])), new);
        assert_eq!(merge_hunks(old, new, &BTreeSet::new()), old);
        assert!(
            hunks(old, new)[0]
                .text
                .contains("-b\n\\ No newline at end of file\n+c\n"),
            "{}",
            hunks(old, new)[0].text
        );
    }

    #[test]
    fn a_new_file_is_one_hunk_of_added_lines() {
        let h = hunks("", "a\nb\n");
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].text, "@@ -0,0 +1,2 @@\n+a\n+b\n");
        assert_eq!(h[0].added, LineRange { start: 0, end: 2 });
        assert_eq!(h[0].removed, LineRange { start: 0, end: 0 });
    }

    /// The typed ranges are the whole truth about a hunk: splicing the original's lines back
    /// in for the rejected ones gives what merging gives (what a front end previews).
    fn splice(old: &str, new: &str, hunks: &[Hunk], accepted: &BTreeSet<usize>) -> String {
        let (o, n) = (lines(old), lines(new));
        let mut out = String::new();
        let mut at = 0;
        for (i, h) in hunks.iter().enumerate() {
            let (added, removed) = (
                h.added.start as usize..h.added.end as usize,
                h.removed.start as usize..h.removed.end as usize,
            );
            out.extend(n[at..added.start].iter().copied());
            if accepted.contains(&i) {
                out.extend(n[added.clone()].iter().copied());
            } else {
                out.extend(o[removed].iter().copied());
            }
            at = added.end;
        }
        out.extend(n[at..].iter().copied());
        out
    }

    fn lines_of(words: &[String]) -> String {
        words.iter().map(|l| format!("{l}\n")).collect()
    }

    proptest! {
        #[test]
        fn all_is_new_none_is_old_and_any_subset_applies(
            old in proptest::collection::vec("[a-d]{0,2}", 0..40),
            edits in proptest::collection::vec((0usize..40, 0u8..3, "[a-d]{0,2}"), 0..8),
            pick in proptest::collection::btree_set(0usize..10, 0..10),
        ) {
            let mut new = old.clone();
            for (at, kind, line) in edits {
                let at = at.min(new.len());
                match kind {
                    0 => new.insert(at, line),
                    1 if at < new.len() => { new.remove(at); }
                    _ if at < new.len() => new[at] = line,
                    _ => {}
                }
            }
            let (o, n) = (text(&old), text(&new));
            let h = hunks(&o, &n);
            let all: BTreeSet<usize> = (0..h.len()).collect();
            prop_assert_eq!(merge_hunks(&o, &n, &all), n.clone());
            prop_assert_eq!(merge_hunks(&o, &n, &BTreeSet::new()), o.clone());
            let merged = merge_hunks(&o, &n, &pick);
            prop_assert_eq!(&splice(&o, &n, &h, &pick), &merged);
            // A subset applied cleanly: the rest of the hunks take it the rest of the way.
            let rest: BTreeSet<usize> = (0..hunks(&merged, &n).len()).collect();
            prop_assert_eq!(merge_hunks(&merged, &n, &rest), n);
        }

        /// Replacements anywhere in a text (inside lines, across them, adding and removing
        /// line breaks): the regions fit, no hunk spans two edits on different lines, and
        /// hunks merge as they say.
        #[test]
        fn each_edit_is_its_own_hunk(
            words in proptest::collection::vec("[a-c]{0,3}", 1..30),
            cuts in proptest::collection::btree_set(0usize..200, 0..12),
            replacements in proptest::collection::vec("[a-c\n]{0,4}", 6),
            pick in proptest::collection::btree_set(0usize..12, 0..12),
            no_final_newline in any::<bool>(),
        ) {
            let mut old = lines_of(&words);
            if no_final_newline {
                old.pop();
            }
            prop_assume!(!old.is_empty());
            // Pairs of cut points make the edited byte ranges (never empty, never touching).
            let cuts: Vec<usize> = cuts.into_iter().map(|c| c % old.len()).collect::<BTreeSet<_>>().into_iter().collect();
            let mut ranges = Vec::new();
            let mut new = String::new();
            let mut at = 0;
            for (i, pair) in cuts.chunks(2).enumerate() {
                let [s, e] = pair else { continue };
                let (s, e) = (*s, *e);
                if s < at || e <= s || old[s..e] == *replacements[i % replacements.len()] {
                    continue;
                }
                new.push_str(&old[at..s]);
                let from = new.len();
                new.push_str(&replacements[i % replacements.len()]);
                ranges.push((s..e, from..new.len()));
                at = e;
            }
            new.push_str(&old[at..]);
            let regions = edit_regions(&old, &new, &ranges);
            let (ol, nl) = (lines(&old), lines(&new));
            prop_assert!(regions_fit(&ol, &nl, &regions), "{regions:?} for {old:?} -> {new:?}");
            // Every edit lies inside exactly one region: the lines of its first and last byte.
            for (o, _) in &ranges {
                let first = old[..o.start].matches('\n').count();
                let last = old[..o.end - 1].matches('\n').count();
                let inside = regions
                    .iter()
                    .filter(|r| r.old.start <= first && last < r.old.end)
                    .count();
                prop_assert_eq!(inside, 1, "{:?} in {:?}", o, regions);
            }
            let h = hunks_in(&old, &new, &regions);
            for hunk in &h {
                let within = regions.iter().filter(|r| {
                    r.old.start <= hunk.removed.start as usize && hunk.removed.end as usize <= r.old.end
                        && r.new.start <= hunk.added.start as usize && hunk.added.end as usize <= r.new.end
                }).count();
                prop_assert_eq!(within, 1, "{:?} spans regions {:?}", hunk, regions);
            }
            let all: BTreeSet<usize> = (0..h.len()).collect();
            prop_assert_eq!(merge_hunks_in(&old, &new, &regions, &all), new.clone());
            prop_assert_eq!(merge_hunks_in(&old, &new, &regions, &BTreeSet::new()), old.clone());
            prop_assert_eq!(
                splice(&old, &new, &h, &pick),
                merge_hunks_in(&old, &new, &regions, &pick)
            );
        }
    }
}
