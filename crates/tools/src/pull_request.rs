//! create_pull_request: push the current branch, then open a pull request for it with the
//! GitHub CLI (`gh`), and say which one was opened (its URL and number).
//!
//! `gh` and `git` are looked up on a `PATH` passed in (tests put a fake `gh` first). Each
//! program runs within a time limit and ends on Stop ([`crate::stoppable_process`]).

use crate::error::{ToolError, ToolResult};
use crate::paths::ProjectRoot;
use crate::stoppable_process::{Halted, run_to_end};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PullRequestArgs {
    pub title: String,
    #[serde(default)]
    pub body: Option<String>,
    /// The branch to merge into. Default `main`.
    #[serde(default)]
    pub base: Option<String>,
    #[serde(default)]
    pub draft: bool,
}

/// The pull request that was opened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PullRequest {
    pub url: String,
    pub number: u64,
    /// The branch pushed, the pull request's head.
    pub branch: String,
    pub base: String,
    /// The remote the branch was pushed to.
    pub remote: String,
    pub pushed: bool,
    pub draft: bool,
}

/// How long a push, or one `gh` call, may take before it is ended.
pub const PULL_REQUEST_STEP_LIMIT: Duration = Duration::from_secs(120);

/// Where the programs are found and what ends them.
#[derive(Debug, Clone)]
pub struct PullRequestRun<'a> {
    /// The `PATH` that `git` and `gh` are looked up on, and that they run with.
    pub path_env: Option<&'a OsStr>,
    /// Stop: the push or `gh` still running is ended.
    pub cancel: Option<CancellationToken>,
    /// Each program's time limit.
    pub limit: Duration,
}

/// What a pull request of these arguments would use, found without running anything.
struct Plan {
    workdir: PathBuf,
    branch: String,
    base: String,
    remote: String,
    git: PathBuf,
    gh: PathBuf,
}

fn refused(why: impl Into<String>) -> ToolError {
    ToolError::InvalidArgument(why.into())
}

fn plan(root: &ProjectRoot, args: &PullRequestArgs, path_env: Option<&OsStr>) -> ToolResult<Plan> {
    if args.title.trim().is_empty() {
        return Err(refused(
            "the pull request needs a title: say in one line what the change does",
        ));
    }
    let repo = git2::Repository::discover(root.path()).map_err(|_| {
        refused("the project is not inside a git repository, so there is no branch to open a pull request for")
    })?;
    let workdir = repo
        .workdir()
        .map(Path::to_path_buf)
        .ok_or_else(|| refused("the repository is bare; there is no branch checked out to push"))?;
    let head = repo.head().map_err(|_| {
        refused("there are no commits yet; commit the change (git_commit) on a branch, then open the pull request")
    })?;
    if repo.head_detached().unwrap_or(false) || !head.is_branch() {
        return Err(refused(
            "HEAD is detached (no branch is checked out), so there is no branch to push; create one here with git_branch (action create), switch to it, then retry",
        ));
    }
    let branch = head.shorthand().ok().map(str::to_string).ok_or_else(|| {
        refused("the current branch's name is not valid UTF-8; rename the branch, then retry")
    })?;
    let base = args.base.clone().unwrap_or_else(|| "main".into());
    if branch == base {
        return Err(refused(format!(
            "you are on `{base}`, the base branch; create a branch with git_branch, commit there, then open the pull request"
        )));
    }
    let remote = push_remote(&repo, &branch)?;
    let gh = find_program("gh", path_env).ok_or_else(|| {
        refused("the GitHub CLI `gh` is not installed (not found on PATH), so a pull request cannot be opened from here; tell the user, who can install gh and log in with `gh auth login`")
    })?;
    let git = find_program("git", path_env).ok_or_else(|| {
        refused("`git` is not installed (not found on PATH), so the branch cannot be pushed; tell the user")
    })?;
    Ok(Plan {
        workdir,
        branch,
        base,
        remote,
        git,
        gh,
    })
}

/// The remote the branch goes to: its upstream's, else `origin`.
fn push_remote(repo: &git2::Repository, branch: &str) -> ToolResult<String> {
    let upstream = repo
        .branch_upstream_remote(&format!("refs/heads/{branch}"))
        .ok()
        .and_then(|b| b.as_str().ok().map(str::to_string))
        // `.` is the repository itself (a branch that tracks a local one): not a remote.
        .filter(|r| r != ".");
    let name = upstream.unwrap_or_else(|| "origin".into());
    if repo.find_remote(&name).is_ok() {
        return Ok(name);
    }
    let remotes: Vec<String> = repo
        .remotes()
        .map(|r| r.iter().flatten().flatten().map(str::to_string).collect())
        .unwrap_or_default();
    if remotes.is_empty() {
        Err(refused(
            "the repository has no remote to push to, so no pull request can be opened; ask the user for the GitHub repository's URL, add it with `git remote add origin URL` (run_command), then retry",
        ))
    } else {
        Err(refused(format!(
            "`{branch}` has no upstream and there is no remote named `{name}` (the remotes are: {}); push it once with `git push --set-upstream REMOTE {branch}` (run_command) to the right one, then retry",
            remotes.join(", ")
        )))
    }
}

/// A program's file on `path_env`, as a shell would find it (an executable file).
pub fn find_program(name: &str, path_env: Option<&OsStr>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    std::env::split_paths(path_env?)
        .map(|d| d.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// What makes a pull request impossible whatever the person answers: no title, no branch to
/// push (detached HEAD, or the base branch itself), no remote, no `gh`, or a `gh` not logged
/// in. Checked before anyone is asked, and again by the call.
pub fn check_pull_request(
    root: &ProjectRoot,
    args: &PullRequestArgs,
    path_env: Option<&OsStr>,
) -> ToolResult<()> {
    let plan = plan(root, args, path_env)?;
    let auth = auth_status_blocking(&plan, path_env)?;
    logged_in(&auth)
}

/// How long `gh auth status` may take before asking: it asks GitHub whether the token works.
const AUTH_LIMIT: Duration = Duration::from_secs(20);

/// `gh auth status`, for the check made before asking (which cannot wait on a runtime).
fn auth_status_blocking(plan: &Plan, path_env: Option<&OsStr>) -> ToolResult<std::process::Output> {
    use std::os::unix::process::CommandExt as _;
    let mut cmd = std::process::Command::new(&plan.gh);
    cmd.args(["auth", "status"])
        .current_dir(&plan.workdir)
        .envs(push_env(&plan.gh))
        .envs(gh_env(path_env))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .process_group(0);
    let child = cmd.spawn().map_err(|e| ToolError::io(&plan.gh, e))?;
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(AUTH_LIMIT) {
        Ok(out) => out.map_err(|e| ToolError::io(&plan.gh, e)),
        Err(_) => {
            if let Some(pid) = rustix::process::Pid::from_raw(pid as i32) {
                let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
            }
            Err(refused(format!(
                "`gh auth status` did not answer within {} s (GitHub may be unreachable); check the network, then retry",
                AUTH_LIMIT.as_secs()
            )))
        }
    }
}

fn logged_in(auth: &std::process::Output) -> ToolResult<()> {
    if auth.status.success() {
        return Ok(());
    }
    // gh masks tokens in what it prints; its words say which host or token is the trouble.
    let said = last_lines(&[&auth.stderr, &auth.stdout], 4);
    Err(refused(format!(
        "gh is not logged in to GitHub{}; ask the user to run `gh auth login` in a terminal, then retry",
        if said.is_empty() {
            String::new()
        } else {
            format!(" (gh says: {said})")
        }
    )))
}

/// Pushes the current branch (setting its upstream), then opens a pull request for it.
pub async fn create_pull_request(
    root: &ProjectRoot,
    args: &PullRequestArgs,
    run: &PullRequestRun<'_>,
) -> ToolResult<PullRequest> {
    let plan = plan(root, args, run.path_env)?;
    let step = |what: &str, halted: Halted| halted_error(what, &plan, halted);

    let auth = run_to_end(
        gh_command(&plan, run.path_env, ["auth", "status"]),
        run.limit,
        run.cancel.as_ref(),
    )
    .await
    .map_err(|h| step("`gh auth status`", h))?;
    logged_in(&auth)?;

    push(&plan, run).await?;

    let mut create = vec![
        "pr",
        "create",
        "--title",
        &args.title,
        "--body",
        args.body.as_deref().unwrap_or(""),
        "--base",
        &plan.base,
        "--head",
        &plan.branch,
    ];
    if args.draft {
        create.push("--draft");
    }
    let out = run_to_end(
        gh_command(&plan, run.path_env, create),
        run.limit,
        run.cancel.as_ref(),
    )
    .await
    .map_err(|h| step("`gh pr create`", h))?;
    let printed = [out.stdout.as_slice(), out.stderr.as_slice()];
    if !out.status.success() {
        let said = last_lines(&[&out.stderr, &out.stdout], 6);
        let branch = &plan.branch;
        if said.contains("already exists") {
            let existing = pull_request_url(&printed)
                .map(|(url, _)| format!(": {url}"))
                .unwrap_or_default();
            return Err(refused(format!(
                "a pull request for `{branch}` already exists{existing}. The branch was pushed, so it now has these commits; to change its title or description use `gh pr edit` (run_command)"
            )));
        }
        return Err(refused(format!(
            "gh could not open the pull request: {said}. The branch `{branch}` was pushed to {}; fix what gh says, then retry",
            plan.remote
        )));
    }
    let (url, number) = pull_request_url(&printed).ok_or_else(|| {
        refused(format!(
            "gh finished but printed no pull request URL ({}); check with `gh pr view {}` (run_command) before opening another",
            last_lines(&[&out.stdout, &out.stderr], 4),
            plan.branch
        ))
    })?;
    Ok(PullRequest {
        url,
        number,
        branch: plan.branch,
        base: plan.base,
        remote: plan.remote,
        pushed: true,
        draft: args.draft,
    })
}

/// `git push --set-upstream REMOTE HEAD`, without prompts and without the repository's programs.
async fn push(plan: &Plan, run: &PullRequestRun<'_>) -> ToolResult<()> {
    let mut cmd = tokio::process::Command::new(&plan.git);
    // `--receive-pack` on the command line wins over the repository's
    // `remote.<name>.receivepack`, a program git runs here for a remote on this machine (the
    // configuration's first value wins over GIT_CONFIG_*, so only the flag can override it).
    cmd.args([
        "push",
        "--receive-pack=git-receive-pack",
        "--set-upstream",
        &plan.remote,
        "HEAD",
    ])
    .current_dir(&plan.workdir)
    .envs(push_env(&plan.gh))
    .env("GIT_TERMINAL_PROMPT", "0");
    if let Some(p) = run.path_env {
        cmd.env("PATH", p);
    }
    let out = run_to_end(cmd, run.limit, run.cancel.as_ref())
        .await
        .map_err(|h| halted_error("the push", plan, h))?;
    if out.status.success() {
        return Ok(());
    }
    Err(refused(format!(
        "git could not push `{}` to {}, so no pull request was opened. git says: {}. Fix what git says (a rejected push usually needs the remote's changes merged first), then retry",
        plan.branch,
        plan.remote,
        last_lines(&[&out.stderr, &out.stdout], 8)
    )))
}

/// The neutral git environment (no hooks, fsmonitor or credential helpers the repository
/// names: the push runs outside any sandbox), with `gh` as the one credential helper, so an
/// https push authenticates as the `gh` that opens the pull request.
fn push_env(gh: &Path) -> Vec<(String, String)> {
    let mut env = crate::git_places::neutral_git_env();
    let count_at = env.iter().position(|(k, _)| k == "GIT_CONFIG_COUNT");
    let count = count_at
        .and_then(|i| env[i].1.parse::<usize>().ok())
        .unwrap_or(0);
    let quoted = gh.display().to_string().replace('\'', r"'\''");
    // After the neutral list's empty `credential.helper`, which resets the helpers.
    env.push((
        format!("GIT_CONFIG_KEY_{count}"),
        "credential.helper".into(),
    ));
    env.push((
        format!("GIT_CONFIG_VALUE_{count}"),
        format!("!'{quoted}' auth git-credential"),
    ));
    match count_at {
        Some(i) => env[i].1 = (count + 1).to_string(),
        None => env.push(("GIT_CONFIG_COUNT".into(), "1".into())),
    }
    // The repository's `core.sshCommand` is a program of its choosing; the person's own (their
    // environment's, or their global configuration's) stands, else plain ssh.
    if std::env::var_os("GIT_SSH_COMMAND").is_none() {
        env.push(("GIT_SSH_COMMAND".into(), own_ssh_command()));
    }
    env
}

/// `core.sshCommand` as the person's own configuration sets it (global or system, read from
/// outside any repository), or `ssh`.
fn own_ssh_command() -> String {
    std::process::Command::new("git")
        .args(["config", "--get", "core.sshCommand"])
        .current_dir("/")
        .env_remove("GIT_DIR")
        .env_remove("GIT_CONFIG")
        .stdin(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "ssh".into())
}

/// What `gh` runs with beyond the app's environment: never a prompt, a pager or colours.
fn gh_env(path_env: Option<&OsStr>) -> Vec<(&'static OsStr, &OsStr)> {
    let mut env: Vec<(&OsStr, &OsStr)> = [
        ("GH_PROMPT_DISABLED", "1"),
        ("GIT_TERMINAL_PROMPT", "0"),
        ("GH_PAGER", "cat"),
        ("NO_COLOR", "1"),
        ("GH_NO_UPDATE_NOTIFIER", "1"),
    ]
    .into_iter()
    .map(|(k, v)| (OsStr::new(k), OsStr::new(v)))
    .collect();
    if let Some(p) = path_env {
        // gh runs git itself, found on the same PATH.
        env.push((OsStr::new("PATH"), p));
    }
    env
}

fn gh_command<'a>(
    plan: &Plan,
    path_env: Option<&OsStr>,
    args: impl IntoIterator<Item = &'a str>,
) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(&plan.gh);
    // gh runs git in the repository: without the repository's programs, as the push.
    cmd.args(args)
        .current_dir(&plan.workdir)
        .envs(push_env(&plan.gh))
        .envs(gh_env(path_env));
    cmd
}

/// A step that did not finish, said with what became of the pull request.
fn halted_error(what: &str, plan: &Plan, halted: Halted) -> ToolError {
    let branch = &plan.branch;
    let after = if what == "`gh pr create`" {
        format!(
            " The branch was pushed; the pull request may or may not have been opened: check with `gh pr view {branch}` (run_command) before retrying."
        )
    } else {
        " No pull request was opened.".into()
    };
    match halted {
        Halted::Stopped => refused(format!("{what} was stopped.{after}")),
        Halted::TimedOut(limit) => refused(format!(
            "{what} did not finish within {} s and was ended (the network or GitHub may be slow or unreachable).{after}",
            limit.as_secs_f32()
        )),
        Halted::Spawn(e) => refused(format!("{what} could not be run: {e}.{after}")),
    }
}

/// The pull request's URL and number: the last line printed that is an https URL to a pull
/// request.
pub(crate) fn pull_request_url(printed: &[&[u8]]) -> Option<(String, u64)> {
    printed
        .iter()
        .flat_map(|p| {
            String::from_utf8_lossy(p)
                .lines()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .rev()
        .find_map(|line| {
            let line = line.trim();
            let (_, after) = line.rsplit_once("/pull/")?;
            let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
            let number = digits.parse().ok()?;
            (line.starts_with("https://") && !line.contains(char::is_whitespace))
                .then(|| (line.to_string(), number))
        })
}

/// The last `n` non-empty lines of what a program printed, on one line, with no credential a
/// URL in them carried (git names the remote as configured: `https://user:ghp_…@host`).
fn last_lines(printed: &[&[u8]], n: usize) -> String {
    let text: Vec<String> = printed
        .iter()
        .flat_map(|p| {
            String::from_utf8_lossy(p)
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(crate::git_places::strip_userinfo)
                .collect::<Vec<_>>()
        })
        .collect();
    text[text.len().saturating_sub(n)..].join(" / ")
}

/// The model's text for an opened pull request.
pub fn render_pull_request(pr: &PullRequest) -> String {
    format!(
        "Pushed {branch} to {remote}. Opened {draft}pull request #{n}: {url} (branch {branch} → {base}).\n",
        branch = pr.branch,
        remote = pr.remote,
        draft = if pr.draft { "draft " } else { "" },
        n = pr.number,
        url = pr.url,
        base = pr.base,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 45: a token in a remote's URL never reaches the model, from git's own words
    /// about a failed push either.
    #[test]
    fn what_git_says_about_a_push_carries_no_token() {
        let said = last_lines(
            &[b"fatal: unable to access 'https://me:ghp_fakeTokenMarker45@github.com/o/r.git/': The requested URL returned error: 403\n"],
            4,
        );
        assert!(!said.contains("ghp_fakeTokenMarker45"), "{said}");
        assert!(said.contains("https://github.com/o/r.git/"), "{said}");
    }

    #[test]
    fn the_url_is_the_last_pull_request_line() {
        let out = b"Creating pull request for feature into main in o/r\n\nhttps://github.com/o/r/pull/12\n";
        assert_eq!(
            pull_request_url(&[out]),
            Some(("https://github.com/o/r/pull/12".into(), 12))
        );
        let warned = b"Warning: 1 uncommitted change\nhttps://github.com/o/r/pull/3\nhttps://github.com/o/r/pull/4\n";
        assert_eq!(pull_request_url(&[warned]).map(|(_, n)| n), Some(4));
        assert_eq!(
            pull_request_url(&[b"https://github.com/o/r/issues/5\n"]),
            None
        );
        assert_eq!(pull_request_url(&[b"see http://x/pull/5\n"]), None);
    }

    #[test]
    fn the_push_authenticates_through_gh_after_the_reset() {
        let env = push_env(Path::new("/opt/it's/gh"));
        let get = |k: &str| env.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone());
        let count: usize = get("GIT_CONFIG_COUNT")
            .and_then(|c| c.parse().ok())
            .expect("count");
        let last = count - 1;
        assert_eq!(
            get(&format!("GIT_CONFIG_KEY_{last}")).as_deref(),
            Some("credential.helper")
        );
        assert_eq!(
            get(&format!("GIT_CONFIG_VALUE_{last}")).as_deref(),
            Some(r"!'/opt/it'\''s/gh' auth git-credential")
        );
        let reset = (0..last).any(|i| {
            get(&format!("GIT_CONFIG_KEY_{i}")).as_deref() == Some("credential.helper")
                && get(&format!("GIT_CONFIG_VALUE_{i}")).as_deref() == Some("")
        });
        assert!(reset, "the repository's helpers are reset first: {env:?}");
    }
}
