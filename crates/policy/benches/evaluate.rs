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
