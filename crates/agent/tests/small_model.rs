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

#[derive(Default)]
struct Recorded {
    requests: Mutex<Vec<ChatRequest>>,
}

impl LocalModel for Recorded {
    fn stream<'a>(
        &'a self,
        req: &'a ChatRequest,
        on_event: &'a mut (dyn FnMut(StreamEvent) + Send),
        _cancel: &'a CancellationToken,
    ) -> LocalReply<'a> {
        self.requests.lock().expect("lock").push(req.clone());
        Box::pin(async move {
            // Reading a long prompt, as the built-in model reports it.
            on_event(StreamEvent::PromptProgress {
                evaluated: 512,
                total: 2015,
            });
            let text = r#"{"name": "task_done", "arguments": {"summary": "Nothing to do."}}"#;
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

#[tokio::test]
async fn the_built_in_model_gets_the_compact_tools_and_the_step_by_step_prompt() {
    let project = tempfile::tempdir().expect("tempdir");
    std::fs::write(project.path().join("calc.py"), "x = 1\n").expect("write");
    let model = Arc::new(Recorded::default());
    let mut setup = Setup::new(Mode::FullAuto);
    setup.local_model = Some(model.clone());
    let empty = Scenario {
        name: "unused: the built-in model answers".into(),
        format: Format::Openai,
        turns: Vec::new(),
        models: Vec::new(),
    };
    let h = Harness::start(empty, project.path(), setup, |_| ApprovalAnswer::Approve).await;
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
