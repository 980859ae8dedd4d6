//! Real local-model output, recorded byte for byte (`scripts/record-model-exchange.py`, see
//! docs/local-models.md), replayed through the scripted model server into `tandem-cli run`:
//! what Qwen2.5-Coder-1.5B under llama-server's stock template really writes stays handled,
//! without the model. The tools run for real on the same toy project the recording was made on.

use model_server::{Scenario, ScriptedServer};
use serde_json::Value;
use std::path::{Path, PathBuf};

const CALC: &str = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n";
const TEST_CALC: &str = "import unittest\n\nfrom calc import add, sub\n\n\nclass CalcTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n    def test_sub(self):\n        self.assertEqual(sub(5, 3), 2)\n\n\nif __name__ == \"__main__\":\n    unittest.main()\n";
const TASK: &str = "Step 1: read calc.py with read_file. Step 2: fix the add function with edit_file so it returns a + b. Step 3: run the tests with run_command: python3 -m unittest test_calc. Step 4: when the tests pass, call task_done.";

fn recording(name: &str) -> Scenario {
    Scenario::load(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/recordings")
            .join(name)
            .join("scenario.json"),
    )
    .expect("recording")
}

fn toy_project() -> tempfile::TempDir {
    let project = tempfile::tempdir().expect("tempdir");
    std::fs::write(project.path().join("calc.py"), CALC).expect("write");
    std::fs::write(project.path().join("test_calc.py"), TEST_CALC).expect("write");
    project
}

/// Runs the recorded task as it was run live: a server on this machine (so lenient tool calls
/// are on by default), full auto.
async fn replay(project: &Path, server: &ScriptedServer) -> (i32, String, String) {
    let data = tempfile::tempdir().expect("tempdir");
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_tandem-cli"))
        .args(["run", "--project"])
        .arg(project)
        .args([
            "--provider",
            "openai",
            "--base-url",
            server.base_url(),
            "--model",
            "local",
            "--approve",
            "all",
            "--mode",
            "full_auto",
            "--max-steps",
            "12",
            TASK,
        ])
        .env("TANDEM_DATA_DIR", data.path())
        .env("XDG_CONFIG_HOME", data.path().join("config"))
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .expect("run tandem-cli");
    test_support::ran(out)
}

/// The text of the tool results Tandem sent back in request `n`.
fn tool_results(server: &ScriptedServer, n: usize) -> Vec<String> {
    let requests = server.requests();
    let messages = requests[n].body["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    messages
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| match &m["content"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect()
}

/// The model wrote its call as a ```json block asking for `src/calc.py`; the call runs, and the
/// error it gets back names the file at the project's root, so a model can call again.
#[tokio::test]
async fn a_fenced_call_for_a_wrong_path_runs_and_is_told_the_right_one() {
    let project = toy_project();
    let server = ScriptedServer::start(recording("qwen-1.5b-stock-wrong-path"))
        .await
        .expect("server");
    let (code, out, err) = replay(project.path(), &server).await;
    assert_eq!(server.requests().len(), 2, "stdout: {out}\nstderr: {err}");
    assert!(out.contains("→ read_file"), "stdout: {out}\nstderr: {err}");
    let results = tool_results(&server, 1);
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(
        results[0].contains("src/calc.py does not exist")
            && results[0].contains("Call the tool again with the path \"calc.py\""),
        "the error names the file at the root: {results:?}"
    );
    // Its second reply is prose (it asks the user): the turn ends without task_done.
    assert_eq!(code, 3, "stdout: {out}\nstderr: {err}");
    assert_eq!(
        std::fs::read_to_string(project.path().join("calc.py")).expect("read"),
        CALC
    );
}

/// The whole four-step task with the stock template: the model plans every call at once (the
/// first runs, it hears the rest did not), sends `return a - b` (which `sub` has too), copies
/// the arguments the error gives for line 2, runs the tests and calls task_done.
#[tokio::test]
async fn the_four_step_task_finishes_with_the_stock_template() {
    let project = toy_project();
    let server = ScriptedServer::start(recording("qwen-1.5b-stock-fix-add"))
        .await
        .expect("server");
    let (code, out, err) = replay(project.path(), &server).await;
    assert_eq!(code, 0, "stdout: {out}\nstderr: {err}");
    assert_eq!(server.requests().len(), 5, "stdout: {out}\nstderr: {err}");
    let first = tool_results(&server, 1);
    assert!(
        first[0].contains("Not run: `edit_file`, `run_command`"),
        "{first:?}"
    );
    let ambiguous = tool_results(&server, 2);
    assert!(
        ambiguous.last().is_some_and(|r| r.contains(
            r#"line 2: {"path":"calc.py","old_string":"def add(a, b):\n    return a - b","new_string":"def add(a, b):\n    return a + b"}"#
        )),
        "{ambiguous:?}"
    );
    let tests = tool_results(&server, 4);
    assert!(tests.last().is_some_and(|r| r.contains("OK")), "{tests:?}");
    assert_eq!(
        std::fs::read_to_string(project.path().join("calc.py")).expect("read"),
        CALC.replacen("return a - b", "return a + b", 1)
    );
}
