//! One loaded model per process: every session and role that uses the built-in model shares
//! it (a second copy would double 2 GB of memory), and it stays loaded between turns so its KV
//! cache and load time are paid once. Choosing another file replaces it.

use crate::engine::{Engine, LoadOptions};
use crate::error::BuiltinError;
use std::sync::{Arc, Mutex, PoisonError};

static LOADED: Mutex<Option<(LoadOptions, Arc<Engine>)>> = Mutex::new(None);

/// The model for `opts`, loaded now if it is not already. Blocking (loading takes seconds):
/// call it off the async threads. The lock is held while loading, so two sessions starting at
/// once load it once.
pub fn loaded(opts: LoadOptions) -> Result<Arc<Engine>, BuiltinError> {
    let mut slot = LOADED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((o, engine)) = slot.as_ref()
        && *o == opts
    {
        return Ok(engine.clone());
    }
    // The old model goes first, so two never sit in memory together.
    *slot = None;
    let engine = Arc::new(Engine::load(opts.clone())?);
    *slot = Some((opts, engine.clone()));
    Ok(engine)
}

/// The built-in model for a configuration as the window and `tandem-cli` load it: the file the
/// settings name or `default_path`, its prompt beginnings kept under `data_dir`'s
/// `models/kv-cache`, the context the settings ask for. Blocking: loading takes seconds.
pub fn launch(
    config: llm::ProviderConfig,
    data_dir: &std::path::Path,
    default_path: std::path::PathBuf,
) -> Result<llm::Provider, llm::LlmError> {
    let path = config.model_path.clone().unwrap_or(default_path);
    let mut opts = LoadOptions::new(path);
    opts.prefix_cache = Some(data_dir.join("models").join("kv-cache"));
    if let Some(n) = config.num_ctx {
        opts.n_ctx = n;
    }
    Ok(provider(config, opts)?)
}

/// A provider answered by the shared model.
pub fn provider(
    config: llm::ProviderConfig,
    opts: LoadOptions,
) -> Result<llm::Provider, BuiltinError> {
    let engine = loaded(opts)?;
    Ok(llm::Provider::local(config, engine))
}
