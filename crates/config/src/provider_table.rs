//! How a `[providers.NAME]` table is read: key by key into [`ProviderSettings`]'s groups. A
//! derived reader with `#[serde(flatten)]` would buffer the table first and lose where each
//! value was written, so a wrong key would be reported at line 1 and without the keys that
//! exist; this reader names both, as the derived one did when the struct was flat.

use crate::settings::{ModelFile, ProviderSettings};
use llm::ProviderKind;
use serde::Deserialize;
use serde::de::{Deserializer, Error, MapAccess, Visitor};
use std::fmt;

const KEYS: &[&str] = &[
    "kind",
    "base_url",
    "api_key_env",
    "num_ctx",
    "lenient_tool_calls",
    "images",
    "small_model",
    "documents",
    "model_path",
    "download_url",
    "sha256",
];

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum Key {
    Kind,
    BaseUrl,
    ApiKeyEnv,
    NumCtx,
    LenientToolCalls,
    Images,
    SmallModel,
    Documents,
    ModelPath,
    DownloadUrl,
    Sha256,
}

impl<'de> Deserialize<'de> for ProviderSettings {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_struct("ProviderSettings", KEYS, Table)
    }
}

struct Table;

impl<'de> Visitor<'de> for Table {
    type Value = ProviderSettings;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a provider's table")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ProviderSettings, A::Error> {
        let mut kind: Option<ProviderKind> = None;
        let mut out = ProviderSettings {
            kind: ProviderKind::Anthropic,
            base_url: None,
            api_key_env: None,
            num_ctx: None,
            lenient_tool_calls: None,
            images: None,
            small_model: None,
            documents: None,
            file: ModelFile::default(),
        };
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Kind => kind = Some(map.next_value()?),
                Key::BaseUrl => out.base_url = map.next_value()?,
                Key::ApiKeyEnv => out.api_key_env = map.next_value()?,
                Key::NumCtx => out.num_ctx = map.next_value()?,
                Key::LenientToolCalls => out.lenient_tool_calls = map.next_value()?,
                Key::Images => out.images = map.next_value()?,
                Key::SmallModel => out.small_model = map.next_value()?,
                Key::Documents => out.documents = map.next_value()?,
                Key::ModelPath => out.file.model_path = map.next_value()?,
                Key::DownloadUrl => out.file.download_url = map.next_value()?,
                Key::Sha256 => out.file.sha256 = map.next_value()?,
            }
        }
        out.kind = kind.ok_or_else(|| A::Error::missing_field("kind"))?;
        Ok(out)
    }
}
