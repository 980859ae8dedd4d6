//! The window's commands are listed twice by necessity: `protocol::COMMANDS` (from which the
//! UI's typed wrapper is generated) and `tauri::generate_handler!` in src-tauri, which takes
//! only literal function paths. This test is what keeps the two from drifting: a command the UI
//! can call that no handler answers, or a handler the UI has no type for, fails here — without
//! building Tauri.

use std::collections::BTreeSet;

/// The command names in src-tauri's `generate_handler![...]`: each entry's last path segment.
fn handler_names() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../src-tauri/src/lib.rs");
    let source = std::fs::read_to_string(path).expect("src-tauri/src/lib.rs");
    let start = source
        .find("generate_handler![")
        .expect("src-tauri/src/lib.rs calls generate_handler!");
    let body = &source[start + "generate_handler![".len()..];
    let end = body.find(']').expect("generate_handler! ends");
    body[..end]
        .split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(|e| e.rsplit("::").next().unwrap_or(e).to_string())
        .collect()
}

#[test]
fn every_command_the_ui_can_call_has_a_handler_and_every_handler_a_type() {
    let handlers = handler_names();
    let unique: BTreeSet<&str> = handlers.iter().map(String::as_str).collect();
    assert_eq!(
        unique.len(),
        handlers.len(),
        "a handler listed twice: {handlers:?}"
    );
    let declared: BTreeSet<&str> = protocol::COMMANDS.iter().map(|(n, _, _)| *n).collect();
    assert_eq!(
        declared.len(),
        protocol::COMMANDS.len(),
        "a command declared twice in protocol::COMMANDS"
    );
    let no_handler: Vec<_> = declared.difference(&unique).collect();
    let no_type: Vec<_> = unique.difference(&declared).collect();
    assert!(
        no_handler.is_empty() && no_type.is_empty(),
        "in protocol::COMMANDS without a handler in generate_handler!: {no_handler:?}; \
         handled without a type in protocol::COMMANDS: {no_type:?}"
    );
}
