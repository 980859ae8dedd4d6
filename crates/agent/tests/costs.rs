//! What a reply costs, as the meter shows it: a model on this computer is free, said as $0 —
//! not "price unknown", which would show the same nothing two ways.

#[path = "support/harness.rs"]
mod harness;

use harness::{Harness, Setup};
use model_server::Scenario;
use policy::Mode;
use protocol::{AgentEvent, ApprovalAnswer};

#[tokio::test]
async fn a_model_on_this_computer_costs_nothing_rather_than_an_unknown_price() {
    let project = tempfile::tempdir().expect("tempdir");
    let s = Scenario::from_json(
        r#"{"name": "one answer from a local model", "format": "openai",
            "turns": [{"reply": {"text": "Hello."}}]}"#,
    )
    .expect("scenario");
    // The scripted server listens on 127.0.0.1, and "scripted-model" has no price.
    let h = Harness::start(s, project.path(), Setup::new(Mode::Ask), |_| {
        ApprovalAnswer::Approve
    })
    .await;
    h.run("Say hello").await;
    let costs: Vec<Option<f64>> = h
        .events()
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Usage { cost_usd, .. } => Some(*cost_usd),
            _ => None,
        })
        .collect();
    assert_eq!(costs, [Some(0.0)]);
}
