//! The Settings and first-run screens' commands: providers and the model per role (in
//! `settings.toml`), the model in use (the window's model picker), API keys (OS keychain, or
//! the opt-in key file where no keychain runs — never in the settings file), "Test
//! connection", local servers, and the rules in force (in words, the user's removable).

use crate::commands::{CmdResult, blocking, internal, invalid, opened_root};
use crate::state::AppState;
use config::{
    KeyFile, Keychain, KeychainError, Preset, PresetSlot, Settings, StoredKeys, locations,
};
use llm::FailureContext;
use llm::{Provider, ProviderConfig, ProviderKind};
use protocol::{
    AddRuleArgs, ConnectionTest, KeychainStatus, LOCAL_SERVERS, LocalServer, ModelInUse,
    ProjectArgs, ProviderModels, ProviderView, RemoveRuleArgs, RoleView, RulesView,
    SaveSettingsArgs, SaveWebSearchArgs, SearchProviderKind, SetApiKeyArgs, SettingsView,
    TestConnectionArgs, TestWebSearchArgs, TrustProjectArgs, UseModelArgs, WebSearchTest,
    WebSearchView,
};
use std::path::Path;
use std::time::Duration;
use tauri::State;

/// How long the model picker waits for one provider's list before showing it as unreachable.
const LIST_MODELS_TIMEOUT: Duration = Duration::from_secs(8);

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
pub(crate) fn view(slot: &PresetSlot) -> SettingsView {
    let file = locations::settings_file();
    let (settings, error) = match config::read_settings(&file) {
        Ok(s) => (s, None),
        Err(e) => (Settings::default(), Some(e.to_string())),
    };
    // A preset that does not parse is reported; one the user replaced is gone from the slot.
    let error = error.or_else(|| Preset::from_env().err().map(|e| e.to_string()));
    let preset = slot.get();
    let keys = StoredKeys::from_env();
    let providers = settings
        .providers
        .iter()
        .map(|(name, p)| {
            let env = p
                .api_key_env
                .clone()
                .unwrap_or_else(|| config::default_key_env(p.kind).to_string());
            ProviderView {
                name: name.clone(),
                kind: p.kind,
                base_url: p.base_url.clone(),
                num_ctx: p.num_ctx,
                lenient_tool_calls: p.lenient_tool_calls,
                small_model: p.small_model,
                key_source: keys.source(name, &env),
            }
        })
        .collect();
    let roles = config::ROLES
        .iter()
        .filter_map(|r| {
            settings.roles.get(*r).map(|s| RoleView {
                role: r.to_string(),
                provider: s.provider.clone(),
                model: s.model.clone(),
            })
        })
        .collect();
    let in_use = match &preset {
        Some(p) => Some(ModelInUse {
            provider: p.provider_name().to_string(),
            model: p.model.clone(),
            preset: true,
        }),
        None => settings.roles.get("default").map(|r| ModelInUse {
            provider: r.provider.clone(),
            model: r.model.clone(),
            preset: false,
        }),
    };
    let web_search = settings.web_search.as_ref().map(|w| {
        let env = w.api_key_env.clone().unwrap_or_else(|| {
            match w.provider {
                SearchProviderKind::Brave => "BRAVE_API_KEY",
                SearchProviderKind::Tavily => "TAVILY_API_KEY",
                SearchProviderKind::Searxng => "SEARXNG_API_KEY",
            }
            .to_string()
        });
        WebSearchView {
            provider: w.provider,
            base_url: w.base_url.clone(),
            key_source: keys.source(config::WEB_SEARCH_KEY, &env),
        }
    });
    SettingsView {
        web_search,
        file: file.display().to_string(),
        providers,
        roles,
        keychain: keychain_status(),
        configured: preset.is_some() || settings.roles.contains_key("default"),
        preset: preset.map(|p| p.describe()),
        in_use,
        error,
    }
}

#[tauri::command]
pub async fn get_settings(slot: State<'_, PresetSlot>) -> CmdResult<SettingsView> {
    let slot = slot.inner().clone();
    blocking(move || Ok(view(&slot))).await
}

pub(crate) fn write_settings(settings: &Settings) -> CmdResult<()> {
    let path = locations::settings_file();
    let fail = |e: std::io::Error| invalid(format!("{} cannot be written: {e}", path.display()));
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    // Whole or not at all: a crash mid-save never leaves half a settings file.
    locations::write_atomically(&path, settings.to_toml().as_bytes()).map_err(fail)
}

#[tauri::command]
pub async fn save_settings(
    args: SaveSettingsArgs,
    slot: State<'_, PresetSlot>,
) -> CmdResult<SettingsView> {
    let slot = slot.inner().clone();
    blocking(move || {
        let file = locations::settings_file();
        // Keep what the screen does not edit (key variables, images).
        let old = config::read_settings(&file).unwrap_or_default();
        let settings = config::settings_from_screen(&old, args, &file.display().to_string())
            .map_err(|e| invalid(e.to_string()))?;
        write_settings(&settings)?;
        // A default chosen here replaces the launch preset, as the screen said it would.
        if settings.roles.get("default") != old.roles.get("default") {
            slot.clear();
        }
        Ok(view(&slot))
    })
    .await
}

#[tauri::command]
pub async fn set_api_key(
    args: SetApiKeyArgs,
    slot: State<'_, PresetSlot>,
) -> CmdResult<SettingsView> {
    let slot = slot.inner().clone();
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
                "{} Tick “Keep keys in a file only I can read” to store it in a file instead.",
                status.message.unwrap_or_default(),
            )));
        }
        Ok(view(&slot))
    })
    .await
}

/// The key for a provider: the one typed, else the one stored for it, else the environment's.
/// Blocking (the keychain).
fn key_for(kind: ProviderKind, typed: Option<String>, provider: Option<&str>) -> Option<String> {
    typed.filter(|k| !k.trim().is_empty()).or_else(|| {
        provider
            .and_then(|n| config::SecretStore::api_key(&StoredKeys::from_env(), n))
            .or_else(|| std::env::var(config::default_key_env(kind)).ok())
    })
}

/// The built-in model's answer to Connect: its one model when its file is there, else "not
/// downloaded yet" (it said "Connected — 1 model", and using it "cannot run on this computer").
fn builtin_connection(present: bool, file: &Path) -> ConnectionTest {
    if present {
        return ConnectionTest::Connected {
            models: vec![llm::BUILTIN_MODEL.to_string()],
        };
    }
    ConnectionTest::Failed {
        error: llm::model_failure(
            &llm::LlmError::BuiltinNotDownloaded(file.display().to_string()),
            FailureContext::default(),
        ),
    }
}

/// The models a server lists, or what went wrong in words.
async fn models_of(kind: ProviderKind, base: &str, key: Option<String>) -> ConnectionTest {
    // One model, on this computer: nothing to ask, but whether it has its file yet (the
    // rest of its problems show in builtin_status).
    if kind == ProviderKind::Builtin {
        let present = blocking(|| Ok(crate::builtin_host::model_file_present()))
            .await
            .unwrap_or(false);
        return builtin_connection(present, &config::default_model_path());
    }
    let at = FailureContext {
        server: Some(base),
        model: None,
    };
    let listed = match Provider::new(ProviderConfig::new(kind, base, key)) {
        Ok(provider) => tokio::time::timeout(LIST_MODELS_TIMEOUT, provider.list_models())
            .await
            .unwrap_or_else(|_| {
                Err(llm::LlmError::Connect {
                    cause: llm::ConnectCause::TimedOut,
                    detail: format!("no answer in {} s", LIST_MODELS_TIMEOUT.as_secs()),
                })
            }),
        Err(e) => Err(e),
    };
    match listed {
        Ok(models) => ConnectionTest::Connected { models },
        Err(e) => ConnectionTest::Failed {
            error: llm::model_failure(&e, at),
        },
    }
}

fn base_of(kind: ProviderKind, typed: Option<&str>) -> String {
    typed
        .map(|u| u.trim().trim_end_matches('/').to_string())
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| config::default_url(kind).to_string())
}

/// "Test connection": the models the server lists, or why not, in words.
#[tauri::command]
pub async fn test_connection(args: TestConnectionArgs) -> CmdResult<ConnectionTest> {
    let kind = args.kind;
    let base = base_of(kind, args.base_url.as_deref());
    let (typed, provider) = (args.api_key.clone(), args.provider.clone());
    let key = blocking(move || Ok(key_for(kind, typed, provider.as_deref()))).await?;
    Ok(models_of(kind, &base, key).await)
}

/// Every configured provider's models, asked at once, for the model picker.
#[tauri::command]
pub async fn provider_models() -> CmdResult<Vec<ProviderModels>> {
    let settings = blocking(|| {
        config::read_settings(&locations::settings_file()).map_err(|e| invalid(e.to_string()))
    })
    .await?;
    // Asked at once, so one slow server does not hold up the others' lists.
    let asks: Vec<_> = settings
        .providers
        .into_iter()
        .map(|(name, p)| {
            tauri::async_runtime::spawn(async move {
                let kind = p.kind;
                let base = base_of(kind, p.base_url.as_deref());
                let n = name.clone();
                let key = blocking(move || Ok(key_for(kind, None, Some(&n))))
                    .await
                    .ok()
                    .flatten();
                let (models, error) = match models_of(kind, &base, key).await {
                    ConnectionTest::Connected { models } => (models, None),
                    ConnectionTest::Failed { error } => (Vec::new(), Some(error)),
                };
                ProviderModels {
                    provider: name,
                    models,
                    error,
                }
            })
        })
        .collect();
    let mut out = Vec::with_capacity(asks.len());
    for ask in asks {
        out.push(ask.await.map_err(internal)?);
    }
    Ok(out)
}

/// Makes a provider's model the one new turns use: the default role in the settings file
/// (replacing a launch preset for the rest of this run).
#[tauri::command]
pub async fn use_model(args: UseModelArgs, slot: State<'_, PresetSlot>) -> CmdResult<SettingsView> {
    let slot = slot.inner().clone();
    blocking(move || {
        let file = locations::settings_file();
        let mut settings = config::read_settings(&file).map_err(|e| invalid(e.to_string()))?;
        config::with_default_model(&mut settings, args.provider, &args.model)
            .map_err(|e| invalid(e.to_string()))?;
        write_settings(&settings)?;
        slot.clear();
        Ok(view(&slot))
    })
    .await
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

/// Local model servers at their usual addresses (Ollama, llama.cpp's server, LM Studio),
/// probed at once.
#[tauri::command]
pub async fn detect_local() -> CmdResult<Vec<LocalServer>> {
    let probes = LOCAL_SERVERS.map(|(name, url)| tokio::spawn(probe(name, url)));
    let mut found = Vec::new();
    for p in probes {
        if let Ok(Some(server)) = p.await {
            found.push(server);
        }
    }
    Ok(found)
}

#[tauri::command]
pub async fn policy_rules(args: ProjectArgs, state: State<'_, AppState>) -> CmdResult<RulesView> {
    let root = opened_root(&state, &args.root)?;
    blocking(move || {
        config::rules_view(root.path(), &locations::user_policy_file())
            .map_err(|e| invalid(format!("The rules cannot be read: {e}")))
    })
    .await
}

/// Removes one of the user's rules (from their file or the project's), then lists the rules
/// again. Sessions read the rules when they start: a running one keeps what it had.
#[tauri::command]
pub async fn remove_rule(args: RemoveRuleArgs, state: State<'_, AppState>) -> CmdResult<RulesView> {
    let root = opened_root(&state, &args.root)?;
    blocking(move || {
        let user_file = locations::user_policy_file();
        config::remove_rule_from_file(root.path(), &user_file, &args.rule)
            .map_err(|e| invalid(format!("The rule was not removed: {e}")))?;
        config::rules_view(root.path(), &user_file)
            .map_err(|e| invalid(format!("The rules cannot be read: {e}")))
    })
    .await
}

/// Adds one of the user's rules (or changes one: `replacing` goes in the same write), then
/// lists the rules again. Sessions read the rules when they start.
#[tauri::command]
pub async fn add_rule(args: AddRuleArgs, state: State<'_, AppState>) -> CmdResult<RulesView> {
    let root = opened_root(&state, &args.root)?;
    blocking(move || {
        let user_file = locations::user_policy_file();
        config::add_rule_to_file(root.path(), &user_file, &args.rule, args.replacing.as_ref())
            .map_err(|e| invalid(format!("The rule was not saved: {e}")))?;
        config::rules_view(root.path(), &user_file)
            .map_err(|e| invalid(format!("The rules cannot be read: {e}")))
    })
    .await
}

/// Sets one default (the mode new sessions start in, a limit on a session's changes) in your
/// own rules file, then lists the rules again: what is in force may be the project's stricter
/// value.
#[tauri::command]
pub async fn set_policy_default(
    args: protocol::SetPolicyDefaultArgs,
    state: State<'_, AppState>,
) -> CmdResult<RulesView> {
    let root = opened_root(&state, &args.root)?;
    blocking(move || {
        let user_file = locations::user_policy_file();
        config::set_default_in_file(root.path(), &user_file, args.setting)
            .map_err(|e| invalid(format!("The default was not saved: {e}")))?;
        config::rules_view(root.path(), &user_file)
            .map_err(|e| invalid(format!("The rules cannot be read: {e}")))
    })
    .await
}

/// Trusts the open project's own rules file, or stops trusting it (your file's
/// `trusted_projects`), then lists the rules again.
#[tauri::command]
pub async fn trust_project(
    args: TrustProjectArgs,
    state: State<'_, AppState>,
) -> CmdResult<RulesView> {
    let root = opened_root(&state, &args.root)?;
    blocking(move || {
        let user_file = locations::user_policy_file();
        config::set_project_trusted(root.path(), &user_file, args.trusted)
            .map_err(|e| invalid(format!("The project's trust was not changed: {e}")))?;
        config::rules_view(root.path(), &user_file)
            .map_err(|e| invalid(format!("The rules cannot be read: {e}")))
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use model_server::{Scenario, ScriptedServer};

    #[test]
    fn the_built_in_model_without_its_file_is_not_downloaded_yet() {
        let file = Path::new("/nowhere/models/qwen.gguf");
        let ConnectionTest::Failed { error } = builtin_connection(false, file) else {
            panic!("no file is no connection");
        };
        assert_eq!(error.code, protocol::FailureCode::BuiltinNotDownloaded);
        assert!(
            error.message.contains("not downloaded yet"),
            "{}",
            error.message
        );
        assert!(!error.message.contains("cannot run"), "{}", error.message);
        assert!(matches!(
            builtin_connection(true, file),
            ConnectionTest::Connected { models } if models.len() == 1
        ));
    }

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

/// Sets (or turns off) where `web_search` searches, keeping everything else in the file.
#[tauri::command]
pub async fn save_web_search(
    args: SaveWebSearchArgs,
    slot: State<'_, PresetSlot>,
) -> CmdResult<SettingsView> {
    let slot = slot.inner().clone();
    blocking(move || {
        let file = locations::settings_file();
        let mut settings = config::read_settings(&file).map_err(|e| invalid(e.to_string()))?;
        config::with_web_search(&mut settings, args.provider, args.base_url)
            .map_err(|e| invalid(e.to_string()))?;
        write_settings(&settings)?;
        Ok(view(&slot))
    })
    .await
}

/// One search for "Tandem" through the provider, to see that address and key work.
#[tauri::command]
pub async fn test_web_search(args: TestWebSearchArgs) -> CmdResult<WebSearchTest> {
    let typed = args.api_key.filter(|k| !k.trim().is_empty());
    let settings = config::WebSearchSettings {
        provider: args.provider,
        base_url: args
            .base_url
            .map(|u| u.trim().trim_end_matches('/').to_string())
            .filter(|u| !u.is_empty()),
        api_key_env: None,
    };
    let provider = blocking(move || {
        let env = |n: &str| std::env::var(n).ok();
        Ok(match typed {
            Some(key) => {
                let typed = config::MemorySecrets(
                    [(config::WEB_SEARCH_KEY.to_string(), key)]
                        .into_iter()
                        .collect(),
                );
                settings.provider(&typed, &env)
            }
            None => settings.provider(&StoredKeys::from_env(), &env),
        })
    })
    .await?;
    let provider = match provider {
        Ok(p) => p,
        Err(e) => {
            return Ok(WebSearchTest {
                ok: false,
                message: match e {
                    config::SettingsError::NoKey { .. } => {
                        "Type the API key first: this search service needs one.".into()
                    }
                    other => other.to_string(),
                },
                titles: Vec::new(),
            });
        }
    };
    let dir = std::env::temp_dir().join("tandem-web-search-test");
    let mut config = tools::WebConfig::new(dir);
    config.search = Some(provider);
    let query = tools::WebSearchArgs {
        query: "Tandem coding agent".into(),
        count: Some(3),
        freshness: None,
        country: None,
    };
    Ok(match tools::web_search(&config, &query).await {
        Ok(hits) if hits.is_empty() => WebSearchTest {
            ok: true,
            message: "Connected, but the search found nothing.".into(),
            titles: Vec::new(),
        },
        Ok(hits) => WebSearchTest {
            ok: true,
            message: format!("Connected: {} results.", hits.len()),
            titles: hits.into_iter().map(|h| h.title).collect(),
        },
        Err(e) => WebSearchTest {
            ok: false,
            message: e.to_string(),
            titles: Vec::new(),
        },
    })
}
