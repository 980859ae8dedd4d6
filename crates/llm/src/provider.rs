//! A configured provider, and the one call the agent makes: stream a reply, with retries.

use crate::anthropic;
use crate::error::LlmError;
use crate::local::LocalModel;
use crate::openai;
use crate::request::{ChatRequest, ChatResponse, StreamEvent};
use crate::retry::RetryPolicy;
use crate::stream;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// A kind of provider (a row of `protocol::PROVIDERS`) and the wire format it speaks:
/// Anthropic's Messages API, OpenAI's Chat Completions (and every server speaking it), or the
/// built-in model.
pub use protocol::{ProviderKind, Wire};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderConfig {
    pub kind: ProviderKind,
    /// e.g. `https://api.anthropic.com`, `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    /// Local servers often need none.
    pub api_key: Option<String>,
    pub num_ctx: Option<u32>,
    pub lenient_tool_calls: bool,
    /// What the model reads beside text.
    pub takes: Takes,
    pub retry: RetryPolicy,
    /// No byte for this long mid-stream: the connection is taken as dead.
    pub idle_timeout: Duration,
    /// The GGUF file of the built-in model ([`ProviderKind::Builtin`]); unused by the others.
    pub model_path: Option<std::path::PathBuf>,
    /// Whether its models get the help small models need (one form per tool, the named files
    /// read first, the compact tool set). `None`: decided by the model (see
    /// [`small_by_default`]).
    pub small_model: Option<bool>,
}

/// The files a model reads beside text, when a tool gives it one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Takes {
    /// Images (read_file of a picture sends it). Anthropic's do; among OpenAI-compatible
    /// servers only OpenAI's own is assumed to, a local one when the user says so
    /// (`images = true` in its settings).
    pub images: bool,
    /// PDFs given as files (read_file or web_fetch of one attaches it beside its extracted
    /// text). Anthropic's and OpenAI's own do; others get the text alone.
    pub documents: bool,
}

impl ProviderConfig {
    pub fn anthropic(api_key: impl Into<String>) -> Self {
        Self::new(
            ProviderKind::Anthropic,
            "https://api.anthropic.com",
            Some(api_key.into()),
        )
    }

    pub fn openai(api_key: impl Into<String>) -> Self {
        Self::new(
            ProviderKind::OpenAi,
            "https://api.openai.com/v1",
            Some(api_key.into()),
        )
    }

    /// A provider of `kind` at `base_url`: what its models can do is its kind's row's.
    pub fn new(kind: ProviderKind, base_url: &str, api_key: Option<String>) -> Self {
        let info = kind.info();
        let here = is_loopback(base_url);
        let takes_files = info.attachments.holds(base_url, here);
        ProviderConfig {
            kind,
            base_url: base_url.to_string(),
            api_key,
            num_ctx: None,
            lenient_tool_calls: info.lenient_calls.holds(base_url, here),
            takes: Takes {
                images: takes_files,
                documents: takes_files,
            },
            retry: RetryPolicy::default(),
            // A model on this machine's CPU may read a long prompt for minutes before its first
            // byte; a hosted API that is silent for two minutes is gone.
            idle_timeout: if info.patient.holds(base_url, here) {
                Duration::from_secs(600)
            } else {
                Duration::from_secs(120)
            },
            model_path: None,
            small_model: None,
        }
    }

    /// Whether `model` on this provider gets the small-model help: the setting when there is
    /// one, otherwise [`small_by_default`].
    pub fn is_small(&self, model: &str) -> bool {
        self.small_model
            .unwrap_or_else(|| small_by_default(self.kind, &self.base_url, model))
    }
}

/// The largest model, in billions of parameters, that gets the small-model help unasked.
const SMALL_MODEL_BILLIONS: f64 = 8.0;

/// The built-in model always; a model on a server on this machine when its name says it has at
/// most [`SMALL_MODEL_BILLIONS`] parameters (`qwen2.5-coder:1.5b`,
/// `Qwen2.5-Coder-1.5B-Instruct-GGUF`, `smollm2:135m`). The mechanism is per model size: a
/// 1.5B model behind Ollama goes astray as the built-in one does, a 32B one does not. A name
/// that says no size is not taken as small.
pub fn small_by_default(kind: ProviderKind, base_url: &str, model: &str) -> bool {
    match kind.info().small_models {
        protocol::Support::Always => true,
        protocol::Support::Never => false,
        some => {
            some.holds(base_url, is_loopback(base_url))
                && parameters_in_name(model).is_some_and(|b| b <= SMALL_MODEL_BILLIONS)
        }
    }
}

/// The parameter count a model's name gives, in billions: a part like `1.5b`, `3B`, `135m`
/// between separators.
pub fn parameters_in_name(model: &str) -> Option<f64> {
    model.split(['-', ':', '_', '/', ' ']).find_map(|part| {
        let lower = part.to_ascii_lowercase();
        let (number, scale) = if let Some(n) = lower.strip_suffix('b') {
            (n, 1.0)
        } else if let Some(n) = lower.strip_suffix('m') {
            (n, 0.001)
        } else {
            return None;
        };
        if number.is_empty() || !number.chars().all(|c| c.is_ascii_digit() || c == '.') {
            return None;
        }
        number.parse::<f64>().ok().map(|n| n * scale)
    })
}

/// Whether a server address is this machine (`localhost`, `127.0.0.0/8`, `[::1]`, also as an
/// IPv4-mapped address); parsed, so `http://127.0.0.1.evil.com` is not.
pub fn is_loopback(url: &str) -> bool {
    let Ok(parsed) = reqwest::Url::parse(url) else {
        return false;
    };
    let Some(host) = parsed.host_str() else {
        return false;
    };
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    match bare.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(ip)) => ip.is_loopback(),
        Ok(std::net::IpAddr::V6(ip)) => {
            ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
        Err(_) => {
            let d = bare.trim_end_matches('.').to_ascii_lowercase();
            d == "localhost" || d.ends_with(".localhost")
        }
    }
}

fn bundled_roots() -> Vec<reqwest::Certificate> {
    webpki_root_certs::TLS_SERVER_ROOT_CERTS
        .iter()
        .filter_map(|der| reqwest::Certificate::from_der(der).ok())
        .collect()
}

#[derive(Clone)]
pub struct Provider {
    config: ProviderConfig,
    http: reqwest::Client,
    /// The model itself, for [`ProviderKind::Builtin`] (which has no server to call).
    local: Option<std::sync::Arc<dyn LocalModel>>,
}

impl Provider {
    /// A client for the provider. An address that cannot be used (no `http://`) is refused
    /// here, before anything is sent, rather than failing every request later.
    pub fn new(config: ProviderConfig) -> Result<Self, LlmError> {
        if config.kind.wire() == Wire::Builtin {
            return Err(LlmError::BuiltinUnavailable(
                "the built-in model is loaded by the app, not reached at an address".into(),
            ));
        }
        crate::error::check_address(&config.base_url)?;
        // Certificates are checked against the system's store (where IT puts a corporate CA;
        // `SSL_CERT_FILE` on Linux) and the bundled Mozilla roots, so that a machine without a
        // store still reaches the public providers.
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(15))
            .read_timeout(config.idle_timeout)
            .user_agent(concat!("Tandem/", env!("CARGO_PKG_VERSION")))
            .tls_certs_merge(bundled_roots())
            .build()
            .map_err(|e| LlmError::connect(&e))?;
        Ok(Provider {
            config,
            http,
            local: None,
        })
    }

    /// A provider answered by a model in this process (the built-in model). `config.base_url`
    /// is not used; its kind should be [`ProviderKind::Builtin`].
    pub fn local(config: ProviderConfig, model: std::sync::Arc<dyn LocalModel>) -> Self {
        Provider {
            config,
            // Never used to send anything: a provider without a server still has the one shape.
            http: reqwest::Client::new(),
            local: Some(model),
        }
    }

    pub fn config(&self) -> &ProviderConfig {
        &self.config
    }

    /// Takes tool calls a model writes as text, or not, whatever the settings said (a command
    /// line's `--lenient-tool-calls`).
    pub fn set_lenient_tool_calls(&mut self, on: bool) {
        self.config.lenient_tool_calls = on;
    }

    /// Gives its models the small-model help, or not, whatever the settings said (a command
    /// line's `--small-model`).
    pub fn set_small_model(&mut self, on: bool) {
        self.config.small_model = Some(on);
    }

    /// The in-process model, for the built-in provider.
    pub(crate) fn local_model(&self) -> Option<&std::sync::Arc<dyn LocalModel>> {
        self.local.as_ref()
    }

    pub(crate) fn http(&self) -> &reqwest::Client {
        &self.http
    }

    async fn attempt(
        &self,
        req: &ChatRequest,
        on_event: &mut (dyn FnMut(StreamEvent) + Send),
        cancel: &CancellationToken,
    ) -> Result<ChatResponse, LlmError> {
        let c = &self.config;
        if let Some(model) = &self.local {
            return model.stream(req, on_event, cancel).await;
        }
        let request = match c.kind.wire() {
            Wire::Anthropic => {
                let key = c.api_key.as_deref().ok_or(LlmError::Auth { status: 401 })?;
                anthropic::request(&self.http, &c.base_url, key, req)
            }
            Wire::OpenAi => openai::request(
                &self.http,
                &c.base_url,
                c.api_key.as_deref(),
                &stream::openai_options(c),
                req,
            ),
            Wire::Builtin => {
                return Err(LlmError::BuiltinUnavailable(
                    "no model file is loaded".into(),
                ));
            }
        };
        stream::receive(c, request, req, on_event, cancel).await
    }

    /// Streams one reply. Rate limits, overloads, server errors and cut streams are retried per
    /// the retry policy; a failed attempt's partial output is discarded (a `Restart` event
    /// tells the watcher when there was any), so a half-received tool call is never returned.
    pub async fn stream(
        &self,
        req: &ChatRequest,
        on_event: &mut (dyn FnMut(StreamEvent) + Send),
        cancel: &CancellationToken,
    ) -> Result<ChatResponse, LlmError> {
        let mut attempts = 0u32;
        let mut retries_by_kind = [0u32; 3];
        loop {
            attempts += 1;
            // Whether this attempt showed anything the watcher must now forget.
            let mut streamed = false;
            let mut watch = |e: StreamEvent| {
                streamed |= !matches!(
                    e,
                    StreamEvent::Notice(_)
                        | StreamEvent::Usage(_)
                        | StreamEvent::PromptProgress { .. }
                );
                on_event(e);
            };
            let result = self.attempt(req, &mut watch, cancel).await;
            match result {
                Ok(mut r) => {
                    r.attempts = attempts;
                    return Ok(r);
                }
                Err(err) => {
                    let slot = match err {
                        LlmError::RateLimited { .. } | LlmError::Overloaded { .. } => 0,
                        LlmError::StreamCut => 2,
                        _ => 1,
                    };
                    let Some(wait) = self.config.retry.delay(&err, retries_by_kind[slot]) else {
                        return Err(err);
                    };
                    retries_by_kind[slot] += 1;
                    tracing::warn!(%err, attempt = attempts, wait_ms = wait.as_millis() as u64, "retrying the model request");
                    // What went wrong first, then that the reply starts over: the watcher
                    // shows them in the order they arrive.
                    on_event(StreamEvent::Retrying {
                        error: err,
                        wait,
                        retry: attempts,
                    });
                    if streamed {
                        on_event(StreamEvent::Restart);
                    }
                    tokio::select! {
                        _ = tokio::time::sleep(wait) => {}
                        _ = cancel.cancelled() => return Err(LlmError::Cancelled),
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_size_is_read_from_the_usual_names() {
        assert_eq!(parameters_in_name("qwen2.5-coder:1.5b"), Some(1.5));
        assert_eq!(
            parameters_in_name("Qwen2.5-Coder-1.5B-Instruct-GGUF"),
            Some(1.5)
        );
        assert_eq!(
            parameters_in_name("qwen2.5-coder:1.5b-instruct-q4_K_M"),
            Some(1.5)
        );
        assert_eq!(parameters_in_name("smollm2:135m"), Some(0.135));
        assert_eq!(parameters_in_name("llama3.2:3b"), Some(3.0));
        assert_eq!(parameters_in_name("qwen2.5-coder:32b"), Some(32.0));
        assert_eq!(parameters_in_name("qwen2.5-coder"), None);
        assert_eq!(parameters_in_name("claude-sonnet-4-5"), None);
        assert_eq!(parameters_in_name("gpt-4o-mini"), None);
    }

    #[test]
    fn small_models_on_this_machine_get_the_help_unless_the_setting_says_no() {
        let local = ProviderConfig::new(ProviderKind::OpenAi, "http://127.0.0.1:11434/v1", None);
        assert!(local.is_small("qwen2.5-coder:1.5b"));
        // Issue 48: a 1.5B–7B model behind a server gets the same help as the built-in one
        // (Llama 3.1's 8B too).
        assert!(local.is_small("qwen2.5-coder:7b"));
        assert!(local.is_small("llama3.1:8b"));
        assert!(!local.is_small("qwen2.5-coder:14b"));
        assert!(!local.is_small("qwen2.5-coder:32b"));
        assert!(
            !local.is_small("qwen2.5-coder"),
            "no size in the name: not assumed small"
        );
        let hosted = ProviderConfig::new(
            ProviderKind::OpenAi,
            "https://api.example.com/v1",
            Some("k".into()),
        );
        assert!(!hosted.is_small("qwen2.5-coder:1.5b"));
        assert!(ProviderConfig::new(ProviderKind::Builtin, "", None).is_small("anything"));
        let off = ProviderConfig {
            small_model: Some(false),
            ..local.clone()
        };
        assert!(!off.is_small("qwen2.5-coder:1.5b"));
        let on = ProviderConfig {
            small_model: Some(true),
            ..hosted
        };
        assert!(on.is_small("big-model"));
    }
}
