//! The toolbox: every tool by name, and the cache of read-only results.

use serde_json::json;
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
    let first = tb.run("read_file", read.clone()).await.expect("read");
    tb.run("read_file", json!({"limit": null, "path": "a.txt"}))
        .await
        .expect("read");
    tb.run("read_file", read.clone()).await.expect("read");
    assert_eq!(
        tb.cache.hits(),
        1,
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

#[tokio::test]
async fn every_catalog_tool_is_reachable_by_name() {
    let (_d, _s, tb) = toolbox();
    for spec in TOOLS {
        // Calling with no arguments either works or explains what is missing — never "no tool".
        if let Err(e) = tb.run(spec.name, json!({})).await {
            assert!(
                !e.to_string().contains("there is no tool named"),
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
