//! Results of read-only tools, kept until anything may have changed the project: any write,
//! edit, command, commit or branch switch clears the whole cache (a command may change
//! anything), and so does any change the project folder's watcher sees (a background command,
//! the user's editor, git). Where the folder cannot be watched, entries live only briefly; a
//! cached `read_file` is dropped as soon as its file's size or time changes.

use crate::registry::ToolOutput;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

pub const CACHE_TTL: Duration = Duration::from_secs(30);
/// How long an entry lives when the folder is not watched (too many folders for the kernel's
/// watch limit, or no support): a change made outside is seen this soon.
pub const UNWATCHED_TTL: Duration = Duration::from_secs(2);

struct Entry {
    at: Instant,
    /// The count of changes seen when it was cached: any change since makes it stale.
    generation: u64,
    output: ToolOutput,
    /// For read_file: the file and its (size, modified time) when cached.
    file: Option<(PathBuf, Option<(u64, SystemTime)>)>,
}

#[derive(Default)]
pub struct Cache {
    entries: Mutex<HashMap<String, Entry>>,
    hits: AtomicU64,
    /// Changes the watcher has seen.
    changes: Arc<AtomicU64>,
    watch: Arc<Mutex<Watch>>,
}

#[derive(Default)]
enum Watch {
    #[default]
    NotYet,
    /// Its watches are being set (a walk of the tree), off the call that asked for it.
    Starting,
    /// Nothing is kept (a one-shot run: there is no second call to reuse a result).
    Off,
    /// Kept for as long as the cache lives: dropping it stops the watching.
    On {
        _watcher: crate::watch::ProjectWatcher,
    },
    Unavailable,
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
    /// A cache that keeps nothing, for a single call.
    pub fn off() -> Self {
        let cache = Cache::default();
        *cache.watch.lock().unwrap_or_else(PoisonError::into_inner) = Watch::Off;
        cache
    }

    /// Watches `root` from now on (once): every change there makes what is cached stale. The
    /// watches are set on a thread of their own, so the call that asks does not wait for a walk
    /// of the whole tree; until then entries live only briefly.
    pub fn watch(&self, root: &Path) {
        let mut watch = self.watch.lock().unwrap_or_else(PoisonError::into_inner);
        if !matches!(*watch, Watch::NotYet) {
            return;
        }
        *watch = Watch::Starting;
        let (slot, changes, root) = (self.watch.clone(), self.changes.clone(), root.to_path_buf());
        let started = std::thread::Builder::new()
            .name("cache-watch".into())
            .spawn(move || {
                let counter = changes.clone();
                let watcher =
                    crate::watch::ProjectWatcher::start_with(&root, Duration::ZERO, move |_| {
                        counter.fetch_add(1, Ordering::SeqCst);
                    });
                let mut watch = slot.lock().unwrap_or_else(PoisonError::into_inner);
                *watch = match watcher {
                    Ok(w) => Watch::On { _watcher: w },
                    Err(e) => {
                        tracing::info!(%e, "the project is not watched; cached results live {} s", UNWATCHED_TTL.as_secs());
                        Watch::Unavailable
                    }
                };
                // A change made while the watches were being set may not have been seen:
                // nothing cached before now is trusted.
                changes.fetch_add(1, Ordering::SeqCst);
            });
        if started.is_err() {
            *watch = Watch::Unavailable;
        }
    }

    fn ttl(&self) -> Option<Duration> {
        match *self.watch.lock().unwrap_or_else(PoisonError::into_inner) {
            Watch::On { .. } => Some(CACHE_TTL),
            Watch::NotYet | Watch::Starting | Watch::Unavailable => Some(UNWATCHED_TTL),
            Watch::Off => None,
        }
    }

    pub fn get(&self, key: &str) -> Option<ToolOutput> {
        let ttl = self.ttl()?;
        let generation = self.changes.load(Ordering::SeqCst);
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let fresh = entries.get(key).is_some_and(|e| {
            e.at.elapsed() < ttl
                && e.generation == generation
                && e.file.as_ref().is_none_or(|(p, s)| stamp(p) == *s)
        });
        if !fresh {
            entries.remove(key);
            return None;
        }
        self.hits.fetch_add(1, Ordering::Relaxed);
        entries.get(key).map(|e| e.output.clone())
    }

    /// Caches a result computed when the change count was `generation` (read before the tool
    /// ran, so a change during the run leaves it stale).
    pub fn put(&self, key: String, output: ToolOutput, file: Option<PathBuf>, generation: u64) {
        if self.ttl().is_none() {
            return;
        }
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
                    generation,
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
        self.hits.load(Ordering::Relaxed)
    }

    /// The change count now, to pass to [`put`](Self::put).
    pub fn generation(&self) -> u64 {
        self.changes.load(Ordering::SeqCst)
    }
}
