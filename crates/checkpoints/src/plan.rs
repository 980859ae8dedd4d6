//! What a restore to a checkpoint must write. Each checkpoint records the changes since the one
//! before, with what each path held before them; a path's content at checkpoint N is therefore
//! what the first change after N found there. The cost is the number of changes since N, never
//! the size of the project.

use crate::state::FileState;
use crate::store::{Change, CheckpointRecord};
use protocol::{NotRestorable, NotRestorableReason};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use tools::path_text;

/// One file a restore writes: from what it holds now to what it held then.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Write {
    pub path: String,
    pub from: FileState,
    pub to: FileState,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Plan {
    pub target: u32,
    pub writes: Vec<Write>,
    pub not_restorable: Vec<NotRestorable>,
}

/// Only these paths (or what is under these folders), when given.
pub(crate) fn wanted(paths: Option<&[String]>, path: &str) -> bool {
    paths.is_none_or(|ps| {
        ps.iter().any(|p| {
            let p = p.trim_end_matches('/');
            path == p
                || path
                    .strip_prefix(p)
                    .is_some_and(|rest| rest.starts_with('/'))
        })
    })
}

/// Something on disk keeps a file from being written at `path`: a folder there, or a file
/// where one of its folders must be.
fn in_the_way(root: &Path, path: &str) -> bool {
    let path = path_text::to_path(path);
    if std::fs::symlink_metadata(root.join(&path)).is_ok_and(|m| m.is_dir()) {
        return true;
    }
    let mut dir = path.parent();
    while let Some(d) = dir {
        if d.as_os_str().is_empty() {
            break;
        }
        if std::fs::symlink_metadata(root.join(d)).is_ok_and(|m| !m.is_dir()) {
            return true;
        }
        dir = d.parent();
    }
    false
}

/// The restore to `target`, from the records after it and the changes not yet recorded
/// (`pending`), given what each path holds now (`current`).
pub(crate) fn plan(
    root: &Path,
    records: &[CheckpointRecord],
    pending: &[Change],
    pending_ignored: &[String],
    target: u32,
    paths: Option<&[String]>,
    current: &dyn Fn(&str) -> FileState,
) -> Plan {
    let mut then: BTreeMap<&str, &FileState> = BTreeMap::new();
    let mut ignored: BTreeSet<&str> = BTreeSet::new();
    let later = records.iter().filter(|r| r.id > target);
    for (changes, ign) in later
        .map(|r| (r.changes.as_slice(), r.ignored.as_slice()))
        .chain(std::iter::once((pending, pending_ignored)))
    {
        for c in changes.iter().filter(|c| wanted(paths, &c.path)) {
            then.entry(c.path.as_str()).or_insert(&c.before);
        }
        ignored.extend(ign.iter().map(String::as_str).filter(|p| wanted(paths, p)));
    }
    let mut plan = Plan {
        target,
        ..Plan::default()
    };
    let mut refuse = |path: &str, reason| {
        plan.not_restorable.push(NotRestorable {
            path: path.to_string(),
            reason,
        })
    };
    let mut writes = Vec::new();
    for (path, to) in then {
        let from = current(path);
        if from == *to {
            continue;
        }
        if let FileState::Unknown { reason } = to {
            refuse(path, *reason);
            continue;
        }
        if let FileState::Unknown { reason } = from {
            // What it holds now could not be kept, so the restore could not be undone.
            refuse(path, reason);
            continue;
        }
        if matches!(to, FileState::File { .. }) && in_the_way(root, path) {
            refuse(path, NotRestorableReason::FolderInTheWay);
            continue;
        }
        writes.push(Write {
            path: path.to_string(),
            from,
            to: to.clone(),
        });
    }
    for path in ignored {
        if !writes.iter().any(|w| w.path == path) {
            refuse(path, NotRestorableReason::GitIgnored);
        }
    }
    plan.writes = writes;
    plan.not_restorable.sort();
    plan.not_restorable.dedup();
    plan
}
