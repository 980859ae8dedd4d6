//! The server: one scenario turn per request, in order; every request recorded and checked.

use crate::render;
use crate::scenario::{Expect, Format, Scenario, Turn};
use serde_json::Value;
use std::sync::{Arc, Mutex, PoisonError};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

/// A request as it arrived.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method_and_path: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
    /// When it arrived (its whole body read).
    pub at: std::time::Instant,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Default)]
struct State {
    requests: Vec<Recorded>,
    failures: Vec<String>,
}

/// A model server that answers with a scenario's script and checks what the client sent. When
/// it ends, every failure the test has not looked at (`failures`) fails the test: an
/// expectation the client broke, a request beyond the script, a turn never asked for.
pub struct ScriptedServer {
    base_url: String,
    state: Arc<Mutex<State>>,
    turns: usize,
    task: tokio::task::JoinHandle<()>,
    /// How many failures the test has looked at.
    seen: std::sync::atomic::AtomicUsize,
}

impl ScriptedServer {
    /// Starts serving on a free loopback port.
    pub async fn start(scenario: Scenario) -> std::io::Result<Self> {
        Self::start_at(scenario, "127.0.0.1:0").await
    }

    /// Starts serving at `addr` (a model server's usual address, to be found as that server).
    pub async fn start_at(scenario: Scenario, addr: &str) -> std::io::Result<Self> {
        let listener = TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        // Anthropic clients append /v1/messages; OpenAI-compatible ones take the /v1 base.
        let base_url = match scenario.format {
            Format::Anthropic => format!("http://{addr}"),
            Format::Openai => format!("http://{addr}/v1"),
        };
        let state = Arc::new(Mutex::new(State::default()));
        let turns = scenario.turns.len();
        let shared = state.clone();
        let task = tokio::spawn(async move {
            let models = scenario.models.clone();
            let context = scenario.context;
            let format = scenario.format;
            let mut left: Vec<Option<Turn>> = scenario.turns.into_iter().map(Some).collect();
            loop {
                let Ok((mut sock, _)) = listener.accept().await else {
                    return;
                };
                let req = read_request(&mut sock).await;
                // Model listings (Settings' "Test connection") are answered beside the script.
                if req.as_ref().is_some_and(is_model_listing) {
                    answer_models(sock, &models).await;
                    continue;
                }
                if req.as_ref().is_some_and(is_context_question) {
                    answer_context(sock, req.as_ref(), context).await;
                    continue;
                }
                let text = req.as_ref().map(|r| r.body.to_string()).unwrap_or_default();
                let pick = left.iter().position(|t| {
                    t.as_ref().is_some_and(|t| {
                        t.when.as_deref().is_none_or(|w| {
                            text.contains(w)
                                || text.contains(
                                    serde_json::to_string(w)
                                        .unwrap_or_default()
                                        .trim_matches('"'),
                                )
                        })
                    })
                });
                let Some(i) = pick else {
                    // Requests beyond the script are failures, answered with 500.
                    {
                        let mut st = shared.lock().unwrap_or_else(PoisonError::into_inner);
                        st.failures.push(format!(
                            "an unexpected request beyond the script: {:?}",
                            req.map(|r| r.method_and_path)
                        ));
                    }
                    let _ = sock.write_all(b"HTTP/1.1 500 Scenario Over\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").await;
                    continue;
                };
                let Some(turn) = left.get_mut(i).and_then(Option::take) else {
                    continue;
                };
                // Each answer streams on its own, so one slow reply holds no other agent up.
                let state = shared.clone();
                tokio::spawn(async move { serve(sock, req, i, format, turn, &state).await });
            }
        });
        Ok(ScriptedServer {
            base_url,
            state,
            turns,
            task,
            seen: std::sync::atomic::AtomicUsize::new(0),
        })
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .requests
            .clone()
    }

    /// Every failed expectation so far, plus a missing-turns failure when not all turns were
    /// requested. The test has looked at them: they no longer fail it when the server ends.
    pub fn failures(&self) -> Vec<String> {
        let f = self.failures_now();
        self.seen
            .fetch_max(f.len(), std::sync::atomic::Ordering::SeqCst);
        f
    }

    fn failures_now(&self) -> Vec<String> {
        let st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let mut f = st.failures.clone();
        if st.requests.len() < self.turns {
            f.push(format!(
                "the script has {} turns but only {} requests came",
                self.turns,
                st.requests.len()
            ));
        }
        f
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.task.abort();
        if std::thread::panicking() {
            return;
        }
        let failures = self.failures_now();
        let seen = self.seen.load(std::sync::atomic::Ordering::SeqCst);
        assert!(
            failures.len() <= seen,
            "the scripted model server saw what its script did not expect: {failures:#?}"
        );
    }
}

async fn read_request(sock: &mut TcpStream) -> Option<Recorded> {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 16 * 1024];
    loop {
        let n = sock.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&tmp[..n]);
        let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
            continue;
        };
        let head = String::from_utf8_lossy(&buf[..end]).to_string();
        let mut lines = head.lines();
        let first = lines.next().unwrap_or("").to_string();
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| {
                l.split_once(':')
                    .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
            })
            .collect();
        let len = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
            .and_then(|(_, v)| v.parse::<usize>().ok())
            .unwrap_or(0);
        if buf.len() < end + 4 + len {
            continue;
        }
        let body = serde_json::from_slice(&buf[end + 4..end + 4 + len]).unwrap_or(Value::Null);
        let method_and_path = first
            .rsplit_once(' ')
            .map(|(a, _)| a.to_string())
            .unwrap_or(first);
        return Some(Recorded {
            method_and_path,
            headers,
            body,
            at: std::time::Instant::now(),
        });
    }
}

fn check(i: usize, expect: &Expect, req: &Recorded) -> Vec<String> {
    let mut f = Vec::new();
    let text = req.body.to_string();
    if let Some(max) = expect.max_request_bytes
        && text.len() > max
    {
        f.push(format!(
            "turn {i}: the request is {} bytes, over the {max} expected",
            text.len()
        ));
    }
    for c in &expect.contains {
        if !text.contains(c.as_str())
            && !text.contains(
                &serde_json::to_string(c)
                    .unwrap_or_default()
                    .trim_matches('"')
                    .to_string(),
            )
        {
            f.push(format!("turn {i}: the request does not contain {c:?}"));
        }
    }
    for c in &expect.lacks {
        if text.contains(c.as_str()) {
            f.push(format!(
                "turn {i}: the request contains {c:?}, which it must not"
            ));
        }
    }
    let tool_names: Vec<String> = req
        .body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| {
            t.get("name")
                .or_else(|| t.pointer("/function/name"))
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .collect();
    for t in &expect.tools_include {
        if !tool_names.contains(t) {
            f.push(format!(
                "turn {i}: the tools offered ({tool_names:?}) do not include {t}"
            ));
        }
    }
    for t in &expect.tools_exclude {
        if tool_names.contains(t) {
            f.push(format!(
                "turn {i}: the tools offered include {t}, which must not be offered"
            ));
        }
    }
    if let Some(want) = &expect.tool_result_contains {
        let results: Vec<String> = req
            .body
            .get("messages")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .flat_map(|m| {
                let mut v = Vec::new();
                if m.get("role").and_then(Value::as_str) == Some("tool") {
                    v.push(m.get("content").map(|c| c.to_string()).unwrap_or_default());
                }
                for b in m
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if b.get("type").and_then(Value::as_str) == Some("tool_result") {
                        v.push(b.get("content").map(|c| c.to_string()).unwrap_or_default());
                    }
                }
                v
            })
            .collect();
        if !results.iter().any(|r| r.contains(want.as_str())) {
            f.push(format!(
                "turn {i}: no tool result contains {want:?} (results: {results:?})"
            ));
        }
    }
    if let Some(m) = &expect.model
        && req.body.get("model").and_then(Value::as_str) != Some(m.as_str())
    {
        f.push(format!(
            "turn {i}: the model is {:?}, not {m}",
            req.body.get("model")
        ));
    }
    f
}

/// A client asking how much context the server holds (llama-server's `/props`, Ollama's
/// `/api/show`), not a turn of the script.
fn is_context_question(r: &Recorded) -> bool {
    let path = r.method_and_path.split_whitespace().nth(1).unwrap_or("");
    path.ends_with("/props") || path.ends_with("/api/show")
}

async fn answer_context(mut sock: TcpStream, req: Option<&Recorded>, context: Option<u32>) {
    let props = req.is_some_and(|r| r.method_and_path.contains("/props"));
    let head = match context.filter(|_| props) {
        Some(n) => {
            let body = serde_json::json!({"default_generation_settings": {"n_ctx": n}}).to_string();
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
        }
        None => {
            "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_string()
        }
    };
    let _ = sock.write_all(head.as_bytes()).await;
    let _ = sock.shutdown().await;
}

fn is_model_listing(r: &Recorded) -> bool {
    r.method_and_path.starts_with("GET ") && r.method_and_path.contains("/models")
}

async fn answer_models(mut sock: TcpStream, models: &[String]) {
    let data: Vec<Value> = models
        .iter()
        .map(|m| serde_json::json!({"id": m, "object": "model"}))
        .collect();
    let body = serde_json::json!({"object": "list", "data": data}).to_string();
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let _ = sock.write_all(head.as_bytes()).await;
    let _ = sock.shutdown().await;
}

async fn serve(
    mut sock: TcpStream,
    req: Option<Recorded>,
    i: usize,
    format: Format,
    turn: Turn,
    state: &Mutex<State>,
) {
    let Some(req) = req else {
        state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .failures
            .push(format!("turn {i}: the connection closed before a request"));
        return;
    };
    {
        let mut st = state.lock().unwrap_or_else(PoisonError::into_inner);
        let failures = check(i, &turn.expect, &req);
        st.failures.extend(failures);
        st.requests.push(req);
    }
    if let Some(status) = turn.fault.as_ref().and_then(|f| f.status) {
        let mut head = format!(
            "HTTP/1.1 {status} Scripted\r\nContent-Type: application/json\r\nConnection: close\r\n"
        );
        if let Some(fault) = &turn.fault {
            if let Some(ra) = fault.retry_after {
                head.push_str(&format!("retry-after: {ra}\r\n"));
            }
            for (k, v) in &fault.headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
        }
        let body = serde_json::json!({"type": "error", "error": {"type": "scripted_error", "message": format!("scripted HTTP {status}")}}).to_string();
        head.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
        let _ = sock.write_all(head.as_bytes()).await;
        return;
    }
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n";
    if sock.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    if turn.delay_ms > 0 {
        tokio::time::sleep(std::time::Duration::from_millis(turn.delay_ms)).await;
    }
    let body = match (&turn.recorded, &turn.events) {
        (Some(recorded), _) => recorded.clone(),
        (None, Some(events)) => render::raw(events).into_bytes(),
        (None, None) => render::body(format, &turn.reply).into_bytes(),
    };
    let bytes = body.as_slice();
    let end = turn
        .fault
        .as_ref()
        .and_then(|f| f.cut_after_bytes)
        .unwrap_or(bytes.len())
        .min(bytes.len());
    for piece in bytes[..end].chunks(turn.chunk.unwrap_or(bytes.len().max(1))) {
        if sock.write_all(piece).await.is_err() {
            return;
        }
        let _ = sock.flush().await;
        if turn.chunk_delay_ms > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(turn.chunk_delay_ms)).await;
        }
    }
    let _ = sock.shutdown().await;
}
