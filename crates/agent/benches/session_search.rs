//! Searching a project's sessions (issue 27): 1,000 sessions of 200 messages each (the person,
//! the model with a call, tool results of about a kilobyte), searched for a rare word, a common
//! one and two words together; goal ≤ 100 ms per search. Beside it, the same rare word counted
//! by ripgrep over the logs themselves, measured in the same run. The first search writes
//! every session's searchable text from its log (logs written before it existed), and is
//! reported apart. `cargo bench -p agent --bench session_search`.

use agent::{SessionHeader, SessionLog, search_sessions};
use serde_json::json;
use std::time::{Duration, Instant};

const SESSIONS: usize = 1000;
const MESSAGES: usize = 200;

const WORDS: &[&str] = &[
    "parser", "token", "lexer", "function", "return", "value", "error", "result", "test", "module",
    "struct", "field", "config", "build", "cargo", "crate", "import", "export", "render", "state",
    "update", "event", "handler", "request", "response", "server", "client", "cache", "index",
    "query", "search", "file", "path", "folder", "line", "column", "string",
];

/// A deterministic sentence of `n` words.
fn words(seed: &mut u64, n: usize) -> String {
    (0..n)
        .map(|_| {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            WORDS[(*seed % WORDS.len() as u64) as usize]
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sessions = dir.path().join("sessions");
    let project = "/work/bench-project";
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let started = Instant::now();
    for s in 0..SESSIONS {
        let header = SessionHeader {
            id: format!("s{s:04}"),
            project: project.into(),
            task: words(&mut seed, 8),
            model: "m".into(),
            started_ms: 0,
        };
        let mut log = SessionLog::create(&sessions, &header).expect("log");
        for m in 0..MESSAGES {
            let event = match m % 4 {
                0 => json!({"type": "user_message", "text": words(&mut seed, 25)}),
                1 | 3 => {
                    json!({"type": "assistant_message", "message": {"role": "assistant", "content": [
                    {"type": "text", "text": words(&mut seed, 30)},
                    {"type": "tool_use", "id": format!("c{m}"), "name": "read_file",
                     "input": {"path": format!("src/{}.rs", words(&mut seed, 1))}}]}})
                }
                _ => json!({"type": "tool_finished", "id": format!("c{m}"), "name": "read_file",
                     "output": words(&mut seed, 160), "is_error": false}),
            };
            log.append(&event).expect("append");
        }
        // One session in a hundred mentions the rare word.
        if s % 100 == 7 {
            log.append(&json!({"type": "user_message", "text": "the zeppelin module fails"}))
                .expect("append");
        }
    }
    let logs_bytes: u64 = std::fs::read_dir(&sessions)
        .expect("ls")
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum();
    println!(
        "{SESSIONS} sessions × {MESSAGES} messages written in {:.1} s ({} MB of logs)",
        started.elapsed().as_secs_f64(),
        logs_bytes >> 20
    );

    let t = Instant::now();
    let first = search_sessions(&sessions, project, "zeppelin").expect("search");
    println!(
        "first search (writes every session's searchable text from its log): {:.0} ms, {} sessions",
        t.elapsed().as_secs_f64() * 1000.0,
        first.len()
    );
    let text_bytes: u64 = std::fs::read_dir(&sessions)
        .expect("ls")
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "search"))
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum();
    println!("searchable text: {} MB", text_bytes >> 20);

    for (what, query, expect_some) in [
        ("a rare word", "zeppelin", true),
        ("a common word", "parser", true),
        ("two words in one message", "cache zeppelin", false),
        ("no match", "xylophone", false),
    ] {
        let mut times = Vec::new();
        let mut n = 0;
        for _ in 0..15 {
            let t = Instant::now();
            n = search_sessions(&sessions, project, query)
                .expect("search")
                .len();
            times.push(t.elapsed());
        }
        assert!(!expect_some || n > 0, "{query}: nothing found");
        println!(
            "search {what} ({query:?}): median {:.1} ms, {n} sessions",
            median(times).as_secs_f64() * 1000.0
        );
    }

    let mut rg = Vec::new();
    for _ in 0..15 {
        let t = Instant::now();
        let out = std::process::Command::new("rg")
            .args(["-c", "-i", "-g", "*.jsonl", "zeppelin"])
            .arg(&sessions)
            .output();
        match out {
            Ok(_) => rg.push(t.elapsed()),
            Err(e) => {
                println!("ripgrep is not installed ({e}): no reference");
                break;
            }
        }
    }
    if !rg.is_empty() {
        println!(
            "reference: rg -c -i over the logs: median {:.1} ms",
            median(rg).as_secs_f64() * 1000.0
        );
    }
}
