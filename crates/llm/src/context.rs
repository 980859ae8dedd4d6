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
    ("gemini-", 1_048_576),
    ("grok-", 131_072),
    ("llama-3.1-", 131_072),
    ("llama-3.3-", 131_072),
    ("mixtral-8x7b", 32_768),
];

/// Hosts of hosted APIs, where a model's window is known by its name and there is no server
/// of the person's own to ask.
const HOSTED_HOSTS: &[&str] = &[
    "api.openai.com",
    "api.anthropic.com",
    "openrouter.ai",
    "api.groq.com",
    "api.deepseek.com",
    "api.mistral.ai",
    "generativelanguage.googleapis.com",
    "api.x.ai",
    "api.together.xyz",
    "api.fireworks.ai",
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
            // A server of the person's own, on this computer or another one on the network
            // (Ollama on a desktop with a GPU): asked, as it may have been given any context.
            Wire::OpenAi if is_loopback(&c.base_url) || !hosted_api(&c.base_url) => {
                match self.ask_local_server(model).await {
                    Some(n) => Some(n),
                    None => hosted(model),
                }
            }
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
        if let Ok(r) = show
            && r.status().is_success()
            && let Ok(v) = r.json::<serde_json::Value>().await
        {
            return Some(ollama_num_ctx(&v).unwrap_or(OLLAMA_DEFAULT_CONTEXT));
        }
        // vLLM (`max_model_len`) and others say it in their OpenAI-style model list; LM
        // Studio in its own (`/api/v0/models`).
        for list in [format!("{base}/models"), format!("{root}/api/v0/models")] {
            let Ok(r) = self.http().get(list).timeout(ASK_TIMEOUT).send().await else {
                continue;
            };
            if r.status().is_success()
                && let Ok(v) = r.json::<serde_json::Value>().await
                && let Some(n) = listed_context(&v, model)
            {
                return Some(n);
            }
        }
        None
    }
}

/// Whether `base_url` is a hosted API (its models' windows are known by name).
fn hosted_api(base_url: &str) -> bool {
    reqwest::Url::parse(base_url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
        .is_some_and(|h| {
            HOSTED_HOSTS
                .iter()
                .any(|known| h == *known || h.ends_with(&format!(".{known}")))
        })
}

/// `model`'s context in an OpenAI-style model list, where the server says it: vLLM's
/// `max_model_len`, LM Studio's `loaded_context_length` / `max_context_length`, OpenRouter's
/// `context_length`.
fn listed_context(list: &serde_json::Value, model: &str) -> Option<u32> {
    let entry = list
        .get("data")?
        .as_array()?
        .iter()
        .find(|m| m.get("id").and_then(serde_json::Value::as_str) == Some(model))?;
    [
        "loaded_context_length",
        "max_model_len",
        "context_length",
        "max_context_length",
    ]
    .iter()
    .find_map(|k| entry.get(*k).and_then(serde_json::Value::as_u64))
    .and_then(|n| u32::try_from(n).ok())
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

    /// A server on another computer of the person's network was taken for a hosted API: its
    /// window was 200,000 (or unknown) whatever it had been given.
    #[test]
    fn a_server_on_the_network_is_asked_and_a_hosted_api_is_known_by_name() {
        assert!(hosted_api("https://api.openai.com/v1"));
        assert!(hosted_api("https://openrouter.ai/api/v1"));
        assert!(!hosted_api("http://192.168.1.20:11434/v1"));
        assert!(!hosted_api("http://gpu-box.lan:8080/v1"));
        let vllm = serde_json::json!({"data": [
            {"id": "other", "max_model_len": 4096},
            {"id": "Qwen/Qwen2.5-Coder-7B-Instruct", "max_model_len": 32768}
        ]});
        assert_eq!(
            listed_context(&vllm, "Qwen/Qwen2.5-Coder-7B-Instruct"),
            Some(32768)
        );
        let lm_studio = serde_json::json!({"data": [
            {"id": "qwen2.5-coder-7b", "max_context_length": 32768, "loaded_context_length": 8192}
        ]});
        assert_eq!(listed_context(&lm_studio, "qwen2.5-coder-7b"), Some(8192));
        assert_eq!(listed_context(&lm_studio, "absent"), None);
    }

    #[test]
    fn hosted_models_by_name_and_ollama_parameters() {
        assert_eq!(hosted("claude-sonnet-4-5"), Some(200_000));
        assert_eq!(hosted("openai/gpt-4o-mini"), Some(128_000));
        assert_eq!(hosted("qwen2.5-coder:7b"), None);
        assert_eq!(hosted("gemini-2.5-pro"), Some(1_048_576));
        let show = serde_json::json!({"parameters": "stop \"<|im_end|>\"\nnum_ctx                        16384\n"});
        assert_eq!(ollama_num_ctx(&show), Some(16384));
        assert_eq!(
            ollama_num_ctx(&serde_json::json!({"parameters": "temperature 0.2"})),
            None
        );
    }
}
