//! What is kept of a command's output: on disk, its first and last few megabytes with a marker
//! line where the middle was cut; for the model, its first and last lines, each cut to size.
//! Neither side ever holds the whole output: a command printing 200 MB once took the CLI to
//! 619 MB and left a 200 MB file behind.

use crate::read_file::{MAX_LINE_CHARS, read_capped_line};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::fmt::Write as _;
use std::io::BufReader;
use std::path::Path;
use tokio::io::AsyncWriteExt as _;

/// Bytes of the start of an output written to its file as they come.
pub const KEPT_HEAD_BYTES: u64 = 5 * 1024 * 1024;
/// Bytes of the end of an output held in memory and written when the command ends.
pub const KEPT_TAIL_BYTES: usize = 5 * 1024 * 1024;

/// How much a command printed and how much of it its file keeps (the marker line aside).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputSize {
    pub bytes_total: u64,
    pub bytes_kept: u64,
}

impl OutputSize {
    pub fn cut(&self) -> u64 {
        self.bytes_total.saturating_sub(self.bytes_kept)
    }
}

/// A command's output file as it is written: the head straight to disk, the tail in a ring of
/// bounded size until [`CappedOutput::finish`].
pub(crate) struct CappedOutput {
    file: tokio::fs::File,
    head_limit: u64,
    tail_limit: usize,
    head_written: u64,
    head_ends_line: bool,
    total: u64,
    tail: VecDeque<u8>,
}

impl CappedOutput {
    pub(crate) fn new(file: tokio::fs::File, head_limit: u64, tail_limit: usize) -> Self {
        CappedOutput {
            file,
            head_limit,
            tail_limit,
            head_written: 0,
            head_ends_line: true,
            total: 0,
            tail: VecDeque::new(),
        }
    }

    pub(crate) async fn write(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let room = self.head_limit.saturating_sub(self.head_written);
        if room > 0 {
            let n = usize::try_from(room).unwrap_or(usize::MAX).min(bytes.len());
            let (head, rest) = bytes.split_at(n);
            // A full disk loses output, never the command's result.
            let _ = self.file.write_all(head).await;
            self.head_written += n as u64;
            if let Some(&last) = head.last() {
                self.head_ends_line = last == b'\n';
            }
            bytes = rest;
        }
        if bytes.is_empty() || self.tail_limit == 0 {
            return;
        }
        if bytes.len() >= self.tail_limit {
            self.tail.clear();
            bytes = &bytes[bytes.len() - self.tail_limit..];
        } else {
            let over = (self.tail.len() + bytes.len()).saturating_sub(self.tail_limit);
            self.tail.drain(..over);
        }
        self.tail.extend(bytes);
    }

    /// Writes the tail (after a marker line, when the middle was cut) and closes the file.
    pub(crate) async fn finish(mut self) -> OutputSize {
        let in_tail = self.total - self.head_written;
        let mut tail: Vec<u8> = std::mem::take(&mut self.tail).into();
        if in_tail > tail.len() as u64 {
            // The tail starts at a whole line, so its first line is a real one.
            if let Some(i) = tail.iter().position(|&b| b == b'\n')
                && i + 1 < tail.len()
            {
                tail.drain(..=i);
            }
            let cut = in_tail - tail.len() as u64;
            let marker = format!(
                "{}… [{cut} bytes cut here: the command printed {} bytes; this file keeps the first {} and the last {}] …\n",
                if self.head_ends_line { "" } else { "\n" },
                self.total,
                self.head_written,
                tail.len()
            );
            let _ = self.file.write_all(marker.as_bytes()).await;
        }
        let _ = self.file.write_all(&tail).await;
        let _ = self.file.flush().await;
        OutputSize {
            bytes_total: self.total,
            bytes_kept: self.head_written + tail.len() as u64,
        }
    }
}

/// The first `head` and the last `tail` lines of a file, with a marker for the lines between,
/// and how many lines it has. Lines are read one at a time and each is cut to
/// [`MAX_LINE_CHARS`], so memory stays bounded by the lines shown, whatever the file holds.
pub fn head_tail(path: &Path, head: usize, tail: usize) -> std::io::Result<(String, usize)> {
    let mut reader = BufReader::with_capacity(64 * 1024, std::fs::File::open(path)?);
    let mut first: Vec<String> = Vec::new();
    let mut last: VecDeque<String> = VecDeque::new();
    let mut total = 0;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let (read, cut) = read_capped_line(&mut reader, &mut buf)?;
        if read == 0 {
            break;
        }
        total += 1;
        let line = shown_line(&buf, read, cut);
        if first.len() < head {
            first.push(line);
        } else if tail > 0 {
            if last.len() == tail {
                last.pop_front();
            }
            last.push_back(line);
        }
    }
    let mut out = String::new();
    for l in &first {
        let _ = writeln!(out, "{l}");
    }
    let between = total - first.len() - last.len();
    if between > 0 {
        // The saved file is the session's own: read_file reaches it without a question, and
        // commands cannot see it (it is outside their sandbox).
        let _ = writeln!(
            out,
            "… [{between} lines cut; the full output is in {}: read them with read_file (offset {}, limit {between})] …",
            path.display(),
            first.len() + 1
        );
    }
    for l in &last {
        let _ = writeln!(out, "{l}");
    }
    Ok((out, total))
}

/// A line as the model sees it: without its line ending, at most [`MAX_LINE_CHARS`]
/// characters, and saying how much was cut.
fn shown_line(buf: &[u8], read: usize, dropped: usize) -> String {
    let mut bytes = buf;
    while let Some((b'\n' | b'\r', rest)) = bytes.split_last() {
        bytes = rest;
    }
    let text = String::from_utf8_lossy(bytes);
    if text.chars().count() <= MAX_LINE_CHARS && dropped == 0 {
        return text.into_owned();
    }
    let kept: String = text.chars().take(MAX_LINE_CHARS).collect();
    let line_ending = buf.len() - bytes.len();
    let more = read.saturating_sub(line_ending + kept.len());
    format!("{kept} … [line cut: {more} more bytes]")
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn capped(chunks: &[&[u8]], head: u64, tail: usize) -> (Vec<u8>, OutputSize) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("out.log");
        let file = tokio::fs::File::create(&path).await.expect("create");
        let mut out = CappedOutput::new(file, head, tail);
        for c in chunks {
            out.write(c).await;
        }
        let size = out.finish().await;
        (std::fs::read(&path).expect("read"), size)
    }

    #[tokio::test]
    async fn what_fits_is_kept_whole() {
        let (file, size) = capped(&[b"one\n", b"two\n", b"three\n"], 5, 100).await;
        assert_eq!(file, b"one\ntwo\nthree\n");
        assert_eq!(size.bytes_total, 14);
        assert_eq!(size.cut(), 0);
    }

    #[tokio::test]
    async fn the_middle_is_cut_at_whole_lines_with_a_marker() {
        let lines: Vec<String> = (1..=100).map(|i| format!("line {i:03}\n")).collect();
        let chunks: Vec<&[u8]> = lines.iter().map(|l| l.as_bytes()).collect();
        // Lines are 9 bytes: the head keeps two and a half, the tail a partial line and two.
        let (file, size) = capped(&chunks, 22, 22).await;
        let text = String::from_utf8(file).expect("utf8");
        assert_eq!(size.bytes_total, 900);
        assert_eq!(size.bytes_kept, 22 + 18);
        assert!(text.starts_with("line 001\nline 002\nline\n… [860 bytes cut here: the command printed 900 bytes; this file keeps the first 22 and the last 18] …\nline 099\nline 100\n"), "{text}");
    }

    #[tokio::test]
    async fn one_enormous_line_is_kept_to_its_ends() {
        let chunk = vec![b'x'; 1000];
        let chunks: Vec<&[u8]> = (0..50).map(|_| chunk.as_slice()).collect();
        let (file, size) = capped(&chunks, 100, 100).await;
        assert_eq!(size.bytes_total, 50_000);
        assert_eq!(size.bytes_kept, 200);
        assert!(file.len() < 400, "{}", file.len());
    }

    #[test]
    fn head_and_tail_lines_are_cut_to_size() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("out.log");
        let long = "y".repeat(MAX_LINE_CHARS * 10);
        let text: String = (1..=10)
            .map(|i| format!("{i}\n"))
            .chain([format!("{long}\n"), "last\n".into()])
            .collect();
        std::fs::write(&path, text).expect("write");
        let (out, total) = head_tail(&path, 2, 2).expect("read");
        assert_eq!(total, 12);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(&lines[..2], ["1", "2"]);
        assert!(lines[2].starts_with("… [8 lines cut; the full output is in "));
        assert!(
            lines[3].ends_with(" … [line cut: 18000 more bytes]"),
            "{}",
            lines[3]
        );
        assert_eq!(lines[4], "last");
        assert!(out.len() < MAX_LINE_CHARS + 500);
    }
}
