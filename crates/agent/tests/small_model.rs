//! The built-in model is small and slow: the agent offers it the compact tool set and tells it
//! to go step by step. The model here is a fake at the edge (the in-process model), which
//! records what it was asked and answers with a call written as text, as the real one does.

#[path = "support/harness.rs"]
mod harness;

use harness::{Harness, Setup};
use llm::{ChatRequest, LocalModel, LocalReply, StreamEvent, TextStop};
use model_server::{Format, Scenario};
use policy::Mode;
use protocol::{AgentEvent, ApprovalAnswer, TurnOutcome, Usage};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// Records what it was asked and answers with the next of its replies, then task_done.
#[derive(Default)]
struct Recorded {
    requests: Mutex<Vec<ChatRequest>>,
    replies: Mutex<Vec<&'static str>>,
}

impl Recorded {
    fn replying(replies: Vec<&'static str>) -> Self {
        Recorded {
            requests: Mutex::default(),
            replies: Mutex::new(replies),
        }
    }
}

impl LocalModel for Recorded {
    fn stream<'a>(
        &'a self,
        req: &'a ChatRequest,
        on_event: &'a mut (dyn FnMut(StreamEvent) + Send),
        _cancel: &'a CancellationToken,
    ) -> LocalReply<'a> {
        self.requests.lock().expect("lock").push(req.clone());
        let text = {
            let mut replies = self.replies.lock().expect("lock");
            if replies.is_empty() {
                r#"{"name": "task_done", "arguments": {"summary": "Nothing to do."}}"#
            } else {
                replies.remove(0)
            }
        };
        Box::pin(async move {
            // Reading a long prompt, as the built-in model reports it.
            on_event(StreamEvent::PromptProgress {
                evaluated: 512,
                total: 2015,
            });
            Ok(llm::reply_from_text(
                text,
                TextStop::EndTurn,
                Usage::default(),
                req,
                on_event,
            ))
        })
    }
}

fn no_scenario() -> Scenario {
    Scenario {
        name: "unused: the built-in model answers".into(),
        format: Format::Openai,
        turns: Vec::new(),
        models: Vec::new(),
    }
}

#[tokio::test]
async fn the_built_in_model_gets_the_compact_tools_and_the_step_by_step_prompt() {
    let project = tempfile::tempdir().expect("tempdir");
    std::fs::write(project.path().join("calc.py"), "x = 1\n").expect("write");
    let model = Arc::new(Recorded::default());
    let mut setup = Setup::new(Mode::FullAuto);
    setup.local_model = Some(model.clone());
    let h = Harness::start(no_scenario(), project.path(), setup, |_| {
        ApprovalAnswer::Approve
    })
    .await;
    let outcome = h.run("read calc.py, then finish").await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    let requests = model.requests.lock().expect("lock");
    let req = requests.first().expect("asked once");
    let names: Vec<&str> = req.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "read_file",
            "list_files",
            "search_codebase",
            "write_file",
            "edit_file",
            "run_command",
            "task_done"
        ]
    );
    // Issue 23: one form per tool. edit_file's two forms let the grammar write a mix
    // (`old_string` beside `"edits": []`); a small model is offered the single form, all of it
    // required.
    let edit = req
        .tools
        .iter()
        .find(|t| t.name == "edit_file")
        .expect("edit_file");
    assert_eq!(
        edit.input_schema["required"],
        serde_json::json!(["path", "old_string", "new_string"]),
        "{}",
        edit.input_schema
    );
    assert!(edit.input_schema["properties"].get("edits").is_none());
    assert!(!edit.description.contains("edits"), "{}", edit.description);
    // The file the task names is read before the model's first step, as its own call would.
    let read = serde_json::to_string(&req.messages).expect("json");
    assert!(
        read.contains(r#""name":"read_file","input":{"path":"calc.py"}"#) && read.contains("x = 1"),
        "{read}"
    );
    let system = req.system.as_deref().unwrap_or("");
    assert!(system.contains("Do every step, in order"), "{system}");
    assert!(
        system.contains("calc.py"),
        "the top level is listed: {system}"
    );
    assert!(
        !system.contains("To run the project's tests"),
        "no tests here: {system}"
    );
    drop(requests);
    // How far the prompt has been read reaches the window, and not the log.
    assert!(
        h.events().iter().any(|e| matches!(
            e,
            AgentEvent::PromptProgress {
                evaluated: 512,
                total: 2015
            }
        )),
        "{:?}",
        h.events()
    );
    let log = std::fs::read_to_string(h.log_path()).expect("log");
    assert!(!log.contains("prompt_progress"), "{log}");
}

/// Issue 23: the built-in model's first call was an edit composed from the task alone, refused
/// because the file had not been read. The file the task names is read for it first: the same
/// first edit now lands.
#[tokio::test]
async fn a_file_the_task_names_is_read_before_the_first_step_and_counts_as_read() {
    let project = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        project.path().join("calc.py"),
        "def add(a, b):\n    return a - b\n",
    )
    .expect("write");
    let model = Arc::new(Recorded::replying(vec![
        r#"{"name": "edit_file", "arguments": {"path": "calc.py", "old_string": "    return a - b", "new_string": "    return a + b"}}"#,
    ]));
    let mut setup = Setup::new(Mode::FullAuto);
    setup.local_model = Some(model);
    let h = Harness::start(no_scenario(), project.path(), setup, |_| {
        ApprovalAnswer::Approve
    })
    .await;
    let outcome = h.run("Fix add in calc.py so the tests pass.").await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    assert_eq!(
        std::fs::read_to_string(project.path().join("calc.py")).expect("read"),
        "def add(a, b):\n    return a + b\n"
    );
    let finished: Vec<(String, bool)> = h
        .events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::ToolFinished { name, is_error, .. } => Some((name, is_error)),
            _ => None,
        })
        .collect();
    assert_eq!(
        finished,
        [
            ("read_file".to_string(), false),
            ("edit_file".to_string(), false),
            ("task_done".to_string(), false)
        ]
    );
    // The read is in the log, so a resumed session has it in its conversation too.
    let log = std::fs::read_to_string(h.log_path()).expect("log");
    assert!(log.contains(r#""name":"read_file""#), "{log}");
}

/// The task's words choose what is read, so they are attacker-reachable (a sub-agent's task is
/// written by the model, which may have read a hostile page). A name that leaves the project
/// (`..`, an absolute path, a link pointing out) is never read; a secret file in the project is
/// judged by the policy exactly as the model's own read_file of it is.
#[tokio::test]
async fn named_files_never_leave_the_project_and_secrets_are_judged_as_the_models_reads() {
    let outside = tempfile::tempdir().expect("outside");
    std::fs::write(outside.path().join("outside.txt"), "OUTSIDE-MARKER\n").expect("write");
    let root = tempfile::tempdir().expect("tempdir");
    let project = root.path().join("p");
    std::fs::create_dir(&project).expect("mkdir");
    std::fs::write(root.path().join("sibling.txt"), "SIBLING-MARKER\n").expect("write");
    std::os::unix::fs::symlink(outside.path().join("outside.txt"), project.join("link.txt"))
        .expect("symlink");
    std::fs::write(project.join(".env"), "API_KEY=ENV-MARKER\n").expect("write");
    let outside_path = outside.path().join("outside.txt").display().to_string();

    let run = |task: String, replies: Vec<&'static str>| {
        let project = project.clone();
        async move {
            let model = Arc::new(Recorded::replying(replies));
            let mut setup = Setup::new(Mode::Ask);
            setup.local_model = Some(model.clone());
            let h = Harness::start(no_scenario(), &project, setup, |_| ApprovalAnswer::Deny {
                message: None,
            })
            .await;
            h.run(&task).await;
            let asked: String = model
                .requests
                .lock()
                .expect("lock")
                .iter()
                .map(|r| serde_json::to_string(&r.messages).expect("json"))
                .collect();
            let reads: Vec<(String, bool)> = h
                .events()
                .into_iter()
                .filter_map(|e| match e {
                    AgentEvent::ToolFinished {
                        name,
                        output,
                        is_error,
                        ..
                    } if name == "read_file" => Some((output, is_error)),
                    _ => None,
                })
                .collect();
            (asked, reads)
        }
    };

    let (asked, reads) = run(
        format!("Look at ../sibling.txt, {outside_path}, link.txt and .env, then finish."),
        vec![],
    )
    .await;
    for marker in ["OUTSIDE-MARKER", "SIBLING-MARKER", "ENV-MARKER"] {
        assert!(
            !asked.contains(marker),
            "{marker} reached the model: {asked}"
        );
    }
    // Only .env was named in the project, and the policy's secrets floor refused it.
    assert!(
        matches!(reads.as_slice(), [(why, true)] if why.contains("holds secrets")),
        "{reads:?}"
    );

    // The model's own read of .env, with the same settings and answers.
    let (own_asked, own_reads) = run(
        "Finish.".into(),
        vec![r#"{"name": "read_file", "arguments": {"path": ".env"}}"#],
    )
    .await;
    assert_eq!(
        asked.contains("ENV-MARKER"),
        own_asked.contains("ENV-MARKER"),
        "a named .env is treated as the model's read of it: {reads:?} / {own_reads:?}"
    );
    assert_eq!(
        reads.iter().map(|(_, e)| *e).collect::<Vec<_>>(),
        own_reads.iter().map(|(_, e)| *e).collect::<Vec<_>>()
    );
}
