//! `tandem-cli tool search_codebase` as a person or a script calls it — a whole process each
//! time: its start, the rules' load, the sandbox's probe and the search — against `rg` run as
//! a process in the same run, on a large real tree (`TANDEM_BENCH_TREE`, default the cargo
//! registry's source folder). `cargo bench -p cli`; the numbers are in docs/benchmarks.md.
//! Before timing, each query's hits are checked to be the same count as rg's.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    for q in QUERIES {
        let (ours, theirs) = (tandem(q), rg(q));
        assert_eq!(
            ours, theirs,
            "`{q}`: tandem-cli found {ours} lines, rg {theirs}"
        );
        eprintln!("`{q}`: {ours} matching lines, the same as rg");
    }
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

const QUERIES: &[&str] = &[
    r"unsafe impl\s+Send",
    "TODO",
    r"fn\s+parse_\w+\(",
    r"#\[deprecated",
    r"impl<T> Drop for",
];

/// One call of the CLI; the number of matching lines it reports.
fn tandem(q: &str) -> usize {
    let args = serde_json::json!({
        "pattern": q,
        "case": "sensitive",
        "max_results": 10_000_000,
    })
    .to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_tandem-cli"))
        .args(["tool", "search_codebase", &args, "--json", "--project"])
        .arg(tree())
        // Nobody's own rules: the built-in ones, as on a fresh machine.
        .env(
            "XDG_CONFIG_HOME",
            std::env::temp_dir().join("tandem-bench-no-config"),
        )
        .env("TANDEM_NO_KEYCHAIN", "1")
        .output()
        .expect("tandem-cli");
    assert!(
        out.status.success(),
        "tandem-cli: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    v["total_matches"].as_u64().unwrap_or(0) as usize
}

fn rg(q: &str) -> usize {
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

#[divan::bench(args = QUERIES, sample_count = 10, sample_size = 1)]
fn tandem_cli_search(q: &str) -> usize {
    tandem(q)
}

#[divan::bench(args = QUERIES, sample_count = 10, sample_size = 1)]
fn rg_search(q: &str) -> usize {
    rg(q)
}
