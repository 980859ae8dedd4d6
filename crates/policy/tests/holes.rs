//! The holes issue 21 ("Nothing gets around the sandbox") closed in the policy engine, each
//! with the calls on both of its sides: what must no longer run unasked, and the ordinary work
//! next to it that must still run.

use policy::{Context, Decision, Mode, Policy, ToolCall, Verdict, evaluate};
use std::path::{Path, PathBuf};

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    outside: PathBuf,
}

/// A project with a link `escape` to a folder beside it, and a home folder.
fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = std::fs::canonicalize(dir.path()).expect("canonicalize");
    let root = base.join("project");
    let home = base.join("home");
    let outside = base.join("outside");
    for d in [root.join("src"), home.clone(), outside.clone()] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    std::fs::write(root.join("src/main.rs"), "fn main() {}\n").expect("write");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&outside, root.join("escape")).expect("symlink");
    Fixture {
        _dir: dir,
        root,
        home,
        outside,
    }
}

/// Judges a call in the fixture, links followed on disk.
fn judge(fx: &Fixture, mode: Mode, sandboxed: bool, call: &ToolCall<'_>) -> Decision {
    let resolver = |p: &Path| tools::real_path(p);
    let mut ctx = Context::new(&fx.root);
    ctx.home = Some(&fx.home);
    ctx.mode = Some(mode);
    ctx.sandboxed = sandboxed;
    ctx.resolver = &resolver;
    evaluate(&Policy::builtin(), call, &ctx)
}

fn write(path: &str) -> ToolCall<'_> {
    ToolCall::Write {
        path,
        diff_lines: 1,
    }
}

#[cfg(unix)]
#[test]
fn a_write_whose_dots_climb_out_of_a_link_is_refused() {
    let fx = fixture();
    for mode in [Mode::FullAuto, Mode::AutoEdit, Mode::Ask] {
        for sandboxed in [false, true] {
            let d = judge(&fx, mode, sandboxed, &write("escape/../pwned.txt"));
            assert_eq!(d.decision, Verdict::Deny, "{mode}: {}", d.reason);
            assert!(
                d.reason.contains("“escape”, a link")
                    && d.reason.contains("without “..”")
                    && d.reason.contains("(here “pwned.txt”)"),
                "{}",
                d.reason
            );
            // Where it would land, so a person sees what would happen.
            let lands = fx.outside.parent().expect("parent").display().to_string();
            assert!(d.reason.contains(&lands), "{}", d.reason);
        }
    }
    // `..` through ordinary folders leads where it reads.
    let d = judge(&fx, Mode::FullAuto, true, &write("src/../README.md"));
    assert_eq!(d.decision, Verdict::Allow, "{}", d.reason);
}
