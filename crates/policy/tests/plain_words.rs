//! Reasons are read by people on the approval card: plain words, no backticks, no rule or
//! setting names ("floor: ask mode", `max_diff_lines`). The rule that decided stays available,
//! apart, for a tooltip.

use policy::{Context, Mode, Policy, ToolCall, evaluate};
use std::path::Path;

fn decide(mode: Mode, sandboxed: bool, diff: u32, call: ToolCall<'_>) -> policy::Decision {
    let root = Path::new("/work/project");
    let home = Path::new("/home/me");
    let ctx = Context {
        project_root: root,
        home: Some(home),
        mode: Some(mode),
        session_diff_lines: diff,
        user_policy_file: None,
        sandboxed,
        resolver: &policy::lexical,
        exists: None,
        history_holds_secrets: &policy::history_may_hold_secrets,
        saved_outputs: &[],
    };
    evaluate(&Policy::builtin(), &call, &ctx)
}

#[test]
fn the_reasons_people_meet_most_are_plain_words() {
    let cmd = |command| ToolCall::Command { command };
    let write = |path, diff_lines| ToolCall::Write { path, diff_lines };
    let cases = [
        decide(Mode::Ask, true, 0, write("src/main.rs", 3)),
        decide(Mode::ReadOnly, true, 0, write("src/main.rs", 3)),
        decide(Mode::Ask, true, 0, cmd("make deploy")),
        decide(Mode::AutoEdit, true, 0, cmd("make deploy")),
        decide(Mode::FullAuto, false, 0, cmd("make deploy")),
        decide(Mode::ReadOnly, true, 0, cmd("touch a.txt")),
        decide(Mode::Ask, true, 0, cmd("npm install left-pad")),
        decide(Mode::FullAuto, true, 0, cmd("git push --force")),
        decide(Mode::FullAuto, true, 0, cmd("sudo apt install x")),
        decide(Mode::Ask, true, 0, cmd("cat .env")),
        decide(Mode::Ask, true, 0, ToolCall::Read { path: "/etc/hosts" }),
        decide(Mode::AutoEdit, true, 250, write("src/main.rs", 3)),
        decide(Mode::AutoEdit, true, 2500, write("src/main.rs", 3)),
        decide(
            Mode::Ask,
            true,
            0,
            ToolCall::ServerTool {
                name: "files__write",
            },
        ),
        decide(
            Mode::ReadOnly,
            true,
            0,
            ToolCall::ServerTool {
                name: "files__write",
            },
        ),
        decide(
            Mode::Ask,
            true,
            0,
            ToolCall::Fetch {
                url: "https://example.com/",
                method: "GET",
                resolved: &[],
            },
        ),
    ];
    for d in &cases {
        let r = &d.reason;
        for jargon in [
            "`",
            "floor",
            "read_only",
            "auto_edit",
            "full_auto",
            "(ask mode)",
            "max_diff_lines",
            "require_approval_above",
        ] {
            assert!(!r.contains(jargon), "{jargon:?} in {r:?}");
        }
        assert!(
            !d.rule.name.is_empty(),
            "the rule is named for the tooltip: {r}"
        );
    }
    assert_eq!(
        cases[0].reason,
        "in Ask mode, editing “src/main.rs” needs your approval"
    );
    assert_eq!(
        cases[3].reason,
        "“make deploy” needs your approval: in Auto edit mode, commands ask first"
    );
    assert_eq!(cases[0].rule.name, "floor: ask mode");
}
