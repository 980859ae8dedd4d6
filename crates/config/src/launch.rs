//! Everything a front end needs to start the agent on a project, shared by the desktop app and
//! `tandem-cli`: which provider and model (a launch preset, else the settings file), where the
//! API key comes from (keychain, then the opt-in key file, then the environment) and the
//! project's policy (the user's rules plus the project's, which may only tighten).

use crate::keychain::Keychain;
use crate::locations;
use crate::settings::{
    SecretStore, Settings, SettingsError, default_key_env, default_url, is_loopback,
};
use llm::{LlmError, ProviderConfig, ProviderKind};
use policy::{Policy, RuleText};
use protocol::{EngineError, FailureCode};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error(transparent)]
    Settings(#[from] SettingsError),
    #[error(
        "no model provider is set up: choose one in Settings (or write {0}, or launch with TANDEM_PROVIDER and TANDEM_MODEL)"
    )]
    NoProvider(String),
    #[error("TANDEM_PROVIDER must be {kinds}, not `{0}`", kinds = preset_names())]
    BadPreset(String),
    #[error("TANDEM_PROVIDER is set but TANDEM_MODEL is not; set the model too")]
    PresetWithoutModel,
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the rules do not load: {0}")]
    Policy(#[from] policy::PolicyError),
    #[error("{path} is not a valid key file: {message}")]
    KeyFile { path: PathBuf, message: String },
}

/// The names a launch may give a provider kind, for its error: "`anthropic`, `openai` or
/// `builtin`".
fn preset_names() -> String {
    let names: Vec<String> = ProviderKind::all()
        .map(|k| format!("`{}`", k.name()))
        .collect();
    match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// A provider chosen at launch by `TANDEM_PROVIDER`, `TANDEM_BASE_URL` and `TANDEM_MODEL`
/// (tests and scripted launches); it wins over the settings file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preset {
    pub kind: ProviderKind,
    pub base_url: String,
    pub model: String,
    /// The built-in model's file (`TANDEM_MODEL_PATH`, `--model-path`); unset, the downloaded
    /// one.
    pub model_path: Option<PathBuf>,
}

impl Preset {
    pub fn from_env() -> Result<Option<Preset>, LaunchError> {
        let get = |n: &str| std::env::var(n).ok().filter(|v| !v.trim().is_empty());
        let Some(name) = get("TANDEM_PROVIDER") else {
            return Ok(None);
        };
        let kind = ProviderKind::from_alias(&name).ok_or(LaunchError::BadPreset(name))?;
        if kind == ProviderKind::Builtin {
            return Ok(Some(Preset {
                kind,
                base_url: String::new(),
                model: get("TANDEM_MODEL").unwrap_or_else(|| llm::BUILTIN_MODEL.to_string()),
                model_path: get("TANDEM_MODEL_PATH").map(PathBuf::from),
            }));
        }
        let base_url = get("TANDEM_BASE_URL").unwrap_or_else(|| default_url(kind).to_string());
        let model = get("TANDEM_MODEL").ok_or(LaunchError::PresetWithoutModel)?;
        Ok(Some(Preset {
            kind,
            base_url,
            model,
            model_path: None,
        }))
    }

    /// The provider name its key is stored under.
    pub fn provider_name(&self) -> &'static str {
        self.kind.name()
    }

    pub fn describe(&self) -> String {
        if self.kind == ProviderKind::Builtin {
            return format!(
                "the built-in model ({}) (set at launch)",
                self.model_path
                    .clone()
                    .unwrap_or_else(default_model_path)
                    .display()
            );
        }
        format!(
            "{} at {} with {} (set by TANDEM_PROVIDER at launch)",
            self.provider_name(),
            self.base_url,
            self.model
        )
    }
}

/// A model as the settings map a role to it.
pub struct ResolvedModel {
    pub provider: llm::Provider,
    pub model: String,
    /// The role had no model of its own and the default one is used.
    pub fell_back: bool,
}

/// Finds the provider and model for a role (`default`, `fast`, `coder`, `architect`).
pub type ProviderResolver =
    std::sync::Arc<dyn Fn(&str) -> Result<ResolvedModel, EngineError> + Send + Sync>;

/// The launch preset, shared by every session of one run of a front end: it wins over the
/// settings file until the user picks a model in the window (then the settings hold).
#[derive(Debug, Clone, Default)]
pub struct PresetSlot(std::sync::Arc<std::sync::Mutex<Option<Preset>>>);

impl PresetSlot {
    pub fn new(preset: Option<Preset>) -> Self {
        PresetSlot(std::sync::Arc::new(std::sync::Mutex::new(preset)))
    }

    pub fn get(&self) -> Option<Preset> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The user chose a model: the settings file decides from now on.
    pub fn clear(&self) {
        *self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = None;
    }
}

/// Keys in a TOML file only the user can read (0600): the opt-in fallback where no keychain
/// service runs. Never used unless the user chose it.
pub struct KeyFile {
    pub path: PathBuf,
}

impl KeyFile {
    pub fn read(&self) -> Result<BTreeMap<String, String>, LaunchError> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => toml::from_str(&text).map_err(|e| LaunchError::KeyFile {
                path: self.path.clone(),
                message: e.message().to_string(),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
            Err(source) => Err(LaunchError::Io {
                path: self.path.clone(),
                source,
            }),
        }
    }

    /// Sets (or, with an empty key, removes) a provider's key.
    pub fn set(&self, provider: &str, key: &str) -> Result<(), LaunchError> {
        let mut keys = self.read()?;
        if key.is_empty() {
            keys.remove(provider);
        } else {
            keys.insert(provider.to_string(), key.to_string());
        }
        let io = |source| LaunchError::Io {
            path: self.path.clone(),
            source,
        };
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let text = toml::to_string(&keys).unwrap_or_default();
        let tmp = self.path.with_extension("toml.tmp");
        write_private(&tmp, &text).map_err(io)?;
        std::fs::rename(&tmp, &self.path).map_err(io)
    }

    pub fn exists(&self) -> bool {
        self.path.exists()
    }
}

#[cfg(unix)]
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let _ = std::fs::remove_file(path);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    f.write_all(text.as_bytes())?;
    f.sync_all()
}

#[cfg(not(unix))]
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    std::fs::write(path, text)
}

/// Stored keys: the OS keychain (unless `TANDEM_NO_KEYCHAIN` is set), then the opt-in key file.
pub struct StoredKeys {
    pub keychain: bool,
    pub file: KeyFile,
}

impl StoredKeys {
    pub fn from_env() -> Self {
        StoredKeys {
            keychain: std::env::var_os("TANDEM_NO_KEYCHAIN").is_none(),
            file: KeyFile {
                path: locations::key_file(),
            },
        }
    }

    /// Where a provider's key comes from, for the Settings screen (never the key itself).
    pub fn source(&self, provider: &str, env_name: &str) -> Option<String> {
        if self.keychain && Keychain.get(provider).ok().flatten().is_some() {
            return Some("keychain".into());
        }
        if self
            .file
            .read()
            .ok()
            .is_some_and(|k| k.contains_key(provider))
        {
            return Some(format!("file ({})", self.file.path.display()));
        }
        std::env::var(env_name)
            .ok()
            .filter(|k| !k.trim().is_empty())
            .map(|_| format!("environment ({env_name})"))
    }
}

impl SecretStore for StoredKeys {
    fn api_key(&self, provider: &str) -> Option<String> {
        if self.keychain
            && let Some(k) = Keychain.api_key(provider)
        {
            return Some(k);
        }
        self.file.read().ok().and_then(|mut k| k.remove(provider))
    }
}

/// Rules and settings files are small; a bigger one is refused rather than read whole.
const CONFIG_FILE_CAP: u64 = 4 * 1024 * 1024;

/// Reads the settings file; a missing file is empty settings.
pub fn read_settings(path: &Path) -> Result<Settings, LaunchError> {
    match tools::read_config_text(path, CONFIG_FILE_CAP) {
        Ok(Some(text)) => Ok(Settings::parse(&path.display().to_string(), &text)?),
        Ok(None) => Ok(Settings::default()),
        Err(source) => Err(LaunchError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// The provider and model for a role: the launch preset when there is one, else the settings
/// file. Blocking (the keychain): async callers use `spawn_blocking`.
pub fn choose_provider(
    preset: Option<&Preset>,
    settings_path: &Path,
    role: &str,
    secrets: &dyn SecretStore,
) -> Result<(ProviderConfig, String), LaunchError> {
    let env = |name: &str| std::env::var(name).ok();
    if let Some(p) = preset
        && p.kind == ProviderKind::Builtin
    {
        let mut config = ProviderConfig::new(p.kind, "", None);
        config.model_path = p.model_path.clone();
        return Ok((config, p.model.clone()));
    }
    if let Some(p) = preset {
        let key = env(default_key_env(p.kind))
            .or_else(|| secrets.api_key(p.provider_name()))
            .filter(|k| !k.trim().is_empty());
        llm::check_address(&p.base_url).map_err(SettingsError::BadAddress)?;
        if key.is_none() && !is_loopback(&p.base_url) {
            return Err(SettingsError::NoKey {
                provider: p.provider_name().into(),
                env: default_key_env(p.kind).into(),
            }
            .into());
        }
        return Ok((
            ProviderConfig::new(p.kind, &p.base_url, key),
            p.model.clone(),
        ));
    }
    let settings = read_settings(settings_path)?;
    if settings.roles.is_empty() {
        return Err(LaunchError::NoProvider(settings_path.display().to_string()));
    }
    Ok(settings.resolve(role, secrets, &env)?)
}

/// The session's way to its models: the launch preset (while there is one) for the default
/// role, the settings file for every role it names, the default for the others (and the
/// result says so). Each call reads the settings again: they may change between turns.
/// Blocking (the keychain): the session calls it off the async threads.
pub fn provider_resolver(
    preset: PresetSlot,
    settings_path: std::path::PathBuf,
    builtin: BuiltinLoader,
) -> ProviderResolver {
    std::sync::Arc::new(move |role: &str| {
        let preset = preset.get();
        let fail = |e: LaunchError| launch_failure(&e);
        // A launch preset comes first (the README says so): a settings file with a mistake
        // must not stop a run given --provider and --model. Roles it names cannot be read
        // then, and fall back to the preset.
        let named = match read_settings(&settings_path) {
            Ok(settings) => settings.roles.contains_key(role),
            Err(e) if preset.is_some() => {
                tracing::warn!(%e, "the settings file cannot be read; the launch's model serves every role");
                false
            }
            Err(e) => return Err(fail(e)),
        };
        let keys = StoredKeys::from_env();
        let (config, model) = if preset.is_some() && (role == "default" || !named) {
            choose_provider(preset.as_ref(), &settings_path, "default", &keys)
        } else {
            choose_provider(None, &settings_path, role, &keys)
        }
        .map_err(fail)?;
        if config.kind == ProviderKind::Builtin {
            let provider = builtin(config).map_err(|e| {
                llm::model_failure(
                    &e,
                    llm::FailureContext {
                        server: Some("the built-in model"),
                        model: Some(&model),
                    },
                )
            })?;
            return Ok(ResolvedModel {
                provider,
                model,
                fell_back: role != "default" && !named,
            });
        }
        let server = config.base_url.clone();
        let provider = llm::Provider::new(config).map_err(|e| {
            llm::model_failure(
                &e,
                llm::FailureContext {
                    server: Some(&server),
                    model: Some(&model),
                },
            )
        })?;
        Ok(ResolvedModel {
            provider,
            model,
            fell_back: role != "default" && !named,
        })
    })
}

/// "No model is set up", as every front end says it.
pub fn no_provider() -> EngineError {
    EngineError::new(
        FailureCode::NoProvider,
        "No model is set up yet. Open Settings to connect one.",
        None,
    )
}

/// Why no model can be used, from the typed launch error.
pub fn launch_failure(e: &LaunchError) -> EngineError {
    let (code, message, detail) = match e {
        // Where a terminal user sets one up goes to the detail (folded away in the window).
        LaunchError::NoProvider(file) => {
            return EngineError {
                detail: Some(format!(
                    "Without the window: write {file}, or start Tandem with TANDEM_PROVIDER and TANDEM_MODEL."
                )),
                ..no_provider()
            };
        }
        LaunchError::Settings(SettingsError::NoRole(_)) => return no_provider(),
        LaunchError::Settings(SettingsError::BadAddress(e)) => {
            return llm::model_failure(e, llm::FailureContext::default());
        }
        LaunchError::Settings(SettingsError::NoKey { provider, env }) => (
            FailureCode::NoProvider,
            format!("There is no API key for “{provider}”. Add it in Settings."),
            Some(format!(
                "Tandem also reads it from the environment variable {env}."
            )),
        ),
        LaunchError::Settings(SettingsError::NoProvider { role, provider }) => (
            FailureCode::NoProvider,
            format!(
                "The {role} model uses “{provider}”, which is no longer set up. Choose a model in Settings."
            ),
            None,
        ),
        LaunchError::Settings(
            s @ (SettingsError::Parse { .. }
            | SettingsError::UnknownRole(_)
            | SettingsError::SearchNeedsAddress),
        ) => (
            FailureCode::NoProvider,
            "Tandem's settings file has a mistake, so no model can be used. Open Settings and save to repair it."
                .into(),
            Some(s.to_string()),
        ),
        LaunchError::KeyFile { .. } => (
            FailureCode::NoProvider,
            "The file Tandem keeps API keys in cannot be read. Store the key again in Settings."
                .into(),
            Some(e.to_string()),
        ),
        LaunchError::BadPreset(_) | LaunchError::PresetWithoutModel => (
            FailureCode::NoProvider,
            "The model Tandem was started with (TANDEM_PROVIDER) cannot be used. Choose a model in Settings."
                .into(),
            Some(e.to_string()),
        ),
        LaunchError::Io { .. } | LaunchError::Policy(_) => (
            FailureCode::Internal,
            "Tandem could not read its settings. Check that its configuration folder can be read, then press Retry."
                .into(),
            Some(e.to_string()),
        ),
    };
    EngineError::new(code, message, detail)
}

/// The built-in model's file when the settings name none: the default model, downloaded into
/// the data folder (by Settings or `make model`).
pub fn default_model_path() -> PathBuf {
    locations::data_dir()
        .join("models")
        .join(locations::DEFAULT_MODEL_FILE)
}

/// How a front end loads the built-in model for a configuration (blocking: loading takes
/// seconds). The engine does not link llama.cpp: the window and `tandem-cli` pass
/// `builtin::launcher`, and tests that need no built-in model pass [`no_builtin`].
pub type BuiltinLoader =
    std::sync::Arc<dyn Fn(ProviderConfig) -> Result<llm::Provider, LlmError> + Send + Sync>;

/// A loader for front ends built without the built-in model (the engine's own tests).
pub fn no_builtin() -> BuiltinLoader {
    std::sync::Arc::new(|_| {
        Err(LlmError::BuiltinUnavailable(
            "the built-in model is not part of this build".into(),
        ))
    })
}

/// Loads the built-in model now when it is the default role's model (the launch preset's, or
/// the settings'), so that a session's first answer does not wait for it: a window opening a
/// session calls this in the background while the person types (loading took 3.7 s of a new
/// session's first answer on two cores). Whether it loaded. Blocking; asks no keychain (a
/// hosted default needs no loading).
pub fn load_builtin_if_default(
    preset: &PresetSlot,
    settings_path: &Path,
    builtin: &BuiltinLoader,
) -> bool {
    let chosen = choose_provider(
        preset.get().as_ref(),
        settings_path,
        "default",
        &crate::settings::NoSecrets,
    );
    match chosen {
        Ok((config, _)) if config.kind == ProviderKind::Builtin => match builtin(config) {
            Ok(_) => true,
            Err(e) => {
                // The first turn says why, with what to do; nothing is lost here.
                tracing::debug!(%e, "the built-in model was not loaded ahead");
                false
            }
        },
        _ => false,
    }
}

/// Where `web_search` searches, from the settings file; None when it is not set up, or set up
/// without what it needs (logged: the tool then says no search is configured).
/// Blocking (the keychain).
pub fn web_search_from_settings(settings_path: &Path) -> Option<tools::SearchProvider> {
    web_search_of(&read_settings(settings_path).ok()?)
}

/// Where `web_search` searches, as `settings` set it up (none when it is not, or cannot be).
pub fn web_search_of(settings: &Settings) -> Option<tools::SearchProvider> {
    let web = settings.web_search.as_ref()?;
    let env = |name: &str| std::env::var(name).ok();
    match web.provider(&StoredKeys::from_env(), &env) {
        Ok(p) => Some(p),
        Err(e) => {
            tracing::warn!(%e, "web search is set up but cannot be used");
            None
        }
    }
}

/// The rules for a project: the user's file (when present) and the project's own.
pub fn load_project_policy(root: &Path, user_file: Option<&Path>) -> Result<Policy, LaunchError> {
    // A named pipe at .tandem/policy.toml must not hang the start: read as a regular file only.
    let read = |p: &Path| {
        tools::read_config_text(p, CONFIG_FILE_CAP).map_err(|source| LaunchError::Io {
            path: p.to_path_buf(),
            source,
        })
    };
    let user_text = user_file.map(read).transpose()?.flatten();
    let project_file = policy::project_policy_path(root);
    let project_text = read(&project_file)?;
    Ok(Policy::load(
        user_file
            .zip(user_text.as_deref())
            .map(|(path, text)| RuleText { path, text }),
        project_text.as_deref().map(|text| RuleText {
            path: &project_file,
            text,
        }),
        root,
    )?)
}

#[cfg(test)]
mod tests {
    #[test]
    fn no_model_set_up_names_no_file_and_no_variable() {
        let shown = launch_failure(&LaunchError::NoProvider(
            "/home/me/.config/tandem/settings.toml".into(),
        ));
        assert_eq!(shown.code, FailureCode::NoProvider);
        assert_eq!(
            shown.message,
            "No model is set up yet. Open Settings to connect one."
        );
        // The terminal's way stays available, folded away.
        assert!(
            shown
                .detail
                .as_deref()
                .is_some_and(|d| d.contains("settings.toml") && d.contains("TANDEM_PROVIDER")),
            "{shown:?}"
        );
        let no_key = launch_failure(&LaunchError::Settings(SettingsError::NoKey {
            provider: "anthropic".into(),
            env: "ANTHROPIC_API_KEY".into(),
        }));
        assert_eq!(
            no_key.message,
            "There is no API key for “anthropic”. Add it in Settings."
        );
    }

    use super::*;

    fn fifo(at: &Path) {
        std::fs::create_dir_all(at.parent().expect("parent")).expect("mkdir");
        let made = std::process::Command::new("mkfifo")
            .arg(at)
            .status()
            .expect("mkfifo");
        assert!(made.success());
    }

    #[test]
    fn a_preset_runs_past_a_settings_file_with_a_mistake() {
        let dir = tempfile::tempdir().expect("tempdir");
        let settings = dir.path().join("settings.toml");
        std::fs::write(&settings, "[roles.default\nprovider=").expect("write");
        let preset = Preset {
            kind: ProviderKind::OpenAi,
            base_url: "http://127.0.0.1:9/v1".into(),
            model: "m".into(),
            model_path: None,
        };
        let resolver = provider_resolver(
            PresetSlot::new(Some(preset)),
            settings.clone(),
            no_builtin(),
        );
        let resolved = resolver("default")
            .map_err(|e| e.message)
            .expect("resolved");
        assert_eq!(resolved.model, "m");
        assert!(
            resolver("reviewer").is_ok(),
            "a role falls back to the preset"
        );
        let without = provider_resolver(PresetSlot::new(None), settings, no_builtin());
        let err = without("default")
            .err()
            .expect("no preset: the mistake is said");
        assert!(
            err.message.contains("settings file has a mistake"),
            "{}",
            err.message
        );
    }

    /// Issue 48: a session's first answer waited for the built-in model to load. A window
    /// loads it ahead when it is the default model, and only then.
    #[test]
    fn the_built_in_model_is_loaded_ahead_only_when_it_is_the_default() {
        use std::sync::atomic::{AtomicU32, Ordering};
        let dir = tempfile::tempdir().expect("tempdir");
        let settings = dir.path().join("settings.toml");
        let asked = std::sync::Arc::new(AtomicU32::new(0));
        let seen = asked.clone();
        let loader: BuiltinLoader = std::sync::Arc::new(move |config: ProviderConfig| {
            assert_eq!(config.model_path.as_deref(), Some(Path::new("/m/q.gguf")));
            seen.fetch_add(1, Ordering::SeqCst);
            Err(LlmError::BuiltinUnavailable("not in this test".into()))
        });
        let preset = |kind, path: Option<&str>| {
            PresetSlot::new(Some(Preset {
                kind,
                base_url: "http://127.0.0.1:9/v1".into(),
                model: "m".into(),
                model_path: path.map(PathBuf::from),
            }))
        };
        let builtin = preset(ProviderKind::Builtin, Some("/m/q.gguf"));
        assert!(!load_builtin_if_default(&builtin, &settings, &loader));
        assert_eq!(asked.load(Ordering::SeqCst), 1, "asked to load it");
        let server = preset(ProviderKind::OpenAi, None);
        load_builtin_if_default(&server, &settings, &loader);
        load_builtin_if_default(&PresetSlot::new(None), &settings, &loader);
        std::fs::write(
            &settings,
            "[providers.local]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\n\n[roles.default]\nprovider = \"local\"\nmodel = \"m\"\n",
        )
        .expect("write");
        let chosen = choose_provider(None, &settings, "default", &crate::settings::NoSecrets)
            .map(|(c, _)| c.kind);
        assert!(
            matches!(chosen, Ok(ProviderKind::OpenAi)),
            "{:?}",
            chosen.err()
        );
        load_builtin_if_default(&PresetSlot::new(None), &settings, &loader);
        assert_eq!(
            asked.load(Ordering::SeqCst),
            1,
            "a server's model or none set up: nothing loaded"
        );
    }

    #[test]
    fn named_pipes_for_rules_and_settings_are_errors_not_a_hang() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().to_path_buf();
        fifo(&root.join(".tandem/policy.toml"));
        fifo(&root.join("settings.toml"));
        let (tx, rx) = std::sync::mpsc::channel();
        let r = root.clone();
        std::thread::spawn(move || {
            let policy = load_project_policy(&r, None).err().map(|e| e.to_string());
            let settings = read_settings(&r.join("settings.toml"))
                .err()
                .map(|e| e.to_string());
            let _ = tx.send((policy, settings));
        });
        let (policy, settings) = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("reading a named pipe hung");
        for e in [policy, settings] {
            let e = e.expect("an error");
            assert!(e.contains("not a regular file"), "{e}");
        }
    }

    #[test]
    fn the_key_file_is_private_and_round_trips() {
        let dir = tempfile::tempdir().expect("test setup");
        let f = KeyFile {
            path: dir.path().join("keys.toml"),
        };
        f.set("anthropic", "sk-1").expect("test setup");
        f.set("openai", "sk-2").expect("test setup");
        f.set("openai", "").expect("test setup");
        let keys = f.read().expect("test setup");
        assert_eq!(keys.get("anthropic").map(String::as_str), Some("sk-1"));
        assert!(!keys.contains_key("openai"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&f.path)
                .expect("test setup")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let stored = StoredKeys {
            keychain: false,
            file: f,
        };
        assert_eq!(stored.api_key("anthropic").as_deref(), Some("sk-1"));
    }

    #[test]
    fn no_settings_says_where_to_set_a_provider() {
        let dir = tempfile::tempdir().expect("test setup");
        let err = choose_provider(
            None,
            &dir.path().join("settings.toml"),
            "default",
            &crate::settings::NoSecrets,
        )
        .expect_err("should fail");
        assert!(err.to_string().contains("choose one in Settings"), "{err}");
    }
}
