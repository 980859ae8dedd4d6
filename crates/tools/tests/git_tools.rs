//! The git tools on real repositories.

use std::fs;
use tools::{BranchAction, GitBranchArgs, GitCommitArgs, GitDiffArgs, GitLogArgs, ProjectRoot};

fn repo() -> (tempfile::TempDir, ProjectRoot) {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = git2::Repository::init(dir.path()).expect("init");
    let mut cfg = repo.config().expect("config");
    cfg.set_str("user.name", "Test").expect("name");
    cfg.set_str("user.email", "test@example.com")
        .expect("email");
    fs::write(dir.path().join("a.txt"), "one\ntwo\n").expect("write");
    let root = ProjectRoot::open(dir.path()).expect("open");
    (dir, root)
}

fn commit(root: &ProjectRoot, msg: &str) -> Result<tools::CommitResult, tools::ToolError> {
    tools::git_commit(
        root,
        &GitCommitArgs {
            message: msg.into(),
            files: None,
            force: false,
        },
    )
}

fn branch(
    root: &ProjectRoot,
    action: BranchAction,
    name: Option<&str>,
) -> Result<String, tools::ToolError> {
    tools::git_branch(
        root,
        &GitBranchArgs {
            action,
            name: name.map(str::to_string),
        },
    )
}

#[test]
fn commit_log_and_diff() {
    let (d, root) = repo();
    assert_eq!(
        tools::git_log(
            &root,
            &GitLogArgs {
                count: None,
                oneline: None
            }
        )
        .expect("log"),
        "No commits yet.\n"
    );
    let c = commit(&root, "first commit").expect("commit");
    assert_eq!((c.files_changed, c.insertions), (1, 2));
    let text = tools::render_commit(&c, "first commit");
    assert!(
        text.contains("first commit") && text.contains("1 file(s) changed"),
        "{text}"
    );
    let err = commit(&root, "again").expect_err("nothing");
    assert!(err.to_string().contains("nothing to commit"), "{err}");
    assert!(
        commit(&root, "  ")
            .expect_err("empty message")
            .to_string()
            .contains("message is empty")
    );

    fs::write(d.path().join("a.txt"), "one\n2\n").expect("edit");
    let diff = tools::git_diff(&root, &GitDiffArgs { staged: false }).expect("diff");
    assert!(diff.contains("-two\n+2\n"), "{diff}");
    assert_eq!(
        tools::git_diff(&root, &GitDiffArgs { staged: true }).expect("staged"),
        "No staged changes.\n"
    );
    fs::write(d.path().join("new.txt"), "n\n").expect("write");
    tools::git_commit(
        &root,
        &GitCommitArgs {
            message: "only new".into(),
            files: Some(vec!["new.txt".into()]),
            force: false,
        },
    )
    .expect("commit one");
    let log = tools::git_log(
        &root,
        &GitLogArgs {
            count: Some(5),
            oneline: Some(true),
        },
    )
    .expect("log");
    let subjects: Vec<&str> = log.lines().map(|l| &l[8..]).collect();
    assert_eq!(subjects, ["only new", "first commit"]);
    // a.txt was not in `files`: still modified.
    assert!(
        tools::git_diff(&root, &GitDiffArgs { staged: false })
            .expect("diff")
            .contains("+2")
    );
    let full = tools::git_log(
        &root,
        &GitLogArgs {
            count: Some(1),
            oneline: Some(false),
        },
    )
    .expect("log");
    assert!(
        full.starts_with("commit ") && full.contains("Author: Test <test@example.com>"),
        "{full}"
    );
}

fn commit_files(
    root: &ProjectRoot,
    files: &[&str],
    force: bool,
) -> Result<tools::CommitResult, tools::ToolError> {
    tools::git_commit(
        root,
        &GitCommitArgs {
            message: "some files".into(),
            files: Some(files.iter().map(|f| f.to_string()).collect()),
            force,
        },
    )
}

/// `files` commits exactly those files: what else is staged stays staged and uncommitted,
/// an ignored file needs `force`, and a name that is not there is named.
#[test]
fn commit_of_named_files_commits_those_and_nothing_else() {
    let (d, root) = repo();
    fs::write(d.path().join(".gitignore"), "*.log\n").expect("write");
    commit(&root, "first").expect("commit");
    let git = git2::Repository::open(d.path()).expect("open");
    fs::write(d.path().join("staged.txt"), "staged\n").expect("write");
    let mut index = git.index().expect("index");
    index
        .add_path(std::path::Path::new("staged.txt"))
        .expect("stage");
    index.write().expect("write index");
    fs::write(d.path().join("a.txt"), "one\nTWO\n").expect("edit");

    let c = commit_files(&root, &["a.txt"], false).expect("commit a.txt");
    assert_eq!(c.files_changed, 1);
    let head = git.head().expect("head").peel_to_tree().expect("tree");
    assert!(
        head.get_path(std::path::Path::new("staged.txt")).is_err(),
        "staged.txt came along"
    );
    let statuses = git.statuses(None).expect("status");
    let staged = statuses
        .iter()
        .find(|s| s.path().ok() == Some("staged.txt"))
        .expect("staged.txt listed");
    assert!(staged.status().is_index_new(), "staged.txt is still staged");
    assert!(
        statuses.iter().all(|s| s.path().ok() != Some("a.txt")),
        "a.txt is committed and clean"
    );

    fs::write(d.path().join("debug.log"), "log\n").expect("write");
    let err = commit_files(&root, &["debug.log"], false).expect_err("ignored");
    assert!(err.to_string().contains("ignored by git"), "{err}");
    commit_files(&root, &["debug.log"], true).expect("forced");

    let err = commit_files(&root, &["nope.txt"], false).expect_err("missing");
    assert!(err.to_string().contains("nope.txt"), "{err}");
    assert!(
        !err.to_string().contains("nothing to commit: the files"),
        "{err}"
    );

    // A deletion of a tracked file is committed too.
    fs::remove_file(d.path().join("a.txt")).expect("rm");
    commit_files(&root, &["a.txt"], false).expect("commit deletion");
    let head = git.head().expect("head").peel_to_tree().expect("tree");
    assert!(head.get_path(std::path::Path::new("a.txt")).is_err());
}

#[test]
fn branches_create_list_and_switch_safely() {
    let (d, root) = repo();
    commit(&root, "init").expect("commit");
    let main = branch(&root, BranchAction::List, None).expect("list");
    let current = main.trim_start_matches("* ").trim().to_string();
    branch(&root, BranchAction::Create, Some("feature")).expect("create");
    assert!(
        branch(&root, BranchAction::Create, Some("feature"))
            .expect_err("dup")
            .to_string()
            .contains("already exists")
    );
    assert!(
        branch(&root, BranchAction::Create, None)
            .expect_err("no name")
            .to_string()
            .contains("`name` is required")
    );
    let list = branch(&root, BranchAction::List, None).expect("list");
    assert!(
        list.contains("  feature\n") && list.contains(&format!("* {current}\n")),
        "{list}"
    );

    fs::write(d.path().join("a.txt"), "dirty\n").expect("dirty");
    let err = branch(&root, BranchAction::Switch, Some("feature")).expect_err("dirty");
    assert!(
        err.to_string().contains("uncommitted changes (a.txt)"),
        "{err}"
    );
    commit(&root, "dirty").expect("commit");
    branch(&root, BranchAction::Switch, Some("feature")).expect("switch");
    assert_eq!(
        fs::read_to_string(d.path().join("a.txt")).expect("read"),
        "one\ntwo\n",
        "checked out feature's files"
    );
    assert!(
        branch(&root, BranchAction::Switch, Some("nope"))
            .expect_err("missing")
            .to_string()
            .contains("the branches are")
    );

    // A file only `feature` has, lying untracked here: named, not a raw libgit2 conflict.
    fs::write(d.path().join("extra.txt"), "feature's\n").expect("write");
    commit(&root, "extra on feature").expect("commit");
    branch(&root, BranchAction::Switch, Some(&current)).expect("back");
    assert!(!d.path().join("extra.txt").exists());
    fs::write(d.path().join("extra.txt"), "mine, untracked\n").expect("write");
    let err = branch(&root, BranchAction::Switch, Some("feature")).expect_err("in the way");
    assert!(
        err.to_string()
            .contains("would overwrite files that are not committed here (extra.txt)"),
        "{err}"
    );
    assert_eq!(
        fs::read_to_string(d.path().join("extra.txt")).expect("read"),
        "mine, untracked\n"
    );
}

#[test]
fn outside_a_repository_the_error_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = ProjectRoot::open(dir.path()).expect("open");
    let err = tools::git_diff(&root, &GitDiffArgs::default()).expect_err("no repo");
    assert!(
        err.to_string().contains("not inside a git repository"),
        "{err}"
    );
}

/// The change thresholds count lines since the user last committed: a commit made outside the
/// agent's actions (here the functions called directly, as by the user's own git) lets a long
/// session edit again; the session's own total keeps growing. The agent's own commits are in
/// toolbox.rs.
#[test]
fn a_commit_outside_the_agents_actions_resets_what_the_change_limit_counts() {
    let (d, root) = repo();
    commit(&root, "first").expect("commit");
    let ws = tools::Workspace::new(root.clone());
    let write = |path: &str, content: &str| {
        tools::write_file(
            &ws,
            &tools::WriteFileArgs {
                path: path.into(),
                content: content.into(),
            },
        )
        .expect("write")
    };
    write("b.txt", "1\n2\n3\n");
    assert_eq!(ws.uncommitted_totals().changed(), 3);
    commit(&root, "b").expect("commit");
    assert_eq!(ws.uncommitted_totals().changed(), 0, "a commit makes room");
    write("c.txt", "x\n");
    assert_eq!(ws.uncommitted_totals().changed(), 1);
    assert_eq!(
        ws.diff_totals().changed(),
        4,
        "the session's total keeps counting"
    );
    // A commit made outside the tools counts the same.
    let git = git2::Repository::open(d.path()).expect("open");
    let mut index = git.index().expect("index");
    index.add_path(std::path::Path::new("c.txt")).expect("add");
    index.write().expect("write");
    let tree = git
        .find_tree(index.write_tree().expect("tree"))
        .expect("tree");
    let sig = git.signature().expect("sig");
    let parent = git.head().expect("head").peel_to_commit().expect("commit");
    git.commit(Some("HEAD"), &sig, &sig, "outside", &tree, &[&parent])
        .expect("commit");
    assert_eq!(ws.uncommitted_totals().changed(), 0);
}

/// Secrets are what `hiding_secrets` names (the engine hands in the policy's judgement).
fn env_files(path: &std::path::Path) -> bool {
    path.file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with(".env"))
}

/// git_diff names a secret file but never shows its lines, staged or not; other files' changes
/// show as ever. The model read `.env`'s new and old values in the diff before, in every mode.
#[test]
fn git_diff_hides_the_contents_of_secret_files() {
    let (d, root) = repo();
    fs::write(d.path().join(".env"), "TOKEN=old-secret\n").expect("write");
    commit(&root, "first").expect("commit");
    let root = root.hiding_secrets(env_files);
    fs::write(d.path().join(".env"), "TOKEN=new-secret\n").expect("write");
    fs::write(d.path().join("a.txt"), "one\nTWO\n").expect("write");
    let unstaged = tools::git_diff(&root, &GitDiffArgs { staged: false }).expect("diff");
    assert!(
        !unstaged.contains("secret"),
        "a secret's lines are shown: {unstaged}"
    );
    assert!(
        unstaged.contains("diff --git a/.env b/.env\n(contents hidden: protected file)\n"),
        "{unstaged}"
    );
    assert!(unstaged.contains("-two\n+TWO\n"), "{unstaged}");

    let repo = git2::Repository::open(d.path()).expect("open");
    let mut index = repo.index().expect("index");
    index.add_path(std::path::Path::new(".env")).expect("add");
    index.write().expect("write");
    let staged = tools::git_diff(&root, &GitDiffArgs { staged: true }).expect("diff");
    assert!(!staged.contains("secret"), "{staged}");
    assert!(
        staged.contains("(contents hidden: protected file)"),
        "{staged}"
    );
}

/// What a commit would record, for judging it before it runs: the files named, or every
/// change (new files too, ignored ones not).
#[test]
fn the_files_a_commit_would_record_are_known_before_it_runs() {
    let (d, root) = repo();
    fs::write(d.path().join(".gitignore"), "ignored.txt\n").expect("write");
    commit(&root, "first").expect("commit");
    fs::write(d.path().join("a.txt"), "changed\n").expect("write");
    fs::create_dir(d.path().join("sub")).expect("mkdir");
    fs::write(d.path().join("sub/.env"), "TOKEN=1\n").expect("write");
    fs::write(d.path().join("ignored.txt"), "x\n").expect("write");
    let rel = |files: Vec<std::path::PathBuf>| -> Vec<String> {
        let mut v: Vec<String> = files
            .iter()
            .map(|f| {
                f.strip_prefix(root.path())
                    .expect("inside")
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        v.sort();
        v
    };
    let all = tools::commit_files(
        &root,
        &GitCommitArgs {
            message: "m".into(),
            files: None,
            force: false,
        },
    )
    .expect("files");
    assert_eq!(rel(all), ["a.txt", "sub/.env"]);
    let named = tools::commit_files(
        &root,
        &GitCommitArgs {
            message: "m".into(),
            files: Some(vec!["./a.txt".into()]),
            force: false,
        },
    )
    .expect("files");
    assert_eq!(rel(named), ["a.txt"]);
}
