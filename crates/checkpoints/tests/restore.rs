//! Checkpoints against real folders and git repositories: what changed comes back byte for
//! byte (written by the tools or by anything else, in git), what cannot is named with why, the
//! user's repository is never written, and a restore is itself undone.

use checkpoints::{Checkpoints, FileState};
use protocol::NotRestorableReason;
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

/// Every file under `root` but `.git`: its bytes (a link's target) and whether it is executable.
fn tree(root: &Path) -> BTreeMap<String, (Vec<u8>, bool)> {
    let mut out = BTreeMap::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
            let p = e.path();
            let rel = p
                .strip_prefix(root)
                .expect("inside")
                .to_string_lossy()
                .into_owned();
            if rel == ".git" {
                continue;
            }
            let meta = std::fs::symlink_metadata(&p).expect("meta");
            if meta.is_symlink() {
                let target = std::fs::read_link(&p).expect("link");
                out.insert(rel, (target.to_string_lossy().as_bytes().to_vec(), false));
            } else if meta.is_dir() {
                out.insert(format!("{rel}/"), (Vec::new(), false));
                dirs.push(p);
            } else {
                let exec = meta.permissions().mode() & 0o111 != 0;
                out.insert(rel, (std::fs::read(&p).expect("read"), exec));
            }
        }
    }
    out
}

struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    store: tempfile::TempDir,
}

impl Project {
    fn new(git: bool) -> Project {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        write(&root, "src/main.rs", "fn main() {}\n");
        write(&root, "README.md", "# Project\n");
        write(&root, "notes/todo.txt", "one\ntwo\n");
        write(&root, ".gitignore", "target/\n*.log\n");
        std::os::unix::fs::symlink("README.md", root.join("readme-link")).expect("symlink");
        std::fs::set_permissions(
            root.join("notes/todo.txt"),
            std::fs::Permissions::from_mode(0o644),
        )
        .expect("chmod");
        if git {
            let repo = git2::Repository::init(&root).expect("init");
            let mut index = repo.index().expect("index");
            index
                .add_all(["*"].iter(), git2::IndexAddOption::DEFAULT, None)
                .expect("add");
            index.write().expect("write index");
            let tree = repo
                .find_tree(index.write_tree().expect("tree"))
                .expect("tree");
            let sig = git2::Signature::now("t", "t@example.com").expect("sig");
            repo.commit(Some("HEAD"), &sig, &sig, "start", &tree, &[])
                .expect("commit");
        }
        Project {
            _dir: dir,
            root,
            store: tempfile::tempdir().expect("store"),
        }
    }

    fn open(&self) -> Checkpoints {
        let (cps, recovered) = Checkpoints::open(self.store.path(), &self.root).expect("open");
        assert!(recovered.is_none());
        cps
    }
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

/// A tool's write: the content before is kept first, as the engine does.
fn tool_write(cps: &Checkpoints, root: &Path, rel: &str, text: &str) {
    cps.before_write(rel).expect("before write");
    write(root, rel, text);
}

/// Turn 1 (tools): edits main.rs, creates src/new/lib.rs. Turn 2 (commands): rewrites
/// todo.txt in place, deletes README.md, makes run.sh executable and a new untracked file, and
/// writes build output git ignores. Returns the trees at each checkpoint.
fn three_turns(p: &Project, cps: &Checkpoints) -> Vec<BTreeMap<String, (Vec<u8>, bool)>> {
    let mut trees = vec![];
    assert_eq!(cps.checkpoint(1).expect("cp"), 0);
    trees.push(tree(&p.root));
    tool_write(
        cps,
        &p.root,
        "src/main.rs",
        "fn main() { println!(\"hi\"); }\n",
    );
    tool_write(cps, &p.root, "src/new/lib.rs", "pub fn f() {}\n");
    assert_eq!(cps.checkpoint(10).expect("cp"), 1);
    trees.push(tree(&p.root));
    write(&p.root, "notes/todo.txt", "one\nTWO\n");
    std::fs::remove_file(p.root.join("README.md")).expect("rm");
    write(&p.root, "run.sh", "#!/bin/sh\necho hi\n");
    std::fs::set_permissions(
        p.root.join("run.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .expect("chmod");
    write(&p.root, "target/debug/app", "binary");
    write(&p.root, "build.log", "compiled\n");
    assert_eq!(cps.checkpoint(20).expect("cp"), 2);
    trees.push(tree(&p.root));
    // Turn 3: a tool edits a file a command changed.
    tool_write(cps, &p.root, "notes/todo.txt", "one\nTWO\nthree\n");
    trees
}

fn check_every_turn(watch: bool) {
    let p = Project::new(true);
    let cps = p.open();
    if watch {
        cps.watch();
    }
    let before_git = test_support::projects::git_dir(&p.root);
    let trees = three_turns(&p, &cps);
    let last = tree(&p.root);
    for (n, want) in trees.iter().enumerate().rev() {
        let restored = cps
            .restore(n as u32, None, 100, serde_json::Value::Null)
            .expect("restore");
        cps.finish().expect("finish");
        let mut got = tree(&p.root);
        let mut want = want.clone();
        // Git-ignored build output is never taken back, and says so where the watcher saw it
        // change (without one, nothing tells an ignored file's change apart).
        for ignored in ["target/", "target/debug/", "target/debug/app", "build.log"] {
            got.remove(ignored);
            want.remove(ignored);
        }
        assert_eq!(got, want, "restoring to checkpoint {n} (watching: {watch})");
        if n < 2 && watch {
            assert!(
                restored
                    .plan
                    .not_restorable
                    .iter()
                    .any(|r| r.path == "build.log" && r.reason == NotRestorableReason::GitIgnored),
                "{:?}",
                restored.plan.not_restorable
            );
        }
        // The restore is undone by restoring to the checkpoint taken just before it.
        cps.restore(restored.undo, None, 100, serde_json::Value::Null)
            .expect("undo");
        cps.finish().expect("finish");
        assert_eq!(tree(&p.root), last, "undoing the restore to {n}");
    }
    assert_eq!(
        test_support::projects::git_dir(&p.root),
        before_git,
        "the user's .git was written"
    );
}

#[test]
fn every_turn_comes_back_byte_for_byte_and_each_restore_is_undone() {
    check_every_turn(true);
}

#[test]
fn without_the_watcher_the_whole_project_is_looked_at_and_the_result_is_the_same() {
    check_every_turn(false);
}

#[test]
fn outside_git_tool_writes_come_back_and_command_changes_are_named() {
    let p = Project::new(false);
    let cps = p.open();
    cps.watch();
    assert_eq!(cps.checkpoint(1).expect("cp"), 0);
    let start = tree(&p.root);
    tool_write(&cps, &p.root, "src/main.rs", "changed by a tool\n");
    write(&p.root, "notes/todo.txt", "changed by a command\n");
    let plan = cps.preview(0, None).expect("preview");
    assert_eq!(
        plan.writes
            .iter()
            .map(|w| w.path.as_str())
            .collect::<Vec<_>>(),
        ["src/main.rs"]
    );
    assert_eq!(
        plan.not_restorable
            .iter()
            .map(|r| (r.path.as_str(), r.reason))
            .collect::<Vec<_>>(),
        [("notes/todo.txt", NotRestorableReason::OutsideGit)]
    );
    let restored = cps
        .restore(0, None, 5, serde_json::Value::Null)
        .expect("restore");
    cps.finish().expect("finish");
    assert_eq!(restored.plan.writes.len(), 1);
    let now = tree(&p.root);
    assert_eq!(now.get("src/main.rs"), start.get("src/main.rs"));
    assert_eq!(
        now.get("notes/todo.txt").map(|f| f.0.as_slice()),
        Some(&b"changed by a command\n"[..])
    );
}

#[test]
fn commits_and_branch_switches_by_the_agent_do_not_confuse_the_start() {
    let p = Project::new(true);
    let cps = p.open();
    cps.watch();
    cps.checkpoint(1).expect("cp");
    let start = tree(&p.root);
    // The agent commits a change, then changes the file again: HEAD is no longer the start.
    write(&p.root, "src/main.rs", "committed\n");
    let repo = git2::Repository::open(&p.root).expect("repo");
    let mut index = repo.index().expect("index");
    index.add_path(Path::new("src/main.rs")).expect("add");
    index.write().expect("write");
    let tree_id = index.write_tree().expect("tree");
    let sig = git2::Signature::now("t", "t@example.com").expect("sig");
    let parent = repo.head().expect("head").peel_to_commit().expect("commit");
    repo.commit(
        Some("HEAD"),
        &sig,
        &sig,
        "agent",
        &repo.find_tree(tree_id).expect("tree"),
        &[&parent],
    )
    .expect("commit");
    write(&p.root, "src/main.rs", "after the commit\n");
    cps.checkpoint(2).expect("cp");
    cps.restore(0, None, 3, serde_json::Value::Null)
        .expect("restore");
    cps.finish().expect("finish");
    assert_eq!(tree(&p.root), start);
}

#[test]
fn files_changed_before_the_session_keep_their_uncommitted_content() {
    let p = Project::new(true);
    // Uncommitted work of the user's own, and an untracked file.
    write(&p.root, "README.md", "# Project\n\nmy unsaved notes\n");
    write(&p.root, "scratch.txt", "mine\n");
    let cps = p.open();
    cps.watch();
    cps.checkpoint(1).expect("cp");
    let start = tree(&p.root);
    write(&p.root, "README.md", "agent rewrote it\n");
    std::fs::remove_file(p.root.join("scratch.txt")).expect("rm");
    cps.restore(0, None, 2, serde_json::Value::Null)
        .expect("restore");
    cps.finish().expect("finish");
    assert_eq!(tree(&p.root), start);
}

#[test]
fn one_file_is_reverted_alone() {
    let p = Project::new(true);
    let cps = p.open();
    cps.watch();
    cps.checkpoint(1).expect("cp");
    tool_write(&cps, &p.root, "src/main.rs", "one\n");
    tool_write(&cps, &p.root, "README.md", "two\n");
    cps.checkpoint(2).expect("cp");
    let only = vec!["README.md".to_string()];
    let plan = cps.preview(0, Some(&only)).expect("preview");
    assert_eq!(plan.writes.len(), 1);
    cps.restore(0, Some(&only), 3, serde_json::Value::Null)
        .expect("restore");
    cps.finish().expect("finish");
    assert_eq!(
        std::fs::read_to_string(p.root.join("README.md")).expect("read"),
        "# Project\n"
    );
    assert_eq!(
        std::fs::read_to_string(p.root.join("src/main.rs")).expect("read"),
        "one\n"
    );
}

#[test]
fn the_state_of_a_file_is_its_git_blob() {
    let p = Project::new(false);
    let cps = p.open();
    let state = cps.state_of("README.md").expect("state");
    let oid = git2::Oid::hash_object(git2::ObjectType::Blob, b"# Project\n").expect("hash");
    assert_eq!(state, FileState::file(oid, checkpoints::FileMode::Regular));
}

/// The session's folder can go (a session deleted) while its checkpoints are open: letting go
/// of them must not wait for a watcher that can no longer be woken through that folder.
#[test]
fn letting_go_after_the_session_folder_is_deleted_does_not_hang() {
    let p = Project::new(true);
    let cps = p.open();
    cps.watch();
    assert_eq!(cps.checkpoint(1).expect("cp"), 0);
    std::fs::remove_dir_all(p.store.path()).expect("remove the session folder");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        drop(cps);
        let _ = tx.send(());
    });
    assert!(
        rx.recv_timeout(std::time::Duration::from_secs(10)).is_ok(),
        "dropping the checkpoints hung"
    );
}

/// Outside git, a file made and removed within a turn (a tool's temporary file renamed into
/// place, sed's own) was not there before: nothing to restore and nothing to name. A file a
/// command made new is known to have been absent, so the restore removes it.
#[test]
fn outside_git_files_the_watcher_saw_made_are_known_to_have_been_absent() {
    let p = Project::new(false);
    let cps = p.open();
    cps.watch();
    assert_eq!(cps.checkpoint(1).expect("cp"), 0);
    let start = tree(&p.root);
    // A tool's write: a temporary file renamed over the target.
    cps.before_write("src/main.rs").expect("before write");
    write(&p.root, "src/.main.rs.tandem-1-0.tmp", "by a tool\n");
    std::fs::rename(
        p.root.join("src/.main.rs.tandem-1-0.tmp"),
        p.root.join("src/main.rs"),
    )
    .expect("rename");
    // A command: sed -i writes its own file and renames it over the one it edits.
    write(&p.root, "notes/sedAb12Cd", "one\nTWO\n");
    std::fs::rename(
        p.root.join("notes/sedAb12Cd"),
        p.root.join("notes/todo.txt"),
    )
    .expect("rename");
    write(&p.root, "made-by-a-command.txt", "new\n");
    assert_eq!(cps.checkpoint(2).expect("cp"), 1);
    let plan = cps.preview(0, None).expect("preview");
    assert_eq!(
        plan.not_restorable
            .iter()
            .map(|r| (r.path.as_str(), r.reason))
            .collect::<Vec<_>>(),
        [("notes/todo.txt", NotRestorableReason::OutsideGit)]
    );
    let mut writes: Vec<&str> = plan.writes.iter().map(|w| w.path.as_str()).collect();
    writes.sort();
    assert_eq!(writes, ["made-by-a-command.txt", "src/main.rs"]);
    cps.restore(0, None, 5, serde_json::Value::Null)
        .expect("restore");
    cps.finish().expect("finish");
    let now = tree(&p.root);
    assert_eq!(now.get("src/main.rs"), start.get("src/main.rs"));
    assert!(!now.contains_key("made-by-a-command.txt"));
}

/// A crash mid-write can leave a record cut inside a multi-byte character; the records after it
/// (written once the store was opened again) must still be read, and ids must not repeat.
#[test]
fn a_record_cut_inside_a_character_loses_only_itself() {
    let p = Project::new(true);
    {
        let cps = p.open();
        assert_eq!(cps.checkpoint(1).expect("cp"), 0);
        tool_write(&cps, &p.root, "src/main.rs", "fn main() { /* é */ }\n");
        assert_eq!(cps.checkpoint(2).expect("cp"), 1);
    }
    let records = p.store.path().join("records.jsonl");
    let mut bytes = std::fs::read(&records).expect("records");
    // A torn line: an unfinished record that ends halfway through "é" (0xC3 0xA9).
    bytes.extend_from_slice(b"{\"id\": 2, \"note\": \"caf\xC3");
    std::fs::write(&records, &bytes).expect("tear");
    {
        let cps = p.open();
        assert_eq!(cps.records().len(), 2);
        tool_write(&cps, &p.root, "README.md", "# Café\n");
        assert_eq!(cps.checkpoint(3).expect("cp"), 2);
    }
    let cps = p.open();
    let ids: Vec<u32> = cps.records().iter().map(|r| r.id).collect();
    assert_eq!(
        ids,
        vec![0, 1, 2],
        "every record after the torn one is read"
    );
    cps.restore(1, None, 4, serde_json::Value::Null)
        .expect("restore to 1");
    cps.finish().expect("finish");
    assert_eq!(
        std::fs::read_to_string(p.root.join("README.md")).expect("read"),
        "# Project\n"
    );
}

/// Issue 26: one file a command left unreadable made every checkpoint fail, so nothing the
/// agent did could be undone. It is skipped and named; the rest is kept and restored.
#[test]
fn an_unreadable_file_is_named_and_everything_else_still_restores() {
    use std::os::unix::fs::PermissionsExt as _;
    let p = Project::new(true);
    let cps = p.open();
    assert_eq!(cps.checkpoint(1).expect("cp"), 0);
    write(&p.root, "README.md", "# Changed by a command\n");
    write(&p.root, "locked.bin", "what only its owner may read\n");
    std::fs::set_permissions(
        p.root.join("locked.bin"),
        std::fs::Permissions::from_mode(0o000),
    )
    .expect("chmod");
    // Root reads anything: the rest runs on a thread without the capabilities that override
    // file permissions, as a user's process would.
    std::thread::scope(|s| {
        s.spawn(|| {
            use rustix::thread::{CapabilitySet, capabilities, set_capabilities};
            let mut sets = capabilities(None).expect("capget");
            sets.effective
                .remove(CapabilitySet::DAC_OVERRIDE | CapabilitySet::DAC_READ_SEARCH);
            set_capabilities(None, sets).expect("capset");
            assert_eq!(cps.checkpoint(2).expect("the checkpoint is made"), 1);
            let plan = cps.preview(0, None).expect("preview");
            assert!(
                plan.writes.iter().any(|w| w.path == "README.md"),
                "{:?}",
                plan.writes
            );
            assert!(
                plan.not_restorable
                    .iter()
                    .any(|r| r.path == "locked.bin" && r.reason == NotRestorableReason::Unreadable),
                "{:?}",
                plan.not_restorable
            );
            cps.restore(0, None, 3, serde_json::Value::Null)
                .expect("restore");
            cps.finish().expect("finish");
        });
    });
    assert_eq!(
        std::fs::read_to_string(p.root.join("README.md")).expect("read"),
        "# Project\n"
    );
    assert!(
        p.root.join("locked.bin").exists(),
        "an unknown file is left alone"
    );
}

/// Issue 26: files a command made with names that are not UTF-8 were not seen ("no file
/// changes"): restoring must remove the new one and bring back the one it changed, byte for
/// byte, whether the watcher saw them or the whole project was looked at.
fn names_that_are_not_utf8(watch: bool) {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt as _;
    let p = Project::new(true);
    let cps = p.open();
    if watch {
        cps.watch();
    }
    let made = p.root.join(OsStr::from_bytes(b"caf\xe9.txt"));
    let changed = p.root.join(OsStr::from_bytes(b"notes/r\xe9sum\xe9.txt"));
    std::fs::write(&changed, "before\n").expect("write");
    assert_eq!(cps.checkpoint(1).expect("cp"), 0);
    std::fs::write(&made, "made by a command\n").expect("write");
    std::fs::write(&changed, "after\n").expect("write");
    assert_eq!(cps.checkpoint(2).expect("cp"), 1);
    let plan = cps.preview(0, None).expect("preview");
    assert_eq!(
        plan.writes.len(),
        2,
        "both files are seen (watching: {watch}): {:?} / {:?}",
        plan.writes,
        plan.not_restorable
    );
    let restored = cps
        .restore(0, None, 3, serde_json::Value::Null)
        .expect("restore");
    cps.finish().expect("finish");
    assert!(!made.exists(), "the file the command made is removed");
    assert_eq!(std::fs::read(&changed).expect("read"), b"before\n");
    cps.restore(restored.undo, None, 4, serde_json::Value::Null)
        .expect("undo");
    cps.finish().expect("finish");
    assert_eq!(std::fs::read(&made).expect("read"), b"made by a command\n");
    assert_eq!(std::fs::read(&changed).expect("read"), b"after\n");
}

#[test]
fn names_that_are_not_utf8_are_restored_when_watched() {
    names_that_are_not_utf8(true);
}

#[test]
fn names_that_are_not_utf8_are_restored_without_the_watcher() {
    names_that_are_not_utf8(false);
}

/// Issue 26: a saved copy gone from the store was previewed as "modify … (not text)" and then
/// not restored. The preview names it as missing, as the restore does.
#[test]
fn a_missing_copy_is_named_in_the_preview() {
    let p = Project::new(false);
    let cps = p.open();
    assert_eq!(cps.checkpoint(1).expect("cp"), 0);
    tool_write(&cps, &p.root, "README.md", "# Changed\n");
    assert_eq!(cps.checkpoint(2).expect("cp"), 1);
    let oid = git2::Oid::hash_object(git2::ObjectType::Blob, b"# Project\n").expect("oid");
    let hex = oid.to_string();
    let blob = p
        .store
        .path()
        .join("objects.git/objects")
        .join(&hex[..2])
        .join(&hex[2..]);
    std::fs::remove_file(&blob).expect("the copy is in the store");
    let plan = cps.preview(0, None).expect("preview");
    assert!(plan.writes.is_empty(), "{:?}", plan.writes);
    assert!(
        plan.not_restorable
            .iter()
            .any(|r| r.path == "README.md" && r.reason == NotRestorableReason::CopyMissing),
        "{:?}",
        plan.not_restorable
    );
}

#[test]
fn a_files_text_at_the_last_checkpoint_is_the_ancestor_of_a_merge() {
    for git in [true, false] {
        let p = Project::new(git);
        let cps = p.open();
        cps.watch();
        assert_eq!(
            cps.text_at_last("notes/todo.txt"),
            None,
            "no checkpoint yet"
        );
        cps.checkpoint(1).expect("cp");
        // Changed by hand since the checkpoint: the ancestor is what the checkpoint holds
        // (outside git, a file nobody wrote since the session began was never kept).
        write(&p.root, "notes/todo.txt", "one\ntwo\nmine\n");
        assert_eq!(
            cps.text_at_last("notes/todo.txt").as_deref(),
            git.then_some("one\ntwo\n")
        );
        // Unchanged since: what it holds now.
        assert_eq!(
            cps.text_at_last("README.md").as_deref(),
            Some("# Project\n")
        );
        // Written by a tool since: what it held before that write.
        tool_write(&cps, &p.root, "src/main.rs", "fn main() { run() }\n");
        assert_eq!(
            cps.text_at_last("src/main.rs").as_deref(),
            Some("fn main() {}\n")
        );
        assert_eq!(cps.text_at_last("nowhere.txt"), None);
    }
}
