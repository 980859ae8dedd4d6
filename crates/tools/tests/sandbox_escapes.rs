//! Commands really run in the sandbox, trying to get out with harmless payloads (a marker
//! file, a line in a fake `.bashrc`, a connection to a listener of the test's own), and the
//! ordinary work that must still succeed. Nothing here is judged by the policy engine: this
//! is the kernel's half of the boundary, and what the host shares with the sandbox or does on
//! its behalf (git's files, sockets, terminals, the temporary folder, the home folder), each
//! followed by the user's own action afterwards (their `git status` outside the sandbox).

use protocol::{Confinement, DenialKind};
use std::io::Read as _;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use test_support::git;
use tools::{
    CommandConfig, CommandOutcome, ProjectRoot, RunCommandArgs, RunContext, SandboxSetup,
    TaskRegistry, Workspace, run_command,
};

/// Files of a home folder that hold secrets the old deny-list did not name.
const HOME_SECRETS_FIXTURE: &[(&str, &str)] = &[
    (".npmrc", "//registry.npmjs.org/:_authToken=NPM-SECRET"),
    (".cache/huggingface/token", "HF-SECRET"),
    (".bash_history", "export TOKEN=HISTORY-SECRET"),
    (
        ".docker/config.json",
        "{\"auths\": {\"x\": {\"auth\": \"DOCKER-SECRET\"}}}",
    ),
    (".local/share/dev.tandem.app/logs/tandem.log", "LOG-SECRET"),
    (".config/unknown-tool/token", "UNKNOWN-SECRET"),
];

struct Fixture {
    _root: tempfile::TempDir,
    /// A folder beside the project: nothing may appear in it.
    outside: PathBuf,
    /// A fake home with a key, a credentials file and a `.bashrc`.
    home: PathBuf,
    project: PathBuf,
    ws: Workspace,
    tasks: TaskRegistry,
    config: CommandConfig,
}

fn secret(p: &Path) -> bool {
    p.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n == ".env" || n.ends_with(".pem"))
}

/// Everything lives under the build's own temporary folder, not /tmp, so that the sandbox
/// replaces /tmp with the session's private one, as it does for a real project.
fn fixture() -> Fixture {
    let helper = sandbox::find_helper()
        .expect("the tandem-sandbox helper is built beside the tests (cargo build -p sandbox)");
    assert!(
        sandbox::probe().sandboxed,
        "this machine can sandbox: {:?}",
        sandbox::probe()
    );
    let root = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
    let base = root.path().canonicalize().expect("canonical");
    let outside = base.join("outside");
    let home = base.join("home");
    let project = base.join("project");
    let session = base.join("session");
    for d in [
        &outside,
        &home.join(".ssh"),
        &home.join(".aws"),
        &project,
        &session,
    ] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    std::fs::write(home.join(".ssh/id_rsa"), "PRIVATE-KEY-MATERIAL").expect("write");
    std::fs::write(home.join(".aws/credentials"), "aws_secret=AWS-SECRET").expect("write");
    std::fs::write(home.join(".bashrc"), "# rc\n").expect("write");
    for (rel, body) in HOME_SECRETS_FIXTURE {
        let p = home.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, body).expect("write");
    }
    std::fs::write(project.join(".env"), "KEY=PROJECT-SECRET\n").expect("write");
    std::fs::write(project.join("notes.txt"), "alpha\nbeta\n").expect("write");
    std::fs::write(
        project.join("test.sh"),
        "#!/bin/sh\ngrep -q beta notes.txt && echo 'tests passed'\n",
    )
    .expect("write");
    git(&project, &["init", "-q"]);
    git(&project, &["config", "user.email", "t@example.com"]);
    git(&project, &["config", "user.name", "Test"]);

    let mut config = CommandConfig::new(session.join("outputs"));
    config.timing.grace = Duration::from_secs(20);
    config.timing.kill_grace = Duration::from_millis(500);
    config.tmp_dir = session.join("tmp");
    config.sandbox = Some(
        SandboxSetup::new(helper, session.join("sandbox"), secret)
            .hiding(vec![home.join(".ssh"), home.join(".aws")])
            .with_home(home.clone(), Vec::new()),
    );
    Fixture {
        ws: Workspace::new(ProjectRoot::open(&project).expect("open")),
        tasks: TaskRegistry::new(),
        config,
        outside,
        home,
        project,
        _root: root,
    }
}

const SANDBOXED: Confinement = Confinement::Sandboxed {
    network: false,
    read_only: false,
};

/// Runs a command in the sandbox; its exit code and output.
async fn run(f: &Fixture, command: &str) -> (Option<i32>, String, CommandOutcome) {
    run_in(f, command, SANDBOXED).await
}

async fn run_in(
    f: &Fixture,
    command: &str,
    confinement: Confinement,
) -> (Option<i32>, String, CommandOutcome) {
    let args = RunCommandArgs {
        command: command.into(),
        description: None,
        timeout: Some(60),
        background: false,
    };
    let out = run_command(
        &f.ws,
        &f.tasks,
        &f.config,
        &args,
        &RunContext::new(confinement),
    )
    .await
    .expect("the command runs");
    match &out {
        CommandOutcome::Finished {
            exit_code, output, ..
        } => (*exit_code, output.clone(), out.clone()),
        other => panic!("not finished: {other:?}"),
    }
}

fn nothing_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("read_dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

#[tokio::test]
async fn writes_outside_the_project_do_not_happen() {
    let f = fixture();
    let o = f.outside.display().to_string();
    let h = f.home.display().to_string();
    let attempts = [
        format!("touch {o}/direct"),
        format!("touch {h}/in-home"),
        "touch ../dotdot".to_string(),
        "cd .. && touch via-cd".to_string(),
        format!("ln -s {o} link && touch link/through-symlink"),
        format!("python3 -c \"open('{o}/python', 'w').write('x')\""),
        format!("perl -e 'open(my $f, \">\", \"{o}/perl\")'"),
        format!("node -e \"require('fs').writeFileSync('{o}/node', 'x')\""),
        format!("awk 'BEGIN {{ system(\"touch {o}/awk\") }}'"),
        format!("printf 'all:\\n\\ttouch {o}/make\\n' > mk && make -f mk"),
        format!("echo {o}/xargs | xargs touch"),
        format!("echo 'echo pwned' >> {h}/.bashrc"),
        "echo 'echo pwned' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit".to_string(),
        "git config core.hooksPath /tmp/hooks".to_string(),
        format!("cp /bin/true {o}/copied"),
    ];
    for a in &attempts {
        let _ = run(&f, a).await;
    }
    assert_eq!(
        nothing_in(&f.outside),
        Vec::<String>::new(),
        "outside the project"
    );
    assert_eq!(
        std::fs::read_to_string(f.home.join(".bashrc")).expect("rc"),
        "# rc\n",
        "the fake home's .bashrc"
    );
    assert!(
        !f.home.join("in-home").exists(),
        "a file appeared in the fake home"
    );
    assert!(
        !f.project.join(".git/hooks/pre-commit").exists(),
        "a git hook was written"
    );
    let config = std::fs::read_to_string(f.project.join(".git/config")).expect("config");
    assert!(!config.contains("hooksPath"), "{config}");
}

#[tokio::test]
async fn secrets_cannot_be_read() {
    let f = fixture();
    let h = f.home.display().to_string();
    for cmd in [
        format!("cat {h}/.ssh/id_rsa"),
        format!("ls -la {h}/.ssh; cat {h}/.aws/credentials"),
        format!("python3 -c \"print(open('{h}/.ssh/id_rsa').read())\""),
        "cat .env".to_string(),
        "cat .e*".to_string(),
        "grep -r SECRET . 2>&1".to_string(),
        "ln -s .env innocent.txt; cat innocent.txt".to_string(),
        "env; cat /proc/1/environ | tr '\\0' '\\n'".to_string(),
    ] {
        let (_, output, _) = run(&f, &cmd).await;
        for secret in ["PRIVATE-KEY-MATERIAL", "AWS-SECRET", "PROJECT-SECRET"] {
            assert!(
                !output.contains(secret),
                "`{cmd}` printed {secret}: {output}"
            );
        }
        assert!(
            !output.contains("CARGO_MANIFEST_DIR"),
            "`{cmd}` saw the test's environment: {output}"
        );
    }
    let (code, output, out) = run(&f, "cat .env").await;
    assert_ne!(code, Some(0));
    let CommandOutcome::Finished { sandbox_denial, .. } = out else {
        unreachable!()
    };
    assert_eq!(
        sandbox_denial.map(|d| d.kind),
        Some(DenialKind::Files),
        "{output}"
    );
    assert_eq!(
        std::fs::read_to_string(f.project.join(".env")).expect("env"),
        "KEY=PROJECT-SECRET\n",
        "the hidden file itself is untouched"
    );
}

#[tokio::test]
async fn the_network_is_off_unless_granted() {
    let f = fixture();
    let listener = TcpListener::bind("127.0.0.1:0").expect("listen");
    listener.set_nonblocking(true).expect("nonblocking");
    let port = listener.local_addr().expect("addr").port();
    let (code, output, out) = run(
        &f,
        &format!("echo hello > /dev/tcp/127.0.0.1/{port} && echo CONNECTED"),
    )
    .await;
    assert_ne!(code, Some(0), "{output}");
    assert!(!output.contains("CONNECTED"), "{output}");
    assert!(
        listener.accept().is_err(),
        "the listener on the machine's loopback got a connection"
    );
    // Its own loopback works: a server and a client inside the same command.
    let (code, output, _) = run(
        &f,
        "python3 -c \"import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); c = socket.create_connection(s.getsockname()); print('loopback ok')\"",
    )
    .await;
    assert_eq!(code, Some(0), "{output}");
    assert!(output.contains("loopback ok"), "{output}");
    let CommandOutcome::Finished { confinement, .. } = out else {
        unreachable!()
    };
    assert_eq!(confinement, SANDBOXED);

    // With the network granted, the same connection arrives.
    let granted = Confinement::Sandboxed {
        network: true,
        read_only: false,
    };
    let (code, output, _) = run_in(
        &f,
        &format!("echo hello > /dev/tcp/127.0.0.1/{port} && echo CONNECTED"),
        granted,
    )
    .await;
    assert_eq!(code, Some(0), "{output}");
    listener.set_nonblocking(false).expect("blocking");
    let (mut conn, _) = listener.accept().expect("the granted connection arrived");
    let mut got = String::new();
    conn.read_to_string(&mut got).expect("read");
    assert_eq!(got, "hello\n");
}

#[tokio::test]
async fn the_process_tree_ends_with_the_command() {
    let f = fixture();
    // A daemon that leaves its session and process group, and would write a marker later.
    let (code, output, _) = run(
        &f,
        "setsid sh -c 'echo $$ > /tmp/daemon.pid; sleep 3; touch escaped-daemon' > /dev/null 2>&1 & sleep 0.5; echo started",
    )
    .await;
    assert_eq!(code, Some(0), "{output}");
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert!(
        !f.project.join("escaped-daemon").exists(),
        "a setsid daemon outlived its command"
    );
    // It saw only its own processes.
    let (_, output, _) = run(&f, "ps -e -o comm= | sort | tr '\\n' ' '").await;
    assert!(!output.contains("cargo"), "{output}");
}

#[tokio::test]
async fn ordinary_work_still_runs() {
    let f = fixture();
    let steps = [
        "mkdir -p build && echo built > build/out.txt",
        "sh test.sh",
        "sed -i 's/alpha/gamma/' notes.txt",
        "git add notes.txt test.sh && git commit -q -m 'work' && git log --oneline | wc -l",
        "mktemp > .last-temp && echo scratch > \"$(cat .last-temp)\"",
    ];
    for s in steps {
        let (code, output, _) = run(&f, s).await;
        assert_eq!(code, Some(0), "`{s}` failed: {output}");
    }
    assert_eq!(
        std::fs::read_to_string(f.project.join("notes.txt")).expect("notes"),
        "gamma\nbeta\n"
    );
    assert!(f.project.join("build/out.txt").exists());
    // A temporary file made by one command is there for the next.
    let (code, output, _) = run(&f, "cat \"$(cat .last-temp)\"").await;
    assert_eq!((code, output.as_str()), (Some(0), "scratch\n"));
    let (code, output, _) = run(&f, "git status --short").await;
    assert_eq!(code, Some(0), "{output}");
}

#[tokio::test]
async fn read_only_mode_keeps_the_project_as_it_is() {
    let f = fixture();
    let read_only = Confinement::Sandboxed {
        network: false,
        read_only: true,
    };
    let (code, output, _) = run_in(&f, "touch new-file; echo x >> notes.txt", read_only).await;
    assert_ne!(code, Some(0), "{output}");
    assert!(!f.project.join("new-file").exists());
    assert_eq!(
        std::fs::read_to_string(f.project.join("notes.txt")).expect("notes"),
        "alpha\nbeta\n"
    );
    let (code, output, _) = run_in(&f, "cat notes.txt", read_only).await;
    assert_eq!((code, output.as_str()), (Some(0), "alpha\nbeta\n"));
}

async fn run_with(
    f: &Fixture,
    config: &CommandConfig,
    command: &str,
    confinement: Confinement,
) -> (Option<i32>, String, CommandOutcome) {
    let args = RunCommandArgs {
        command: command.into(),
        description: None,
        timeout: Some(60),
        background: false,
    };
    let out = run_command(
        &f.ws,
        &f.tasks,
        config,
        &args,
        &RunContext::new(confinement),
    )
    .await
    .expect("the command runs");
    match &out {
        CommandOutcome::Finished {
            exit_code, output, ..
        } => (*exit_code, output.clone(), out.clone()),
        other => panic!("not finished: {other:?}"),
    }
}

fn undone(out: &CommandOutcome) -> Vec<String> {
    match out {
        CommandOutcome::Finished { undone, .. } => undone.clone(),
        _ => Vec::new(),
    }
}

/// The user's own git, outside the sandbox, as they would run it after the agent's command.
fn users_git(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "User")
        .env("GIT_AUTHOR_EMAIL", "u@example.com")
        .env("GIT_COMMITTER_NAME", "User")
        .env("GIT_COMMITTER_EMAIL", "u@example.com")
        .output()
        .expect("git")
}

fn commit_all(dir: &Path) {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "--allow-empty", "-m", "base"]);
}

#[tokio::test]
async fn git_cannot_be_pointed_at_planted_programs() {
    let f = fixture();
    let marker = f.outside.join("host-ran");
    let m = marker.display().to_string();
    std::fs::write(f.project.join("tracked.txt"), "x\n").expect("write");
    commit_all(&f.project);
    // The repository's files as the user has them.
    let config_before = std::fs::read_to_string(f.project.join(".git/config")).expect("config");

    let plant_config = format!("[core]\\n\\tfsmonitor = touch {m}\\n");
    let attempts = [
        // commondir pointing at a folder with its own config and hooks.
        format!(
            "mkdir -p .evil/hooks && printf '{plant_config}' > .evil/config && printf '#!/bin/sh\\ntouch {m}\\n' > .evil/hooks/pre-commit && chmod +x .evil/hooks/pre-commit && echo ../.evil > .git/commondir"
        ),
        format!("printf '{plant_config}' > .git/config.worktree"),
        // .git moved aside and replaced by one of the command's.
        format!(
            "mv .git .git-real && mkdir -p .git/hooks && printf '{plant_config}' > .git/config"
        ),
        // A submodule's git folder and hooks.
        format!(
            "mkdir -p .git/modules/sub/hooks && printf '{plant_config}' > .git/modules/sub/config"
        ),
        "mkdir -p .git/worktrees/w && echo x > .git/worktrees/w/gitdir".to_string(),
        // The project's rules and instructions.
        "mkdir -p .tandem && echo '[commands]' > .tandem/policy.toml".to_string(),
        format!("printf '#!/bin/sh\\ntouch {m}\\n' > .git/hooks/pre-commit"),
        "echo '[core]' >> .git/info/attributes; echo x > .git/info/exclude".to_string(),
    ];
    let mut undone_all = Vec::new();
    for a in &attempts {
        let (_, _, out) = run(&f, a).await;
        undone_all.extend(undone(&out));
    }
    assert!(
        undone_all.iter().any(|u| u.contains(".git/commondir")),
        "{undone_all:?}"
    );
    assert!(
        undone_all
            .iter()
            .any(|u| u.contains(".git/config.worktree")),
        "{undone_all:?}"
    );
    for gone in [
        ".git/commondir",
        ".git/config.worktree",
        ".git-real",
        ".git/modules/sub",
        ".git/worktrees/w",
        ".tandem/policy.toml",
        ".git/hooks/pre-commit",
    ] {
        assert!(
            std::fs::symlink_metadata(f.project.join(gone)).is_err(),
            "{gone} exists"
        );
    }
    assert_eq!(
        std::fs::read_to_string(f.project.join(".git/config")).expect("config"),
        config_before
    );
    // The user's next git commands run nothing planted.
    std::fs::write(f.project.join("tracked.txt"), "y\n").expect("write");
    let st = users_git(&f.project, &["status", "--short"]);
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let ci = users_git(&f.project, &["commit", "-qam", "mine"]);
    assert!(
        ci.status.success(),
        "{}",
        String::from_utf8_lossy(&ci.stderr)
    );
    assert!(!marker.exists(), "the user's git ran a planted program");
}

#[tokio::test]
async fn a_repository_made_by_a_command_is_disabled() {
    let f = fixture();
    let marker = f.outside.join("nested-ran");
    let m = marker.display().to_string();
    commit_all(&f.project);
    let (code, output, out) = run(
        &f,
        &format!(
            "git init -q sub && git -C sub config core.fsmonitor 'touch {m}; false' && touch sub/a && git add sub"
        ),
    )
    .await;
    let u = undone(&out);
    assert!(
        u.iter().any(|x| x.contains("sub/.git")),
        "{code:?} {output} {u:?}"
    );
    assert!(output.contains("undone"), "{output}");
    assert!(!f.project.join("sub/.git").exists());
    assert!(f.project.join("sub/.git-disabled-by-tandem").is_dir());
    // The user's git, in the outer repository and inside the folder.
    users_git(&f.project, &["status"]);
    users_git(&f.project.join("sub"), &["status"]);
    assert!(
        !marker.exists(),
        "the user's git ran the nested repository's program"
    );
    // A repository made in the background is disabled when it ends, too.
    let args = RunCommandArgs {
        command: "git init -q bg-repo".into(),
        description: None,
        timeout: Some(30),
        background: true,
    };
    run_command(
        &f.ws,
        &f.tasks,
        &f.config,
        &args,
        &RunContext::new(SANDBOXED),
    )
    .await
    .expect("starts");
    // Given time to end and be disabled; what is checked is that no `.git` is left.
    let _ = test_support::wait_until(
        "the background repository to be disabled",
        Duration::from_secs(10),
        || std::future::ready(f.project.join("bg-repo/.git-disabled-by-tandem").exists()),
    )
    .await;
    assert!(!f.project.join("bg-repo/.git").exists());
}

#[tokio::test]
async fn a_worktrees_git_file_and_the_hooks_path_stay_read_only() {
    let f = fixture();
    let marker = f.outside.join("hook-ran");
    let m = marker.display().to_string();
    git(&f.project, &["config", "core.hooksPath", ".husky"]);
    commit_all(&f.project);
    // A linked worktree beside the project, used as the project.
    let wt = f.project.with_file_name("worktree");
    git(
        &f.project,
        &[
            "worktree",
            "add",
            "-q",
            wt.to_str().expect("utf-8"),
            "-b",
            "w",
        ],
    );
    let mut config = f.config.clone();
    config.tmp_dir = f.project.with_file_name("wt-tmp");
    let ws = Workspace::new(ProjectRoot::open(&wt).expect("open"));
    let args = |c: &str| RunCommandArgs {
        command: c.into(),
        description: None,
        timeout: Some(30),
        background: false,
    };
    let gitfile = std::fs::read_to_string(wt.join(".git")).expect(".git file");
    for c in [
        format!("echo 'gitdir: {}' > .git", f.outside.display()),
        format!(
            "mkdir -p .husky && printf '#!/bin/sh\\ntouch {m}\\n' > .husky/pre-commit && chmod +x .husky/pre-commit"
        ),
    ] {
        let _ = run_command(
            &ws,
            &f.tasks,
            &config,
            &args(&c),
            &RunContext::new(SANDBOXED),
        )
        .await
        .expect("runs");
    }
    assert_eq!(
        std::fs::read_to_string(wt.join(".git")).expect(".git"),
        gitfile
    );
    assert!(!wt.join(".husky/pre-commit").exists());
    std::fs::write(wt.join("new.txt"), "x").expect("write");
    users_git(&wt, &["add", "new.txt"]);
    let ci = users_git(&wt, &["commit", "-qm", "user"]);
    assert!(
        ci.status.success(),
        "{}",
        String::from_utf8_lossy(&ci.stderr)
    );
    assert!(!marker.exists(), "the user's commit ran a planted hook");
}

#[tokio::test]
async fn git_with_the_network_or_in_read_only_runs_no_repository_program() {
    let mut f = fixture();
    // Markers go to the command's own /tmp, the one place it can write in every mode.
    let m = "/tmp/repo-program-ran";
    // A remote beside the project, and repository settings that name programs (as a folder
    // copied with its .git would have).
    let remote = f.project.with_file_name("remote.git");
    git(
        &f.project,
        &["init", "-q", "--bare", remote.to_str().expect("utf-8")],
    );
    std::fs::write(f.project.join("f.txt"), "one\n").expect("write");
    commit_all(&f.project);
    git(
        &f.project,
        &["remote", "add", "origin", remote.to_str().expect("utf-8")],
    );
    git(&f.project, &["push", "-q", "origin", "HEAD:main"]);
    // Outside the project, the remote is read only because the person's rules say so.
    let granted = remote.clone();
    f.config.sandbox.as_mut().expect("sandbox").granted_reads =
        tools::GrantedReads::from(move || vec![granted.clone()]);
    for (k, v) in [
        (
            "remote.origin.uploadpack",
            format!("touch {m}-uploadpack; git-upload-pack"),
        ),
        ("core.fsmonitor", format!("touch {m}-fsmonitor; false")),
        ("core.sshCommand", format!("touch {m}-ssh; ssh")),
    ] {
        git(&f.project, &["config", k, &v]);
    }
    std::fs::write(f.project.join(".gitattributes"), "*.txt diff=evil\n").expect("write");
    git(
        &f.project,
        &[
            "config",
            "diff.evil.textconv",
            &format!("touch {m}-textconv; cat"),
        ],
    );
    // The secret stays out of the index: a hidden file git tracks cannot be hashed.
    git(&f.project, &["rm", "-q", "--cached", ".env"]);
    std::fs::write(f.project.join(".gitignore"), ".env\n").expect("write");
    commit_all(&f.project);
    std::fs::write(f.project.join("f.txt"), "three\n").expect("write");
    std::fs::write(f.project.join("f.txt"), "two\n").expect("write");

    let network = Confinement::Sandboxed {
        network: true,
        read_only: false,
    };
    let (code, output, _) = run_in(&f, "git fetch origin", network).await;
    assert_eq!(code, Some(0), "{output}");
    let read_only = Confinement::Sandboxed {
        network: false,
        read_only: true,
    };
    for c in ["git status --short", "git diff", "git log -p -1"] {
        let (code, output, _) = run_in(&f, c, read_only).await;
        assert_eq!(code, Some(0), "`{c}`: {output}");
    }
    let ran = || -> Vec<String> {
        nothing_in(&f.config.tmp_dir)
            .into_iter()
            .filter(|n| n.starts_with("repo-program-ran"))
            .collect()
    };
    assert_eq!(ran(), Vec::<String>::new(), "repository programs ran");
    // A command sandboxed as usual runs git as the user would (the test can tell).
    let _ = run(&f, "git status --short").await;
    assert_eq!(ran(), vec!["repo-program-ran-fsmonitor".to_string()]);
}

#[tokio::test]
async fn python_in_read_only_does_not_import_the_projects_modules_first() {
    let f = fixture();
    std::fs::create_dir_all(f.project.join("json")).expect("mkdir");
    std::fs::write(
        f.project.join("json/__init__.py"),
        "print('PROJECT-CODE-RAN')\n",
    )
    .expect("write");
    std::fs::write(f.project.join("data.json"), "{\"a\": 1}").expect("write");
    let read_only = Confinement::Sandboxed {
        network: false,
        read_only: true,
    };
    let (code, output, _) = run_in(&f, "python3 -m json.tool data.json", read_only).await;
    assert_eq!(code, Some(0), "{output}");
    assert!(!output.contains("PROJECT-CODE-RAN"), "{output}");
    assert!(output.contains("\"a\": 1"), "{output}");
}

#[tokio::test]
async fn the_machines_sockets_and_terminals_are_out_of_reach() {
    use std::os::unix::net::UnixListener;
    let f = fixture();
    // Agents and services a user has: under the home folder, beside the project, in /tmp.
    let tmp_dir = tempfile::tempdir().expect("tmp");
    let places = [
        f.home.join(".1password/agent.sock"),
        f.outside.join("db.sock"),
        tmp_dir.path().join("ssh-agent.sock"),
    ];
    let mut listeners = Vec::new();
    for p in &places {
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        let l = UnixListener::bind(p).expect("bind");
        l.set_nonblocking(true).expect("nonblocking");
        listeners.push(l);
    }
    for p in &places {
        let (code, output, _) = run(
            &f,
            &format!(
                "python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('{}'); print('CONNECTED')\"",
                p.display()
            ),
        )
        .await;
        assert_ne!(code, Some(0), "{}: {output}", p.display());
        assert!(!output.contains("CONNECTED"), "{output}");
    }
    for l in &listeners {
        assert!(l.accept().is_err(), "a socket outside got a connection");
    }
    // The machine's /tmp and /run are not there.
    let host_file = tmp_dir.path().join("host-scratch");
    std::fs::write(&host_file, "HOST-TMP").expect("write");
    let (_, output, _) = run(
        &f,
        &format!(
            "cat {} 2>&1; find /run /var/run -type s 2>/dev/null | wc -l",
            host_file.display()
        ),
    )
    .await;
    assert!(!output.contains("HOST-TMP"), "{output}");
    assert!(
        output.trim_end().ends_with('0'),
        "sockets under /run: {output}"
    );
    // vsock is refused with the network off.
    let (code, output, _) = run(
        &f,
        "python3 -c \"import socket; socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM); print('VSOCK')\"",
    )
    .await;
    assert_ne!(code, Some(0), "{output}");
    assert!(!output.contains("VSOCK"), "{output}");
}

#[tokio::test]
async fn the_users_terminals_are_not_there() {
    let f = fixture();
    // A terminal of the user's: a pty this test holds open.
    let mut holder = Command::new("python3")
        .args([
            "-c",
            "import os, pty, sys, time; m, s = pty.openpty(); print(os.ttyname(s), flush=True); time.sleep(30)",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    let mut first = String::new();
    {
        use std::io::BufRead as _;
        let out = holder.stdout.take().expect("stdout");
        std::io::BufReader::new(out)
            .read_line(&mut first)
            .expect("tty name");
    }
    let tty = first.trim().to_string();
    assert!(tty.starts_with("/dev/pts/"), "{tty}");
    let (code, output, _) = run(&f, &format!("echo typed > {tty} && echo WROTE")).await;
    assert!(!output.contains("WROTE"), "{code:?} {output}");
    let (_, listed, _) = run(&f, "ls /dev/pts").await;
    let _ = holder.kill();
    let _ = holder.wait();
    assert_eq!(listed.trim(), "ptmx", "the machine's terminals are listed");
}

#[tokio::test]
async fn the_home_folder_shows_only_what_toolchains_need() {
    let f = fixture();
    let mut config = f.config.clone();
    let visible = f.home.join(".cargo");
    std::fs::create_dir_all(visible.join("bin")).expect("mkdir");
    std::fs::write(visible.join("bin/tool"), "TOOLCHAIN-FILE").expect("write");
    if let Some(s) = config.sandbox.take() {
        config.sandbox = Some(s.with_home(f.home.clone(), vec![visible.clone()]));
    }
    let cats: Vec<String> = HOME_SECRETS_FIXTURE
        .iter()
        .map(|(rel, _)| format!("cat {}/{rel} 2>&1", f.home.display()))
        .collect();
    let (_, output, _) = run_with(&f, &config, &cats.join("; "), SANDBOXED).await;
    for (_, body) in HOME_SECRETS_FIXTURE {
        let secret = body
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '-')
            .find(|w| w.ends_with("-SECRET"))
            .expect("a marker");
        assert!(!output.contains(secret), "{secret} was read: {output}");
    }
    let (code, output, _) = run_with(
        &f,
        &config,
        &format!(
            "cat {}/bin/tool; echo; ls -A {}",
            visible.display(),
            f.home.display()
        ),
        SANDBOXED,
    )
    .await;
    assert_eq!(code, Some(0), "{output}");
    assert!(output.contains("TOOLCHAIN-FILE"), "{output}");
    assert_eq!(
        output.lines().nth(1).map(str::trim),
        Some(".cargo"),
        "{output}"
    );
}

#[tokio::test]
async fn a_secret_moved_elsewhere_stays_hidden() {
    let f = fixture();
    std::fs::create_dir_all(f.project.join("config")).expect("mkdir");
    std::fs::write(f.project.join("config/.env"), "KEY=MOVED-SECRET\n").expect("write");
    let (_, output, _) = run(
        &f,
        "mkdir -p target && mv config target/ ; ls target/config; cat target/config/.env",
    )
    .await;
    assert!(!output.contains("MOVED-SECRET"), "{output}");
    let (_, output, _) = run(
        &f,
        "cat target/config/.env config/.env 2>&1; grep -r MOVED . 2>&1",
    )
    .await;
    assert!(!output.contains("MOVED-SECRET"), "{output}");
}

#[tokio::test]
async fn links_planted_in_the_temporary_folder_lead_the_host_nowhere() {
    let f = fixture();
    let victim = f.home.join("victim.txt");
    std::fs::write(&victim, "KEEP ME").expect("write");
    // What a command could leave in its /tmp for the helper's next run: links named as the
    // helper's report file would be for the next process ids.
    std::fs::create_dir_all(&f.config.tmp_dir).expect("tmp");
    let next = std::fs::read_to_string("/proc/sys/kernel/ns_last_pid")
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok())
        .unwrap_or(1000);
    for pid in next..next + 3000 {
        let _ = std::os::unix::fs::symlink(
            &victim,
            f.config.tmp_dir.join(format!(".tandem-sandbox-{pid}")),
        );
    }
    for _ in 0..5 {
        let (code, output, _) = run(&f, "echo ok").await;
        assert_eq!((code, output.as_str()), (Some(0), "ok\n"));
    }
    assert_eq!(std::fs::read_to_string(&victim).expect("victim"), "KEEP ME");
}

#[tokio::test]
async fn a_fork_bomb_and_a_memory_hog_end_with_the_limits() {
    let f = fixture();
    let mut config = f.config.clone();
    if let Some(mut s) = config.sandbox.take() {
        s.limits = sandbox::Limits {
            processes: 400,
            memory_bytes: 256 << 20,
            ..s.limits
        };
        config.sandbox = Some(s);
    }
    let (code, output, _) = run_with(
        &f,
        &config,
        "for i in $(seq 600); do sleep 5 & done 2>&1 | tail -n 1; echo started",
        SANDBOXED,
    )
    .await;
    assert!(
        ["Resource temporarily unavailable", "fork:", "Cannot fork"]
            .iter()
            .any(|m| output.contains(m)),
        "{code:?} {output}"
    );
    let (code, output, out) = run_with(
        &f,
        &config,
        "python3 -c \"x = bytearray(1024 * 1024 * 1024); print('ALLOCATED')\"",
        SANDBOXED,
    )
    .await;
    assert_ne!(code, Some(0), "{output}");
    assert!(output.contains("MemoryError"), "{output}");
    assert!(!output.contains("ALLOCATED"), "{output}");
    // The result says which limit it was, in words.
    let text = tools::render_outcome(&out);
    assert!(
        text.contains("limit of 0.3 GB of memory per process"),
        "{text}"
    );
}

/// A folder at the top of the machine for a test, removed when dropped; `None` where this
/// user may not make one (not root).
struct TopFolder(PathBuf);

impl TopFolder {
    fn make(name: &str) -> Option<TopFolder> {
        let path = PathBuf::from(format!("/{name}-{}", std::process::id()));
        std::fs::create_dir_all(&path).ok()?;
        Some(TopFolder(path))
    }
}

impl Drop for TopFolder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Issue 45: Landlock let a command read every top-level folder: `/srv/otherapp/.env`, `/opt`,
/// `/data`, `/mnt` were printed. Reads are an allow-list now: the system, the project, its
/// temporary folder and the home's toolchains; another application's folder at the top of
/// the machine, and `/var/tmp`, are not readable. A toolchain under `/opt` still runs.
#[tokio::test]
async fn folders_outside_the_allow_list_are_unreadable_and_opt_still_runs() {
    let f = fixture();
    let Some(other) = TopFolder::make("tandem-otherapp") else {
        eprintln!("skipped: this user cannot make a folder at the top of the machine");
        return;
    };
    std::fs::write(other.0.join(".env"), "TOKEN=other-app-marker-45\n").expect("write");
    let var_tmp = PathBuf::from(format!("/var/tmp/tandem-45-{}", std::process::id()));
    std::fs::write(&var_tmp, "var-tmp-marker-45\n").expect("write");
    let tool = PathBuf::from(format!("/opt/tandem-tool-{}", std::process::id()));
    std::fs::create_dir_all(&tool).expect("opt");
    let script = tool.join("hello");
    std::fs::write(&script, "#!/bin/sh\necho toolchain-ran\n").expect("write");
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");

    let (_, output, _) = run(
        &f,
        &format!(
            "cat {0}/.env; ls {0}; cat {1}; find / -maxdepth 3 -name .env 2>/dev/null | xargs cat 2>/dev/null; {2}",
            other.0.display(),
            var_tmp.display(),
            script.display()
        ),
    )
    .await;
    let _ = std::fs::remove_file(&var_tmp);
    let _ = std::fs::remove_dir_all(&tool);
    assert!(!output.contains("other-app-marker-45"), "{output}");
    assert!(!output.contains("var-tmp-marker-45"), "{output}");
    assert!(
        output.contains("toolchain-ran"),
        "a toolchain under /opt runs: {output}"
    );
}

/// Issue 45: `git remote -v` printed a token in the remote's URL (`https://user:ghp_…@host`).
/// A command sees the repository's configuration without it (the host and path stay), whether
/// it writes or only reads; the project's own file keeps it.
#[tokio::test]
async fn a_token_in_a_remote_url_never_reaches_a_command() {
    let f = fixture();
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(&f.project)
            .status()
            .expect("git")
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&[
        "remote",
        "add",
        "origin",
        "https://me:ghp_fakeTokenMarker45@github.com/o/r.git",
    ]);
    git(&[
        "config",
        "http.https://github.com/.extraheader",
        "AUTHORIZATION: basic fakeHeaderMarker45",
    ]);
    for confinement in [
        SANDBOXED,
        Confinement::Sandboxed {
            network: false,
            read_only: true,
        },
    ] {
        let (code, output, _) = run_in(
            &f,
            "git remote -v; git config --get remote.origin.url; cat .git/config; git config --list",
            confinement,
        )
        .await;
        assert!(
            output.contains("https://github.com/o/r.git"),
            "{code:?} {output}"
        );
        assert!(
            !output.contains("fakeTokenMarker45"),
            "{confinement:?}: {output}"
        );
        assert!(
            !output.contains("fakeHeaderMarker45"),
            "{confinement:?}: {output}"
        );
    }
    let config = std::fs::read_to_string(f.project.join(".git/config")).expect("config");
    assert!(
        config.contains("fakeTokenMarker45"),
        "the project's own file is left as it was"
    );
}

/// Issue 45: a host service's socket inside the project (a development Postgres's
/// `.devenv/state/postgres/.s.PGSQL.5432`) stayed reachable: the kernel's table names sockets
/// as they were bound, and this one was bound by a relative name from its folder. Socket files
/// in the project are found by type and hidden, however they were named.
#[tokio::test]
async fn a_host_services_socket_in_the_project_is_unreachable() {
    let f = fixture();
    let dir = f.project.join(".devenv/state/postgres");
    std::fs::create_dir_all(&dir).expect("mkdir");
    // The "service": a process of the host that binds by a relative name from its folder,
    // and says whether anyone connected within a few seconds.
    let service = std::process::Command::new("python3")
        .arg("-c")
        .arg(
            "import socket, sys\n\
             s = socket.socket(socket.AF_UNIX); s.bind('.s.PGSQL.5432'); s.listen(1)\n\
             open('ready', 'w').close(); s.settimeout(4)\n\
             try:\n    s.accept(); open('accepted', 'w').close()\n\
             except OSError:\n    pass\n",
        )
        .current_dir(&dir)
        .spawn()
        .expect("python3");
    let ready = test_support::wait_until_blocking(
        "the service to listen",
        std::time::Duration::from_secs(10),
        || dir.join("ready").exists(),
    );
    assert!(ready.is_ok(), "the service did not start");
    let (code, output, _) = run(
        &f,
        "python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('.devenv/state/postgres/.s.PGSQL.5432'); print('CONNECTED')\"",
    )
    .await;
    let mut service = service;
    let _ = service.wait();
    assert!(!output.contains("CONNECTED"), "{code:?} {output}");
    assert!(
        !dir.join("accepted").exists(),
        "the service saw a connection from the sandbox"
    );
    // An ordinary file beside it is still there for the command.
    std::fs::write(dir.join("postgresql.conf"), "port = 5432\n").expect("write");
    let (_, output, _) = run(&f, "cat .devenv/state/postgres/postgresql.conf").await;
    assert!(output.contains("port = 5432"), "{output}");
    // A socket the command itself makes in the project is its own to use, over a layer of the
    // project or not (a test suite's own server and client).
    let own = "python3 -c \"import os, socket, threading\ns = socket.socket(socket.AF_UNIX); s.bind('run/own.sock'); s.listen(1)\nt = threading.Thread(target=lambda: s.accept()[0].sendall(b'OWN-SOCKET-OK')); t.start()\nc = socket.socket(socket.AF_UNIX); c.connect('run/own.sock'); print(c.recv(64).decode()); t.join()\"";
    for layers in [false, true] {
        let mut config = f.config.clone();
        if let Some(s) = config.sandbox.take() {
            config.sandbox = Some(s.with_layers(layers));
        }
        std::fs::create_dir_all(f.project.join("run")).expect("mkdir");
        let (code, output, _) = run_with(&f, &config, own, SANDBOXED).await;
        assert!(
            output.contains("OWN-SOCKET-OK"),
            "layers {layers}: {code:?} {output}"
        );
        let _ = std::fs::remove_file(f.project.join("run/own.sock"));
    }
}

/// Issue 45: a command could fill the disk under the app: nothing limited what it wrote, and
/// its private `/tmp` is on the machine's disk. One file may hold `file_bytes` now, in `/tmp`
/// as in the project, and the result names the limit; no core file is left behind.
#[tokio::test]
async fn a_file_past_the_size_limit_is_stopped_and_named() {
    let f = fixture();
    let mut config = f.config.clone();
    if let Some(mut s) = config.sandbox.take() {
        s.limits = sandbox::Limits {
            file_bytes: 4 << 20,
            ..s.limits
        };
        config.sandbox = Some(s);
    }
    for target in ["/tmp/fill.bin", "fill.bin"] {
        let (code, output, out) = run_with(
            &f,
            &config,
            &format!(
                "head -c 64M /dev/zero > {target}; ls -l {target} | awk '{{print \"size=\" $5}}'"
            ),
            SANDBOXED,
        )
        .await;
        assert!(
            output.contains(&format!("size={}", 4 << 20)),
            "{target}: the file stopped at the limit: {code:?} {output}"
        );
        let text = tools::render_outcome(&out);
        assert!(
            text.contains("limit of 4.0 MB for one file"),
            "{target}: {text}"
        );
    }
    let cores: Vec<_> = std::fs::read_dir(&f.project)
        .expect("project")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("core"))
        .collect();
    assert!(cores.is_empty(), "core files: {cores:?}");
    // Ordinary writes are untouched by it.
    let (code, output, _) = run_with(
        &f,
        &config,
        "head -c 1M /dev/zero > small.bin && echo ok",
        SANDBOXED,
    )
    .await;
    assert_eq!((code, output.as_str()), (Some(0), "ok\n"));
}

#[tokio::test]
async fn nothing_outlives_a_command_run_outside_the_sandbox() {
    let f = fixture();
    let mut config = f.config.clone();
    config.reaper = Some(sandbox::find_helper().expect("helper"));
    let outside = Confinement::Outside {
        reason: protocol::OutsideReason::Approved,
    };
    let marker = f.outside.join("outlived");
    let (code, output, _) = run_with(
        &f,
        &config,
        &format!(
            "setsid sh -c 'sleep 2; touch {}' > /dev/null 2>&1 & sleep 0.3; echo started",
            marker.display()
        ),
        outside,
    )
    .await;
    assert_eq!((code, output.as_str()), (Some(0), "started\n"));
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(!marker.exists(), "a setsid child outlived its command");
}

#[tokio::test]
async fn a_helper_kept_under_tmp_still_sandboxes() {
    let f = fixture();
    let dir = tempfile::tempdir().expect("tmp");
    let helper = dir.path().join("tandem-sandbox");
    std::fs::copy(sandbox::find_helper().expect("helper"), &helper).expect("copy");
    let mut config = f.config.clone();
    if let Some(mut s) = config.sandbox.take() {
        s.helper = helper;
        config.sandbox = Some(s);
    }
    let (code, output, _) = run_with(&f, &config, "echo fine", SANDBOXED).await;
    assert_eq!((code, output.as_str()), (Some(0), "fine\n"));
}

/// Issue 45: projects that need a folder outside get it by a rule the person grants. In CI the
/// project's folder lives under `/var/tmp`, hidden whole, and a remote beside it was gone:
/// `git fetch` failed. A folder outside — at the top of the machine or in `/var/tmp` — is read
/// only when the rules grant it (`paths.allow_read`) or the person let this command read it;
/// a service's socket beside a granted folder stays out of reach.
#[tokio::test]
async fn a_folder_outside_is_read_only_when_granted() {
    let mut f = fixture();
    let Some(top) = TopFolder::make("tandem-shared") else {
        eprintln!("skipped: this user cannot make a folder at the top of the machine");
        return;
    };
    let lib = top.0.join("lib");
    let svc = top.0.join("svc");
    std::fs::create_dir_all(&lib).expect("mkdir");
    std::fs::create_dir_all(&svc).expect("mkdir");
    std::fs::write(lib.join("data.txt"), "top-granted-marker\n").expect("write");
    // Bound by relative names from their folders, so the kernel's table does not name them.
    struct Listener(std::process::Child);
    impl Drop for Listener {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let listen = |dir: &Path, name: &str| {
        let child = Command::new("python3")
            .arg("-c")
            .arg("import socket, sys, time; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(); print('up', flush=True); time.sleep(120)")
            .arg(name)
            .current_dir(dir)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("python3");
        let mut child = Listener(child);
        let mut up = [0u8; 2];
        child
            .0
            .stdout
            .as_mut()
            .expect("stdout")
            .read_exact(&mut up)
            .expect("listening");
        child
    };
    let _in_lib = listen(&lib, "in-lib.sock");
    let _beside = listen(&svc, "beside.sock");
    let var_tmp = PathBuf::from(format!("/var/tmp/tandem-45-grant-{}", std::process::id()));
    std::fs::create_dir_all(&var_tmp).expect("mkdir");
    std::fs::write(var_tmp.join("data.txt"), "var-tmp-granted-marker\n").expect("write");
    struct Gone(PathBuf);
    impl Drop for Gone {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    let _gone = Gone(var_tmp.clone());
    // As the app hides them: every outside folder at the top of the machine, and /var/tmp.
    let setup = f.config.sandbox.take().expect("sandbox");
    let mut hidden = setup.hidden.clone();
    hidden.extend([top.0.clone(), PathBuf::from("/var/tmp")]);
    f.config.sandbox = Some(setup.hiding(hidden));
    let command = format!(
        "cat {0}/data.txt {1}/data.txt; for s in {0}/in-lib.sock {2}/beside.sock; do python3 -c \"import socket,sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print('CONNECTED', sys.argv[1])\" $s 2>/dev/null; done; true",
        lib.display(),
        var_tmp.display(),
        svc.display()
    );

    let (_, before, _) = run(&f, &command).await;
    assert!(!before.contains("top-granted-marker"), "{before}");
    assert!(!before.contains("var-tmp-granted-marker"), "{before}");

    // Approved for this one command (the person said yes to a command naming them).
    let args = RunCommandArgs {
        command: command.clone(),
        description: None,
        timeout: Some(60),
        background: false,
    };
    let mut ctx = RunContext::new(SANDBOXED);
    ctx.readable = vec![lib.clone(), var_tmp.clone()];
    let once = match run_command(&f.ws, &f.tasks, &f.config, &args, &ctx)
        .await
        .expect("runs")
    {
        CommandOutcome::Finished { output, .. } => output,
        other => panic!("not finished: {other:?}"),
    };
    assert!(once.contains("top-granted-marker"), "{once}");
    assert!(once.contains("var-tmp-granted-marker"), "{once}");
    assert!(!once.contains("CONNECTED"), "a socket was reached: {once}");

    // Granted by the rules, for every command.
    let granted = vec![lib.clone(), var_tmp.clone()];
    f.config.sandbox.as_mut().expect("sandbox").granted_reads =
        tools::GrantedReads::from(move || granted.clone());
    let (_, after, _) = run(&f, &command).await;
    assert!(after.contains("top-granted-marker"), "{after}");
    assert!(after.contains("var-tmp-granted-marker"), "{after}");
    assert!(
        !after.contains("CONNECTED"),
        "a socket was reached: {after}"
    );
    // What the grant does not name stays unreadable.
    let (_, sibling, _) = run(&f, &format!("ls {}", svc.display())).await;
    assert!(!sibling.contains("beside.sock"), "{sibling}");
}

/// Issue 45: the private `/tmp` is on the machine's disk, and many files each under the
/// one-file limit still filled it. It holds `tmp_bytes` at most now: a command that fills it
/// past that is stopped, and its result names the limit and what to do.
#[tokio::test]
async fn the_private_tmp_is_capped_and_the_command_that_fills_it_is_stopped() {
    let f = fixture();
    let mut config = f.config.clone();
    if let Some(mut s) = config.sandbox.take() {
        s.limits = sandbox::Limits {
            tmp_bytes: 48 << 20,
            ..s.limits
        };
        config.sandbox = Some(s);
    }
    // 8 MB at a time, for up to 800 MB: each file is well under the one-file limit.
    let (code, output, out) = run_with(
        &f,
        &config,
        "for i in $(seq 1 100); do head -c 8M /dev/zero > /tmp/part$i; sync; sleep 0.05; done; echo ALL-WRITTEN",
        SANDBOXED,
    )
    .await;
    assert!(!output.contains("ALL-WRITTEN"), "{code:?} {output}");
    assert!(
        matches!(
            &out,
            CommandOutcome::Finished {
                limit_hit: Some(tools::LimitHit::Tmp { bytes }),
                ..
            } if *bytes == 48 << 20
        ),
        "{out:?}"
    );
    let text = tools::render_outcome(&out);
    assert!(
        text.contains(
            "temporary folder (/tmp) reached its limit of 48 MB, so the command was stopped"
        ),
        "{text}"
    );
    let held: u64 = std::fs::read_dir(&f.config.tmp_dir)
        .expect("tmp")
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum();
    assert!(
        held < 400 << 20,
        "stopped long before the end: {held} bytes"
    );
    // Room made, the next command runs.
    let (code, output, _) = run_with(&f, &config, "rm -f /tmp/part*; echo room", SANDBOXED).await;
    assert_eq!(code, Some(0), "{output}");
}

/// Issue 45: the limits were per process, so 2,048 processes × half the memory each still
/// overcommitted the machine. Where the machine offers a control group this user may make
/// (cgroup v2 delegated, or v1's memory and pids hierarchies), a command's processes share
/// one cap: four processes each under the per-process limit, together over it, are stopped,
/// and the result names the limit for the whole command.
#[tokio::test]
async fn processes_under_the_per_process_limit_are_capped_together() {
    let Some(place) = sandbox::cgroup_place() else {
        eprintln!("skipped: this machine offers no control group this user may make");
        return;
    };
    eprintln!("control groups: {}", place.words());
    let f = fixture();
    let mut config = f.config.clone();
    if let Some(mut s) = config.sandbox.take() {
        s.limits = sandbox::Limits {
            memory_bytes: 512 << 20,
            ..s.limits
        };
        config.sandbox = Some(s);
    }
    let hold = "python3 -c \"import time; x = b'a' * (300 * 1024 * 1024); print('HE' + 'LD', flush=True); time.sleep(3)\"";
    let (code, output, out) = run_with(
        &f,
        &config,
        &format!("for i in 1 2 3 4; do {hold} & done; wait; echo END"),
        SANDBOXED,
    )
    .await;
    assert!(
        output.matches("HELD").count() < 4,
        "all four held 300 MB each: {code:?} {output}"
    );
    assert!(
        matches!(
            &out,
            CommandOutcome::Finished {
                limit_hit: Some(tools::LimitHit::CommandMemory { bytes }),
                ..
            } if *bytes == 512 << 20
        ),
        "{out:?}"
    );
    let text = tools::render_outcome(&out);
    assert!(
        text.contains("limit of 512 MB of memory for one command"),
        "{text}"
    );
    // One process under the cap runs as before.
    let (code, output, _) = run_with(
        &f,
        &config,
        "python3 -c \"x = b'a' * (100 * 1024 * 1024); print('FITS')\"",
        SANDBOXED,
    )
    .await;
    assert_eq!(code, Some(0), "{output}");
    assert!(output.contains("FITS"), "{output}");
}
