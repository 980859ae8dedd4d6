//! What a turn costs: dollars per million tokens per model, from a table the user can edit.

use protocol::Usage;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ModelPrice {
    pub input: f64,
    pub output: f64,
    #[serde(default)]
    pub cache_read: f64,
    #[serde(default)]
    pub cache_write: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PriceTable {
    /// Model name (or a prefix ending in `*`) → price per million tokens, in US dollars.
    pub models: BTreeMap<String, ModelPrice>,
}

impl Default for PriceTable {
    fn default() -> Self {
        let p = |input, output, cache_read, cache_write| ModelPrice {
            input,
            output,
            cache_read,
            cache_write,
        };
        PriceTable {
            models: BTreeMap::from([
                ("claude-opus-4*".to_string(), p(15.0, 75.0, 1.5, 18.75)),
                ("claude-sonnet-4*".to_string(), p(3.0, 15.0, 0.3, 3.75)),
                ("claude-haiku-4*".to_string(), p(1.0, 5.0, 0.1, 1.25)),
                ("gpt-4.1".to_string(), p(2.0, 8.0, 0.5, 0.0)),
                ("gpt-4.1-mini".to_string(), p(0.4, 1.6, 0.1, 0.0)),
                ("gpt-4o".to_string(), p(2.5, 10.0, 1.25, 0.0)),
                ("gpt-4o-mini".to_string(), p(0.15, 0.6, 0.075, 0.0)),
                // The model built into Tandem runs on this computer: free.
                (crate::BUILTIN_MODEL.to_string(), p(0.0, 0.0, 0.0, 0.0)),
            ]),
        }
    }
}

impl PriceTable {
    /// The user's table (JSON) over the defaults.
    pub fn with_overrides(json: &str) -> Result<Self, serde_json::Error> {
        let user: PriceTable = serde_json::from_str(json)?;
        let mut t = PriceTable::default();
        t.models.extend(user.models);
        Ok(t)
    }

    /// An exact name wins over the longest matching prefix pattern.
    pub fn price(&self, model: &str) -> Option<ModelPrice> {
        if let Some(p) = self.models.get(model) {
            return Some(*p);
        }
        self.models
            .iter()
            .filter_map(|(k, p)| {
                k.strip_suffix('*')
                    .filter(|pre| model.starts_with(pre))
                    .map(|pre| (pre.len(), *p))
            })
            .max_by_key(|(len, _)| *len)
            .map(|(_, p)| p)
    }

    /// Cost in dollars; `None` for a model with no price (local models are free, or unknown).
    pub fn cost(&self, model: &str, usage: &Usage) -> Option<f64> {
        let p = self.price(model)?;
        let m = 1_000_000.0;
        Some(
            f64::from(usage.input_tokens) * p.input / m
                + f64::from(usage.output_tokens) * p.output / m
                + f64::from(usage.cache_read_tokens) * p.cache_read / m
                + f64::from(usage.cache_write_tokens) * p.cache_write / m,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_by_name_and_prefix_with_user_overrides() {
        let t = PriceTable::default();
        let u = Usage {
            input_tokens: 1_000_000,
            output_tokens: 100_000,
            cache_read_tokens: 0,
            cache_write_tokens: 0,
        };
        let c = t.cost("claude-sonnet-4-5", &u).expect("priced");
        assert!((c - 4.5).abs() < 1e-9, "{c}");
        assert_eq!(t.cost("llama3.2:3b", &u), None);
        let t = PriceTable::with_overrides(
            r#"{"models": {"llama3.2:3b": {"input": 0.0, "output": 0.0}}}"#,
        )
        .expect("json");
        assert_eq!(t.cost("llama3.2:3b", &u), Some(0.0));
    }
}
