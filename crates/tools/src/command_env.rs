//! The environment a command gets: an allow-list, never the app's whole environment, so tokens
//! the user exported for other programs (`GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`, …) never
//! reach a command, and through it the model.

use std::ffi::OsString;

/// Variables passed on as they are: what programs need to find themselves, the user's
/// language and terminal, and where toolchains live. Nothing here holds a secret.
const ALLOWED: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "TERM",
    "TZ",
    "COLORTERM",
    "NO_COLOR",
    "CLICOLOR",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_DIRS",
    "XDG_DATA_DIRS",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "GOPATH",
    "GOROOT",
    "GOBIN",
    "JAVA_HOME",
    "MAVEN_HOME",
    "GRADLE_HOME",
    "NVM_DIR",
    "NVM_BIN",
    "PNPM_HOME",
    "BUN_INSTALL",
    "DENO_DIR",
    "PYENV_ROOT",
    "PYENV_VERSION",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV",
    "GEM_HOME",
    "GEM_PATH",
    "PKG_CONFIG_PATH",
    "LD_LIBRARY_PATH",
    "LIBRARY_PATH",
    "CPATH",
    "CC",
    "CXX",
];

/// Whether a variable of the app's environment is passed to commands: the list above, the
/// locale's `LC_*`, and what the user added in settings.
pub fn passes(name: &str, extra: &[String]) -> bool {
    ALLOWED.contains(&name) || name.starts_with("LC_") || extra.iter().any(|e| e == name)
}

/// The app's environment, filtered.
pub fn allowed_env(extra: &[String]) -> Vec<(OsString, OsString)> {
    std::env::vars_os()
        .filter(|(k, _)| k.to_str().is_some_and(|k| passes(k, extra)))
        .collect()
}

/// Set for every command, whatever the app's environment says: no program may stop to wait
/// for a password or a pager nobody sees.
pub const FIXED: &[(&str, &str)] = &[
    ("GIT_TERMINAL_PROMPT", "0"),
    ("GIT_PAGER", "cat"),
    ("PAGER", "cat"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_do_not_pass() {
        for name in [
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "ANTHROPIC_AUTH_TOKEN",
            "HF_TOKEN",
            "OPENAI_API_KEY",
            "SSH_AUTH_SOCK",
            "DBUS_SESSION_BUS_ADDRESS",
            "DISPLAY",
        ] {
            assert!(!passes(name, &[]), "{name}");
        }
        assert!(passes("PATH", &[]));
        assert!(passes("LC_ALL", &[]));
        assert!(passes("MY_SETTING", &["MY_SETTING".into()]));
    }
}
