//! Issue 45: a file the person protected in their rules reached the model anyway. read_file
//! refused `config/prod.yaml`, but search_codebase and git_diff showed its lines: the tools hid
//! only the built-in secret patterns. Every tool that shows files (a search, a diff, a listing,
//! git's status) and the sandbox's commands now keep out what the merged rules protect, from
//! one source. Run through `tandem-cli tool`, as a session runs them, with the real sandbox.

use std::path::Path;
use std::process::Command;

const SECRET: &str = "db_password: hunter2-marker-45";

fn tandem_cli(
    project: &Path,
    config: &Path,
    tool: &str,
    input: serde_json::Value,
) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tandem-cli"))
        .args([
            "tool",
            tool,
            &input.to_string(),
            "--project",
            &project.display().to_string(),
            "--mode",
            "full_auto",
            "--approve",
        ])
        .env("TANDEM_CONFIG_DIR", config)
        .env("TANDEM_NO_KEYCHAIN", "1")
        .output()
        .expect("run tandem-cli");
    let (code, out, err) = test_support::ran(out);
    (code, format!("{out}{err}"))
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .status()
        .expect("git")
        .success();
    assert!(ok, "git {args:?}");
}

/// A git project whose `config/prod.yaml` changed since its commit, protected in the person's
/// rules, beside an ordinary file that says the same word.
fn fixture() -> (tempfile::TempDir, tempfile::TempDir) {
    let project = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
    let p = project.path();
    std::fs::create_dir_all(p.join("config")).expect("mkdir");
    std::fs::write(p.join("config/prod.yaml"), "db_password: old\n").expect("write");
    std::fs::write(p.join("config/dev.yaml"), "db_password: dev\n").expect("write");
    git(p, &["init", "-q"]);
    git(p, &["add", "."]);
    git(p, &["commit", "-qm", "start"]);
    std::fs::write(p.join("config/prod.yaml"), format!("{SECRET}\n")).expect("write");
    std::fs::write(p.join("config/dev.yaml"), "db_password: dev2\n").expect("write");
    let config = tempfile::tempdir().expect("config");
    std::fs::write(
        config.path().join("policy.toml"),
        "[paths]\nprotected = [\"config/prod.yaml\"]\n",
    )
    .expect("rules");
    (project, config)
}

#[test]
fn a_path_the_person_protected_reaches_no_tool_and_no_command() {
    let (project, config) = fixture();
    let (p, c) = (project.path(), config.path());

    // read_file already refused it: the same rules, now every other tool.
    let (code, out) = tandem_cli(
        p,
        c,
        "read_file",
        serde_json::json!({"path": "config/prod.yaml"}),
    );
    assert_ne!(code, 0, "{out}");
    assert!(!out.contains("hunter2"), "read_file: {out}");

    let (code, out) = tandem_cli(
        p,
        c,
        "search_codebase",
        serde_json::json!({"pattern": "db_password"}),
    );
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("config/dev.yaml"),
        "the ordinary file is found: {out}"
    );
    assert!(
        !out.contains("hunter2") && !out.contains("prod.yaml"),
        "search: {out}"
    );

    let (code, out) = tandem_cli(p, c, "git_diff", serde_json::json!({}));
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("dev2"), "the ordinary change is shown: {out}");
    assert!(!out.contains("hunter2"), "git_diff: {out}");

    let (code, out) = tandem_cli(p, c, "list_files", serde_json::json!({"path": "config"}));
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("dev.yaml") && !out.contains("prod.yaml"),
        "list_files: {out}"
    );
    assert!(
        out.contains("1 file not listed"),
        "says one was left out: {out}"
    );

    let (code, out) = tandem_cli(p, c, "git_status", serde_json::json!({}));
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("dev.yaml") && !out.contains("prod.yaml"),
        "git_status: {out}"
    );

    // A command cannot print it either: naming it is refused by the rules (as before), and
    // reaching it another way finds the sandbox hiding it, as it hides a secret.
    let (_, out) = tandem_cli(
        p,
        c,
        "run_command",
        serde_json::json!({"command": "for f in config/*; do cat \"$f\"; done; grep -rl hunter2 . || true"}),
    );
    assert!(out.contains("dev2"), "the command ran: {out}");
    assert!(!out.contains("hunter2"), "a command read it: {out}");

    // The file is untouched by all of it.
    assert_eq!(
        std::fs::read_to_string(p.join("config/prod.yaml")).expect("read"),
        format!("{SECRET}\n")
    );
}
