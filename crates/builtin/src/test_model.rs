//! Where the suites find the tiny model they run llama.cpp with (SmolLM2-135M, fetched by
//! `scripts/fetch-model.sh tiny`, which `make test` runs): one place for the unit tests and
//! `tests/tiny_model.rs`. Not part of the product.

use std::path::PathBuf;

/// `TANDEM_TINY_MODEL`, else the file in `TANDEM_TEST_MODEL_DIR` or `~/.cache/tandem-test-models`.
/// Panics with the command that fetches it when it is missing: a test without it cannot pass.
#[doc(hidden)]
pub fn tiny_model_path() -> PathBuf {
    let path = std::env::var_os("TANDEM_TINY_MODEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let home = std::env::var_os("HOME")
                .map(PathBuf::from)
                .unwrap_or_default();
            std::env::var_os("TANDEM_TEST_MODEL_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| home.join(".cache/tandem-test-models"))
                .join("SmolLM2-135M-Instruct.Q4_1.gguf")
        });
    assert!(
        path.exists(),
        "{} is missing: run scripts/fetch-model.sh tiny (make test does)",
        path.display()
    );
    path
}
