//! The built-in model: a GGUF file run inside the process with llama.cpp (`llama-cpp-2`),
//! for people with no API key and no model server. Owns the machine check (AVX2, memory),
//! loading, the model's thread, prompt rendering with the GGUF's chat template, the KV cache
//! kept between turns, tool calls forced well formed by a grammar from the tools' schemas, and
//! the model file's download and checksum.
//!
//! It answers through [`llm::LocalModel`], so the agent streams it like any provider. Must not
//! know about tools' effects, policy, sessions or the window (no Tauri): it writes replies.

// One of the two modules with unsafe code in the workspace: llama.cpp's abort callback is a C
// function pointer the pinned llama-cpp-2 does not wrap (see the module's comment for why it is sound).
#[allow(unsafe_code)]
mod abort;
mod download;
mod engine;
mod error;
mod grammar;
// Feeds llama.cpp's grammar sampler through a C++ guard (see the module for why it is sound).
#[allow(unsafe_code)]
mod grammar_sampler;
mod machine;
mod prefix_store;
mod prompt;
mod repetition;
mod schema_grammar;
mod shared;
mod test_model;
mod worker;

pub use abort::StopReport;
pub use download::{
    DEFAULT_MODEL, DownloadError, ModelSpec, Progress, download, file_sha256, partial_path,
};
pub use engine::{Engine, Generation, KvCache, LoadInfo, LoadOptions, Produced};
pub use error::BuiltinError;
pub use grammar::{calls_schema, grammar};
pub use machine::{Unavailable, check as check_machine, cpu as check_cpu, memory as check_memory};
pub use schema_grammar::{SchemaGrammarError, json_schema_to_grammar};
pub use shared::{launch, loaded, provider};
#[doc(hidden)]
pub use test_model::tiny_model_path;

/// The llama.cpp binding the crate is pinned to (Cargo.toml): a saved KV cache is only loaded
/// by the version that wrote it.
const LLAMA_CPP_VERSION: &str = "llama-cpp-2 =0.1.160";
pub use worker::{Outcome, PROMPT_BATCH, Stats};
