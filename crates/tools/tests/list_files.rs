//! list_files as the model calls it, on a real git repository.

use serde_json::json;
use tools::{ProjectRoot, Workspace, run_tool};

/// A repository whose .gitignore files (the root's and a sub-folder's) and `.git/info/exclude`
/// hide build output, a log, generated code, dependencies and a local note.
fn repository() -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path();
    git2::Repository::init(p).expect("git init");
    for (f, body) in [
        (".gitignore", "target/\n*.log\nnode_modules/\n"),
        ("src/.gitignore", "gen.rs\n"),
        ("src/main.rs", "fn main() {}"),
        ("src/gen.rs", "// generated\n"),
        ("build.log", "log\n"),
        ("target/debug/app", "bin"),
        ("node_modules/pkg/index.js", "x"),
        ("notes.local", "x\n"),
        ("README.md", "readme\n"),
        (".git/info/exclude", "notes.local\n"),
    ] {
        let path = p.join(f);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, body).expect("write");
    }
    let ws = Workspace::new(ProjectRoot::open(p).expect("open"));
    (dir, ws)
}

fn listing(ws: &Workspace, args: serde_json::Value) -> tools::ToolOutput {
    run_tool(ws, "list_files", args).expect("list_files")
}

#[test]
fn include_ignored_lists_what_gitignore_hides_and_marks_it() {
    let (_d, ws) = repository();
    assert_eq!(
        listing(&ws, json!({"recursive": true})).text,
        "src/\nsrc/main.rs (12 B)\nREADME.md (7 B)\n"
    );
    let all = listing(&ws, json!({"recursive": true, "include_ignored": true}));
    assert_eq!(
        all.text,
        "node_modules/ (ignored)\n\
         src/\n\
         src/gen.rs (13 B, ignored)\n\
         src/main.rs (12 B)\n\
         target/ (ignored)\n\
         target/debug/ (ignored)\n\
         target/debug/app (3 B, ignored)\n\
         build.log (4 B, ignored)\n\
         notes.local (2 B, ignored)\n\
         README.md (7 B)\n"
    );
    assert!(
        all.structured["ignored"]
            .as_array()
            .expect("ignored paths")
            .contains(&json!("target/debug/app")),
        "{}",
        all.structured
    );
    assert_eq!(
        listing(&ws, json!({"include_ignored": true})).text,
        "node_modules/ (ignored)\nsrc/\ntarget/ (ignored)\nbuild.log (4 B, ignored)\nnotes.local (2 B, ignored)\nREADME.md (7 B)\n"
    );
}

/// Hidden and ignored together still never show `.git/`, nor what is inside `node_modules/`.
#[test]
fn git_internals_and_dependencies_stay_out() {
    let (_d, ws) = repository();
    let all = listing(
        &ws,
        json!({"recursive": true, "include_ignored": true, "hidden": true}),
    );
    assert!(all.text.contains(".gitignore (28 B)\n"), "{}", all.text);
    assert!(all.text.contains("src/.gitignore (7 B)\n"), "{}", all.text);
    assert!(
        !all.text.lines().any(|l| l.starts_with(".git/")),
        "{}",
        all.text
    );
    assert!(!all.text.contains("node_modules/pkg"), "{}", all.text);
}
