//! Results of read-only tools, kept until anything may have changed the project: any write,
//! edit, command, commit or branch switch clears the whole cache (a command may change
//! anything). Entries also expire after a short time, since the user may edit files outside
//! Tandem, and a cached `read_file` is dropped as soon as its file's size or time changes.

use crate::catalog::ToolOutput;
use serde_json::Value;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

pub const CACHE_TTL: Duration = Duration::from_secs(30);
pub const CACHED_TOOLS: &[&str] = &[
    "read_file",
    "list_files",
    "search_codebase",
    "git_status",
    "git_diff",
    "git_log",
];

struct Entry {
    at: Instant,
    output: ToolOutput,
    /// For read_file: the file and its (size, modified time) when cached.
    file: Option<(PathBuf, Option<(u64, SystemTime)>)>,
}

#[derive(Default)]
pub struct Cache {
    entries: Mutex<HashMap<String, Entry>>,
    hits: std::sync::atomic::AtomicU64,
}

fn stamp(path: &PathBuf) -> Option<(u64, SystemTime)> {
    let m = std::fs::metadata(path).ok()?;
    Some((m.len(), m.modified().ok()?))
}

/// The key: the tool and its arguments with object keys sorted (serde_json keeps insertion
/// order here, so `{"a":1,"b":2}` and `{"b":2,"a":1}` must be made equal).
pub fn key(tool: &str, args: &Value) -> String {
    fn canonical(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), canonical(&m[k])))
                        .collect(),
                )
            }
            Value::Array(a) => Value::Array(a.iter().map(canonical).collect()),
            other => other.clone(),
        }
    }
    format!("{tool}:{}", canonical(args))
}

impl Cache {
    pub fn get(&self, key: &str) -> Option<ToolOutput> {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let fresh = entries.get(key).is_some_and(|e| {
            e.at.elapsed() < CACHE_TTL && e.file.as_ref().is_none_or(|(p, s)| stamp(p) == *s)
        });
        if !fresh {
            entries.remove(key);
            return None;
        }
        self.hits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        entries.get(key).map(|e| e.output.clone())
    }

    pub fn put(&self, key: String, output: ToolOutput, file: Option<PathBuf>) {
        let file = file.map(|p| {
            let s = stamp(&p);
            (p, s)
        });
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(
                key,
                Entry {
                    at: Instant::now(),
                    output,
                    file,
                },
            );
    }

    pub fn clear(&self) {
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }

    pub fn hits(&self) -> u64 {
        self.hits.load(std::sync::atomic::Ordering::Relaxed)
    }
}
