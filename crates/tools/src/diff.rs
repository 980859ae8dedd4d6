//! Line diffs: how many lines a change adds and removes (the session's counter feeds the
//! policy thresholds), the hunks of a proposed change, and merging a chosen subset of hunks —
//! the basis of per-hunk review.

use protocol::Hunk;
use similar::{DiffOp, DiffTag, TextDiff};
use std::collections::BTreeSet;

/// Lines of context around each hunk, as in `git diff`.
pub const HUNK_CONTEXT: usize = 3;

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

/// The change ops of each hunk, in order.
fn hunk_groups<'a>(diff: &TextDiff<'a, 'a, str>) -> Vec<Vec<DiffOp>> {
    diff.grouped_ops(HUNK_CONTEXT)
        .into_iter()
        .map(|group| {
            group
                .into_iter()
                .filter(|op| op.tag() != DiffTag::Equal)
                .collect::<Vec<_>>()
        })
        .filter(|ops: &Vec<DiffOp>| !ops.is_empty())
        .collect()
}

/// The hunks going from `old` to `new`, numbered from 0.
pub fn hunks(old: &str, new: &str) -> Vec<Hunk> {
    let diff = TextDiff::from_lines(old, new);
    let unified = diff.unified_diff().context_radius(HUNK_CONTEXT).to_string();
    // The unified text, split at its `@@` headers, lines up with grouped_ops one to one.
    let mut texts: Vec<String> = Vec::new();
    for line in unified.split_inclusive('\n') {
        if line.starts_with("@@") {
            texts.push(String::new());
        }
        if let Some(t) = texts.last_mut() {
            t.push_str(line);
        }
    }
    diff.grouped_ops(HUNK_CONTEXT)
        .iter()
        .filter(|g| g.iter().any(|op| op.tag() != DiffTag::Equal))
        .enumerate()
        .map(|(i, group)| {
            let first = group.first();
            let last = group.last();
            let old_start = first.map(|o| o.old_range().start).unwrap_or(0);
            let old_end = last.map(|o| o.old_range().end).unwrap_or(0);
            let new_start = first.map(|o| o.new_range().start).unwrap_or(0);
            let new_end = last.map(|o| o.new_range().end).unwrap_or(0);
            Hunk {
                index: i as u32,
                old_start: old_start as u32 + 1,
                old_lines: (old_end - old_start) as u32,
                new_start: new_start as u32 + 1,
                new_lines: (new_end - new_start) as u32,
                text: texts.get(i).cloned().unwrap_or_default(),
            }
        })
        .collect()
}

/// `old` with only the accepted hunks of `new` applied. Accepting every hunk gives `new`,
/// accepting none gives `old`.
pub fn merge_hunks(old: &str, new: &str, accepted: &BTreeSet<usize>) -> String {
    let diff = TextDiff::from_lines(old, new);
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let groups = hunk_groups(&diff);
    let mut take_new: Vec<bool> = Vec::new();
    let mut change_ops: Vec<DiffOp> = Vec::new();
    for (i, ops) in groups.into_iter().enumerate() {
        for op in ops {
            change_ops.push(op);
            take_new.push(accepted.contains(&i));
        }
    }
    let mut out = String::with_capacity(old.len().max(new.len()));
    let mut old_pos = 0;
    for (op, new_side) in change_ops.iter().zip(take_new) {
        let o = op.old_range();
        for l in old_lines.get(old_pos..o.start).unwrap_or_default() {
            out.push_str(l);
        }
        if new_side {
            for l in new_lines.get(op.new_range()).unwrap_or_default() {
                out.push_str(l);
            }
        } else {
            for l in old_lines.get(o.clone()).unwrap_or_default() {
                out.push_str(l);
            }
        }
        old_pos = o.end;
    }
    for l in old_lines.get(old_pos..).unwrap_or_default() {
        out.push_str(l);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn text(lines: &[String]) -> String {
        lines.iter().map(|l| format!("{l}\n")).collect()
    }

    #[test]
    fn counts_added_and_removed_lines() {
        assert_eq!(line_counts("a\nb\nc\n", "a\nB\nc\nd\n"), (2, 1));
        assert_eq!(line_counts("", "x\n"), (1, 0));
        assert_eq!(line_counts("x\n", "x\n"), (0, 0));
    }

    #[test]
    fn hunks_are_separated_by_context_and_numbered() {
        let old: String = (1..=40).map(|i| format!("line {i}\n")).collect();
        let new = old
            .replace("line 3\n", "line three\n")
            .replace("line 30\n", "line thirty\n");
        let h = hunks(&old, &new);
        assert_eq!(h.len(), 2);
        assert_eq!((h[0].old_start, h[0].old_lines, h[0].new_start), (1, 6, 1));
        assert!(h[0].text.starts_with("@@ -1,6 +1,6 @@"), "{}", h[0].text);
        assert!(h[1].text.contains("+line thirty"));
        let only_second = merge_hunks(&old, &new, &BTreeSet::from([1]));
        assert!(only_second.contains("line 3\n") && only_second.contains("line thirty\n"));
    }

    #[test]
    fn no_trailing_newline_is_kept() {
        let old = "a\nb";
        let new = "a\nc";
        assert_eq!(merge_hunks(old, new, &BTreeSet::from([0])), new);
        assert_eq!(merge_hunks(old, new, &BTreeSet::new()), old);
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
            let all: BTreeSet<usize> = (0..hunks(&o, &n).len()).collect();
            prop_assert_eq!(merge_hunks(&o, &n, &all), n.clone());
            prop_assert_eq!(merge_hunks(&o, &n, &BTreeSet::new()), o.clone());
            let merged = merge_hunks(&o, &n, &pick);
            // A subset applied cleanly: the rest of the hunks take it the rest of the way.
            let rest: BTreeSet<usize> = (0..hunks(&merged, &n).len()).collect();
            prop_assert_eq!(merge_hunks(&merged, &n, &rest), n);
        }
    }
}
