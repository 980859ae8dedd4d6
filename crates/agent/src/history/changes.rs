//! What a session changed: the first time the session writes a file, the file's content before
//! (or that it did not exist) is kept in the session's folder; the review compares that with the
//! file on disk now. Survives restarts, because it lives beside the session log.

use protocol::SessionFileChange;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const BASELINE_FILE: &str = "baseline.json";

#[derive(Debug, thiserror::Error)]
pub enum ChangesError {
    #[error("cannot read or write {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is damaged ({source}); the review of this session's changes is lost")]
    Damaged {
        path: PathBuf,
        source: serde_json::Error,
    },
}

/// Each changed file (relative to the project) and its content before; None when the session
/// created it.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Baseline {
    files: BTreeMap<String, Option<String>>,
}

/// The files the session changed (the person saw each change in Tandem), relative to the
/// project; none when the record cannot be read.
pub(crate) fn changed_paths(dir: &Path) -> std::collections::BTreeSet<String> {
    load(dir)
        .map(|b| b.files.into_keys().collect())
        .unwrap_or_default()
}

fn load(dir: &Path) -> Result<Baseline, ChangesError> {
    let path = dir.join(BASELINE_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            serde_json::from_str(&text).map_err(|source| ChangesError::Damaged { path, source })
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Baseline::default()),
        Err(source) => Err(ChangesError::Io { path, source }),
    }
}

/// Keeps `original` as the file's content before the session, unless an earlier change already
/// did. Written to a temporary file and renamed, so a crash leaves the old record whole.
pub fn record_baseline(dir: &Path, path: &str, original: Option<&str>) -> Result<(), ChangesError> {
    let mut baseline = load(dir)?;
    if baseline.files.contains_key(path) {
        return Ok(());
    }
    baseline
        .files
        .insert(path.to_string(), original.map(str::to_string));
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ChangesError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let target = dir.join(BASELINE_FILE);
    let tmp = dir.join(format!("{BASELINE_FILE}.tmp"));
    let text = serde_json::to_string(&baseline).map_err(|source| ChangesError::Damaged {
        path: target.clone(),
        source,
    })?;
    std::fs::write(&tmp, text).map_err(io(&tmp))?;
    std::fs::rename(&tmp, &target).map_err(io(&target))
}

/// Every file the session changed, as it was before against how it is now. Files back to their
/// original content are left out.
pub fn session_changes(dir: &Path, root: &Path) -> Result<Vec<SessionFileChange>, ChangesError> {
    let baseline = load(dir)?;
    let mut out = Vec::new();
    for (path, before) in baseline.files {
        let after = std::fs::read(root.join(&path))
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned());
        if after == before {
            continue;
        }
        let (added_lines, removed_lines) = tools::line_counts(
            before.as_deref().unwrap_or(""),
            after.as_deref().unwrap_or(""),
        );
        out.push(SessionFileChange {
            path,
            before,
            after,
            added_lines,
            removed_lines,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_first_content_and_compares_with_disk() {
        let root = tempfile::tempdir().expect("test setup");
        let dir = tempfile::tempdir().expect("test setup");
        std::fs::write(root.path().join("a.txt"), "one\ntwo\n").expect("test setup");
        record_baseline(dir.path(), "a.txt", Some("one\n")).expect("test setup");
        // A second change to the same file keeps the first "before".
        record_baseline(dir.path(), "a.txt", Some("one\nzzz\n")).expect("test setup");
        record_baseline(dir.path(), "new.txt", None).expect("test setup");
        std::fs::write(root.path().join("new.txt"), "fresh\n").expect("test setup");
        record_baseline(dir.path(), "same.txt", Some("x\n")).expect("test setup");
        std::fs::write(root.path().join("same.txt"), "x\n").expect("test setup");
        let changes = session_changes(dir.path(), root.path()).expect("test setup");
        assert_eq!(changes.len(), 2, "{changes:?}");
        assert_eq!(changes[0].path, "a.txt");
        assert_eq!(changes[0].before.as_deref(), Some("one\n"));
        assert_eq!(changes[0].after.as_deref(), Some("one\ntwo\n"));
        assert_eq!((changes[0].added_lines, changes[0].removed_lines), (1, 0));
        assert_eq!(changes[1].path, "new.txt");
        assert_eq!(changes[1].before, None);
    }

    #[test]
    fn no_record_means_no_changes() {
        let dir = tempfile::tempdir().expect("test setup");
        assert!(
            session_changes(dir.path(), dir.path())
                .expect("test setup")
                .is_empty()
        );
    }
}
