//! What a checkpoint and a restore cost on generated git trees of 10,000 and 100,000 files,
//! for a turn that changed 3 files (goals: under 100 ms to checkpoint, under 200 ms to restore
//! on the 100,000-file tree). The reference, measured in the same run, is one `git status` of
//! the tree through libgit2: what every checkpoint would cost if it asked git what changed.
//! `cargo bench -p checkpoints`; needs the `git` command (the trees are made with
//! `git fast-import`). The numbers and how to read them are in docs/benchmarks.md.

use checkpoints::Checkpoints;
use divan::Bencher;
use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

fn main() {
    divan::main();
    // The fixtures live for the whole run (leaked statics): their trees, hundreds of megabytes,
    // would otherwise stay in the temporary folder after every run.
    for fx in fixtures()
        .lock()
        .map(|all| all.values().copied().collect::<Vec<_>>())
        .unwrap_or_default()
    {
        let _ = std::fs::remove_dir_all(fx._dir.path());
        let _ = std::fs::remove_dir_all(fx._store.path());
    }
}

fn fixtures() -> &'static Mutex<HashMap<usize, &'static Fixture>> {
    static FIXTURES: OnceLock<Mutex<HashMap<usize, &'static Fixture>>> = OnceLock::new();
    FIXTURES.get_or_init(Default::default)
}

const SIZES: &[usize] = &[10_000, 100_000];

/// Files per folder, and folders per parent: 100,000 files are 1,000 folders in 10 parents.
const PER_DIR: usize = 100;

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    _store: tempfile::TempDir,
    cps: Checkpoints,
    seq: AtomicU64,
}

/// A git repository of `files` small committed files, checked out.
fn make_tree(files: usize) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("tandem-bench-tree-")
        .tempdir()
        .expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(args)
            .current_dir(&root)
            .status()
            .expect("git")
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    let mut import = Command::new("git")
        .args(["fast-import", "--quiet"])
        .current_dir(&root)
        .stdin(Stdio::piped())
        .spawn()
        .expect("git fast-import");
    {
        let mut input = std::io::BufWriter::new(import.stdin.take().expect("stdin"));
        let mut w = |b: &[u8]| input.write_all(b).expect("feed fast-import");
        w(b"commit refs/heads/main\ncommitter bench <bench@example.com> 0 +0000\ndata 5\ntree\n");
        for i in 0..files {
            let d = i / PER_DIR;
            let data = format!("file {i}\nline two of {i}\n");
            w(format!(
                "M 644 inline d{}/s{}/f{}.txt\ndata {}\n{data}\n",
                d / PER_DIR,
                d % PER_DIR,
                i % PER_DIR,
                data.len()
            )
            .as_bytes());
        }
        w(b"\n");
    }
    assert!(import.wait().expect("fast-import").success());
    git(&["symbolic-ref", "HEAD", "refs/heads/main"]);
    git(&["reset", "-q", "--hard"]);
    (dir, root)
}

fn fixture(files: usize) -> &'static Fixture {
    let mut all = fixtures().lock().expect("fixtures");
    all.entry(files).or_insert_with(|| {
        let (dir, root) = make_tree(files);
        let store = tempfile::tempdir().expect("store");
        let (cps, _) = Checkpoints::open(store.path(), &root).expect("open");
        let t = Instant::now();
        cps.watch();
        let watch = t.elapsed();
        let t = Instant::now();
        cps.checkpoint(0).expect("first checkpoint");
        eprintln!(
            "{files} files: setting up the watcher {:.1} ms, the session's first checkpoint {:.1} ms",
            watch.as_secs_f64() * 1000.0,
            t.elapsed().as_secs_f64() * 1000.0
        );
        Box::leak(Box::new(Fixture {
            _dir: dir,
            root,
            _store: store,
            cps,
            seq: AtomicU64::new(1),
        }))
    })
}

impl Fixture {
    /// A turn's work: three files in three folders rewritten (folders every tree size has).
    fn change_three(&self) {
        let n = self.seq.fetch_add(1, Ordering::SeqCst);
        for (s, f) in [(1, 1), (50, 2), (99, 3)] {
            let p = self.root.join(format!("d0/s{s}/f{f}.txt"));
            std::fs::write(&p, format!("changed in turn {n}\n")).expect("write");
        }
    }

    fn next_seq(&self) -> u64 {
        self.seq.fetch_add(1, Ordering::SeqCst)
    }
}

fn path_of(root: &Path) -> String {
    root.display().to_string()
}

#[divan::bench(args = SIZES, sample_count = 20, sample_size = 1)]
fn checkpoint_after_three_changed(bencher: Bencher, files: usize) {
    let fx = fixture(files);
    bencher
        .with_inputs(|| {
            fx.change_three();
            fx.next_seq()
        })
        .bench_local_values(|seq| fx.cps.checkpoint(seq).expect("checkpoint"));
}

#[divan::bench(args = SIZES, sample_count = 20, sample_size = 1)]
fn restore_three_changed(bencher: Bencher, files: usize) {
    let fx = fixture(files);
    bencher
        .with_inputs(|| {
            let before = fx.cps.checkpoint(fx.next_seq()).expect("checkpoint");
            fx.change_three();
            before
        })
        .bench_local_values(|before| {
            let r = fx
                .cps
                .restore(before, None, fx.next_seq(), serde_json::Value::Null)
                .expect("restore");
            fx.cps.finish().expect("finish");
            assert_eq!(r.plan.writes.len(), 3, "{}", path_of(&fx.root));
        });
}

/// The reference: one `git status` of the whole tree (libgit2, untracked files included).
#[divan::bench(args = SIZES, sample_count = 20, sample_size = 1)]
fn reference_git_status(bencher: Bencher, files: usize) {
    let fx = fixture(files);
    let repo = git2::Repository::open(&fx.root).expect("repo");
    bencher.bench_local(|| {
        let mut opts = git2::StatusOptions::new();
        opts.include_untracked(true).recurse_untracked_dirs(true);
        repo.statuses(Some(&mut opts)).expect("status").len()
    });
}
