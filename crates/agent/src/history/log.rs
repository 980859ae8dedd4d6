//! The session log: one JSONL file per session, append-only. The first line is the header
//! (what the session is), every later line one event. Lines are flushed as they are written
//! and fsynced at turn boundaries ([`SessionLog::sync`]); a crash can therefore leave a
//! truncated last line, which reading skips with a warning — the log is the source of truth
//! for resuming, so no damaged line may make a session unreadable.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error("cannot use the session log {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the session log {} has no readable header; it is not a Tandem session", .0.display())]
    NoHeader(PathBuf),
    #[error("session ids are letters, digits, `-` and `_`; `{0}` is not one")]
    BadId(String),
    /// Another process appends to this session: two writers would interleave its history.
    #[error("this session is open in another Tandem window or tandem-cli; close it there first")]
    Busy(PathBuf),
}

/// Strings longer than this are stored once beside the log, by their hash, and the log refers
/// to them: a 100 MB write appears in several events (the call, the question, the answer) and
/// must not make a log several times its size.
const BLOB_MIN_BYTES: usize = 32 * 1024;
/// The key a reference to a stored string is written under.
const BLOB_KEY: &str = "$tandem_blob_sha256";

/// The folder of a log's stored strings.
fn blob_dir(log: &Path) -> PathBuf {
    log.with_extension("blobs")
}

/// Replaces long strings by references to files named by their SHA-256, writing each file
/// once (whole or not at all).
fn externalize(v: &mut serde_json::Value, dir: &Path) -> std::io::Result<()> {
    use serde_json::Value;
    match v {
        Value::String(s) if s.len() >= BLOB_MIN_BYTES => {
            use sha2::Digest as _;
            let hash: String = sha2::Sha256::digest(s.as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            let file = dir.join(&hash);
            if !file.exists() {
                config::locations::write_private(&file, s.as_bytes())?;
            }
            *v = serde_json::json!({ BLOB_KEY: hash });
        }
        Value::Array(items) => {
            for i in items {
                externalize(i, dir)?;
            }
        }
        Value::Object(map) => {
            for (_, i) in map.iter_mut() {
                externalize(i, dir)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Puts stored strings back where the log refers to them.
fn internalize(v: &mut serde_json::Value, dir: &Path) -> Result<(), String> {
    use serde_json::Value;
    match v {
        Value::Object(map) if map.len() == 1 && map.contains_key(BLOB_KEY) => {
            let hash = map.get(BLOB_KEY).and_then(Value::as_str).unwrap_or("");
            if hash.is_empty() || !hash.chars().all(|c| c.is_ascii_hexdigit()) {
                return Err(format!("a stored-text reference `{hash}` is not valid"));
            }
            let text = std::fs::read_to_string(dir.join(hash))
                .map_err(|e| format!("the stored text {hash} cannot be read ({e})"))?;
            *v = Value::String(text);
        }
        Value::Array(items) => {
            for i in items {
                internalize(i, dir)?;
            }
        }
        Value::Object(map) => {
            for (_, i) in map.iter_mut() {
                internalize(i, dir)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Takes the log's lock for this process: one writer per session.
fn lock(file: &File, path: &Path) -> Result<(), LogError> {
    match file.try_lock() {
        Ok(()) => Ok(()),
        Err(std::fs::TryLockError::WouldBlock) => Err(LogError::Busy(path.to_path_buf())),
        Err(std::fs::TryLockError::Error(e)) => Err(LogError::Io {
            path: path.to_path_buf(),
            source: e,
        }),
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> LogError + '_ {
    move |source| LogError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// What a session is: written once, as the first line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionHeader {
    pub id: String,
    pub project: String,
    pub task: String,
    pub model: String,
    pub started_ms: u64,
}

/// One logged event with its sequence number and time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry<E> {
    pub seq: u64,
    pub at_ms: u64,
    pub event: E,
}

/// A log as read back: the header, the readable events in order, and a warning per skipped
/// line.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionRead<E> {
    pub header: SessionHeader,
    pub entries: Vec<Entry<E>>,
    pub warnings: Vec<String>,
}

#[derive(Serialize, Deserialize)]
struct HeaderLine {
    header: SessionHeader,
}

/// An open log, appending events of type `E`.
pub struct SessionLog {
    path: PathBuf,
    file: File,
    next_seq: u64,
    /// The searchable text kept beside the log, once asked for (a session's own log).
    search: Option<crate::history::search_text::SearchText>,
}

fn check_id(id: &str) -> Result<(), LogError> {
    let ok = !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        Err(LogError::BadId(id.to_string()))
    }
}

pub fn session_path(dir: &Path, id: &str) -> Result<PathBuf, LogError> {
    check_id(id)?;
    Ok(dir.join(format!("{id}.jsonl")))
}

/// The sessions folder holds whatever the tools printed (command output, fetched pages): only
/// its owner may enter it. An existing folder is made private too.
fn private_dir(dir: &Path) -> Result<(), LogError> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(io(dir))?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(io(dir))
}

impl SessionLog {
    /// Starts a new session's log in `dir`.
    pub fn create(dir: &Path, header: &SessionHeader) -> Result<Self, LogError> {
        private_dir(dir)?;
        let path = session_path(dir, &header.id)?;
        let mut file = OpenOptions::new()
            .create_new(true)
            .append(true)
            .mode(0o600)
            .open(&path)
            .map_err(io(&path))?;
        lock(&file, &path)?;
        let line = serde_json::to_string(&HeaderLine {
            header: header.clone(),
        })
        .map_err(|e| LogError::Io {
            path: path.clone(),
            source: std::io::Error::other(e),
        })?;
        writeln!(file, "{line}").map_err(io(&path))?;
        file.sync_all().map_err(io(&path))?;
        Ok(SessionLog {
            path,
            file,
            next_seq: 1,
            search: None,
        })
    }

    /// Reopens a session to continue it: later events follow the last readable one.
    pub fn reopen<E: DeserializeOwned>(
        dir: &Path,
        id: &str,
    ) -> Result<(Self, SessionRead<E>), LogError> {
        private_dir(dir)?;
        let path = session_path(dir, id)?;
        let mut file = OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(io(&path))?;
        lock(&file, &path)?;
        let read = read_session(&path)?;
        // Logs written before they were made private are made private now.
        file.set_permissions(std::fs::Permissions::from_mode(0o600))
            .map_err(io(&path))?;
        // A torn last line must not glue itself to the next event: end it.
        let len = file.metadata().map_err(io(&path))?.len();
        if len > 0 && !ends_with_newline(&path)? {
            writeln!(file).map_err(io(&path))?;
        }
        let next_seq = read.entries.last().map(|e| e.seq + 1).unwrap_or(1);
        Ok((
            SessionLog {
                path,
                file,
                next_seq,
                search: None,
            },
            read,
        ))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Keeps the log's searchable text beside it from now on, written afresh from `entries`
    /// (what the log holds already). Failing, the session goes on unsearchable until reopened.
    pub(crate) fn keep_search_text(
        &mut self,
        project: &str,
        title: &str,
        entries: &[Entry<serde_json::Value>],
    ) {
        let entries = entries.iter().map(|e| (e.seq, &e.event));
        match crate::history::search_text::SearchText::write(&self.path, project, title, entries) {
            Ok(text) => self.search = Some(text),
            Err(e) => tracing::warn!(%e, "the session's searchable text could not be written"),
        }
    }

    /// The sequence number the next event gets: a position in the conversation.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Appends one event (flushed to the OS; see [`SessionLog::sync`] for the disk).
    pub fn append<E: Serialize>(&mut self, event: &E) -> Result<u64, LogError> {
        let seq = self.next_seq;
        let as_io = |e: serde_json::Error| std::io::Error::other(e);
        let mut value = serde_json::to_value(Entry {
            seq,
            at_ms: now_ms(),
            event,
        })
        .map_err(as_io)
        .map_err(io(&self.path))?;
        // What of it is searchable, read before large values go beside the log.
        let searchable = self
            .search
            .as_ref()
            .and(value.get("event"))
            .map(|event| crate::history::search_text::lines_of(seq, event));
        externalize(&mut value, &blob_dir(&self.path)).map_err(io(&self.path))?;
        let line = serde_json::to_string(&value)
            .map_err(as_io)
            .map_err(io(&self.path))?;
        self.file
            .write_all(format!("{line}\n").as_bytes())
            .map_err(io(&self.path))?;
        self.next_seq += 1;
        if let (Some(search), Some(lines)) = (&mut self.search, searchable) {
            search.add(&lines);
        }
        Ok(seq)
    }

    /// Makes everything written so far durable: called at the end of every turn.
    pub fn sync(&mut self) -> Result<(), LogError> {
        self.file.sync_data().map_err(io(&self.path))?;
        if let Some(search) = &mut self.search {
            search.sync();
        }
        Ok(())
    }
}

fn ends_with_newline(path: &Path) -> Result<bool, LogError> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = File::open(path).map_err(io(path))?;
    if f.seek(SeekFrom::End(-1)).is_err() {
        return Ok(true);
    }
    let mut b = [0u8; 1];
    f.read_exact(&mut b).map_err(io(path))?;
    Ok(b[0] == b'\n')
}

/// Reads a whole log: the header, every readable event, and a warning for each line that
/// could not be read (a torn last line after a crash, or damage), which is skipped.
/// Sequence numbers go up one event at a time; they travel to the window as JavaScript numbers,
/// exact only up to 2^53. A line whose number does not come after the one before it, or is
/// beyond that (a damaged or forged log), is skipped: counting on from it overflowed.
const MAX_SEQ: u64 = 1 << 53;

fn seq_follows(previous: Option<u64>, seq: u64) -> bool {
    seq > previous.unwrap_or(0) && seq < MAX_SEQ
}

pub fn read_session<E: DeserializeOwned>(path: &Path) -> Result<SessionRead<E>, LogError> {
    let file = File::open(path).map_err(io(path))?;
    let mut lines = BufReader::new(file).lines();
    let header = lines
        .next()
        .and_then(Result::ok)
        .and_then(|l| serde_json::from_str::<HeaderLine>(&l).ok())
        .map(|h| h.header)
        .ok_or_else(|| LogError::NoHeader(path.to_path_buf()))?;
    let mut entries = Vec::new();
    let mut warnings = Vec::new();
    for (i, line) in lines.enumerate() {
        let n = i + 2;
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                warnings.push(format!(
                    "line {n} of {} could not be read ({e}); skipped",
                    path.display()
                ));
                continue;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let parsed = serde_json::from_str::<serde_json::Value>(&line)
            .map_err(|e| e.to_string())
            .and_then(|mut v| {
                if line.contains(BLOB_KEY) {
                    internalize(&mut v, &blob_dir(path))?;
                }
                serde_json::from_value::<Entry<E>>(v).map_err(|e| e.to_string())
            });
        match parsed {
            Ok(e) if !seq_follows(entries.last().map(|p: &Entry<E>| p.seq), e.seq) => {
                tracing::warn!(path = %path.display(), line = n, seq = e.seq, "skipping a session log line out of sequence");
                warnings.push(format!(
                    "line {n} of {} has the sequence number {}, which cannot follow the one before it; skipped",
                    path.display(),
                    e.seq
                ));
            }
            Ok(e) => entries.push(e),
            Err(e) => {
                tracing::warn!(path = %path.display(), line = n, %e, "skipping an unreadable session log line");
                warnings.push(format!(
                    "line {n} of {} is damaged or cut short ({e}); skipped",
                    path.display()
                ));
            }
        }
    }
    Ok(SessionRead {
        header,
        entries,
        warnings,
    })
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSummary {
    pub header: SessionHeader,
    pub path: PathBuf,
    pub modified_ms: u64,
}

/// The sessions in `dir`, most recently active first, optionally only one project's. Files
/// without a readable header are left out (and logged).
pub fn list_sessions(dir: &Path, project: Option<&str>) -> Result<Vec<SessionSummary>, LogError> {
    let read = match std::fs::read_dir(dir) {
        Ok(r) => r,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(LogError::Io {
                path: dir.to_path_buf(),
                source: e,
            });
        }
    };
    let mut out = Vec::new();
    for entry in read.flatten() {
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
            continue;
        }
        let header = File::open(&path)
            .ok()
            .and_then(|f| BufReader::new(f).lines().next())
            .and_then(Result::ok)
            .and_then(|l| serde_json::from_str::<HeaderLine>(&l).ok());
        let Some(HeaderLine { header }) = header else {
            tracing::warn!(path = %path.display(), "not a session log; left out of the list");
            continue;
        };
        if project.is_some_and(|p| p != header.project) {
            continue;
        }
        let modified_ms = entry
            .metadata()
            .ok()
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0);
        out.push(SessionSummary {
            header,
            path,
            modified_ms,
        });
    }
    out.sort_by(|a, b| {
        b.modified_ms
            .cmp(&a.modified_ms)
            .then_with(|| b.header.id.cmp(&a.header.id))
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn header(id: &str, project: &str) -> SessionHeader {
        SessionHeader {
            id: id.into(),
            project: project.into(),
            task: "fix it".into(),
            model: "m".into(),
            started_ms: 1,
        }
    }

    #[test]
    fn session_folders_and_logs_are_private() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().expect("tempdir");
        let sessions = dir.path().join("sessions");
        // A folder left world-readable by an older version is closed when a log is made.
        std::fs::create_dir(&sessions).expect("mkdir");
        std::fs::set_permissions(&sessions, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let log = SessionLog::create(&sessions, &header("s9", "/p")).expect("create");
        let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode(&sessions), 0o700);
        assert_eq!(mode(log.path()), 0o600);
        drop(log);
        std::fs::set_permissions(
            sessions.join("s9.jsonl"),
            std::fs::Permissions::from_mode(0o644),
        )
        .expect("chmod");
        let (log, _) = SessionLog::reopen::<Value>(&sessions, "s9").expect("reopen");
        assert_eq!(mode(log.path()), 0o600);
    }

    #[test]
    fn events_round_trip_in_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut log = SessionLog::create(dir.path(), &header("s1", "/p")).expect("create");
        assert_eq!(
            log.append(&json!({"type": "user", "text": "hi"}))
                .expect("append"),
            1
        );
        assert_eq!(log.append(&json!({"type": "done"})).expect("append"), 2);
        log.sync().expect("sync");
        let SessionRead {
            header: h,
            entries,
            warnings,
        } = read_session::<Value>(log.path()).expect("read");
        assert_eq!(h.id, "s1");
        assert!(warnings.is_empty());
        assert_eq!(entries.iter().map(|e| e.seq).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(entries[0].event["text"], "hi");
        assert!(
            SessionLog::create(dir.path(), &header("s1", "/p")).is_err(),
            "an existing session is never overwritten"
        );
    }

    #[test]
    fn a_torn_last_line_is_skipped_with_a_warning_and_the_session_continues() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut log = SessionLog::create(dir.path(), &header("s2", "/p")).expect("create");
        log.append(&json!({"n": 1})).expect("append");
        log.sync().expect("sync");
        // A crash mid-write: half a line, no newline.
        let mut f = OpenOptions::new()
            .append(true)
            .open(log.path())
            .expect("open");
        f.write_all(br#"{"seq":2,"at_ms":5,"event":{"n""#)
            .expect("write");
        drop(f);
        drop(log);
        let (mut log, read) = SessionLog::reopen::<Value>(dir.path(), "s2").expect("reopen");
        let SessionRead {
            header: h,
            entries,
            warnings,
        } = read;
        assert_eq!(h.task, "fix it");
        assert_eq!(entries.len(), 1);
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].contains("line 3") && warnings[0].contains("cut short"),
            "{warnings:?}"
        );
        assert_eq!(log.append(&json!({"n": 2})).expect("append"), 2);
        let entries = read_session::<Value>(log.path()).expect("read").entries;
        assert_eq!(
            entries
                .iter()
                .map(|e| e.event["n"].as_i64().unwrap_or(0))
                .collect::<Vec<_>>(),
            [1, 2]
        );
    }

    #[test]
    fn a_line_out_of_sequence_is_skipped_and_counting_goes_on() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut log = SessionLog::create(dir.path(), &header("s3", "/p")).expect("create");
        log.append(&json!({"n": 1})).expect("append");
        log.sync().expect("sync");
        let mut f = OpenOptions::new()
            .append(true)
            .open(log.path())
            .expect("open");
        f.write_all(
            format!(
                "{{\"seq\":{},\"at_ms\":5,\"event\":{{\"n\":9}}}}\n{{\"seq\":1,\"at_ms\":5,\"event\":{{\"n\":8}}}}\n",
                u64::MAX
            )
            .as_bytes(),
        )
        .expect("write");
        drop(f);
        drop(log);
        let (mut log, read) = SessionLog::reopen::<Value>(dir.path(), "s3").expect("reopen");
        assert_eq!(read.entries.len(), 1);
        assert_eq!(read.warnings.len(), 2, "{:?}", read.warnings);
        assert!(
            read.warnings[0].contains("cannot follow"),
            "{:?}",
            read.warnings
        );
        assert_eq!(log.append(&json!({"n": 2})).expect("append"), 2);
    }

    #[test]
    fn sessions_are_listed_newest_first_and_by_project() {
        let dir = tempfile::tempdir().expect("tempdir");
        SessionLog::create(dir.path(), &header("a", "/p1")).expect("a");
        std::thread::sleep(std::time::Duration::from_millis(20));
        let mut b = SessionLog::create(dir.path(), &header("b", "/p2")).expect("b");
        b.append(&json!(1)).expect("append");
        std::fs::write(dir.path().join("junk.jsonl"), "not a session\n").expect("junk");
        let all = list_sessions(dir.path(), None).expect("list");
        assert_eq!(
            all.iter().map(|s| s.header.id.as_str()).collect::<Vec<_>>(),
            ["b", "a"]
        );
        let p1 = list_sessions(dir.path(), Some("/p1")).expect("list");
        assert_eq!(p1.len(), 1);
        assert!(
            list_sessions(&dir.path().join("none"), None)
                .expect("missing dir")
                .is_empty()
        );
        assert!(matches!(
            SessionLog::reopen::<Value>(dir.path(), "../etc"),
            Err(LogError::BadId(_))
        ));
        assert!(matches!(
            read_session::<Value>(&dir.path().join("junk.jsonl")),
            Err(LogError::NoHeader(_))
        ));
    }
}
