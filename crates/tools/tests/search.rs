//! search_codebase: its own behaviour, and the same hits as `rg` on real trees.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use tools::{CaseMode, ProjectRoot, SearchArgs, search_codebase};

fn args(pattern: &str) -> SearchArgs {
    SearchArgs {
        pattern: pattern.into(),
        path: None,
        paths: None,
        include: None,
        fixed_strings: false,
        case: CaseMode::Smart,
        context: None,
        max_results: Some(1_000_000),
    }
}

fn fixture() -> (tempfile::TempDir, ProjectRoot) {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path();
    for (f, body) in [
        (
            "src/a.rs",
            "fn main() {\n    let Needle = 1;\n    needle();\n}\n",
        ),
        ("src/b.ts", "const needle = 2;\n"),
        ("notes.md", "a\nb\nneedle here\nc\nd\n"),
        ("ignored.log", "needle in ignored file\n"),
        (".hidden", "needle hidden\n"),
        (".gitignore", "*.log\n"),
        ("regex.txt", "a.b\naxb\n"),
    ] {
        let path = p.join(f);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, body).expect("write");
    }
    std::fs::write(p.join("bin.dat"), b"needle\x00\x01\x02").expect("write");
    let root = ProjectRoot::open(p).expect("open");
    (dir, root)
}

fn hits(root: &ProjectRoot, a: &SearchArgs) -> Vec<String> {
    let r = search_codebase(root, a).expect("search");
    r.lines
        .iter()
        .filter(|l| l.is_match)
        .map(|l| format!("{}:{}", l.path, l.line))
        .collect()
}

#[test]
fn smart_case_gitignore_hidden_and_binary() {
    let (_d, root) = fixture();
    assert_eq!(
        hits(&root, &args("needle")),
        ["notes.md:3", "src/a.rs:2", "src/a.rs:3", "src/b.ts:1"]
    );
    assert_eq!(hits(&root, &args("Needle")), ["src/a.rs:2"]);
    let mut sensitive = args("needle");
    sensitive.case = CaseMode::Sensitive;
    assert_eq!(
        hits(&root, &sensitive),
        ["notes.md:3", "src/a.rs:3", "src/b.ts:1"]
    );
}

#[test]
fn fixed_strings_include_path_and_limits() {
    let (_d, root) = fixture();
    let mut a = args("a.b");
    assert_eq!(hits(&root, &a), ["regex.txt:1", "regex.txt:2"]);
    a.fixed_strings = true;
    assert_eq!(hits(&root, &a), ["regex.txt:1"]);
    let mut inc = args("needle");
    inc.include = Some("*.ts".into());
    assert_eq!(hits(&root, &inc), ["src/b.ts:1"]);
    inc.include = Some(tools::Include::Many(vec!["*.ts".into(), "*.md".into()]));
    assert_eq!(hits(&root, &inc), ["notes.md:3", "src/b.ts:1"]);
    let mut sub = args("needle");
    sub.path = Some("src".into());
    assert_eq!(
        hits(&root, &sub),
        ["src/a.rs:2", "src/a.rs:3", "src/b.ts:1"]
    );
    let mut few = args("needle");
    few.max_results = Some(2);
    let r = search_codebase(&root, &few).expect("search");
    assert!(r.truncated);
    assert_eq!(r.total_matches, 4);
    let text = tools::render_search(&r);
    assert!(
        text.starts_with("notes.md:3: needle here\nsrc/a.rs:2:     let Needle = 1;\n"),
        "{text}"
    );
    assert!(text.contains("showing 2 of 4 matching lines"), "{text}");
}

#[test]
fn context_lines_and_errors() {
    let (_d, root) = fixture();
    let mut a = args("needle here");
    a.context = Some(1);
    let text = tools::render_search(&search_codebase(&root, &a).expect("search"));
    assert_eq!(
        text,
        "notes.md-2- b\nnotes.md:3: needle here\nnotes.md-4- c\n"
    );
    let err = search_codebase(&root, &args("foo(bar")).expect_err("bad regex");
    let text = err.to_string();
    // About the pattern as written, not the matcher's wrapped form `(?:foo(bar)`.
    assert!(text.contains("pattern `foo(bar`"), "{text}");
    assert!(text.contains("unclosed group at character 4"), "{text}");
    assert!(!text.contains("(?:"), "{text}");
    assert!(text.contains("fixed_strings"), "{text}");
    let err = search_codebase(&root, &args(r"\p{Nope}")).expect_err("bad class");
    assert!(!err.to_string().contains("(?:"), "{err}");
    a.context = Some(11);
    assert!(search_codebase(&root, &a).is_err());
    assert!(search_codebase(&root, &args("")).is_err());
    let mut outside = args("x");
    outside.path = Some("../".into());
    assert!(search_codebase(&root, &outside).is_err());
    assert_eq!(
        tools::render_search(&search_codebase(&root, &args("zzzz")).expect("search")),
        "No matches.\n"
    );
}

/// The collection cap holds inside one file: a log with two million hits stops collecting at
/// the cap, instead of holding every line (2.1 GB for a 238 MB log) before checking.
#[test]
fn the_cap_holds_inside_one_huge_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let body = "needle in a log line\n".repeat(2_000_000);
    std::fs::write(dir.path().join("huge.log"), body).expect("write");
    let root = ProjectRoot::open(dir.path()).expect("open");
    let r = search_codebase(&root, &args("needle")).expect("search");
    assert!(r.partial.is_some(), "partial");
    assert!(
        r.total_matches < 100_000,
        "{} lines collected from one file",
        r.total_matches
    );
}

#[test]
fn a_tiny_time_limit_returns_partial_results_with_a_note() {
    let (_d, root) = fixture();
    let r = tools::search_with_limit(&root, &args("needle"), std::time::Duration::ZERO)
        .expect("search");
    assert!(
        r.partial.as_deref().is_some_and(|p| p.contains("partial")),
        "{r:?}"
    );
}

/// Real trees for the comparison: this repository, and a crate's source from the cargo
/// registry when one is there.
fn real_trees() -> Vec<PathBuf> {
    let mut trees = vec![PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")];
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    if let Some(src) = cargo_home.map(|c| c.join("registry/src")) {
        let crate_dir = std::fs::read_dir(&src)
            .into_iter()
            .flatten()
            .flatten()
            .flat_map(|index| {
                std::fs::read_dir(index.path())
                    .into_iter()
                    .flatten()
                    .flatten()
            })
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("regex-syntax-"))
            })
            .max();
        trees.extend(crate_dir);
    }
    trees
}

fn rg_hits(tree: &Path, pattern: &str, flags: &[&str]) -> BTreeSet<String> {
    let out = Command::new("rg")
        .current_dir(tree)
        .args([
            "--no-require-git",
            "--line-number",
            "--no-heading",
            "--with-filename",
            "--color",
            "never",
        ])
        .args(flags)
        .arg("--")
        .arg(pattern)
        .output()
        .expect("run rg");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut parts = l.splitn(3, ':');
            Some(format!(
                "{}:{}",
                parts.next()?.trim_start_matches("./"),
                parts.next()?
            ))
        })
        .collect()
}

/// Whether the comparisons with ripgrep run. A missing `rg` fails loudly (make test installs
/// it), unless `TANDEM_SKIP_RG=1` says to skip them: a skip is asked for, never silent.
fn ripgrep() -> bool {
    if Command::new("rg").arg("--version").output().is_ok() {
        return true;
    }
    assert!(
        std::env::var("TANDEM_SKIP_RG").as_deref() == Ok("1"),
        "ripgrep (rg) is not installed, and these tests compare search_codebase with it: install it (scripts/setup.sh test does), or set TANDEM_SKIP_RG=1 to skip the comparisons"
    );
    eprintln!("TANDEM_SKIP_RG=1: the comparisons with rg are skipped");
    false
}

/// pattern, case, fixed strings, include glob, and the same as rg flags.
type Query<'a> = (&'a str, CaseMode, bool, Option<&'a str>, &'a [&'a str]);

#[test]
fn hits_equal_ripgrep_on_real_trees() {
    if !ripgrep() {
        return;
    }
    let queries: &[Query] = &[
        ("fn ", CaseMode::Smart, false, None, &["-S"]),
        ("TODO|FIXME", CaseMode::Smart, false, None, &["-S"]),
        (
            r"impl\s+\w+\s+for",
            CaseMode::Sensitive,
            false,
            None,
            &["-s"],
        ),
        ("Result<", CaseMode::Smart, true, None, &["-S", "-F"]),
        ("error", CaseMode::Insensitive, false, None, &["-i"]),
        (
            "use ",
            CaseMode::Smart,
            false,
            Some("*.rs"),
            &["-S", "-g", "*.rs"],
        ),
        (
            "unicode",
            CaseMode::Smart,
            false,
            Some("**/*.md"),
            &["-S", "-g", "**/*.md"],
        ),
    ];
    for tree in real_trees() {
        let root = ProjectRoot::open(&tree).expect("open tree");
        for (pattern, case, fixed, include, flags) in queries {
            let mut a = args(pattern);
            a.case = *case;
            a.fixed_strings = *fixed;
            a.include = include.map(tools::Include::from);
            let r = search_codebase(&root, &a).expect("search");
            assert!(r.partial.is_none(), "partial search on {}", tree.display());
            let ours: BTreeSet<String> = r
                .lines
                .iter()
                .filter(|l| l.is_match)
                .map(|l| format!("{}:{}", l.path, l.line))
                .collect();
            let theirs = rg_hits(&tree, pattern, flags);
            assert!(
                !theirs.is_empty() || ours.is_empty(),
                "{pattern} on {}",
                tree.display()
            );
            let only_ours: Vec<_> = ours.difference(&theirs).take(5).collect();
            let only_rg: Vec<_> = theirs.difference(&ours).take(5).collect();
            assert!(
                only_ours.is_empty() && only_rg.is_empty(),
                "`{pattern}` {flags:?} on {}: only ours {only_ours:?}, only rg {only_rg:?}",
                tree.display()
            );
        }
    }
}

/// `include` globs count from the project, as rg's `-g` counts from where it runs: with
/// `path: "src"`, `include: "src/**/*.rs"` finds what `rg -g 'src/**/*.rs' needle src` finds.
#[test]
fn include_globs_count_from_the_project_like_rg() {
    let (dir, root) = fixture();
    let mut a = args("needle");
    a.case = CaseMode::Insensitive;
    a.path = Some("src".into());
    a.include = Some("src/**/*.rs".into());
    assert_eq!(hits(&root, &a), ["src/a.rs:2", "src/a.rs:3"]);
    // A bare name still matches in any folder, as with rg.
    a.include = Some("*.rs".into());
    assert_eq!(hits(&root, &a), ["src/a.rs:2", "src/a.rs:3"]);
    if ripgrep() {
        let out = Command::new("rg")
            .current_dir(dir.path())
            .args([
                "-i",
                "-n",
                "--no-heading",
                "-g",
                "src/**/*.rs",
                "needle",
                "src",
            ])
            .output()
            .expect("rg");
        let rg: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| {
                let mut p = l.splitn(3, ':');
                Some(format!("{}:{}", p.next()?, p.next()?))
            })
            .collect();
        assert_eq!(rg, ["src/a.rs:2", "src/a.rs:3"]);
    }
}

/// Include globs can name hidden and ignored files (as in rg), never secret ones: `.env`,
/// keys and `.ssh/` stay out of every search.
#[test]
fn include_globs_do_not_unhide_secrets() {
    fn secret(p: &Path) -> bool {
        let s = p.to_string_lossy();
        s.ends_with("/.env")
            || s.ends_with(".key")
            || s.contains("/.ssh/")
            || s.ends_with("/.netrc")
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path();
    for (f, body) in [
        (".env", "TOKEN=needle-env\n"),
        ("server.key", "needle-key\n"),
        ("home/.ssh/id_ed25519", "needle-ssh\n"),
        ("home/.netrc", "password needle-netrc\n"),
        ("src/ok.rs", "needle-ok\n"),
        (".gitignore", ".env\n*.key\n"),
    ] {
        let path = p.join(f);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, body).expect("write");
    }
    let root = ProjectRoot::open(p).expect("open").hiding_secrets(secret);
    for include in [
        vec!["*", "**/.ssh/*"],
        vec![".env"],
        vec!["*.key", "**/.netrc", "**/*"],
    ] {
        let mut a = args("needle");
        a.include = Some(tools::Include::Many(
            include.iter().map(|s| s.to_string()).collect(),
        ));
        let found = hits(&root, &a);
        assert!(
            found.iter().all(|h| h.starts_with("src/ok.rs")),
            "{include:?} found {found:?}"
        );
    }
    // Without the filter, the same include reaches the file: the test can fail.
    let open = ProjectRoot::open(p).expect("open");
    let mut a = args("needle");
    a.include = Some(tools::Include::One(".env".into()));
    assert_eq!(hits(&open, &a), [".env:1"]);
}

/// `paths` searches several folders and files at once, as `rg PATTERN a b` does: a file named
/// outright is searched even when .gitignore hides it, a file under two of the paths is
/// searched once, and `max_results` counts over all of them.
#[test]
fn several_paths_find_what_rg_finds_in_them() {
    let (dir, root) = fixture();
    let asked = |paths: &[&str], max: u32| -> SearchArgs {
        serde_json::from_value(serde_json::json!({
            "pattern": "needle",
            "paths": paths,
            "case": "insensitive",
            "max_results": max,
        }))
        .expect("arguments")
    };
    let lines = |a: &SearchArgs| -> Vec<(String, u64, String)> {
        search_codebase(&root, a)
            .expect("search")
            .lines
            .into_iter()
            .map(|l| (l.path, l.line, l.text))
            .collect()
    };
    let ours = lines(&asked(&["src/b.ts", "notes.md", "ignored.log"], 100));
    assert_eq!(
        ours.iter()
            .map(|(p, n, _)| format!("{p}:{n}"))
            .collect::<Vec<_>>(),
        ["ignored.log:1", "notes.md:3", "src/b.ts:1"]
    );
    if ripgrep() {
        let out = Command::new("rg")
            .current_dir(dir.path())
            .args(["-i", "-n", "--no-heading", "--no-require-git", "needle"])
            .args(["src/b.ts", "notes.md", "ignored.log"])
            .output()
            .expect("rg");
        let mut rg: Vec<(String, u64, String)> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| {
                let mut p = l.splitn(3, ':');
                Some((p.next()?.into(), p.next()?.parse().ok()?, p.next()?.into()))
            })
            .collect();
        rg.sort();
        assert_eq!(ours, rg);
    }

    // Overlapping paths give each line once, in the same order as one search.
    let overlapping = lines(&asked(&["src", "src/a.rs", "notes.md"], 100));
    assert_eq!(overlapping, lines(&asked(&["notes.md", "src"], 100)));
    assert_eq!(overlapping.len(), 4);
    let few = search_codebase(&root, &asked(&["src", "notes.md"], 2)).expect("search");
    assert!(few.truncated && few.total_matches == 4);
    assert_eq!(
        few.lines
            .iter()
            .map(|l| format!("{}:{}", l.path, l.line))
            .collect::<Vec<_>>(),
        ["notes.md:3", "src/a.rs:2"]
    );

    // Each path is checked as `path` is; both at once is refused in words.
    let outside = search_codebase(&root, &asked(&["src", "../"], 10)).expect_err("outside");
    assert!(
        matches!(outside, tools::ToolError::OutsideProject { .. }),
        "{outside}"
    );
    let missing = search_codebase(&root, &asked(&["src", "nope"], 10)).expect_err("missing");
    assert!(missing.to_string().contains("nope"), "{missing}");
    let mut both = asked(&["src"], 10);
    both.path = Some("notes.md".into());
    let err = search_codebase(&root, &both).expect_err("both");
    assert!(err.to_string().contains("`path` or `paths`"), "{err}");
}
