//! Properties that must hold for every input, not just the table's.

use policy::{Context, Mode, Policy, ToolCall, Verdict, evaluate};
use proptest::prelude::*;
use std::path::Path;
use std::sync::OnceLock;

fn builtin() -> &'static Policy {
    static POLICY: OnceLock<Policy> = OnceLock::new();
    POLICY.get_or_init(Policy::builtin)
}

/// Simple commands that are denied on their own.
const DENIED: &[&str] = &[
    "rm -rf /",
    "rm -fr ~",
    "/bin/rm -r -f /etc",
    "sudo ls",
    "doas make install",
    "mkfs.ext4 /dev/sda1",
    "dd if=/dev/zero of=/dev/sda",
    "shutdown -h now",
    "cat .env",
    "echo x > .env",
    "cp evil .git/hooks/pre-commit",
    "find / -delete",
    "chmod -R 777 /",
    "rm .tandem/policy.toml",
    "echo key >> ~/.ssh/authorized_keys",
];

/// Harmless neighbours to mix in.
const NOISE: &[&str] = &[
    "ls",
    "git status",
    "echo hi",
    "cat README.md",
    "true",
    "cargo test",
];

fn single_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn double_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// Wraps a command in one of the ways a shell lets one command hide inside another.
fn wrap(inner: &str, how: u8, noise: &str) -> String {
    match how % 20 {
        0 => format!("{noise}; {inner}"),
        1 => format!("{inner} && {noise}"),
        2 => format!("{noise} || {inner}"),
        3 => format!("{noise} | {inner}"),
        4 => format!("echo \"$({inner})\""),
        5 => format!("({inner})"),
        6 => format!("{{ {inner}; }}"),
        7 => format!("bash -c {}", single_quote(inner)),
        8 => format!("sh -c {}", double_quote(inner)),
        9 => format!("if true; then {inner}; fi"),
        10 => format!("for i in 1 2; do {inner}; done"),
        11 => format!("f() {{ {inner}; }}; f"),
        12 => format!("eval {}", single_quote(inner)),
        13 => format!("timeout 5 bash -c {}", single_quote(inner)),
        14 => format!("env X=1 bash -c {}", single_quote(inner)),
        15 => format!("nohup sh -c {} &", single_quote(inner)),
        16 => format!("while false; do :; done; {inner}"),
        17 => format!("x=$({inner}); {noise}"),
        18 => format!("{noise} & {inner}"),
        _ => format!("! {inner}"),
    }
}

fn mode(i: u8) -> Mode {
    Mode::ALL[usize::from(i) % Mode::ALL.len()]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn a_denied_command_is_never_allowed_whatever_wraps_it(
        core in 0..DENIED.len(),
        layers in proptest::collection::vec((any::<u8>(), 0..NOISE.len()), 0..5),
        m in any::<u8>(),
    ) {
        let mut command = DENIED[core].to_string();
        for (how, noise) in &layers {
            command = wrap(&command, *how, NOISE[*noise]);
        }
        let policy = builtin();
        let home = Path::new("/home/user");
        let mut ctx = Context::new(Path::new("/work/project"));
        ctx.home = Some(home);
        ctx.mode = Some(mode(m));
        let d = evaluate(policy, &ToolCall::Command { command: &command }, &ctx);
        prop_assert_ne!(d.decision, Verdict::Allow, "allowed: {} — {}", command, d.reason);
    }

    #[test]
    fn any_text_gets_a_decision_without_panicking(command in "\\PC{0,200}", m in any::<u8>()) {
        let policy = builtin();
        let mut ctx = Context::new(Path::new("/work/project"));
        ctx.mode = Some(mode(m));
        let d = evaluate(policy, &ToolCall::Command { command: &command }, &ctx);
        prop_assert!(!d.reason.is_empty());
    }

    #[test]
    fn shell_junk_gets_a_decision_without_panicking(
        parts in proptest::collection::vec(prop_oneof![
            Just("rm"), Just("-rf"), Just("/"), Just("$("), Just(")"), Just("`"), Just("'"), Just("\""),
            Just(";"), Just("&&"), Just("|"), Just(">"), Just("<"), Just("bash"), Just("-c"), Just("{"),
            Just("}"), Just("\\"), Just("$'\\x41'"), Just("<<EOF"), Just("\n"), Just("env"), Just("xargs"),
            Just("find"), Just("-exec"), Just("\\;"), Just(".env"), Just("~"), Just(".."), Just("*"),
        ], 0..40),
        m in any::<u8>(),
    ) {
        let command = parts.join(" ");
        let policy = builtin();
        let mut ctx = Context::new(Path::new("/work/project"));
        ctx.mode = Some(mode(m));
        let d = evaluate(policy, &ToolCall::Command { command: &command }, &ctx);
        prop_assert!(!d.reason.is_empty());
    }
}
