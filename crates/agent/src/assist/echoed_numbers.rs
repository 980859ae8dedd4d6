//! `read_file` shows a file as `  12 | text` lines under a `path: lines a-b of n` header.
//! Models copy that display into the text they write: the built-in model wrote a whole file
//! starting with the header, and looked for an old_string with `   2 | ` before each line
//! (make bench-agent, py-fizzbuzz and py-unique), until the loop breaker paused the task. The
//! numbers are the display's, never the file's, so they are taken out again — only when every
//! line carries one, in sequence, so text that merely contains a `|` is left as written.

/// `text` without the header and line numbers of `read_file`'s display, or None when it is not
/// such a copy. The first line may lack its number (a copy that began after it).
pub fn without_numbers(text: &str) -> Option<String> {
    let ends_with_newline = text.ends_with('\n');
    let mut lines: Vec<&str> = text.lines().collect();
    let had_header = lines.first().is_some_and(|l| is_header(l));
    if had_header {
        lines.remove(0);
    }
    if lines.last().is_some_and(|l| is_more_lines(l)) {
        lines.pop();
    }
    if lines.is_empty() {
        return None;
    }
    let mut out: Vec<&str> = Vec::with_capacity(lines.len());
    let mut expected: Option<u64> = None;
    for (i, line) in lines.iter().enumerate() {
        match numbered(line) {
            Some((n, rest)) if expected.is_none_or(|e| e == n) => {
                expected = Some(n + 1);
                out.push(rest);
            }
            // A copy that began after the first line's number: the next line says which it was.
            None if i == 0 && !had_header => {
                let (next, _) = numbered(lines.get(1)?)?;
                if next < 2 {
                    return None;
                }
                expected = Some(next);
                out.push(line);
            }
            _ => return None,
        }
    }
    let numbered_lines = out.len() - usize::from(!had_header && numbered(lines[0]).is_none());
    if numbered_lines < 2 && !had_header {
        return None;
    }
    let mut joined = out.join("\n");
    if ends_with_newline && !joined.is_empty() {
        joined.push('\n');
    }
    Some(joined)
}

/// `calc.py: lines 1-9 of 9` (a PDF's header has more words before the colon).
fn is_header(line: &str) -> bool {
    let Some((_, range)) = line.rsplit_once(": lines ") else {
        return false;
    };
    let Some((span, total)) = range.split_once(" of ") else {
        return false;
    };
    let Some((a, b)) = span.split_once('-') else {
        return false;
    };
    [a, b, total.trim_end()]
        .iter()
        .all(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()))
}

fn is_more_lines(line: &str) -> bool {
    line.starts_with('(') && line.contains(" more lines; continue with offset=")
}

/// `  12 | text` as (12, "text"); an empty line may have lost the space after the bar.
fn numbered(line: &str) -> Option<(u64, &str)> {
    let trimmed = line.trim_start_matches(' ');
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let n = trimmed[..digits].parse().ok()?;
    let rest = &trimmed[digits..];
    if let Some(text) = rest.strip_prefix(" | ") {
        Some((n, text))
    } else if rest == " |" {
        Some((n, ""))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_display_copied_as_content_is_the_file() {
        let copied = "fizzbuzz.py: lines 1-3 of 3\n   1 | def fizzbuzz(n):\n   2 |     \"\"\"Fizz.\"\"\"\n   3 |     return str(n)\n";
        assert_eq!(
            without_numbers(copied).as_deref(),
            Some("def fizzbuzz(n):\n    \"\"\"Fizz.\"\"\"\n    return str(n)\n")
        );
    }

    #[test]
    fn a_copy_begun_after_the_first_number_loses_the_others() {
        // As the built-in model wrote its old_string in py-unique.
        let copied =
            "def unique(items):\n   2 |     \"\"\"The items.\"\"\"\n   3 | \n   4 |     pass";
        assert_eq!(
            without_numbers(copied).as_deref(),
            Some("def unique(items):\n    \"\"\"The items.\"\"\"\n\n    pass")
        );
    }

    #[test]
    fn an_empty_line_may_have_lost_its_trailing_space() {
        assert_eq!(
            without_numbers("  9 | a = 1\n 10 |\n 11 | b = 2").as_deref(),
            Some("a = 1\n\nb = 2")
        );
    }

    #[test]
    fn text_that_only_looks_numbered_is_left_alone() {
        // Numbers out of sequence, one line, a table, plain code: none is a copied display.
        for text in [
            "   1 | a\n   3 | b",
            "   7 | only one line",
            "| a | b |\n| 1 | 2 |",
            "def f():\n    return 1 | 2\n",
            "x = 1\n   2 | y",
            "",
            "a.txt: lines 1-1 of 1\n",
        ] {
            assert_eq!(without_numbers(text), None, "{text}");
        }
    }

    #[test]
    fn the_more_lines_note_is_not_part_of_the_file() {
        let copied = "a.txt: lines 1-2 of 9\n   1 | one\n   2 | two\n(7 more lines; continue with offset=3)\n";
        assert_eq!(without_numbers(copied).as_deref(), Some("one\ntwo\n"));
    }
}
