//! The bindings' types as they cross to the UI (whether the checked-in file is current is
//! tested in `tools`, which holds the tools' words).

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
