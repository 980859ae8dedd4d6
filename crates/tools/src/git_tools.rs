//! git_diff, git_log, git_commit and git_branch through git2 (no git CLI). create_pull_request,
//! which runs git and the GitHub CLI, is in `pull_request`.

use crate::error::{ToolError, ToolResult};
use crate::paths::ProjectRoot;
use git2::{
    BranchType, DiffFormat, DiffOptions, IndexAddOption, Repository, Status, StatusOptions,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn open_repo(root: &ProjectRoot) -> ToolResult<Repository> {
    Repository::discover(root.path()).map_err(|e| {
        if e.code() == git2::ErrorCode::NotFound {
            ToolError::InvalidArgument(
                "the project is not inside a git repository; git tools need one (run `git init` with run_command to start one)".into(),
            )
        } else {
            ToolError::Git(e)
        }
    })
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GitDiffArgs {
    /// The staged changes (index vs HEAD) instead of the unstaged ones.
    #[serde(default)]
    pub staged: bool,
}

pub fn git_diff(root: &ProjectRoot, args: &GitDiffArgs) -> ToolResult<String> {
    let repo = open_repo(root)?;
    let mut opts = DiffOptions::new();
    opts.context_lines(3);
    let diff = if args.staged {
        let head = repo.head().ok().and_then(|h| h.peel_to_tree().ok());
        repo.diff_tree_to_index(head.as_ref(), None, Some(&mut opts))?
    } else {
        repo.diff_index_to_workdir(None, Some(&mut opts))?
    };
    let workdir = repo.workdir().map(Path::to_path_buf).unwrap_or_default();
    // A secret's lines are the secret: its file is named, its contents never shown (the model
    // could not read it with read_file either).
    let secret = |delta: &git2::DiffDelta<'_>| {
        [delta.old_file().path(), delta.new_file().path()]
            .into_iter()
            .flatten()
            .any(|p| root.is_secret(&workdir.join(p)))
    };
    let mut out = String::new();
    diff.print(DiffFormat::Patch, |delta, _, line| {
        if secret(&delta) {
            if line.origin() == 'F' {
                let shown = |f: git2::DiffFile<'_>| {
                    f.path().map(crate::paths::to_slash).unwrap_or_default()
                };
                let _ = writeln!(
                    out,
                    "diff --git a/{} b/{}\n(contents hidden: protected file)",
                    shown(delta.old_file()),
                    shown(delta.new_file())
                );
            }
            return true;
        }
        let content = String::from_utf8_lossy(line.content());
        match line.origin() {
            '+' | '-' | ' ' => {
                out.push(line.origin());
                out.push_str(&content);
            }
            _ => out.push_str(&content),
        }
        true
    })?;
    if out.is_empty() {
        out = if args.staged {
            "No staged changes.\n".into()
        } else {
            "No unstaged changes to tracked files (untracked files are listed by git_status).\n"
                .into()
        };
    }
    Ok(out)
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GitLogArgs {
    /// How many commits, newest first. Default 10.
    #[serde(default)]
    pub count: Option<u32>,
    /// One line per commit. Default true.
    #[serde(default)]
    pub oneline: Option<bool>,
}

pub fn git_log(root: &ProjectRoot, args: &GitLogArgs) -> ToolResult<String> {
    let repo = open_repo(root)?;
    let count = args.count.unwrap_or(10);
    if count == 0 {
        return Err(ToolError::InvalidArgument(
            "count must be at least 1".into(),
        ));
    }
    let mut walk = repo.revwalk()?;
    if walk.push_head().is_err() {
        return Ok("No commits yet.\n".into());
    }
    let mut out = String::new();
    for oid in walk.take(count as usize) {
        let commit = repo.find_commit(oid?)?;
        let id = commit.id().to_string();
        let summary = commit.summary().ok().flatten().unwrap_or("").to_string();
        if args.oneline.unwrap_or(true) {
            let _ = writeln!(out, "{} {summary}", &id[..7.min(id.len())]);
        } else {
            let author = commit.author();
            let when = git_date(commit.time().seconds(), commit.time().offset_minutes());
            let _ = writeln!(
                out,
                "commit {id}\nAuthor: {} <{}>\nDate:   {when}\n",
                author.name().ok().unwrap_or(""),
                author.email().ok().unwrap_or("")
            );
            for line in commit.message().ok().unwrap_or("").lines() {
                let _ = writeln!(out, "    {line}");
            }
            out.push('\n');
        }
    }
    Ok(out)
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GitCommitArgs {
    pub message: String,
    /// Paths to commit, and only these (what else is staged stays staged, uncommitted);
    /// default: every change, new files included.
    #[serde(default)]
    pub files: Option<Vec<String>>,
    /// Commit files git ignores when `files` names them.
    #[serde(default)]
    pub force: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommitResult {
    pub hash: String,
    pub branch: Option<String>,
    pub files_changed: usize,
    pub insertions: usize,
    pub deletions: usize,
}

/// What makes a commit impossible whatever happens before it runs: an empty message, no
/// repository or no committer, a named file it would refuse, nothing changed at all. Checked
/// before anyone is asked to approve it, and again by the commit.
pub fn check_commit(root: &ProjectRoot, args: &GitCommitArgs) -> ToolResult<()> {
    let (repo, _, workdir) = open_for_commit(root, args)?;
    let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
    let base_tree = parent.as_ref().map(|p| p.tree()).transpose()?;
    match &args.files {
        Some(files) => {
            for f in files {
                commit_path(root, &repo, &workdir, f, args.force, base_tree.as_ref())?;
            }
        }
        None if commit_files(root, args)?.is_empty() => {
            return Err(ToolError::InvalidArgument(
                "nothing to commit: no file changed since the last commit (git_status shows what changed)".into(),
            ));
        }
        None => {}
    }
    Ok(())
}

/// The repository a commit goes to, who commits, and its work tree.
fn open_for_commit(
    root: &ProjectRoot,
    args: &GitCommitArgs,
) -> ToolResult<(Repository, git2::Signature<'static>, PathBuf)> {
    if args.message.trim().is_empty() {
        return Err(ToolError::InvalidArgument(
            "the commit message is empty; describe the change".into(),
        ));
    }
    let repo = open_repo(root)?;
    let sig = repo.signature().map_err(|_| {
        ToolError::InvalidArgument(
            "git does not know who is committing: set user.name and user.email (git config) first"
                .into(),
        )
    })?;
    let workdir = repo.workdir().map(Path::to_path_buf).ok_or_else(|| {
        ToolError::InvalidArgument("the repository is bare; there is nothing to commit from".into())
    })?;
    Ok((repo, sig, workdir))
}

pub fn git_commit(root: &ProjectRoot, args: &GitCommitArgs) -> ToolResult<CommitResult> {
    let (repo, sig, workdir) = open_for_commit(root, args)?;
    let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
    let base_tree = parent.as_ref().map(|p| p.tree()).transpose()?;
    let mut index = repo.index()?;
    let tree = match &args.files {
        None => {
            index.add_all(["*"].iter(), IndexAddOption::DEFAULT, None)?;
            index.update_all(["*"].iter(), None)?;
            index.write()?;
            repo.find_tree(index.write_tree()?)?
        }
        Some(files) => {
            // The commit is the last one's tree with exactly these files changed, whatever
            // else is staged; the index then holds them too, and keeps the rest as it was.
            let mut only = git2::Index::new()?;
            if let Some(t) = &base_tree {
                only.read_tree(t)?;
            }
            for f in files {
                let rel = commit_path(root, &repo, &workdir, f, args.force, base_tree.as_ref())?;
                let abs = workdir.join(&rel);
                if std::fs::symlink_metadata(&abs).is_ok() {
                    let mut entry = index_entry(&repo, &abs, &rel)?;
                    if let Some(old) = only.get_path(&rel, 0) {
                        entry.mode = old.mode;
                    }
                    only.add(&entry)?;
                    index.add(&entry)?;
                } else {
                    only.remove_path(&rel)?;
                    index.remove_path(&rel)?;
                }
            }
            index.write()?;
            repo.find_tree(only.write_tree_to(&repo)?)?
        }
    };
    let diff = repo.diff_tree_to_tree(base_tree.as_ref(), Some(&tree), None)?;
    let stats = diff.stats()?;
    if stats.files_changed() == 0 {
        return Err(ToolError::InvalidArgument(
            "nothing to commit: the files are unchanged since the last commit".into(),
        ));
    }
    let parents: Vec<&git2::Commit> = parent.iter().collect();
    let oid = repo.commit(Some("HEAD"), &sig, &sig, &args.message, &tree, &parents)?;
    let branch = repo
        .head()
        .ok()
        .and_then(|h| h.shorthand().ok().map(str::to_string));
    Ok(CommitResult {
        hash: oid.to_string(),
        branch,
        files_changed: stats.files_changed(),
        insertions: stats.insertions(),
        deletions: stats.deletions(),
    })
}

/// The files a commit with these arguments would record, as absolute paths (not resolved
/// through links): the `files` named, or with none, every change git_commit stages (untracked
/// files included, ignored ones not). For judging a commit before it runs; a path that cannot
/// be resolved is left out, as the commit itself refuses it.
pub fn commit_files(root: &ProjectRoot, args: &GitCommitArgs) -> ToolResult<Vec<PathBuf>> {
    if let Some(files) = &args.files {
        return Ok(files
            .iter()
            .filter_map(|f| root.resolve(f).ok())
            .map(|r| root.path().join(r.display))
            .collect());
    }
    let repo = open_repo(root)?;
    let Some(workdir) = repo.workdir().map(Path::to_path_buf) else {
        return Ok(Vec::new());
    };
    let mut opts = StatusOptions::new();
    opts.include_untracked(true)
        .recurse_untracked_dirs(true)
        .include_ignored(false);
    Ok(repo
        .statuses(Some(&mut opts))?
        .iter()
        .filter(|s| s.status() != Status::CURRENT && !s.status().is_ignored())
        .filter_map(|s| s.path().ok().map(|p| workdir.join(p)))
        .collect())
}

/// One file a commit would record, for the person asked about it.
#[derive(Debug, Clone)]
pub struct CommitDiff {
    /// Relative to the project.
    pub path: String,
    pub change: protocol::CommitChange,
    pub added: u32,
    pub removed: u32,
    /// The hunks as unified diff text; empty for a binary, very large or secret file.
    pub diff: String,
    /// A secret (`.env`, keys): its content is never shown, before or after.
    pub secret: bool,
}

/// Files bigger than this are not read for a commit card's diff.
const COMMIT_DIFF_BYTES: u64 = 1024 * 1024;

/// What a commit would record for `abs` from the worktree, read as git reads it: a link's
/// target (never the file it points at — a link to `~/.ssh/id_rsa` must not show the key), a
/// regular file's bytes up to `COMMIT_DIFF_BYTES`; None when it is gone. `Some(None)`: there,
/// but not shown (too big, not a file).
fn worktree_side(abs: &Path) -> Option<Option<Vec<u8>>> {
    let meta = std::fs::symlink_metadata(abs).ok()?;
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(abs).ok()?;
        return Some(Some(crate::path_text::from_path(&target).into_bytes()));
    }
    if !meta.is_file() || meta.len() > COMMIT_DIFF_BYTES {
        return Some(None);
    }
    Some(read_no_follow(abs))
}

/// A regular file's bytes, refusing a link swapped in since it was looked at.
fn read_no_follow(abs: &Path) -> Option<Vec<u8>> {
    use rustix::fs::{Mode, OFlags};
    use std::io::Read as _;
    let fd = rustix::fs::open(
        abs,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .ok()?;
    let mut bytes = Vec::new();
    std::fs::File::from(fd)
        .take(COMMIT_DIFF_BYTES + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    (bytes.len() as u64 <= COMMIT_DIFF_BYTES).then_some(bytes)
}

/// Lines of one file's diff a commit card shows.
const COMMIT_DIFF_LINES: usize = 400;

/// What committing `paths` (as `commit_files` names them) would record against HEAD: each
/// file's change and its diff, text files only, cut at `COMMIT_DIFF_LINES`.
pub fn commit_diffs(root: &ProjectRoot, paths: &[PathBuf]) -> ToolResult<Vec<CommitDiff>> {
    let repo = open_repo(root)?;
    let Some(workdir) = repo.workdir().map(Path::to_path_buf) else {
        return Ok(Vec::new());
    };
    let head = repo.head().ok().and_then(|h| h.peel_to_tree().ok());
    let mut out = Vec::new();
    for abs in paths {
        let Ok(in_repo) = abs.strip_prefix(&workdir) else {
            continue;
        };
        let shown = abs.strip_prefix(root.path()).unwrap_or(in_repo);
        let old = head
            .as_ref()
            .and_then(|t| t.get_path(in_repo).ok())
            .and_then(|e| repo.find_blob(e.id()).ok())
            .map(|b| b.content().to_vec());
        let new = worktree_side(abs);
        let change = match (&old, &new) {
            (None, _) => protocol::CommitChange::Added,
            (Some(_), None) => protocol::CommitChange::Deleted,
            (Some(_), Some(_)) => protocol::CommitChange::Modified,
        };
        let secret = root.is_secret(abs);
        let text = |b: Option<Vec<u8>>| match b {
            None => Some(String::new()),
            Some(b) => String::from_utf8(b).ok(),
        };
        let texts = match (secret, new) {
            (true, _) | (false, Some(None)) => None,
            (false, Some(Some(n))) => text(old).zip(text(Some(n))),
            (false, None) => text(old).zip(Some(String::new())),
        };
        let (diff, added, removed) = match texts {
            Some((o, n)) => {
                let (added, removed) = crate::diff::line_counts(&o, &n);
                let mut diff = String::new();
                for h in crate::diff::hunks(&o, &n) {
                    diff.push_str(&h.text);
                    if !diff.ends_with('\n') {
                        diff.push('\n');
                    }
                }
                let lines = diff.lines().count();
                if lines > COMMIT_DIFF_LINES {
                    diff = diff
                        .lines()
                        .take(COMMIT_DIFF_LINES)
                        .map(|l| format!("{l}\n"))
                        .collect();
                    diff.push_str(&format!("… {} more lines\n", lines - COMMIT_DIFF_LINES));
                }
                (diff, added, removed)
            }
            _ => (String::new(), 0, 0),
        };
        out.push(CommitDiff {
            path: crate::path_text::from_path(shown),
            change,
            added,
            removed,
            diff,
            secret,
        });
    }
    Ok(out)
}

/// A path named in `files`, checked: inside the repository, there (or tracked, for a
/// deletion), and not ignored unless `force`.
fn commit_path(
    root: &ProjectRoot,
    repo: &Repository,
    workdir: &Path,
    f: &str,
    force: bool,
    base: Option<&git2::Tree<'_>>,
) -> ToolResult<PathBuf> {
    let resolved = root.resolve(f)?;
    let rel = resolved
        .real
        .strip_prefix(workdir)
        .map_err(|_| ToolError::InvalidArgument(format!("{f} is not inside the repository")))?
        .to_path_buf();
    let tracked = base.is_some_and(|t| t.get_path(&rel).is_ok());
    if resolved.real.is_dir() {
        return Err(ToolError::InvalidArgument(format!(
            "{f} is a folder; name the files in it to commit"
        )));
    }
    if !resolved.real.exists() && !tracked {
        return Err(ToolError::InvalidArgument(format!(
            "{f} does not exist and was never committed, so there is nothing to commit for it; check the name (git_status lists what changed)"
        )));
    }
    if !tracked && !force && repo.is_path_ignored(&rel)? {
        return Err(ToolError::InvalidArgument(format!(
            "{f} is ignored by git (.gitignore); leave it out, or pass force: true if it really belongs in the repository"
        )));
    }
    Ok(rel)
}

/// An index entry for a file of the work tree, its content written to the object store, as
/// `git add` makes it (a symbolic link is stored as its target's name).
fn index_entry(repo: &Repository, abs: &Path, rel: &Path) -> ToolResult<git2::IndexEntry> {
    use std::os::unix::ffi::OsStrExt as _;
    use std::os::unix::fs::MetadataExt as _;
    let io = |e| ToolError::io(rel, e);
    let meta = std::fs::symlink_metadata(abs).map_err(io)?;
    let link = meta.file_type().is_symlink();
    let blob = if link {
        repo.blob(std::fs::read_link(abs).map_err(io)?.as_os_str().as_bytes())?
    } else {
        repo.blob_path(abs)?
    };
    let executable = meta.mode() & 0o111 != 0;
    let time = |s: i64, ns: i64| git2::IndexTime::new(s as i32, ns as u32);
    Ok(git2::IndexEntry {
        ctime: time(meta.ctime(), meta.ctime_nsec()),
        mtime: time(meta.mtime(), meta.mtime_nsec()),
        dev: meta.dev() as u32,
        ino: meta.ino() as u32,
        mode: match (link, executable) {
            (true, _) => 0o120000,
            (false, true) => 0o100755,
            (false, false) => 0o100644,
        },
        uid: meta.uid(),
        gid: meta.gid(),
        file_size: meta.size() as u32,
        id: blob,
        flags: 0,
        flags_extended: 0,
        path: crate::paths::to_slash(rel).into_bytes(),
    })
}

pub fn render_commit(c: &CommitResult, message: &str) -> String {
    format!(
        "[{} {}] {}\n {} file(s) changed, {} insertion(s)(+), {} deletion(s)(-)\n",
        c.branch.as_deref().unwrap_or("HEAD"),
        &c.hash[..7.min(c.hash.len())],
        message.lines().next().unwrap_or(""),
        c.files_changed,
        c.insertions,
        c.deletions
    )
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BranchAction {
    Create,
    Switch,
    List,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GitBranchArgs {
    pub action: BranchAction,
    /// The branch to create or switch to.
    #[serde(default)]
    pub name: Option<String>,
}

fn current_branch(repo: &Repository) -> Option<String> {
    repo.head()
        .ok()
        .and_then(|h| h.shorthand().ok().map(str::to_string))
}

fn branch_names(repo: &Repository) -> ToolResult<Vec<String>> {
    let mut names = Vec::new();
    for b in repo.branches(Some(BranchType::Local))? {
        let (b, _) = b?;
        if let Ok(Some(n)) = b.name() {
            names.push(n.to_string());
        }
    }
    names.sort();
    Ok(names)
}

/// What makes a branch call impossible whatever happens before it runs: no name to create or
/// switch to, a name git refuses or already has, nothing to branch from, a branch that is not
/// there. Checked before anyone is asked, and again by the call.
pub fn check_branch(root: &ProjectRoot, args: &GitBranchArgs) -> ToolResult<()> {
    let repo = open_repo(root)?;
    let name = match args.action {
        BranchAction::List => return Ok(()),
        BranchAction::Create | BranchAction::Switch => args
            .name
            .clone()
            .filter(|n| !n.trim().is_empty())
            .ok_or_else(|| {
                ToolError::InvalidArgument("`name` is required to create or switch a branch".into())
            })?,
    };
    let exists = repo.find_branch(&name, BranchType::Local).is_ok();
    match args.action {
        BranchAction::Create => {
            if repo.head().and_then(|h| h.peel_to_commit()).is_err() {
                return Err(ToolError::InvalidArgument(
                    "there are no commits yet to branch from; commit first".into(),
                ));
            }
            if exists {
                return Err(ToolError::InvalidArgument(format!(
                    "a branch named `{name}` already exists; switch to it instead"
                )));
            }
            if !git2::Branch::name_is_valid(&name).unwrap_or(false) {
                return Err(ToolError::InvalidArgument(format!(
                    "`{name}` is not a valid branch name (git refuses names with `..`, spaces, `~`, `^`, `:`, or ending in `.lock` or `/`); choose another"
                )));
            }
        }
        BranchAction::Switch if !exists => {
            let names = branch_names(&repo).unwrap_or_default().join(", ");
            return Err(ToolError::InvalidArgument(format!(
                "there is no branch `{name}`; the branches are: {names}"
            )));
        }
        BranchAction::Switch | BranchAction::List => {}
    }
    Ok(())
}

pub fn git_branch(root: &ProjectRoot, args: &GitBranchArgs) -> ToolResult<String> {
    check_branch(root, args)?;
    let repo = open_repo(root)?;
    let need_name = || args.name.clone().unwrap_or_default();
    match args.action {
        BranchAction::List => {
            let current = current_branch(&repo);
            let names = branch_names(&repo)?;
            if names.is_empty() {
                return Ok("No branches yet (no commits).\n".into());
            }
            Ok(names
                .iter()
                .map(|n| {
                    if Some(n) == current.as_ref() {
                        format!("* {n}\n")
                    } else {
                        format!("  {n}\n")
                    }
                })
                .collect())
        }
        BranchAction::Create => {
            let name = need_name();
            let head = repo.head().and_then(|h| h.peel_to_commit())?;
            repo.branch(&name, &head, false).map_err(|e| {
                ToolError::InvalidArgument(format!(
                    "`{name}` is not a valid branch name ({})",
                    e.message()
                ))
            })?;
            Ok(format!(
                "Created branch {name} at {}.\n",
                &head.id().to_string()[..7]
            ))
        }
        BranchAction::Switch => {
            let name = need_name();
            let branch = repo.find_branch(&name, BranchType::Local)?;
            let mut opts = StatusOptions::new();
            opts.include_untracked(false);
            let dirty: Vec<String> = repo
                .statuses(Some(&mut opts))?
                .iter()
                .filter(|s| s.status() != Status::CURRENT && !s.status().is_ignored())
                .filter_map(|s| s.path().ok().map(str::to_string))
                .collect();
            if !dirty.is_empty() {
                return Err(ToolError::InvalidArgument(format!(
                    "the working tree has uncommitted changes ({}); commit them before switching branches",
                    dirty.join(", ")
                )));
            }
            let refname = branch
                .get()
                .name()
                .ok()
                .map(str::to_string)
                .unwrap_or_default();
            let target = branch.get().peel_to_tree()?;
            let current = repo.head().ok().and_then(|h| h.peel_to_tree().ok());
            let in_the_way = untracked_in_the_way(&repo, current.as_ref(), &target)?;
            if !in_the_way.is_empty() {
                return Err(ToolError::InvalidArgument(format!(
                    "switching to `{name}` would overwrite files that are not committed here ({}); move them away or commit them first",
                    in_the_way.join(", ")
                )));
            }
            repo.checkout_tree(
                target.as_object(),
                Some(git2::build::CheckoutBuilder::new().safe()),
            )
            .map_err(|e| {
                ToolError::InvalidArgument(format!(
                    "git could not switch to `{name}`: {}; check git_status for files in the way",
                    e.message()
                ))
            })?;
            repo.set_head(&refname)?;
            Ok(format!("Switched to branch {name}.\n"))
        }
    }
}

/// Files the target branch has that exist here without being committed on this branch: a
/// checkout would have to overwrite them, and git refuses.
fn untracked_in_the_way(
    repo: &Repository,
    current: Option<&git2::Tree<'_>>,
    target: &git2::Tree<'_>,
) -> ToolResult<Vec<String>> {
    let Some(workdir) = repo.workdir() else {
        return Ok(Vec::new());
    };
    let diff = repo.diff_tree_to_tree(current, Some(target), None)?;
    let mut out = Vec::new();
    for delta in diff.deltas() {
        if delta.status() != git2::Delta::Added {
            continue;
        }
        if let Some(path) = delta.new_file().path()
            && std::fs::symlink_metadata(workdir.join(path)).is_ok()
        {
            out.push(crate::paths::to_slash(path));
        }
    }
    Ok(out)
}

/// A commit time as git prints it: `Mon Nov 30 13:05:12 2026 +0100`, in the author's zone.
fn git_date(seconds: i64, offset_minutes: i32) -> String {
    let utc = time::OffsetDateTime::from_unix_timestamp(seconds)
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    let local = time::UtcOffset::from_whole_seconds(offset_minutes.saturating_mul(60))
        .map_or(utc, |zone| utc.to_offset(zone));
    let sign = if offset_minutes < 0 { '-' } else { '+' };
    let off = offset_minutes.unsigned_abs();
    let weekday = local.weekday().to_string();
    let month = local.month().to_string();
    format!(
        "{} {} {} {:02}:{:02}:{:02} {} {sign}{:02}{:02}",
        &weekday[..3],
        &month[..3],
        local.day(),
        local.hour(),
        local.minute(),
        local.second(),
        local.year(),
        off / 60,
        off % 60,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secret(p: &Path) -> bool {
        p.file_name().is_some_and(|n| n == ".env")
    }

    /// Attack: a cloned repository's untracked link to a secret outside the project, and a
    /// `.env` the person changed. The commit card shows the link as git records it (its
    /// target's name) and withholds the secret's content, before and after.
    #[test]
    fn a_commit_card_never_shows_what_a_link_points_at_nor_a_secret() {
        let outside = tempfile::tempdir().expect("tempdir");
        let key = outside.path().join("id_rsa");
        std::fs::write(&key, "PRIVATE-KEY-MARKER\n").expect("write");
        let dir = tempfile::tempdir().expect("tempdir");
        let repo = Repository::init(dir.path()).expect("init");
        std::fs::write(dir.path().join(".env"), "TOKEN=old-marker\n").expect("write");
        let mut index = repo.index().expect("index");
        index.add_path(Path::new(".env")).expect("add");
        let tree = repo
            .find_tree(index.write_tree().expect("tree"))
            .expect("tree");
        let sig = git2::Signature::now("t", "t@example.com").expect("sig");
        repo.commit(Some("HEAD"), &sig, &sig, "start", &tree, &[])
            .expect("commit");
        std::fs::write(dir.path().join(".env"), "TOKEN=new-marker\n").expect("write");
        std::os::unix::fs::symlink(&key, dir.path().join("notes.txt")).expect("link");
        std::fs::write(dir.path().join("big.txt"), vec![b'x'; 2 * 1024 * 1024]).expect("write");
        let root = ProjectRoot::open(dir.path())
            .expect("open")
            .hiding_secrets(secret);
        let args = GitCommitArgs {
            message: "m".into(),
            files: None,
            force: false,
        };
        let paths = commit_files(&root, &args).expect("files");
        let diffs = commit_diffs(&root, &paths).expect("diffs");
        let all: String = diffs.iter().map(|d| d.diff.clone()).collect();
        assert!(!all.contains("PRIVATE-KEY-MARKER"), "{all}");
        assert!(!all.contains("marker"), "{all}");
        let by = |p: &str| diffs.iter().find(|d| d.path == p).expect(p);
        assert!(by(".env").secret && by(".env").diff.is_empty());
        assert!(by("notes.txt").diff.contains(&key.display().to_string()));
        assert!(by("big.txt").diff.is_empty(), "a 2 MB file is not read");
    }

    #[test]
    fn dates_read_as_git_prints_them() {
        assert_eq!(git_date(0, 0), "Thu Jan 1 00:00:00 1970 +0000");
        assert_eq!(
            git_date(1_796_043_912, 60),
            "Mon Nov 30 14:05:12 2026 +0100"
        );
        assert_eq!(
            git_date(951_782_400, -300),
            "Mon Feb 28 19:00:00 2000 -0500"
        );
        assert_eq!(git_date(1_709_164_800, 0), "Thu Feb 29 00:00:00 2024 +0000");
    }
}
