//! Issue 45: fetching the person's own local server (`http://127.0.0.1:PORT`) asked every time,
//! in every mode, and no rule lifted it. The question offers that address and port, for the
//! session or always in this project, and a rule naming it is honoured; any other address on
//! the machine or the private network still asks.

use policy::{
    Context, Grant, Mode, Policy, RuleText, Scope, ToolCall, Verdict, add_project_grant, evaluate,
};
use std::net::IpAddr;
use std::path::Path;

fn judge(policy: &Policy, mode: Mode, url: &str, resolved: &[IpAddr]) -> policy::Decision {
    let mut ctx = Context::new(Path::new("/work/project"));
    ctx.mode = Some(mode);
    ctx.sandboxed = true;
    evaluate(
        policy,
        &ToolCall::Fetch {
            url,
            method: "GET",
            resolved,
        },
        &ctx,
    )
}

const MINE: &str = "http://127.0.0.1:8080/api/health";

#[test]
fn a_local_server_asks_and_offers_its_address_and_port() {
    let policy = Policy::builtin();
    for mode in [Mode::Ask, Mode::AutoEdit, Mode::FullAuto] {
        let d = judge(&policy, mode, MINE, &[]);
        assert_eq!(d.decision, Verdict::Ask, "{mode:?}: {}", d.reason);
        assert!(d.reason.contains("127.0.0.1:8080"), "{}", d.reason);
        let grants: Vec<(&Grant, Scope)> =
            d.suggestions.iter().map(|s| (&s.grant, s.scope)).collect();
        assert_eq!(
            grants,
            vec![
                (&Grant::AllowDomain("127.0.0.1:8080".into()), Scope::Session),
                (&Grant::AllowDomain("127.0.0.1:8080".into()), Scope::Project),
            ],
            "{mode:?}"
        );
    }
}

#[test]
fn granted_for_the_session_that_server_runs_and_no_other_local_one() {
    let mut policy = Policy::builtin();
    policy
        .grant(&Grant::AllowDomain("127.0.0.1:8080".into()))
        .expect("grant");
    for mode in [Mode::Ask, Mode::FullAuto] {
        assert_eq!(judge(&policy, mode, MINE, &[]).decision, Verdict::Allow);
    }
    for other in [
        "http://127.0.0.1:9090/",
        "http://127.0.0.1/",
        "http://localhost:8080/",
        "http://192.168.1.1:8080/",
        "http://169.254.169.254/latest/meta-data/",
    ] {
        assert_eq!(
            judge(&policy, Mode::FullAuto, other, &[]).decision,
            Verdict::Ask,
            "{other}"
        );
    }
    // A public name that leads to the machine is still asked about (DNS rebinding).
    let home: IpAddr = "127.0.0.1".parse().expect("ip");
    assert_eq!(
        judge(
            &policy,
            Mode::FullAuto,
            "http://rebind.example:8080/",
            &[home]
        )
        .decision,
        Verdict::Ask
    );
    // Read only mode still refuses a request that changes things.
    let mut ctx = Context::new(Path::new("/work/project"));
    ctx.mode = Some(Mode::ReadOnly);
    let post = evaluate(
        &policy,
        &ToolCall::Fetch {
            url: MINE,
            method: "POST",
            resolved: &[],
        },
        &ctx,
    );
    assert_eq!(post.decision, Verdict::Deny);
}

#[test]
fn a_rule_naming_the_local_server_is_honoured() {
    let text = "[network]\nallowed_domains = [\"localhost:3000\"]\n";
    let policy = Policy::load(
        Some(RuleText {
            path: Path::new("/home/me/.config/tandem/policy.toml"),
            text,
        }),
        None,
        Path::new("/work/project"),
    )
    .expect("rules");
    let d = judge(&policy, Mode::Ask, "http://localhost:3000/graphql", &[]);
    assert_eq!(d.decision, Verdict::Allow, "{}", d.reason);
    assert_eq!(
        judge(&policy, Mode::Ask, "http://localhost:5432/", &[]).decision,
        Verdict::Ask
    );
    // "Always in this project" writes the same rule.
    let written = add_project_grant(
        "",
        "policy.toml",
        Path::new("/work/project"),
        &Grant::AllowDomain("127.0.0.1:8080".into()),
    )
    .expect("written");
    assert!(written.contains("127.0.0.1:8080"), "{written}");
}
