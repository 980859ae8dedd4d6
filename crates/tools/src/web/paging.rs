//! How a long fetched text reaches the model. The engine cuts any result over its cap from
//! the middle, which would take this marker with it, so a page is cut here first, to fit, where
//! the gap can be named: its head and tail with what was left out between them, or the range
//! the model asked for with `offset`. The whole text is saved, so any part of it can be read
//! or searched without fetching the page again.

use crate::error::{ToolError, ToolResult};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Characters of page text in one result, by default and at most.
pub const MAX_LENGTH: usize = 30_000;
/// The engine's cap counts bytes: text in wide characters (Chinese, emoji) gets fewer
/// characters in the same space.
const MAX_BYTES: usize = MAX_LENGTH;
// The status line, the fence, its note and the marker need room under the engine's cap.
const _: () = assert!(MAX_BYTES + 5_000 <= crate::MAX_RESULT_CHARS);

/// The text the model gets, and where the whole went.
pub struct Page {
    pub text: String,
    /// Whether `text` is less than the whole.
    pub cut: bool,
    pub saved_to: Option<PathBuf>,
    /// Characters start..end of the whole, when a range was asked for.
    pub range: Option<(usize, usize)>,
}

impl Page {
    fn whole(text: &str) -> Page {
        Page {
            text: text.to_string(),
            cut: false,
            saved_to: None,
            range: None,
        }
    }
}

/// `whole` made to fit: from `offset` (a character index) when given, else head and tail.
pub fn page(
    whole: &str,
    max_length: Option<usize>,
    offset: Option<usize>,
    dir: &Path,
) -> ToolResult<Page> {
    let max = max_length.unwrap_or(MAX_LENGTH).clamp(1, MAX_LENGTH);
    match offset {
        None => head_and_tail(whole, max, dir),
        Some(offset) => range(whole, offset, max, dir),
    }
}

fn head_and_tail(whole: &str, max: usize, dir: &Path) -> ToolResult<Page> {
    let total = whole.chars().count();
    if total <= max && whole.len() <= MAX_BYTES {
        return Ok(Page::whole(whole));
    }
    // The start says what the page is, the end often how it ends (a summary, the last
    // entries): keep both, more of the start.
    let head_end = end_from(whole, 0, max * 2 / 3, MAX_BYTES * 2 / 3);
    let head_end = snap_end(whole, 0, head_end);
    let tail_start = start_before(whole, max - max * 2 / 3, MAX_BYTES - MAX_BYTES * 2 / 3);
    let tail_start = snap_start(whole, tail_start.max(head_end));
    let gap = whole[head_end..tail_start].chars().count();
    let lines = span(
        line_of(whole, head_end),
        line_of(whole, tail_start.saturating_sub(1)),
    );
    let saved = save(dir, whole);
    let mut text = whole[..head_end].to_string();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    let how = match &saved {
        Ok(path) => read_it(whole, path),
        Err(why) => format!(
            "The whole text could not be saved ({why}): fetch again with offset={} to read on from here.",
            whole[..head_end].chars().count()
        ),
    };
    text.push_str(&format!(
        "[… {gap} characters ({lines}) left out here. {how} …]\n"
    ));
    text.push_str(&whole[tail_start..]);
    Ok(Page {
        text,
        cut: true,
        saved_to: saved.ok(),
        range: None,
    })
}

fn range(whole: &str, offset: usize, max: usize, dir: &Path) -> ToolResult<Page> {
    let total = whole.chars().count();
    if offset > 0 && offset >= total {
        return Err(ToolError::InvalidArgument(format!(
            "offset {offset} is past the end: this page's text is {total} characters long; use an offset below {total}, or leave it out to see the start and the end"
        )));
    }
    let start = whole
        .char_indices()
        .nth(offset)
        .map_or(whole.len(), |(i, _)| i);
    let end = snap_end(whole, start, end_from(whole, start, max, MAX_BYTES));
    if start == 0 && end == whole.len() {
        return Ok(Page::whole(whole));
    }
    let end_char = offset + whole[start..end].chars().count();
    let mut text = whole[start..end].to_string();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    let place = format!(
        "This is characters {offset}–{end_char} of {total} ({} of {})",
        span(
            line_of(whole, start),
            line_of(whole, end.saturating_sub(1).max(start))
        ),
        line_count(whole)
    );
    let next = if end == whole.len() {
        ", the end.".to_string()
    } else {
        format!("; the next part starts at offset={end_char}.")
    };
    let saved = save(dir, whole);
    let how = match &saved {
        Ok(path) => format!(" {}", read_it(whole, path)),
        Err(why) => format!(" The whole text could not be saved ({why})."),
    };
    text.push_str(&format!("[{place}{next}{how}]\n"));
    Ok(Page {
        text,
        cut: true,
        saved_to: saved.ok(),
        range: Some((offset, end_char)),
    })
}

/// The marker's words for reading the saved text: read_file and search_codebase reach the
/// session's saved files by their absolute path.
fn read_it(whole: &str, path: &Path) -> String {
    let p = path.display();
    format!(
        "The whole text ({} lines) is saved as {p}: read any part with read_file (path={p}, offset, limit) or search it with search_codebase (path={p}).",
        line_count(whole)
    )
}

/// The byte where a part starting at byte `from` ends: at most `chars` characters and
/// `bytes` bytes.
fn end_from(s: &str, from: usize, chars: usize, bytes: usize) -> usize {
    let mut end = from;
    for c in s[from..].chars().take(chars) {
        if end + c.len_utf8() - from > bytes {
            break;
        }
        end += c.len_utf8();
    }
    end
}

/// The byte where the last part of `s` starts: at most `chars` characters and `bytes` bytes.
fn start_before(s: &str, chars: usize, bytes: usize) -> usize {
    let mut start = s.len();
    for c in s.chars().rev().take(chars) {
        if s.len() - (start - c.len_utf8()) > bytes {
            break;
        }
        start -= c.len_utf8();
    }
    start
}

/// `end` moved back to just after a line's end, unless that would lose over half the part (a
/// page of few, long lines is cut inside one).
fn snap_end(s: &str, from: usize, end: usize) -> usize {
    if end == s.len() || s[..end].ends_with('\n') {
        return end;
    }
    match s[from..end].rfind('\n') {
        Some(i) if i + 1 >= (end - from) / 2 => from + i + 1,
        _ => end,
    }
}

/// `start` moved on to the next line's start, unless that would lose over half the tail.
fn snap_start(s: &str, start: usize) -> usize {
    if start == 0 || start == s.len() || s[..start].ends_with('\n') {
        return start;
    }
    match s[start..].find('\n') {
        Some(i) if i < (s.len() - start) / 2 => start + i + 1,
        _ => start,
    }
}

/// `lines 3–9`, or `line 3` when the part is in one line.
fn span(first: usize, last: usize) -> String {
    if first == last {
        format!("line {first}")
    } else {
        format!("lines {first}–{last}")
    }
}

/// The 1-based line the byte at `at` is on, as read_file counts lines.
fn line_of(s: &str, at: usize) -> usize {
    s.as_bytes()[..at.min(s.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

fn line_count(s: &str) -> usize {
    s.lines().count()
}

/// Fetched files are numbered across the process, and a number is taken only by creating
/// its file: fetches at the same time, and files of an earlier run, never share a name.
static NEXT: AtomicUsize = AtomicUsize::new(1);

/// Saves `text` under a new name in `dir`, as an absolute path (the model is told to read it
/// by that path), or says why it could not.
fn save(dir: &Path, text: &str) -> Result<PathBuf, String> {
    save_bytes(dir, text.as_bytes(), "fetch", "txt")
}

/// Saves `bytes` as `{stem}-N.{ext}` under a new name in `dir`, as an absolute path.
pub(crate) fn save_bytes(
    dir: &Path,
    bytes: &[u8],
    stem: &str,
    ext: &str,
) -> Result<PathBuf, String> {
    let dir = std::path::absolute(dir).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    loop {
        let path = dir.join(format!(
            "{stem}-{}.{ext}",
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            // The name is ours; the text replaces the empty file whole, never half written.
            Ok(_) => {
                crate::write_atomic(&path, bytes).map_err(|e| e.to_string())?;
                return Ok(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_of_one_long_line_is_cut_inside_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let whole = "a".repeat(100) + &"b".repeat(100);
        let p = page(&whole, Some(30), None, dir.path()).expect("page");
        assert!(p.text.starts_with(&"a".repeat(20)), "{}", p.text);
        assert!(p.text.ends_with(&"b".repeat(10)), "{}", p.text);
        assert!(p.text.contains("170 characters (line 1) left out here"));
    }

    #[test]
    fn a_text_that_fits_is_not_saved() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = page("short\n", None, None, dir.path()).expect("page");
        assert!(!p.cut && p.saved_to.is_none() && p.text == "short\n");
        let p = page("short\n", None, Some(0), dir.path()).expect("page");
        assert!(!p.cut && p.saved_to.is_none());
        let p = page("", None, Some(0), dir.path()).expect("empty page");
        assert_eq!(p.text, "");
    }

    #[test]
    fn an_unsaved_text_says_how_to_page_instead() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("a file");
        std::fs::write(&file, "").expect("write");
        let whole = "line\n".repeat(100);
        let p = page(&whole, Some(50), None, &file).expect("page");
        assert!(p.cut && p.saved_to.is_none());
        assert!(p.text.contains("could not be saved"), "{}", p.text);
        // The head is 30 characters (6 whole lines): the model reads on from there.
        assert!(p.text.starts_with(&"line\n".repeat(6)), "{}", p.text);
        assert!(p.text.contains("offset=30 "), "{}", p.text);
    }
}
