//! `evaluate` runs before every tool call, so it must be cheap: the target is under
//! 50 µs for a typical command. Run with `cargo bench -p policy`.

use policy::{Context, Policy, ToolCall, evaluate};
use std::path::Path;

fn main() {
    divan::main();
}

const TYPICAL: &[&str] = &[
    "cargo test --workspace",
    "git status --short && git diff --stat",
    "ls -la src | grep rs",
    "npm run build > build.log 2>&1",
    "find . -name '*.rs' -exec wc -l {} +",
    "bash -c 'cd ui && npm test'",
];

#[divan::bench(args = TYPICAL)]
fn command(bencher: divan::Bencher, command: &str) {
    let policy = Policy::builtin();
    let root = Path::new("/work/project");
    bencher.bench(|| {
        let ctx = Context::new(root);
        evaluate(
            &policy,
            &ToolCall::Command {
                command: divan::black_box(command),
            },
            &ctx,
        )
    });
}

#[divan::bench]
fn write_inside_project(bencher: divan::Bencher) {
    let policy = Policy::builtin();
    let root = Path::new("/work/project");
    bencher.bench(|| {
        let ctx = Context::new(root);
        evaluate(
            &policy,
            &ToolCall::Write {
                path: divan::black_box("src/main.rs"),
                diff_lines: 12,
            },
            &ctx,
        )
    });
}

/// The reference measured in the same run: loading the built-in rules, which `evaluate` must
/// stay far below.
#[divan::bench]
fn load_builtin_rules() -> Policy {
    Policy::builtin()
}

/// The red-team corpus's PERF rows (nested `find -exec`, deep parentheses): the spec wants
/// each judged in under 10 ms. Measured here in an optimised build; the corpus test only
/// guards against a blow-up (it runs unoptimised, where a loaded machine's noise is larger
/// than the margin).
fn perf_rows() -> Vec<&'static str> {
    include_str!("../tests/data/policy-redteam.tsv")
        .lines()
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            (cols.len() == 6 && cols[5] == "PERF").then_some(cols[2])
        })
        .collect()
}

#[divan::bench(args = 0..5)]
fn red_team_perf_row(bencher: divan::Bencher, row: usize) {
    let policy = Policy::builtin();
    let root = Path::new("/work/project");
    let rows = perf_rows();
    let command = rows.get(row).copied().unwrap_or("true");
    bencher.bench(|| {
        let ctx = Context::new(root);
        evaluate(
            &policy,
            &ToolCall::Command {
                command: divan::black_box(command),
            },
            &ctx,
        )
    });
}
