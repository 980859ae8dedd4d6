//! Commands really run in the sandbox, trying to get out with harmless payloads (a marker
//! file, a line in a fake `.bashrc`, a connection to a listener of the test's own), and the
//! ordinary work that must still succeed. Nothing here is judged by the policy engine: this
//! is the kernel's half of the boundary.

use protocol::{Confinement, DenialKind};
use std::io::Read as _;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use tools::{
    CommandConfig, CommandOutcome, ProjectRoot, RunCommandArgs, RunContext, SandboxSetup,
    TaskRegistry, Workspace, run_command,
};

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

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git")
        .status
        .success();
    assert!(ok, "git {args:?}");
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
    config.grace = Duration::from_secs(20);
    config.kill_grace = Duration::from_millis(500);
    config.tmp_dir = session.join("tmp");
    config.sandbox = Some(SandboxSetup::new(
        helper,
        session.join("sandbox"),
        vec![home.join(".ssh"), home.join(".aws")],
        vec![home.clone()],
        secret,
    ));
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
    let mut home = nothing_in(&f.home);
    home.sort();
    assert_eq!(home, [".aws", ".bashrc", ".ssh"], "the fake home");
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
