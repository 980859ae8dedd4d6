//! How much of a tool's result the model gets. A minified file, a log line of megabytes or a
//! search over generated code must not fill the context (or the bill): every result is cut to
//! fit, per line and in total, and the caller saves the whole text where the model can read
//! parts of it.

use crate::read_file::MAX_LINE_CHARS;

/// About ten thousand tokens.
pub const MAX_RESULT_CHARS: usize = 40_000;

/// `text` cut to the limits, or None when it fits as it is.
pub fn cap_result(text: &str) -> Option<String> {
    let long_line = text.lines().any(|l| l.len() > MAX_LINE_CHARS);
    if text.len() <= MAX_RESULT_CHARS && !long_line {
        return None;
    }
    let lines: Vec<String> = text.lines().map(cap_line).collect();
    let total: usize = lines.iter().map(|l| l.len() + 1).sum();
    if total <= MAX_RESULT_CHARS {
        return Some(join(&lines));
    }
    // The start says what the result is; the end often says how it ended (a summary, an
    // error): keep both, more of the start.
    let (head_budget, tail_budget) = (MAX_RESULT_CHARS * 6 / 10, MAX_RESULT_CHARS * 3 / 10);
    let mut head = 0;
    let mut used = 0;
    while head < lines.len() && used + lines[head].len() < head_budget {
        used += lines[head].len() + 1;
        head += 1;
    }
    let mut tail = lines.len();
    used = 0;
    while tail > head && used + lines[tail - 1].len() < tail_budget {
        used += lines[tail - 1].len() + 1;
        tail -= 1;
    }
    let mut out = join(&lines[..head]);
    out.push_str(&format!("[… {} lines cut here …]\n", tail - head));
    out.push_str(&join(&lines[tail..]));
    Some(out)
}

fn cap_line(line: &str) -> String {
    if line.len() <= MAX_LINE_CHARS {
        return line.to_string();
    }
    let mut end = MAX_LINE_CHARS;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}… [{} more characters on this line]",
        &line[..end],
        line[end..].chars().count()
    )
}

fn join(lines: &[String]) -> String {
    let mut out = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for l in lines {
        out.push_str(l);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_that_fits_is_left_alone() {
        assert_eq!(cap_result("a\nb\n"), None);
    }

    #[test]
    fn a_huge_line_is_cut_with_a_marker() {
        let text = format!("before\n{}\nafter\n", "é".repeat(3_000_000));
        let out = cap_result(&text).expect("cut");
        assert!(out.len() < MAX_LINE_CHARS + 200, "{}", out.len());
        assert!(out.starts_with("before\n"));
        assert!(out.contains("more characters on this line]"));
        assert!(out.ends_with("after\n"));
    }

    #[test]
    fn many_lines_keep_the_start_and_the_end() {
        let text: String = (0..100_000).map(|i| format!("line {i}\n")).collect();
        let out = cap_result(&text).expect("cut");
        assert!(out.len() <= MAX_RESULT_CHARS + 100, "{}", out.len());
        assert!(out.starts_with("line 0\n"));
        assert!(out.ends_with("line 99999\n"));
        assert!(out.contains("lines cut here"));
    }
}
