//! API keys in the OS keychain (the Secret Service on Linux, through the `keyring` crate).
//! Keyring calls block (and start their own runtime inside), so async callers go through
//! `spawn_blocking`; where no keychain service runs, the error says so plainly and nothing is
//! stored elsewhere behind the user's back.

use crate::settings::SecretStore;

const SERVICE: &str = "dev.tandem.app";

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum KeychainError {
    #[error(
        "no keychain service is running (on Linux: the Secret Service, e.g. gnome-keyring); set the key in the environment instead ({0})"
    )]
    Unavailable(String),
    #[error("the keychain refused: {0}")]
    Other(String),
}

fn map(e: keyring::Error) -> KeychainError {
    match e {
        keyring::Error::PlatformFailure(_) | keyring::Error::NoStorageAccess(_) => {
            KeychainError::Unavailable(e.to_string())
        }
        other => KeychainError::Other(other.to_string()),
    }
}

/// Keys stored per provider name in the OS keychain.
pub struct Keychain;

impl Keychain {
    pub fn set(&self, provider: &str, key: &str) -> Result<(), KeychainError> {
        keyring::Entry::new(SERVICE, provider)
            .map_err(map)?
            .set_password(key)
            .map_err(map)
    }

    pub fn get(&self, provider: &str) -> Result<Option<String>, KeychainError> {
        match keyring::Entry::new(SERVICE, provider)
            .map_err(map)?
            .get_password()
        {
            Ok(k) => Ok(Some(k)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(map(e)),
        }
    }

    pub fn delete(&self, provider: &str) -> Result<(), KeychainError> {
        match keyring::Entry::new(SERVICE, provider)
            .map_err(map)?
            .delete_credential()
        {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(map(e)),
        }
    }
}

impl SecretStore for Keychain {
    /// A keychain that cannot be reached reads as "no stored key" (logged), so the environment
    /// still works.
    fn api_key(&self, provider: &str) -> Option<String> {
        self.get(provider).unwrap_or_else(|e| {
            tracing::warn!(%e, "cannot read the keychain");
            None
        })
    }
}
