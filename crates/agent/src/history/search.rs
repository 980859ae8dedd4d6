//! Full-text search over a project's sessions: what the person and the model said, what tools
//! answered and the files calls named, as each session's searchable text (`search_text`) holds
//! it. A search reads those files only, never the logs: a plain scan of text laid out for it,
//! measured against the goal in `benches/session_search.rs`.

use super::log::{LogError, read_session};
use super::search_text::{Head, REWIND, SearchText, covered, extract_path, sound, text_of};
use protocol::{SearchHit, SearchHitKind};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Sessions a search answers with, newest first.
pub const MAX_HITS: usize = 50;

/// The searchable text of the log at `log`: its file when that is whole and covers the log;
/// read from the log when the file is damaged or behind it (in memory only: its session may be
/// writing the file); written from the log when it is missing or from before coverage was kept.
fn extract_of(log: &Path) -> Option<Vec<u8>> {
    let path = extract_path(log);
    let covers = covered(log);
    match std::fs::read(&path) {
        Ok(bytes)
            if sound(&bytes)
                && covers.is_some_and(|c| {
                    bytes.len() as u64 >= c.text
                        && std::fs::metadata(log).is_ok_and(|m| m.len() <= c.log)
                }) =>
        {
            return Some(bytes);
        }
        Ok(_) if covers.is_some() => {
            let read = read_session::<Value>(log).ok()?;
            let entries = read.entries.iter().map(|e| (e.seq, &e.event));
            let text = text_of(&read.header.project, &read.header.task, entries).ok()?;
            return Some(text.into_bytes());
        }
        _ => {}
    }
    let read = read_session::<Value>(log).ok()?;
    let entries = read.entries.iter().map(|e| (e.seq, &e.event));
    drop(SearchText::write(log, &read.header.project, &read.header.task, entries).ok()?);
    std::fs::read(&path).ok()
}

/// A snippet of `line` around `at`, on character boundaries.
fn snippet(line: &str, at: usize) -> String {
    let mut start = at.saturating_sub(60);
    while !line.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (at + 100).min(line.len());
    while !line.is_char_boundary(end) {
        end += 1;
    }
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.push_str(line[start..end].trim());
    if end < line.len() {
        out.push('…');
    }
    out
}

fn kind_of(name: &str) -> SearchHitKind {
    match name {
        "user" => SearchHitKind::User,
        "assistant" => SearchHitKind::Assistant,
        "file" => SearchHitKind::File,
        _ => SearchHitKind::Tool,
    }
}

/// What a search looks for: its first word found case-insensitively across the text (the
/// longest word: the rarest, most likely), the others then within that line.
struct Query {
    first: regex::bytes::Regex,
    rest: Vec<Vec<u8>>,
}

impl Query {
    fn new(query: &str) -> Option<Query> {
        let mut terms: Vec<Vec<u8>> = query
            .split_whitespace()
            .map(|t| t.to_ascii_lowercase().into_bytes())
            .collect();
        terms.sort_by_key(|t| std::cmp::Reverse(t.len()));
        let (first, rest) = terms.split_first()?;
        let first =
            regex::bytes::RegexBuilder::new(&regex::escape(&String::from_utf8_lossy(first)))
                .case_insensitive(true)
                .unicode(false)
                .build()
                .ok()?;
        Some(Query {
            first,
            rest: rest.to_vec(),
        })
    }

    /// The first line of `text` (not its head line) holding every word, where the first word
    /// is in it, and how many lines do; lines a restore took out of the conversation (`undone`)
    /// do not count.
    fn first_match(
        &self,
        text: &[u8],
        undone: &BTreeSet<u64>,
    ) -> Option<(usize, usize, usize, u32)> {
        let mut found: Option<(usize, usize, usize)> = None;
        let mut count = 0u32;
        let mut from = memchr::memchr(b'\n', text)? + 1;
        let mut lowered = Vec::new();
        while from < text.len() {
            let Some(m) = self.first.find_at(text, from) else {
                break;
            };
            let at = m.start();
            let start = memchr::memrchr(b'\n', &text[..at]).map_or(0, |p| p + 1);
            let end = memchr::memchr(b'\n', &text[at..]).map_or(text.len(), |p| at + p);
            lowered.clear();
            lowered.extend(text[start..end].iter().map(u8::to_ascii_lowercase));
            if !line_undone(&text[start..end], undone)
                && self
                    .rest
                    .iter()
                    .all(|t| memchr::memmem::find(&lowered, t).is_some())
            {
                count += 1;
                found.get_or_insert((start, end, at));
            }
            from = end + 1;
        }
        found.map(|(s, e, a)| (s, e, a, count))
    }
}

/// Whether a line of the text is a restore's own, or one a restore took out of the conversation.
fn line_undone(line: &[u8], undone: &BTreeSet<u64>) -> bool {
    let mut parts = line.splitn(3, |b| *b == b'\t');
    let seq = parts
        .next()
        .and_then(|s| std::str::from_utf8(s).ok()?.parse::<u64>().ok());
    parts.next() == Some(REWIND.as_bytes()) || seq.is_some_and(|s| undone.contains(&s))
}

/// The entries of a text that restores took out of the conversation (undone turns): worked
/// out as the session's conversation is, from its restore lines. Empty without restores.
fn undone_in(text: &[u8]) -> BTreeSet<u64> {
    let mut marker = Vec::from(&b"\t"[..]);
    marker.extend_from_slice(REWIND.as_bytes());
    marker.push(b'\t');
    if memchr::memmem::find(text, &marker).is_none() {
        return BTreeSet::new();
    }
    let mut entries = Vec::new();
    for line in text.split(|b| *b == b'\n').skip(1) {
        let mut parts = line.splitn(3, |b| *b == b'\t');
        let (Some(seq), Some(kind), rest) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let Some(seq) = std::str::from_utf8(seq)
            .ok()
            .and_then(|s| s.parse::<u64>().ok())
        else {
            continue;
        };
        let event = match rest.and_then(|r| std::str::from_utf8(r).ok()?.parse::<u64>().ok()) {
            Some(to_seq) if kind == REWIND.as_bytes() => {
                super::entry::EngineEntry::ConversationRestored { to_seq }.line()
            }
            _ => Value::Null,
        };
        if entries
            .last()
            .is_none_or(|e: &super::log::Entry<Value>| e.seq != seq)
        {
            entries.push(super::log::Entry {
                seq,
                at_ms: 0,
                event,
            });
        }
    }
    let kept: BTreeSet<u64> = super::rewind::effective(&entries)
        .iter()
        .map(|e| e.seq)
        .collect();
    entries
        .iter()
        .map(|e| e.seq)
        .filter(|s| !kept.contains(s))
        .collect()
}

/// The hit of one session's text, if it is `project`'s and holds the words.
fn hit_in(log: &Path, project: &str, query: &Query) -> Option<SearchHit> {
    let text = extract_of(log)?;
    let head_end = memchr::memchr(b'\n', &text).unwrap_or(text.len());
    let head = serde_json::from_slice::<Head>(&text[..head_end]).ok()?;
    if head.project != project {
        return None;
    }
    let (start, end, at, matches) = query.first_match(&text, &undone_in(&text))?;
    let line = String::from_utf8_lossy(&text[start..end]);
    let mut parts = line.splitn(3, '\t');
    let (seq, kind, body) = (parts.next()?, parts.next()?, parts.next()?);
    let body_at = (at - start).saturating_sub(seq.len() + kind.len() + 2);
    let updated_ms = std::fs::metadata(log)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    Some(SearchHit {
        session: log
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        title: head.title,
        seq: seq.parse().unwrap_or(0),
        kind: kind_of(kind),
        snippet: snippet(body, body_at.min(body.len())),
        matches,
        updated_ms,
    })
}

/// The sessions of `project` whose text holds every word of `query` (case-insensitive for
/// ASCII letters) in one message, newest first, each with its first such message. The files
/// are read on every core.
pub fn search_sessions(
    sessions_dir: &Path,
    project: &str,
    query: &str,
) -> Result<Vec<SearchHit>, LogError> {
    let Some(query) = Query::new(query) else {
        return Ok(Vec::new());
    };
    let Ok(dir) = std::fs::read_dir(sessions_dir) else {
        return Ok(Vec::new());
    };
    let logs: Vec<PathBuf> = dir
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    let chunk = logs.len().div_ceil(threads).max(1);
    let mut hits: Vec<SearchHit> = std::thread::scope(|scope| {
        let workers: Vec<_> = logs
            .chunks(chunk)
            .map(|part| {
                let query = &query;
                scope.spawn(move || {
                    part.iter()
                        .filter_map(|log| hit_in(log, project, query))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    });
    hits.sort_by_key(|h| std::cmp::Reverse(h.updated_ms));
    hits.truncate(MAX_HITS);
    Ok(hits)
}

#[cfg(test)]
mod tests {
    use super::super::log::Entry;
    use super::super::search_text::lines_of;
    use super::*;
    use serde_json::json;
    use std::os::unix::fs::PermissionsExt as _;

    fn entry(seq: u64, event: Value) -> Entry<Value> {
        Entry {
            seq,
            at_ms: 0,
            event,
        }
    }

    fn session(dir: &Path, id: &str, project: &str, entries: &[Entry<Value>]) {
        let log = dir.join(format!("{id}.jsonl"));
        let header = json!({"header": {"id": id, "project": project, "task": format!("task of {id}"), "model": "m", "started_ms": 0}});
        let mut text = format!("{header}\n");
        for e in entries {
            text.push_str(&serde_json::to_string(e).expect("json"));
            text.push('\n');
        }
        std::fs::write(&log, text).expect("write");
    }

    /// Issue 46, item 8: a search found turns a restore had taken out of the conversation, and
    /// opened nowhere. They are left out; undoing the restore brings them back.
    #[test]
    fn turns_a_restore_took_back_are_not_found_until_it_is_undone() {
        use super::super::entry::EngineEntry;
        let dir = tempfile::tempdir().expect("tempdir");
        let user = |seq: u64, text: &str| entry(seq, json!({"type": "user_message", "text": text}));
        let rewind =
            |seq: u64, to_seq: u64| entry(seq, EngineEntry::ConversationRestored { to_seq }.line());
        let mut entries = vec![
            user(1, "alpha first turn"),
            user(2, "bravo second turn"),
            rewind(3, 2),
            user(4, "charlie after the restore"),
        ];
        session(dir.path(), "s1", "/p", &entries);
        let found = |q: &str| {
            search_sessions(dir.path(), "/p", q)
                .expect("search")
                .iter()
                .map(|h| h.seq)
                .collect::<Vec<_>>()
        };
        assert_eq!(found("alpha"), [1]);
        assert_eq!(
            found("bravo"),
            Vec::<u64>::new(),
            "an undone turn is not offered"
        );
        assert_eq!(found("charlie"), [4]);
        assert_eq!(found("turn"), [1], "the first match that is still there");
        // Undone: the conversation as it was before the restore (entry 3), with what came after.
        entries.push(rewind(5, 3));
        session(dir.path(), "s1", "/p", &entries);
        let _ = std::fs::remove_file(dir.path().join("s1.search"));
        assert_eq!(found("bravo"), [2]);
        assert_eq!(found("charlie"), Vec::<u64>::new());
        assert_eq!(
            found("3"),
            Vec::<u64>::new(),
            "a restore's own line is no message"
        );
    }

    #[test]
    fn every_word_is_found_in_one_message_of_the_project_s_sessions() {
        let dir = tempfile::tempdir().expect("tempdir");
        session(
            dir.path(),
            "s1",
            "/p",
            &[
                entry(
                    1,
                    json!({"type": "user_message", "text": "Fix the Parser crash"}),
                ),
                entry(
                    2,
                    json!({"type": "assistant_message", "message": {"role": "assistant", "content": [
                    {"type": "text", "text": "Looking at it."},
                    {"type": "tool_use", "id": "c1", "name": "edit_file", "input": {"path": "src/lexer.rs"}}]}}),
                ),
                entry(
                    3,
                    json!({"type": "tool_finished", "id": "c1", "name": "edit_file", "output": "Edited src/lexer.rs: tokens fixed", "is_error": false}),
                ),
            ],
        );
        session(
            dir.path(),
            "s2",
            "/other",
            &[entry(
                1,
                json!({"type": "user_message", "text": "parser crash elsewhere"}),
            )],
        );
        // Written from the logs: neither session had searchable text yet.
        let hits = search_sessions(dir.path(), "/p", "parser CRASH").expect("search");
        assert_eq!(hits.len(), 1, "{hits:?}");
        assert_eq!(hits[0].session, "s1");
        assert_eq!(hits[0].seq, 1);
        assert_eq!(hits[0].kind, SearchHitKind::User);
        assert_eq!(hits[0].snippet, "Fix the Parser crash");
        let hits = search_sessions(dir.path(), "/p", "lexer.rs").expect("search");
        assert_eq!(hits[0].kind, SearchHitKind::File);
        assert_eq!(hits[0].matches, 2, "the call and its result");
        assert!(
            search_sessions(dir.path(), "/p", "parser lexer")
                .expect("search")
                .is_empty()
        );
        assert!(
            search_sessions(dir.path(), "/p", "task of")
                .expect("search")
                .is_empty(),
            "the title line is not a message"
        );
    }

    #[test]
    fn what_is_appended_is_found_and_a_snippet_keeps_characters_whole() {
        let dir = tempfile::tempdir().expect("tempdir");
        session(dir.path(), "s1", "/p", &[]);
        let log = dir.path().join("s1.jsonl");
        let mut text = SearchText::write(&log, "/p", "t", std::iter::empty()).expect("write");
        let long = format!("{}é needle {}", "à".repeat(100), "ü".repeat(100));
        text.add(&lines_of(7, &json!({"type": "user_message", "text": long})));
        let hits = search_sessions(dir.path(), "/p", "needle").expect("search");
        assert_eq!(hits[0].seq, 7);
        let mode = std::fs::metadata(dir.path().join("s1.search"))
            .expect("written")
            .permissions()
            .mode();
        assert_eq!(
            mode & 0o777,
            0o600,
            "only its owner reads what tools answered"
        );
        assert!(
            hits[0].snippet.starts_with('…') && hits[0].snippet.contains("é needle"),
            "{}",
            hits[0].snippet
        );
    }

    /// Issue 47: an emptied search file, one left with its first line only (what a power cut
    /// leaves: the log is synced at each turn's end), one full of NULs, and one behind its log
    /// each hid the session from the search for good; only a missing file was rebuilt.
    #[test]
    fn a_damaged_or_stale_search_file_never_hides_a_session() {
        let dir = tempfile::tempdir().expect("tempdir");
        let message = |seq, text: &str| entry(seq, json!({"type": "user_message", "text": text}));
        session(
            dir.path(),
            "s1",
            "/p",
            &[message(1, "fix the flaky parser")],
        );
        let found = |word: &str| {
            search_sessions(dir.path(), "/p", word)
                .expect("search")
                .iter()
                .any(|h| h.session == "s1")
        };
        assert!(found("flaky"), "written from the log");
        let search = dir.path().join("s1.search");
        let whole = std::fs::read(&search).expect("written");
        let head = whole[..=whole.iter().position(|b| *b == b'\n').expect("head")].to_vec();
        for (what, damaged) in [
            ("empty", Vec::new()),
            ("its first line only", head),
            ("NULs", vec![0u8; whole.len()]),
        ] {
            std::fs::write(&search, &damaged).expect("damage");
            assert!(found("flaky"), "a search file that is {what}");
        }
        // Behind its log: a message the text never got (appended after its last sync).
        std::fs::write(&search, &whole).expect("restore");
        let log = dir.path().join("s1.jsonl");
        let more = serde_json::to_string(&message(2, "and the broken lexer")).expect("json");
        let mut text = std::fs::read_to_string(&log).expect("log");
        text.push_str(&more);
        text.push('\n');
        std::fs::write(&log, text).expect("append");
        assert!(found("lexer"), "a search file behind its log");
    }
}
