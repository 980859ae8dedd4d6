use super::*;
use crate::toolbox::Toolbox;
use policy::ToolCall;

#[test]
fn every_tool_has_an_object_schema() {
    for t in TOOLS {
        let s = t.schema();
        assert_eq!(s["type"], "object", "{}", t.name);
    }
}

/// The file and git tools are the ones `run_tool` runs alone (the others need a toolbox's
/// sandbox, tasks or network); each of them runs here by name, on a real repository, and
/// the others are refused with why.
#[test]
fn every_file_and_git_tool_runs_by_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .output()
            .expect("git")
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["config", "user.name", "Tandem Test"]);
    git(&["config", "user.email", "test@example.com"]);
    std::fs::write(dir.path().join("a.txt"), "hi\n").expect("write");
    git(&["add", "a.txt"]);
    git(&["commit", "-qm", "first"]);
    let ws = Workspace::new(crate::ProjectRoot::open(dir.path()).expect("open"));
    let calls: &[(&str, Value, &str)] = &[
        (
            "read_file",
            serde_json::json!({"path": "a.txt"}),
            "   1 | hi",
        ),
        ("list_files", serde_json::json!({}), "a.txt"),
        (
            "search_codebase",
            serde_json::json!({"pattern": "hi"}),
            "a.txt",
        ),
        (
            "edit_file",
            serde_json::json!({"path": "a.txt", "old_string": "hi", "new_string": "hello"}),
            "Edited a.txt",
        ),
        (
            "write_file",
            serde_json::json!({"path": "b.txt", "content": "new\n"}),
            "Created b.txt",
        ),
        ("git_status", Value::Null, "a.txt"),
        ("git_diff", serde_json::json!({}), "+hello"),
        (
            "git_commit",
            serde_json::json!({"message": "second", "files": ["a.txt", "b.txt"]}),
            "second",
        ),
        ("git_log", serde_json::json!({"oneline": true}), "first"),
        ("git_branch", serde_json::json!({"action": "list"}), "*"),
    ];
    for (name, args, shows) in calls {
        let out = run_tool(&ws, name, args.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(out.text.contains(shows), "{name}: {}", out.text);
    }
    let ran: Vec<&str> = calls.iter().map(|(n, _, _)| *n).collect();
    for t in TOOLS {
        let refused = run_tool(&ws, t.name, serde_json::json!({"__probe": 1}))
            .err()
            .is_some_and(|e| {
                let e = e.to_string();
                e.contains("runs through the toolbox") || e.contains("run by the agent engine")
            });
        let declared_alone = t.runs() == Runs::Project;
        assert_eq!(!refused, declared_alone, "{}", t.name);
        assert!(!ran.contains(&t.name) || declared_alone, "{}", t.name);
    }
}

#[test]
fn bad_arguments_and_unknown_tools_are_told_apart() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.txt"), "hi\n").expect("write");
    let ws = Workspace::new(crate::ProjectRoot::open(dir.path()).expect("open"));
    let out = run_tool(&ws, "read_file", serde_json::json!({"path": "a.txt"})).expect("read");
    assert_eq!(out.text, "a.txt: lines 1-1 of 1\n   1 | hi\n");
    assert_eq!(out.structured["kind"], "text");
    let err = run_tool(
        &ws,
        "read_file",
        serde_json::json!({"path": "a.txt", "bogus": 1}),
    )
    .expect_err("bad args");
    assert!(err.to_string().contains("unknown field `bogus`"), "{err}");
    let err = run_tool(&ws, "nope", Value::Null).expect_err("unknown");
    assert!(
        err.to_string()
            .contains("There is no tool named `nope`. The tools are: read_file"),
        "{err}"
    );
    let err = run_tool(&ws, "git_status", Value::Null).expect_err("no repo");
    assert!(
        err.to_string().contains("not inside a git repository"),
        "{err}"
    );
}

#[test]
fn tools_that_need_more_than_the_project_are_refused_with_why() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ws = Workspace::new(crate::ProjectRoot::open(dir.path()).expect("open"));
    let err = run_tool(&ws, "run_command", serde_json::json!({"command": "true"}))
        .expect_err("needs the toolbox");
    assert!(
        err.to_string().contains("runs through the toolbox"),
        "{err}"
    );
    let err = run_tool(&ws, "agent_send", serde_json::json!({})).expect_err("engine's");
    assert!(err.to_string().contains("run by the agent engine"), "{err}");
}

/// The registry's declarations hold together, checked on calls a model would make: names are
/// unique, a cached tool only reads (a cached write would never run twice), a change that is
/// planned is judged as a write of its file, a tool that reads saved files is judged as a read,
/// and an engine tool hands the engine its call while no toolbox runs it.
#[tokio::test]
async fn the_declarations_are_consistent() {
    let mut names: Vec<&str> = TOOLS.iter().map(|t| t.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), TOOLS.len(), "a tool is declared twice");
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.txt"), "hi\n").expect("write");
    let toolbox = Toolbox::new(
        crate::ProjectRoot::open(dir.path()).expect("open"),
        dir.path().join(".session"),
    );
    // As a session would: the file a change names was read before.
    let real = dir.path().join("a.txt").canonicalize().expect("real");
    toolbox.ws.note_seen(&real);
    for t in TOOLS {
        assert!(
            !t.words.trim().is_empty(),
            "{} has no words for people",
            t.name
        );
        assert!(
            t.caching == Caching::Never || t.read_only,
            "{} is cached but writes",
            t.name
        );
        let call = resolve(t.name, test_support::tool_calls::sample(t.name))
            .unwrap_or_else(|e| panic!("{}: {e}", t.name));
        let judged = call.policy(&Worked::default());
        assert!(!judged.is_empty(), "{} is not judged at all", t.name);
        if let Some(planned) = call.plan(&toolbox.ws) {
            let planned = planned.unwrap_or_else(|e| panic!("{}: {e}", t.name));
            assert!(
                judged
                    .iter()
                    .any(|c| matches!(c, ToolCall::Write { path, .. } if *path == planned.path)),
                "{}: a planned change is judged as a write of its file",
                t.name
            );
        }
        if t.reads_saved_files() {
            assert!(
                judged.iter().all(|c| matches!(c, ToolCall::Read { .. })),
                "{}",
                t.name
            );
        }
        let engine = call.engine();
        assert_eq!(engine.is_some(), t.runs() == Runs::Engine, "{}", t.name);
        if engine.is_some() {
            let err = toolbox
                .run_call(&call, &crate::CallContext::default())
                .await
                .expect_err("the engine's");
            assert!(err.to_string().contains("run by the agent engine"), "{err}");
        }
    }
}
