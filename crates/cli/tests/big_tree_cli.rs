//! A project of many untracked files: the first turn's first model call does not wait for the
//! session's first checkpoint, and the checkpoint copies nothing that has not changed.

use model_server::{Scenario, ScriptedServer};
use std::path::Path;
use std::time::Instant;
use test_support::projects::disk_bytes;

/// Issue 47: a git project with 3,000 untracked files. The session's data stays under a tenth
/// of the project (no copy of what did not change; it was a full copy), the agent's edit is
/// undone byte for byte, and the untracked files are untouched by the restore.
#[tokio::test]
async fn many_untracked_files_cost_what_changes_and_the_agents_edit_is_undone() {
    let project = tempfile::tempdir().expect("tempdir");
    let root = project.path();
    test_support::git(root, &["init", "-q"]);
    for i in 0..3_000 {
        let dir = root.join(format!("data/d{}", i / 100));
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join(format!("f{i}.txt")), format!("record {i}\n")).expect("write");
    }
    std::fs::write(root.join("greeting.txt"), "hello, world\n").expect("write");
    let data = tempfile::tempdir().expect("tempdir");
    let server = ScriptedServer::start(Scenario::named("agent_read_edit_test_done.json"))
        .await
        .expect("server");
    let project_arg = root.display().to_string();
    let (code, out, err) = test_support::tandem_cli_scripted(
        env!("CARGO_BIN_EXE_tandem-cli"),
        data.path(),
        &test_support::scripted_run(
            &project_arg,
            server.base_url(),
            &["--approve", "all", "Make the greeting say hello, tandem"],
        ),
    )
    .await;
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(
        std::fs::read_to_string(root.join("greeting.txt")).expect("read"),
        "hello, tandem\n"
    );
    let (kept, size) = (disk_bytes(data.path()), disk_bytes(root));
    assert!(
        kept * 10 < size,
        "the session keeps {kept} bytes for a project of {size}"
    );
    let id = err
        .lines()
        .find_map(|l| l.strip_prefix("session: "))
        .expect("the session's id");
    let (code, out, err) = test_support::tandem_cli_scripted(
        env!("CARGO_BIN_EXE_tandem-cli"),
        data.path(),
        &["restore", id, "--to", "1", "--files-only"],
    )
    .await;
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(
        std::fs::read_to_string(root.join("greeting.txt")).expect("read"),
        "hello, world\n"
    );
    assert!(
        !root.join("check.log").exists(),
        "the command's file is gone"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("data/d29/f2999.txt")).expect("read"),
        "record 2999\n"
    );
}

/// Measures the first turn on the project at `TANDEM_BIG_TREE` (made by hand; it is changed).
#[tokio::test]
#[ignore = "a measurement on a project made by hand"]
async fn measure_first_turn_on_a_big_tree() {
    let Ok(project) = std::env::var("TANDEM_BIG_TREE") else {
        return;
    };
    std::fs::write(Path::new(&project).join("greeting.txt"), "hello, world\n").expect("write");
    let data = tempfile::tempdir().expect("tempdir");
    let server = ScriptedServer::start(Scenario::named("agent_read_edit_test_done.json"))
        .await
        .expect("server");
    let started = Instant::now();
    let (code, out, err) = test_support::tandem_cli_scripted(
        env!("CARGO_BIN_EXE_tandem-cli"),
        data.path(),
        &test_support::scripted_run(
            &project,
            server.base_url(),
            &["--approve", "all", "Make the greeting say hello, tandem"],
        ),
    )
    .await;
    let total = started.elapsed();
    for (i, r) in server.requests().iter().enumerate() {
        eprintln!("request {i} at {:?}", r.at.duration_since(started));
    }
    eprintln!("run took {total:?}; exit {code}\n{out}\n{err}");
    let id = err
        .lines()
        .find_map(|l| l.strip_prefix("session: "))
        .expect("the session's id")
        .to_string();
    // A second turn (the person put the greeting back first), then a restore to the start.
    std::fs::write(Path::new(&project).join("greeting.txt"), "hello, world\n").expect("write");
    let server = ScriptedServer::start(Scenario::named("agent_read_edit_test_done.json"))
        .await
        .expect("server");
    let started = Instant::now();
    let mut args = test_support::scripted_run(
        &project,
        server.base_url(),
        &[
            "--approve",
            "all",
            "--session",
            &id,
            "Make the greeting say hello, tandem",
        ],
    );
    args.truncate(args.len());
    let (code, _, err) =
        test_support::tandem_cli_scripted(env!("CARGO_BIN_EXE_tandem-cli"), data.path(), &args)
            .await;
    eprintln!(
        "second turn took {:?}; exit {code}; {err}",
        started.elapsed()
    );
    for (i, r) in server.requests().iter().enumerate() {
        eprintln!("turn 2 request {i} at {:?}", r.at.duration_since(started));
    }
    let started = Instant::now();
    let (code, out, err) = test_support::tandem_cli_scripted(
        env!("CARGO_BIN_EXE_tandem-cli"),
        data.path(),
        &["restore", &id, "--to", "1", "--files-only"],
    )
    .await;
    eprintln!(
        "restore took {:?}; exit {code}\n{out}\n{err}",
        started.elapsed()
    );
    let du = |p: &Path| {
        let out = std::process::Command::new("du")
            .args(["-sk"])
            .arg(p)
            .output()
            .expect("du");
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    eprintln!(
        "data: {}project: {}",
        du(data.path()),
        du(Path::new(&project))
    );
}
