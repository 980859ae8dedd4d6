//! A project's MCP servers against a real one: `tests/mcp/tiny_server.py`, a tiny server
//! speaking JSON-RPC over stdio. It is started, listed and called; it crashes in the middle of
//! a call, hangs, and fails to start; a project's server waits for the user's approval.

use mcp::{Approvals, Hub, HubSetup, Launch, Launcher, McpError, Server, Timing, Transport};
use protocol::McpState;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

fn tiny_server() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/mcp/tiny_server.py")
        .canonicalize()
        .expect("tests/mcp/tiny_server.py")
        .display()
        .to_string()
}

/// The system's Python (the test server needs nothing else).
fn python() -> &'static str {
    if Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    }
}

/// Starts programs as they are, in the project folder (the agent's launcher adds the sandbox).
struct Plain {
    project: PathBuf,
}

impl Launcher for Plain {
    fn launch(&self, server: &Server) -> Result<Launch, String> {
        let Transport::Stdio {
            command, args, env, ..
        } = &server.transport
        else {
            return Err("not a program".into());
        };
        let mut c = std::process::Command::new(command);
        c.args(args).envs(env).current_dir(&self.project);
        Ok(Launch {
            command: c,
            status: None,
        })
    }

    fn setup_error(&self, _status: &Path) -> Option<String> {
        None
    }
}

struct Fixture {
    _dir: tempfile::TempDir,
    project: PathBuf,
    config: PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = dir.path().canonicalize().expect("canonical");
    let (project, config) = (base.join("project"), base.join("config"));
    std::fs::create_dir_all(project.join(".tandem")).expect("mkdir");
    std::fs::create_dir_all(&config).expect("mkdir");
    Fixture {
        _dir: dir,
        project,
        config,
    }
}

/// An `mcpServers` entry running the tiny server with `extra` arguments.
fn entry(extra: &[&str], more: serde_json::Value) -> serde_json::Value {
    let mut args = vec![tiny_server(), "--marker".into(), "started.txt".into()];
    args.extend(extra.iter().map(|s| s.to_string()));
    let mut e = json!({"command": python(), "args": args});
    if let (Some(e), Some(more)) = (e.as_object_mut(), more.as_object()) {
        e.extend(more.clone());
    }
    e
}

fn hub(f: &Fixture) -> Arc<Hub> {
    Hub::new(HubSetup {
        project: f.project.clone(),
        user_file: f.config.join("mcp.json"),
        approvals: Approvals::new(f.config.join(mcp::APPROVALS_FILE)),
        launcher: Arc::new(Plain {
            project: f.project.clone(),
        }),
        timing: Timing {
            start: Duration::from_secs(20),
            call: Duration::from_secs(20),
            backoff: Duration::from_millis(50),
        },
    })
}

fn write_user(f: &Fixture, servers: serde_json::Value) {
    std::fs::write(
        f.config.join("mcp.json"),
        json!({ "mcpServers": servers }).to_string(),
    )
    .expect("write");
}

fn starts(f: &Fixture) -> usize {
    std::fs::read_to_string(f.project.join("started.txt"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

async fn call(
    hub: &Hub,
    tool: &str,
    args: serde_json::Value,
) -> Result<mcp::CallOutcome, McpError> {
    tokio::time::timeout(
        Duration::from_secs(30),
        hub.call(tool, &args, &CancellationToken::new()),
    )
    .await
    .expect("the call ends")
}

#[tokio::test]
async fn a_server_is_started_listed_and_called() {
    let f = fixture();
    write_user(&f, json!({"tiny": entry(&[], json!({}))}));
    let hub = hub(&f);
    hub.start();
    hub.settle(Duration::from_secs(30)).await;
    let view = hub.view();
    let tiny = &view.servers[0];
    assert_eq!(tiny.state, McpState::Running, "{tiny:?}");
    let names: Vec<&str> = tiny.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "tiny__echo",
            "tiny__add",
            "tiny__crash",
            "tiny__hang",
            "tiny__inject",
            "tiny__connect"
        ]
    );
    assert_eq!(tiny.tools[0].tool, "echo");
    assert_eq!(tiny.tools[0].description, "Says the text back.");
    assert_eq!(tiny.stderr, ["tiny server: ready"]);
    let out = call(&hub, "tiny__echo", json!({"text": "hello"}))
        .await
        .expect("echo");
    assert_eq!(out.text, "echo: hello");
    assert!(!out.is_error);
    let out = call(&hub, "tiny__add", json!({"a": 2, "b": 3}))
        .await
        .expect("add");
    assert_eq!(out.text, "5");
    let err = call(&hub, "tiny__nope", json!({}))
        .await
        .expect_err("unknown");
    assert!(matches!(err, McpError::UnknownTool(_)), "{err}");
}

#[tokio::test]
async fn a_crash_in_the_middle_of_a_call_is_survived() {
    let f = fixture();
    write_user(&f, json!({"tiny": entry(&[], json!({}))}));
    let hub = hub(&f);
    hub.start();
    hub.settle(Duration::from_secs(30)).await;
    let err = call(&hub, "tiny__crash", json!({}))
        .await
        .expect_err("crashed");
    match &err {
        McpError::Crashed {
            restarting, stderr, ..
        } => {
            assert!(restarting);
            assert!(
                stderr.iter().any(|l| l.contains("crashing on purpose")),
                "{stderr:?}"
            );
        }
        other => panic!("not a crash: {other}"),
    }
    assert!(
        err.to_string().contains("it is being started again"),
        "{err}"
    );
    // The server's own words reach people, not the model.
    assert!(!err.to_string().contains("crashing"), "{err}");
    // A call right away waits for it to be back.
    let out = call(&hub, "tiny__echo", json!({"text": "again"}))
        .await
        .expect("echo");
    assert_eq!(out.text, "echo: again");
    let view = hub.view();
    assert_eq!(view.servers[0].state, McpState::Running);
    assert_eq!(view.servers[0].restarts, 1);
    assert_eq!(starts(&f), 2);
    assert!(
        view.servers[0]
            .stderr
            .iter()
            .any(|l| l.contains("crashing on purpose")),
        "{:?}",
        view.servers[0].stderr
    );
}

#[tokio::test]
async fn a_hung_call_stops_the_server_and_it_starts_again() {
    let f = fixture();
    write_user(&f, json!({"tiny": entry(&[], json!({"timeout": 1}))}));
    let hub = hub(&f);
    hub.start();
    hub.settle(Duration::from_secs(30)).await;
    let err = call(&hub, "tiny__hang", json!({})).await.expect_err("hung");
    assert!(
        matches!(
            err,
            McpError::Hung {
                seconds: 1,
                restarting: true,
                ..
            }
        ),
        "{err}"
    );
    hub.settle(Duration::from_secs(30)).await;
    assert_eq!(starts(&f), 2);
    let out = call(&hub, "tiny__echo", json!({"text": "awake"}))
        .await
        .expect("echo");
    assert_eq!(out.text, "echo: awake");
}

#[tokio::test]
async fn a_server_that_cannot_start_is_tried_three_more_times_and_shown_failed() {
    let f = fixture();
    write_user(
        &f,
        json!({"broken": entry(&["--fail-start"], json!({})), "tiny": entry(&[], json!({}))}),
    );
    let hub = hub(&f);
    hub.start();
    hub.settle(Duration::from_secs(60)).await;
    let view = hub.view();
    let broken = &view.servers[0];
    assert_eq!(broken.name, "broken");
    assert_eq!(broken.state, McpState::Failed, "{broken:?}");
    assert_eq!(broken.restarts, mcp::MAX_RESTARTS);
    assert!(
        broken
            .stderr
            .iter()
            .any(|l| l.contains("the database is missing")),
        "{broken:?}"
    );
    assert!(
        broken
            .message
            .as_deref()
            .is_some_and(|m| m.contains("gave up")),
        "{broken:?}"
    );
    // Both servers append to the marker: one start of the good one, four of the broken one.
    assert_eq!(starts(&f), 1 + 4);
    // The other server is not held back by it.
    assert_eq!(view.servers[1].state, McpState::Running);
    let err = call(&hub, "broken__echo", json!({}))
        .await
        .expect_err("no tools");
    assert!(matches!(err, McpError::UnknownTool(_)), "{err}");
}

#[tokio::test]
async fn a_projects_server_starts_nothing_until_the_user_approves_it() {
    let f = fixture();
    std::fs::write(
        f.project.join(mcp::PROJECT_FILE),
        json!({"mcpServers": {"repo": entry(&[], json!({}))}}).to_string(),
    )
    .expect("write");
    let hub = hub(&f);
    hub.start();
    hub.settle(Duration::from_secs(5)).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(starts(&f), 0, "the repository's program ran");
    let view = hub.view();
    assert_eq!(view.servers[0].state, McpState::NeedsApproval);
    assert!(hub.tools().is_empty());

    hub.approve("repo").expect("approve");
    hub.settle(Duration::from_secs(30)).await;
    assert_eq!(hub.view().servers[0].state, McpState::Running);
    assert_eq!(starts(&f), 1);
    // The approval is the user's, kept in their config folder, not in the project.
    let kept = std::fs::read_to_string(f.config.join(mcp::APPROVALS_FILE)).expect("approvals");
    assert!(kept.contains(&f.project.display().to_string()), "{kept}");
    assert!(
        !f.project
            .join(".tandem")
            .read_dir()
            .expect("dir")
            .any(|e| e.map(|e| e.file_name() != "mcp.json").unwrap_or(false))
    );

    // A new hub for the project (the next launch) starts it at once.
    drop(hub);
    let again = self::hub(&f);
    again.start();
    again.settle(Duration::from_secs(30)).await;
    assert_eq!(again.view().servers[0].state, McpState::Running);
}

/// Issue 26: a 17-20 MB result was dropped by the library's line limit without a word; the
/// call waited its whole timeout and the healthy server was restarted. It fails at once, in
/// words, and the server keeps running.
#[tokio::test]
async fn a_result_too_large_fails_its_call_in_words_and_the_server_stays() {
    let f = fixture();
    write_user(&f, json!({"tiny": entry(&[], json!({}))}));
    let hub = hub(&f);
    hub.start();
    hub.settle(Duration::from_secs(30)).await;
    let big = call(
        &hub,
        "tiny__echo",
        json!({"text": "x", "times": 17_000_000}),
    )
    .await;
    let words = match big {
        Ok(out) => {
            assert!(out.is_error, "{}", out.text.len());
            out.text
        }
        Err(e) => e.to_string(),
    };
    assert!(words.contains("over the 16 MB"), "{words}");
    assert!(words.contains("ask for less"), "{words}");
    let out = call(&hub, "tiny__echo", json!({"text": "still here"}))
        .await
        .expect("echo");
    assert_eq!(out.text, "echo: still here");
    assert_eq!(starts(&f), 1, "the server was started again");
    assert_eq!(hub.view().servers[0].restarts, 0);
}

/// Issue 47: one byte that is not UTF-8 on a server's stderr stopped the reader, the pipe was
/// dropped, and every later call "stopped during the call"; and stderr without newlines grew
/// without bound. Read as bytes and bounded, the server goes on.
#[tokio::test]
async fn a_server_that_writes_binary_or_endless_lines_to_stderr_goes_on() {
    let f = fixture();
    write_user(&f, json!({"tiny": entry(&["--noisy"], json!({}))}));
    let hub = hub(&f);
    hub.start();
    hub.settle(Duration::from_secs(30)).await;
    for i in 0..3 {
        let out = call(&hub, "tiny__echo", json!({"text": format!("call {i}")}))
            .await
            .unwrap_or_else(|e| panic!("call {i}: {e}"));
        assert_eq!(out.text, format!("echo: call {i}"));
    }
    let view = hub.view();
    let tiny = &view.servers[0];
    assert_eq!(tiny.state, McpState::Running, "{tiny:?}");
    assert!(
        tiny.stderr
            .iter()
            .any(|l| l.starts_with("tiny server: \u{fffd}")),
        "{:?}",
        tiny.stderr
    );
    assert!(
        tiny.stderr.iter().all(|l| l.chars().count() <= 401),
        "each line kept is bounded"
    );
    assert_eq!(starts(&f), 1, "never restarted");
}
