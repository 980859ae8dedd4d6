//! The Settings and first-run screens' commands: providers and the model per role (in
//! `settings.toml`), API keys (OS keychain, or the opt-in key file where no keychain runs —
//! never in the settings file), "Test connection", local servers, and the rules in force.

use crate::commands::{CmdResult, blocking, internal, invalid, opened_root};
use crate::state::AppState;
use agent::{
    KeyFile, Keychain, KeychainError, Preset, ProviderSettings, RoleSettings, Settings, StoredKeys,
    locations,
};
use llm::{Provider, ProviderConfig, ProviderKind};
use protocol::{
    KeychainStatus, LocalServer, PolicyRuleView, ProjectArgs, ProviderView, RoleView,
    SaveSettingsArgs, SetApiKeyArgs, SettingsView, TestConnectionArgs,
};
use std::time::Duration;
use tauri::State;

/// Whether the keychain answers here. Blocking.
fn keychain_status() -> KeychainStatus {
    let file_fallback = KeyFile {
        path: locations::key_file(),
    }
    .exists();
    if std::env::var_os("TANDEM_NO_KEYCHAIN").is_some() {
        return KeychainStatus {
            available: false,
            message: Some(
                "The keychain is turned off for this launch (TANDEM_NO_KEYCHAIN).".into(),
            ),
            file_fallback,
        };
    }
    match Keychain.get("tandem-probe") {
        Ok(_) => KeychainStatus {
            available: true,
            message: None,
            file_fallback,
        },
        Err(e) => KeychainStatus {
            available: false,
            message: Some(match e {
                KeychainError::Unavailable(_) => "No keychain service is running on this computer (on Linux: the Secret Service, e.g. GNOME Keyring or KWallet), so keys cannot be kept there.".to_string(),
                KeychainError::Other(m) => format!("The keychain refused: {m}"),
            }),
            file_fallback,
        },
    }
}

/// The settings as the screens show them. Blocking (the keychain).
fn view() -> SettingsView {
    let file = locations::settings_file();
    let (settings, error) = match agent::read_settings(&file) {
        Ok(s) => (s, None),
        Err(e) => (Settings::default(), Some(e.to_string())),
    };
    let preset = Preset::from_env();
    let (preset, error) = match preset {
        Ok(p) => (p, error),
        Err(e) => (None, Some(e.to_string())),
    };
    let keys = StoredKeys::from_env();
    let providers = settings
        .providers
        .iter()
        .map(|(name, p)| {
            let env = p
                .api_key_env
                .clone()
                .unwrap_or_else(|| agent::default_key_env(p.kind).to_string());
            ProviderView {
                name: name.clone(),
                kind: p.kind,
                base_url: p.base_url.clone(),
                num_ctx: p.num_ctx,
                key_source: keys.source(name, &env),
            }
        })
        .collect();
    let roles = agent::ROLES
        .iter()
        .filter_map(|r| {
            settings.roles.get(*r).map(|s| RoleView {
                role: r.to_string(),
                provider: s.provider.clone(),
                model: s.model.clone(),
            })
        })
        .collect();
    SettingsView {
        file: file.display().to_string(),
        providers,
        roles,
        keychain: keychain_status(),
        configured: preset.is_some() || settings.roles.contains_key("default"),
        preset: preset.map(|p| p.describe()),
        error,
    }
}

#[tauri::command]
pub async fn get_settings() -> CmdResult<SettingsView> {
    blocking(|| Ok(view())).await
}

fn write_settings(settings: &Settings) -> CmdResult<()> {
    let path = locations::settings_file();
    let fail = |e: std::io::Error| invalid(format!("{} cannot be written: {e}", path.display()));
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    let tmp = path.with_extension("toml.tmp");
    std::fs::write(&tmp, settings.to_toml()).map_err(fail)?;
    std::fs::rename(&tmp, &path).map_err(fail)
}

#[tauri::command]
pub async fn save_settings(args: SaveSettingsArgs) -> CmdResult<SettingsView> {
    blocking(move || {
        let file = locations::settings_file();
        // Keep what the screen does not edit (key variables, lenient tool calls).
        let old = agent::read_settings(&file).unwrap_or_default();
        let mut settings = Settings::default();
        for p in args.providers {
            let name = p.name.trim().to_string();
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            {
                return Err(invalid(format!(
                    "`{}` cannot be a provider name: use letters, digits, - _ or . (e.g. ollama)",
                    p.name
                )));
            }
            if settings.providers.contains_key(&name) {
                return Err(invalid(format!(
                    "Two providers are named `{name}`; give each its own name."
                )));
            }
            let kept = old.providers.get(&name);
            let base_url = p
                .base_url
                .map(|u| u.trim().trim_end_matches('/').to_string())
                .filter(|u| !u.is_empty());
            if let Some(u) = &base_url
                && !(u.starts_with("http://") || u.starts_with("https://"))
            {
                return Err(invalid(format!(
                    "The URL for {name} must start with http:// or https:// ({u})"
                )));
            }
            settings.providers.insert(
                name,
                ProviderSettings {
                    kind: p.kind,
                    base_url,
                    api_key_env: kept.and_then(|k| k.api_key_env.clone()),
                    num_ctx: p.num_ctx,
                    lenient_tool_calls: kept.and_then(|k| k.lenient_tool_calls),
                    images: kept.and_then(|k| k.images),
                },
            );
        }
        for r in args.roles {
            if r.model.trim().is_empty() {
                continue;
            }
            if !settings.providers.contains_key(&r.provider) {
                return Err(invalid(format!(
                    "The {} role uses the provider `{}`, which is not in the list; add it first.",
                    r.role, r.provider
                )));
            }
            settings.roles.insert(
                r.role.clone(),
                RoleSettings {
                    provider: r.provider,
                    model: r.model.trim().to_string(),
                },
            );
        }
        // Validate exactly as it will be read back.
        Settings::parse(&file.display().to_string(), &settings.to_toml())
            .map_err(|e| invalid(e.to_string()))?;
        write_settings(&settings)?;
        Ok(view())
    })
    .await
}

#[tauri::command]
pub async fn set_api_key(args: SetApiKeyArgs) -> CmdResult<SettingsView> {
    blocking(move || {
        let key = args.key.trim();
        let status = keychain_status();
        if status.available {
            let r = if key.is_empty() {
                Keychain.delete(&args.provider)
            } else {
                Keychain.set(&args.provider, key)
            };
            r.map_err(|e| invalid(format!("The key was not saved: {e}")))?;
        } else if args.allow_file {
            KeyFile {
                path: locations::key_file(),
            }
            .set(&args.provider, key)
            .map_err(|e| invalid(format!("The key was not saved: {e}")))?;
        } else {
            return Err(invalid(format!(
                "{} Choose \"Keep keys in a file only I can read\" to store it in {}, or set the key in the environment before starting Tandem.",
                status.message.unwrap_or_default(),
                locations::key_file().display()
            )));
        }
        Ok(view())
    })
    .await
}

#[tauri::command]
pub async fn test_connection(args: TestConnectionArgs) -> CmdResult<Vec<String>> {
    let kind = args.kind;
    let base = args
        .base_url
        .clone()
        .map(|u| u.trim().trim_end_matches('/').to_string())
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| agent::default_url(kind).to_string());
    let typed = args.api_key.clone().filter(|k| !k.trim().is_empty());
    let provider_name = args.provider.clone();
    let key = match typed {
        Some(k) => Some(k),
        None => {
            blocking(move || {
                let stored = provider_name
                    .and_then(|n| agent::SecretStore::api_key(&StoredKeys::from_env(), &n));
                Ok(stored.or_else(|| std::env::var(agent::default_key_env(kind)).ok()))
            })
            .await?
        }
    };
    let provider = Provider::new(ProviderConfig::new(kind, &base, key)).map_err(internal)?;
    provider.list_models().await.map_err(|e| {
        let failure = agent::failure(&agent::AgentError::Model(e.clone())).code;
        let mut err = invalid(format!("{base} did not answer as expected: {e}."));
        err.failure = Some(failure);
        err
    })
}

async fn probe(name: &str, url: &str) -> Option<LocalServer> {
    let provider = Provider::new(ProviderConfig::new(ProviderKind::OpenAi, url, None)).ok()?;
    let models = tokio::time::timeout(Duration::from_millis(1500), provider.list_models())
        .await
        .ok()?
        .ok()?;
    Some(LocalServer {
        name: name.to_string(),
        base_url: url.to_string(),
        models,
    })
}

/// Local model servers on their default ports: Ollama (11434) and llama.cpp's server (8080),
/// probed at once.
#[tauri::command]
pub async fn detect_local() -> CmdResult<Vec<LocalServer>> {
    let (ollama, llama) = tokio::join!(
        probe("Ollama", "http://127.0.0.1:11434/v1"),
        probe("llama.cpp server", "http://127.0.0.1:8080/v1")
    );
    Ok([ollama, llama].into_iter().flatten().collect())
}

#[tauri::command]
pub async fn policy_rules(
    args: ProjectArgs,
    state: State<'_, AppState>,
) -> CmdResult<Vec<PolicyRuleView>> {
    let root = opened_root(&state, &args.root)?;
    blocking(move || {
        let policy = agent::load_project_policy(root.path(), Some(&locations::user_policy_file()))
            .map_err(|e| invalid(e.to_string()))?;
        Ok(policy
            .lines()
            .into_iter()
            .map(|(rule, source)| PolicyRuleView { rule, source })
            .collect())
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use model_server::{Scenario, ScriptedServer};

    #[tokio::test]
    async fn a_local_server_is_found_with_its_models_and_a_silent_port_is_not() {
        let scenario = Scenario::from_json(
            r#"{"name": "an OpenAI-compatible server that lists two models", "format": "openai", "turns": [], "models": ["qwen2.5-coder:7b", "llama3.2:3b"]}"#,
        )
        .expect("scenario");
        let server = ScriptedServer::start(scenario).await.expect("server");
        let found = probe("Ollama", server.base_url()).await.expect("found");
        assert_eq!(found.models, ["llama3.2:3b", "qwen2.5-coder:7b"]);
        assert_eq!(found.base_url, server.base_url());
        // Nothing listens on the discard port.
        assert_eq!(probe("nobody", "http://127.0.0.1:9/v1").await, None);
    }
}
