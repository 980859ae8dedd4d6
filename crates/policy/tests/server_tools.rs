//! Tools of MCP servers: asked about by name in Ask and Auto edit mode with "always allow this
//! tool" offered, refused in Read only mode, allowed in Full auto or by a rule naming that one
//! tool — a rule a repository cannot give itself.

use policy::{
    Context, Grant, Mode, Policy, RuleText, Scope, ToolCall, Verdict, add_project_grant, evaluate,
};
use std::path::Path;

const TOOL: &str = "files__write_note";

fn judge(policy: &Policy, mode: Mode, name: &str) -> policy::Decision {
    let root = Path::new("/work/project");
    let mut ctx = Context::new(root);
    ctx.mode = Some(mode);
    ctx.sandboxed = true;
    evaluate(policy, &ToolCall::ServerTool { name }, &ctx)
}

#[test]
fn a_server_tool_asks_and_offers_that_one_tool() {
    let policy = Policy::builtin();
    for mode in [Mode::Ask, Mode::AutoEdit] {
        let d = judge(&policy, mode, TOOL);
        assert_eq!(d.decision, Verdict::Ask, "{mode:?}: {}", d.reason);
        assert!(d.reason.contains(TOOL), "{}", d.reason);
        let grants: Vec<(&Grant, Scope)> =
            d.suggestions.iter().map(|s| (&s.grant, s.scope)).collect();
        assert_eq!(
            grants,
            vec![
                (&Grant::AllowTool(TOOL.into()), Scope::Project),
                (&Grant::AllowTool(TOOL.into()), Scope::Session)
            ]
        );
        assert!(d.suggestions[0].label.contains("Always allow the tool"));
    }
    assert_eq!(judge(&policy, Mode::ReadOnly, TOOL).decision, Verdict::Deny);
    assert_eq!(
        judge(&policy, Mode::FullAuto, TOOL).decision,
        Verdict::Allow
    );
}

#[test]
fn a_granted_tool_runs_without_asking_and_no_other_does() {
    let mut policy = Policy::builtin();
    policy.grant(&Grant::AllowTool(TOOL.into())).expect("grant");
    let d = judge(&policy, Mode::Ask, TOOL);
    assert_eq!(d.decision, Verdict::Allow, "{}", d.reason);
    assert_eq!(d.rule.name, format!("tools.allow \"{TOOL}\""));
    assert_eq!(
        judge(&policy, Mode::Ask, "files__delete_all").decision,
        Verdict::Ask
    );
    // A rule never lifts Read only mode.
    assert_eq!(judge(&policy, Mode::ReadOnly, TOOL).decision, Verdict::Deny);
}

#[test]
fn always_allow_is_kept_for_the_project_in_the_users_file_only() {
    let user = add_project_grant(
        "",
        "u.toml",
        Path::new("/work/project"),
        &Grant::AllowTool(TOOL.into()),
    )
    .expect("kept");
    assert!(
        user.contains("[projects.\"/work/project\".tools]"),
        "{user}"
    );
    let load = |root: &str, project: Option<&str>| {
        Policy::load(
            Some(RuleText {
                path: Path::new("/u.toml"),
                text: &user,
            }),
            project.map(|text| RuleText {
                path: Path::new("/work/project/.tandem/policy.toml"),
                text,
            }),
            Path::new(root),
        )
        .expect("load")
    };
    assert_eq!(
        judge(&load("/work/project", None), Mode::Ask, TOOL).decision,
        Verdict::Allow
    );
    // Another project does not get it.
    let other = load("/elsewhere", None);
    let root = Path::new("/elsewhere");
    let mut ctx = Context::new(root);
    ctx.mode = Some(Mode::Ask);
    assert_eq!(
        evaluate(&other, &ToolCall::ServerTool { name: TOOL }, &ctx).decision,
        Verdict::Ask
    );
    // A repository's own file cannot allow a tool: it is left out, with a note.
    let repo = Policy::load(
        None,
        Some(RuleText {
            path: Path::new("/work/project/.tandem/policy.toml"),
            text: "[tools]\nallow = [\"files__delete_all\"]\n",
        }),
        Path::new("/work/project"),
    )
    .expect("load");
    assert_eq!(
        judge(&repo, Mode::Ask, "files__delete_all").decision,
        Verdict::Ask
    );
    assert!(
        repo.notes.iter().any(|n| n.contains("tools.allow")),
        "{:?}",
        repo.notes
    );
}
