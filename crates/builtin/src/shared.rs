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

/// A provider answered by the shared model.
pub fn provider(
    config: llm::ProviderConfig,
    opts: LoadOptions,
) -> Result<llm::Provider, BuiltinError> {
    let engine = loaded(opts)?;
    Ok(llm::Provider::local(config, engine))
}
