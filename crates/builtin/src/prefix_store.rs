//! The KV cache of conversations' fixed beginnings, kept on disk between processes. A new
//! session's first request starts with the same system message as the last session's (the
//! tools, the rules), and reading those ~2,000 tokens took 30–50 s on two cores before every
//! first step. Loading them back takes a fraction of a second.
//!
//! One folder per model file and cache layout; in it, `<hash>.kv` (llama.cpp's sequence state,
//! with its tokens) and `<hash>.tokens` (the `.kv` file's length, little-endian u64, then the
//! same tokens, little-endian u32: read at start to find the longest match without loading any
//! state). The `.tokens` file is written last: an entry without it is unfinished and is
//! removed. A `.kv` file of another length is never handed to llama.cpp, which aborts the
//! process on a state cut short.

use crate::engine::LoadOptions;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::token::LlamaToken;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Beginnings kept per model: a new one (another tool set, another model setting) pushes out
/// the least recently used. Each is ~30–60 MB for 2,000 tokens.
const KEPT: usize = 3;
/// A saved beginning shorter than this is not worth a file.
pub const MIN_TOKENS: usize = 128;

/// One saved beginning.
#[derive(Debug)]
struct Entry {
    name: String,
    tokens: Vec<LlamaToken>,
    /// The `.kv` file's length when it was written.
    state_len: u64,
}

/// The saved beginnings of one model file.
#[derive(Debug)]
pub struct PrefixStore {
    dir: PathBuf,
    entries: Vec<Entry>,
}

/// A saved beginning that matches a prompt: its state file and how many of its tokens the
/// prompt starts with.
pub struct Match {
    pub name: String,
    pub path: PathBuf,
    pub common: usize,
    pub saved: usize,
}

impl Match {
    /// Whether the state file is still as long as when it was written.
    pub fn whole(&self, store: &PrefixStore) -> bool {
        let expected = store
            .entries
            .iter()
            .find(|e| e.name == self.name)
            .map(|e| e.state_len);
        let actual = std::fs::metadata(&self.path).map(|m| m.len()).ok();
        expected.is_some() && expected == actual
    }
}

impl PrefixStore {
    /// The store for the model `opts` loads, under `root`; `None` (logged) when the folder
    /// cannot be made: the model then reads every prompt, as before.
    pub fn open(root: &Path, opts: &LoadOptions) -> Option<PrefixStore> {
        let dir = root.join(model_key(opts)?);
        if let Err(e) = std::fs::create_dir_all(&dir) {
            tracing::warn!(%e, dir = %dir.display(), "built-in model: no prefix cache");
            return None;
        }
        let mut store = PrefixStore {
            dir,
            entries: Vec::new(),
        };
        store.read_entries();
        Some(store)
    }

    fn read_entries(&mut self) {
        let Ok(list) = std::fs::read_dir(&self.dir) else {
            return;
        };
        for item in list.flatten() {
            let path = item.path();
            let Some(name) = path
                .file_stem()
                .and_then(|s| s.to_str())
                .map(str::to_string)
            else {
                continue;
            };
            match path.extension().and_then(|e| e.to_str()) {
                Some("tokens") => match std::fs::read(&path).ok().and_then(|b| read_tokens(&b)) {
                    Some((state_len, tokens)) if self.state_path(&name).is_file() => {
                        self.entries.push(Entry {
                            name,
                            tokens,
                            state_len,
                        });
                    }
                    _ => self.remove(&name),
                },
                Some("kv") if !path.with_extension("tokens").is_file() => self.remove(&name),
                // A writer killed before its rename left this.
                Some("tmp") => {
                    let _ = std::fs::remove_file(&path);
                }
                _ => {}
            }
        }
    }

    fn state_path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.kv"))
    }

    fn tokens_path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.tokens"))
    }

    /// The saved beginning that shares the most tokens with `prompt`.
    pub fn best(&self, prompt: &[LlamaToken]) -> Option<Match> {
        self.entries
            .iter()
            .map(|e| (e, common_prefix(&e.tokens, prompt)))
            .filter(|(_, common)| *common > 0)
            .max_by_key(|(_, common)| *common)
            .map(|(e, common)| Match {
                name: e.name.clone(),
                path: self.state_path(&e.name),
                common,
                saved: e.tokens.len(),
            })
    }

    /// Whether exactly these tokens are saved.
    pub fn has(&self, tokens: &[LlamaToken]) -> bool {
        self.entries.iter().any(|e| e.tokens == tokens)
    }

    /// A saved beginning was used: it is the last to be pushed out.
    pub fn used(&self, name: &str) {
        if let Ok(f) = std::fs::File::options()
            .append(true)
            .open(self.tokens_path(name))
        {
            let _ = f.set_modified(SystemTime::now());
        }
    }

    /// A saved beginning that llama.cpp would not load goes.
    pub fn forget(&mut self, name: &str) {
        self.remove(name);
        self.entries.retain(|e| e.name != name);
    }

    fn remove(&self, name: &str) {
        let _ = std::fs::remove_file(self.tokens_path(name));
        let _ = std::fs::remove_file(self.state_path(name));
    }

    /// Saves sequence 0 of `ctx`, which holds exactly `tokens`.
    pub fn save(&mut self, ctx: &LlamaContext<'_>, tokens: &[LlamaToken]) -> Result<u64, String> {
        let name = hex(&Sha256::digest(token_bytes(tokens)))[..24].to_string();
        let tmp = self.dir.join(format!("{name}.{}.tmp", std::process::id()));
        let written = ctx
            .state_seq_save_file(&tmp, 0, tokens)
            .map_err(|e| e.to_string())?;
        let done = std::fs::rename(&tmp, self.state_path(&name))
            .and_then(|()| {
                let tokens_tmp = self
                    .dir
                    .join(format!("{name}.tokens.{}.tmp", std::process::id()));
                std::fs::write(&tokens_tmp, tokens_file(written as u64, tokens))?;
                std::fs::rename(&tokens_tmp, self.tokens_path(&name))
            })
            .map_err(|e| e.to_string());
        if let Err(e) = done {
            let _ = std::fs::remove_file(&tmp);
            self.remove(&name);
            return Err(e);
        }
        self.entries.retain(|e| e.name != name);
        self.entries.push(Entry {
            name,
            tokens: tokens.to_vec(),
            state_len: written as u64,
        });
        self.prune();
        Ok(written as u64)
    }

    /// Keeps the [`KEPT`] most recently used.
    fn prune(&mut self) {
        if self.entries.len() <= KEPT {
            return;
        }
        let age = |name: &str| {
            std::fs::metadata(self.tokens_path(name))
                .and_then(|m| m.modified())
                .unwrap_or(SystemTime::UNIX_EPOCH)
        };
        let mut by_age: Vec<(SystemTime, String)> = self
            .entries
            .iter()
            .map(|e| (age(&e.name), e.name.clone()))
            .collect();
        by_age.sort();
        for (_, name) in by_age.iter().take(self.entries.len() - KEPT) {
            self.remove(name);
        }
        let gone: Vec<String> = by_age
            .into_iter()
            .take(self.entries.len() - KEPT)
            .map(|(_, n)| n)
            .collect();
        self.entries.retain(|e| !gone.contains(&e.name));
    }
}

/// How many tokens `a` and `b` start with in common.
pub fn common_prefix(a: &[LlamaToken], b: &[LlamaToken]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

fn token_bytes(tokens: &[LlamaToken]) -> Vec<u8> {
    tokens.iter().flat_map(|t| t.0.to_le_bytes()).collect()
}

fn tokens_file(state_len: u64, tokens: &[LlamaToken]) -> Vec<u8> {
    let mut out = state_len.to_le_bytes().to_vec();
    out.extend(token_bytes(tokens));
    out
}

/// The state file's length and the tokens, from a `.tokens` file; `None` when it is damaged.
fn read_tokens(bytes: &[u8]) -> Option<(u64, Vec<LlamaToken>)> {
    let (len, rest) = bytes.split_first_chunk::<8>()?;
    if rest.len() % 4 != 0 {
        return None;
    }
    let tokens = rest
        .chunks_exact(4)
        .map(|b| LlamaToken::new(i32::from_le_bytes([b[0], b[1], b[2], b[3]])))
        .collect();
    Some((u64::from_le_bytes(*len), tokens))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What a saved state depends on: the model file (path, size, modification time), the cache's
/// layout and the llama.cpp it was written by. Another of any of them is another folder.
fn model_key(opts: &LoadOptions) -> Option<String> {
    let meta = std::fs::metadata(&opts.path).ok()?;
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    let path = std::fs::canonicalize(&opts.path).unwrap_or_else(|_| opts.path.clone());
    let mut h = Sha256::new();
    h.update(path.to_string_lossy().as_bytes());
    h.update(meta.len().to_le_bytes());
    h.update(modified.to_le_bytes());
    h.update(format!("{:?}", opts.kv_cache).as_bytes());
    h.update(crate::LLAMA_CPP_VERSION.as_bytes());
    Some(hex(&h.finalize())[..24].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ids: &[i32]) -> Vec<LlamaToken> {
        ids.iter().map(|&i| LlamaToken::new(i)).collect()
    }

    fn store_with(dir: &Path, entries: &[(&str, &[i32])]) -> PrefixStore {
        for (name, ids) in entries {
            std::fs::write(dir.join(format!("{name}.kv")), b"state").expect("kv");
            std::fs::write(dir.join(format!("{name}.tokens")), tokens_file(5, &t(ids))).expect("t");
        }
        let mut s = PrefixStore {
            dir: dir.to_path_buf(),
            entries: Vec::new(),
        };
        s.read_entries();
        s
    }

    #[test]
    fn the_longest_shared_beginning_wins() {
        let dir = tempfile::tempdir().expect("dir");
        let s = store_with(dir.path(), &[("a", &[1, 2, 3, 4]), ("b", &[1, 2, 9])]);
        let m = s.best(&t(&[1, 2, 3, 7, 8])).expect("a match");
        assert_eq!((m.name.as_str(), m.common, m.saved), ("a", 3, 4));
        assert!(m.whole(&s));
        // Cut short (a full disk, a crash of the file system): never handed to llama.cpp.
        std::fs::write(dir.path().join("a.kv"), b"sta").expect("cut");
        assert!(!m.whole(&s));
        assert!(s.best(&t(&[5, 6])).is_none());
        assert!(s.has(&t(&[1, 2, 9])));
        assert!(!s.has(&t(&[1, 2])));
    }

    #[test]
    fn unfinished_entries_and_leftover_temporaries_are_removed() {
        let dir = tempfile::tempdir().expect("dir");
        std::fs::write(dir.path().join("lone.kv"), b"state").expect("kv");
        std::fs::write(dir.path().join("odd.tokens"), b"abc").expect("tokens");
        std::fs::write(dir.path().join("odd.kv"), b"state").expect("kv");
        std::fs::write(dir.path().join("x.123.tmp"), b"half").expect("tmp");
        let s = store_with(dir.path(), &[("good", &[1, 2])]);
        assert_eq!(s.entries.len(), 1);
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .expect("list")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, vec!["good.kv", "good.tokens"]);
    }

    #[test]
    fn only_the_most_recently_used_are_kept() {
        let dir = tempfile::tempdir().expect("dir");
        let names = ["e0", "e1", "e2", "e3", "e4"];
        let mut s = store_with(
            dir.path(),
            &[
                ("e0", &[0]),
                ("e1", &[1]),
                ("e2", &[2]),
                ("e3", &[3]),
                ("e4", &[4]),
            ],
        );
        let epoch = SystemTime::UNIX_EPOCH;
        for (i, n) in names.iter().enumerate() {
            let f = std::fs::File::options()
                .append(true)
                .open(s.tokens_path(n))
                .expect("open");
            f.set_modified(epoch + std::time::Duration::from_secs(1000 + i as u64))
                .expect("age");
        }
        s.used("e0");
        s.prune();
        let mut kept: Vec<&str> = s.entries.iter().map(|e| e.name.as_str()).collect();
        kept.sort();
        assert_eq!(kept, vec!["e0", "e3", "e4"]);
        assert!(!dir.path().join("e1.kv").exists() && !dir.path().join("e2.tokens").exists());
    }
}
