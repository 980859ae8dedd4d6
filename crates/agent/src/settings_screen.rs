//! What the Settings screen saves, turned into the settings file's contents: the providers and
//! roles it edits, checked (names, addresses, roles that name a listed provider), and what the
//! screen does not edit kept from the file as it was (key variables, images, the built-in
//! model's file, web search, skills). Here, not in the window's shell, so every front end saves
//! settings by the same rules.

use crate::failure::{FailureContext, model_failure};
use crate::settings::{ProviderSettings, RoleSettings, Settings};
use protocol::SaveSettingsArgs;

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
                model_path: kept.and_then(|k| k.model_path.clone()),
                download_url: kept.and_then(|k| k.download_url.clone()),
                sha256: kept.and_then(|k| k.sha256.clone()),
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
}
