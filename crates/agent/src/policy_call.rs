//! How each tool call is put to the policy engine.

use policy::{Context, Decision, Mode, Policy, ToolCall, Verdict};
use serde_json::Value;
use std::path::Path;
use tools::PolicyView;

/// What the policy engine is asked about for a tool call. `diff_lines` is the size of a write
/// or edit when it is known; `resolved`, for a fetch, the addresses its host looks up to.
pub fn policy_call<'a>(
    name: &'a str,
    args: &'a Value,
    diff_lines: u32,
    resolved: &'a [std::net::IpAddr],
) -> ToolCall<'a> {
    let s = |k: &str| args.get(k).and_then(Value::as_str);
    // A tool the registry does not know is judged like a change to the project, never as
    // harmless: a tool from elsewhere must not quietly skip the policy.
    let Some(spec) = tools::find_tool(name) else {
        return ToolCall::Write {
            path: "",
            diff_lines,
        };
    };
    match spec.policy {
        PolicyView::Read => ToolCall::Read {
            path: s("path").unwrap_or("."),
        },
        PolicyView::Write => ToolCall::Write {
            path: s("path").unwrap_or(""),
            diff_lines,
        },
        PolicyView::Command => ToolCall::Command {
            command: s("command").unwrap_or(""),
        },
        PolicyView::Fetch => ToolCall::Fetch {
            url: s("url").unwrap_or(""),
            method: s("method").unwrap_or("GET"),
            resolved,
        },
        PolicyView::WebSearch => ToolCall::WebSearch,
        PolicyView::GitCommit => ToolCall::GitCommit { diff_lines },
        PolicyView::GitBranch => ToolCall::GitBranch {
            changes: s("action") != Some("list"),
        },
        PolicyView::PullRequest => ToolCall::PullRequest,
        // Tasks, plans, agents and skills: starting an agent or activating a skill does nothing
        // by itself; each call it then makes is judged.
        PolicyView::Internal => ToolCall::Internal { name },
    }
}

/// The decision on a call of a registry tool, as a session and `tandem-cli tool` take it: the
/// engine's judgement of [`policy_call`], and for a commit that would record a file the agent
/// may not touch, a question whatever the mode.
pub fn judge_tool_call(
    policy: &Policy,
    ctx: &Context<'_>,
    root: &tools::ProjectRoot,
    name: &str,
    args: &Value,
    diff_lines: u32,
    resolved: &[std::net::IpAddr],
) -> Decision {
    let decision = crate::sandboxing::checked_for_this_machine(
        policy::evaluate(policy, &policy_call(name, args, diff_lines, resolved), ctx),
        ctx,
    );
    match tools::find_tool(name).map(|t| t.policy) {
        Some(PolicyView::Read) => strictest_of_paths(decision, policy, ctx, args),
        Some(PolicyView::GitCommit) => guard_commit(decision, policy, ctx, root, args),
        _ => decision,
    }
}

/// A read of several `paths` (a search's) is judged as a read of each: the strictest answer stands (one
/// path the person must approve makes the whole search a question).
fn strictest_of_paths(
    decision: Decision,
    policy: &Policy,
    ctx: &Context<'_>,
    args: &Value,
) -> Decision {
    let paths = args.get("paths").and_then(Value::as_array);
    paths
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|path| policy::evaluate(policy, &ToolCall::Read { path }, ctx))
        .fold(decision, |worst, d| {
            // Allow < Ask < Deny.
            if d.decision > worst.decision {
                d
            } else {
                worst
            }
        })
}

/// The engine judges a commit by its size alone (`ToolCall::GitCommit` names no files), so a
/// commit that would record a secret or a protected path is made a question here, naming the
/// file: committed, `.env` stays in the history for every clone to read.
fn guard_commit(
    decision: Decision,
    policy: &Policy,
    ctx: &Context<'_>,
    root: &tools::ProjectRoot,
    args: &Value,
) -> Decision {
    if decision.decision == Verdict::Deny {
        return decision;
    }
    // Arguments the tool would refuse, or no repository: the tool says why, nothing is
    // committed.
    let Ok(args) = serde_json::from_value::<tools::GitCommitArgs>(args.clone()) else {
        return decision;
    };
    let Ok(files) = tools::commit_files(root, &args) else {
        return decision;
    };
    let Some(refusal) = files.iter().find_map(|f| untouchable(policy, ctx, f)) else {
        return decision;
    };
    Decision {
        decision: Verdict::Ask,
        reason: format!(
            "this commit would include a file the agent may not touch: {}. Once committed it stays in the history for everyone with a copy of the repository, so committing it needs your approval in every mode",
            refusal.reason
        ),
        rule: refusal.rule,
        suggestions: Vec::new(),
        sandbox: decision.sandbox,
    }
}

/// The refusal of a write to `abs` on account of the file itself (a secret, a policy file, a
/// protected path), not of the mode, the change's size or where the project ends.
fn untouchable(policy: &Policy, ctx: &Context<'_>, abs: &Path) -> Option<Decision> {
    let only_the_file = Context {
        project_root: ctx.project_root,
        home: ctx.home,
        mode: Some(Mode::FullAuto),
        session_diff_lines: 0,
        user_policy_file: ctx.user_policy_file,
        sandboxed: ctx.sandboxed,
        resolver: ctx.resolver,
        exists: ctx.exists,
        history_holds_secrets: ctx.history_holds_secrets,
        saved_outputs: ctx.saved_outputs,
    };
    let path = abs.to_string_lossy();
    let d = policy::evaluate(
        policy,
        &ToolCall::Write {
            path: &path,
            diff_lines: 0,
        },
        &only_the_file,
    );
    (d.decision == Verdict::Deny && d.rule.name != "floor: outside the project").then_some(d)
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
        let agent_tools = tools::TOOLS
            .iter()
            .filter(|t| {
                t.engine_tool()
                    .is_some_and(tools::EngineTool::is_agent_tool)
            })
            .map(|t| t.name);
        for name in agent_tools {
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

    /// A search of several paths was judged by `path` alone (absent: the whole project), so a
    /// secret's folder among `paths` went unjudged. Each path is a read now; the strictest
    /// answer stands.
    #[test]
    fn a_search_of_several_paths_is_judged_on_each() {
        let root = Path::new("/project");
        let resolver = |p: &Path| policy::lexical(p);
        let mut ctx = Context::new(root);
        ctx.mode = Some(Mode::Ask);
        ctx.resolver = &resolver;
        let project = tools::ProjectRoot::open(std::env::temp_dir()).expect("open");
        let judge = |args: serde_json::Value| {
            judge_tool_call(
                &Policy::builtin(),
                &ctx,
                &project,
                "search_codebase",
                &args,
                0,
                &[],
            )
            .decision
        };
        assert_eq!(
            judge(serde_json::json!({"pattern": "x", "paths": ["src", "docs"]})),
            Verdict::Allow
        );
        assert_eq!(
            judge(serde_json::json!({"pattern": "x", "paths": ["src", "/etc"]})),
            Verdict::Ask
        );
        assert_eq!(
            judge(serde_json::json!({"pattern": "x", "paths": ["src", ".env", "/etc"]})),
            Verdict::Deny
        );
    }

    /// Adding a tool must not open a way around the policy. Over the whole registry (so a tool
    /// added later is covered too): a tool that is not declared read-only is never seen by the
    /// policy as a read, nor as "internal" while it runs on the project; and each tool the
    /// policy sees as changing something — a write, a command, a request that sends, a
    /// commit, a branch made, a pull request — is refused or asked in read-only mode with the
    /// arguments a model would send, never run.
    #[test]
    fn no_registry_tool_that_changes_anything_runs_unasked_in_read_only_mode() {
        use tools::{PolicyView, Runner};
        let root = Path::new("/project");
        let resolver = |p: &Path| policy::lexical(p);
        let mut ctx = Context::new(root);
        ctx.mode = Some(Mode::ReadOnly);
        ctx.resolver = &resolver;
        let project = tools::ProjectRoot::open(std::env::temp_dir()).expect("open");
        let mut judged = 0;
        for t in tools::TOOLS {
            assert!(
                t.read_only || t.policy != PolicyView::Read,
                "{} changes things but the policy would see a read",
                t.name
            );
            let on_project = matches!(t.run, Runner::Project(_) | Runner::Waits(_));
            assert!(
                t.read_only || t.policy != PolicyView::Internal || !on_project,
                "{} changes the project but the policy would see it as internal",
                t.name
            );
            let args = match t.policy {
                PolicyView::Write => {
                    serde_json::json!({"path": "a.txt", "content": "x\n", "old_string": "a", "new_string": "b"})
                }
                PolicyView::Command => serde_json::json!({"command": "touch a.txt"}),
                PolicyView::Fetch => {
                    serde_json::json!({"url": "http://127.0.0.1:9/", "method": "POST", "body": "x"})
                }
                PolicyView::GitCommit => serde_json::json!({"message": "m"}),
                PolicyView::GitBranch => serde_json::json!({"action": "create", "name": "b"}),
                PolicyView::PullRequest => serde_json::json!({"title": "t", "body": "b"}),
                PolicyView::Read | PolicyView::Internal | PolicyView::WebSearch => continue,
            };
            let resolved = [std::net::IpAddr::from([127, 0, 0, 1])];
            let d = judge_tool_call(
                &Policy::builtin(),
                &ctx,
                &project,
                t.name,
                &args,
                1,
                &resolved,
            );
            assert_ne!(
                d.decision,
                Verdict::Allow,
                "{} ran unasked: {}",
                t.name,
                d.reason
            );
            judged += 1;
        }
        // write, edit, command, fetch, commit, branch, pull request at least.
        assert!(judged >= 7, "{judged}");
    }
}
