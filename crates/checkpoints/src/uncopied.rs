//! Files git did not track when the session began, in a project with too many of them to copy:
//! their names and a stamp each (size, times, inode) instead of their content. A checkpoint
//! then costs what changes: the agent's tools and command landings keep a file's content just
//! before they change it, an unchanged stamp says a file still holds what it held, and only a
//! file changed another way (the person's editor, a command run without a layer) cannot be
//! brought back to what it held before — which the restore preview says.

use crate::error::{Result, io};
use std::collections::BTreeMap;
use std::io::{BufRead as _, Write as _};
use std::os::unix::fs::MetadataExt as _;
use std::path::Path;

const FILE: &str = "start-uncopied.jsonl";

/// What a file's metadata says about its content: equal stamps, same content (as git's own
/// index assumes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    len: u64,
    mtime_ns: i64,
    ctime_ns: i64,
    ino: u64,
}

impl Stamp {
    pub fn of(meta: &std::fs::Metadata) -> Stamp {
        Stamp {
            len: meta.len(),
            mtime_ns: nanos(meta.mtime(), meta.mtime_nsec()),
            ctime_ns: nanos(meta.ctime(), meta.ctime_nsec()),
            ino: meta.ino(),
        }
    }
}

fn nanos(secs: i64, nsec: i64) -> i64 {
    secs.saturating_mul(1_000_000_000).saturating_add(nsec)
}

/// The files not copied when the session began.
#[derive(Debug, Default)]
pub(crate) struct Uncopied {
    files: BTreeMap<String, Stamp>,
    /// The list could not be read back: any file git did not track at the start may be one.
    lost: bool,
}

impl Uncopied {
    pub fn new(files: BTreeMap<String, Stamp>) -> Uncopied {
        Uncopied { files, lost: false }
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Writes the list to the checkpoints' folder, durably (before the record that names it).
    pub fn write(&self, dir: &Path) -> Result<()> {
        let path = dir.join(FILE);
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path).map_err(io(&path))?);
        for (name, s) in &self.files {
            let line = serde_json::json!([name, s.len, s.mtime_ns, s.ctime_ns, s.ino]);
            writeln!(out, "{line}").map_err(io(&path))?;
        }
        let file = out.into_inner().map_err(|e| io(&path)(e.into_error()))?;
        file.sync_all().map_err(io(&path))
    }

    /// Reads back the list of `expected` files; a list cut short or missing is marked lost.
    pub fn read(dir: &Path, expected: u64) -> Uncopied {
        let path = dir.join(FILE);
        let mut files = BTreeMap::new();
        if let Ok(f) = std::fs::File::open(&path) {
            for line in std::io::BufReader::new(f)
                .split(b'\n')
                .map_while(|l| l.ok())
            {
                let parsed: Option<(String, u64, i64, i64, u64)> =
                    serde_json::from_slice(&line).ok();
                if let Some((name, len, mtime_ns, ctime_ns, ino)) = parsed {
                    let stamp = Stamp {
                        len,
                        mtime_ns,
                        ctime_ns,
                        ino,
                    };
                    files.insert(name, stamp);
                }
            }
        }
        let lost = (files.len() as u64) < expected;
        if lost {
            tracing::warn!(path = %path.display(), "the list of files not copied at the start is damaged: none of them can be brought back");
        }
        Uncopied { files, lost }
    }

    /// Whether `path` (which HEAD did not hold at the start) may have been there, uncopied.
    pub fn holds(&self, path: &str) -> bool {
        self.lost || self.files.contains_key(path)
    }

    pub fn names(&self) -> impl Iterator<Item = &String> {
        self.files.keys()
    }

    /// The files under folder `dir`.
    pub fn under<'m>(&'m self, dir: &str) -> impl Iterator<Item = &'m String> + 'm {
        let from = format!("{dir}/");
        self.files
            .range(from.clone()..)
            .take_while(move |(k, _)| k.starts_with(&from))
            .map(|(k, _)| k)
    }

    /// Whether `path` is one of them and still holds what it held at the start, by its stamp.
    pub fn unchanged(&self, path: &str, full: &Path) -> bool {
        self.files
            .get(path)
            .is_some_and(|s| std::fs::symlink_metadata(full).is_ok_and(|m| Stamp::of(&m) == *s))
    }
}
