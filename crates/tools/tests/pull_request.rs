//! create_pull_request on real repositories: a real push to a local bare repository as the
//! remote, and a fake `gh` (a shell script first on the PATH the tool is given).

use std::ffi::OsString;
use std::future::ready;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;
use test_support::wait_until;
use tokio_util::sync::CancellationToken;
use tools::{ProjectRoot, PullRequestArgs, PullRequestRun};

struct Fixture {
    dir: tempfile::TempDir,
    work: PathBuf,
    origin: PathBuf,
    bin: PathBuf,
    root: ProjectRoot,
}

fn git(dir: &Path, args: &[&str]) -> Output {
    let out = Command::new("git")
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn stdout(out: Output) -> String {
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A repository on `feature` (one commit ahead of `main`), with a bare repository as `origin`
/// that has `main`.
fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("tempdir");
    let work = dir.path().join("work");
    let origin = dir.path().join("origin.git");
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).expect("mkdir");
    git(
        dir.path(),
        &["init", "-q", "--bare", "-b", "main", "origin.git"],
    );
    git(dir.path(), &["init", "-q", "-b", "main", "work"]);
    std::fs::write(work.join("a.txt"), "one\n").expect("write");
    git(&work, &["add", "a.txt"]);
    git(&work, &["commit", "-q", "-m", "first"]);
    git(
        &work,
        &["remote", "add", "origin", &origin.display().to_string()],
    );
    git(&work, &["push", "-q", "origin", "main"]);
    git(&work, &["switch", "-q", "-c", "feature"]);
    std::fs::write(work.join("a.txt"), "one\ntwo\n").expect("write");
    git(&work, &["commit", "-q", "-am", "second"]);
    let root = ProjectRoot::open(&work).expect("open");
    Fixture {
        dir,
        work,
        origin,
        bin,
        root,
    }
}

impl Fixture {
    /// A fake `gh` in the fixture's bin folder; `pr` is what it does for `gh pr …` (`auth
    /// status` succeeds unless `auth` says otherwise).
    fn gh(&self, auth: &str, pr: &str) {
        use std::os::unix::fs::PermissionsExt as _;
        let gh = self.bin.join("gh");
        std::fs::write(
            &gh,
            format!("#!/bin/sh\ncase \"$1\" in\nauth) {auth} ;;\npr) {pr} ;;\nesac\n"),
        )
        .expect("write gh");
        std::fs::set_permissions(&gh, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    /// A file in the fixture's folder (for the fake gh to write to).
    fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The fake `gh` first, then the test's own PATH (for git, sh, sleep).
    fn path(&self) -> OsString {
        let mut dirs = vec![self.bin.clone()];
        dirs.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        std::env::join_paths(dirs).expect("PATH")
    }

    fn run<'a>(&self, path: &'a OsString, cancel: Option<CancellationToken>) -> PullRequestRun<'a> {
        PullRequestRun {
            path_env: Some(path.as_os_str()),
            cancel,
            limit: tools::PULL_REQUEST_STEP_LIMIT,
        }
    }

    /// The commit `refs/heads/<branch>` names in `repo`, if it has the branch.
    fn commit_in(&self, repo: &Path, branch: &str) -> Option<String> {
        let out = Command::new("git")
            .args([
                "rev-parse",
                "--verify",
                "-q",
                &format!("refs/heads/{branch}"),
            ])
            .current_dir(repo)
            .output()
            .expect("git runs");
        out.status.success().then(|| stdout(out))
    }
}

fn args(title: &str) -> PullRequestArgs {
    PullRequestArgs {
        title: title.into(),
        body: Some("Because y.".into()),
        base: None,
        draft: false,
    }
}

/// Quotes a path for the fake gh's script.
fn q(p: &Path) -> String {
    format!("'{}'", p.display())
}

const PRINTS_PR_7: &str = "echo 'Creating pull request for feature into main in o/r' >&2; echo; echo https://github.com/o/r/pull/7";

/// The branch really reaches the remote, with its upstream set, before gh is asked; the
/// result is the pull request's URL and number, not gh's raw output.
#[tokio::test]
async fn the_branch_is_pushed_then_the_pull_request_opened() {
    let f = fixture();
    let log = f.file("gh-args");
    f.gh(
        "exit 0",
        &format!("printf '%s\\n' \"$@\" > {}; {PRINTS_PR_7}", q(&log)),
    );
    let path = f.path();
    let pr = tools::create_pull_request(&f.root, &args("Add x"), &f.run(&path, None))
        .await
        .expect("opened");

    let head = stdout(git(&f.work, &["rev-parse", "HEAD"]));
    assert_eq!(
        f.commit_in(&f.origin, "feature").as_deref(),
        Some(head.as_str()),
        "the branch reached the remote"
    );
    assert_eq!(
        stdout(git(
            &f.work,
            &["rev-parse", "--abbrev-ref", "feature@{upstream}"]
        )),
        "origin/feature"
    );

    let structured = serde_json::to_value(&pr).expect("json");
    assert_eq!(structured["number"], 7);
    assert_eq!(structured["url"], "https://github.com/o/r/pull/7");
    assert_eq!(structured["branch"], "feature");
    assert_eq!(structured["base"], "main");
    assert_eq!(structured["pushed"], true);
    let text = tools::render_pull_request(&pr);
    assert!(
        text.contains(
            "Opened pull request #7: https://github.com/o/r/pull/7 (branch feature → main)."
        ),
        "{text}"
    );

    let asked = std::fs::read_to_string(&log).expect("gh pr was run");
    let asked: Vec<&str> = asked.lines().collect();
    for pair in [
        ["--head", "feature"],
        ["--base", "main"],
        ["--title", "Add x"],
        ["--body", "Because y."],
    ] {
        assert!(asked.windows(2).any(|w| w == pair), "{pair:?} in {asked:?}");
    }
    assert_eq!(&asked[..2], ["pr", "create"]);
    assert!(!asked.contains(&"--draft"), "{asked:?}");
}

/// A branch with an upstream is pushed to its upstream's remote, not to `origin`.
#[tokio::test]
async fn the_branch_goes_to_its_upstreams_remote() {
    let f = fixture();
    let fork = f.file("fork.git");
    git(f.dir.path(), &["init", "-q", "--bare", "fork.git"]);
    git(
        &f.work,
        &["remote", "add", "fork", &fork.display().to_string()],
    );
    git(&f.work, &["config", "branch.feature.remote", "fork"]);
    git(
        &f.work,
        &["config", "branch.feature.merge", "refs/heads/feature"],
    );
    f.gh("exit 0", PRINTS_PR_7);
    let path = f.path();
    let pr = tools::create_pull_request(&f.root, &args("Add x"), &f.run(&path, None))
        .await
        .expect("opened");
    assert_eq!(pr.remote, "fork");
    assert!(f.commit_in(&fork, "feature").is_some(), "pushed to fork");
    assert_eq!(f.commit_in(&f.origin, "feature"), None, "not to origin");
}

/// Calls that cannot work are refused before anyone is asked, each in words saying what to
/// do; the check before asking makes them too.
#[test]
fn impossible_pull_requests_are_refused_before_asking() {
    let f = fixture();
    f.gh("exit 0", PRINTS_PR_7);
    let path = f.path();
    let check = |a: &PullRequestArgs, p: &OsString| {
        tools::check_pull_request(&f.root, a, Some(p.as_os_str()))
            .expect_err("refused")
            .to_string()
    };
    tools::check_pull_request(&f.root, &args("Add x"), Some(&path)).expect("possible");

    assert!(check(&args("  "), &path).contains("needs a title"));
    let toolbox = tools::Toolbox::new(f.root.clone(), f.root.path().join(".session"));
    let err = tools::resolve("create_pull_request", serde_json::json!({"title": ""}))
        .expect("its arguments")
        .check(&toolbox)
        .expect_err("refused before asking");
    assert!(err.to_string().contains("needs a title"), "{err}");

    let err = check(&args("Add x"), &OsString::from("/nonexistent"));
    assert!(err.contains("`gh` is not installed"), "{err}");

    f.gh(
        "echo 'You are not logged into any GitHub hosts. To log in, run: gh auth login' >&2; exit 1",
        PRINTS_PR_7,
    );
    let err = check(&args("Add x"), &path);
    assert!(
        err.contains("not logged in") && err.contains("gh auth login"),
        "{err}"
    );
    f.gh("exit 0", PRINTS_PR_7);

    git(&f.work, &["switch", "-q", "main"]);
    let err = check(&args("Add x"), &path);
    assert!(err.contains("the base branch"), "{err}");

    git(&f.work, &["switch", "-q", "--detach", "feature"]);
    let err = check(&args("Add x"), &path);
    assert!(err.contains("HEAD is detached"), "{err}");

    git(&f.work, &["switch", "-q", "feature"]);
    git(&f.work, &["remote", "remove", "origin"]);
    let err = check(&args("Add x"), &path);
    assert!(
        err.contains("no remote to push to") && err.contains("git remote add origin"),
        "{err}"
    );
}

/// A gh that is not logged in stops the call before the push.
#[tokio::test]
async fn nothing_is_pushed_for_a_gh_that_is_not_logged_in() {
    let f = fixture();
    f.gh("exit 1", PRINTS_PR_7);
    let path = f.path();
    let err = tools::create_pull_request(&f.root, &args("Add x"), &f.run(&path, None))
        .await
        .expect_err("not logged in");
    assert!(err.to_string().contains("gh auth login"), "{err}");
    assert_eq!(f.commit_in(&f.origin, "feature"), None);
}

/// A push the remote refuses fails in git's own words, and gh is never asked.
#[tokio::test]
async fn a_rejected_push_is_said_in_gits_words() {
    use std::os::unix::fs::PermissionsExt as _;
    let f = fixture();
    let hook = f.origin.join("hooks/pre-receive");
    std::fs::write(
        &hook,
        "#!/bin/sh\necho 'pushes are closed today' >&2\nexit 1\n",
    )
    .expect("hook");
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let log = f.file("gh-args");
    f.gh(
        "exit 0",
        &format!("printf '%s\\n' \"$@\" > {}; {PRINTS_PR_7}", q(&log)),
    );
    let path = f.path();
    let err = tools::create_pull_request(&f.root, &args("Add x"), &f.run(&path, None))
        .await
        .expect_err("rejected")
        .to_string();
    assert!(
        err.contains("pushes are closed today") && err.contains("pre-receive hook declined"),
        "{err}"
    );
    assert!(err.contains("no pull request was opened"), "{err}");
    assert!(!log.exists(), "gh pr create ran after a failed push");
}

/// gh's refusal for a branch that already has a pull request names the one there is.
#[tokio::test]
async fn an_existing_pull_request_is_named() {
    let f = fixture();
    f.gh(
        "exit 0",
        "echo 'a pull request for branch \"feature\" into branch \"main\" already exists:' >&2; echo https://github.com/o/r/pull/5 >&2; exit 1",
    );
    let path = f.path();
    let err = tools::create_pull_request(&f.root, &args("Add x"), &f.run(&path, None))
        .await
        .expect_err("exists")
        .to_string();
    assert!(
        err.contains("already exists: https://github.com/o/r/pull/5"),
        "{err}"
    );
}

/// Whether a process is gone: no such process, or one that has ended and awaits its reaper.
fn gone(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

/// Waits (boundedly) for a process to be gone; a killed process is reaped soon after.
async fn ends(pid: &str) -> bool {
    wait_until(
        &format!("process {pid} to end"),
        Duration::from_secs(10),
        || ready(gone(pid)),
    )
    .await
    .is_ok()
}

/// A file the fake gh (or a hook) writes once it runs, read when it is there.
async fn written(file: &Path) -> String {
    let mut text = None;
    wait_until(
        &format!("{} to be written", file.display()),
        Duration::from_secs(30),
        || {
            text = std::fs::read_to_string(file)
                .ok()
                .filter(|s| s.ends_with('\n'));
            ready(text.is_some())
        },
    )
    .await
    .unwrap_or_else(|e| panic!("{e}: {} was never written", file.display()));
    text.expect("written").trim().to_string()
}

/// A gh that never finishes (its own child included) is ended by Stop: the call returns
/// saying so, and no process of it is left.
#[tokio::test]
async fn stop_ends_a_gh_that_never_finishes() {
    let f = fixture();
    let (pid, child) = (f.file("gh.pid"), f.file("sleep.pid"));
    f.gh(
        "exit 0",
        &format!(
            "echo $$ > {}; sleep 600 & echo $! > {}; wait",
            q(&pid),
            q(&child)
        ),
    );
    let path = f.path();
    let cancel = CancellationToken::new();
    let stopper = {
        let (cancel, child) = (cancel.clone(), child.clone());
        tokio::spawn(async move {
            written(&child).await;
            cancel.cancel();
        })
    };
    let (a, run) = (args("Add x"), f.run(&path, Some(cancel)));
    let call = tools::create_pull_request(&f.root, &a, &run);
    // A bound only so that a broken Stop fails the test instead of hanging it.
    let err = tokio::time::timeout(Duration::from_secs(60), call)
        .await
        .expect("the call ended when stopped")
        .expect_err("stopped")
        .to_string();
    stopper.await.expect("stopper");
    assert!(err.contains("`gh pr create` was stopped"), "{err}");
    assert!(err.contains("may or may not have been opened"), "{err}");
    for p in [written(&pid).await, written(&child).await] {
        assert!(ends(&p).await, "process {p} is still running");
    }
}

/// A push that hangs (here the remote's hook) is ended by Stop with everything it started.
#[tokio::test]
async fn stop_ends_a_push_that_hangs() {
    use std::os::unix::fs::PermissionsExt as _;
    let f = fixture();
    let pid = f.file("hook.pid");
    let hook = f.origin.join("hooks/pre-receive");
    std::fs::write(
        &hook,
        format!("#!/bin/sh\nsleep 600 & echo $! > {}\nwait\n", q(&pid)),
    )
    .expect("hook");
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    f.gh("exit 0", PRINTS_PR_7);
    let path = f.path();
    let cancel = CancellationToken::new();
    let stopper = {
        let (cancel, pid) = (cancel.clone(), pid.clone());
        tokio::spawn(async move {
            written(&pid).await;
            cancel.cancel();
        })
    };
    let (a, run) = (args("Add x"), f.run(&path, Some(cancel)));
    let call = tools::create_pull_request(&f.root, &a, &run);
    let err = tokio::time::timeout(Duration::from_secs(60), call)
        .await
        .expect("the call ended when stopped")
        .expect_err("stopped")
        .to_string();
    stopper.await.expect("stopper");
    assert!(err.contains("the push was stopped"), "{err}");
    assert!(err.contains("No pull request was opened"), "{err}");
    let sleeper = written(&pid).await;
    assert!(ends(&sleeper).await, "the hook's sleep is still running");
}

/// A gh that never answers is ended at the time limit, and the call says so.
#[tokio::test]
async fn a_gh_that_never_answers_is_ended_at_the_limit() {
    let f = fixture();
    let pid = f.file("gh.pid");
    f.gh("exit 0", &format!("echo $$ > {}; exec sleep 600", q(&pid)));
    let path = f.path();
    let run = PullRequestRun {
        limit: Duration::from_millis(500),
        ..f.run(&path, None)
    };
    let err = tools::create_pull_request(&f.root, &args("Add x"), &run)
        .await
        .expect_err("timed out")
        .to_string();
    assert!(
        err.contains("`gh pr create` did not finish within"),
        "{err}"
    );
    assert!(ends(&written(&pid).await).await, "gh is still running");
}

/// Attack: a cloned repository's own configuration names programs git runs when pushing
/// (`remote.origin.receivepack`, run here for a remote on this machine; `core.fsmonitor` and
/// `core.pager` when gh runs git). The push and gh run outside the sandbox: none of those
/// programs may run, and the pull request still opens.
#[tokio::test]
async fn a_repositorys_own_programs_never_run_when_the_pull_request_is_opened() {
    let f = fixture();
    let payload = |name: &str| format!("sh -c 'touch {}; exit 1'", f.file(name).display());
    git(
        &f.work,
        &[
            "config",
            "remote.origin.receivepack",
            &payload("receivepack-ran"),
        ],
    );
    git(
        &f.work,
        &["config", "core.fsmonitor", &payload("fsmonitor-ran")],
    );
    git(&f.work, &["config", "core.pager", &payload("pager-ran")]);
    // gh runs git in the repository, as the real one does to find the branch and the remote.
    f.gh(
        "git status >/dev/null 2>&1; git log -1 >/dev/null 2>&1; exit 0",
        &format!("git status >/dev/null 2>&1; git diff HEAD~1 >/dev/null 2>&1; {PRINTS_PR_7}"),
    );
    let path = f.path();
    let pr = tools::create_pull_request(&f.root, &args("Add x"), &f.run(&path, None))
        .await
        .expect("opened");
    assert_eq!(serde_json::to_value(&pr).expect("json")["number"], 7);
    for ran in ["receivepack-ran", "fsmonitor-ran", "pager-ran"] {
        assert!(!f.file(ran).exists(), "the repository's {ran} program ran");
    }
    assert!(
        f.commit_in(&f.origin, "feature").is_some(),
        "pushed all the same"
    );
}

/// Attack: `core.sshCommand` in a cloned repository is a program git runs to reach an ssh
/// remote. The push uses the person's own ssh, never the repository's (the push then fails
/// here, as nothing listens: what matters is that the payload never ran).
#[tokio::test]
async fn a_repositorys_ssh_command_never_runs_on_the_push() {
    let f = fixture();
    let ran = f.file("ssh-ran");
    git(
        &f.work,
        &[
            "config",
            "core.sshCommand",
            &format!("sh -c 'touch {}; exit 1'", ran.display()),
        ],
    );
    git(
        &f.work,
        &[
            "remote",
            "set-url",
            "origin",
            "ssh://git@127.0.0.1:9/o/r.git",
        ],
    );
    f.gh("exit 0", PRINTS_PR_7);
    let path = f.path();
    let err = tools::create_pull_request(&f.root, &args("Add x"), &f.run(&path, None))
        .await
        .expect_err("nothing listens");
    assert!(err.to_string().contains("could not push"), "{err}");
    assert!(!ran.exists(), "the repository's ssh command ran");
}
