//! `tandem-cli run`, `sessions` and `show` against the scripted model server.

use model_server::{Scenario, ScriptedServer};
use std::path::Path;

async fn cli(data: &Path, args: &[&str]) -> test_support::Ran {
    test_support::tandem_cli_scripted(env!("CARGO_BIN_EXE_tandem-cli"), data, args).await
}

#[tokio::test]
async fn run_streams_the_transcript_and_finishes_on_task_done() {
    let project = tempfile::tempdir().expect("tempdir");
    std::fs::write(project.path().join("greeting.txt"), "hello, world\n").expect("write");
    let data = tempfile::tempdir().expect("tempdir");
    let server = ScriptedServer::start(Scenario::named("agent_read_edit_test_done.json"))
        .await
        .expect("server");
    let project_arg = project.path().display().to_string();
    let (code, out, err) = cli(
        data.path(),
        &test_support::scripted_run(
            &project_arg,
            server.base_url(),
            &["--approve", "all", "Make the greeting say hello, tandem"],
        ),
    )
    .await;
    assert_eq!(code, 0, "stdout: {out}\nstderr: {err}");
    assert!(
        out.contains("→ edit_file") && out.contains("✓ The greeting now says hello, tandem."),
        "{out}"
    );
    // Issue 26: the run ended with its turn (not 5 s later, waiting on its own events), and
    // its private temporary folder went with it.
    assert!(!err.contains("did not end within"), "{err}");
    let id = err
        .lines()
        .find_map(|l| l.strip_prefix("session: "))
        .expect("the session's id");
    let uid = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata("/proc/self").expect("uid"));
    let scratch = std::env::temp_dir().join(format!("tandem-{uid}")).join(id);
    assert!(!scratch.exists(), "{} was left behind", scratch.display());
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

/// The engine's warnings on a task_done are printed instead of a plain check mark.
#[tokio::test]
async fn a_contradicted_task_done_is_printed_with_its_warnings() {
    let project = tempfile::tempdir().expect("tempdir");
    std::fs::write(project.path().join("notes.txt"), "notes\n").expect("write");
    // Older than the session: nothing in it changes the file.
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    let data = tempfile::tempdir().expect("tempdir");
    let server = ScriptedServer::start(Scenario::named("cli_done_contradicted.json"))
        .await
        .expect("server");
    let project_arg = project.path().display().to_string();
    let (code, out, err) = cli(
        data.path(),
        &test_support::scripted_run(
            &project_arg,
            server.base_url(),
            &["--approve", "all", "Make the tests pass"],
        ),
    )
    .await;
    assert_eq!(code, 0, "stdout: {out}\nstderr: {err}");
    assert!(out.contains("⚠ All tests pass."), "{out}");
    assert!(!out.contains("✓ All tests pass."), "{out}");
    assert!(
        out.contains("notes.txt is listed as changed, but nothing changed it"),
        "{out}"
    );
    assert!(
        out.contains("the last check failed: `python3 -m unittest -q test_missing` exited with 1"),
        "{out}"
    );
}

#[tokio::test]
async fn approve_none_refuses_and_the_exit_code_says_the_task_did_not_finish() {
    let project = tempfile::tempdir().expect("tempdir");
    let data = tempfile::tempdir().expect("tempdir");
    let server = ScriptedServer::start(Scenario::named("agent_user_denies_with_message.json"))
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

#[tokio::test]
async fn run_stops_what_is_still_running_when_it_exits_and_says_so() {
    let project = tempfile::tempdir().expect("tempdir");
    let data = tempfile::tempdir().expect("tempdir");
    let server = ScriptedServer::start(Scenario::named("cli_background_left_running.json"))
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
            "all",
            "--mode",
            "full_auto",
            "--background-wait",
            "1",
            "start the server",
        ],
    )
    .await;
    assert_eq!(code, 3, "stdout: {out}\nstderr: {err}");
    assert!(
        err.contains("stopped task-1 (sleep 33)"),
        "it says what it stopped: {err}"
    );
    test_support::wait_until(
        "the background command to end with tandem-cli",
        std::time::Duration::from_secs(5),
        || std::future::ready(test_support::procs::sleeping("33") == 0),
    )
    .await
    .unwrap_or_else(|e| panic!("{e}: the background command outlived tandem-cli"));
}

#[tokio::test]
async fn show_prints_the_turns_and_the_tree_of_agents() {
    let project = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        project.path().join("calc.py"),
        "def add(a, b):\n    return a - b  # wrong\n",
    )
    .expect("write");
    // The scenario's sub-agent is refused what its parent is refused: the project's docs.
    std::fs::create_dir_all(project.path().join(".tandem")).expect("mkdir");
    std::fs::write(
        project.path().join(".tandem/policy.toml"),
        "[paths]\nprotected = [\"docs/**\"]\n",
    )
    .expect("write");
    let data = tempfile::tempdir().expect("tempdir");
    let server = ScriptedServer::start(Scenario::named("agent_subagent_fixes_a_file.json"))
        .await
        .expect("server");
    let project_arg = project.path().display().to_string();
    let (code, _, err) = cli(
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
            "all",
            "--mode",
            "auto_edit",
            "Fix the calculator",
        ],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    let id = err
        .lines()
        .find_map(|l| l.strip_prefix("session: "))
        .expect("the session's id")
        .to_string();
    let (code, shown, _) = cli(data.path(), &["show", &id]).await;
    assert_eq!(code, 0);
    assert!(
        shown.contains("turns:\n  1. Fix the calculator — done"),
        "{shown}"
    );
    assert!(
        shown.contains("agents:\n  a1 Fix add — done — 4 steps"),
        "{shown}"
    );
}

/// A small local model writes its calls as ```json blocks: from a server on this machine they
/// are taken by default, and `--lenient-tool-calls off` leaves them as text.
#[tokio::test]
async fn calls_written_as_text_by_a_local_model_run_unless_switched_off() {
    for (flag, runs) in [(None, true), (Some("off"), false), (Some("on"), true)] {
        let project = tempfile::tempdir().expect("tempdir");
        std::fs::write(project.path().join("greeting.txt"), "hello, world\n").expect("write");
        let data = tempfile::tempdir().expect("tempdir");
        let server = ScriptedServer::start(Scenario::named("cli_local_text_calls.json"))
            .await
            .expect("server");
        let project_arg = project.path().display().to_string();
        let mut args = vec![
            "run",
            "--project",
            &project_arg,
            "--provider",
            "openai",
            "--base-url",
            server.base_url(),
            "--model",
            "local",
            "--approve",
            "reads",
        ];
        if let Some(f) = flag {
            args.extend(["--lenient-tool-calls", f]);
        }
        args.push("What does greeting.txt say?");
        let (code, out, err) = cli(data.path(), &args).await;
        assert_eq!(code, 3, "{flag:?}: stdout: {out}\nstderr: {err}");
        assert_eq!(
            out.contains("→ read_file"),
            runs,
            "{flag:?}: stdout: {out}\nstderr: {err}"
        );
        if !runs {
            // Its call stays text: the turn that would answer its result never comes.
            assert_eq!(
                server.failures(),
                ["the script has 2 turns but only 1 requests came"],
                "{flag:?}"
            );
        }
    }
}

/// An empty reply (no text, no call) in the middle of a task does not end it: the model is
/// told to go on, and the next request carries no empty assistant message.
#[tokio::test]
async fn an_empty_reply_is_answered_with_a_nudge_and_the_task_goes_on() {
    let project = tempfile::tempdir().expect("tempdir");
    std::fs::write(project.path().join("greeting.txt"), "hello, world\n").expect("write");
    let data = tempfile::tempdir().expect("tempdir");
    let server = ScriptedServer::start(Scenario::named("cli_empty_reply.json"))
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
            "local",
            "--approve",
            "reads",
            "What does greeting.txt say?",
        ],
    )
    .await;
    assert_eq!(code, 0, "stdout: {out}\nstderr: {err}");
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let last = requests[2].body["messages"].as_array().expect("messages");
    assert!(
        last.iter().all(|m| m["role"] != "assistant"
            || !m["content"].is_null()
            || !m["tool_calls"].is_null()),
        "{last:?}"
    );
}

/// A command's output is the repository's to write: a "Permission denied" in it makes the
/// engine ask to run the command outside the sandbox, which `--approve all` refuses. Neither the
/// transcript nor the answer kept in the session log tells anyone how to let it out: the answer
/// said "run with --approve ask" before.
#[tokio::test]
async fn a_refusal_in_a_commands_output_does_not_suggest_leaving_the_sandbox() {
    let project = tempfile::tempdir().expect("tempdir");
    let data = tempfile::tempdir().expect("tempdir");
    let server = ScriptedServer::start(Scenario::named("cli_refusal_in_output.json"))
        .await
        .expect("server");
    let project_arg = project.path().display().to_string();
    let (code, out, err) = cli(
        data.path(),
        &test_support::scripted_run(
            &project_arg,
            server.base_url(),
            &["--approve", "all", "Set the project up"],
        ),
    )
    .await;
    assert_eq!(code, 0, "stdout: {out}\nstderr: {err}");
    assert!(
        !out.contains("--outside") && !err.contains("--outside"),
        "{out}{err}"
    );
    let id = err
        .lines()
        .find_map(|l| l.strip_prefix("session: "))
        .expect("the session's id");
    let (code, log, _) = cli(data.path(), &["show", "--json", id]).await;
    assert_eq!(code, 0);
    let answer = log
        .lines()
        .find(|l| l.contains("\"approval_answered\"") && l.contains("\"deny\""))
        .expect("the answer to the question to leave the sandbox");
    assert!(
        answer.contains("never lets a command leave the sandbox")
            && !answer.contains("--approve ask"),
        "{answer}"
    );
}

/// Issue 27: `--max-cost` holds. Replies cost $0.30 each; with $0.50 the run stops before its
/// third call, exits 7 and says what was spent and how to go on; continued with a higher
/// limit, it finishes. A limit that is not an amount is refused before anything runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_cost_stops_the_run_and_a_higher_one_goes_on() {
    let project = tempfile::tempdir().expect("tempdir");
    std::fs::write(project.path().join("a.txt"), "alpha\n").expect("write");
    let data = tempfile::tempdir().expect("tempdir");
    let server = model_server::ScriptedServer::start(
        model_server::Scenario::load(
            &std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../tests/scenarios/cli_spend_limit.json"),
        )
        .expect("scenario"),
    )
    .await
    .expect("server");
    let project_arg = project.path().display().to_string();
    let run = |extra: Vec<String>| {
        let mut args: Vec<String> = [
            "run",
            "--project",
            &project_arg,
            "--provider",
            "anthropic",
            "--base-url",
            server.base_url(),
            "--model",
            "claude-sonnet-4-5",
            "--approve",
            "all",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.extend(extra);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_tandem-cli"))
            .args(&args)
            .env("TANDEM_DATA_DIR", data.path())
            .env("XDG_CONFIG_HOME", data.path().join("config"))
            .env("ANTHROPIC_API_KEY", "scripted-key")
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run tandem-cli");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = tokio::task::block_in_place(|| run(vec!["--max-cost=-1".into(), "x".into()]));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("the limit must be more than $0"), "{err}");

    let (code, err) = tokio::task::block_in_place(|| {
        run(vec![
            "--max-cost".into(),
            "0.50".into(),
            "Read a.txt twice".into(),
        ])
    });
    assert_eq!(code, Some(7), "{err}");
    assert!(
        err.contains("the spending limit for this session ($0.50) is reached: $0.60 spent"),
        "{err}"
    );
    assert!(err.contains("continue with --session"), "{err}");
    let id = err
        .lines()
        .find_map(|l| l.strip_prefix("session: "))
        .expect("the session's id")
        .to_string();
    assert_eq!(server.requests().len(), 2, "no call past the limit");

    let (code, err) = tokio::task::block_in_place(|| {
        run(vec![
            "--max-cost".into(),
            "2".into(),
            "--session".into(),
            id.clone(),
            "Go on".into(),
        ])
    });
    assert_eq!(code, Some(0), "{err}");
}

/// A settings.toml that cannot be read does not stop a run given --provider and --model, but its
/// spending limits stop holding with it: the run says so rather than going on silently.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_settings_file_is_said_to_take_its_limits_with_it() {
    let project = tempfile::tempdir().expect("tempdir");
    let data = tempfile::tempdir().expect("tempdir");
    let config = data.path().join("config");
    std::fs::create_dir_all(config.join("tandem")).expect("mkdir");
    std::fs::write(
        config.join("tandem/settings.toml"),
        "[limits]\nsession_usd = \"five dollars\"\n",
    )
    .expect("write");
    let server = model_server::ScriptedServer::start(
        model_server::Scenario::from_json(
            r#"{"name": "one answer", "format": "anthropic", "turns": [
                {"reply": {"tool_calls": [{"id": "d1", "name": "task_done", "input": {"summary": "ok"}}]}}]}"#,
        )
        .expect("scenario"),
    )
    .await
    .expect("server");
    let project_arg = project.path().display().to_string();
    let base_url = server.base_url().to_string();
    let out = tokio::task::block_in_place(|| {
        std::process::Command::new(env!("CARGO_BIN_EXE_tandem-cli"))
            .args([
                "run",
                "--project",
                &project_arg,
                "--provider",
                "anthropic",
                "--base-url",
                &base_url,
                "--model",
                "claude-sonnet-4-5",
                "--approve",
                "all",
                "Say ok",
            ])
            .env("TANDEM_DATA_DIR", data.path())
            .env("XDG_CONFIG_HOME", &config)
            .env("ANTHROPIC_API_KEY", "scripted-key")
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run tandem-cli")
    });
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("warning:")
            && err.contains("settings.toml")
            && err.contains("without the file's settings (its [limits] too)"),
        "{err}"
    );
}
