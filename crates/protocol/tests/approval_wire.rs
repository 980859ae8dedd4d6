//! An approval question's groups (why it asks, the change, the command) are Rust's way of
//! holding it; on the wire and in session logs it stays one flat object, as logs written
//! before the groups existed have it.

use protocol::{AgentEvent, ApprovalRequest};
use serde_json::json;

const WRITTEN_BEFORE: &str = r#"{"type":"approval_needed","request":{
  "id":"c1","tool":"run_command","input":{"command":"ls"},
  "reason":"asks","rule":"mode","suggestions":[{"label":"Always allow ls","always":true}],
  "path":null,"original":null,"proposed":null,"hunks":[],
  "command":"ls","commands":["ls"],"confinement":null,"sandbox_denial":null,
  "agent":null,"title":[],"words":"Run a command"}}"#;

#[test]
fn an_approval_question_reads_and_writes_as_one_flat_object() {
    let event: AgentEvent = serde_json::from_str(WRITTEN_BEFORE).expect("a log line from before");
    let AgentEvent::ApprovalNeeded { request } = &event else {
        panic!("not a question: {event:?}");
    };
    let request: &ApprovalRequest = request;
    assert_eq!(request.asked.rule, "mode");
    assert_eq!(request.asked.suggestions.len(), 1);
    assert_eq!(request.run.command.as_deref(), Some("ls"));
    assert!(request.change.path.is_none());

    let written = serde_json::to_value(&event).expect("writes");
    let before: serde_json::Value = serde_json::from_str(WRITTEN_BEFORE).expect("json");
    assert_eq!(written, before);
    assert!(written["request"].get("asked").is_none());
    assert_eq!(written["request"]["commands"], json!(["ls"]));
}
