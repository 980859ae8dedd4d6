//! Where an `old_string` that is not in the file was most likely taken from: the lines of the
//! file that look most like it, numbered as `read_file` numbers them. A small model that misquotes
//! a line (or quotes a traceback instead of the file) gets the text to copy in the same error.

use std::collections::HashSet;
use std::fmt::Write as _;

/// Lines shown at most (the match and one line around it).
const MAX_SHOWN: usize = 12;
/// A shown line longer than this is cut: the model should read the file for it.
const MAX_LINE_CHARS: usize = 300;
/// Below this average likeness per line, nothing in the file looks like `old` (a misquoted
/// two-line function scores ~0.3; a traceback line naming the function ~0.1).
const MIN_LIKENESS: f64 = 0.2;
/// Line pairs compared at most, so a huge file costs a bounded time in an error path.
const MAX_COMPARISONS: usize = 4_000_000;

/// The numbered lines of `text` that look most like `old`, with the range they cover, or None
/// when nothing does.
pub(crate) fn closest_lines(text: &str, old: &str) -> Option<(usize, usize, String)> {
    let wanted: Vec<HashSet<&str>> = old
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(words)
        .collect();
    let lines: Vec<&str> = text.lines().collect();
    if wanted.is_empty() || lines.is_empty() || 3 * wanted.len() * lines.len() > MAX_COMPARISONS {
        return None;
    }
    let have: Vec<HashSet<&str>> = lines.iter().map(|l| words(l)).collect();
    // The file lines each wanted line matches best, for the wanted text placed at `start`: the
    // line in its place or one either side, so a line the model left out or added does not
    // throw the rest off. Their average likeness, and the first and last line matched.
    let place = |start: usize| -> (f64, usize, usize) {
        let mut total = 0.0;
        let (mut first, mut last) = (usize::MAX, 0);
        for (j, w) in wanted.iter().enumerate() {
            let at = start + j;
            let lo = at.saturating_sub(1).min(have.len());
            let hi = (at + 2).min(have.len());
            let best = (lo..hi).map(|k| (likeness(w, &have[k]), k)).fold(
                None,
                |b: Option<(f64, usize)>, c| match b {
                    Some(b) if b.0 >= c.0 => Some(b),
                    _ => Some(c),
                },
            );
            if let Some((score, k)) = best
                && score > 0.0
            {
                total += score;
                first = first.min(k);
                last = last.max(k);
            }
        }
        (total / wanted.len() as f64, first, last)
    };
    let mut best: Option<(f64, usize, usize)> = None;
    for start in 0..lines.len() {
        let placed = place(start);
        if best.is_none_or(|b| placed.0 > b.0) {
            best = Some(placed);
        }
    }
    let (score, first, last) = best?;
    if score < MIN_LIKENESS {
        return None;
    }
    let from = first.saturating_sub(1);
    let to = (last + 2).min(lines.len()).min(from + MAX_SHOWN);
    let width = to.to_string().len().max(4);
    let mut out = String::new();
    for (i, line) in lines[from..to].iter().enumerate() {
        let shown: String = if line.chars().count() > MAX_LINE_CHARS {
            line.chars()
                .take(MAX_LINE_CHARS)
                .chain("…".chars())
                .collect()
        } else {
            (*line).to_string()
        };
        let _ = writeln!(out, "{:>width$} | {shown}", from + i + 1);
    }
    Some((from + 1, to, out))
}

/// The words of a line: runs of letters, digits and underscores.
fn words(line: &str) -> HashSet<&str> {
    line.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect()
}

/// Shared words over all words (1.0 for the same words, whatever the spacing).
fn likeness(a: &HashSet<&str>, b: &HashSet<&str>) -> f64 {
    let all = a.union(b).count();
    if all == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / all as f64
}

#[cfg(test)]
mod tests {
    use super::closest_lines;

    const SOLUTION: &str = "import math\n\ndef find_zero(xs):\n    \"\"\"Finds x such that poly(x) = 0.\"\"\"\n    begin, end = -1.0, 1.0\n    return begin\n\ndef poly(xs, x):\n    return sum(c * math.pow(x, i) for i, c in enumerate(xs))\n";

    #[test]
    fn a_misquoted_function_points_at_its_lines() {
        let (from, to, shown) =
            closest_lines(SOLUTION, "def find_zero(self, arr):\n    return arr[0]").expect("found");
        assert_eq!((from, to), (2, 7), "the whole function, a line either side");
        assert!(shown.contains("   3 | def find_zero(xs):"), "{shown}");
        assert!(shown.contains("   2 | \n"), "{shown}");
    }

    #[test]
    fn text_from_nowhere_in_the_file_points_nowhere() {
        assert_eq!(
            closest_lines(SOLUTION, "AssertionError: expected 3, got 4"),
            None
        );
        assert_eq!(
            closest_lines(SOLUTION, "  File \"solution.py\", line 6, in find_zero"),
            None
        );
        assert_eq!(closest_lines(SOLUTION, "   \n"), None);
        assert_eq!(closest_lines("", "def f():"), None);
    }

    #[test]
    fn long_lines_are_cut_and_the_window_is_bounded() {
        let long = format!("x = '{}'\n", "a".repeat(1000));
        let text = format!("{long}{}", "y = 1\n".repeat(40));
        let (_, _, shown) = closest_lines(&text, "x = 'aaa'").expect("found");
        assert!(shown.contains('…') && shown.len() < 400, "{shown}");
        let (from, to, _) = closest_lines(&text, &"y = 1\n".repeat(30)).expect("found");
        assert!(to - from < 12, "{from}-{to}");
    }
}
