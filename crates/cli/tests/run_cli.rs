//! `tandem-cli run`, `sessions` and `show` against the scripted model server.

use model_server::{Scenario, ScriptedServer};
use std::path::{Path, PathBuf};

fn scenario(name: &str) -> Scenario {
    Scenario::load(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/scenarios")
            .join(name),
    )
    .expect("scenario")
}

async fn cli(data: &Path, args: &[&str]) -> (i32, String, String) {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_tandem-cli"))
        .args(args)
        .env("TANDEM_DATA_DIR", data)
        .env("XDG_CONFIG_HOME", data.join("config"))
        .env("ANTHROPIC_API_KEY", "scripted-key")
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .expect("run tandem-cli");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test]
async fn run_streams_the_transcript_and_finishes_on_task_done() {
    let project = tempfile::tempdir().expect("tempdir");
    std::fs::write(project.path().join("greeting.txt"), "hello, world\n").expect("write");
    let data = tempfile::tempdir().expect("tempdir");
    let server = ScriptedServer::start(scenario("agent_read_edit_test_done.json"))
        .await
        .expect("server");
    let project_arg = project.path().display().to_string();
    let (code, out, err) = cli(
        data.path(),
        &[
            "run",
            "--project",
            &project_arg,
            "--provider",
            "anthropic",
            "--base-url",
            server.base_url(),
            "--model",
            "scripted-model",
            "--approve",
            "all",
            "Make the greeting say hello, tandem",
        ],
    )
    .await;
    assert_eq!(code, 0, "stdout: {out}\nstderr: {err}");
    assert!(
        out.contains("→ edit_file") && out.contains("✓ The greeting now says hello, tandem."),
        "{out}"
    );
    assert_eq!(server.failures(), Vec::<String>::new());
    assert_eq!(
        std::fs::read_to_string(project.path().join("greeting.txt")).expect("read"),
        "hello, tandem\n"
    );

    let (code, list, _) = cli(data.path(), &["sessions", "--project", &project_arg]).await;
    assert_eq!(code, 0);
    let id = list.split('\t').next().expect("an id").to_string();
    assert!(list.contains("Make the greeting"), "{list}");
    let (code, shown, _) = cli(data.path(), &["show", "--json", &id]).await;
    assert_eq!(code, 0);
    assert!(shown.contains("\"type\":\"done\""), "{shown}");
    let (code, _, err) = cli(data.path(), &["show", "nope"]).await;
    assert_eq!(code, 2);
    assert!(err.contains("there is no session nope"), "{err}");
}

#[tokio::test]
async fn approve_none_refuses_and_the_exit_code_says_the_task_did_not_finish() {
    let project = tempfile::tempdir().expect("tempdir");
    let data = tempfile::tempdir().expect("tempdir");
    let server = ScriptedServer::start(scenario("agent_user_denies_with_message.json"))
        .await
        .expect("server");
    let project_arg = project.path().display().to_string();
    let (code, out, err) = cli(
        data.path(),
        &[
            "run",
            "--project",
            &project_arg,
            "--provider",
            "openai",
            "--base-url",
            server.base_url(),
            "--model",
            "m",
            "--approve",
            "none",
            "--json",
            "deploy it",
        ],
    )
    .await;
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("stopped without calling task_done"), "{err}");
    // JSON events, one per line; the denial reached the model.
    assert!(
        out.lines()
            .all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok()),
        "{out}"
    );
    assert!(out.contains("The user denied this call"), "{out}");
    let failures = server.failures();
    assert_eq!(
        failures.len(),
        1,
        "the scenario expected the user's message, which --approve none does not give: {failures:?}"
    );
}

#[tokio::test]
async fn run_without_a_provider_says_how_to_set_one() {
    let project = tempfile::tempdir().expect("tempdir");
    let data = tempfile::tempdir().expect("tempdir");
    let (code, _, err) = cli(
        data.path(),
        &[
            "run",
            "--project",
            &project.path().display().to_string(),
            "hi",
        ],
    )
    .await;
    assert_eq!(code, 2);
    assert!(err.contains("pass --provider and --model"), "{err}");
}
