//! Arguments a model would send each of the registry's tools, for the tests that go over the
//! whole registry: a tool added without a line here fails them, so it is covered too.

use serde_json::{Value, json};

/// A call of `tool` as a model would make it: reads name `a.txt`, changes change it, a fetch
/// sends to this machine.
pub fn sample(tool: &str) -> Value {
    match tool {
        "read_file" | "list_files" => json!({"path": "a.txt"}),
        "search_codebase" => json!({"pattern": "hi", "paths": ["a.txt"]}),
        "write_file" => json!({"path": "a.txt", "content": "x\n"}),
        "edit_file" => json!({"path": "a.txt", "old_string": "hi", "new_string": "hello"}),
        "git_status" | "git_diff" | "git_log" | "task_list" | "skill_list" => json!({}),
        "git_commit" => json!({"message": "m"}),
        "git_branch" => json!({"action": "create", "name": "b"}),
        "run_command" => json!({"command": "touch a.txt"}),
        "task_poll" | "task_stop" => json!({"id": "t1"}),
        "wakeup" => json!({"delay_ms": 10}),
        "web_fetch" => json!({"url": "http://127.0.0.1:9/", "method": "POST", "body": "x"}),
        "web_search" => json!({"query": "q"}),
        "update_plan" => json!({"items": [{"text": "a", "status": "pending"}]}),
        "task_done" => json!({"summary": "s"}),
        "spawn_subagent" => json!({"title": "t", "description": "d"}),
        "agent_spawn" => json!({"name": "n", "desc": "d", "prompt": "p"}),
        "agent_send" => json!({"to": "n", "content": "c"}),
        "skill_activate" => json!({"name": "s"}),
        "create_pull_request" => json!({"title": "t", "body": "b"}),
        other => panic!("no sample call of {other}: add one to test_support::tool_calls"),
    }
}
