//! Engine overhead per tool call — policy, dispatch, events and the session log — with a
//! trivial tool (`update_plan`) and no model in the way; goal: p99 under 1 ms.
//! `cargo bench -p agent`; prints p50, p90, p99 and max over 5,000 calls.

use agent::{Agent, AgentConfig, SessionHeader, SessionLog};
use policy::Policy;
use serde_json::json;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tools::{ProjectRoot, Toolbox};

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let project = tempfile::tempdir().expect("tempdir");
        let sessions = tempfile::tempdir().expect("tempdir");
        let toolbox = Toolbox::new(ProjectRoot::open(project.path()).expect("open"), sessions.path().join("b"));
        let header = SessionHeader { id: "bench".into(), project: "p".into(), task: "t".into(), model: "m".into(), started_ms: 0 };
        let log = SessionLog::create(sessions.path(), &header).expect("log");
        let (etx, mut erx) = mpsc::unbounded_channel();
        tokio::spawn(async move { while erx.recv().await.is_some() {} });
        // The model is never called here.
        let mut agent = Agent::standalone(toolbox, Policy::builtin(), AgentConfig::new("m"), log, etx);
        let cancel = CancellationToken::new();
        let input = json!({"items": [{"text": "read the code", "status": "done"}, {"text": "fix the bug", "status": "in_progress"}]});
        let mut times: Vec<Duration> = Vec::with_capacity(5000);
        for i in 0..5500 {
            let id = format!("call-{i}");
            let start = Instant::now();
            let r = agent.handle_tool_call(&id, "update_plan", &input, &cancel).await.expect("call");
            let elapsed = start.elapsed();
            assert!(r.is_some_and(|(_, err)| !err));
            if i >= 500 {
                times.push(elapsed); // the first 500 warm the caches
            }
        }
        times.sort();
        let pct = |p: f64| times[((times.len() as f64 * p) as usize).min(times.len() - 1)];
        println!("engine overhead per tool call (update_plan, policy + dispatch + events + log), 5,000 calls:");
        println!("  p50 {:?}  p90 {:?}  p99 {:?}  max {:?}", pct(0.50), pct(0.90), pct(0.99), times[times.len() - 1]);
        println!("  goal: p99 < 1 ms — {}", if pct(0.99) < Duration::from_millis(1) { "met" } else { "NOT met" });
    });
}
