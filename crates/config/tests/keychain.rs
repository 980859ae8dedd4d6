//! The OS keychain, for real: run by `make test` inside a D-Bus session with an unlocked
//! gnome-keyring (see the Makefile's `test-keychain`). Without a Secret Service the test
//! checks that the failure is the clear "no keychain service" error instead.

use config::{Keychain, KeychainError, SecretStore};

#[test]
fn keys_round_trip_through_the_keychain_or_fail_clearly() {
    let kc = Keychain;
    let provider = format!("tandem-test-{}", std::process::id());
    match kc.set(&provider, "sk-test-123") {
        Ok(()) => {
            assert_eq!(kc.get(&provider).expect("get"), Some("sk-test-123".into()));
            assert_eq!(kc.api_key(&provider).as_deref(), Some("sk-test-123"));
            kc.delete(&provider).expect("delete");
            assert_eq!(kc.get(&provider).expect("get after delete"), None);
            kc.delete(&provider).expect("deleting twice is fine");
        }
        Err(e) => {
            assert!(
                std::env::var_os("TANDEM_REQUIRE_KEYCHAIN").is_none(),
                "a keychain was required but failed: {e}"
            );
            assert!(matches!(e, KeychainError::Unavailable(_)), "{e}");
            assert!(
                e.to_string().contains("no keychain service is running"),
                "{e}"
            );
            assert_eq!(kc.api_key(&provider), None);
        }
    }
}
