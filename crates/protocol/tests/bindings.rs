//! The bindings' types as they cross to the UI, and the checked-in TypeScript bindings
//! matching the Rust types.

use std::path::PathBuf;

#[test]
fn typescript_bindings_are_current() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/bindings.ts");
    let fresh = protocol::typescript();
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

#[test]
fn startup_serializes_as_tagged_union() {
    let json = serde_json::to_value(protocol::Startup::Error {
        path: "/x".into(),
        message: "gone".into(),
    })
    .expect("serialize");
    assert_eq!(json["kind"], "error");
    assert_eq!(json["message"], "gone");
}
