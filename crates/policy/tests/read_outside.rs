//! Issue 45: commands read by an allow-list, so a project that needs a folder outside (a remote
//! beside it, shared data in `/srv`) gets it by a rule the person grants, in words:
//! `paths.allow_read` in their rules, "always in this project" from the question, or a yes to
//! one command naming it — whose decision carries the place for the sandbox to show.

use policy::{
    Context, Grant, Mode, Policy, RuleText, Scope, ToolCall, Verdict, add_project_grant, evaluate,
};
use std::path::{Path, PathBuf};

const ROOT: &str = "/work/project";

fn ctx(mode: Mode) -> Context<'static> {
    let mut ctx = Context::new(Path::new(ROOT));
    ctx.mode = Some(mode);
    ctx.sandboxed = true;
    ctx.home = Some(Path::new("/home/me"));
    ctx
}

fn user_rules(text: &str) -> Result<Policy, policy::PolicyError> {
    Policy::load(
        Some(RuleText {
            path: Path::new("/home/me/.config/tandem/policy.toml"),
            text,
        }),
        None,
        Path::new(ROOT),
    )
}

fn command(policy: &Policy, mode: Mode, text: &str) -> policy::Decision {
    evaluate(policy, &ToolCall::Command { command: text }, &ctx(mode))
}

fn read(policy: &Policy, path: &str) -> policy::Decision {
    evaluate(policy, &ToolCall::Read { path }, &ctx(Mode::Ask))
}

#[test]
fn a_folder_in_the_persons_rules_is_read_without_asking_and_shown_to_commands() {
    let policy =
        user_rules("[paths]\nallow_read = [\"/srv/shared\", \"~/datasets/\"]\n").expect("rules");
    assert_eq!(
        policy.readable_outside(Some(Path::new("/home/me"))),
        vec![
            PathBuf::from("/srv/shared"),
            PathBuf::from("/home/me/datasets")
        ]
    );
    let d = read(&policy, "/srv/shared/lib/data.csv");
    assert_eq!(d.decision, Verdict::Allow, "{}", d.reason);
    assert!(d.reason.contains("/srv/shared"), "{}", d.reason);
    assert_eq!(
        read(&policy, "/home/me/datasets/a.csv").decision,
        Verdict::Allow
    );
    // A neighbour of the folder is not in it.
    assert_eq!(read(&policy, "/srv/shared-other/x").decision, Verdict::Ask);
    assert_eq!(read(&policy, "/srv/other/x").decision, Verdict::Ask);
    let d = command(&policy, Mode::AutoEdit, "cat /srv/shared/lib/data.csv");
    assert_eq!(d.decision, Verdict::Allow, "{}", d.reason);
    // Secrets stay secret inside a granted folder.
    assert_eq!(read(&policy, "/srv/shared/.env").decision, Verdict::Deny);
    // The Settings screen lists it in words.
    assert!(
        policy
            .lines()
            .iter()
            .any(|(rule, _)| rule == "paths.allow_read \"/srv/shared\""),
        "{:?}",
        policy.lines()
    );
}

#[test]
fn a_place_that_is_not_a_whole_folder_path_is_refused_with_what_to_write() {
    for (text, says) in [
        ("/srv/*/data", "pattern"),
        ("data", "starting with / or ~/"),
        ("/", "whole machine"),
        ("~", "whole machine"),
        ("/srv/../etc", ".."),
    ] {
        let e = user_rules(&format!("[paths]\nallow_read = [\"{text}\"]\n"))
            .expect_err(text)
            .to_string();
        assert!(e.contains(says), "{text}: {e}");
    }
}

#[test]
fn a_projects_own_file_cannot_grant_itself_a_folder_outside() {
    let policy = Policy::load(
        None,
        Some(RuleText {
            path: Path::new("/work/project/.tandem/policy.toml"),
            text: "[paths]\nallow_read = [\"/home/me\"]\n",
        }),
        Path::new(ROOT),
    )
    .expect("rules");
    assert!(policy.readable_outside(None).is_empty());
    assert!(
        policy.notes.iter().any(|n| n.contains("allow_read")),
        "{:?}",
        policy.notes
    );
}

#[test]
fn a_command_naming_a_place_outside_asks_offers_its_folder_and_carries_the_place() {
    let policy = Policy::builtin();
    let d = command(&policy, Mode::FullAuto, "git fetch /srv/mirror/app.git");
    assert_eq!(d.decision, Verdict::Ask, "{}", d.reason);
    assert!(
        d.sandbox.reads.iter().any(|r| r == "/srv/mirror/app.git"),
        "{:?}",
        d.sandbox
    );
    let grants: Vec<(&Grant, Scope)> = d.suggestions.iter().map(|s| (&s.grant, s.scope)).collect();
    assert!(
        grants.contains(&(&Grant::AllowRead("/srv/mirror".into()), Scope::Project)),
        "{grants:?}"
    );
    // "Always in this project" writes it to the person's rules, and loading them honours it.
    let written = add_project_grant(
        "",
        "policy.toml",
        Path::new(ROOT),
        &Grant::AllowRead("/srv/mirror".into()),
    )
    .expect("written");
    let policy = user_rules(&written).expect("rules");
    assert_eq!(
        policy.readable_outside(None),
        vec![PathBuf::from("/srv/mirror")]
    );
    let d = command(&policy, Mode::FullAuto, "git fetch /srv/mirror/app.git");
    assert_eq!(d.decision, Verdict::Allow, "{}", d.reason);
    assert!(
        d.sandbox.reads.iter().any(|r| r == "/srv/mirror/app.git"),
        "{:?}",
        d.sandbox
    );
}

#[test]
fn granted_for_the_session_a_file_outside_is_read_and_given_to_commands() {
    let mut policy = Policy::builtin();
    policy
        .grant(&Grant::AllowRead("/srv/notes/[draft].md".into()))
        .expect("a file's own name, brackets and all");
    assert_eq!(
        read(&policy, "/srv/notes/[draft].md").decision,
        Verdict::Allow
    );
    assert_eq!(
        policy.readable_outside(None),
        vec![PathBuf::from("/srv/notes/[draft].md")]
    );
}
