//! The kinds of model provider Tandem knows, as data: one row of [`PROVIDERS`] each — its
//! name in the settings and its aliases, its words for people, the wire format it speaks, its
//! address and key variable, and what its models can do. The settings, `tandem-cli`, the
//! window (through the bindings) and `llm` read the rows; adding an OpenAI-compatible kind is
//! one row.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use ts_rs::TS;

/// The wire format a provider speaks: what the model client switches on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Wire {
    /// Anthropic's Messages API.
    Anthropic,
    /// OpenAI's Chat Completions, which every OpenAI-compatible server speaks.
    #[serde(rename = "openai")]
    OpenAi,
    /// No wire: the model runs inside Tandem (a GGUF file, crates/builtin).
    Builtin,
}

/// Where a provider's models can do something.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Support {
    Always,
    Never,
    /// On a server on this computer (a loopback address).
    OnThisComputer,
    /// At an address that contains this (the provider's own API, not a compatible server).
    AtAddress(&'static str),
}

impl Support {
    /// Whether it holds for a provider at `base_url`; `on_this_computer` says whether that is
    /// a loopback address (the caller parses URLs).
    pub fn holds(self, base_url: &str, on_this_computer: bool) -> bool {
        match self {
            Support::Always => true,
            Support::Never => false,
            Support::OnThisComputer => on_this_computer,
            Support::AtAddress(part) => base_url.contains(part),
        }
    }
}

/// What Tandem knows of one kind of provider.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ProviderInfo {
    /// Its name in the settings (`kind = "openai"`) and the key store.
    pub name: &'static str,
    /// Other names a launch (`TANDEM_PROVIDER`) may give it.
    pub aliases: &'static [&'static str],
    /// In words for people ("OpenAI or compatible").
    pub words: &'static str,
    pub wire: Wire,
    /// Its API address when the settings name none ("" for none).
    pub default_url: &'static str,
    /// The environment variable its key is read from ("" for a kind without keys).
    pub key_env: &'static str,
    /// Its models take images and PDFs from tools.
    pub attachments: Support,
    /// Calls its models write as text (a ```json block, `<tool_call>` tags) are run.
    pub lenient_calls: Support,
    /// Its stream may stay silent for minutes (a model reading a long prompt on this
    /// computer's CPU) before it is taken as dead.
    pub patient: Support,
    /// Its models may be small ones that need help: always, or where the size in a model's
    /// name says at most a few billion parameters.
    pub small_models: Support,
}

/// Every kind of provider, in the order people are offered them.
pub const PROVIDERS: &[ProviderInfo] = &[ANTHROPIC, OPENAI, BUILTIN];

const ANTHROPIC: ProviderInfo = ProviderInfo {
    name: "anthropic",
    aliases: &[],
    words: "Anthropic",
    wire: Wire::Anthropic,
    default_url: "https://api.anthropic.com",
    key_env: "ANTHROPIC_API_KEY",
    attachments: Support::Always,
    lenient_calls: Support::Never,
    patient: Support::OnThisComputer,
    small_models: Support::OnThisComputer,
};

const OPENAI: ProviderInfo = ProviderInfo {
    name: "openai",
    aliases: &["openai-compatible", "ollama", "local"],
    words: "OpenAI or compatible",
    wire: Wire::OpenAi,
    default_url: "https://api.openai.com/v1",
    key_env: "OPENAI_API_KEY",
    // Among OpenAI-compatible servers only OpenAI's own is assumed to take them; a local
    // one does when its settings say so (`images = true`).
    attachments: Support::AtAddress("://api.openai.com"),
    // Small local models write their calls as text more often than not; hosted APIs
    // return real calls.
    lenient_calls: Support::OnThisComputer,
    patient: Support::OnThisComputer,
    small_models: Support::OnThisComputer,
};

const BUILTIN: ProviderInfo = ProviderInfo {
    name: "builtin",
    aliases: &["built-in"],
    words: "Built in (this computer)",
    wire: Wire::Builtin,
    // In-process: no address, no key.
    default_url: "",
    key_env: "",
    attachments: Support::Never,
    lenient_calls: Support::Always,
    patient: Support::Always,
    small_models: Support::Always,
};

/// A kind of provider: a row of [`PROVIDERS`], named in the settings and on the wire to the
/// window by its name.
#[derive(Clone, Copy, PartialEq, Eq, Hash, TS)]
#[ts(type = "string")]
pub struct ProviderKind(&'static ProviderInfo);

#[allow(non_upper_case_globals)]
impl ProviderKind {
    pub const Anthropic: ProviderKind = ProviderKind(&ANTHROPIC);
    pub const OpenAi: ProviderKind = ProviderKind(&OPENAI);
    pub const Builtin: ProviderKind = ProviderKind(&BUILTIN);

    /// The kind the settings name `name`.
    pub fn named(name: &str) -> Option<ProviderKind> {
        PROVIDERS.iter().find(|p| p.name == name).map(ProviderKind)
    }

    /// The kind a launch names by its name or one of its aliases, in any case.
    pub fn from_alias(name: &str) -> Option<ProviderKind> {
        let name = name.trim().to_ascii_lowercase();
        PROVIDERS
            .iter()
            .find(|p| p.name == name || p.aliases.contains(&name.as_str()))
            .map(ProviderKind)
    }

    pub fn info(self) -> &'static ProviderInfo {
        self.0
    }

    pub fn name(self) -> &'static str {
        self.0.name
    }

    pub fn wire(self) -> Wire {
        self.0.wire
    }

    /// Every kind, in the order people are offered them.
    pub fn all() -> impl Iterator<Item = ProviderKind> {
        PROVIDERS.iter().map(ProviderKind)
    }
}

impl std::fmt::Debug for ProviderKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.name)
    }
}

impl std::fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.name)
    }
}

impl Serialize for ProviderKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.name)
    }
}

impl<'de> Deserialize<'de> for ProviderKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        ProviderKind::named(&name).ok_or_else(|| {
            let known: Vec<&str> = PROVIDERS.iter().map(|p| p.name).collect();
            serde::de::Error::custom(format!(
                "unknown provider kind `{name}`; the kinds are: {}",
                known.join(", ")
            ))
        })
    }
}

/// A kind of provider as the window offers it (the bindings carry every row).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ProviderKindView {
    pub name: String,
    pub words: String,
    pub wire: Wire,
    pub default_url: String,
    /// "" for a kind without keys.
    pub key_env: String,
}

impl From<&ProviderInfo> for ProviderKindView {
    fn from(p: &ProviderInfo) -> Self {
        ProviderKindView {
            name: p.name.to_string(),
            words: p.words.to_string(),
            wire: p.wire,
            default_url: p.default_url.to_string(),
            key_env: p.key_env.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each row is found by its name and its aliases, round-trips through the settings'
    /// text, and names are never taken twice.
    #[test]
    fn every_kind_is_found_by_its_names_and_round_trips() {
        let mut names: Vec<&str> = Vec::new();
        for kind in ProviderKind::all() {
            let info = kind.info();
            assert_eq!(ProviderKind::named(info.name), Some(kind));
            for alias in info.aliases.iter().chain([&info.name]) {
                assert_eq!(ProviderKind::from_alias(alias), Some(kind), "{alias}");
                assert_eq!(
                    ProviderKind::from_alias(&alias.to_uppercase()),
                    Some(kind),
                    "{alias}"
                );
                assert!(!names.contains(alias), "{alias} names two kinds");
                names.push(alias);
            }
            let json = serde_json::to_string(&kind).expect("serialize");
            assert_eq!(json, format!("\"{}\"", info.name));
            let back: ProviderKind = serde_json::from_str(&json).expect("deserialize");
            assert_eq!(back, kind);
        }
        let err = serde_json::from_str::<ProviderKind>("\"gemini\"").expect_err("unknown");
        assert!(
            err.to_string()
                .contains("the kinds are: anthropic, openai, builtin"),
            "{err}"
        );
    }

    #[test]
    fn support_holds_where_it_says() {
        assert!(Support::Always.holds("", false));
        assert!(!Support::Never.holds("http://127.0.0.1", true));
        assert!(Support::OnThisComputer.holds("http://127.0.0.1:11434/v1", true));
        assert!(!Support::OnThisComputer.holds("https://api.openai.com/v1", false));
        let openai = Support::AtAddress("://api.openai.com");
        assert!(openai.holds("https://api.openai.com/v1", false));
        assert!(!openai.holds("http://127.0.0.1:11434/v1", true));
    }
}
