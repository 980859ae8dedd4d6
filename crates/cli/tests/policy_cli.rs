//! `tandem-cli policy …` as scripts use it: the real binary, real folders, JSON on stdout.

use std::path::Path;
use std::process::Command;
use test_support::git;

/// `tandem-cli SUBCOMMAND ARGS… --project DIR` with no user rules; exit code, stdout, stderr.
fn tandem_cli(subcommand: &str, project: &Path, args: &[&str]) -> (i32, String, String) {
    test_support::tandem_cli_in(env!("CARGO_BIN_EXE_tandem-cli"), subcommand, project, args)
}

fn cli(project: &Path, args: &[&str]) -> (i32, String, String) {
    tandem_cli("policy", project, args)
}

fn check(project: &Path, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    let (code, stdout, stderr) = cli(project, &all);
    assert_eq!(code, 0, "stderr: {stderr}");
    assert_eq!(
        stdout.lines().count(),
        1,
        "one JSON object on one line: {stdout}"
    );
    serde_json::from_str(&stdout).expect("JSON")
}

#[test]
fn check_prints_one_json_decision() {
    let dir = tempfile::tempdir().expect("tempdir");
    let v = check(dir.path(), &["--command", "cat .env"]);
    assert_eq!(v["decision"], "deny");
    assert!(v["reason"].as_str().is_some_and(|r| r.contains(".env")));
    assert!(v["rule"].as_str().is_some_and(|r| !r.is_empty()));
    assert_eq!(v["suggestions"], serde_json::json!([]));

    let v = check(dir.path(), &["--command", "make check"]);
    assert_eq!(v["decision"], "ask");
    assert_eq!(
        v["suggestions"][0]["label"],
        "Always allow “make check” in this project"
    );
    assert_eq!(v["suggestions"][0]["grant"]["kind"], "allow_command");

    assert_eq!(
        check(
            dir.path(),
            &["--command", "make check", "--mode", "full_auto"]
        )["decision"],
        "allow"
    );
    assert_eq!(
        check(dir.path(), &["--write", "src/a.rs", "--mode", "auto_edit"])["decision"],
        "allow"
    );
    assert_eq!(
        check(dir.path(), &["--write", "../a.rs", "--mode", "full_auto"])["decision"],
        "deny"
    );
    assert_eq!(
        check(dir.path(), &["--read", "/etc/hostname"])["decision"],
        "ask"
    );
    assert_eq!(
        check(dir.path(), &["--fetch", "https://docs.rs"])["decision"],
        "ask"
    );
}

#[cfg(unix)]
#[test]
fn symlink_escapes_are_resolved_on_disk() {
    let dir = tempfile::tempdir().expect("tempdir");
    let outside = tempfile::tempdir().expect("tempdir");
    std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).expect("symlink");
    let v = check(
        dir.path(),
        &["--write", "link/evil.sh", "--mode", "full_auto"],
    );
    assert_eq!(v["decision"], "deny");
    assert!(
        v["reason"]
            .as_str()
            .is_some_and(|r| r.contains("outside the project")),
        "{v}"
    );
}

#[test]
fn project_rules_are_read_and_a_broken_file_is_a_clear_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join(".tandem")).expect("mkdir");
    std::fs::write(
        dir.path().join(".tandem/policy.toml"),
        "[commands]\ndeny = [\"make deploy\"]\n",
    )
    .expect("write");
    let v = check(
        dir.path(),
        &["--command", "make deploy", "--mode", "full_auto"],
    );
    assert_eq!(v["decision"], "deny");
    assert!(
        v["source"]
            .as_str()
            .is_some_and(|s| s.contains(".tandem/policy.toml")),
        "{v}"
    );

    let (code, stdout, _) = cli(dir.path(), &["show"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("commands.deny \"make deploy\""), "{stdout}");
    assert!(stdout.contains("(built-in)"), "{stdout}");

    std::fs::write(
        dir.path().join(".tandem/policy.toml"),
        "[commands]\ndeny = [\"make deploy\"\n",
    )
    .expect("write");
    let (code, stdout, stderr) = cli(dir.path(), &["check", "--command", "ls"]);
    assert_eq!(code, 2);
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("policy.toml:2:22: unclosed array"),
        "{stderr}"
    );
}

#[test]
fn usage_errors_say_what_is_missing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (code, _, stderr) = cli(dir.path(), &["check"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--command"), "{stderr}");
    let (code, _, stderr) = cli(dir.path(), &["check", "--command", "ls", "--mode", "yolo"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("unknown mode"), "{stderr}");
    let (code, _, stderr) = cli(&dir.path().join("missing"), &["check", "--command", "ls"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("cannot be opened"), "{stderr}");
}

fn tool(project: &Path, args: &[&str]) -> (i32, String, String) {
    tandem_cli("tool", project, args)
}

#[test]
fn tool_runs_through_the_policy() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").expect("write");
    std::fs::write(dir.path().join(".env"), "SECRET=1\n").expect("write");

    let (code, out, _) = tool(
        dir.path(),
        &["read_file", r#"{"path": "a.txt", "offset": -1}"#],
    );
    assert_eq!(code, 0);
    assert_eq!(out, "a.txt: lines 2-2 of 2\n   2 | two\n");
    let (code, out, _) = tool(dir.path(), &["list_files", "{}", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["entries"][0]["path"], "a.txt");

    // A secret is refused whatever is approved.
    let (code, out, err) = tool(
        dir.path(),
        &["read_file", r#"{"path": ".env"}"#, "--approve"],
    );
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(
        err.contains("refused by the policy") && err.contains(".env"),
        "{err}"
    );

    // A write asks in ask mode; --approve is the person saying yes.
    let edit = r#"{"path": "a.txt", "old_string": "two", "new_string": "2"}"#;
    let (code, _, err) = tool(dir.path(), &["edit_file", edit]);
    assert_eq!(code, 1);
    assert!(err.contains("--approve"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).expect("read"),
        "one\ntwo\n"
    );
    let (code, out, err) = tool(dir.path(), &["edit_file", edit, "--approve"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Edited a.txt"), "{out}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).expect("read"),
        "one\n2\n"
    );

    // Tool errors are exit 1 with the message on stderr.
    let (code, _, err) = tool(
        dir.path(),
        &[
            "edit_file",
            r#"{"path": "a.txt", "old_string": "zzz", "new_string": "y"}"#,
            "--mode",
            "auto_edit",
        ],
    );
    assert_eq!(code, 1);
    assert!(err.contains("old_string was not found"), "{err}");
    let (code, _, err) = tool(dir.path(), &["read_file", "{not json"]);
    assert_eq!(code, 1);
    assert!(err.contains("not valid JSON"), "{err}");
}

#[test]
fn tool_runs_commands_only_with_approval_and_never_a_denied_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let layered = sandbox::probe().layers.project_layer;
    let (code, out, err) = tool(
        dir.path(),
        &["run_command", r#"{"command": "touch made-it"}"#],
    );
    if layered {
        // Ask mode: it runs over a copy of the project, its changes are printed, and they
        // land only with --approve.
        assert_eq!(code, 0, "{err}");
        assert!(
            out.contains("Not landed: made-it created") && out.contains("--approve"),
            "{out}"
        );
    } else {
        assert_eq!(code, 1);
        assert!(err.contains("--approve"), "{err}");
    }
    assert!(!dir.path().join("made-it").exists());
    let (code, out, err) = tool(
        dir.path(),
        &[
            "run_command",
            r#"{"command": "touch made-it && echo ok"}"#,
            "--approve",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("ok\n[exit code 0;"), "{out}");
    assert!(dir.path().join("made-it").exists());
    let (code, _, err) = tool(
        dir.path(),
        &[
            "run_command",
            r#"{"command": "sudo rm -rf /"}"#,
            "--approve",
            "--mode",
            "full_auto",
        ],
    );
    assert_eq!(code, 1);
    assert!(err.contains("administrator"), "{err}");
    let (code, out, _) = tool(
        dir.path(),
        &[
            "update_plan",
            r#"{"items": [{"text": "a", "status": "done"}]}"#,
        ],
    );
    assert_eq!((code, out.as_str()), (0, "[x] a\n"));
}

/// `tandem-cli tool --list`: every tool of the catalog, one line each with what it does;
/// `--help` no longer names only six of them.
#[test]
fn tool_list_names_every_tool_with_its_summary() {
    let out = Command::new(env!("CARGO_BIN_EXE_tandem-cli"))
        .args(["tool", "--list"])
        .output()
        .expect("run tandem-cli");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), tools::TOOLS.len(), "{text}");
    for (line, tool) in lines.iter().zip(tools::TOOLS) {
        assert!(line.starts_with(tool.name), "{line}");
        assert!(line.len() > tool.name.len() + 10, "no summary: {line}");
    }
    assert!(text.contains("agent_spawn") && text.contains("in `tandem-cli run` only"));
    assert!(!text.contains("(e.g. ("), "{text}");
}

/// Issue 25: a tool turned off in the project's rules is listed as not available here, with
/// why, and refused when run; web_search without a search service says so too.
#[test]
fn tool_list_says_which_tools_cannot_work_here() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = tempfile::tempdir().expect("tempdir");
    let p = dir.path();
    std::fs::create_dir_all(p.join(".tandem")).expect("mkdir");
    std::fs::write(
        p.join(".tandem/policy.toml"),
        "[tools]\noff = [\"run_command\"]\n",
    )
    .expect("write");
    let cli = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_tandem-cli"));
        c.env("XDG_CONFIG_HOME", config.path());
        c
    };
    let out = cli()
        .args(["tool", "--list", "--project"])
        .arg(p)
        .output()
        .expect("run tandem-cli");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let line = |tool: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("{tool} ")))
            .unwrap_or_default()
            .to_string()
    };
    assert!(
        line("run_command").contains("[not available here: turned off for this project"),
        "{text}"
    );
    assert!(
        line("web_search").contains("[not available here: no search service is set up"),
        "{text}"
    );
    assert!(!line("read_file").contains("not available"), "{text}");

    let out = cli()
        .args([
            "tool",
            "run_command",
            r#"{"command": "touch made.txt"}"#,
            "--project",
        ])
        .arg(p)
        .output()
        .expect("run tandem-cli");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("run_command is not available here"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!p.join("made.txt").exists());
}

/// A write from the terminal is judged on its size, as in a session: over
/// `require_approval_above` it asks even in auto edit, over `max_diff_lines` it is refused.
#[test]
fn tool_writes_are_judged_on_their_size() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path();
    std::fs::create_dir_all(p.join(".tandem")).expect("mkdir");
    std::fs::write(
        p.join(".tandem/policy.toml"),
        "max_diff_lines = 100\nrequire_approval_above = 10\n",
    )
    .expect("write");
    let lines = |n: usize| (0..n).map(|i| format!("line {i}\n")).collect::<String>();
    let write = |name: &str, n: usize, extra: &[&str]| {
        let args = serde_json::json!({"path": name, "content": lines(n)}).to_string();
        let mut all = vec!["write_file", args.as_str(), "--mode", "auto_edit"];
        all.extend_from_slice(extra);
        tandem_cli("tool", p, &all)
    };
    let (code, _, stderr) = write("small.txt", 3, &[]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = write("medium.txt", 20, &[]);
    assert_eq!(code, 1, "a 20-line write runs unasked: {stderr}");
    assert!(stderr.contains("require_approval_above"), "{stderr}");
    assert!(!p.join("medium.txt").exists());
    let (code, _, stderr) = write("medium.txt", 20, &["--approve"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = write("huge.txt", 150, &["--approve"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("max_diff_lines"), "{stderr}");
    assert!(!p.join("huge.txt").exists());
}

/// `[web_search]` in settings.toml is what `web_search` searches through (nothing configured
/// it before: the tool could never work); here a SearXNG on loopback, scripted.
#[test]
fn web_search_uses_the_search_service_in_the_settings() {
    let (url, asked) = test_support::http::serve_on_thread(|_| {
        test_support::http::respond(
            "200 OK",
            "application/json",
            r#"{"results":[{"title":"Tandem, the agent","url":"https://tandem.example","content":"a desktop coding agent"}]}"#,
            "",
        )
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("no-user-config/tandem");
    std::fs::create_dir_all(&config).expect("mkdir");
    std::fs::write(
        config.join("settings.toml"),
        format!("[web_search]\nprovider = \"searxng\"\nbase_url = \"{url}\"\n"),
    )
    .expect("write");
    let (code, out, err) = tandem_cli(
        "tool",
        dir.path(),
        &["web_search", r#"{"query": "tandem agent"}"#, "--approve"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Tandem, the agent") && out.contains("tandem.example"),
        "{out}"
    );
    let request = test_support::http::first_request(&asked, std::time::Duration::from_secs(5))
        .expect("the search service was asked");
    assert!(
        request.starts_with("GET /search?q=tandem+agent"),
        "{request}"
    );
}

/// A repository with `.env` committed, and both it and `a.txt` changed since.
fn repo_with_a_changed_secret() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path();
    git(p, &["init", "-q"]);
    git(p, &["config", "user.name", "T"]);
    git(p, &["config", "user.email", "t@example.com"]);
    std::fs::write(p.join("a.txt"), "one\n").expect("write");
    std::fs::write(p.join(".env"), "TOKEN=old\n").expect("write");
    git(p, &["add", "-A"]);
    git(p, &["commit", "-qm", "start"]);
    std::fs::write(p.join("a.txt"), "two\n").expect("write");
    std::fs::write(p.join(".env"), "TOKEN=new-value\n").expect("write");
    dir
}

/// `tool git_diff` names a secret but never shows its lines, even in read_only mode (it showed
/// `.env`'s old and new values before).
#[test]
fn tool_git_diff_hides_a_secrets_lines() {
    let dir = repo_with_a_changed_secret();
    let (code, out, err) = tool(dir.path(), &["git_diff", "{}", "--mode", "read_only"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("TOKEN"), "{out}");
    assert!(
        out.contains("diff --git a/.env b/.env\n(contents hidden: protected file)\n")
            && out.contains("+two"),
        "{out}"
    );
}

/// `tool git_commit` of every change asks when `.env` is among them, even in full_auto (the
/// session's judgement: it committed unasked before); committing the other file alone runs.
#[test]
fn tool_git_commit_asks_before_committing_a_secret() {
    let dir = repo_with_a_changed_secret();
    let p = dir.path();
    let (code, _, err) = tool(
        p,
        &["git_commit", r#"{"message": "all"}"#, "--mode", "full_auto"],
    );
    assert_eq!(code, 1, "committed without asking: {err}");
    assert!(
        err.contains("this commit would include a file the agent may not touch")
            && err.contains(".env")
            && err.contains("--approve"),
        "{err}"
    );
    assert_eq!(git(p, &["rev-list", "--count", "HEAD"]), "1\n");

    let (code, out, err) = tool(
        p,
        &[
            "git_commit",
            r#"{"message": "a alone", "files": ["a.txt"]}"#,
            "--mode",
            "full_auto",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1 file(s) changed"), "{out}");
    assert_eq!(
        git(p, &["show", "--name-only", "--format=", "HEAD"]),
        "a.txt\n"
    );
}

/// Issue 26: a write that failed on a full disk said "Could not read calc.py". It says the
/// write failed, that nothing changed and why; the file keeps what it held. The disk is a
/// 64 KB tmpfs, filled, in a user and mount namespace of the test's own.
#[test]
fn a_full_disk_is_said_as_a_failed_write_and_changes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let project = dir.path().join("small-disk");
    std::fs::create_dir_all(&project).expect("mkdir");
    // One long line: well over what is left on the disk, well under the diff thresholds.
    let content = format!("y = '{}'\n", "z".repeat(16_000));
    let args = serde_json::json!({"path": "calc.py", "content": content}).to_string();
    let script = r#"
        mount -t tmpfs -o size=64k tmpfs "$P" || exit 97
        printf 'x = 1\n' > "$P/calc.py"
        dd if=/dev/zero of="$P/fill" bs=4k count=64 2>/dev/null
        "$CLI" tool write_file "$ARGS" --mode auto_edit --project "$P"
        echo "exit=$?"
        printf 'now: '; cat "$P/calc.py"
    "#;
    let out = Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount", "sh", "-c", script])
        .env("P", &project)
        .env("CLI", env!("CARGO_BIN_EXE_tandem-cli"))
        .env("ARGS", &args)
        .env("XDG_CONFIG_HOME", dir.path().join("no-user-config"))
        .env("TANDEM_NO_KEYCHAIN", "1")
        .output()
        .expect("unshare");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(97), "no tmpfs: {stderr}");
    assert!(
        stderr.contains("Could not write calc.py"),
        "{stdout}{stderr}"
    );
    assert!(stderr.contains("Nothing was changed"), "{stderr}");
    assert!(stderr.contains("The disk is full"), "{stderr}");
    assert!(!stderr.contains("Could not read"), "{stderr}");
    assert!(stdout.contains("exit=1"), "{stdout}");
    assert!(stdout.contains("now: x = 1"), "{stdout}");
}
