//! The checked-in TypeScript bindings must match the Rust types and the registry's tools.

use std::path::PathBuf;

#[test]
fn typescript_bindings_are_current() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/bindings.ts");
    let fresh = protocol::typescript(&tools::tool_words());
    if std::env::var_os("UPDATE_BINDINGS").is_some() {
        std::fs::write(&path, &fresh).expect("write bindings");
        return;
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == fresh,
        "ui/src/bindings.ts is stale: run `make bindings` and commit it"
    );
}
