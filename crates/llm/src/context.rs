//! How many tokens a model's context holds, from the model itself where it can say: the
//! context a local server was given (`num_ctx` sent to Ollama, llama-server's `/props`, the
//! `num_ctx` of Ollama's model), the built-in model as loaded, the hosted models' published
//! windows. The agent warns and compacts against it: a local server with a 4k context cuts a
//! prompt silently long before 200k.

use crate::provider::{Provider, is_loopback};
use protocol::Wire;
use std::time::Duration;

/// What Ollama gives a model whose Modelfile sets no `num_ctx` (its `OLLAMA_CONTEXT_LENGTH`
/// default), when Tandem sends none either.
pub const OLLAMA_DEFAULT_CONTEXT: u32 = 4096;

/// A local server's answer about its context must be quick: it is asked before a turn.
const ASK_TIMEOUT: Duration = Duration::from_secs(2);

/// The published context windows of hosted models, by the start of their names.
const HOSTED: &[(&str, u32)] = &[
    ("claude-", 200_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("gpt-4-turbo", 128_000),
    ("gpt-5", 400_000),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4", 200_000),
    ("deepseek", 128_000),
    ("mistral-large", 128_000),
];

impl Provider {
    /// The context window of `model` here, or `None` when nothing says (the agent then keeps
    /// its default). A local server is asked (`/props`, Ollama's `/api/show`).
    pub async fn context_window(&self, model: &str) -> Option<u32> {
        // A context of nothing is no answer (the agent would compact at every step).
        self.ask_context(model).await.filter(|n| *n > 0)
    }

    async fn ask_context(&self, model: &str) -> Option<u32> {
        let c = self.config();
        if let Some(n) = c.num_ctx {
            return Some(n);
        }
        if let Some(local) = self.local_model() {
            return local.context();
        }
        match c.kind.wire() {
            Wire::Anthropic => Some(200_000),
            Wire::OpenAi if is_loopback(&c.base_url) => self.ask_local_server(model).await,
            Wire::OpenAi => hosted(model),
            Wire::Builtin => None,
        }
    }

    /// llama-server says its context at `/props`; Ollama says a model's `num_ctx` at
    /// `/api/show`, and without one uses its default.
    async fn ask_local_server(&self, model: &str) -> Option<u32> {
        let base = self.config().base_url.trim_end_matches('/');
        let root = base.strip_suffix("/v1").unwrap_or(base);
        let props = self
            .http()
            .get(format!("{root}/props"))
            .timeout(ASK_TIMEOUT)
            .send()
            .await;
        if let Ok(r) = props
            && r.status().is_success()
            && let Ok(v) = r.json::<serde_json::Value>().await
            && let Some(n) = v
                .pointer("/default_generation_settings/n_ctx")
                .or_else(|| v.get("n_ctx"))
                .and_then(serde_json::Value::as_u64)
        {
            return u32::try_from(n).ok();
        }
        let show = self
            .http()
            .post(format!("{root}/api/show"))
            .json(&serde_json::json!({ "model": model }))
            .timeout(ASK_TIMEOUT)
            .send()
            .await;
        let v = match show {
            Ok(r) if r.status().is_success() => r.json::<serde_json::Value>().await.ok()?,
            _ => return None,
        };
        Some(ollama_num_ctx(&v).unwrap_or(OLLAMA_DEFAULT_CONTEXT))
    }
}

/// The `num_ctx` in an Ollama model's parameters ("num_ctx 8192" on a line of its own).
fn ollama_num_ctx(show: &serde_json::Value) -> Option<u32> {
    show.get("parameters")?
        .as_str()?
        .lines()
        .find_map(|l| l.trim().strip_prefix("num_ctx")?.trim().parse().ok())
}

/// A hosted model's published window, by its name.
fn hosted(model: &str) -> Option<u32> {
    let name = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    HOSTED
        .iter()
        .find(|(prefix, _)| name.starts_with(prefix))
        .map(|(_, n)| *n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosted_models_by_name_and_ollama_parameters() {
        assert_eq!(hosted("claude-sonnet-4-5"), Some(200_000));
        assert_eq!(hosted("openai/gpt-4o-mini"), Some(128_000));
        assert_eq!(hosted("qwen2.5-coder:7b"), None);
        let show = serde_json::json!({"parameters": "stop \"<|im_end|>\"\nnum_ctx                        16384\n"});
        assert_eq!(ollama_num_ctx(&show), Some(16384));
        assert_eq!(
            ollama_num_ctx(&serde_json::json!({"parameters": "temperature 0.2"})),
            None
        );
    }
}
