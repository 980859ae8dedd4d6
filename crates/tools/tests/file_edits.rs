//! write_file and edit_file on real files: atomic, line endings kept, the freshness guard, and
//! every error naming what failed.

use std::fs;
use std::os::unix::fs::FileTypeExt as _;
use tools::{
    Edit, EditFileArgs, ProjectRoot, ReadFileArgs, ToolError, Workspace, WriteFileArgs, edit_file,
    write_file,
};

fn ws() -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = ProjectRoot::open(dir.path()).expect("open");
    (dir, Workspace::new(root))
}

fn read(ws: &Workspace, path: &str) {
    ws.read_file(&ReadFileArgs {
        path: path.into(),
        offset: None,
        limit: None,
    })
    .expect("read");
}

fn write(ws: &Workspace, path: &str, content: &str) -> Result<protocol::FileChange, ToolError> {
    write_file(
        ws,
        &WriteFileArgs {
            path: path.into(),
            content: content.into(),
        },
    )
}

fn edit(
    ws: &Workspace,
    path: &str,
    edits: &[(&str, &str)],
) -> Result<protocol::FileChange, ToolError> {
    edit_file(
        ws,
        &EditFileArgs {
            path: path.into(),
            old_string: None,
            new_string: None,
            edits: Some(
                edits
                    .iter()
                    .map(|(o, n)| Edit {
                        old_string: (*o).into(),
                        new_string: (*n).into(),
                    })
                    .collect(),
            ),
        },
    )
}

#[test]
fn write_creates_folders_and_reports_counts() {
    let (d, ws) = ws();
    let c = write(&ws, "src/deep/new.rs", "fn a() {}\nfn b() {}\n").expect("write");
    assert!(c.created);
    assert_eq!(
        (c.lines, c.chars, c.added_lines, c.removed_lines),
        (2, 20, 2, 0)
    );
    assert_eq!(
        fs::read_to_string(d.path().join("src/deep/new.rs")).expect("read"),
        "fn a() {}\nfn b() {}\n"
    );
    assert_eq!(
        tools::render_change(&c, "Wrote"),
        "Created src/deep/new.rs (20 characters, 2 lines; +2 -0 lines)."
    );
}

#[test]
fn overwriting_needs_a_fresh_read() {
    let (d, ws) = ws();
    fs::write(d.path().join("a.txt"), "one\n").expect("seed");
    let err = write(&ws, "a.txt", "two\n").expect_err("unread");
    assert!(err.to_string().contains("you have not read it"), "{err}");
    assert!(err.to_string().contains("read it first"), "{err}");
    read(&ws, "a.txt");
    write(&ws, "a.txt", "two\n").expect("after read");
    // Our own write counts as seen: a second write needs no re-read.
    write(&ws, "a.txt", "three\n").expect("after own write");
    fs::write(d.path().join("a.txt"), "changed by someone else\n").expect("external");
    let err = write(&ws, "a.txt", "four\n").expect_err("stale");
    assert!(
        err.to_string()
            .contains("changed on disk since you last read it"),
        "{err}"
    );
    assert_eq!(
        fs::read_to_string(d.path().join("a.txt")).expect("read"),
        "changed by someone else\n"
    );
}

/// write_file writes what it is given, so a model can fix a missing final newline or a file's
/// line endings; edit_file changes only what it replaces, and each line keeps its own ending.
#[test]
fn write_file_writes_as_given_and_edit_file_keeps_each_lines_ending() {
    let (d, ws) = ws();
    fs::write(d.path().join("w.txt"), "a\r\nb\r\n").expect("seed");
    read(&ws, "w.txt");
    write(&ws, "w.txt", "x\r\ny\r\n").expect("write");
    assert_eq!(
        fs::read(d.path().join("w.txt")).expect("read"),
        b"x\r\ny\r\n"
    );
    edit(&ws, "w.txt", &[("x\ny", "x\nz")]).expect("edit with LF text");
    assert_eq!(
        fs::read(d.path().join("w.txt")).expect("read"),
        b"x\r\nz\r\n"
    );

    // The missing final newline a model adds is written.
    fs::write(d.path().join("n.txt"), "no newline").expect("seed");
    read(&ws, "n.txt");
    write(&ws, "n.txt", "now with one\n").expect("write");
    assert_eq!(
        fs::read_to_string(d.path().join("n.txt")).expect("read"),
        "now with one\n"
    );
    fs::write(d.path().join("e.txt"), "no newline").expect("seed");
    read(&ws, "e.txt");
    edit(&ws, "e.txt", &[("no newline", "still no newline")]).expect("edit");
    assert_eq!(
        fs::read_to_string(d.path().join("e.txt")).expect("read"),
        "still no newline"
    );

    // A file mixing both: only the edited line changes, and it keeps its CRLF.
    fs::write(d.path().join("m.txt"), "one\r\ntwo\nthree\r\nfour\n").expect("seed");
    read(&ws, "m.txt");
    edit(
        &ws,
        "m.txt",
        &[("three", "THREE"), ("two\n", "2\nand a half\n")],
    )
    .expect("edit");
    assert_eq!(
        fs::read(d.path().join("m.txt")).expect("read"),
        b"one\r\n2\nand a half\nTHREE\r\nfour\n"
    );
}

#[test]
fn multi_edit_applies_all_or_nothing() {
    let (d, ws) = ws();
    let p = d.path().join("m.rs");
    fs::write(&p, "let a = 1;\nlet b = 2;\nlet c = 3;\n").expect("seed");
    read(&ws, "m.rs");
    let c = edit(&ws, "m.rs", &[("a = 1", "a = 10"), ("c = 3", "c = 30")]).expect("edit");
    assert_eq!(
        fs::read_to_string(&p).expect("read"),
        "let a = 10;\nlet b = 2;\nlet c = 30;\n"
    );
    assert_eq!((c.added_lines, c.removed_lines), (2, 2));

    let before = fs::read_to_string(&p).expect("read");
    let cases: &[(&[(&str, &str)], &str)] = &[
        (
            &[("a = 10", "a = 11"), ("zzz", "y")],
            "edit 2 of m.rs: old_string was not found",
        ),
        (
            &[("let", "const")],
            "edit 1 of m.rs: old_string was found 3 times",
        ),
        (
            &[("b = 2", "b = 2")],
            "edit 1 of m.rs: old_string and new_string are the same; nothing would change. Put the text as it should read after the change in new_string",
        ),
        (&[("", "x")], "edit 1 of m.rs: old_string is empty"),
        (
            &[("let a = 10;\nlet b", "x"), ("b = 2", "y")],
            "edit 2 of m.rs: it overlaps edit 1",
        ),
        (
            &[("  let b = 2;", "x")],
            "different leading or trailing whitespace",
        ),
    ];
    for (edits, expected) in cases {
        let err = edit(&ws, "m.rs", edits).expect_err(expected);
        assert!(
            err.to_string().contains(expected),
            "{err} / wanted {expected}"
        );
        assert_eq!(
            fs::read_to_string(&p).expect("read"),
            before,
            "a failed edit changes nothing"
        );
    }
}

/// Small models fill the form they do not use with empty defaults (issue 23: an edit came as
/// `{old_string, new_string, "edits": []}` and was refused as a mix three times over).
#[test]
fn the_unused_form_left_empty_is_read_as_absent() {
    let (d, ws) = ws();
    fs::write(d.path().join("s.txt"), "hello world\n").expect("seed");
    read(&ws, "s.txt");
    let beside_empty_edits = EditFileArgs {
        path: "s.txt".into(),
        old_string: Some("world".into()),
        new_string: Some("there".into()),
        edits: Some(vec![]),
    };
    edit_file(&ws, &beside_empty_edits).expect("old_string + new_string beside `edits: []`");
    read(&ws, "s.txt");
    let beside_empty_strings = EditFileArgs {
        path: "s.txt".into(),
        old_string: Some(String::new()),
        new_string: Some(String::new()),
        edits: Some(vec![Edit {
            old_string: "hello".into(),
            new_string: "goodbye".into(),
        }]),
    };
    edit_file(&ws, &beside_empty_strings).expect("`edits` beside two empty strings");
    assert_eq!(
        fs::read_to_string(d.path().join("s.txt")).expect("read"),
        "goodbye there\n"
    );
    // Both forms really given is still a mix, and says so.
    read(&ws, "s.txt");
    let mix = EditFileArgs {
        path: "s.txt".into(),
        old_string: Some("there".into()),
        new_string: Some("world".into()),
        edits: Some(vec![Edit {
            old_string: "goodbye".into(),
            new_string: "hello".into(),
        }]),
    };
    let err = edit_file(&ws, &mix).expect_err("a mix");
    assert!(err.to_string().contains("not a mix"), "{err}");
}

/// Issue 23: "old_string was not found" eight times over, the model guessing again each time.
/// The error now carries the lines it most likely meant, numbered as read_file numbers them.
#[test]
fn an_old_string_not_in_the_file_is_answered_with_the_closest_lines() {
    let (d, ws) = ws();
    let body = "import math\n\ndef find_zero(xs):\n    begin, end = -1.0, 1.0\n    return begin\n";
    fs::write(d.path().join("solution.py"), body).expect("seed");
    read(&ws, "solution.py");
    let guess = EditFileArgs {
        path: "solution.py".into(),
        old_string: Some("def find_zero(self, arr):\n    return arr[0]".into()),
        new_string: Some("def find_zero(xs):\n    return 0.0".into()),
        edits: None,
    };
    let err = edit_file(&ws, &guess)
        .expect_err("not in the file")
        .to_string();
    assert!(
        err.contains("The closest text in solution.py is lines 2-5"),
        "{err}"
    );
    assert!(err.contains("   3 | def find_zero(xs):"), "{err}");
    assert_eq!(
        fs::read_to_string(d.path().join("solution.py")).expect("read"),
        body
    );
}

#[test]
fn single_edit_form_and_argument_errors() {
    let (d, ws) = ws();
    fs::write(d.path().join("s.txt"), "hello world\n").expect("seed");
    read(&ws, "s.txt");
    let args = EditFileArgs {
        path: "s.txt".into(),
        old_string: Some("world".into()),
        new_string: Some("there".into()),
        edits: None,
    };
    edit_file(&ws, &args).expect("edit");
    assert_eq!(
        fs::read_to_string(d.path().join("s.txt")).expect("read"),
        "hello there\n"
    );
    let none = EditFileArgs {
        path: "s.txt".into(),
        old_string: None,
        new_string: None,
        edits: None,
    };
    assert!(
        edit_file(&ws, &none)
            .expect_err("none")
            .to_string()
            .contains("give `old_string`")
    );
    let missing = edit(&ws, "nope.txt", &[("a", "b")]).expect_err("missing");
    assert!(
        missing.to_string().contains("use write_file to create it"),
        "{missing}"
    );
    let outside = edit(&ws, "../x", &[("a", "b")]).expect_err("outside");
    assert!(matches!(outside, ToolError::OutsideProject { .. }));
}

#[test]
fn the_session_counts_changed_lines() {
    let (_d, ws) = ws();
    write(&ws, "a.txt", "1\n2\n3\n").expect("write");
    edit(&ws, "a.txt", &[("2", "two")]).expect("edit");
    let t = ws.diff_totals();
    assert_eq!((t.added, t.removed), (4, 1));
    assert_eq!(t.changed(), 5);
}

/// Each edit of a multi-edit is reviewed as its own change, even on neighbouring lines of a
/// CRLF file; keeping one and rejecting the other writes exactly the kept one, CRLF intact.
#[test]
fn each_edit_is_a_hunk_of_its_own_and_merges_alone() {
    let (dir, ws) = ws();
    let body: String = (1..=12).map(|i| format!("line {i}\r\n")).collect();
    fs::write(dir.path().join("list.txt"), &body).expect("write");
    read(&ws, "list.txt");
    let args = EditFileArgs {
        path: "list.txt".into(),
        old_string: None,
        new_string: None,
        edits: Some(vec![
            Edit {
                old_string: "line 9\n".into(),
                new_string: "line nine\n".into(),
            },
            Edit {
                old_string: "line 5\r\n".into(),
                new_string: "line five\r\n".into(),
            },
            Edit {
                old_string: "line 6".into(),
                new_string: "line six".into(),
            },
        ]),
    };
    let planned = tools::plan_edit(&ws, &args).expect("plan");
    let hunks = planned.hunks();
    assert_eq!(hunks.len(), 3, "{hunks:#?}");
    assert!(
        hunks[0].text.contains("+line five\r\n"),
        "{}",
        hunks[0].text
    );
    assert!(hunks[1].text.contains("+line six\r\n"), "{}", hunks[1].text);
    assert!(
        hunks[2].text.contains("+line nine\r\n"),
        "{}",
        hunks[2].text
    );
    let kept = planned.merge(&[0, 2].into());
    assert_eq!(
        kept,
        body.replace("line 5\r\n", "line five\r\n")
            .replace("line 9\r\n", "line nine\r\n")
    );
}

/// The session's checkpoints keep what a file held before the tools change it: the hook runs
/// before every write and edit, with the file still as it was, and only for writes that happen.
#[test]
fn the_before_write_hook_sees_each_file_as_it_was() {
    use std::sync::{Arc, Mutex};
    let dir = tempfile::tempdir().expect("tempdir");
    let root = ProjectRoot::open(dir.path()).expect("open");
    let real = root.path().to_path_buf();
    let mut ws = Workspace::new(root);
    // Each write's path, with what the file held when the hook ran.
    type Seen = Vec<(String, Option<String>)>;
    let seen: Arc<Mutex<Seen>> = Arc::default();
    let seen2 = seen.clone();
    ws.set_before_write(Arc::new(move |path: &str| {
        let now = fs::read_to_string(real.join(path)).ok();
        seen2.lock().expect("lock").push((path.to_string(), now));
    }));
    write(&ws, "src/new.txt", "one\n").expect("write");
    edit(&ws, "src/new.txt", &[("one", "two")]).expect("edit");
    assert!(edit(&ws, "src/new.txt", &[("absent", "x")]).is_err());
    assert_eq!(
        *seen.lock().expect("lock"),
        [
            ("src/new.txt".to_string(), None),
            ("src/new.txt".to_string(), Some("one\n".to_string())),
        ]
    );
}

/// Qwen2.5-Coder-1.5B, asked to fix `add`, sent `return a - b` — which `sub` has too — and
/// took "include more surrounding lines" for "add a line to the file". The error now names the
/// lines and gives, for each, the arguments that change only it, which the retry below copies.
#[test]
fn a_text_found_twice_gets_its_lines_and_the_arguments_that_change_only_each() {
    let (d, ws) = ws();
    let calc = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n";
    fs::write(d.path().join("calc.py"), calc).expect("seed");
    read(&ws, "calc.py");
    let e = edit(&ws, "calc.py", &[("return a - b", "return a + b")]).expect_err("ambiguous");
    let message = e.to_string();
    assert!(message.contains("found 2 times (lines 2, 6)"), "{message}");
    assert!(
        message.contains(r#"line 2: {"path":"calc.py","old_string":"def add(a, b):\n    return a - b","new_string":"def add(a, b):\n    return a + b"}"#),
        "{message}"
    );
    assert!(
        message.contains(r#"line 6: {"path":"calc.py","old_string":"def sub(a, b):\n    return a - b","new_string":"def sub(a, b):\n    return a + b"}"#),
        "{message}"
    );
    assert_eq!(
        fs::read_to_string(d.path().join("calc.py")).expect("read"),
        calc
    );
    edit(
        &ws,
        "calc.py",
        &[(
            "def add(a, b):\n    return a - b",
            "def add(a, b):\n    return a + b",
        )],
    )
    .expect("the suggested old_string is unique");
    assert_eq!(
        fs::read_to_string(d.path().join("calc.py")).expect("read"),
        "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
    );

    // Lines that repeat further out are widened until unique.
    fs::write(d.path().join("r.txt"), "x\ny\nx\ny\nz\n").expect("seed");
    read(&ws, "r.txt");
    let message = edit(&ws, "r.txt", &[("y", "Y"), ("z", "Z")])
        .expect_err("ambiguous")
        .to_string();
    assert!(
        message.contains(r#"line 2: {"old_string":"x\ny\nx","new_string":"x\nY\nx"}"#),
        "{message}"
    );
    assert!(
        message.contains(r#"line 4: {"old_string":"y\nx\ny","new_string":"y\nx\nY"}"#),
        "{message}"
    );
}

/// Runs `f` on its own thread; a call that hangs (a named pipe opened for reading waits for a
/// writer forever) fails the test instead of hanging it.
fn within_a_minute<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(std::time::Duration::from_secs(60))
        .expect("the call hung")
}

#[test]
fn a_named_pipe_is_refused_by_edit_and_write_instead_of_hanging() {
    let (dir, ws) = ws();
    let pipe = dir.path().join("pipe");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &pipe,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .expect("mkfifo");
    let ws = std::sync::Arc::new(ws);
    let w = ws.clone();
    let edited = within_a_minute(move || edit(&w, "pipe", &[("a", "b")]));
    let w = ws.clone();
    let written = within_a_minute(move || write(&w, "pipe", "text"));
    for result in [edited, written] {
        match result {
            Err(ToolError::InvalidArgument(m)) => {
                assert!(m.contains("pipe is not a regular file"), "{m}")
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(
        fs::symlink_metadata(&pipe)
            .expect("still there")
            .file_type()
            .is_fifo()
    );
}

#[test]
fn a_file_too_large_to_change_is_refused_before_it_is_read() {
    let (dir, ws) = ws();
    let big = dir.path().join("big.txt");
    let f = fs::File::create(&big).expect("create");
    f.set_len(tools::MAX_CHANGED_FILE_BYTES + 1)
        .expect("sparse");
    drop(f);
    read(&ws, "big.txt");
    for result in [
        edit(&ws, "big.txt", &[("a", "b")]),
        write(&ws, "big.txt", "x"),
    ] {
        match result {
            Err(ToolError::InvalidArgument(m)) => {
                assert!(m.contains("over the 16 MB"), "{m}");
                assert!(m.contains("with a command"), "{m}");
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(
        fs::metadata(&big).expect("meta").len(),
        tools::MAX_CHANGED_FILE_BYTES + 1
    );
}

/// Issue 26: two runs on one project, each editing its own lines of one file, lost reported
/// edits: nothing checked the file between the freshness check and the rename. A change
/// planned from content that is no longer there is refused; every edit reported is on disk.
#[test]
fn a_change_planned_from_content_another_writer_replaced_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    fs::write(dir.path().join("shared.txt"), "a\nb\n").expect("write");
    let one = Workspace::new(ProjectRoot::open(dir.path()).expect("open"));
    let two = Workspace::new(ProjectRoot::open(dir.path()).expect("open"));
    read(&one, "shared.txt");
    read(&two, "shared.txt");
    let args = |old: &str, new: &str| EditFileArgs {
        path: "shared.txt".into(),
        old_string: Some(old.into()),
        new_string: Some(new.into()),
        edits: None,
    };
    // Both planned (say, waiting for their approvals), then written one after the other.
    let first = tools::plan_edit(&one, &args("a\n", "A\n")).expect("plan");
    let second = tools::plan_edit(&two, &args("b\n", "B\n")).expect("plan");
    tools::apply_planned(&one, &first, &first.content).expect("first lands");
    match tools::apply_planned(&two, &second, &second.content) {
        Err(ToolError::Stale { why, .. }) => assert!(why.contains("changed on disk"), "{why}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        fs::read_to_string(dir.path().join("shared.txt")).expect("read"),
        "A\nb\n"
    );
}

#[test]
fn two_sessions_editing_their_own_lines_of_one_file_lose_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lines: String = (0..40).map(|i| format!("line {i}\n")).collect();
    fs::write(dir.path().join("shared.txt"), &lines).expect("write");
    let root = dir.path().to_path_buf();
    let worker = |from: usize| {
        let root = root.clone();
        std::thread::spawn(move || {
            let ws = Workspace::new(ProjectRoot::open(&root).expect("open"));
            let mut reported = Vec::new();
            for i in (from..40).step_by(2) {
                loop {
                    read(&ws, "shared.txt");
                    match edit(
                        &ws,
                        "shared.txt",
                        &[(&format!("line {i}\n"), &format!("LINE {i}\n"))],
                    ) {
                        Ok(_) => {
                            reported.push(i);
                            break;
                        }
                        // Someone else wrote it in between: read again and redo, as the model is told.
                        Err(ToolError::Stale { .. }) => continue,
                        Err(e) => panic!("{e}"),
                    }
                }
            }
            reported
        })
    };
    let (a, b) = (worker(0), worker(1));
    let reported: Vec<usize> = [a, b]
        .into_iter()
        .flat_map(|h| h.join().expect("thread"))
        .collect();
    let now = fs::read_to_string(dir.path().join("shared.txt")).expect("read");
    for i in reported {
        assert!(
            now.contains(&format!("LINE {i}\n")),
            "edit {i} was reported but is not in:\n{now}"
        );
    }
}

/// Issue 26: after a crash, a resumed session refused to edit the files it had read ("you
/// have not read it in this session"). What was seen is kept beside the session and taken back;
/// a file changed since is still refused.
#[test]
fn what_was_read_survives_a_restart_and_a_change_since_is_still_caught() {
    let (dir, first) = ws();
    let kept = tempfile::tempdir().expect("tempdir");
    let log = kept.path().join("seen.jsonl");
    fs::write(dir.path().join("a.txt"), "one\n").expect("write");
    fs::write(dir.path().join("b.txt"), "two\n").expect("write");
    first.keep_seen_in(&log).expect("keep");
    read(&first, "a.txt");
    read(&first, "b.txt");
    drop(first);
    fs::write(dir.path().join("b.txt"), "changed by someone\n").expect("write");

    let again = Workspace::new(ProjectRoot::open(dir.path()).expect("open"));
    again.keep_seen_in(&log).expect("keep");
    edit(&again, "a.txt", &[("one", "ONE")]).expect("a.txt was read before the restart");
    match edit(&again, "b.txt", &[("changed", "CHANGED")]) {
        Err(ToolError::Stale { why, .. }) => assert!(why.contains("changed on disk"), "{why}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_record_of_what_was_read_keeps_one_line_per_file_across_restarts() {
    let (dir, ws) = ws();
    let kept = tempfile::tempdir().expect("tempdir");
    let log = kept.path().join("seen.jsonl");
    fs::write(dir.path().join("a.txt"), "one\n").expect("write");
    ws.keep_seen_in(&log).expect("keep");
    for _ in 0..5 {
        read(&ws, "a.txt");
    }
    drop(ws);
    assert_eq!(fs::read_to_string(&log).expect("log").lines().count(), 5);
    let again = Workspace::new(ProjectRoot::open(dir.path()).expect("open"));
    again.keep_seen_in(&log).expect("keep");
    assert_eq!(fs::read_to_string(&log).expect("log").lines().count(), 1);
    // A damaged record starts afresh rather than failing the session.
    fs::write(&log, b"\xff\xfe not json\n").expect("damage");
    let third = Workspace::new(ProjectRoot::open(dir.path()).expect("open"));
    third
        .keep_seen_in(&log)
        .expect("a damaged record is started afresh");
}

/// Issue 25: an edit that adds the final newline a file lacks was reported "Edited" and undone
/// (the file's missing newline was kept). Asked for at the end of the file, it is written; an
/// edit elsewhere still leaves the end as it was.
#[test]
fn an_edit_that_adds_the_missing_final_newline_is_written() {
    let (d, ws) = ws();
    fs::write(d.path().join("f.txt"), "a\nb").expect("seed");
    read(&ws, "f.txt");
    edit(&ws, "f.txt", &[("b", "b\n")]).expect("edit");
    assert_eq!(
        fs::read_to_string(d.path().join("f.txt")).expect("read"),
        "a\nb\n"
    );
    fs::write(d.path().join("g.txt"), "a\nb").expect("seed");
    read(&ws, "g.txt");
    edit(&ws, "g.txt", &[("a\n", "A\n\n")]).expect("edit");
    assert_eq!(
        fs::read_to_string(d.path().join("g.txt")).expect("read"),
        "A\n\nb"
    );
    // CRLF files get theirs in CRLF.
    fs::write(d.path().join("h.txt"), "a\r\nb").expect("seed");
    read(&ws, "h.txt");
    edit(&ws, "h.txt", &[("b", "b\n")]).expect("edit");
    assert_eq!(
        fs::read(d.path().join("h.txt")).expect("read"),
        b"a\r\nb\r\n"
    );
}

/// Issue 47: a write or an edit that changed nothing reported "Wrote … +0 −0" as if it had
/// changed the file; it says nothing changed, and writes nothing.
#[test]
fn a_write_that_changes_nothing_says_so_and_writes_nothing() {
    let (dir, ws) = ws();
    std::fs::write(dir.path().join("f.txt"), "a\nb\n").expect("write");
    read(&ws, "f.txt");
    let before = std::fs::metadata(dir.path().join("f.txt"))
        .and_then(|m| m.modified())
        .expect("mtime");
    std::thread::sleep(std::time::Duration::from_millis(20));
    let change = write(&ws, "f.txt", "a\nb\n").expect("write");
    assert!(change.unchanged, "{change:?}");
    let words = tools::render_change(&change, "Wrote");
    assert!(words.starts_with("Nothing changed: f.txt"), "{words}");
    let after = std::fs::metadata(dir.path().join("f.txt"))
        .and_then(|m| m.modified())
        .expect("mtime");
    assert_eq!(before, after, "nothing was written");
    let change = write(&ws, "f.txt", "a\nc\n").expect("write");
    assert!(!change.unchanged);
}

/// Issue 47: an edit that took the file's final newline away was silently undone (the final
/// newline was put back as if the model had dropped it by habit).
#[test]
fn an_edit_that_removes_the_final_newline_removes_it() {
    let (dir, ws) = ws();
    std::fs::write(dir.path().join("f.txt"), "a\nb\n").expect("write");
    read(&ws, "f.txt");
    edit(&ws, "f.txt", &[("b\n", "b")]).expect("edit");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("f.txt")).expect("read"),
        "a\nb"
    );
    // A replacement in the middle that drops a newline by habit still keeps the final one.
    std::fs::write(dir.path().join("g.txt"), "x\ny\n").expect("write");
    read(&ws, "g.txt");
    edit(&ws, "g.txt", &[("y", "z")]).expect("edit");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("g.txt")).expect("read"),
        "x\nz\n"
    );
}
