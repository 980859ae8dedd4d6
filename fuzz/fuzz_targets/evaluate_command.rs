//! Any bytes, as a command line, through the shell parser and the whole evaluation, in every
//! mode: no panic, no crash, always a decision with a reason.
#![no_main]

use libfuzzer_sys::fuzz_target;
use policy::{Context, Mode, Policy, ToolCall, Verdict, evaluate};
use std::path::Path;
use std::sync::OnceLock;

fn builtin() -> &'static Policy {
    static POLICY: OnceLock<Policy> = OnceLock::new();
    POLICY.get_or_init(Policy::builtin)
}

fuzz_target!(|data: &[u8]| {
    let Some((&m, rest)) = data.split_first() else { return };
    let command = String::from_utf8_lossy(rest);
    let mut ctx = Context::new(Path::new("/work/project"));
    ctx.home = Some(Path::new("/home/user"));
    ctx.mode = Some(Mode::ALL[usize::from(m) % 4]);
    let d = evaluate(builtin(), &ToolCall::Command { command: &command }, &ctx);
    assert!(!d.reason.is_empty());
    // A command that mentions `sudo` as its first word can never be allowed.
    if command.trim_start().starts_with("sudo ") {
        assert_ne!(d.decision, Verdict::Allow, "{command:?}");
    }
    let _ = policy::shell::parse(&command);
});
