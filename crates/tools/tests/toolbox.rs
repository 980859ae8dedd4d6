//! The toolbox: every tool by name, and the cache of read-only results.

use serde_json::json;
use std::cell::RefCell;
use std::time::Duration;
use test_support::{git, wait_until};
use tools::{ProjectRoot, TOOLS, Toolbox};

fn toolbox() -> (tempfile::TempDir, tempfile::TempDir, Toolbox) {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.txt"), "one\n").expect("write");
    let tb = Toolbox::new(
        ProjectRoot::open(dir.path()).expect("open"),
        session.path().to_path_buf(),
    );
    (dir, session, tb)
}

#[tokio::test]
async fn reads_are_cached_until_something_changes() {
    let (d, _s, tb) = toolbox();
    let read = json!({"path": "a.txt"});
    // The first read starts watching the project, in the background; once the watches are
    // set, what was cached before is no longer trusted (a change made meanwhile may have gone
    // unseen). Counting hits before that was a race: it failed on an idle machine.
    let before = tb.cache.generation();
    let first = tb.run("read_file", read.clone()).await.expect("read");
    wait_until(
        "the project watch to start",
        Duration::from_secs(10),
        || std::future::ready(tb.cache.generation() != before),
    )
    .await
    .unwrap_or_else(|e| panic!("{e}"));
    // Whether the first read's result counts depends on when the watch started (before or
    // after it was stored): one more read, with the watch set, is cached either way.
    tb.run("read_file", read.clone()).await.expect("read");
    let hits = tb.cache.hits();
    tb.run("read_file", read.clone()).await.expect("read");
    tb.run("read_file", json!({"limit": null, "path": "a.txt"}))
        .await
        .expect("read");
    tb.run("read_file", read.clone()).await.expect("read");
    assert_eq!(
        tb.cache.hits() - hits,
        2,
        "an extra argument makes another call; the same arguments hit"
    );
    // A write invalidates.
    tb.run("write_file", json!({"path": "a.txt", "content": "two\n"}))
        .await
        .expect("write");
    let after = tb.run("read_file", read.clone()).await.expect("read");
    assert_ne!(first.text, after.text);
    assert!(after.text.contains("two"));
    // A command invalidates (it may change anything).
    tb.run("list_files", json!({})).await.expect("list");
    tb.run("run_command", json!({"command": "touch b.txt"}))
        .await
        .expect("run");
    let list = tb.run("list_files", json!({})).await.expect("list");
    assert!(list.text.contains("b.txt"), "{}", list.text);
    // A change behind Tandem's back is noticed for read_file.
    std::fs::write(d.path().join("a.txt"), "three, from elsewhere\n").expect("write");
    assert!(
        tb.run("read_file", read)
            .await
            .expect("read")
            .text
            .contains("three")
    );
}

/// A file made by something else (a background command, the user's editor) shows in the next
/// listing, search and status: list_files, search_codebase and git_status answered from a
/// 30-second cache before.
#[tokio::test]
async fn a_file_made_outside_the_tools_shows_in_the_next_listing_search_and_status() {
    let (d, _s, tb) = toolbox();
    git2::Repository::init(d.path()).expect("git init");
    let list = tb.run("list_files", json!({})).await.expect("list");
    assert!(!list.text.contains("late.txt"));
    let search = json!({"pattern": "findme"});
    let found = tb
        .run("search_codebase", search.clone())
        .await
        .expect("search");
    assert!(found.text.contains("No matches"), "{}", found.text);
    let status = tb.run("git_status", json!({})).await.expect("status");
    assert!(!status.text.contains("late.txt"));

    std::fs::write(d.path().join("late.txt"), "findme\n").expect("write");
    // Well within the old 30 seconds, and past the watcher's reaction time.
    // What the tools last answered, for the message when they stay stale.
    let stale = RefCell::new(String::new());
    wait_until(
        "the listing, search and status to show late.txt",
        Duration::from_secs(5),
        || async {
            let list = tb.run("list_files", json!({})).await.expect("list");
            let found = tb
                .run("search_codebase", search.clone())
                .await
                .expect("search");
            let status = tb.run("git_status", json!({})).await.expect("status");
            let fresh = list.text.contains("late.txt")
                && found.text.contains("late.txt:1")
                && status.text.contains("late.txt");
            *stale.borrow_mut() = format!("{} / {} / {}", list.text, found.text, status.text);
            fresh
        },
    )
    .await
    .unwrap_or_else(|e| panic!("{e}: still stale: {}", stale.borrow()));
}

/// Bytes this thread has read with read(2) so far (the kernel's per-thread accounting).
fn bytes_read_by_this_thread() -> u64 {
    std::fs::read_to_string("/proc/thread-self/io")
        .expect("per-thread io accounting")
        .lines()
        .find_map(|l| l.strip_prefix("rchar: "))
        .and_then(|n| n.trim().parse().ok())
        .expect("rchar")
}

/// Reading the last lines of a big log, and hitting the cache for them again, reads the file
/// once to count its lines, not again whole to fingerprint it (a 238 MB log held 254 MB of
/// memory for its last two lines).
#[test]
fn a_big_file_is_not_read_whole_to_stamp_it() {
    let (d, _s, _tb) = toolbox();
    let size = 64 * 1024 * 1024;
    let line = "a log line of some length, as logs have\n";
    std::fs::write(d.path().join("big.log"), line.repeat(size / line.len())).expect("write");
    let ws = tools::Workspace::new(ProjectRoot::open(d.path()).expect("open"));
    let real = d.path().canonicalize().expect("real").join("big.log");
    let before = bytes_read_by_this_thread();
    ws.note_seen(&real);
    let stamped = bytes_read_by_this_thread() - before;
    assert!(stamped < 1024 * 1024, "stamping read {stamped} bytes");
    // Still fresh as it is, stale once it changes.
    ws.check_fresh(&real, "big.log").expect("fresh");
    std::fs::OpenOptions::new()
        .append(true)
        .open(&real)
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"one more\n"))
        .expect("append");
    assert!(ws.check_fresh(&real, "big.log").is_err());
}

#[tokio::test]
async fn every_catalog_tool_is_reachable_by_name() {
    let (_d, _s, tb) = toolbox();
    for spec in TOOLS {
        // Calling with no arguments either works or explains what is missing — never "no tool".
        if let Err(e) = tb.run(spec.name, json!({})).await {
            assert!(
                !e.to_string().contains("There is no tool named"),
                "{}: {e}",
                spec.name
            );
        }
    }
    let out = tb
        .run(
            "update_plan",
            json!({"items": [{"text": "look", "status": "in_progress"}]}),
        )
        .await
        .expect("plan");
    assert_eq!(out.text, "[>] look\n");
    let out = tb
        .run("task_done", json!({"summary": "all good"}))
        .await
        .expect("done");
    assert_eq!(out.structured["summary"], "all good");
    let out = tb
        .run("wakeup", json!({"delay_ms": 10, "hint": "h"}))
        .await
        .expect("wakeup");
    assert!(out.text.contains("10 ms"));
    let out = tb.run("task_list", json!({})).await.expect("tasks");
    assert_eq!(out.text, "No background tasks.\n");
    let err = tb
        .run("task_poll", json!({"id": "task-9"}))
        .await
        .expect_err("unknown task");
    assert!(err.to_string().contains("task_list"), "{err}");
}

/// The change thresholds count what the agent changed since the user last committed: a commit
/// the agent makes (with a command, or git_commit) keeps the count, so `git add -A && git
/// commit` no longer lifts `require_approval_above` and `max_diff_lines`; the user committing
/// between turns starts it afresh. The agent's own commit reset the count before.
#[tokio::test]
async fn only_the_user_committing_starts_the_count_of_changed_lines_afresh() {
    let (d, _s, tb) = toolbox();
    git(d.path(), &["init", "-q"]);
    git(d.path(), &["config", "user.name", "Agent"]);
    git(d.path(), &["config", "user.email", "agent@example.com"]);
    git(d.path(), &["add", "-A"]);
    git(d.path(), &["commit", "-qm", "start"]);
    let lines = |n: usize| (0..n).map(|i| format!("line {i}\n")).collect::<String>();
    tb.run("write_file", json!({"path": "b.txt", "content": lines(30)}))
        .await
        .expect("write");
    assert_eq!(tb.ws.uncommitted_totals().changed(), 30);

    let commit = tb
        .run(
            "run_command",
            json!({"command": "git add -A && git commit -qm 'by the agent' && echo committed"}),
        )
        .await
        .expect("run");
    assert!(commit.text.starts_with("committed\n"), "{}", commit.text);
    assert_eq!(
        tb.ws.uncommitted_totals().changed(),
        30,
        "a commit by a command of the agent's reset the count"
    );

    tb.run("write_file", json!({"path": "c.txt", "content": lines(5)}))
        .await
        .expect("write");
    tb.run("git_commit", json!({"message": "also by the agent"}))
        .await
        .expect("commit");
    assert_eq!(
        tb.ws.uncommitted_totals().changed(),
        35,
        "a commit with git_commit reset the count"
    );

    // Between turns, the user commits in their terminal.
    std::fs::write(d.path().join("a.txt"), "the user's edit\n").expect("write");
    git(d.path(), &["commit", "-qam", "by the user"]);
    assert_eq!(tb.ws.uncommitted_totals().changed(), 0);
    tb.run("write_file", json!({"path": "d.txt", "content": lines(2)}))
        .await
        .expect("write");
    assert_eq!(tb.ws.uncommitted_totals().changed(), 2);
}

/// The model was told the whole of a cut result, a command's output or a fetched page is in
/// the session's folder, and to read it; read_file refused it as outside the project. Now
/// read_file and search_codebase read those files back (and only those), by the path given,
/// page by page, and see a running command's output grow (nothing of it is cached).
#[tokio::test]
async fn the_sessions_saved_outputs_are_read_back_by_the_path_the_model_was_given() {
    let (_d, s, tb) = toolbox();
    let outputs = s.path().join("outputs");
    std::fs::create_dir_all(&outputs).expect("mkdir");
    let saved = outputs.join("result-c1.txt");
    let lines: String = (1..=500).map(|i| format!("line {i}\n")).collect();
    std::fs::write(&saved, &lines).expect("write");
    let path = saved.display().to_string();

    let page = tb
        .run(
            "read_file",
            json!({"path": path, "offset": 250, "limit": 2}),
        )
        .await
        .expect("a saved output is read");
    assert!(page.text.contains("250 | line 250"), "{}", page.text);
    assert!(page.text.contains("251 | line 251"), "{}", page.text);
    assert!(page.text.contains(&path), "named as asked: {}", page.text);

    let found = tb
        .run(
            "search_codebase",
            json!({"pattern": "^line 49[0-9]$", "path": path}),
        )
        .await
        .expect("a saved output is searched");
    assert!(
        found.text.contains(&format!("{path}:497: line 497")),
        "{}",
        found.text
    );

    // It grows (a command still running): the next read sees the new lines.
    std::fs::write(&saved, format!("{lines}line 501\n")).expect("write");
    let tail = tb
        .run("read_file", json!({"path": path, "offset": -1}))
        .await
        .expect("read");
    assert!(tail.text.contains("501 | line 501"), "{}", tail.text);

    // A secret's name in a saved folder (written there by a command run without the sandbox)
    // is never searched, as in the project.
    std::fs::write(outputs.join("credentials.json"), "line 497\n").expect("write");
    let hiding = Toolbox::new(
        ProjectRoot::open(_d.path())
            .expect("open")
            .hiding_secrets(|p: &std::path::Path| p.ends_with("credentials.json")),
        s.path().to_path_buf(),
    );
    let found = hiding
        .run(
            "search_codebase",
            json!({"pattern": "^line 497$", "path": outputs.display().to_string()}),
        )
        .await
        .expect("search");
    assert!(!found.text.contains("credentials"), "{}", found.text);
    assert!(found.text.contains("result-c1.txt:497"), "{}", found.text);

    // Beside the saved folders is still outside the project.
    std::fs::write(s.path().join("seen.jsonl"), "{}\n").expect("write");
    let beside = s.path().join("seen.jsonl").display().to_string();
    let err = tb
        .run("read_file", json!({"path": beside}))
        .await
        .expect_err("not a saved output");
    assert!(err.to_string().contains("outside the project"), "{err}");
}
