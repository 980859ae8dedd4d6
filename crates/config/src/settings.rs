//! Which model serves which role: `settings.toml` names providers (Anthropic, OpenAI, or any
//! OpenAI-compatible URL such as Ollama or llama.cpp's server) and maps the roles `default`,
//! `fast`, `coder` and `architect` to a provider and a model. API keys never live in this
//! file: they come from a [`SecretStore`] (the OS keychain, later) or the environment.

use llm::{ProviderConfig, ProviderKind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const ROLES: [&str; 4] = ["default", "fast", "coder", "architect"];

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SettingsError {
    #[error("{file}:{line}:{column}: {message}")]
    Parse {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("no model is set for the `{0}` role (nor for `default`); choose one in Settings")]
    NoRole(String),
    #[error(
        "the `{role}` role uses the provider `{provider}`, which is not configured; add it in Settings"
    )]
    NoProvider { role: String, provider: String },
    #[error("`{0}` is not a role; the roles are default, fast, coder and architect")]
    UnknownRole(String),
    #[error("no API key for the provider `{provider}`: set {env} or store the key in Settings")]
    NoKey { provider: String, env: String },
    #[error("web search through SearXNG needs the server's address (base_url under [web_search])")]
    SearchNeedsAddress,
    /// The provider's address cannot be used (checked before the key: a key would not help).
    #[error("{0}")]
    BadAddress(llm::LlmError),
}

/// One `[providers.NAME]` table. Read key by key in `provider_table.rs`, so the groups here
/// stay one flat table in the file and a wrong key is still named at its line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProviderSettings {
    pub kind: ProviderKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// The environment variable holding the key (default `ANTHROPIC_API_KEY` / `OPENAI_API_KEY`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_ctx: Option<u32>,
    /// Take tool calls a model wrote as text; unset, on for servers on this machine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lenient_tool_calls: Option<bool>,
    /// Whether its models take images; unset, Anthropic's and OpenAI's own do, others not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub images: Option<bool>,
    /// Whether its models get the small-model help; unset, the built-in model and models of at
    /// most 4B parameters on a server on this machine do (`llm::small_by_default`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub small_model: Option<bool>,
    /// Whether its models read PDFs given as files; unset, Anthropic's and OpenAI's own do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub documents: Option<bool>,
    /// For the built-in model: its file. Written in the provider's own table, beside its kind.
    #[serde(flatten)]
    pub file: ModelFile,
}

/// The built-in model's GGUF file: one the user already has, or where to download it from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ModelFile {
    /// A file the user already has; unset, the file downloaded into the data folder.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_path: Option<String>,
    /// Where the file is downloaded from; unset, the default model's address.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub download_url: Option<String>,
    /// The sha256 the downloaded file must have (pinned with `download_url`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoleSettings {
    pub provider: String,
    pub model: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    #[serde(default)]
    pub providers: BTreeMap<String, ProviderSettings>,
    #[serde(default)]
    pub roles: BTreeMap<String, RoleSettings>,
    /// Where `web_search` searches; without it the tool says so and suggests web_fetch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub web_search: Option<WebSearchSettings>,
    /// Skills the user turned off.
    #[serde(default, skip_serializing_if = "SkillsSettings::is_empty")]
    pub skills: SkillsSettings,
    /// `[limits]`: what a session and a day may spend on models.
    #[serde(default, skip_serializing_if = "protocol::SpendLimits::is_empty")]
    pub limits: protocol::SpendLimits,
    /// `[notifications]`: which desktop notifications the window shows.
    #[serde(default, skip_serializing_if = "NotificationSettings::is_default")]
    pub notifications: NotificationSettings,
    /// `[commands]`: how Ask mode asks about commands.
    #[serde(default, skip_serializing_if = "CommandSettings::is_default")]
    pub commands: CommandSettings,
}

/// `[commands]` in settings.toml.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandSettings {
    /// In Ask mode, ask before every command runs (the way before commands ran over a copy
    /// of the project), rather than run it in the sandbox and review what it changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ask_first: Option<bool>,
}

impl CommandSettings {
    fn is_default(&self) -> bool {
        *self == CommandSettings::default()
    }

    pub fn ask_first(&self) -> bool {
        self.ask_first.unwrap_or(false)
    }
}

/// `[notifications]` in settings.toml; each on unless turned off.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotificationSettings {
    /// A question waits while the window is not in front.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub questions: Option<bool>,
    /// A turn that took over a minute ended (done, failed, stopped at a limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turns: Option<bool>,
}

impl NotificationSettings {
    fn is_default(&self) -> bool {
        *self == NotificationSettings::default()
    }

    pub fn questions(&self) -> bool {
        self.questions.unwrap_or(true)
    }

    pub fn turns(&self) -> bool {
        self.turns.unwrap_or(true)
    }
}

/// `[skills]` in settings.toml.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillsSettings {
    /// Names of skills that are never activated (they stay listed, turned off).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disabled: Vec<String>,
}

impl SkillsSettings {
    fn is_empty(&self) -> bool {
        self.disabled.is_empty()
    }
}

/// `[web_search]` in settings.toml: a search API and where its key is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebSearchSettings {
    pub provider: protocol::SearchProviderKind,
    /// Brave's and Tavily's default API addresses need no setting; SearXNG is self-hosted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// The environment variable holding the key (default `BRAVE_API_KEY` / `TAVILY_API_KEY`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
}

/// The name the web search key is stored under in the keychain (beside the providers').
pub const WEB_SEARCH_KEY: &str = "web_search";

impl WebSearchSettings {
    /// The search API these settings name, its key from the store or the environment.
    pub fn provider(
        &self,
        secrets: &dyn SecretStore,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<tools::SearchProvider, SettingsError> {
        use protocol::SearchProviderKind as K;
        let default_env = match self.provider {
            K::Brave => "BRAVE_API_KEY",
            K::Tavily => "TAVILY_API_KEY",
            K::Searxng => "SEARXNG_API_KEY",
        };
        let env_name = self
            .api_key_env
            .clone()
            .unwrap_or_else(|| default_env.to_string());
        let key = secrets
            .api_key(WEB_SEARCH_KEY)
            .or_else(|| env(&env_name))
            .filter(|k| !k.trim().is_empty());
        let base = |default: &str| self.base_url.clone().unwrap_or_else(|| default.to_string());
        let no_key = || SettingsError::NoKey {
            provider: WEB_SEARCH_KEY.into(),
            env: env_name.clone(),
        };
        Ok(match self.provider {
            K::Brave => tools::SearchProvider::Brave {
                api_key: key.ok_or_else(no_key)?,
                base_url: base(tools::BRAVE_URL),
            },
            K::Tavily => tools::SearchProvider::Tavily {
                api_key: key.ok_or_else(no_key)?,
                base_url: base(tools::TAVILY_URL),
            },
            K::Searxng => tools::SearchProvider::Searxng {
                base_url: self
                    .base_url
                    .clone()
                    .ok_or(SettingsError::SearchNeedsAddress)?,
            },
        })
    }
}

/// Where API keys come from. The OS keychain implements this in the desktop app; tests use
/// [`MemorySecrets`].
pub trait SecretStore: Send + Sync {
    /// The key stored for a provider, if any.
    fn api_key(&self, provider: &str) -> Option<String>;
}

/// No stored keys: the environment alone.
pub struct NoSecrets;

impl SecretStore for NoSecrets {
    fn api_key(&self, _provider: &str) -> Option<String> {
        None
    }
}

/// Keys held in memory (tests, and the CLI's `--api-key`).
#[derive(Default)]
pub struct MemorySecrets(pub BTreeMap<String, String>);

impl SecretStore for MemorySecrets {
    fn api_key(&self, provider: &str) -> Option<String> {
        self.0.get(provider).cloned()
    }
}

/// The API address a provider kind uses when none is set (its row's).
pub fn default_url(kind: ProviderKind) -> &'static str {
    kind.info().default_url
}

/// The environment variable a provider kind's key is read from when none is named (its
/// row's).
pub fn default_key_env(kind: ProviderKind) -> &'static str {
    kind.info().key_env
}

pub use llm::is_loopback;

impl Settings {
    pub fn parse(file: &str, text: &str) -> Result<Settings, SettingsError> {
        let settings: Settings = toml::from_str(text).map_err(|e| {
            let (line, column) = e
                .span()
                .map(|s| {
                    let before = &text[..s.start.min(text.len())];
                    (
                        before.matches('\n').count() + 1,
                        before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1,
                    )
                })
                .unwrap_or((1, 1));
            SettingsError::Parse {
                file: file.to_string(),
                line,
                column,
                message: e.message().trim().to_string(),
            }
        })?;
        if let Some(bad) = settings.roles.keys().find(|r| !ROLES.contains(&r.as_str())) {
            return Err(SettingsError::UnknownRole(bad.clone()));
        }
        Ok(settings)
    }

    /// The settings as TOML, for saving.
    pub fn to_toml(&self) -> String {
        // Plain maps of strings and numbers always serialize.
        toml::to_string_pretty(self).unwrap_or_default()
    }

    /// The provider configuration and model for a role (`default` when the role is not set).
    /// `env` looks up environment variables (passed in, so tests need not change the process).
    pub fn resolve(
        &self,
        role: &str,
        secrets: &dyn SecretStore,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<(ProviderConfig, String), SettingsError> {
        if !ROLES.contains(&role) {
            return Err(SettingsError::UnknownRole(role.to_string()));
        }
        let r = self
            .roles
            .get(role)
            .or_else(|| self.roles.get("default"))
            .ok_or_else(|| SettingsError::NoRole(role.to_string()))?;
        let p = self
            .providers
            .get(&r.provider)
            .ok_or_else(|| SettingsError::NoProvider {
                role: role.to_string(),
                provider: r.provider.clone(),
            })?;
        let kind = p.kind;
        if kind == ProviderKind::Builtin {
            // No address and no key: a file on this computer (the launcher fills in the
            // downloaded one when none is named).
            let mut config = ProviderConfig::new(kind, "", None);
            config.num_ctx = p.num_ctx;
            config.model_path = p.file.model_path.as_ref().map(std::path::PathBuf::from);
            config.small_model = p.small_model;
            return Ok((config, r.model.clone()));
        }
        let (default_url, default_env) = (default_url(kind), default_key_env(kind));
        let base_url = p
            .base_url
            .clone()
            .unwrap_or_else(|| default_url.to_string());
        let env_name = p
            .api_key_env
            .clone()
            .unwrap_or_else(|| default_env.to_string());
        let key = secrets
            .api_key(&r.provider)
            .or_else(|| env(&env_name))
            .filter(|k| !k.trim().is_empty());
        llm::check_address(&base_url).map_err(SettingsError::BadAddress)?;
        // Local servers usually take no key; hosted ones always do.
        if key.is_none() && !is_loopback(&base_url) {
            return Err(SettingsError::NoKey {
                provider: r.provider.clone(),
                env: env_name,
            });
        }
        let mut config = ProviderConfig::new(kind, &base_url, key);
        config.num_ctx = p.num_ctx;
        if let Some(lenient) = p.lenient_tool_calls {
            config.lenient_tool_calls = lenient;
        }
        if let Some(images) = p.images {
            config.takes.images = images;
        }
        if let Some(documents) = p.documents {
            config.takes.documents = documents;
        }
        config.small_model = p.small_model;
        Ok((config, r.model.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_is_read_from_the_parsed_host() {
        for url in [
            "http://127.0.0.1:8080/v1",
            "http://localhost:11434",
            "http://[::1]:8080",
            "http://127.1.2.3/",
            "http://LOCALHOST./x",
            "http://[::ffff:127.0.0.1]:80",
            // The host is what follows the last `@`: a client connects here too.
            "http://user@evil.com:80@127.0.0.1",
        ] {
            assert!(super::is_loopback(url), "{url}");
        }
        for url in [
            "http://127.0.0.1.evil.com/v1",
            "https://api.openai.com/v1",
            "http://localhost.evil.com",
            "http://evil.com/127.0.0.1",
            "127.0.0.1",
        ] {
            assert!(!super::is_loopback(url), "{url}");
        }
    }

    const TEXT: &str = r#"
[providers.anthropic]
kind = "anthropic"

[providers.local]
kind = "openai"
base_url = "http://127.0.0.1:11434/v1"
num_ctx = 16384
lenient_tool_calls = true
small_model = false

[roles]
default = { provider = "anthropic", model = "claude-sonnet-4-5" }
fast = { provider = "local", model = "llama3.2:3b" }
"#;

    fn env_with_key(name: &str) -> Option<String> {
        (name == "ANTHROPIC_API_KEY").then(|| "sk-env".to_string())
    }

    #[test]
    fn roles_resolve_to_providers_keys_and_models() {
        let s = Settings::parse("settings.toml", TEXT).expect("parse");
        let (c, model) = s
            .resolve("coder", &NoSecrets, &env_with_key)
            .expect("coder falls back to default");
        assert_eq!(
            (c.kind, model.as_str(), c.api_key.as_deref()),
            (ProviderKind::Anthropic, "claude-sonnet-4-5", Some("sk-env"))
        );
        let (c, model) = s
            .resolve("fast", &NoSecrets, &|_| None)
            .expect("local needs no key");
        assert_eq!(
            (
                c.base_url.as_str(),
                model.as_str(),
                c.num_ctx,
                c.lenient_tool_calls,
                c.small_model
            ),
            (
                "http://127.0.0.1:11434/v1",
                "llama3.2:3b",
                Some(16384),
                true,
                Some(false)
            )
        );
        // Set off, a 3B model on this machine does without the small-model help.
        assert!(!c.is_small(&model));
        let stored = MemorySecrets(BTreeMap::from([(
            "anthropic".to_string(),
            "sk-keychain".to_string(),
        )]));
        let (c, _) = s
            .resolve("default", &stored, &env_with_key)
            .expect("stored key");
        assert_eq!(
            c.api_key.as_deref(),
            Some("sk-keychain"),
            "the keychain wins over the environment"
        );
    }

    #[test]
    fn web_search_is_read_from_the_settings_with_its_key() {
        let s = Settings::parse("settings.toml", "[web_search]\nprovider = \"brave\"\n")
            .expect("parse");
        let web = s.web_search.clone().expect("web search");
        let none = |_: &str| None;
        assert!(matches!(
            web.provider(&NoSecrets, &none),
            Err(SettingsError::NoKey { .. })
        ));
        let stored = MemorySecrets([(WEB_SEARCH_KEY.to_string(), "k".to_string())].into());
        assert_eq!(
            web.provider(&stored, &none).expect("provider"),
            tools::SearchProvider::Brave {
                api_key: "k".into(),
                base_url: tools::BRAVE_URL.into()
            }
        );
        let from_env = |n: &str| (n == "BRAVE_API_KEY").then(|| "e".to_string());
        assert!(web.provider(&NoSecrets, &from_env).is_ok());
        assert_eq!(Settings::parse("s", &s.to_toml()).expect("again"), s);
        let searx = WebSearchSettings {
            provider: protocol::SearchProviderKind::Searxng,
            base_url: None,
            api_key_env: None,
        };
        assert!(matches!(
            searx.provider(&NoSecrets, &none),
            Err(SettingsError::SearchNeedsAddress)
        ));
    }

    #[test]
    fn saved_settings_read_back_the_same() {
        let s = Settings::parse("settings.toml", TEXT).expect("parse");
        let again = Settings::parse("saved.toml", &s.to_toml()).expect("reparse");
        assert_eq!(s, again);
    }

    #[test]
    fn missing_pieces_say_what_to_do() {
        let s = Settings::parse("settings.toml", TEXT).expect("parse");
        let err = s
            .resolve("default", &NoSecrets, &|_| None)
            .expect_err("no key");
        assert_eq!(
            err.to_string(),
            "no API key for the provider `anthropic`: set ANTHROPIC_API_KEY or store the key in Settings"
        );
        assert!(matches!(
            s.resolve("boss", &NoSecrets, &|_| None),
            Err(SettingsError::UnknownRole(_))
        ));
        let empty = Settings::default();
        assert!(matches!(
            empty.resolve("fast", &NoSecrets, &|_| None),
            Err(SettingsError::NoRole(_))
        ));
        let dangling = Settings::parse(
            "s.toml",
            "[roles]\ndefault = { provider = \"gone\", model = \"m\" }\n",
        )
        .expect("parse");
        assert!(
            dangling
                .resolve("default", &NoSecrets, &|_| None)
                .expect_err("dangling")
                .to_string()
                .contains("`gone`")
        );
        let err = Settings::parse(
            "s.toml",
            "[roles]\nintern = { provider = \"a\", model = \"m\" }\n",
        )
        .expect_err("role");
        assert!(err.to_string().contains("`intern` is not a role"));
        let err =
            Settings::parse("s.toml", "[providers.x]\nkind = \"gemini\"\n").expect_err("kind");
        assert!(err.to_string().starts_with("s.toml:2:"), "{err}");
    }
}

#[cfg(test)]
mod provider_table_tests {
    use super::*;

    const BUILTIN: &str = "[providers.local]\nkind = \"builtin\"\nnum_ctx = 8192\nmodel_path = \"/m/q.gguf\"\ndownload_url = \"https://example.com/q.gguf\"\nsha256 = \"ab\"\n";

    fn parse_error(text: &str) -> (usize, usize, String) {
        match Settings::parse("settings.toml", text) {
            Err(SettingsError::Parse {
                line,
                column,
                message,
                ..
            }) => (line, column, message),
            other => panic!("not a parse error: {other:?}"),
        }
    }

    #[test]
    fn a_provider_table_keeps_its_keys_flat_and_writes_back_the_same() {
        let settings = Settings::parse("settings.toml", BUILTIN).expect("parses");
        let local = &settings.providers["local"];
        assert_eq!(local.kind, ProviderKind::Builtin);
        assert_eq!(local.num_ctx, Some(8192));
        assert_eq!(local.file.model_path.as_deref(), Some("/m/q.gguf"));
        assert_eq!(local.file.sha256.as_deref(), Some("ab"));
        let written = settings.to_toml();
        assert!(written.contains("\nsha256 = \"ab\"\n"), "{written}");
        assert!(!written.contains("[providers.local.file]"), "{written}");
        assert_eq!(
            Settings::parse("again", &written).expect("reads back"),
            settings
        );
    }

    #[test]
    fn a_wrong_key_or_value_in_a_provider_table_is_named_where_it_is_written() {
        let (line, column, message) = parse_error(&format!("{BUILTIN}imagess = true\n"));
        assert_eq!((line, column), (7, 1), "{message}");
        assert!(message.contains("unknown field `imagess`"), "{message}");
        assert!(
            message.contains("`images`"),
            "the keys that exist: {message}"
        );

        let (line, _, message) = parse_error(&BUILTIN.replace("sha256 = \"ab\"", "sha256 = 3"));
        assert_eq!(line, 6, "{message}");
        assert!(message.contains("expected a string"), "{message}");

        let (_, _, message) = parse_error("[providers.x]\nbase_url = \"http://127.0.0.1:1/v1\"\n");
        assert!(message.contains("missing field `kind`"), "{message}");
    }
}
