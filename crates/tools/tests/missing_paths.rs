//! A path that is not there, asked for by a weak model: the error names the closest existing
//! paths so it can recover, and names paths relative to the project, never where the project
//! sits on this machine. A real project in a temp folder, `…/work/calc/`, asked for the ways
//! small models get it wrong.

use std::fs;
use std::path::Path;
use tools::{ProjectRoot, ReadFileArgs, ToolError, read_file};

struct Project {
    _dir: tempfile::TempDir,
    root: ProjectRoot,
}

fn project() -> Project {
    let dir = tempfile::tempdir().expect("tempdir");
    let top = dir.path().join("work/calc");
    for (path, body) in [
        ("calc.py", "def add(a, b):\n    return a - b\n"),
        ("src/app/util.py", "x = 1\n"),
        ("tests/util.py", "y = 2\n"),
        ("tests/test_calc.py", "from calc import add\n"),
        ("node_modules/pad/left_pad.js", "module.exports = 1\n"),
        (".env", "KEY=secret\n"),
    ] {
        let p = top.join(path);
        fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        fs::write(p, body).expect("write");
    }
    let root = ProjectRoot::open(&top).expect("open");
    Project { _dir: dir, root }
}

fn read(p: &Project, path: &str) -> ToolError {
    read_file(
        &p.root,
        &ReadFileArgs {
            path: path.into(),
            offset: None,
            limit: None,
        },
    )
    .expect_err(path)
}

/// The message the model reads; it must never carry the machine's folders.
fn message(p: &Project, err: &ToolError) -> String {
    let text = err.to_string();
    let machine = p
        .root
        .path()
        .parent()
        .and_then(Path::parent)
        .expect("temp dir");
    assert!(
        !text.contains(&*machine.to_string_lossy()),
        "an absolute path reached the model: {text}"
    );
    text
}

#[test]
fn the_project_folders_own_names_in_front_are_seen_through() {
    let p = project();
    for asked in ["work/calc/calc.py", "calc/calc.py", "./work/calc/calc.py"] {
        let err = read(&p, asked);
        assert_eq!(err.code(), protocol::FailureCode::NotFound, "{asked}");
        let text = message(&p, &err);
        assert!(text.contains("does not exist"), "{text}");
        assert!(text.contains("Did you mean calc.py?"), "{asked}: {text}");
    }
}

#[test]
fn the_same_name_elsewhere_is_offered_the_likeliest_first() {
    let p = project();
    let err = read(&p, "app/util.py");
    let text = message(&p, &err);
    assert!(
        text.contains("Did you mean src/app/util.py? Also close: tests/util.py."),
        "{text}"
    );
    let text = message(&p, &read(&p, "test_calc.py"));
    assert!(text.contains("Did you mean tests/test_calc.py?"), "{text}");
}

#[test]
fn a_slip_of_the_keys_or_of_case_in_the_same_folder_is_offered() {
    let p = project();
    let text = message(&p, &read(&p, "src/app/utill.py"));
    assert!(text.contains("Did you mean src/app/util.py?"), "{text}");
    let text = message(&p, &read(&p, "CALC.PY"));
    assert!(text.contains("Did you mean calc.py?"), "{text}");
    let text = message(&p, &read(&p, "tests/tset_calc.py"));
    assert!(text.contains("Did you mean tests/test_calc.py?"), "{text}");
}

#[test]
fn dependency_trees_and_hidden_secrets_are_never_offered() {
    let p = project();
    let text = message(&p, &read(&p, "left_pad.js"));
    assert!(!text.contains("node_modules"), "{text}");
    assert!(text.contains("Check the spelling"), "{text}");
    let text = message(&p, &read(&p, "config/.env"));
    assert!(!text.contains("Did you mean"), "{text}");
}

#[test]
fn a_path_outside_is_refused_without_naming_the_project_folder_and_still_helped() {
    let p = project();
    let err = read(&p, "/elsewhere/work/calc/calc.py");
    assert!(matches!(err, ToolError::OutsideProject { .. }), "{err:?}");
    let text = message(&p, &err);
    assert!(text.contains("outside the project"), "{text}");
    assert!(text.contains("Did you mean calc.py?"), "{text}");
    let text = message(&p, &read(&p, "../../../etc/passwd"));
    assert!(text.contains("outside the project"), "{text}");
}

#[test]
fn a_folder_read_as_a_file_is_named_relative() {
    let p = project();
    let text = message(&p, &read(&p, "src/app"));
    assert!(text.starts_with("src/app is a folder"), "{text}");
}
