//! The built-in model is small and slow: the agent offers it the compact tool set and tells it
//! to go step by step. The model here is a fake at the edge (the in-process model), which
//! records what it was asked and answers with a call written as text, as the real one does.

use agent_harness as harness;

use harness::{Harness, Setup};
use llm::{ChatRequest, LocalModel, LocalReply, StreamEvent, TextStop};
use model_server::{Format, Scenario};
use policy::Mode;
use protocol::{AgentEvent, ApprovalAnswer, TurnOutcome, Usage};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// Records what it was asked and answers with the next of its replies, then task_done; a
/// request with no tools (a whole-file draft) with the next of its drafts, then a reply that
/// changes nothing.
#[derive(Default)]
struct Recorded {
    requests: Mutex<Vec<ChatRequest>>,
    replies: Mutex<Vec<&'static str>>,
    drafts: Mutex<Vec<&'static str>>,
}

impl Recorded {
    fn replying(replies: Vec<&'static str>) -> Self {
        Recorded {
            replies: Mutex::new(replies),
            ..Recorded::default()
        }
    }

    fn drafting(drafts: Vec<&'static str>, replies: Vec<&'static str>) -> Self {
        Recorded {
            replies: Mutex::new(replies),
            drafts: Mutex::new(drafts),
            ..Recorded::default()
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
        let text = if req.tools.is_empty() {
            let mut drafts = self.drafts.lock().expect("lock");
            if drafts.is_empty() {
                "The file needs no change."
            } else {
                drafts.remove(0)
            }
        } else {
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
            // With no tools, its text streams as it is written (as the built-in engine's).
            if req.tools.is_empty() {
                on_event(StreamEvent::TextDelta(text.to_string()));
            }
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
        context: None,
    }
}

/// The task the calc tests give a small model: one file to fix, its check named.
const FIX_ADD: &str = "Fix add in calc.py. Run `python3 -B -m unittest -q test_calc` to check.";

/// [`FIX_ADD`] on the buggy calc project in Full auto, the model answering with `drafts` (and
/// task_done with the tools): the harness, the model and how the turn ended.
async fn fix_add_drafting(
    project: &std::path::Path,
    drafts: Vec<&'static str>,
) -> (Harness, Arc<Recorded>, TurnOutcome) {
    test_support::projects::buggy_calc(project);
    let model = Arc::new(Recorded::drafting(drafts, vec![]));
    let mut setup = Setup::new(Mode::FullAuto);
    setup.local_model = Some(model.clone());
    let h = Harness::start(no_scenario(), project, setup, |_| ApprovalAnswer::Approve).await;
    let outcome = h.run(FIX_ADD).await;
    (h, model, outcome)
}

/// Each `run_command` that finished: its exit code and output.
fn commands_run(h: &Harness) -> Vec<(Option<i32>, String)> {
    h.events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::ToolFinished {
                name,
                exit_code,
                output,
                ..
            } if name == "run_command" => Some((exit_code, output)),
            _ => None,
        })
        .collect()
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
    // First the whole-file draft: no tools, the file as it is, the task.
    let draft = requests.first().expect("asked for a draft");
    assert!(draft.tools.is_empty());
    let shown = draft.messages.last().map(|m| m.text()).unwrap_or_default();
    assert!(
        shown.contains("calc.py\n```\nx = 1\n```") && shown.contains("read calc.py, then finish"),
        "{shown}"
    );
    // It changed nothing: the task went on with the tools.
    let req = requests.get(1).expect("asked with the tools");
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
    test_support::projects::buggy_calc_module(project.path());
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

/// Issue 23: offered the tools, the built-in model sent edits whose old and new text were the
/// same; asked for the file whole in a fenced block (aider's form), the same model solves most
/// of the tasks. Its first move on a task that names a file is that draft, without tools: the
/// block becomes a write_file the person approves, shown being written as a write, and the
/// task goes on with the tools.
#[tokio::test]
async fn a_small_models_first_move_is_a_whole_file_draft_that_lands_as_an_approved_write() {
    let project = tempfile::tempdir().expect("tempdir");
    test_support::projects::buggy_calc_module(project.path());
    let model = Arc::new(Recorded::drafting(
        vec!["I will fix the sign.\n\ncalc.py\n```python\ndef add(a, b):\n    return a + b\n```\n"],
        vec![],
    ));
    let mut setup = Setup::new(Mode::Ask);
    setup.local_model = Some(model.clone());
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    let h = Harness::start(no_scenario(), project.path(), setup, move |p| {
        seen.lock().expect("lock").push(p.tool.clone());
        ApprovalAnswer::Approve
    })
    .await;
    let outcome = h.run("Fix add in calc.py so the tests pass.").await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    assert_eq!(
        std::fs::read_to_string(project.path().join("calc.py")).expect("read"),
        "def add(a, b):\n    return a + b\n"
    );
    assert_eq!(
        *asked.lock().expect("lock"),
        ["write_file"],
        "the write was approved"
    );
    let events = h.events();
    assert!(
        events.iter().any(|e| matches!(e, AgentEvent::ToolCallWriting { name, chars, .. } if name == "write_file" && *chars > 0)),
        "the draft is shown as a write being prepared: {events:?}"
    );
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, AgentEvent::TextDelta { .. })),
        "the draft's text is the write, not words: {events:?}"
    );
    // The next step sees the write as its own call and its result, and has the tools.
    let requests = model.requests.lock().expect("lock");
    let next = requests.get(1).expect("a second step");
    assert!(!next.tools.is_empty());
    let conversation = serde_json::to_string(&next.messages).expect("json");
    assert!(
        conversation.contains(r#""name":"write_file""#)
            && !conversation.contains("I will fix the sign"),
        "{conversation}"
    );
}

/// Issue 23: after a draft, the check the task names failed and the small model's edits went
/// in circles. As aider does, the draft is asked for again with what failed (three times at
/// most, issue 48: going on from the model's own answer); the second one passes. Issue 48:
/// the check runs right after each draft as the agent's own call (aider's `--auto-test`), not
/// a model step asked to run it, and a task that ends with its check is done when it passes.
#[tokio::test]
async fn a_failed_check_after_a_draft_brings_a_draft_with_the_failure() {
    let project = tempfile::tempdir().expect("tempdir");
    test_support::projects::buggy_calc(project.path());
    // No replies with the tools: asked for one, the model would answer task_done at once.
    let model = Arc::new(Recorded::drafting(
        vec![
            "calc.py\n```\ndef add(a, b):\n    return a * b\n```\n",
            "calc.py\n```\ndef add(a, b):\n    return a + b\n```\n",
        ],
        vec![],
    ));
    let mut setup = Setup::new(Mode::FullAuto);
    setup.local_model = Some(model.clone());
    let h = Harness::start(no_scenario(), project.path(), setup, |_| {
        ApprovalAnswer::Approve
    })
    .await;
    let outcome = h
        .run("Fix add in calc.py. Run `python3 -B -m unittest -q test_calc` to check.")
        .await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    assert_eq!(
        std::fs::read_to_string(project.path().join("calc.py")).expect("read"),
        "def add(a, b):\n    return a + b\n"
    );
    let requests = model.requests.lock().expect("lock");
    let drafts: Vec<String> = requests
        .iter()
        .filter(|r| r.tools.is_empty())
        .map(|r| {
            r.messages
                .iter()
                .map(|m| m.text())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect();
    assert_eq!(drafts.len(), 2, "{drafts:?}");
    assert!(
        drafts[1].contains("return a * b")
            && drafts[1].contains("`python3 -B -m unittest -q test_calc` fails:\n    ")
            && drafts[1].contains("AssertionError: 6 != 5"),
        "the file as it is now and what failed: {}",
        drafts[1]
    );
    // The model's own answer is its reply, and what failed comes after it.
    let repair = requests
        .iter()
        .filter(|r| r.tools.is_empty())
        .nth(1)
        .expect("a repair");
    let last = repair.messages.len() - 1;
    assert_eq!(repair.messages[last - 1].role, protocol::Role::Assistant);
    assert!(repair.messages[last - 1].text().contains("return a * b"));
    assert!(
        repair.messages[last]
            .text()
            .contains("AssertionError: 6 != 5")
    );
    let checks: Vec<Option<i32>> = h
        .events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::ToolFinished {
                name, exit_code, ..
            } if name == "run_command" => Some(exit_code),
            _ => None,
        })
        .collect();
    assert_eq!(checks, [Some(1), Some(0)]);
    assert!(
        requests.iter().all(|r| r.tools.is_empty()),
        "no model step between a draft and its check, nor after it passed: {} requests",
        requests.len()
    );
    assert_eq!(
        outcome,
        TurnOutcome::Done {
            summary: "Changed `calc.py`; `python3 -B -m unittest -q test_calc` passes.".into()
        }
    );
    // The check is the agent's call, shown and logged as any other: the transcript reads
    // draft, write, check.
    let shown: Vec<String> = h
        .events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::ToolCallProposed { name, .. } => Some(name),
            _ => None,
        })
        .collect();
    assert_eq!(
        shown,
        [
            "read_file",
            "write_file",
            "run_command",
            "write_file",
            "run_command"
        ]
    );
}

/// Issue 48: after a failed check, the model gave the file back unchanged to the repair and to
/// both retries, then the task fell back to tool calls that circled for ten more steps (five
/// minutes of HumanEval's problem 120). It pauses saying why, with no tool step. The retries
/// are the draft asked afresh in two other wordings (told to change its answer, sampled or
/// not, the model gave the same answer back).
#[tokio::test]
async fn repairs_that_write_nothing_pause_the_task_instead_of_circling_with_the_tools() {
    let project = tempfile::tempdir().expect("tempdir");
    test_support::projects::buggy_calc(project.path());
    let wrong = "calc.py\n```\ndef add(a, b):\n    return a * b\n```\n";
    let model = Arc::new(Recorded::drafting(vec![wrong, wrong, wrong, wrong], vec![]));
    let mut setup = Setup::new(Mode::FullAuto);
    setup.local_model = Some(model.clone());
    let h = Harness::start(no_scenario(), project.path(), setup, |_| {
        ApprovalAnswer::Approve
    })
    .await;
    let outcome = h
        .run("Fix add in calc.py. Run `python3 -B -m unittest -q test_calc` to check.")
        .await;
    assert_eq!(
        outcome,
        TurnOutcome::Paused {
            reason: "`python3 -B -m unittest -q test_calc` still fails after 3 tries at rewriting the file".into()
        }
    );
    let requests = model.requests.lock().expect("lock");
    assert_eq!(
        requests
            .iter()
            .map(|r| (r.tools.is_empty(), r.temperature))
            .collect::<Vec<_>>(),
        [(true, None); 4],
        "the draft, the repair, two drafts afresh; no step with the tools"
    );
    let systems: Vec<&str> = requests
        .iter()
        .map(|r| r.system.as_deref().unwrap_or(""))
        .collect();
    assert_eq!(systems[0], systems[1], "the repair goes on from the draft");
    assert!(
        systems[2] != systems[0] && systems[3] != systems[0] && systems[2] != systems[3],
        "two other wordings"
    );
    for afresh in &requests[2..] {
        let shown: String = afresh.messages.iter().map(|m| m.text()).collect();
        assert!(
            shown.contains("return a - b"),
            "the task's first file: {shown}"
        );
        assert!(
            !shown.contains("return a * b"),
            "not the failing answer: {shown}"
        );
    }
}

/// Issue 48: the draft asked afresh after an unchanged repair is the one that solves the task
/// (HumanEval 128 with the built-in model: the first answer's wrong token survived every
/// repair). Its block writes the file and the task's check then passes.
#[tokio::test]
async fn a_draft_asked_afresh_after_an_unchanged_repair_lands_and_the_check_passes() {
    let project = tempfile::tempdir().expect("tempdir");
    let wrong = "calc.py\n```\ndef add(a, b):\n    return a * b\n```\n";
    let (h, model, outcome) = fix_add_drafting(
        project.path(),
        vec![
            wrong,
            wrong,
            "Ok, I will:\n\n1. Make add return the sum.\n\ncalc.py\n```\ndef add(a, b):\n    return a + b\n```\n",
        ],
    )
    .await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    assert_eq!(
        commands_run(&h).iter().map(|(c, _)| *c).collect::<Vec<_>>(),
        [Some(1), Some(0)],
        "the first answer's check fails, the afresh answer's passes"
    );
    let requests = model.requests.lock().expect("lock");
    assert_eq!(requests.len(), 3);
    assert_ne!(
        requests[2].system, requests[0].system,
        "the third is asked afresh, in another wording"
    );
    drop(requests);
    let calc = std::fs::read_to_string(project.path().join("calc.py")).expect("calc.py");
    assert!(calc.contains("return a + b"), "{calc}");
}

/// Issue 48 (HumanEval 32): the answer asked afresh wrote and failed its check; a repair of it
/// followed and the other wording never ran. After a failed afresh answer the next draft is
/// the other wording — the first files again, not the failing answer — and its answer lands.
#[tokio::test]
async fn a_failed_afresh_answer_is_followed_by_the_other_wording_which_lands() {
    let project = tempfile::tempdir().expect("tempdir");
    let wrong = "calc.py\n```\ndef add(a, b):\n    return a * b\n```\n";
    let (h, model, outcome) = fix_add_drafting(
        project.path(),
        vec![
            wrong,
            wrong,
            "Ok, I will:\n\n1. Raise a to b.\n\ncalc.py\n```\ndef add(a, b):\n    return a ** b\n```\n",
            "Changes: add returns the sum.\n\ncalc.py\n```\ndef add(a, b):\n    return a + b\n```\n",
        ],
    )
    .await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    assert_eq!(
        commands_run(&h).iter().map(|(c, _)| *c).collect::<Vec<_>>(),
        [Some(1), Some(1), Some(0)],
        "the first answer fails, the afresh answer fails, the other wording's passes"
    );
    let requests = model.requests.lock().expect("lock");
    assert_eq!(requests.len(), 4);
    assert_ne!(requests[3].system, requests[2].system, "the other wording");
    assert_ne!(requests[3].system, requests[0].system, "not a repair");
    let shown: Vec<String> = requests[3].messages.iter().map(|m| m.text()).collect();
    let shown = shown.join("\n");
    assert!(
        shown.contains("return a - b") && !shown.contains("a ** b"),
        "the first file, not the failing answer: {shown}"
    );
    drop(requests);
    let calc = std::fs::read_to_string(project.path().join("calc.py")).expect("calc.py");
    assert!(calc.contains("return a + b"), "{calc}");
}

/// Issue 48: the third failing check in a row brought the loop guard's step back ("…make one
/// edit that does exactly that") into the check's output, the person's card and the
/// conversation, where the next move is the draft again with what failed, not an edit.
#[tokio::test]
async fn a_check_failing_between_drafts_gets_no_step_back_meant_for_tool_calls() {
    let project = tempfile::tempdir().expect("tempdir");
    let (h, model, outcome) = fix_add_drafting(
        project.path(),
        vec![
            "calc.py\n```\ndef add(a, b):\n    return a * b\n```\n",
            "calc.py\n```\ndef add(a, b):\n    return a ** b\n```\n",
            "calc.py\n```\ndef add(a, b):\n    return a * b + 1\n```\n",
            "calc.py\n```\ndef add(a, b):\n    return a + b\n```\n",
        ],
    )
    .await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    let checks = commands_run(&h);
    assert_eq!(
        checks.iter().map(|(c, _)| *c).collect::<Vec<_>>(),
        [Some(1), Some(1), Some(1), Some(0)]
    );
    for (_, output) in &checks {
        assert!(
            !output.contains("Step back") && !output.contains("make one edit"),
            "{output}"
        );
    }
    let requests = model.requests.lock().expect("lock");
    assert_eq!(requests.len(), 4, "four drafts, no step with the tools");
    let last = requests[3].messages.last().expect("a message").text();
    assert!(
        !last.contains("Step back") && !last.contains("make one edit"),
        "{last}"
    );
}

/// Issue 48: a first draft that gave the file back unchanged sent the task on with the tools,
/// whose edits circled until the loop guard paused it (py-word-count in make bench-agent). The
/// check the task names runs first; failing, its report brings the draft again, as after a
/// draft that wrote.
#[tokio::test]
async fn an_unchanged_first_draft_runs_the_check_and_its_failure_brings_a_repair_draft() {
    let project = tempfile::tempdir().expect("tempdir");
    let (h, model, outcome) = fix_add_drafting(
        project.path(),
        vec![
            "calc.py\n```\ndef add(a, b):\n    return a - b\n```\n",
            "calc.py\n```\ndef add(a, b):\n    return a + b\n```\n",
        ],
    )
    .await;
    assert_eq!(
        outcome,
        TurnOutcome::Done {
            summary: "Changed `calc.py`; `python3 -B -m unittest -q test_calc` passes.".into()
        }
    );
    let requests = model.requests.lock().expect("lock");
    assert!(
        requests.iter().all(|r| r.tools.is_empty()),
        "the draft and its repair, no step with the tools: {} requests",
        requests.len()
    );
    assert_eq!(requests.len(), 2);
    assert!(
        requests[1]
            .messages
            .last()
            .expect("a message")
            .text()
            .contains("AssertionError: -1 != 5")
    );
    let shown: Vec<String> = h
        .events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::ToolCallProposed { name, .. } => Some(name),
            _ => None,
        })
        .collect();
    assert_eq!(
        shown,
        ["read_file", "run_command", "write_file", "run_command"]
    );
}

/// An unchanged first draft whose check passes ends nothing: the task asked for a change, and
/// the tools look further.
#[tokio::test]
async fn an_unchanged_first_draft_whose_check_passes_goes_on_with_the_tools() {
    let project = tempfile::tempdir().expect("tempdir");
    // The draft shows the file as it is when the task starts: already right.
    let fixed = "def add(a, b):\n    return a + b\n";
    test_support::projects::buggy_calc(project.path());
    std::fs::write(project.path().join("calc.py"), fixed).expect("write");
    let model = Arc::new(Recorded::drafting(
        vec!["calc.py\n```\ndef add(a, b):\n    return a + b\n```\n"],
        vec![],
    ));
    let mut setup = Setup::new(Mode::FullAuto);
    setup.local_model = Some(model.clone());
    let h = Harness::start(no_scenario(), project.path(), setup, |_| {
        ApprovalAnswer::Approve
    })
    .await;
    let _ = h.run(FIX_ADD).await;
    let requests = model.requests.lock().expect("lock");
    assert!(
        requests.iter().skip(1).any(|r| !r.tools.is_empty()),
        "a step with the tools after the passing check"
    );
    assert_eq!(commands_run(&h).first().map(|(c, _)| *c), Some(Some(0)));
}

/// The buggy calc project in a folder of its own, in Ask mode, the model drafting `draft`; every
/// write approved, every command denied. The folder around the project, the harness, and the
/// tools asked about, in order.
async fn in_ask_mode_denying_commands(
    draft: &'static str,
) -> (tempfile::TempDir, Harness, Arc<Mutex<Vec<String>>>) {
    let outside = tempfile::tempdir().expect("outside");
    let project = outside.path().join("p");
    std::fs::create_dir(&project).expect("mkdir");
    test_support::projects::buggy_calc(&project);
    let model = Arc::new(Recorded::drafting(vec![draft], vec![]));
    let mut setup = Setup::new(Mode::Ask);
    setup.local_model = Some(model);
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    let h = Harness::start(no_scenario(), &project, setup, move |p| {
        seen.lock().expect("lock").push(p.tool.clone());
        if p.tool == "run_command" {
            ApprovalAnswer::Deny { message: None }
        } else {
            ApprovalAnswer::Approve
        }
    })
    .await;
    (outside, h, asked)
}

/// Attack: the check Tandem runs after a draft is the task's own backticked command, and a
/// command that is a check only in part (a cloned project's README suggesting
/// `python3 -m unittest && echo … > ../outside`) gets no pass for it: the policy asks, as it
/// would for the model's call, and said no to, nothing runs outside the project.
#[tokio::test]
async fn the_drafts_check_is_judged_like_any_command_and_a_denied_one_does_not_run() {
    let (outside, h, asked) =
        in_ask_mode_denying_commands("calc.py\n```\ndef add(a, b):\n    return a + b\n```\n").await;
    h.run("Fix add in calc.py. Run `python3 -B -m unittest -q && echo harmless-72 > ../outside.txt` to check.")
        .await;
    assert_eq!(*asked.lock().expect("lock"), ["write_file", "run_command"]);
    assert!(
        !outside.path().join("outside.txt").exists(),
        "the denied command ran"
    );
}

/// Attack, the same through the check run after an unchanged first draft: the command is the
/// task's, still judged and asked about; denied, nothing runs outside the project.
#[tokio::test]
async fn the_check_after_an_unchanged_draft_is_judged_and_a_denied_one_does_not_run() {
    let (outside, h, asked) =
        in_ask_mode_denying_commands("calc.py\n```\ndef add(a, b):\n    return a - b\n```\n").await;
    h.run("Fix add in calc.py. Run `python3 -B -m unittest -q && echo harmless-73 > ../outside.txt` to check.")
        .await;
    assert_eq!(
        asked.lock().expect("lock").first().map(String::as_str),
        Some("run_command"),
        "the check after the unchanged draft was asked about"
    );
    assert!(
        !outside.path().join("outside.txt").exists(),
        "the denied command ran"
    );
}

/// Issue 48: a task that asks for more after its check (a commit, a note) is not done when the
/// check passes: the model goes on with the tools.
#[tokio::test]
async fn a_draft_whose_check_passes_goes_on_when_the_task_asks_more() {
    let project = tempfile::tempdir().expect("tempdir");
    test_support::projects::buggy_calc(project.path());
    let model = Arc::new(Recorded::drafting(
        vec!["calc.py\n```\ndef add(a, b):\n    return a + b\n```\n"],
        vec![],
    ));
    let mut setup = Setup::new(Mode::FullAuto);
    setup.local_model = Some(model.clone());
    let h = Harness::start(no_scenario(), project.path(), setup, |_| {
        ApprovalAnswer::Approve
    })
    .await;
    let outcome = h
        .run("Fix add in calc.py, run `python3 -B -m unittest -q test_calc`, then write NOTES.md saying what was wrong.")
        .await;
    assert_eq!(
        outcome,
        TurnOutcome::Done {
            summary: "Nothing to do.".into()
        },
        "the model's own task_done ends it"
    );
    let requests = model.requests.lock().expect("lock");
    assert_eq!(
        requests
            .iter()
            .map(|r| r.tools.is_empty())
            .collect::<Vec<_>>(),
        [true, false],
        "the draft, then a step with the tools after the check passed"
    );
    let conversation = serde_json::to_string(&requests[1].messages).expect("json");
    assert!(conversation.contains("run_command"), "{conversation}");
}

/// A draft shows only files whose read the policy allowed, and writes only files it showed:
/// a secret the task names and the person refuses to show is not in it, and a block the model
/// writes under that secret's name, a parent path or another file changes nothing.
#[tokio::test]
async fn a_draft_never_shows_a_refused_secret_nor_writes_a_file_it_did_not_show() {
    let outside = tempfile::tempdir().expect("outside");
    let project = outside.path().join("p");
    std::fs::create_dir(&project).expect("mkdir");
    test_support::projects::buggy_calc_module(&project);
    std::fs::write(project.join("other.py"), "x = 1\n").expect("write");
    std::fs::write(project.join(".env"), "API_KEY=ENV-MARKER\n").expect("write");
    let model = Arc::new(Recorded::drafting(
        vec![
            ".env\n```\nAPI_KEY=CHANGED\n```\n\n../outside.txt\n```\nESCAPED\n```\n\nother.py\n```\nx = 2\n```\n",
        ],
        vec![],
    ));
    let mut setup = Setup::new(Mode::Ask);
    setup.local_model = Some(model.clone());
    // Every question is refused: the read of .env, and any write.
    let h = Harness::start(no_scenario(), &project, setup, |_| ApprovalAnswer::Deny {
        message: None,
    })
    .await;
    h.run("Fix add in calc.py using the key in .env.").await;
    let requests = model.requests.lock().expect("lock");
    let draft = requests
        .iter()
        .find(|r| r.tools.is_empty())
        .expect("a draft of calc.py");
    let shown = serde_json::to_string(&draft.messages).expect("json");
    assert!(shown.contains("return a - b"), "{shown}");
    assert!(
        !shown.contains("ENV-MARKER"),
        "the refused secret reached the draft: {shown}"
    );
    drop(requests);
    assert_eq!(
        std::fs::read_to_string(project.join(".env")).expect("read"),
        "API_KEY=ENV-MARKER\n"
    );
    assert_eq!(
        std::fs::read_to_string(project.join("other.py")).expect("read"),
        "x = 1\n"
    );
    assert!(!outside.path().join("outside.txt").exists());
    let proposed: Vec<String> = h
        .events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::ToolCallProposed { name, .. } if name == "write_file" => Some(name),
            _ => None,
        })
        .collect();
    assert!(proposed.is_empty(), "no write was proposed: {proposed:?}");
}

/// Where nothing may be written (read-only mode, or write_file turned off), a draft would
/// only be refused: none is asked for, and the model goes on with the tools it has.
#[tokio::test]
async fn no_draft_where_nothing_may_be_written() {
    let project = tempfile::tempdir().expect("tempdir");
    test_support::projects::buggy_calc_module(project.path());
    let model = Arc::new(Recorded::drafting(
        vec!["calc.py\n```\ndef add(a, b):\n    return a + b\n```\n"],
        vec![],
    ));
    let mut setup = Setup::new(Mode::ReadOnly);
    setup.local_model = Some(model.clone());
    let h = Harness::start(no_scenario(), project.path(), setup, |_| {
        ApprovalAnswer::Approve
    })
    .await;
    h.run("Fix add in calc.py.").await;
    let requests = model.requests.lock().expect("lock");
    assert!(!requests.is_empty());
    assert!(
        requests.iter().all(|r| !r.tools.is_empty()),
        "a draft was asked for in read-only mode"
    );
    assert!(
        !h.events().iter().any(
            |e| matches!(e, AgentEvent::ToolCallProposed { name, .. } if name == "write_file")
        ),
        "{:?}",
        h.events()
    );
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
