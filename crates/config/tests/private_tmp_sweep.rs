//! Issue 45: the session's private /tmp (on the machine's disk, outside the session's files)
//! stayed behind whenever the app or the CLI was killed or quit: 961 folders in
//! /tmp/tandem-UID on this machine after a day of tests. A sweep at start removes the folders
//! no live session uses and keeps the ones that are in use.

use config::machine_sandbox::{private_tmp, sweep_private_tmps};
use std::path::PathBuf;

#[test]
fn the_sweep_removes_what_no_live_session_uses_and_keeps_the_rest() {
    let sessions = tempfile::tempdir().expect("sessions");
    let pid = std::process::id();
    let make = |id: &str| -> PathBuf {
        let dir = private_tmp(id, &sessions.path().join(id));
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join("left.txt"), "x").expect("write");
        dir
    };
    // A session whose log nobody holds: its process is gone.
    let ended = format!("s-sweep-{pid}-ended");
    std::fs::write(sessions.path().join(format!("{ended}.jsonl")), "{}\n").expect("log");
    let ended_dir = make(&ended);
    // A session whose log is held: it is live (in this process, as in the app).
    let live = format!("s-sweep-{pid}-live");
    let log = sessions.path().join(format!("{live}.jsonl"));
    std::fs::write(&log, "{}\n").expect("log");
    let held = std::fs::OpenOptions::new()
        .append(true)
        .open(&log)
        .expect("open");
    held.lock().expect("lock");
    let live_dir = make(&live);
    // A CLI call whose process is gone, and one that runs (this one).
    let dead_cli = make("cli-999999999");
    let our_cli = make(&format!("cli-{pid}"));
    // A session of another data folder, touched just now: not ours to judge yet.
    let other = make(&format!("s-sweep-{pid}-other"));

    let removed = sweep_private_tmps(sessions.path());
    assert!(removed >= 2, "{removed}");
    assert!(!ended_dir.exists(), "{}", ended_dir.display());
    assert!(!dead_cli.exists(), "{}", dead_cli.display());
    assert!(
        live_dir.join("left.txt").exists(),
        "a live session's folder was removed"
    );
    assert!(our_cli.exists(), "a running CLI call's folder was removed");
    assert!(
        other.exists(),
        "a fresh folder of another data folder was removed"
    );
    drop(held);
    for d in [live_dir, our_cli, other] {
        let _ = std::fs::remove_dir_all(d);
    }
}
