//! What the session's checkpoints cost on a git project of many untracked files (10,000,
//! 100,000 and 200,000 small files beside one committed one), against the two ways peers keep
//! the same project, measured in the same run on the same trees:
//! - **shadow git** (Cline): a second repository whose work tree is the project; each
//!   checkpoint is `git add -A` and `git commit` there, a restore `git reset --hard`;
//! - **ghost commits** (codex): a commit of the project made with a temporary index in the
//!   project's own repository (`git add -A`, `write-tree`, `commit-tree`), a restore
//!   `git restore --source=… --worktree -- .`.
//!
//! For each: the first checkpoint (what a first turn waits for, unless it runs in the
//! background as Tandem's does), a later one after 3 files changed, a restore of those 3, and
//! the disk the checkpoints take (allocated blocks, as `du` counts them) next to the project's.
//! `cargo bench -p checkpoints --bench untracked` (needs `git`); `TANDEM_BENCH_SIZES=10000`
//! picks sizes. The numbers and how to read them are in docs/benchmarks.md.

use checkpoints::Checkpoints;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use test_support::projects::disk_bytes;

const PER_DIR: usize = 100;

fn git(root: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@example.com",
        ])
        .args(args)
        .envs(env.iter().copied())
        .current_dir(root)
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A git repository with one committed file and `files` small untracked ones.
fn make_tree(files: usize) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("tandem-bench-untracked-")
        .tempdir()
        .expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    std::fs::write(root.join("README.md"), "# bench\n").expect("write");
    git(&root, &["init", "-q"], &[]);
    git(&root, &["add", "README.md"], &[]);
    git(&root, &["commit", "-q", "-m", "start"], &[]);
    for i in 0..files {
        let d = i / PER_DIR;
        let folder = root.join(format!("data/d{}/s{}", d / PER_DIR, d % PER_DIR));
        if i % PER_DIR == 0 {
            std::fs::create_dir_all(&folder).expect("mkdir");
        }
        std::fs::write(
            folder.join(format!("f{}.txt", i % PER_DIR)),
            format!("record {i}\nline two of {i}\n"),
        )
        .expect("write");
    }
    (dir, root)
}

/// A turn's work: three files in three folders rewritten.
fn change_three(root: &Path, n: u32) -> Vec<String> {
    [(1, 1), (50, 2), (99, 3)]
        .iter()
        .map(|(s, f)| {
            let rel = format!("data/d0/s{s}/f{f}.txt");
            std::fs::write(root.join(&rel), format!("changed in turn {n}\n")).expect("write");
            rel
        })
        .collect()
}

struct Row {
    first: Duration,
    later: Duration,
    restore: Duration,
    data: u64,
}

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1000.0)
}

fn mb(b: u64) -> String {
    format!("{:.1} MB", b as f64 / 1e6)
}

fn tandem(root: &Path) -> Row {
    let store = tempfile::tempdir().expect("store");
    let (cps, _) = Checkpoints::open(store.path(), root).expect("open");
    cps.watch();
    let t = Instant::now();
    cps.checkpoint(0).expect("first");
    let first = t.elapsed();
    // The agent's tools keep a file just before they change it.
    for rel in change_three_paths() {
        cps.before_write(&rel).expect("keep");
    }
    change_three(root, 1);
    let t = Instant::now();
    let one = cps.checkpoint(1).expect("later");
    let later = t.elapsed();
    for rel in change_three_paths() {
        cps.before_write(&rel).expect("keep");
    }
    change_three(root, 2);
    let t = Instant::now();
    let r = cps
        .restore(one, None, 2, serde_json::Value::Null)
        .expect("restore");
    cps.finish().expect("finish");
    let restore = t.elapsed();
    assert_eq!(r.plan.writes.len(), 3);
    Row {
        first,
        later,
        restore,
        data: disk_bytes(store.path()),
    }
}

fn change_three_paths() -> Vec<String> {
    [(1, 1), (50, 2), (99, 3)]
        .iter()
        .map(|(s, f)| format!("data/d0/s{s}/f{f}.txt"))
        .collect()
}

fn shadow_git(root: &Path) -> Row {
    let shadow = tempfile::tempdir().expect("shadow");
    let gd = shadow.path().join("shadow.git");
    let gd = gd.to_str().expect("utf-8");
    let work = root.to_str().expect("utf-8");
    let sh = |args: &[&str]| {
        let mut all = vec!["--git-dir", gd, "--work-tree", work];
        all.extend_from_slice(args);
        git(root, &all, &[])
    };
    let t = Instant::now();
    git(root, &["init", "-q", "--bare", gd], &[]);
    sh(&["add", "-A", "."]);
    sh(&["commit", "-q", "--allow-empty", "-m", "checkpoint"]);
    let first = t.elapsed();
    change_three(root, 3);
    let t = Instant::now();
    sh(&["add", "-A", "."]);
    sh(&["commit", "-q", "--allow-empty", "-m", "checkpoint"]);
    let later = t.elapsed();
    let one = sh(&["rev-parse", "HEAD"]);
    change_three(root, 4);
    let t = Instant::now();
    sh(&["add", "-A", "."]);
    sh(&["commit", "-q", "--allow-empty", "-m", "before restore"]);
    sh(&["reset", "-q", "--hard", &one]);
    let restore = t.elapsed();
    Row {
        first,
        later,
        restore,
        data: disk_bytes(shadow.path()),
    }
}

fn ghost_commits(root: &Path) -> Row {
    let objects = root.join(".git/objects");
    let before = disk_bytes(&objects);
    let index = tempfile::NamedTempFile::new().expect("index");
    let index = index.path().to_str().expect("utf-8").to_string();
    let ghost = |root: &Path| {
        let env = [("GIT_INDEX_FILE", index.as_str())];
        git(root, &["read-tree", "HEAD"], &env);
        git(root, &["add", "-A", "."], &env);
        let tree = git(root, &["write-tree"], &env);
        git(
            root,
            &["commit-tree", &tree, "-p", "HEAD", "-m", "ghost"],
            &env,
        )
    };
    let t = Instant::now();
    ghost(root);
    let first = t.elapsed();
    change_three(root, 5);
    let t = Instant::now();
    let one = ghost(root);
    let later = t.elapsed();
    change_three(root, 6);
    let t = Instant::now();
    ghost(root);
    git(
        root,
        &[
            "restore",
            &format!("--source={one}"),
            "--worktree",
            "--",
            ".",
        ],
        &[],
    );
    let restore = t.elapsed();
    Row {
        first,
        later,
        restore,
        data: disk_bytes(&objects).saturating_sub(before),
    }
}

fn main() {
    let sizes: Vec<usize> = std::env::var("TANDEM_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![10_000, 100_000, 200_000]);
    println!(
        "| untracked files | project on disk | way | first checkpoint | later (3 changed) | restore (3) | checkpoint data |"
    );
    println!("|---|---|---|---|---|---|---|");
    for files in sizes {
        let (_dir, root) = make_tree(files);
        let size = disk_bytes(&root);
        for (name, row) in [
            ("Tandem", tandem(&root)),
            ("shadow git (Cline)", shadow_git(&root)),
            ("ghost commits (codex)", ghost_commits(&root)),
        ] {
            println!(
                "| {files} | {} | {name} | {} | {} | {} | {} ({:.1}%) |",
                mb(size),
                ms(row.first),
                ms(row.later),
                ms(row.restore),
                mb(row.data),
                row.data as f64 * 100.0 / size as f64
            );
        }
    }
}
