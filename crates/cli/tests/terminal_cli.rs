//! What `tandem-cli` prints of a model's, a tool's or a command's text: escape sequences shown
//! as signs where a person reads them (`--control-chars escape` stands in for a terminal, which
//! a test cannot be), kept as bytes into a pipe.

use model_server::{Scenario, ScriptedServer};
use std::path::Path;

/// OSC 52: sets the clipboard of the terminal that prints it.
const OSC52: &str = "\u{1b}]52;c;";

fn tool(project: &Path, args: &[&str]) -> (i32, String, String) {
    test_support::tandem_cli_in(env!("CARGO_BIN_EXE_tandem-cli"), "tool", project, args)
}

#[test]
fn a_commands_escape_sequences_are_shown_on_a_terminal_and_kept_in_a_pipe() {
    let dir = tempfile::tempdir().expect("tempdir");
    let command = serde_json::json!({
        "command": r"printf 'out \033]52;c;ZXZpbA==\007 \033[2J done\n'"
    })
    .to_string();
    let (code, out, err) = tool(
        dir.path(),
        &[
            "run_command",
            &command,
            "--approve",
            "--control-chars",
            "escape",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
    assert!(
        out.starts_with("out ␛]52;c;ZXZpbA==␇ ␛[2J done\n"),
        "{out:?}"
    );

    let (code, out, err) = tool(dir.path(), &["run_command", &command, "--approve"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with(&format!("out {OSC52}ZXZpbA==\u{7} \u{1b}[2J done\n")),
        "into a pipe the bytes go as they are: {out:?}"
    );

    // A tool's text and its errors alike: a file named with an escape sequence.
    std::fs::write(dir.path().join("a\u{1b}[2Jb.txt"), "x\n").expect("write");
    let (code, out, _) = tool(
        dir.path(),
        &["list_files", "{}", "--control-chars", "escape"],
    );
    assert_eq!(code, 0);
    assert!(out.contains("a␛[2Jb.txt"), "{out:?}");
    let (code, _, err) = tool(
        dir.path(),
        &[
            "read_file",
            r#"{"path": "a\u001b[2Jb.txt", "offset": 9}"#,
            "--control-chars",
            "escape",
        ],
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("a␛[2Jb.txt") && !err.contains('\u{1b}'),
        "{err:?}"
    );
}

async fn run(project: &Path, data: &Path, base_url: &str, extra: &[&str]) -> (i32, String) {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_tandem-cli"))
        .args(["run", "--project"])
        .arg(project)
        .args(["--provider", "anthropic", "--base-url", base_url])
        .args(["--model", "scripted-model", "--approve", "all"])
        .args(extra)
        .arg("Look around")
        .env("TANDEM_DATA_DIR", data)
        .env("XDG_CONFIG_HOME", data.join("config"))
        .env("ANTHROPIC_API_KEY", "scripted-key")
        .env("TANDEM_NO_KEYCHAIN", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .expect("run tandem-cli");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The model's streamed text, a command's output and the summary of `run`: an OSC 52 from any
/// of them reached the terminal before.
#[tokio::test]
async fn run_shows_escape_sequences_from_the_model_and_commands_on_a_terminal() {
    let project = tempfile::tempdir().expect("tempdir");
    let data = tempfile::tempdir().expect("tempdir");
    let server = ScriptedServer::start(Scenario::named("cli_terminal_escapes.json"))
        .await
        .expect("server");
    let (code, out) = run(
        project.path(),
        data.path(),
        server.base_url(),
        &["--control-chars", "escape"],
    )
    .await;
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
    assert!(
        out.contains("Reading ␛]52;c;bW9kZWw=␇ the repository."),
        "{out}"
    );
    assert!(out.contains("out ␛]52;c;Y29tbWFuZA==␇ ␛[2J done"), "{out}");
    assert!(out.contains("✓ Finished ␛[8mhidden␛[0m."), "{out}");

    let data = tempfile::tempdir().expect("tempdir");
    let server = ScriptedServer::start(Scenario::named("cli_terminal_escapes.json"))
        .await
        .expect("server");
    let (code, out) = run(project.path(), data.path(), server.base_url(), &[]).await;
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(&format!("Reading {OSC52}bW9kZWw=\u{7} the repository.")),
        "into a pipe the bytes go as they are: {out:?}"
    );
}
