//! A git project with more untracked files than the session copies at its start: the first
//! checkpoint keeps their names and stamps, not their content, so its data stays a small part
//! of the project; what the agent changes is still brought back byte for byte, and what
//! changed another way is named, never deleted or guessed.

use checkpoints::Checkpoints;
use protocol::NotRestorableReason;
use std::path::{Path, PathBuf};
use test_support::projects::disk_bytes;

const UNTRACKED: usize = 2_500;

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    store: tempfile::TempDir,
}

fn project() -> Project {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    write(&root, "src/main.rs", "fn main() {}\n");
    let repo = git2::Repository::init(&root).expect("init");
    let mut index = repo.index().expect("index");
    index.add_path(Path::new("src/main.rs")).expect("add");
    let tree = repo
        .find_tree(index.write_tree().expect("tree"))
        .expect("tree");
    let sig = git2::Signature::now("t", "t@example.com").expect("sig");
    repo.commit(Some("HEAD"), &sig, &sig, "start", &tree, &[])
        .expect("commit");
    for i in 0..UNTRACKED {
        write(
            &root,
            &format!("data/d{:02}/f{:03}.txt", i / 100, i % 100),
            &format!("record {i}\n"),
        );
    }
    write(&root, "notes.md", "the person's notes\n");
    Project {
        _dir: dir,
        root,
        store: tempfile::tempdir().expect("store"),
    }
}

fn open(p: &Project) -> Checkpoints {
    let (cps, recovered) = Checkpoints::open(p.store.path(), &p.root).expect("open");
    assert!(recovered.is_none());
    cps
}

fn not_restorable(cps: &Checkpoints, target: u32) -> Vec<(String, NotRestorableReason)> {
    let mut out: Vec<_> = cps
        .preview(target, None)
        .expect("preview")
        .not_restorable
        .into_iter()
        .map(|n| (n.path, n.reason))
        .collect();
    out.sort();
    out
}

fn check(watch: bool) {
    let p = project();
    let cps = open(&p);
    if watch {
        cps.watch();
    }
    assert_eq!(cps.checkpoint(1).expect("base"), 0);
    let data = disk_bytes(p.store.path());
    let size = disk_bytes(&p.root);
    assert!(
        data * 10 < size,
        "the first checkpoint took {data} bytes for a project of {size}"
    );

    // The agent's tool edits one; a command's landing removes one (each kept first, as the
    // engine does); the person edits one and removes one; a new file appears.
    cps.before_write("notes.md").expect("keep");
    write(&p.root, "notes.md", "the agent's notes\n");
    cps.before_write("data/d02/f002.txt").expect("keep");
    std::fs::remove_file(p.root.join("data/d02/f002.txt")).expect("rm");
    write(&p.root, "data/d00/f000.txt", "the person's edit\n");
    std::fs::remove_file(p.root.join("data/d01/f001.txt")).expect("rm");
    write(&p.root, "out.txt", "made by a command\n");
    assert_eq!(cps.checkpoint(10).expect("cp"), 1);
    let changed: Vec<String> = cps.records()[1]
        .changes
        .iter()
        .map(|c| c.path.clone())
        .collect();
    assert_eq!(
        changed,
        [
            "data/d00/f000.txt",
            "data/d01/f001.txt",
            "data/d02/f002.txt",
            "notes.md",
            "out.txt"
        ],
        "only what changed is a change, with or without the watcher"
    );

    let expected_unknown = vec![
        (
            "data/d00/f000.txt".to_string(),
            NotRestorableReason::NotCopied,
        ),
        (
            "data/d01/f001.txt".to_string(),
            NotRestorableReason::NotCopied,
        ),
    ];
    assert_eq!(not_restorable(&cps, 0), expected_unknown);
    // The list of files not copied is read back by the next process.
    drop(cps);
    let cps = open(&p);
    assert_eq!(not_restorable(&cps, 0), expected_unknown);

    cps.restore(0, None, 20, serde_json::Value::Null)
        .expect("restore");
    let read = |rel: &str| std::fs::read_to_string(p.root.join(rel)).ok();
    assert_eq!(read("notes.md").as_deref(), Some("the person's notes\n"));
    assert_eq!(read("data/d02/f002.txt").as_deref(), Some("record 202\n"));
    assert_eq!(read("out.txt"), None, "a file made since is removed");
    // What could not come back is left as it is, never deleted.
    assert_eq!(
        read("data/d00/f000.txt").as_deref(),
        Some("the person's edit\n")
    );
    assert_eq!(read("data/d03/f003.txt").as_deref(), Some("record 303\n"));
}

#[test]
fn many_untracked_files_are_not_copied_and_what_the_agent_changes_comes_back_when_watched() {
    check(true);
}

#[test]
fn many_untracked_files_are_not_copied_and_what_the_agent_changes_comes_back_unwatched() {
    check(false);
}

/// A damaged list of the files not copied: a file git did not track may have been one, so a
/// restore leaves such files as they are rather than deleting them.
#[test]
fn a_damaged_list_of_uncopied_files_never_deletes_an_untracked_file() {
    let p = project();
    let cps = open(&p);
    assert_eq!(cps.checkpoint(1).expect("base"), 0);
    drop(cps);
    let list = p.store.path().join("start-uncopied.jsonl");
    let text = std::fs::read(&list).expect("the list");
    std::fs::write(&list, &text[..text.len() / 2]).expect("cut");
    let cps = open(&p);
    write(&p.root, "data/d00/f000.txt", "the person's edit\n");
    let plan = cps.preview(0, None).expect("preview");
    assert!(
        plan.not_restorable
            .iter()
            .any(|n| n.path == "data/d00/f000.txt" && n.reason == NotRestorableReason::NotCopied)
    );
    assert!(
        plan.writes.iter().all(|w| !w.path.starts_with("data/")),
        "no untracked file is written or deleted"
    );
    cps.restore(0, None, 20, serde_json::Value::Null)
        .expect("restore");
    assert_eq!(
        std::fs::read_dir(p.root.join("data"))
            .expect("data")
            .flatten()
            .map(|d| std::fs::read_dir(d.path()).expect("d").count())
            .sum::<usize>(),
        UNTRACKED
    );
}
