//! How each tool call is put to the policy engine.

use policy::ToolCall;
use serde_json::Value;

/// What the policy engine is asked about for a tool call. `diff_lines` is the size of a write
/// or edit when it is known; `resolved`, for a fetch, the addresses its host looks up to.
pub fn policy_call<'a>(
    name: &'a str,
    args: &'a Value,
    diff_lines: u32,
    resolved: &'a [std::net::IpAddr],
) -> ToolCall<'a> {
    let s = |k: &str| args.get(k).and_then(Value::as_str);
    match name {
        "read_file" | "list_files" | "search_codebase" => ToolCall::Read {
            path: s("path").unwrap_or("."),
        },
        "write_file" | "edit_file" => ToolCall::Write {
            path: s("path").unwrap_or(""),
            diff_lines,
        },
        "run_command" => ToolCall::Command {
            command: s("command").unwrap_or(""),
        },
        "web_fetch" => ToolCall::Fetch {
            url: s("url").unwrap_or(""),
            method: s("method").unwrap_or("GET"),
            resolved,
        },
        "web_search" => ToolCall::WebSearch,
        "git_commit" => ToolCall::GitCommit { diff_lines },
        "git_branch" => ToolCall::GitBranch {
            changes: s("action") != Some("list"),
        },
        "create_pull_request" => ToolCall::PullRequest,
        "git_status" | "git_diff" | "git_log" | "task_list" | "task_poll" | "task_stop"
        | "wakeup" | "update_plan" | "task_done" => ToolCall::Internal { name },
        // Starting or messaging an agent does nothing by itself; each call it makes is judged.
        "spawn_subagent" | "agent_spawn" | "agent_send" => ToolCall::Internal { name },
        // Listing or activating a skill runs nothing: each of its tools is judged when called.
        "skill_list" | "skill_activate" => ToolCall::Internal { name },
        // A tool this list does not know yet is judged like a change to the project, never as
        // harmless: adding a tool must not quietly skip the policy.
        _ => ToolCall::Write {
            path: "",
            diff_lines,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use policy::{Context, Mode, Policy, Verdict};
    use std::path::Path;

    /// Starting or messaging an agent changes nothing by itself: every call the agent then
    /// makes is judged on its own. Judged as an unknown tool, a spawn was an "edit of ``" that
    /// asked in Ask mode before the sub-agent had done anything.
    #[test]
    fn agent_tools_are_internal_and_never_ask_by_themselves() {
        let root = Path::new("/project");
        let resolver = |p: &Path| policy::lexical(p);
        let mut ctx = Context::new(root);
        ctx.mode = Some(Mode::Ask);
        ctx.resolver = &resolver;
        let args =
            serde_json::json!({"title": "t", "description": "d", "name": "n", "message": "m"});
        for name in crate::subagents::AGENT_TOOLS {
            let call = policy_call(name, &args, 0, &[]);
            assert_eq!(call, ToolCall::Internal { name }, "{name}");
            let d = policy::evaluate(&Policy::builtin(), &call, &ctx);
            assert_eq!(d.decision, Verdict::Allow, "{name}: {}", d.reason);
        }
    }

    #[test]
    fn a_tool_this_list_does_not_know_is_judged_as_a_change() {
        let args = serde_json::json!({});
        let call = policy_call("new_tool", &args, 3, &[]);
        assert_eq!(
            call,
            ToolCall::Write {
                path: "",
                diff_lines: 3
            }
        );
    }
}
