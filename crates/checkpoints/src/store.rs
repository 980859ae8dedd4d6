//! The session's own store: a private bare git repository holding the blobs (each content once,
//! compressed, named by its git id), and `records.jsonl`, one line per checkpoint with the
//! changes that led to it. Nothing here refers to the user's repository, so its `git gc` cannot
//! take anything away; the store lives as long as the session folder.

use crate::error::{CheckpointError, Result, io};
use crate::state::FileState;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{BufRead as _, Write as _};
use std::path::{Path, PathBuf};

const RECORDS: &str = "records.jsonl";

/// One path that changed between two checkpoints: what it held at the first (what a restore to
/// it brings back) and at the second.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    pub path: String,
    pub before: FileState,
    pub after: FileState,
}

/// Why a checkpoint was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Cause {
    /// A turn begins (or the project is looked at before a restore): the changes are whatever
    /// happened since the last one, by the agent, its commands or the user.
    Work,
    /// A restore to `target` ended; `undo` is the checkpoint taken just before it.
    Restore { target: u32, undo: u32 },
}

/// The project as the session first found it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Base {
    /// For a git repository: the tree HEAD pointed at (None before the first commit) and the
    /// project's folder inside the repository (`""` at its top, else ending in `/`).
    pub git: Option<GitBase>,
    /// Files git saw as changed, untracked or skipped then, with their content: every other
    /// file held what the HEAD tree holds.
    pub dirty: BTreeMap<String, FileState>,
    /// How many untracked files were not copied (a project with too many to copy): their names
    /// and stamps are in `start-uncopied.jsonl` (see `uncopied`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub uncopied: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GitBase {
    pub tree: Option<String>,
    pub prefix: String,
}

/// A line of `records.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "record", rename_all = "snake_case")]
pub enum Record {
    Base(Base),
    /// What a tool found at a path before first writing it after the last checkpoint (kept
    /// as it happens, so a crash mid-turn does not lose it).
    ToolPre {
        path: String,
        state: FileState,
        /// When (ms since the epoch; 0 in logs from before it was kept).
        #[serde(default)]
        at_ms: u64,
    },
    /// A command that ran without a layer changed a path (found afterwards): the agent's
    /// change, not the person's.
    ToolWrote {
        path: String,
        #[serde(default)]
        at_ms: u64,
    },
    Checkpoint(CheckpointRecord),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointRecord {
    pub id: u32,
    pub at_ms: u64,
    /// The session log's next sequence number then: the conversation as it stood.
    pub log_seq: u64,
    pub cause: Cause,
    /// Files changed since the previous checkpoint.
    pub changes: Vec<Change>,
    /// Git-ignored paths that changed and are not kept (build outputs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignored: Vec<String>,
    /// Changes may have gone unseen (outside git, the project could not be watched).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unwatched: bool,
}

/// The private object store.
pub(crate) struct Blobs {
    repo: git2::Repository,
    objects: PathBuf,
}

fn store_err(path: &Path) -> impl FnOnce(git2::Error) -> CheckpointError + '_ {
    move |source| CheckpointError::Store {
        path: path.to_path_buf(),
        source,
    }
}

impl Blobs {
    pub fn open(dir: &Path) -> Result<Blobs> {
        let path = dir.join("objects.git");
        let repo = match git2::Repository::open_bare(&path) {
            Ok(r) => r,
            Err(_) => {
                std::fs::create_dir_all(dir).map_err(io(dir))?;
                git2::Repository::init_bare(&path).map_err(store_err(&path))?
            }
        };
        Ok(Blobs {
            objects: path.join("objects"),
            repo,
        })
    }

    /// Keeps `bytes` (once), and says where.
    pub fn put(&self, bytes: &[u8]) -> Result<git2::Oid> {
        let odb = self.repo.odb().map_err(store_err(&self.objects))?;
        odb.write(git2::ObjectType::Blob, bytes)
            .map_err(store_err(&self.objects))
    }

    pub fn has(&self, oid: git2::Oid) -> bool {
        self.repo.odb().is_ok_and(|o| o.exists(oid))
    }

    pub fn get(&self, oid: git2::Oid) -> Result<Vec<u8>> {
        let odb = self.repo.odb().map_err(store_err(&self.objects))?;
        let obj = odb.read(oid).map_err(store_err(&self.objects))?;
        Ok(obj.data().to_vec())
    }

    /// Makes these blobs durable: libgit2 does not sync what it writes, and a restore must not
    /// overwrite a file before the copy that brings it back is on disk.
    pub fn sync(&self, oids: &[git2::Oid]) -> Result<()> {
        let mut dirs = std::collections::BTreeSet::new();
        for oid in oids {
            let hex = oid.to_string();
            let dir = self.objects.join(&hex[..2]);
            let file = dir.join(&hex[2..]);
            // Packed or already synced objects have no loose file: nothing to do.
            if let Ok(f) = std::fs::File::open(&file) {
                f.sync_all().map_err(io(&file))?;
                dirs.insert(dir);
            }
        }
        for dir in dirs {
            if let Ok(d) = std::fs::File::open(&dir) {
                d.sync_all().map_err(io(&dir))?;
            }
        }
        Ok(())
    }
}

/// `records.jsonl`, appended to and synced line by line.
pub(crate) struct Records {
    path: PathBuf,
    file: std::fs::File,
}

impl Records {
    /// Opens (or starts) the records and reads them back. A line cut short by a crash is
    /// skipped: whatever it recorded is seen again at the next checkpoint.
    pub fn open(dir: &Path) -> Result<(Records, Vec<Record>)> {
        use std::os::unix::fs::OpenOptionsExt as _;
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let path = dir.join(RECORDS);
        let mut read = Vec::new();
        match std::fs::File::open(&path) {
            Ok(f) => {
                // Split on bytes, not text: a line cut inside a multi-byte character is not
                // UTF-8, and reading it as text stopped at it and lost every later record.
                for line in std::io::BufReader::new(f).split(b'\n') {
                    let line = line.map_err(io(&path))?;
                    match serde_json::from_slice::<Record>(&line) {
                        Ok(r) => read.push(r),
                        Err(e) if !line.trim_ascii().is_empty() => {
                            tracing::warn!(path = %path.display(), %e, "skipping a damaged checkpoint record");
                        }
                        Err(_) => {}
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(&path)(e)),
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(&path)
            .map_err(io(&path))?;
        // A torn last line must not glue itself to the next record.
        let len = file.metadata().map_err(io(&path))?.len();
        if len > 0 && !ends_with_newline(&path) {
            writeln!(file).map_err(io(&path))?;
        }
        Ok((Records { path, file }, read))
    }

    pub fn append(&mut self, record: &Record) -> Result<()> {
        let line =
            serde_json::to_string(record).map_err(|e| io(&self.path)(std::io::Error::other(e)))?;
        self.file
            .write_all(format!("{line}\n").as_bytes())
            .map_err(io(&self.path))?;
        self.file.sync_data().map_err(io(&self.path))
    }
}

fn ends_with_newline(path: &Path) -> bool {
    use std::io::{Read as _, Seek as _, SeekFrom};
    let Ok(mut f) = std::fs::File::open(path) else {
        return true;
    };
    if f.seek(SeekFrom::End(-1)).is_err() {
        return true;
    }
    let mut b = [0u8; 1];
    f.read_exact(&mut b).is_err() || b[0] == b'\n'
}
