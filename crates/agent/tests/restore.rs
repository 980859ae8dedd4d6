//! Undo against the scripted model server: a session's project comes back to how it was when
//! each turn began — what the tools wrote and, in a git repository, what commands changed — a
//! restore is itself undone, the conversation goes back with it (and the model hears it so),
//! outside git a command's change is named as not restorable, and the user's `.git` is never
//! written.

use agent_harness as harness;

use harness::{Harness, Setup, scenario};
use policy::Mode;
use protocol::{
    AgentEvent, ApprovalAnswer, NotRestorableReason, RestoreAction, RestoreScope, RestoreTarget,
    TurnOutcome,
};
use std::collections::BTreeMap;
use std::path::Path;

type Tree = BTreeMap<String, Vec<u8>>;

/// Every file under `root` but `.git`, with its bytes; folders as `name/`.
fn tree(root: &Path) -> Tree {
    let mut out = BTreeMap::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
            let p = e.path();
            let rel = p.strip_prefix(root).expect("inside").display().to_string();
            // The user's repository is compared on its own; build output git ignores is
            // never restored (the preview says so).
            if rel == ".git" || rel == "build" {
                continue;
            }
            if p.is_dir() {
                out.insert(format!("{rel}/"), Vec::new());
                dirs.push(p);
            } else {
                out.insert(rel, std::fs::read(&p).expect("read"));
            }
        }
    }
    out
}

fn project(git: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let w = |rel: &str, text: &str| std::fs::write(dir.path().join(rel), text).expect("write");
    w("greeting.txt", "hi\n");
    w("calc.py", "def add(a, b):\n    return a + b\n");
    w("list.txt", "one\ntwo\n");
    w(".gitignore", "build/\n");
    if git {
        let mut repo = git2::Repository::init(dir.path()).expect("init");
        let mut index = repo.index().expect("index");
        index
            .add_all(["*"].iter(), git2::IndexAddOption::DEFAULT, None)
            .expect("add");
        index.write().expect("index");
        let sig = git2::Signature::now("T", "t@example.com").expect("sig");
        {
            let tree = repo
                .find_tree(index.write_tree().expect("tree"))
                .expect("tree");
            repo.commit(Some("HEAD"), &sig, &sig, "init", &tree, &[])
                .expect("commit");
        }
        // Work of the user's own, stashed: the stash must come out of the session as it went in.
        w("calc.py", "def add(a, b):\n    return a + b  # stashed\n");
        repo.stash_save(&sig, "mine", None).expect("stash");
    }
    dir
}

fn checkpoints_of_turns(events: &[AgentEvent]) -> Vec<u32> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::UserMessage { checkpoint, .. } => Some(checkpoint.expect("a checkpoint")),
            _ => None,
        })
        .collect()
}

fn request(id: u32, scope: RestoreScope) -> agent::RestoreRequest {
    agent::RestoreRequest {
        target: RestoreTarget::Checkpoint { id },
        scope,
        paths: None,
    }
}

fn user_texts(h: &Harness) -> Vec<String> {
    agent::load_transcript(&h.log_path(), None)
        .expect("transcript")
        .events
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::UserMessage { text, .. } => Some(text),
            _ => None,
        })
        .collect()
}

/// The text of the last request the model got.
fn last_request(h: &Harness) -> String {
    h.server
        .requests()
        .last()
        .map(|r| r.body.to_string())
        .unwrap_or_default()
}

#[tokio::test]
async fn every_turn_comes_back_the_restore_is_undone_and_the_conversation_follows() {
    let p = project(true);
    let root = p.path().canonicalize().expect("canonical");
    let git_before = test_support::projects::git_dir(&root);
    let h = Harness::start(
        scenario("agent_restore_three_turns.json"),
        p.path(),
        Setup::new(Mode::AutoEdit),
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let mut trees = vec![tree(&root)];
    for task in ["Turn one: write and edit", "Turn two: commands"] {
        assert!(matches!(h.run(task).await, TurnOutcome::Done { .. }));
        trees.push(tree(&root));
    }
    assert!(matches!(
        h.run("Turn three: more edits").await,
        TurnOutcome::Done { .. }
    ));
    let last = tree(&root);
    assert!(!root.join("calc.py").exists() && !root.join("list.txt").exists());
    let turns = checkpoints_of_turns(&h.events());
    assert_eq!(turns.len(), 3);

    // Files only, to each turn's start: the tree as it was then, byte for byte; then undone.
    for (n, want) in trees.iter().enumerate().rev() {
        let preview = h
            .session
            .preview_restore(request(turns[n], RestoreScope::FilesOnly))
            .await
            .expect("preview");
        assert_eq!(preview.turn, Some(n as u32 + 1));
        assert!(preview.git && !preview.files.is_empty());
        // Turn two's command wrote build output: the restores to before it say it stays.
        let ignored = preview
            .not_restorable
            .iter()
            .any(|f| f.path.starts_with("build") && f.reason == NotRestorableReason::GitIgnored);
        assert_eq!(ignored, n < 2, "{:?}", preview.not_restorable);
        if n == 0 {
            let action = |path: &str| {
                preview
                    .files
                    .iter()
                    .find(|f| f.path == path)
                    .map(|f| f.action)
            };
            assert_eq!(action("calc.py"), Some(RestoreAction::Create));
            assert_eq!(action("generated.txt"), Some(RestoreAction::Delete));
            assert_eq!(action("greeting.txt"), Some(RestoreAction::Modify));
            let g = preview
                .files
                .iter()
                .find(|f| f.path == "greeting.txt")
                .expect("greeting");
            assert_eq!(
                (g.current.as_deref(), g.restored.as_deref()),
                (Some("hi world\n"), Some("hi\n"))
            );
        }
        let record = h
            .session
            .restore(request(turns[n], RestoreScope::FilesOnly))
            .await
            .expect("restore");
        assert_eq!(tree(&root), *want, "files restored to turn {}", n + 1);
        assert_eq!(record.files.len(), preview.files.len());
        // The window names the turn by the words that began it (it numbers no turns).
        let words = [
            "Turn one: write and edit",
            "Turn two: commands",
            "Turn three: more edits",
        ];
        assert_eq!(record.turn_words.as_deref(), Some(words[n]));
        h.session
            .restore(request(record.undo_checkpoint, RestoreScope::FilesOnly))
            .await
            .expect("undo");
        assert_eq!(tree(&root), last, "the restore to turn {} undone", n + 1);
    }

    // Files and conversation, to turn 2: the later turns leave the transcript; undone, they
    // are back.
    let both = h
        .session
        .restore(request(turns[1], RestoreScope::Both))
        .await
        .expect("restore");
    assert_eq!(both.turns_removed, 2);
    assert_eq!(tree(&root), trees[1]);
    assert_eq!(user_texts(&h), ["Turn one: write and edit"]);
    h.session
        .restore(request(both.undo_checkpoint, RestoreScope::Both))
        .await
        .expect("undo");
    assert_eq!(tree(&root), last);
    assert_eq!(
        user_texts(&h),
        [
            "Turn one: write and edit",
            "Turn two: commands",
            "Turn three: more edits"
        ]
    );

    // Again, and the model goes on from the restored conversation.
    h.session
        .restore(request(turns[1], RestoreScope::Both))
        .await
        .expect("restore");
    h.run("Turn four, after the restore").await;
    let sent = last_request(&h);
    assert!(
        sent.contains("Turn one") && !sent.contains("Turn two") && !sent.contains("Turn three"),
        "{sent}"
    );
    // Files only: the conversation goes on, and the model is told the files went back.
    let fourth = *checkpoints_of_turns(&h.events()).last().expect("turn four");
    h.session
        .restore(request(fourth, RestoreScope::FilesOnly))
        .await
        .expect("restore");
    h.run("Turn five, files only").await;
    assert_eq!(
        test_support::projects::git_dir(&root),
        git_before,
        "the user's .git was written"
    );
}

#[tokio::test]
async fn outside_git_a_commands_change_is_named_as_not_restorable() {
    let p = project(false);
    let root = p.path().canonicalize().expect("canonical");
    let h = Harness::start(
        scenario("agent_restore_outside_git.json"),
        p.path(),
        Setup::new(Mode::AutoEdit),
        |_| ApprovalAnswer::Approve,
    )
    .await;
    h.run("Add a file and append a line").await;
    let turn = checkpoints_of_turns(&h.events())[0];
    let preview = h
        .session
        .preview_restore(request(turn, RestoreScope::FilesOnly))
        .await
        .expect("preview");
    assert!(!preview.git);
    assert_eq!(
        preview
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.action))
            .collect::<Vec<_>>(),
        [("added.txt", RestoreAction::Delete)]
    );
    assert_eq!(
        preview
            .not_restorable
            .iter()
            .map(|n| (n.path.as_str(), n.reason))
            .collect::<Vec<_>>(),
        [("greeting.txt", NotRestorableReason::OutsideGit)]
    );
    let record = h
        .session
        .restore(request(turn, RestoreScope::FilesOnly))
        .await
        .expect("restore");
    assert_eq!(record.not_restorable, preview.not_restorable);
    assert!(!root.join("added.txt").exists());
    assert_eq!(
        std::fs::read_to_string(root.join("greeting.txt")).expect("read"),
        "hi\nappended\n"
    );
}

/// A crash after a restore wrote the files but before the session's log had it: when the
/// session opens again the restore is finished — the transcript shows it, the conversation
/// goes back as asked, and the journal is gone.
#[tokio::test]
async fn a_restore_a_crash_cut_short_is_finished_when_the_session_opens_again() {
    let p = project(true);
    let root = p.path().canonicalize().expect("canonical");
    let sessions = tempfile::tempdir().expect("tempdir");
    let mut setup = Setup::new(Mode::AutoEdit);
    setup.sessions_dir = Some(sessions.path().to_path_buf());
    let h = Harness::start(
        scenario("agent_restore_three_turns.json"),
        p.path(),
        setup,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    h.run("Turn one: write and edit").await;
    let at_two = tree(&root);
    h.run("Turn two: commands").await;
    // The script's third turn is another test's: here the app dies after the second.
    assert_eq!(
        h.server.failures(),
        ["the script has 9 turns but only 5 requests came"]
    );
    let turns = checkpoints_of_turns(&h.events());
    let id = h.session.id().to_string();
    let log = h.log_path();
    drop(h);

    // The files' part of a restore to turn 2 (files and conversation), as the engine does it,
    // with what the log part needs in the journal; then the process dies.
    let dir = agent::checkpoints_dir(&sessions.path().join(&id));
    let (cps, unfinished) = checkpoints::Checkpoints::open(&dir, &root).expect("open");
    assert!(unfinished.is_none());
    let next_seq = agent::read_session::<serde_json::Value>(&log)
        .expect("log")
        .entries
        .last()
        .map_or(0, |e| e.seq + 1);
    let pending = serde_json::json!({
        "scope": "both",
        "checkpoint": turns[1],
        "turn": 2,
        "to_seq": cps.log_seq(turns[1]).expect("its position"),
        "turns_removed": 1,
        "note": null,
    });
    cps.restore(turns[1], None, next_seq, pending)
        .expect("restore");
    drop(cps);
    assert_eq!(tree(&root), at_two);
    assert!(dir.join("restore-journal.json").exists());

    let mut setup = Setup::new(Mode::AutoEdit);
    setup.sessions_dir = Some(sessions.path().to_path_buf());
    setup.resume = Some(id);
    let h = Harness::start(
        model_server::Scenario::from_json(
            r#"{"name": "nothing asked", "format": "anthropic", "turns": []}"#,
        )
        .expect("scenario"),
        p.path(),
        setup,
        |_| ApprovalAnswer::Approve,
    )
    .await;
    assert_eq!(user_texts(&h), ["Turn one: write and edit"]);
    let restored: Vec<_> = agent::load_transcript(&h.log_path(), None)
        .expect("transcript")
        .events
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::Restored { record } => Some(record),
            _ => None,
        })
        .collect();
    assert_eq!(restored.len(), 1);
    assert_eq!(
        (
            restored[0].turn,
            restored[0].scope,
            restored[0].turns_removed
        ),
        (Some(2), RestoreScope::Both, 1)
    );
    assert!(!dir.join("restore-journal.json").exists());
    assert_eq!(tree(&root), at_two);
}

/// A restore's preview listed a cache file Python wrote (`__pycache__/…pyc`: "removed", "not
/// text") first, selected, before the file the person cares about: it is flagged as generated
/// and comes after the person's own files.
#[tokio::test]
async fn a_restore_preview_lists_the_persons_files_before_generated_ones() {
    let p = project(true);
    let h = Harness::start(
        scenario("agent_restore_generated_last.json"),
        p.path(),
        Setup::new(Mode::FullAuto),
        |_| ApprovalAnswer::Approve,
    )
    .await;
    assert!(matches!(
        h.run("Fix calc.py and check it compiles").await,
        TurnOutcome::Done { .. }
    ));
    let turns = checkpoints_of_turns(&h.events());
    let preview = h
        .session
        .preview_restore(request(turns[0], RestoreScope::FilesOnly))
        .await
        .expect("preview");
    let files: Vec<(&str, bool)> = preview
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.generated))
        .collect();
    assert_eq!(files.first(), Some(&("calc.py", false)), "{files:?}");
    let cache = preview
        .files
        .iter()
        .find(|f| f.path.starts_with("__pycache__/"))
        .expect("the cache file Python wrote");
    assert!(cache.generated && cache.action == RestoreAction::Delete);
    // The person's files, then the generated ones.
    assert!(
        files.windows(2).all(|w| w[0].1 <= w[1].1),
        "generated files come last: {files:?}"
    );
}

/// Issue 47: the restore preview did not say which changes were the person's own. A file the
/// person changed after the agent's turn is marked as not the agent's; the agent's edit and
/// what its command made are not.
#[tokio::test]
async fn a_restore_preview_marks_the_changes_the_agent_did_not_make() {
    let p = project(true);
    let h = Harness::start(
        scenario("agent_restore_generated_last.json"),
        p.path(),
        Setup::new(Mode::FullAuto),
        |_| ApprovalAnswer::Approve,
    )
    .await;
    assert!(matches!(
        h.run("Fix calc.py and check it compiles").await,
        TurnOutcome::Done { .. }
    ));
    std::fs::write(p.path().join("mine.txt"), "the person's own\n").expect("write");
    // Issue 46: and a line of theirs on top of the agent's edit, a moment later.
    std::thread::sleep(std::time::Duration::from_millis(2200));
    let calc = std::fs::read_to_string(p.path().join("calc.py")).expect("calc");
    std::fs::write(p.path().join("calc.py"), format!("{calc}# mine\n")).expect("write");
    let turns = checkpoints_of_turns(&h.events());
    let preview = h
        .session
        .preview_restore(request(turns[0], RestoreScope::FilesOnly))
        .await
        .expect("preview");
    let whose: Vec<(&str, bool)> = preview
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.not_by_agent))
        .collect();
    assert!(whose.contains(&("mine.txt", true)), "{whose:?}");
    assert!(whose.contains(&("calc.py", false)), "{whose:?}");
    let after: Vec<(&str, bool)> = preview
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.changed_after_agent))
        .collect();
    assert!(
        after.contains(&("calc.py", true)),
        "the person's line on top: {after:?}"
    );
    assert!(after.contains(&("mine.txt", false)), "{after:?}");
    assert!(
        whose
            .iter()
            .filter(|(p, _)| p.starts_with("__pycache__/"))
            .all(|(_, mine)| !mine),
        "what the agent's command made is the agent's: {whose:?}"
    );
}
