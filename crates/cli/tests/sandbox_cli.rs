//! `tandem-cli sandbox check` and `tandem-cli tool run_command` with the real sandbox: what
//! the kernel offers, the fallback switch, and commands that cannot outlive the CLI or see its
//! environment. The helper must be built beside the CLI (`make test` builds the workspace).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use test_support::wait_until_blocking;

fn tandem_cli(args: &[&str], envs: &[(&str, &str)]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tandem-cli"))
        .args(args)
        .envs(envs.iter().copied())
        .env("TANDEM_NO_KEYCHAIN", "1")
        .output()
        .expect("run tandem-cli");
    test_support::ran(out)
}

fn helper_built() {
    let cli = Path::new(env!("CARGO_BIN_EXE_tandem-cli"));
    let helper = cli.with_file_name("tandem-sandbox");
    assert!(
        helper.is_file(),
        "{} is missing: build the workspace first (cargo build --workspace)",
        helper.display()
    );
}

#[test]
fn sandbox_check_reports_the_kernel_and_the_switch() {
    helper_built();
    let (code, out, err) = tandem_cli(&["sandbox", "check"], &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("sandbox:            available"), "{out}");
    assert!(out.contains("landlock:           ABI"), "{out}");
    // Each layer, as the probe's own sandboxed command saw it.
    for line in [
        "private /tmp:       yes, up to 10.0 GB",
        "empty /run:         yes",
        "own terminals:      yes",
        "sockets hidden:     yes",
        "home hidden:        yes",
        "limits:             2048 processes",
        // Issue 45: one file a command writes is limited too, and said; and whether a command
        // is capped as a whole (cgroup v2) is said in words.
        "per file written",
        "whole command:      ",
        "readable folders:   ",
        "abstract sockets:   scoped",
        "command changes:    on a copy-on-write layer",
    ] {
        assert!(out.contains(line), "`{line}` missing:\n{out}");
    }
    let (code, out, _) = tandem_cli(&["sandbox", "check", "--json"], &[]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["sandboxed"], true);
    for layer in [
        "private_tmp",
        "private_run",
        "private_terminals",
        "host_sockets_hidden",
        "home_hidden",
        "abstract_sockets_scoped",
        "project_layer",
    ] {
        assert_eq!(v["layers"][layer], true, "{layer}: {out}");
    }
    assert_eq!(v["layers"]["process_limit"], 2048, "{out}");

    let (code, out, _) = tandem_cli(&["sandbox", "check"], &[("TANDEM_SANDBOX", "off")]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("NOT available") && out.contains("turned off"),
        "{out}"
    );
    assert!(
        out.contains("full_auto asks before running commands"),
        "{out}"
    );
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
    std::fs::write(dir.path().join("README.md"), "# p\n").expect("write");
    dir
}

fn run_command(
    project: &Path,
    command: &str,
    background: bool,
    envs: &[(&str, &str)],
) -> (i32, String, String) {
    let args = serde_json::json!({"command": command, "background": background}).to_string();
    let root = project.display().to_string();
    let config = project.join("no-user-config").display().to_string();
    let mut all_envs = vec![("XDG_CONFIG_HOME", config.as_str())];
    all_envs.extend_from_slice(envs);
    tandem_cli(
        &[
            "tool",
            "run_command",
            &args,
            "--project",
            &root,
            "--mode",
            "full_auto",
            "--approve",
        ],
        &all_envs,
    )
}

fn gone_within(seconds: &str, limit: Duration) -> bool {
    wait_until_blocking(&format!("every `sleep {seconds}` to end"), limit, || {
        test_support::procs::sleeping(seconds) == 0
    })
    .is_ok()
}

#[test]
fn a_daemon_does_not_outlive_its_command() {
    helper_built();
    let p = project();
    let (code, out, err) = run_command(
        p.path(),
        "echo started > started.txt; (setsid sleep 61 > /dev/null 2>&1 &); echo done",
        false,
        &[],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        p.path().join("started.txt").exists(),
        "the command ran: {out}{err}"
    );
    assert!(
        gone_within("61", Duration::from_secs(3)),
        "a setsid daemon outlived its command"
    );
}

#[test]
fn killing_the_cli_ends_the_command_it_started() {
    helper_built();
    let p = project();
    let args = serde_json::json!({"command": "echo started > started.txt; sleep 62"}).to_string();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tandem-cli"))
        .args([
            "tool",
            "run_command",
            &args,
            "--mode",
            "full_auto",
            "--approve",
            "--project",
        ])
        .arg(p.path())
        .env("XDG_CONFIG_HOME", p.path().join("no-user-config"))
        .env("TANDEM_NO_KEYCHAIN", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    // What it writes is in its layer until it ends: the process says it started.
    wait_until_blocking("the command to start", Duration::from_secs(10), || {
        test_support::procs::sleeping("62") > 0
    })
    .unwrap_or_else(|e| panic!("{e}: the command did not start"));
    child.kill().expect("SIGKILL the CLI");
    let _ = child.wait();
    assert!(
        gone_within("62", Duration::from_secs(3)),
        "the command outlived the CLI that was killed"
    );
    assert!(
        !p.path().join("started.txt").exists(),
        "nothing of a command whose CLI was killed lands in the project"
    );
}

#[test]
fn commands_see_neither_the_cli_s_secrets_nor_outside_the_project() {
    helper_built();
    let p = project();
    let outside = p
        .path()
        .join("..")
        .join(format!("outside-{}", std::process::id()));
    let (code, out, err) = run_command(
        p.path(),
        "env",
        false,
        &[
            ("GITHUB_TOKEN", "ghp_not_for_the_model"),
            ("AWS_SECRET_ACCESS_KEY", "aws-not-for-the-model"),
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("PATH="), "{out}");
    assert!(
        !out.contains("not_for_the_model") && !out.contains("not-for-the-model"),
        "{out}"
    );

    let cmd = format!(
        "python3 -c \"open('{}', 'w').write('x')\"",
        outside.display()
    );
    let (code, out, err) = run_command(p.path(), &cmd, false, &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!outside.exists(), "written outside the project");
    assert!(out.contains("Permission denied"), "{out}");
    assert!(
        err.contains("the sandbox may have refused it something"),
        "{err}"
    );
}

/// A command's output is the repository's to write: a "Permission denied" in it must not have
/// the CLI tell the user how to run it outside the sandbox. It said "to run it once outside
/// the sandbox, add --outside --approve", whoever printed the line.
#[test]
fn a_refusal_in_the_output_never_suggests_leaving_the_sandbox() {
    helper_built();
    let p = project();
    let (code, out, err) = run_command(
        p.path(),
        "echo 'make: /usr/local/bin/setup: Permission denied (run it with --outside)'; exit 1",
        false,
        &[],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("[exit code 1;"), "{out}");
    assert!(!err.contains("--outside"), "{err}");
    assert!(
        err.contains("the sandbox may have refused it something")
            && err.contains("README's \"The sandbox\""),
        "{err}"
    );
}

#[test]
fn the_cli_s_commands_get_a_private_tmp_and_no_host_socket() {
    helper_built();
    let p = project();
    // What a user's /tmp holds: another program's file, a tmux-like server's socket.
    let host = tempfile::Builder::new()
        .prefix("user-tmp-")
        .tempdir_in("/tmp")
        .expect("tmp");
    std::fs::write(host.path().join("note"), "HOST-TMP-FILE").expect("write");
    let socket = host.path().join("default");
    let listener = std::os::unix::net::UnixListener::bind(&socket).expect("bind");
    listener.set_nonblocking(true).expect("nonblocking");
    let cmd = format!(
        "cat {0}/note; echo \"tmp-entries=$(ls -A /tmp | wc -l)\"; python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('{1}'); print('CONNECTED')\"",
        host.path().display(),
        socket.display()
    );
    let (_, out, err) = run_command(p.path(), &cmd, false, &[]);
    assert!(!out.contains("HOST-TMP-FILE"), "{out}{err}");
    // The command ran in the sandbox (a refusal by the rules would prove nothing).
    assert!(out.contains("[exit code"), "{out}{err}");
    assert!(!out.contains("CONNECTED"), "{out}{err}");
    assert!(
        out.contains("tmp-entries=0"),
        "the machine's /tmp is visible: {out}"
    );
    assert!(
        listener.accept().is_err(),
        "the socket in /tmp got a connection"
    );
}

/// Issue 45: sockets the kernel's table does not name — one bound by a relative name from its
/// folder, one bound and then renamed — accepted a sandboxed command's connection, and another
/// application's folder at the top of the machine was readable. Such folders are empty for a
/// command now (hidden, and outside the read allow-list), so neither is even found. Run
/// through `tandem-cli tool run_command` with this machine's sandbox, as a session runs it.
#[test]
fn sockets_the_kernel_does_not_name_and_other_apps_folders_are_out_of_reach() {
    helper_built();
    let top = PathBuf::from(format!("/tandem-srv-{}", std::process::id()));
    if std::fs::create_dir_all(top.join("app")).is_err() {
        eprintln!("skipped: this user cannot make a folder at the top of the machine");
        return;
    }
    std::fs::write(top.join("app/notes.txt"), "srv-marker-45\n").expect("write");
    let service = Command::new("python3")
        .arg("-c")
        .arg(
            "import os, socket\n\
             a = socket.socket(socket.AF_UNIX); a.bind('svc.sock'); a.listen(1)\n\
             b = socket.socket(socket.AF_UNIX); b.bind('first.sock'); b.listen(1)\n\
             os.rename('first.sock', 'moved.sock')\n\
             open('ready', 'w').close()\n\
             for s in (a, b):\n    s.settimeout(3)\n    try:\n        s.accept(); open('accepted', 'w').close()\n    except OSError:\n        pass\n",
        )
        .current_dir(top.join("app"))
        .spawn()
        .expect("python3");
    let ready =
        test_support::wait_until_blocking("the service to listen", Duration::from_secs(10), || {
            top.join("app/ready").exists()
        });
    assert!(ready.is_ok(), "the service did not start");
    let p = project();
    let app = top.join("app").display().to_string();
    let (_, out, err) = run_command(
        p.path(),
        &format!(
            "d={app}; cat $d/notes.txt; for s in svc.sock moved.sock; do python3 -c \"import socket, sys; c = socket.socket(socket.AF_UNIX); c.connect(sys.argv[1]); print('CONNECTED', sys.argv[1])\" $d/$s; done; python3 -c \"import socket; c = socket.socket(socket.AF_UNIX); c.connect('{app}/svc.sock'); print('CONNECTED', 'named')\""
        ),
        false,
        &[],
    );
    let mut service = service;
    let _ = service.wait();
    let accepted = top.join("app/accepted").exists();
    let _ = std::fs::remove_dir_all(&top);
    // The command ran in the sandbox (a refusal by the rules would prove nothing).
    assert!(out.contains("[exit code"), "{out}{err}");
    assert!(!out.contains("CONNECTED"), "{out}{err}");
    assert!(!accepted, "the service saw a connection from the sandbox");
    assert!(!out.contains("srv-marker-45"), "{out}");
}

/// Issue 45: a folder outside the project is hidden from commands unless the person's rules
/// name it (`paths.allow_read`); `sandbox check --project` says what they grant, and a
/// command the person approves that names a place outside is shown that place.
#[test]
fn a_folder_outside_is_read_when_the_persons_rules_grant_it() {
    helper_built();
    let p = project();
    let outside = PathBuf::from(format!("/var/tmp/tandem-cli-45-{}", std::process::id()));
    std::fs::create_dir_all(&outside).expect("mkdir");
    std::fs::write(outside.join("data.txt"), "outside-marker-45\n").expect("write");
    struct Gone(PathBuf);
    impl Drop for Gone {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    let _gone = Gone(outside.clone());
    // Computed by the shell, the policy cannot see the place, and the sandbox hides it.
    let cat = format!("d={}; cat $d/data.txt", outside.display());
    let (_, out, err) = run_command(p.path(), &cat, false, &[]);
    assert!(!out.contains("outside-marker-45"), "{out}{err}");
    // Named, approved: shown to that command.
    let (_, out, err) = run_command(
        p.path(),
        &format!("cat {}/data.txt", outside.display()),
        false,
        &[],
    );
    assert!(out.contains("outside-marker-45"), "{out}{err}");

    let config = p.path().join("user-config");
    std::fs::create_dir_all(config.join("tandem")).expect("mkdir");
    std::fs::write(
        config.join("tandem/policy.toml"),
        format!("[paths]\nallow_read = [\"{}\"]\n", outside.display()),
    )
    .expect("write");
    let config = config.display().to_string();
    let root = p.path().display().to_string();
    let (code, out, err) = tandem_cli(
        &["sandbox", "check", "--project", &root],
        &[("XDG_CONFIG_HOME", &config)],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(&format!("granted to read:    {}", outside.display())),
        "{out}"
    );
    let (_, out, err) = run_command(p.path(), &cat, false, &[("XDG_CONFIG_HOME", &config)]);
    assert!(out.contains("outside-marker-45"), "{out}{err}");
}

/// Issue 45: a `.env.production` committed once and removed later was printed by a script
/// that runs `git log -p` (the policy sees only the command it is given). What any command
/// prints — and the saved output the agent may read back — shows the values that file held
/// hidden, whether git or a script printed them.
#[test]
fn secrets_from_git_history_never_reach_a_commands_output() {
    helper_built();
    let p = project();
    let root = p.path();
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(args)
            .current_dir(root)
            .env("GIT_AUTHOR_NAME", "T")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "T")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .output()
            .expect("git")
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    std::fs::write(
        root.join(".env.production"),
        "DATABASE_URL=postgres://app:Prod-Pass-7731@db/app\nSTRIPE_KEY=sk_live_51HistoryMarker\n",
    )
    .expect("write");
    git(&["add", "-A"]);
    git(&["commit", "-qm", "config"]);
    git(&["rm", "-q", ".env.production"]);
    git(&["commit", "-qm", "remove the secrets"]);
    std::fs::write(
        root.join("show.py"),
        "import subprocess\nprint(subprocess.run(['git', 'log', '-p', '--all'], capture_output=True, text=True).stdout)\n",
    )
    .expect("write");
    for command in ["python3 show.py", "git log -p", "git show HEAD~1"] {
        let (code, out, err) = run_command(root, command, false, &[]);
        assert_eq!(code, 0, "{command}: {out}{err}");
        assert!(
            out.contains("DATABASE_URL="),
            "{command}: the change is shown: {out}"
        );
        for secret in ["Prod-Pass-7731", "sk_live_51HistoryMarker"] {
            assert!(!out.contains(secret), "{command} printed {secret}: {out}");
        }
        assert!(out.contains("[hidden: a secret from git history]"), "{out}");
    }
}

/// Issue 45: a socket bound from another network namespace (a container, flatpak, another
/// sandbox) is in no table of this one. One in a toolchain folder of the home that commands
/// see (`~/.npm`) was reachable; sockets are found there by type now, and hidden.
#[test]
fn a_socket_bound_in_another_network_namespace_is_out_of_reach() {
    helper_built();
    let home = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
    let npm = home.path().join(".npm");
    std::fs::create_dir_all(&npm).expect("mkdir");
    let sock = npm.join("daemon.sock");
    let listener = "import socket, sys\n\
         s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1)\n\
         open(sys.argv[1] + '.ready', 'w').close(); s.settimeout(5)\n\
         try:\n    s.accept(); open(sys.argv[1] + '.accepted', 'w').close()\n\
         except OSError:\n    pass\n";
    let spawned = Command::new("unshare")
        .args(["--net", "python3", "-c", listener])
        .arg(&sock)
        .spawn();
    let Ok(mut service) = spawned else {
        eprintln!("skipped: unshare is not here");
        return;
    };
    let ready =
        test_support::wait_until_blocking("the service to listen", Duration::from_secs(10), || {
            sock.with_extension("sock.ready").exists()
        });
    if ready.is_err() {
        let _ = service.kill();
        eprintln!("skipped: this user cannot make a network namespace");
        return;
    }
    let unix = std::fs::read_to_string("/proc/net/unix").expect("table");
    assert!(
        !unix.contains(&sock.display().to_string()),
        "bound in another namespace, the socket is not in this one's table"
    );
    let p = project();
    let home_dir = home.path().display().to_string();
    let (_, out, err) = run_command(
        p.path(),
        "python3 -c \"import os, socket; c = socket.socket(socket.AF_UNIX); c.connect(os.path.expanduser('~/.npm/daemon.sock')); print('CONNECTED')\"",
        false,
        &[("HOME", &home_dir)],
    );
    let _ = service.wait();
    assert!(out.contains("[exit code"), "{out}{err}");
    assert!(!out.contains("CONNECTED"), "{out}{err}");
    assert!(
        !sock.with_extension("sock.accepted").exists(),
        "the service saw a connection from the sandbox"
    );
}
