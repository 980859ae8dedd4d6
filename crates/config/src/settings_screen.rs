//! What the Settings screen saves, turned into the settings file's contents: the providers and
//! roles it edits, checked (names, addresses, roles that name a listed provider), and what the
//! screen does not edit kept from the file as it was (key variables, images, the built-in
//! model's file, web search, skills). Here, not in the window's shell, so every front end saves
//! settings by the same rules.

use crate::settings::{ModelFile, ProviderSettings, RoleSettings, Settings, WebSearchSettings};
use llm::{FailureContext, model_failure};
use protocol::{SaveSettingsArgs, SearchProviderKind};

/// Why the screen's settings cannot be saved, in words for people.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ScreenSettingsError {
    #[error("“{0}” cannot be a provider name: use letters, digits, - _ or . (for example ollama).")]
    BadName(String),
    #[error("Two providers are named “{0}”; give each its own name.")]
    TwoNamed(String),
    /// The address cannot be used; `words` say why and what to do.
    #[error("{provider}: {words}")]
    BadAddress { provider: String, words: String },
    #[error(
        "The {role} model uses the provider “{provider}”, which is not in the list; add it first."
    )]
    UnknownProvider { role: String, provider: String },
    /// The result would not read back (checked exactly as it will be read).
    #[error("{0}")]
    WouldNotRead(String),
    #[error("“{0}” is not set up any more; add it in Settings first.")]
    GoneProvider(String),
    #[error("Choose a model first.")]
    NoModel,
    /// The web search's address cannot be used; `words` say why and what to do.
    #[error("Web search: {0}")]
    BadSearchAddress(String),
    #[error("SearXNG runs on a server of your own: give its address, e.g. http://127.0.0.1:8888.")]
    SearxngWithoutAddress,
    #[error(
        "The built-in model is not downloaded yet: download it first, or choose a GGUF file you have."
    )]
    BuiltinNotDownloaded,
    #[error("{0} is not a GGUF model file.")]
    NotGguf(String),
    #[error("{file} cannot be read: {why}")]
    Unreadable { file: String, why: String },
}

/// The provider name the built-in model is set up under.
pub const BUILTIN_PROVIDER: &str = "builtin";

/// Makes the built-in model serve the default role: from `model_path` (a GGUF file the person
/// chose) or the downloaded one, which must exist and be a GGUF file. What was set for the
/// built-in provider before (its context size, small-model switch, download) is kept.
pub fn with_builtin_model(
    settings: &mut Settings,
    model_path: Option<String>,
) -> Result<(), ScreenSettingsError> {
    let own = model_path
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty());
    let file = match &own {
        Some(p) => std::path::PathBuf::from(p),
        None => crate::launch::default_model_path(),
    };
    if own.is_none() && !file.is_file() {
        return Err(ScreenSettingsError::BuiltinNotDownloaded);
    }
    check_gguf(&file)?;
    let kept = settings.providers.remove(BUILTIN_PROVIDER);
    settings.providers.insert(
        BUILTIN_PROVIDER.to_string(),
        ProviderSettings {
            kind: llm::ProviderKind::Builtin,
            base_url: None,
            api_key_env: None,
            num_ctx: kept.as_ref().and_then(|k| k.num_ctx),
            lenient_tool_calls: None,
            images: None,
            small_model: kept.as_ref().and_then(|k| k.small_model),
            documents: None,
            file: ModelFile {
                model_path: own,
                ..kept.map(|k| k.file).unwrap_or_default()
            },
        },
    );
    settings.roles.insert(
        "default".into(),
        RoleSettings {
            provider: BUILTIN_PROVIDER.into(),
            model: llm::BUILTIN_MODEL.into(),
        },
    );
    Ok(())
}

/// A GGUF file the model can be loaded from: it exists and starts with the GGUF magic.
fn check_gguf(path: &std::path::Path) -> Result<(), ScreenSettingsError> {
    use std::io::Read as _;
    let mut magic = [0u8; 4];
    let read = std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut magic));
    match read {
        Ok(()) if &magic == b"GGUF" => Ok(()),
        Ok(()) => Err(ScreenSettingsError::NotGguf(path.display().to_string())),
        Err(e) => Err(ScreenSettingsError::Unreadable {
            file: path.display().to_string(),
            why: e.to_string(),
        }),
    }
}

/// Makes `provider`'s `model` the one new turns use: the default role.
pub fn with_default_model(
    settings: &mut Settings,
    provider: String,
    model: &str,
) -> Result<(), ScreenSettingsError> {
    if !settings.providers.contains_key(&provider) {
        return Err(ScreenSettingsError::GoneProvider(provider));
    }
    if model.trim().is_empty() {
        return Err(ScreenSettingsError::NoModel);
    }
    settings.roles.insert(
        "default".into(),
        RoleSettings {
            provider,
            model: model.trim().to_string(),
        },
    );
    Ok(())
}

/// The web search the Settings screen chose (`None`: none), its address checked; a key
/// variable named for the same provider is kept.
pub fn with_web_search(
    settings: &mut Settings,
    provider: Option<SearchProviderKind>,
    base_url: Option<String>,
) -> Result<(), ScreenSettingsError> {
    let base_url = base_url
        .map(|u| u.trim().trim_end_matches('/').to_string())
        .filter(|u| !u.is_empty());
    if let Some(u) = &base_url
        && let Err(e) = llm::check_address(u)
    {
        let words = model_failure(&e, FailureContext::default());
        return Err(ScreenSettingsError::BadSearchAddress(words.message));
    }
    settings.web_search = match provider {
        None => None,
        Some(SearchProviderKind::Searxng) if base_url.is_none() => {
            return Err(ScreenSettingsError::SearxngWithoutAddress);
        }
        Some(provider) => Some(WebSearchSettings {
            provider,
            base_url,
            api_key_env: settings
                .web_search
                .as_ref()
                .filter(|w| w.provider == provider)
                .and_then(|w| w.api_key_env.clone()),
        }),
    };
    Ok(())
}

/// The settings to write for what the screen saved over `old`; `file` names the settings file
/// in errors.
pub fn settings_from_screen(
    old: &Settings,
    args: SaveSettingsArgs,
    file: &str,
) -> Result<Settings, ScreenSettingsError> {
    let mut settings = Settings {
        web_search: old.web_search.clone(),
        skills: old.skills.clone(),
        ..Settings::default()
    };
    for p in args.providers {
        let name = p.name.trim().to_string();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        {
            return Err(ScreenSettingsError::BadName(p.name));
        }
        if settings.providers.contains_key(&name) {
            return Err(ScreenSettingsError::TwoNamed(name));
        }
        let kept = old.providers.get(&name);
        let base_url = p
            .base_url
            .map(|u| u.trim().trim_end_matches('/').to_string())
            .filter(|u| !u.is_empty());
        if let Some(u) = &base_url
            && let Err(e) = llm::check_address(u)
        {
            return Err(ScreenSettingsError::BadAddress {
                provider: name,
                words: model_failure(&e, FailureContext::default()).message,
            });
        }
        settings.providers.insert(
            name,
            ProviderSettings {
                kind: p.kind,
                base_url,
                api_key_env: kept.and_then(|k| k.api_key_env.clone()),
                num_ctx: p.num_ctx,
                lenient_tool_calls: p.lenient_tool_calls,
                small_model: p.small_model,
                images: kept.and_then(|k| k.images),
                documents: kept.and_then(|k| k.documents),
                file: kept.map(|k| k.file.clone()).unwrap_or_default(),
            },
        );
    }
    for r in args.roles {
        if r.model.trim().is_empty() {
            continue;
        }
        if !settings.providers.contains_key(&r.provider) {
            return Err(ScreenSettingsError::UnknownProvider {
                role: r.role,
                provider: r.provider,
            });
        }
        settings.roles.insert(
            r.role.clone(),
            RoleSettings {
                provider: r.provider,
                model: r.model.trim().to_string(),
            },
        );
    }
    Settings::parse(file, &settings.to_toml())
        .map_err(|e| ScreenSettingsError::WouldNotRead(e.to_string()))?;
    Ok(settings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::{ProviderInput, ProviderKind, RoleView};

    fn provider(name: &str, url: Option<&str>) -> ProviderInput {
        ProviderInput {
            name: name.into(),
            kind: ProviderKind::OpenAi,
            base_url: url.map(str::to_string),
            num_ctx: None,
            lenient_tool_calls: None,
            small_model: None,
        }
    }

    fn role(provider: &str, model: &str) -> RoleView {
        RoleView {
            role: "default".into(),
            provider: provider.into(),
            model: model.into(),
        }
    }

    fn save(
        old: &Settings,
        providers: Vec<ProviderInput>,
        roles: Vec<RoleView>,
    ) -> Result<Settings, ScreenSettingsError> {
        settings_from_screen(old, SaveSettingsArgs { providers, roles }, "settings.toml")
    }

    #[test]
    fn what_the_screen_does_not_edit_is_kept() {
        let old = Settings::parse(
            "settings.toml",
            "[providers.local]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:8080/v1\"\napi_key_env = \"LOCAL_KEY\"\nimages = true\n",
        )
        .expect("old");
        let new = save(
            &old,
            vec![provider(" local ", Some("http://127.0.0.1:9090/v1/"))],
            vec![role("local", " qwen "), role("local", "")],
        )
        .expect("saved");
        let local = &new.providers["local"];
        assert_eq!(local.base_url.as_deref(), Some("http://127.0.0.1:9090/v1"));
        assert_eq!(local.api_key_env.as_deref(), Some("LOCAL_KEY"));
        assert_eq!(local.images, Some(true));
        assert_eq!(new.roles["default"].model, "qwen");
    }

    #[test]
    fn names_addresses_and_roles_are_checked_in_words() {
        let old = Settings::default();
        assert_eq!(
            save(&old, vec![provider("my server", None)], vec![]),
            Err(ScreenSettingsError::BadName("my server".into()))
        );
        assert_eq!(
            save(&old, vec![provider("a", None), provider("a", None)], vec![]),
            Err(ScreenSettingsError::TwoNamed("a".into()))
        );
        let Err(ScreenSettingsError::BadAddress { provider: p, words }) =
            save(&old, vec![provider("a", Some("127.0.0.1:8080/v1"))], vec![])
        else {
            panic!("an address without http:// is refused");
        };
        assert_eq!(p, "a");
        assert!(words.contains("http://"), "{words}");
        assert_eq!(
            save(&old, vec![provider("a", None)], vec![role("b", "m")]).map_err(|e| e.to_string()),
            Err(
                "The default model uses the provider “b”, which is not in the list; add it first."
                    .into()
            )
        );
    }

    #[test]
    fn the_default_model_names_a_listed_provider_and_a_model() {
        let mut settings = Settings::default();
        assert_eq!(
            with_default_model(&mut settings, "gone".into(), "m"),
            Err(ScreenSettingsError::GoneProvider("gone".into()))
        );
        settings.providers.insert(
            "local".into(),
            toml::from_str("kind = \"openai\"\nbase_url = \"http://127.0.0.1:11434/v1\"")
                .expect("provider"),
        );
        assert_eq!(
            with_default_model(&mut settings, "local".into(), "  "),
            Err(ScreenSettingsError::NoModel)
        );
        with_default_model(&mut settings, "local".into(), " qwen ").expect("saved");
        assert_eq!(settings.roles["default"].model, "qwen");
    }

    #[test]
    fn a_web_search_needs_a_usable_address_and_keeps_its_key_variable() {
        let mut settings = Settings::default();
        assert_eq!(
            with_web_search(
                &mut settings,
                Some(SearchProviderKind::Searxng),
                Some(" / ".into())
            ),
            Err(ScreenSettingsError::SearxngWithoutAddress)
        );
        assert!(matches!(
            with_web_search(
                &mut settings,
                Some(SearchProviderKind::Searxng),
                Some("searx.local".into())
            ),
            Err(ScreenSettingsError::BadSearchAddress(_))
        ));
        settings.web_search = Some(WebSearchSettings {
            provider: SearchProviderKind::Brave,
            base_url: None,
            api_key_env: Some("MY_BRAVE_KEY".into()),
        });
        with_web_search(&mut settings, Some(SearchProviderKind::Brave), None).expect("saved");
        let web = settings.web_search.clone().expect("web search");
        assert_eq!(web.api_key_env.as_deref(), Some("MY_BRAVE_KEY"));
        with_web_search(
            &mut settings,
            Some(SearchProviderKind::Searxng),
            Some("http://127.0.0.1:8888/".into()),
        )
        .expect("saved");
        let web = settings.web_search.clone().expect("web search");
        assert_eq!(web.base_url.as_deref(), Some("http://127.0.0.1:8888"));
        assert_eq!(web.api_key_env, None);
        with_web_search(&mut settings, None, None).expect("saved");
        assert!(settings.web_search.is_none());
    }

    #[test]
    fn the_built_in_model_needs_a_gguf_file_and_keeps_its_provider_settings() {
        let dir = tempfile::tempdir().expect("tempdir");
        let text = dir.path().join("notes.txt");
        std::fs::write(&text, "not a model").expect("write");
        let model = dir.path().join("m.gguf");
        std::fs::write(&model, b"GGUF\x03\x00\x00\x00").expect("write");
        let mut settings = Settings::default();
        let path = |p: &std::path::Path| Some(p.display().to_string());
        assert!(matches!(
            with_builtin_model(&mut settings, path(&text)),
            Err(ScreenSettingsError::NotGguf(_))
        ));
        assert!(matches!(
            with_builtin_model(&mut settings, path(&dir.path().join("gone.gguf"))),
            Err(ScreenSettingsError::Unreadable { .. })
        ));
        settings.providers.insert(
            BUILTIN_PROVIDER.into(),
            toml::from_str("kind = \"builtin\"\nnum_ctx = 8192").expect("provider"),
        );
        with_builtin_model(&mut settings, path(&model)).expect("saved");
        let p = &settings.providers[BUILTIN_PROVIDER];
        assert_eq!(p.num_ctx, Some(8192));
        assert_eq!(p.file.model_path, path(&model));
        assert_eq!(settings.roles["default"].provider, BUILTIN_PROVIDER);
    }
}
