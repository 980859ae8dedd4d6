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

/// Anthropic's Messages API, OpenAI's Chat Completions (and every server speaking it), or the
/// built-in model.
pub use protocol::ProviderKind;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderConfig {
    pub kind: ProviderKind,
    /// e.g. `https://api.anthropic.com`, `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    /// Local servers often need none.
    pub api_key: Option<String>,
    pub num_ctx: Option<u32>,
    pub lenient_tool_calls: bool,
    /// The model takes images (read_file of a picture sends it). Anthropic's do; among
    /// OpenAI-compatible servers only OpenAI's own is assumed to, a local one when the user
    /// says so (`images = true` in its settings).
    pub images: bool,
    /// The model reads PDFs given as files (read_file or web_fetch of one attaches it beside
    /// its extracted text). Anthropic's and OpenAI's own do; others get the text alone.
    pub documents: bool,
    pub retry: RetryPolicy,
    /// No byte for this long mid-stream: the connection is taken as dead.
    pub idle_timeout: Duration,
    /// The GGUF file of the built-in model ([`ProviderKind::Builtin`]); unused by the others.
    pub model_path: Option<std::path::PathBuf>,
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

    pub fn new(kind: ProviderKind, base_url: &str, api_key: Option<String>) -> Self {
        ProviderConfig {
            kind,
            base_url: base_url.to_string(),
            api_key,
            num_ctx: None,
            // Small local models write their calls as text more often than not; hosted
            // APIs return real calls.
            lenient_tool_calls: kind == ProviderKind::Builtin
                || (kind == ProviderKind::OpenAi && is_loopback(base_url)),
            images: match kind {
                ProviderKind::Anthropic => true,
                ProviderKind::OpenAi => base_url.contains("://api.openai.com"),
                ProviderKind::Builtin => false,
            },
            documents: match kind {
                ProviderKind::Anthropic => true,
                ProviderKind::OpenAi => base_url.contains("://api.openai.com"),
                ProviderKind::Builtin => false,
            },
            retry: RetryPolicy::default(),
            // A model on this machine's CPU may read a long prompt for minutes before its first
            // byte; a hosted API that is silent for two minutes is gone.
            idle_timeout: if kind == ProviderKind::Builtin || is_loopback(base_url) {
                Duration::from_secs(600)
            } else {
                Duration::from_secs(120)
            },
            model_path: None,
        }
    }
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
        if config.kind == ProviderKind::Builtin {
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
        let request = match c.kind {
            ProviderKind::Anthropic => {
                let key = c.api_key.as_deref().ok_or(LlmError::Auth { status: 401 })?;
                anthropic::request(&self.http, &c.base_url, key, req)
            }
            ProviderKind::OpenAi => openai::request(
                &self.http,
                &c.base_url,
                c.api_key.as_deref(),
                &stream::openai_options(c),
                req,
            ),
            ProviderKind::Builtin => {
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
