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

use super::code_shape::{block_end, indent, starts_function};

/// The text to replace instead of `old`: the whole function `new` is written to replace, when
/// `new` is a whole function and `old` is that function's first line or a piece of its body
/// (with the lines after the function that `new` repeats). `None` leaves the edit as written.
pub fn widened(file: &str, old: &str, new: &str) -> Option<String> {
    let piece = old.trim_end_matches('\n');
    if piece.trim().is_empty() || file.matches(piece).count() != 1 {
        return None;
    }
    let lines: Vec<&str> = file.lines().collect();
    let new_lines: Vec<&str> = new.trim_end().lines().collect();
    if new_lines.len() < 2 && !new.contains('}') {
        return None;
    }
    let (at, piece_at) = header_line(&lines, file, piece, new_lines.first()?)?;
    let (end, new_end) = if braces(lines[at]) > 0 {
        // A braced function: the new text must be whole, and the old one ends where its
        // braces close.
        let new_end = closing_line(&new_lines)?;
        (closing_line(&lines[at..])? + at, new_end)
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
        (block_end(&lines, at), new_lines.len() - 1)
    } else {
        return None;
    };
    // The piece must lie in the function it would widen to.
    if end == at || end < piece_at + piece.matches('\n').count() {
        return None;
    }
    let end = end + repeated_after(&lines[end + 1..], &new_lines[new_end + 1..]);
    Some(lines[at..=end].join("\n"))
}

/// The line that starts the function to replace, and the line `piece` starts on: `piece`
/// itself when it is a function's first line, or the first line of the function around `piece`
/// when `new` begins with that same line (js-capitalize: `// TODO` in the body replaced by a
/// whole new `capitalize`).
fn header_line(lines: &[&str], file: &str, piece: &str, new_first: &str) -> Option<(usize, usize)> {
    let first = file[..file.find(piece)?].matches('\n').count();
    let line = lines.get(first)?;
    if !piece.contains('\n') && line.trim().starts_with(piece.trim()) && starts_function(line) {
        return Some((first, first));
    }
    let header = (0..first)
        .rev()
        .find(|&i| starts_function(lines[i]) && indent(lines[i]) < indent(line))?;
    (lines[header].trim() == new_first.trim()).then_some((header, first))
}

/// The line (0-based) where the braces opened on the first line close.
fn closing_line(lines: &[&str]) -> Option<usize> {
    let mut depth = 0;
    for (i, l) in lines.iter().enumerate() {
        depth += braces(l);
        if depth <= 0 {
            return Some(i);
        }
    }
    None
}

/// How many of the file's lines after the function the new text repeats after its own
/// function (`module.exports = …`), counting the blank lines between; 0 unless it repeats them
/// all, so nothing the model did not write is dropped.
fn repeated_after(file_rest: &[&str], new_rest: &[&str]) -> usize {
    let wanted: Vec<&str> = new_rest
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect();
    if wanted.is_empty() {
        return 0;
    }
    let mut matched = 0;
    for (i, l) in file_rest.iter().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        if l.trim() != wanted[matched] {
            return 0;
        }
        matched += 1;
        if matched == wanted.len() {
            return i + 1;
        }
    }
    0
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

    const CAPITALIZE: &str = "// The word with its first letter in upper case.\nfunction capitalize(word) {\n  // TODO\n}\n\nmodule.exports = { capitalize };\n";

    #[test]
    fn a_whole_function_written_for_a_piece_of_its_body_replaces_the_function() {
        // make bench-agent, js-capitalize: the TODO was replaced by a whole new function and
        // the exports line, nested in the old function, which still returned undefined.
        let new = "function capitalize(word) {\n  return word.charAt(0).toUpperCase() + word.slice(1);\n}\n\nmodule.exports = { capitalize };";
        let old = widened(CAPITALIZE, "// TODO", new).expect("widened");
        assert_eq!(
            old,
            "function capitalize(word) {\n  // TODO\n}\n\nmodule.exports = { capitalize };"
        );
        assert_eq!(
            CAPITALIZE.replace(&old, new),
            "// The word with its first letter in upper case.\nfunction capitalize(word) {\n  return word.charAt(0).toUpperCase() + word.slice(1);\n}\n\nmodule.exports = { capitalize };\n"
        );
        // Without the exports line, only the function.
        let only = "function capitalize(word) {\n  return word.toUpperCase();\n}";
        assert_eq!(
            widened(CAPITALIZE, "  // TODO", only).as_deref(),
            Some("function capitalize(word) {\n  // TODO\n}")
        );
        let py = "def f(x):\n    \"\"\"Twice x.\"\"\"\n    pass\n\n\ndef g():\n    return 1\n";
        assert_eq!(
            widened(
                py,
                "    pass",
                "def f(x):\n    \"\"\"Twice x.\"\"\"\n    return 2 * x"
            )
            .as_deref(),
            Some("def f(x):\n    \"\"\"Twice x.\"\"\"\n    pass")
        );
    }

    #[test]
    fn a_body_piece_is_widened_only_for_its_own_function_written_whole() {
        // Another function's header, a statement, an unclosed function: left as written.
        for new in [
            "function other(word) {\n  return word;\n}",
            "return word.toUpperCase();\nconsole.log(1);",
            "function capitalize(word) {\n  return word;",
        ] {
            assert_eq!(widened(CAPITALIZE, "// TODO", new), None, "{new}");
        }
        // Lines after the function the new text does not repeat as they are: not dropped.
        let new = "function capitalize(word) {\n  return word;\n}\n\nmodule.exports = { capitalize, other };";
        assert_eq!(
            widened(CAPITALIZE, "// TODO", new).as_deref(),
            Some("function capitalize(word) {\n  // TODO\n}")
        );
    }
}
