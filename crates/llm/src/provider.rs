//! A configured provider, and the one call the agent makes: stream a reply, with retries.

use crate::anthropic;
use crate::error::LlmError;
use crate::openai;
use crate::request::{ChatRequest, ChatResponse, StreamEvent};
use crate::retry::RetryPolicy;
use crate::stream;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Anthropic's Messages API, or OpenAI's Chat Completions (and every server speaking it).
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
    pub retry: RetryPolicy,
    /// No byte for this long mid-stream: the connection is taken as dead.
    pub idle_timeout: Duration,
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
            lenient_tool_calls: false,
            retry: RetryPolicy::default(),
            idle_timeout: Duration::from_secs(120),
        }
    }
}

fn bundled_roots() -> Vec<reqwest::Certificate> {
    webpki_root_certs::TLS_SERVER_ROOT_CERTS
        .iter()
        .filter_map(|der| reqwest::Certificate::from_der(der).ok())
        .collect()
}

pub struct Provider {
    config: ProviderConfig,
    http: reqwest::Client,
}

impl Provider {
    /// A client for the provider. An address that cannot be used (no `http://`) is refused
    /// here, before anything is sent, rather than failing every request later.
    pub fn new(config: ProviderConfig) -> Result<Self, LlmError> {
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
        Ok(Provider { config, http })
    }

    pub fn config(&self) -> &ProviderConfig {
        &self.config
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
                streamed |= !matches!(e, StreamEvent::Notice(_) | StreamEvent::Usage(_));
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
                    if streamed {
                        on_event(StreamEvent::Restart);
                    }
                    on_event(StreamEvent::Retrying {
                        error: err,
                        wait,
                        retry: attempts,
                    });
                    tokio::select! {
                        _ = tokio::time::sleep(wait) => {}
                        _ = cancel.cancelled() => return Err(LlmError::Cancelled),
                    }
                }
            }
        }
    }
}
