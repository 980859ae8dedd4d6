//! The scenario format (JSON): one entry per HTTP exchange, in order.

use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    Anthropic,
    Openai,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    pub format: Format,
    pub turns: Vec<Turn>,
    /// What `GET …/models` lists (answered at any time, outside the turns).
    #[serde(default = "default_models")]
    pub models: Vec<String>,
    /// The context this server says it holds at `GET /props` (as llama-server does); without
    /// it `/props` and Ollama's `/api/show` answer 404, as a plain OpenAI-compatible server's
    /// would. Both are answered outside the turns.
    #[serde(default)]
    pub context: Option<u32>,
}

fn default_models() -> Vec<String> {
    vec!["scripted-model".into()]
}

/// One request the client is expected to make, and what it gets back.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    /// Answers the first request whose text contains this, whatever its place in the script:
    /// for agents that talk to the model at the same time (a sub-agent working in the
    /// background while its parent goes on). Turns without it answer in order.
    #[serde(default)]
    pub when: Option<String>,
    #[serde(default)]
    pub expect: Expect,
    /// The scripted answer (ignored when `fault` answers instead).
    #[serde(default)]
    pub reply: Reply,
    #[serde(default)]
    pub fault: Option<Fault>,
    /// The stream as these events, verbatim, instead of rendering `reply`: for the protocol
    /// violations a hostile or broken server sends and the renderer never would.
    #[serde(default)]
    pub events: Option<Vec<RawEvent>>,
    /// The stream as a real server sent it: a file of recorded SSE bytes (see
    /// `scripts/record-model-exchange.py`), relative to the scenario file. Replayed verbatim.
    #[serde(default)]
    pub sse_file: Option<String>,
    /// The recorded bytes, read when the scenario is loaded.
    #[serde(skip)]
    pub recorded: Option<Vec<u8>>,
    /// Bytes per write; 1 splits everywhere (mid-UTF-8, mid-JSON). Default: one write.
    #[serde(default)]
    pub chunk: Option<usize>,
    /// Pause before the body.
    #[serde(default)]
    pub delay_ms: u64,
    /// Pause after each write (with `chunk`): a reply still streaming when the test acts.
    #[serde(default)]
    pub chunk_delay_ms: u64,
}

/// Checks on the request; every failed check is recorded, not panicked, so a test can report
/// them all.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The request's text (all of it, serialized) contains each of these.
    #[serde(default)]
    pub contains: Vec<String>,
    /// The request's text contains none of these.
    #[serde(default)]
    pub lacks: Vec<String>,
    /// The offered tools include these names.
    #[serde(default)]
    pub tools_include: Vec<String>,
    /// The offered tools include none of these names.
    #[serde(default)]
    pub tools_exclude: Vec<String>,
    /// A tool result in the request contains this text.
    #[serde(default)]
    pub tool_result_contains: Option<String>,
    /// The model asked for.
    #[serde(default)]
    pub model: Option<String>,
    /// The request body is at most this many bytes (tool results were cut to fit).
    #[serde(default)]
    pub max_request_bytes: Option<usize>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reply {
    #[serde(default)]
    pub thinking: Option<String>,
    #[serde(default)]
    pub text: Option<String>,
    /// `text` is sent this many times over: a huge reply without a huge scenario file.
    #[serde(default)]
    pub text_repeat: Option<usize>,
    /// The text, and each call's arguments, travel in one event each instead of small pieces
    /// (servers that do not stream token by token).
    #[serde(default)]
    pub whole: bool,
    #[serde(default)]
    pub tool_calls: Vec<ToolCallSpec>,
    #[serde(default)]
    pub input_tokens: u32,
    #[serde(default)]
    pub output_tokens: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCallSpec {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub input: Value,
    /// Sent verbatim as the arguments instead of `input` (malformed JSON on purpose).
    #[serde(default)]
    pub raw_input: Option<String>,
    /// OpenAI format: the name comes again in every chunk of the call, as some servers send it.
    #[serde(default)]
    pub name_every_chunk: bool,
}

/// One server-sent event as written on the wire.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawEvent {
    /// The `event:` line (Anthropic names its events; OpenAI sends none).
    #[serde(default)]
    pub event: Option<String>,
    /// The `data:` line as compact JSON.
    #[serde(default)]
    pub data: Option<Value>,
    /// The `data:` line as this text instead (`[DONE]`, or something that is not JSON).
    #[serde(default)]
    pub text: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fault {
    /// An HTTP error status instead of a stream.
    #[serde(default)]
    pub status: Option<u16>,
    /// Seconds, sent as `retry-after`.
    #[serde(default)]
    pub retry_after: Option<f64>,
    /// More response headers, sent verbatim with the status (a `retry-after` of `-1`, `NaN` or
    /// an HTTP date, a `retry-after-ms`).
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Send the stream but close the connection after this many bytes.
    #[serde(default)]
    pub cut_after_bytes: Option<usize>,
}

impl Scenario {
    pub fn from_json(text: &str) -> Result<Self, String> {
        serde_json::from_str(text).map_err(|e| format!("the scenario is not valid: {e}"))
    }

    /// The scenario file `name` in the repository's `tests/scenarios`, for a test: panics with
    /// the file's problem.
    pub fn named(name: &str) -> Self {
        Self::load(&Self::folder().join(name)).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The scenario file `name` with its `@NAME@` placeholders filled in.
    pub fn named_with(name: &str, vars: &[(&str, String)]) -> Self {
        let path = Self::folder().join(name);
        let mut text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        for (k, v) in vars {
            text = text.replace(k, v);
        }
        Self::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// The repository's scenario files.
    pub fn folder() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios")
    }

    pub fn load(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let mut scenario =
            Self::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let dir = path.parent().unwrap_or_else(|| Path::new("."));
        for turn in &mut scenario.turns {
            if let Some(file) = &turn.sse_file {
                let at = dir.join(file);
                turn.recorded = Some(
                    std::fs::read(&at).map_err(|e| format!("cannot read {}: {e}", at.display()))?,
                );
            }
        }
        Ok(scenario)
    }
}
