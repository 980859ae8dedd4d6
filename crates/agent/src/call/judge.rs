//! A call put to the policy engine: what the tool says the policy sees of it (each of its
//! reads, its write, its command…), judged in the situation at hand, the strictest answer
//! standing; a commit is judged on each file it would record as well.

use policy::{Context, Decision, Mode, Policy, ToolCall, Verdict};
use std::path::Path;
use tools::{Resolved, Worked, Workspace};

/// The decision on a call of a registry tool, as a session and `tandem-cli tool` take it.
pub fn judge_call(
    policy: &Policy,
    ctx: &Context<'_>,
    ws: &Workspace,
    call: &Resolved,
    worked: &Worked<'_>,
) -> Decision {
    let decision = call
        .policy(worked)
        .iter()
        .map(|asked| judge_one(policy, asked, ctx))
        .reduce(strictest)
        .unwrap_or_else(|| judge_one(policy, &ToolCall::Internal { name: call.name() }, ctx));
    match call.commits(ws) {
        Some(Ok(files)) => guard_commit(decision, policy, ctx, &files),
        // Arguments the tool would refuse, or no repository: the tool says why, nothing is
        // committed.
        Some(Err(_)) | None => decision,
    }
}

/// Whether a call of `tool` with `input` only reads: a read-only tool, and for a fetch a GET or
/// HEAD (another method sends something, so it is a write). Unknown calls do not.
pub fn only_reads(tool: &str, input: &serde_json::Value) -> bool {
    let Ok(call) = tools::resolve(tool, input.clone()) else {
        return false;
    };
    call.spec.read_only
        && call
            .policy(&Worked::default())
            .iter()
            .all(|asked| match asked {
                ToolCall::Fetch { method, .. } => {
                    method.eq_ignore_ascii_case("get") || method.eq_ignore_ascii_case("head")
                }
                _ => true,
            })
}

/// One call as the policy engine sees it, with what this machine's sandbox cannot promise put
/// to the person.
pub(crate) fn judge_one(policy: &Policy, call: &ToolCall<'_>, ctx: &Context<'_>) -> Decision {
    crate::sandboxing::checked_for_this_machine(policy::evaluate(policy, call, ctx), ctx)
}

/// Allow < Ask < Deny: one path the person must approve makes a whole search a question.
fn strictest(worst: Decision, d: Decision) -> Decision {
    if d.decision > worst.decision {
        d
    } else {
        worst
    }
}

/// The engine judges a commit by its size alone (`ToolCall::GitCommit` names no files), so a
/// commit that would record a secret or a protected path is made a question here, naming the
/// file: committed, `.env` stays in the history for every clone to read.
fn guard_commit(
    decision: Decision,
    policy: &Policy,
    ctx: &Context<'_>,
    files: &[std::path::PathBuf],
) -> Decision {
    if decision.decision == Verdict::Deny {
        return decision;
    }
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
    use test_support::tool_calls::sample;
    use tools::{Runs, TOOLS};

    fn workspace() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("a.txt"), "hi\n").expect("write");
        let ws = Workspace::new(tools::ProjectRoot::open(dir.path()).expect("open"));
        (dir, ws)
    }

    /// Starting or messaging an agent changes nothing by itself: every call the agent then
    /// makes is judged on its own. Judged as an unknown tool, a spawn was an "edit of ``" that
    /// asked in Ask mode before the sub-agent had done anything.
    #[test]
    fn agent_tools_are_internal_and_never_ask_by_themselves() {
        let (dir, ws) = workspace();
        let resolver = |p: &Path| policy::lexical(p);
        let mut ctx = Context::new(dir.path());
        ctx.mode = Some(Mode::Ask);
        ctx.resolver = &resolver;
        let mut seen = 0;
        for t in TOOLS {
            let call = tools::resolve(t.name, sample(t.name)).expect("resolves");
            let Some(engine) = call.engine() else {
                continue;
            };
            if matches!(
                engine,
                tools::EngineCall::SkillList | tools::EngineCall::SkillActivate(_)
            ) {
                continue;
            }
            seen += 1;
            assert_eq!(
                call.policy(&Worked::default()),
                vec![ToolCall::Internal { name: t.name }],
                "{}",
                t.name
            );
            let d = judge_call(&Policy::builtin(), &ctx, &ws, &call, &Worked::default());
            assert_eq!(d.decision, Verdict::Allow, "{}: {}", t.name, d.reason);
        }
        assert_eq!(seen, 3, "spawn_subagent, agent_spawn, agent_send");
    }

    /// A search of several paths was judged by `path` alone (absent: the whole project), so a
    /// secret's folder among `paths` went unjudged. Each path is a read now; the strictest
    /// answer stands.
    #[test]
    fn a_search_of_several_paths_is_judged_on_each() {
        let (dir, ws) = workspace();
        let resolver = |p: &Path| policy::lexical(p);
        let mut ctx = Context::new(dir.path());
        ctx.mode = Some(Mode::Ask);
        ctx.resolver = &resolver;
        let judge = |args: serde_json::Value| {
            let call = tools::resolve("search_codebase", args).expect("resolves");
            judge_call(&Policy::builtin(), &ctx, &ws, &call, &Worked::default()).decision
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
    /// added later is covered too), with the arguments a model would send: a tool that is not
    /// declared read-only is never seen by the policy as a read, nor as "internal" while it
    /// runs on the project; and each call the policy sees as changing something — a write, a
    /// command, a request that sends, a commit, a branch made, a pull request — is refused or
    /// asked in read-only mode, never run.
    #[test]
    fn no_registry_tool_that_changes_anything_runs_unasked_in_read_only_mode() {
        let (dir, ws) = workspace();
        let resolver = |p: &Path| policy::lexical(p);
        let mut ctx = Context::new(dir.path());
        ctx.mode = Some(Mode::ReadOnly);
        ctx.resolver = &resolver;
        let resolved = [std::net::IpAddr::from([127, 0, 0, 1])];
        let worked = Worked {
            diff_lines: 1,
            resolved: &resolved,
        };
        let mut judged = 0;
        for t in TOOLS {
            let call = tools::resolve(t.name, sample(t.name)).expect("resolves");
            let asked = call.policy(&worked);
            let on_project = matches!(t.runs(), Runs::Project | Runs::Waits);
            for a in &asked {
                assert!(
                    t.read_only || !matches!(a, ToolCall::Read { .. }),
                    "{} changes things but the policy would see a read",
                    t.name
                );
                assert!(
                    t.read_only || !on_project || !matches!(a, ToolCall::Internal { .. }),
                    "{} changes the project but the policy would see it as internal",
                    t.name
                );
            }
            let changes = asked.iter().any(|a| match a {
                ToolCall::Write { .. }
                | ToolCall::Command { .. }
                | ToolCall::GitCommit { .. }
                | ToolCall::PullRequest => true,
                ToolCall::Fetch { method, .. } => !method.eq_ignore_ascii_case("get"),
                ToolCall::GitBranch { changes } => *changes,
                _ => false,
            });
            if !changes {
                continue;
            }
            let d = judge_call(&Policy::builtin(), &ctx, &ws, &call, &worked);
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
