//! A small model's edit that names a function's first line and writes the whole function: read
//! as replacing the whole function. The built-in model, asked to fix `range` in range.js,
//! wrote `old_string: "function range(start, end) {"` and a complete new function as
//! new_string; the old body stayed below it and the file no longer parsed (3 of the first 3
//! JavaScript tasks of `make bench-agent`). Python shows the same shape: the header, then the
//! new body, with the old body left after a `return`.
//!
//! Widened only when the new text is plainly a whole function: in a braced language its braces
//! close where the header's opened; in Python its last line is a `return`, `raise` or `pass` at
//! the body's own indentation (code after it could never run). An insertion at the top of the
//! body (a guard, a docstring) is neither, and is left as written.

use crate::code_shape::{block_end, indent, starts_function};

/// The text to replace instead of `old`: the whole function whose first line `old` is, when
/// `new` is a whole function in its place. `None` leaves the edit as written.
pub fn widened(file: &str, old: &str, new: &str) -> Option<String> {
    let header = old.trim_end_matches('\n');
    if header.contains('\n') || header.trim().is_empty() || file.matches(header).count() != 1 {
        return None;
    }
    let lines: Vec<&str> = file.lines().collect();
    let at = lines.iter().position(|l| l.contains(header))?;
    if !lines[at].trim().starts_with(header.trim()) || !starts_function(lines[at]) {
        return None;
    }
    let new_lines: Vec<&str> = new.trim_end().lines().collect();
    if new_lines.len() < 2 && !new.contains('}') {
        return None;
    }
    let end = if braces(lines[at]) > 0 {
        // A braced function: the new text must be whole, and the old one ends where its
        // braces close.
        if braces(new) != 0 {
            return None;
        }
        let mut depth = 0;
        let mut end = None;
        for (i, l) in lines.iter().enumerate().skip(at) {
            depth += braces(l);
            if depth <= 0 {
                end = Some(i);
                break;
            }
        }
        end?
    } else if lines[at].trim_end().ends_with(':') {
        // Python: a body-level return, raise or pass ends the new text.
        let body_indent = indent(lines[at]) + 4;
        let last = new_lines.iter().rev().find(|l| !l.trim().is_empty())?;
        let t = last.trim_start();
        let ends = ["return", "raise", "pass"]
            .iter()
            .any(|k| t == *k || t.starts_with(&format!("{k} ")));
        if !(ends && indent(last) == body_indent) {
            return None;
        }
        block_end(&lines, at)
    } else {
        return None;
    };
    if end == at {
        return None;
    }
    Some(lines[at..=end].join("\n"))
}

/// Opening minus closing braces (strings and comments are not told apart: the lines that
/// open functions rarely hold a brace in a string).
fn braces(text: &str) -> i32 {
    text.chars().fold(0, |n, c| match c {
        '{' => n + 1,
        '}' => n - 1,
        _ => n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const RANGE: &str = "// The integers from start up to, but not including, end.\nfunction range(start, end) {\n  const out = [];\n  for (let i = start; i <= end; i++) out.push(i);\n  return out;\n}\n\nmodule.exports = { range };\n";

    #[test]
    fn a_whole_function_written_for_its_first_line_replaces_the_function() {
        let new = "function range(start, end) { const out = []; for (let i = start; i < end; i++) out.push(i); return out; }";
        let old = widened(RANGE, "function range(start, end) {", new).expect("widened");
        assert_eq!(
            old,
            "function range(start, end) {\n  const out = [];\n  for (let i = start; i <= end; i++) out.push(i);\n  return out;\n}"
        );
        let fixed = RANGE.replace(&old, new);
        assert!(fixed.ends_with("return out; }\n\nmodule.exports = { range };\n"));
    }

    #[test]
    fn python_header_and_new_body_replace_the_old_body() {
        let calc = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n";
        let old =
            widened(calc, "def add(a, b):", "def add(a, b):\n    return a + b").expect("widened");
        assert_eq!(old, "def add(a, b):\n    return a - b");
    }

    #[test]
    fn an_insertion_at_the_top_of_the_body_is_left_as_written() {
        let stats = "def mean(xs):\n    \"\"\"The mean.\"\"\"\n    return sum(xs) / len(xs)\n";
        // A guard: its return is deeper than the body.
        assert_eq!(
            widened(
                stats,
                "def mean(xs):",
                "def mean(xs):\n    if not xs:\n        return 0.0"
            ),
            None
        );
        // An open brace: the new text goes on in the old body.
        assert_eq!(
            widened(
                RANGE,
                "function range(start, end) {",
                "function range(start, end) {\n  if (end <= start) return [];"
            ),
            None
        );
    }

    #[test]
    fn only_a_definitions_single_unique_line() {
        assert_eq!(
            widened(RANGE, "const out = [];", "const out = [1];\nx();"),
            None
        );
        assert_eq!(
            widened(
                RANGE,
                "function range(start, end) {\n  const out = [];",
                "function range() {}"
            ),
            None
        );
        let twice = "function f() {\n}\nfunction f() {\n}\n";
        assert_eq!(
            widened(twice, "function f() {", "function f() { return 1; }"),
            None
        );
    }
}
