//! `read_file`: numbered lines of a text file, a page at a time; images as attachments; a clear
//! refusal for binary files. Text is streamed line by line, so a file of any size is paged and
//! never held whole: only the requested lines are kept.

use crate::error::{ToolError, ToolResult};
use crate::list_files::human_size;
use crate::paths::ProjectRoot;
use base64::Engine as _;
use protocol::FileContent;
use schemars::JsonSchema;
use serde::Deserialize;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

pub const DEFAULT_READ_LIMIT: u32 = 2000;
/// Images up to this size travel inline (base64); larger ones are described, not sent.
pub const IMAGE_INLINE_BYTES: u64 = 5 * 1024 * 1024;
/// Longer lines are cut with a marker: a minified bundle must not flood the model or the view.
pub const MAX_LINE_CHARS: usize = 2000;
/// How much of the start of a file is inspected for NUL bytes (git's heuristic).
const SNIFF_BYTES: usize = 8000;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileArgs {
    /// File to read, relative to the project root (or absolute inside it).
    pub path: String,
    /// First line to show, 1-based. Negative counts from the end: -50 shows the last 50 lines.
    #[serde(default)]
    pub offset: Option<i64>,
    /// Maximum number of lines to show. Default 2000.
    #[serde(default)]
    pub limit: Option<u32>,
}

/// A picture `web_fetch` saved in `fetched` (a session's fetched files), by its plain name: the
/// window shows it on the call's card. Any other name, or a file that is not a picture, is
/// refused, so nothing else can be read this way.
pub fn read_fetched_picture(fetched: &Path, name: &str) -> ToolResult<FileContent> {
    let plain = !name.is_empty()
        && name.starts_with("picture-")
        && !name.contains(['/', '\\'])
        && image_mime(Path::new(name)).is_some();
    if !plain {
        return Err(ToolError::InvalidArgument(format!(
            "{name} is not a picture this session fetched"
        )));
    }
    let root = ProjectRoot::open(fetched).map_err(|_| {
        ToolError::InvalidArgument(format!("{name} is no longer among this session's files"))
    })?;
    read_file(
        &root,
        &ReadFileArgs {
            path: name.to_string(),
            offset: None,
            limit: Some(1),
        },
    )
}

pub fn read_file(root: &ProjectRoot, args: &ReadFileArgs) -> ToolResult<FileContent> {
    let limit = args.limit.unwrap_or(DEFAULT_READ_LIMIT);
    if limit == 0 {
        return Err(ToolError::InvalidArgument(
            "limit must be at least 1 line".into(),
        ));
    }
    let resolved = root.resolve(&args.path)?;
    let real = &resolved.real;
    // Errors name the file as the project does, never by where it is on this machine.
    let io = |e: std::io::Error| root.io_error(&resolved, e);
    let meta = std::fs::metadata(real).map_err(io)?;
    if meta.is_dir() {
        return Err(ToolError::NotAFile(resolved.shown().into()));
    }
    if !meta.is_file() {
        // Opening a named pipe waits for a writer that may never come; a socket or a device
        // has no text to page through.
        return Err(ToolError::InvalidArgument(format!(
            "{} is not a regular file (a named pipe, socket or device); it has no contents to read",
            resolved.display
        )));
    }
    let size = meta.len();
    let path = resolved.display.clone();

    if let Some(mime) = image_mime(real) {
        let data_base64 = if size <= IMAGE_INLINE_BYTES {
            let bytes = std::fs::read(real).map_err(io)?;
            base64::engine::general_purpose::STANDARD.encode(bytes)
        } else {
            String::new()
        };
        return Ok(FileContent::Image {
            path,
            mime: mime.into(),
            size,
            data_base64,
        });
    }

    let mut file = File::open(real).map_err(io)?;
    let mut head = vec![0u8; SNIFF_BYTES];
    let n = read_up_to(&mut file, &mut head).map_err(io)?;
    if crate::pdf_text::is_pdf(&head[..n]) {
        drop(file);
        return pdf_page(real, &path, size, args.offset, limit).map_err(|e| match e {
            PdfError::Io(e) => io(e),
            PdfError::NoText(why) => ToolError::InvalidArgument(format!(
                "{path} is a PDF, but {why}; ask the user what it says if you need it"
            )),
            PdfError::Page(e) => e,
        });
    }
    if head[..n].contains(&0) {
        return Ok(FileContent::Binary { path, size });
    }
    drop(file);

    // Two streaming passes: count lines (to place negative offsets and report the total),
    // then collect the page. Both hold one line at a time, whatever the file's size.
    let total_lines = count_lines(real).map_err(io)?;
    let start = start_line(args.offset, total_lines, &path)?;
    let (lines, crlf) = collect_lines(real, start, limit).map_err(io)?;
    Ok(FileContent::Text {
        path,
        start_line: start,
        lines,
        total_lines,
        size,
        crlf,
        extracted_from: None,
    })
}

enum PdfError {
    Io(std::io::Error),
    NoText(String),
    Page(ToolError),
}

/// A page of a PDF's extracted text, numbered and paged as a text file's lines are.
fn pdf_page(
    real: &Path,
    path: &str,
    size: u64,
    offset: Option<i64>,
    limit: u32,
) -> Result<FileContent, PdfError> {
    let bytes = std::fs::read(real).map_err(PdfError::Io)?;
    let text = crate::pdf_text::pdf_text(&bytes).map_err(PdfError::NoText)?;
    let all: Vec<&str> = text.lines().collect();
    let total_lines = u32::try_from(all.len()).unwrap_or(u32::MAX);
    let start = start_line(offset, total_lines, path).map_err(PdfError::Page)?;
    let lines = all
        .iter()
        .skip(start as usize - 1)
        .take(limit as usize)
        .map(|l| {
            if l.chars().count() > MAX_LINE_CHARS {
                let kept: String = l.chars().take(MAX_LINE_CHARS).collect();
                format!("{kept} … [line cut]")
            } else {
                (*l).to_string()
            }
        })
        .collect();
    Ok(FileContent::Text {
        path: path.to_string(),
        start_line: start,
        lines,
        total_lines,
        size,
        crlf: false,
        extracted_from: Some(protocol::ExtractedFrom::Pdf),
    })
}

/// The content as the model reads it: a header with the range, then `  12 | text` lines.
pub fn render_content(content: &FileContent) -> String {
    match content {
        FileContent::Binary { path, size } => format!(
            "{path} is a binary file ({}); it cannot be shown as text. Inspect it with a command if you must.",
            human_size(*size)
        ),
        FileContent::Image {
            path,
            mime,
            size,
            data_base64,
        } => {
            if data_base64.is_empty() {
                format!(
                    "{path} is an image ({mime}, {}), too large to attach.",
                    human_size(*size)
                )
            } else {
                // Whether the model gets the picture is the engine's to say: it knows the model.
                format!("{path} is an image ({mime}, {}).", human_size(*size))
            }
        }
        FileContent::Text {
            path,
            start_line,
            lines,
            total_lines,
            extracted_from,
            ..
        } => {
            if *total_lines == 0 {
                return format!("{path} is empty (0 lines).");
            }
            let end = start_line + lines.len() as u32 - 1;
            let width = end.to_string().len().max(4);
            let what = match extracted_from {
                Some(protocol::ExtractedFrom::Pdf) => " (a PDF: its text, extracted)",
                None => "",
            };
            let mut out = format!("{path}{what}: lines {start_line}-{end} of {total_lines}\n");
            for (i, line) in lines.iter().enumerate() {
                let _ = writeln!(out, "{:>width$} | {line}", *start_line as usize + i);
            }
            if end < *total_lines {
                let _ = writeln!(
                    out,
                    "({} more lines; continue with offset={})",
                    total_lines - end,
                    end + 1
                );
            }
            out
        }
    }
}

fn image_mime(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        _ => return None,
    })
}

fn read_up_to(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

fn count_lines(path: &Path) -> std::io::Result<u32> {
    let mut file = File::open(path)?;
    let mut buf = vec![0u8; 64 * 1024];
    let mut newlines: u64 = 0;
    let mut last = None;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        newlines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
        last = Some(buf[n - 1]);
    }
    // A last line without a trailing newline still counts.
    let lines = match last {
        None => 0,
        Some(b'\n') => newlines,
        Some(_) => newlines + 1,
    };
    Ok(u32::try_from(lines).unwrap_or(u32::MAX))
}

fn start_line(offset: Option<i64>, total: u32, path: &str) -> ToolResult<u32> {
    let total_i = i64::from(total);
    let start = match offset {
        None | Some(0) => 1,
        Some(o) if o > 0 => o,
        Some(o) => (total_i + o + 1).max(1),
    };
    if total == 0 {
        return Ok(1);
    }
    if start > total_i {
        return Err(ToolError::InvalidArgument(format!(
            "offset {start} is past the end of {path}, which has {total} lines; use an offset from 1 to {total}, or a negative offset to read the end"
        )));
    }
    Ok(u32::try_from(start).unwrap_or(1))
}

fn collect_lines(path: &Path, start: u32, limit: u32) -> std::io::Result<(Vec<String>, bool)> {
    let file = File::open(path)?;
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let mut lines = Vec::new();
    let mut crlf = false;
    let mut buf = Vec::new();
    let mut number: u32 = 0;
    loop {
        buf.clear();
        let (read, cut) = read_capped_line(&mut reader, &mut buf)?;
        if read == 0 {
            break;
        }
        number += 1;
        let mut eol = 0;
        if buf.ends_with(b"\n") {
            buf.pop();
            eol = 1;
            if buf.ends_with(b"\r") {
                buf.pop();
                eol = 2;
                crlf = true;
            }
        }
        if number < start {
            continue;
        }
        let mut line = String::from_utf8_lossy(&buf).into_owned();
        if line.chars().count() > MAX_LINE_CHARS || cut > 0 {
            let kept: String = line.chars().take(MAX_LINE_CHARS).collect();
            let full = read - eol;
            line = format!(
                "{kept} … [line cut: {} more bytes]",
                full.saturating_sub(kept.len())
            );
        }
        lines.push(line);
        if lines.len() as u32 >= limit {
            break;
        }
    }
    Ok((lines, crlf))
}

/// Reads one line, keeping at most a few times [`MAX_LINE_CHARS`] bytes of it: a 50 MB
/// single-line file must not be pulled into memory. Returns bytes consumed and bytes dropped.
pub(crate) fn read_capped_line(
    reader: &mut impl BufRead,
    out: &mut Vec<u8>,
) -> std::io::Result<(usize, usize)> {
    let keep = MAX_LINE_CHARS * 4 + 2;
    let mut consumed = 0;
    let mut dropped = 0;
    loop {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            return Ok((consumed, dropped));
        }
        let (chunk, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..=i], true),
            None => (available, false),
        };
        let room = keep.saturating_sub(out.len());
        if chunk.len() <= room {
            out.extend_from_slice(chunk);
        } else {
            out.extend_from_slice(&chunk[..room]);
            dropped += chunk.len() - room;
            if done {
                out.push(b'\n');
            }
        }
        let len = chunk.len();
        consumed += len;
        reader.consume(len);
        if done {
            return Ok((consumed, dropped));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn project(files: &[(&str, &[u8])]) -> (tempfile::TempDir, ProjectRoot) {
        let dir = tempfile::tempdir().expect("tempdir");
        for (name, body) in files {
            let p = dir.path().join(name);
            if let Some(parent) = p.parent() {
                fs::create_dir_all(parent).expect("mkdir");
            }
            fs::write(p, body).expect("write");
        }
        let root = ProjectRoot::open(dir.path()).expect("open");
        (dir, root)
    }

    fn args(path: &str, offset: Option<i64>, limit: Option<u32>) -> ReadFileArgs {
        ReadFileArgs {
            path: path.into(),
            offset,
            limit,
        }
    }

    fn text(c: &FileContent) -> (u32, Vec<String>, u32) {
        match c {
            FileContent::Text {
                start_line,
                lines,
                total_lines,
                ..
            } => (*start_line, lines.clone(), *total_lines),
            other => panic!("not text: {other:?}"),
        }
    }

    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("line {i}\n")).collect()
    }

    #[test]
    fn reads_whole_small_file_with_numbered_lines() {
        let (_d, root) = project(&[("a.txt", b"one\ntwo\nthree\n")]);
        let c = read_file(&root, &args("a.txt", None, None)).expect("read");
        assert_eq!(
            text(&c),
            (1, vec!["one".into(), "two".into(), "three".into()], 3)
        );
        assert_eq!(
            render_content(&c),
            "a.txt: lines 1-3 of 3\n   1 | one\n   2 | two\n   3 | three\n"
        );
    }

    /// A named pipe nobody writes to: read_file used to wait for it forever.
    #[test]
    fn a_named_pipe_is_refused_not_waited_on() {
        let (dir, root) = project(&[]);
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo");
        assert!(made.success());
        let (tx, rx) = std::sync::mpsc::channel();
        let a = args("pipe", None, None);
        std::thread::spawn(move || {
            let _ = tx.send(read_file(&root, &a).map(|_| ()));
        });
        let got = rx
            .recv_timeout(std::time::Duration::from_secs(5))
            .expect("read_file returned");
        let err = got.expect_err("refused");
        assert!(err.to_string().contains("not a regular file"), "{err}");
    }

    #[test]
    fn last_line_without_newline_counts() {
        let (_d, root) = project(&[("a.txt", b"one\ntwo")]);
        let c = read_file(&root, &args("a.txt", None, None)).expect("read");
        assert_eq!(text(&c).2, 2);
        assert_eq!(text(&c).1, vec!["one", "two"]);
    }

    #[test]
    fn offset_and_limit_page_through_and_say_how_to_continue() {
        let (_d, root) = project(&[("a.txt", numbered(10).as_bytes())]);
        let c = read_file(&root, &args("a.txt", Some(4), Some(3))).expect("read");
        assert_eq!(
            text(&c),
            (
                4,
                vec!["line 4".into(), "line 5".into(), "line 6".into()],
                10
            )
        );
        let r = render_content(&c);
        assert!(
            r.starts_with("a.txt: lines 4-6 of 10\n   4 | line 4\n"),
            "{r}"
        );
        assert!(r.contains("(4 more lines; continue with offset=7)"), "{r}");
    }

    #[test]
    fn negative_offset_reads_the_end() {
        let (_d, root) = project(&[("a.txt", numbered(10).as_bytes())]);
        let c = read_file(&root, &args("a.txt", Some(-3), None)).expect("read");
        assert_eq!(
            text(&c),
            (
                8,
                vec!["line 8".into(), "line 9".into(), "line 10".into()],
                10
            )
        );
        // More than the file holds: from the start.
        let c = read_file(&root, &args("a.txt", Some(-50), None)).expect("read");
        assert_eq!(text(&c).0, 1);
        assert_eq!(text(&c).1.len(), 10);
    }

    #[test]
    fn default_limit_is_2000_lines() {
        let (_d, root) = project(&[("a.txt", numbered(2500).as_bytes())]);
        let c = read_file(&root, &args("a.txt", None, None)).expect("read");
        let (_, lines, total) = text(&c);
        assert_eq!(lines.len(), 2000);
        assert_eq!(total, 2500);
        assert!(render_content(&c).contains("continue with offset=2001"));
    }

    #[test]
    fn offset_past_end_and_zero_limit_are_clear_errors() {
        let (_d, root) = project(&[("a.txt", numbered(5).as_bytes())]);
        let err = read_file(&root, &args("a.txt", Some(9), None)).expect_err("past end");
        assert!(err.to_string().contains("has 5 lines"), "{err}");
        let err = read_file(&root, &args("a.txt", None, Some(0))).expect_err("zero");
        assert!(err.to_string().contains("at least 1"), "{err}");
    }

    #[test]
    fn empty_file_is_text_with_no_lines() {
        let (_d, root) = project(&[("e.txt", b"")]);
        let c = read_file(&root, &args("e.txt", None, None)).expect("read");
        assert_eq!(text(&c), (1, vec![], 0));
        assert_eq!(render_content(&c), "e.txt is empty (0 lines).");
    }

    #[test]
    fn crlf_is_detected_and_stripped() {
        let (_d, root) = project(&[("w.txt", b"a\r\nb\r\n")]);
        let c = read_file(&root, &args("w.txt", None, None)).expect("read");
        match c {
            FileContent::Text { lines, crlf, .. } => {
                assert_eq!(lines, vec!["a", "b"]);
                assert!(crlf);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn binary_files_are_refused_clearly() {
        let (_d, root) = project(&[("b.bin", b"\x7fELF\x00\x01\x02rest")]);
        let c = read_file(&root, &args("b.bin", None, None)).expect("read");
        assert_eq!(
            c,
            FileContent::Binary {
                path: "b.bin".into(),
                size: 11
            }
        );
        assert!(render_content(&c).contains("binary file (11 B)"));
    }

    #[test]
    fn only_a_fetched_picture_by_its_plain_name_is_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("picture-3.png"), b"\x89PNG").expect("write");
        std::fs::write(dir.path().join("fetch-1.txt"), "secret").expect("write");
        match read_fetched_picture(dir.path(), "picture-3.png").expect("read") {
            FileContent::Image { mime, .. } => assert_eq!(mime, "image/png"),
            other => panic!("not an image: {other:?}"),
        }
        for bad in [
            "fetch-1.txt",
            "../picture-3.png",
            "picture-../../x.png",
            "picture-3.txt",
            "",
        ] {
            assert!(
                read_fetched_picture(dir.path(), bad).is_err(),
                "{bad} was read"
            );
        }
    }

    #[test]
    fn images_are_attached_as_base64() {
        let png = b"\x89PNG\r\n\x1a\n\x00\x00";
        let (_d, root) = project(&[("pic.PNG", png)]);
        match read_file(&root, &args("pic.PNG", None, None)).expect("read") {
            FileContent::Image {
                mime,
                data_base64,
                size,
                ..
            } => {
                assert_eq!(mime, "image/png");
                assert_eq!(size, 10);
                assert_eq!(data_base64, "iVBORw0KGgoAAA==");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn long_lines_are_cut_with_a_marker() {
        let long = "x".repeat(MAX_LINE_CHARS * 10);
        let body = format!("{long}\nshort\n");
        let (_d, root) = project(&[("min.js", body.as_bytes())]);
        let c = read_file(&root, &args("min.js", None, None)).expect("read");
        let (_, lines, total) = text(&c);
        assert_eq!(total, 2);
        assert!(lines[0].starts_with(&"x".repeat(MAX_LINE_CHARS)));
        assert!(
            lines[0].contains("[line cut:"),
            "{}",
            &lines[0][MAX_LINE_CHARS..]
        );
        assert_eq!(lines[1], "short");
    }

    #[test]
    fn large_file_pages_from_the_end_without_loading_it() {
        // ~6 MB: over the 5 MB the issue names as "large".
        let body = numbered(600_000);
        assert!(body.len() > 5 * 1024 * 1024);
        let (_d, root) = project(&[("big.log.txt", body.as_bytes())]);
        let c = read_file(&root, &args("big.log.txt", Some(-2), None)).expect("read");
        assert_eq!(
            text(&c),
            (
                599_999,
                vec!["line 599999".into(), "line 600000".into()],
                600_000
            )
        );
    }

    #[test]
    fn folders_missing_files_and_escapes_are_clear_errors() {
        let (_d, root) = project(&[("src/a.rs", b"a")]);
        let err = read_file(&root, &args("src", None, None)).expect_err("dir");
        assert!(err.to_string().contains("Use list_files"), "{err}");
        assert!(matches!(
            read_file(&root, &args("nope.rs", None, None)),
            Err(ToolError::NoSuchPath { .. })
        ));
        assert!(matches!(
            read_file(&root, &args("../etc/passwd", None, None)),
            Err(ToolError::OutsideProject { .. })
        ));
    }

    #[test]
    fn invalid_utf8_is_shown_lossily_not_refused() {
        let (_d, root) = project(&[("latin1.txt", b"caf\xe9\n")]);
        let c = read_file(&root, &args("latin1.txt", None, None)).expect("read");
        assert_eq!(text(&c).1, vec!["caf\u{fffd}"]);
    }
}
