//! Speed against references measured in the same run: search_codebase vs `rg`, list_files vs
//! `rg --files`, on a large real tree (`TANDEM_BENCH_TREE`, default the cargo registry's source
//! folder); edit_file and the hunk merge on a 10,000-line file. `cargo bench -p tools`; the
//! numbers and how to read them are in docs/benchmarks.md.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;
use tools::{CaseMode, ListFilesArgs, ProjectRoot, SearchArgs, Workspace};

fn main() {
    divan::main();
}

fn tree() -> PathBuf {
    if let Some(t) = std::env::var_os("TANDEM_BENCH_TREE") {
        return PathBuf::from(t);
    }
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .unwrap_or_default();
    home.join("registry/src")
}

const QUERIES: &[&str] = &[r"unsafe impl\s+Send", "TODO", r"fn\s+parse_\w+\("];

fn search_args(q: &str) -> SearchArgs {
    SearchArgs {
        pattern: q.into(),
        path: None,
        paths: None,
        include: None,
        fixed_strings: false,
        case: CaseMode::Sensitive,
        context: None,
        max_results: Some(1_000_000),
    }
}

#[divan::bench(args = QUERIES, sample_count = 10, sample_size = 1)]
fn search_codebase(q: &str) -> usize {
    let root = ProjectRoot::open(tree()).expect("bench tree");
    tools::search_codebase(&root, &search_args(q))
        .expect("search")
        .total_matches
}

#[divan::bench(args = QUERIES, sample_count = 10, sample_size = 1)]
fn rg_search(q: &str) -> usize {
    let out = Command::new("rg")
        .current_dir(tree())
        .args([
            "--no-require-git",
            "-n",
            "--no-heading",
            "-s",
            "--color",
            "never",
            "--",
            q,
        ])
        .output()
        .expect("rg");
    out.stdout.iter().filter(|&&b| b == b'\n').count()
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn list_files_rs() -> usize {
    let root = ProjectRoot::open(tree()).expect("bench tree");
    let args = ListFilesArgs {
        recursive: true,
        pattern: Some("*.rs".into()),
        limit: Some(10_000_000),
        ..Default::default()
    };
    tools::list_files(&root, &args).expect("list").entries.len()
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn rg_files_rs() -> usize {
    let out = Command::new("rg")
        .current_dir(tree())
        .args(["--no-require-git", "--files", "-g", "*.rs"])
        .output()
        .expect("rg");
    out.stdout.iter().filter(|&&b| b == b'\n').count()
}

fn ten_thousand_lines() -> String {
    (1..=10_000)
        .map(|i| format!("    let value_{i} = compute({i}) + offset; // line {i}\n"))
        .collect()
}

#[divan::bench(sample_count = 30)]
fn edit_file_10k_lines(bencher: divan::Bencher) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("big.rs"), ten_thousand_lines()).expect("write");
    let ws = Workspace::new(ProjectRoot::open(dir.path()).expect("open"));
    let mut flip = false;
    // Our own edits count as seen, so one read before the loop is enough.
    ws.note_seen(&dir.path().join("big.rs"));
    bencher.bench_local(|| {
        let (old, new) = if flip {
            ("compute(5000) + 1", "compute(5000) + offset")
        } else {
            ("compute(5000) + offset", "compute(5000) + 1")
        };
        flip = !flip;
        let args = tools::EditFileArgs {
            path: "big.rs".into(),
            old_string: Some(old.into()),
            new_string: Some(new.into()),
            edits: None,
        };
        tools::edit_file(&ws, &args).expect("edit")
    });
}

#[divan::bench(sample_count = 30)]
fn merge_hunks_10k_lines(bencher: divan::Bencher) {
    let old = ten_thousand_lines();
    let new = old
        .replace("compute(100)", "calc(100)")
        .replace("compute(5000)", "calc(5000)")
        .replace("compute(9000)", "calc(9000)");
    let accepted: BTreeSet<usize> = [0, 2].into();
    bencher.bench(|| tools::merge_hunks(&old, &new, &accepted));
}
