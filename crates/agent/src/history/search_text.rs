//! A session's searchable text, kept beside its log (`<id>.search`): a first line naming the
//! project and the title, then one line per piece — `seq TAB kind TAB text` (and a line for each
//! conversation restore, so what it undid is not offered) — appended as the
//! log is written and written again from the log when a session is reopened or the file is
//! missing (logs from before it existed). `search` reads these files.

use super::entry::{EngineEntry, LogEntry};
use protocol::{AgentEvent, ContentBlock, SearchHitKind};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

const EXTENSION: &str = "search";
/// What of one tool result is searchable: its start says what it is about.
const TOOL_TEXT_CAP: usize = 4096;
const MESSAGE_TEXT_CAP: usize = 16 * 1024;
/// The text's first line: whose it is.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Head {
    pub v: u32,
    pub project: String,
    pub title: String,
}

pub(crate) fn extract_path(log: &Path) -> PathBuf {
    log.with_extension(EXTENSION)
}

/// Beside the text: how much of the log (its length in bytes) the text is known to cover, and
/// how long the text was then, written when the text is written afresh and at each of the
/// log's syncs. A log longer than that (a session still being written, a power cut between
/// syncs) or a text shorter (cut) is read from the log for the search.
fn covered_path(log: &Path) -> PathBuf {
    log.with_extension("search-at")
}

/// What the searchable text was known to cover when last written down.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Covered {
    pub log: u64,
    pub text: u64,
}

/// What the searchable text covers, if it was written down.
pub(crate) fn covered(log: &Path) -> Option<Covered> {
    let s = std::fs::read_to_string(covered_path(log)).ok()?;
    let (log, text) = s.trim().split_once(' ')?;
    Some(Covered {
        log: log.parse().ok()?,
        text: text.parse().ok()?,
    })
}

fn write_covered(log: &Path, text_len: u64) -> std::io::Result<()> {
    let len = std::fs::metadata(log)?.len();
    tools::write_atomic(&covered_path(log), format!("{len} {text_len}").as_bytes())
}

/// Whether searchable text read from disk is whole as far as it can tell: a head line that
/// reads, lines that end, and no NUL bytes (what a crash leaves in a file's unwritten end).
pub(crate) fn sound(text: &[u8]) -> bool {
    let Some(head_end) = memchr::memchr(b'\n', text) else {
        return false;
    };
    text.last() == Some(&b'\n')
        && memchr::memchr(0, text).is_none()
        && serde_json::from_slice::<Head>(&text[..head_end]).is_ok()
}

/// The searchable text of `entries`, head first.
pub(crate) fn text_of<'a>(
    project: &str,
    title: &str,
    entries: impl IntoIterator<Item = (u64, &'a Value)>,
) -> std::io::Result<String> {
    let mut text = serde_json::to_string(&Head {
        v: 1,
        project: project.to_string(),
        title: title.to_string(),
    })
    .map_err(std::io::Error::other)?;
    text.push('\n');
    for (seq, event) in entries {
        text.push_str(&lines_of(seq, event));
    }
    Ok(text)
}

fn cap(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn line(seq: u64, kind: SearchHitKind, text: &str, max: usize) -> Option<String> {
    let text = cap(text.trim(), max);
    if text.is_empty() {
        return None;
    }
    let kind = match kind {
        SearchHitKind::User => "user",
        SearchHitKind::Assistant => "assistant",
        SearchHitKind::Tool => "tool",
        SearchHitKind::File => "file",
    };
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    Some(format!("{seq}\t{kind}\t{flat}\n"))
}

/// The line kind of a conversation restore (`seq TAB rewind TAB to_seq`): the entries it took
/// out of the conversation are left out of a search's answer.
pub(crate) const REWIND: &str = "rewind";

/// The searchable lines of one logged event.
pub(crate) fn lines_of(seq: u64, event: &Value) -> String {
    let mut out = String::new();
    let entry = LogEntry::read(event);
    if let LogEntry::Engine(EngineEntry::ConversationRestored { to_seq }) = entry {
        return format!("{seq}\t{REWIND}\t{to_seq}\n");
    }
    match entry.event() {
        Some(AgentEvent::UserMessage { text, .. }) => {
            out.extend(line(seq, SearchHitKind::User, &text, MESSAGE_TEXT_CAP));
        }
        Some(AgentEvent::AssistantMessage { message }) => {
            for b in &message.content {
                match b {
                    ContentBlock::Text { text } => {
                        out.extend(line(seq, SearchHitKind::Assistant, text, MESSAGE_TEXT_CAP));
                    }
                    ContentBlock::ToolUse { name, input, .. } => {
                        for key in ["path", "file_path", "command"] {
                            if let Some(p) = input.get(key).and_then(Value::as_str) {
                                let t = format!("{name} {p}");
                                out.extend(line(seq, SearchHitKind::File, &t, MESSAGE_TEXT_CAP));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        Some(AgentEvent::ToolFinished { output, .. }) => {
            out.extend(line(seq, SearchHitKind::Tool, &output, TOOL_TEXT_CAP));
        }
        _ => {}
    }
    out
}

/// The searchable text of a log being written.
pub(crate) struct SearchText {
    file: File,
    log: PathBuf,
}

impl SearchText {
    /// Writes the searchable text of `entries` (each event with its number) afresh, and
    /// keeps it open to add to.
    pub(crate) fn write<'a>(
        log: &Path,
        project: &str,
        title: &str,
        entries: impl IntoIterator<Item = (u64, &'a Value)>,
    ) -> std::io::Result<SearchText> {
        let path = extract_path(log);
        let text = text_of(project, title, entries)?;
        tools::write_atomic(&path, text.as_bytes())?;
        // What the tools answered, as private as the log it comes from.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
        let file = OpenOptions::new().append(true).mode(0o600).open(&path)?;
        write_covered(log, text.len() as u64)?;
        Ok(SearchText {
            file,
            log: log.to_path_buf(),
        })
    }

    /// Made durable with the log (at the log's sync): the text and how much of the log it
    /// covers now.
    pub(crate) fn sync(&mut self) {
        let synced = self
            .file
            .sync_data()
            .and_then(|()| self.file.metadata())
            .and_then(|m| write_covered(&self.log, m.len()));
        if let Err(e) = synced {
            // The search reads the log itself where the text falls behind.
            tracing::warn!(%e, "the session's searchable text could not be synced");
        }
    }

    /// Adds the searchable lines of one event (most have none).
    pub(crate) fn add(&mut self, lines: &str) {
        if lines.is_empty() {
            return;
        }
        if let Err(e) = self.file.write_all(lines.as_bytes()) {
            // The log itself is written; the search finds this event once the session is
            // reopened (the text is written again from the log then).
            tracing::warn!(%e, "the session's searchable text could not be added to");
        }
    }
}
