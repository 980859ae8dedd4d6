//! The models a provider offers: the Settings screen's "Test connection". Anthropic's
//! `GET /v1/models`, and the OpenAI-compatible `GET {base}/models` that OpenAI, Ollama,
//! llama.cpp's server and vLLM all answer.

use crate::error::LlmError;
use crate::provider::{Provider, Wire};
use serde_json::Value;

impl Provider {
    /// The ids of the models the provider lists, sorted. An answer proves the URL and the key.
    pub async fn list_models(&self) -> Result<Vec<String>, LlmError> {
        let c = self.config();
        let base = c.base_url.trim_end_matches('/');
        let request = match c.kind.wire() {
            Wire::Anthropic => {
                let key = c.api_key.as_deref().ok_or(LlmError::Auth { status: 401 })?;
                self.http()
                    .get(format!("{base}/v1/models?limit=1000"))
                    .header("x-api-key", key)
                    .header("anthropic-version", crate::anthropic::API_VERSION)
            }
            Wire::OpenAi => {
                let r = self.http().get(format!("{base}/models"));
                match c.api_key.as_deref() {
                    Some(k) => r.bearer_auth(k),
                    None => r,
                }
            }
            // One model, the file it was given: nothing to ask a server.
            Wire::Builtin => return Ok(vec![crate::BUILTIN_MODEL.to_string()]),
        };
        let response = request
            .timeout(std::time::Duration::from_secs(15))
            .send()
            .await
            .map_err(|e| LlmError::connect(&e))?;
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let body = response.text().await.map_err(|e| LlmError::connect(&e))?;
        if !(200..300).contains(&status) {
            return Err(LlmError::from_response(
                status,
                None,
                content_type.as_deref(),
                &body,
            ));
        }
        if crate::error::is_web_page(content_type.as_deref(), &body) {
            return Err(LlmError::NotAnApi { status });
        }
        let json: Value = serde_json::from_str(&body).map_err(|e| {
            LlmError::Protocol(format!(
                "the model list is not JSON ({e}); is this the API's URL?"
            ))
        })?;
        // Both formats put the list under `data`, each with an `id`; Ollama's native
        // `/api/tags` uses `models[].name`, accepted too in case the URL points there.
        let list = json
            .get("data")
            .or_else(|| json.get("models"))
            .and_then(Value::as_array)
            .ok_or_else(|| {
                LlmError::Protocol("the answer has no model list; is this the API's URL?".into())
            })?;
        let mut ids: Vec<String> = list
            .iter()
            .filter_map(|m| m.get("id").or_else(|| m.get("name")))
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect();
        ids.sort();
        ids.dedup();
        Ok(ids)
    }
}
