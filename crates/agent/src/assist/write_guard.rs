//! What a small model's whole-file write may not drop. A 1.5B model asked to implement one
//! function rewrote the file with two lines: the docstring, the other functions and the
//! imports were gone, and each later attempt had less to go on. For small models a write that
//! replaces an existing file is refused when it drops a definition or most of the file's lines;
//! an edit of the one function is what they get right.

/// Files shorter than this may be rewritten freely: there is too little to lose.
const SMALL_FILE_LINES: usize = 6;
/// The share of an existing file's lines a rewrite may drop.
const MAX_DROPPED: f64 = 0.5;

/// Why replacing `old` with `new` at `path` is refused, with the next step; `None` when the
/// write keeps what the file had.
pub fn refusal(path: &str, old: &str, new: &str) -> Option<String> {
    let kept: Vec<&str> = new.lines().map(str::trim).collect();
    let dropped_names: Vec<String> = definitions(old)
        .into_iter()
        .filter(|name| !definitions(new).contains(name))
        .collect();
    if !dropped_names.is_empty() {
        return Some(format!(
            "write_file refused: it would remove {} from {path}. Keep the rest of the file: change only what the task asks with edit_file (old_string copied from the file, new_string the changed text). If the task asks you to remove them, remove them with edit_file.",
            list(&dropped_names)
        ));
    }
    let lines: Vec<&str> = old
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if lines.len() < SMALL_FILE_LINES {
        return None;
    }
    let dropped = lines.iter().filter(|l| !kept.contains(l)).count();
    if dropped as f64 > lines.len() as f64 * MAX_DROPPED {
        return Some(format!(
            "write_file refused: it would drop {dropped} of the {} lines of {path} (docstrings and comments among them). Keep the file: change only what the task asks with edit_file (old_string copied from the file, new_string the changed text).",
            lines.len()
        ));
    }
    None
}

/// The names a file defines: functions, classes and the like, at any depth.
fn definitions(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut t = line.trim_start();
        for prefix in [
            "pub(crate) ",
            "pub ",
            "export default ",
            "export ",
            "async ",
        ] {
            t = t.strip_prefix(prefix).unwrap_or(t);
        }
        let rest = [
            "def ",
            "class ",
            "fn ",
            "function ",
            "struct ",
            "enum ",
            "trait ",
        ]
        .iter()
        .find_map(|k| t.strip_prefix(k));
        let name = match rest {
            Some(r) => r,
            // Shell functions: `name() {` — the whole line; a call such as `String::new()` at
            // the end of a Rust function is not one.
            None => match ["() {", "(){", "()"]
                .iter()
                .find_map(|end| t.trim_end().strip_suffix(end))
            {
                Some(n)
                    if !n.is_empty()
                        && n.chars()
                            .all(|c| c.is_alphanumeric() || c == '_' || c == '-') =>
                {
                    n
                }
                _ => continue,
            },
        };
        let name: String = name
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() && !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

fn list(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.as_slice() {
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
        [] => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOLUTION: &str = "from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n    \"\"\" Check if in given list of numbers, are any two numbers closer to each other than\n    given threshold.\n    >>> has_close_elements([1.0, 2.0, 3.0], 0.5)\n    False\n    >>> has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)\n    True\n    \"\"\"\n    pass\n";

    #[test]
    fn the_two_line_rewrite_of_the_issue_is_refused() {
        let two_lines = "def has_close_elements(self, elements):\n    return False\n";
        let why = refusal("solution.py", SOLUTION, two_lines).expect("refused");
        assert!(why.contains("would drop"), "{why}");
        assert!(why.contains("edit_file"), "{why}");
    }

    #[test]
    fn implementing_the_function_in_place_is_allowed() {
        let done = SOLUTION.replace(
            "    pass\n",
            "    for i, a in enumerate(numbers):\n        for b in numbers[i + 1:]:\n            if abs(a - b) < threshold:\n                return True\n    return False\n",
        );
        assert_eq!(refusal("solution.py", SOLUTION, &done), None);
    }

    /// make bench-agent's rs-reverse-words: the draft that implements the function was refused
    /// for "removing `String`", read from the stub's `String::new()` as a shell function.
    #[test]
    fn a_call_at_the_end_of_a_line_is_not_a_shell_function() {
        let stub = "/// The words of `s` in reverse order, joined by single spaces.\npub fn reverse_words(s: &str) -> String {\n    // Not written yet.\n    let _ = s;\n    String::new()\n}\n";
        let done = "/// The words of `s` in reverse order, joined by single spaces.\npub fn reverse_words(s: &str) -> String {\n    s.split_whitespace().rev().collect::<Vec<_>>().join(\" \")\n}\n";
        assert_eq!(refusal("src/lib.rs", stub, done), None);
        assert_eq!(
            definitions("greet() {\n  echo hi\n}\nusage()\n"),
            ["greet", "usage"]
        );
    }

    #[test]
    fn dropping_another_function_is_refused_by_name() {
        let old = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n";
        let new = "def add(a, b):\n    return a + b\n";
        let why = refusal("calc.py", old, new).expect("refused");
        assert!(why.contains("would remove `mul` from calc.py"), "{why}");
        let both = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n";
        assert_eq!(refusal("calc.py", old, both), None);
    }

    #[test]
    fn definitions_are_found_in_the_usual_languages() {
        let text = "pub fn add() {}\nexport function mul() {}\nclass Calc:\nasync def fetch():\ngreet() {\nlet x = 1;\n";
        assert_eq!(
            definitions(text),
            vec!["add", "mul", "Calc", "fetch", "greet"]
        );
    }

    #[test]
    fn a_short_file_may_be_rewritten() {
        assert_eq!(refusal("notes.txt", "a\nb\n", "c\n"), None);
    }
}
