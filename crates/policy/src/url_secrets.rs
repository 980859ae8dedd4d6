//! Secrets an address carries. A fetch sends its whole address to the host, so one that holds a
//! key, a token or a password hands it over (`https://evil.example/?k=SECRET`): a parameter
//! whose name says it is a secret, a value that says so in words, or a value shaped like the
//! tokens services hand out (`ghp_…`, `AKIA…`, a JWT, a long random string).

use url::Url;

/// Parameter names that are secrets whole (compared without `_`, `-` or case: `api_key`,
/// `apiKey` and `API-KEY` are `apikey`).
const SECRET_NAMES: &[&str] = &[
    "k",
    "key",
    "apikey",
    "token",
    "accesstoken",
    "refreshtoken",
    "idtoken",
    "authtoken",
    "apitoken",
    "auth",
    "authorization",
    "secret",
    "clientsecret",
    "password",
    "passwd",
    "pwd",
    "pass",
    "passphrase",
    "session",
    "sessionid",
    "sessionkey",
    "sessiontoken",
    "sig",
    "signature",
    "credential",
    "credentials",
    "jwt",
    "bearer",
    "cookie",
];

/// Words that make any parameter name a secret's (`x_amz_security_token`, `db_password`).
const SECRET_NAME_WORDS: &[&str] = &[
    "token",
    "secret",
    "password",
    "passwd",
    "pwd",
    "passphrase",
    "apikey",
    "credential",
    "credentials",
    "signature",
    "jwt",
    "bearer",
];

/// Words before `key` that make it a secret key (`access_key`, `clientKey`); `sort_key` and
/// `public_key` are not.
const SECRET_KEY_KINDS: &[&str] = &[
    "api",
    "access",
    "secret",
    "private",
    "client",
    "app",
    "master",
    "auth",
    "license",
    "subscription",
    "signing",
    "encryption",
    "consumer",
    "account",
    "service",
    "developer",
    "session",
];

/// Words that make a value a secret's when they stand as a word of it (`my secret`,
/// `password=…`), never inside a longer word (`tokenizer`, `secretary`).
const SECRET_VALUE_WORDS: &[&str] = &["secret", "token", "password", "passwd"];

/// Prefixes of tokens services hand out, and how many characters at least follow them.
const TOKEN_PREFIXES: &[(&str, usize)] = &[
    ("sk-", 20),
    ("sk_live_", 16),
    ("sk_test_", 16),
    ("rk_live_", 16),
    ("ghp_", 20),
    ("gho_", 20),
    ("ghs_", 20),
    ("ghu_", 20),
    ("ghr_", 20),
    ("github_pat_", 20),
    ("xoxa-", 10),
    ("xoxb-", 10),
    ("xoxp-", 10),
    ("xoxr-", 10),
    ("xoxs-", 10),
    ("AIza", 30),
    ("glpat-", 20),
    ("hf_", 30),
    ("npm_", 30),
    ("pypi-", 40),
];

/// Shorter than this, a random-looking string is an identifier, not a key.
const RANDOM_MIN_LEN: usize = 32;
/// How often, in percent of its characters, a random-looking string switches between lower
/// case, upper case, digits and the rest: about 60 for a random key, near 30 for camel case.
const RANDOM_MIN_SWITCHES_PERCENT: usize = 40;
/// Different characters a random-looking string has at least (`aA1aA1…` is a pattern).
const RANDOM_MIN_DISTINCT: usize = 12;

/// Where the address carries something that looks like a secret, in words (never the value
/// itself), or `None`.
pub fn secret_in(url: &Url) -> Option<String> {
    if url.password().is_some_and(|p| !p.is_empty()) {
        return Some("a password before the host name".into());
    }
    if token_shaped(&decode(url.username())) {
        return Some("a token as the user name before the host name".into());
    }
    for (name, value) in url.query_pairs() {
        if let Some(place) = in_pair(&name, &value) {
            return Some(place);
        }
    }
    for segment in url.path_segments().into_iter().flatten() {
        if token_shaped(&decode(segment)) {
            return Some("a part of the path that looks like a key or a token".into());
        }
    }
    // The part after `#` is not sent, but the program fetching may pass it on.
    let fragment = url.fragment().unwrap_or_default();
    if fragment.contains('=') {
        for (name, value) in url::form_urlencoded::parse(fragment.as_bytes()) {
            if let Some(place) = in_pair(&name, &value) {
                return Some(place);
            }
        }
    } else if token_shaped(&decode(fragment)) {
        return Some("the part after “#”, which looks like a key or a token".into());
    }
    None
}

/// A `name=value` pair: its name says it is a secret, or its value does.
fn in_pair(name: &str, value: &str) -> Option<String> {
    if value.is_empty() {
        // `?ghp_…` alone: the name is the value.
        return token_shaped(name).then(|| "a parameter that looks like a key or a token".into());
    }
    if name_says_secret(name) || value_says_secret(value) {
        return Some(format!("the value of “{name}”"));
    }
    None
}

fn decode(s: &str) -> String {
    url::form_urlencoded::parse(format!("x={s}").as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

/// The words of a name, lower case: split at anything but a letter or a digit, and where a
/// lower-case letter meets an upper-case one (`apiKey` is `api`, `key`).
fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Whether a parameter's name says its value is a secret.
pub fn name_says_secret(name: &str) -> bool {
    let words = words(name);
    if SECRET_NAMES.contains(&words.concat().as_str()) {
        return true;
    }
    words.iter().enumerate().any(|(i, w)| {
        SECRET_NAME_WORDS.contains(&w.as_str())
            || (w == "key" && i > 0 && SECRET_KEY_KINDS.contains(&words[i - 1].as_str()))
            || (w == "session"
                && words
                    .get(i + 1)
                    .is_some_and(|n| matches!(n.as_str(), "id" | "key" | "token")))
    })
}

/// Whether a value looks like a secret: it says so in words, or it is shaped like a token.
pub fn value_says_secret(value: &str) -> bool {
    words(value)
        .iter()
        .any(|w| SECRET_VALUE_WORDS.contains(&w.as_str()))
        || token_shaped(value)
}

/// Whether some run of a value is shaped like a key or a token.
pub fn token_shaped(value: &str) -> bool {
    let runs = |keep: fn(char) -> bool| {
        value
            .split(move |c: char| !keep(c))
            .filter(|r| !r.is_empty())
            .collect::<Vec<&str>>()
    };
    runs(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
        .into_iter()
        .any(|r| prefixed_token(r) || aws_key(r))
        || runs(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
            .into_iter()
            .any(jwt)
        || runs(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+' | '/' | '='))
            .into_iter()
            .any(random)
}

/// `ghp_…`, `sk-…`: a known prefix, then enough random characters (letters and digits both: a
/// slug like `sk-learn-tutorial` has no digits).
fn prefixed_token(run: &str) -> bool {
    TOKEN_PREFIXES.iter().any(|(prefix, min)| {
        run.strip_prefix(prefix).is_some_and(|rest| {
            rest.len() >= *min
                && rest.chars().any(|c| c.is_ascii_digit())
                && rest.chars().any(|c| c.is_ascii_alphabetic())
        })
    })
}

/// An AWS access key id: `AKIA` or `ASIA` and 16 upper-case letters or digits.
fn aws_key(run: &str) -> bool {
    ["AKIA", "ASIA"].iter().any(|p| {
        run.strip_prefix(p).is_some_and(|rest| {
            rest.len() >= 16
                && rest
                    .chars()
                    .take(16)
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        })
    })
}

/// A JSON web token: `eyJ…` (base64 of `{"`), then at least two more dot-separated parts.
fn jwt(run: &str) -> bool {
    let parts: Vec<&str> = run.split('.').collect();
    run.starts_with("eyJ") && parts.len() >= 3 && parts[0].len() >= 10 && parts[1].len() >= 10
}

/// A long string of upper- and lower-case letters and digits mixed at random: a key or a token
/// of some service. A commit hash or a UUID has no upper case; words in camel case
/// (`AbstractSingletonProxyFactoryBean2`) switch between lower and upper case only where a
/// word starts, a random string at about every other character.
fn random(run: &str) -> bool {
    let chars: Vec<char> = run.chars().collect();
    if chars.len() < RANDOM_MIN_LEN
        || !chars.iter().any(char::is_ascii_digit)
        || !chars.iter().any(char::is_ascii_lowercase)
        || !chars.iter().any(char::is_ascii_uppercase)
    {
        return false;
    }
    let class = |c: &char| {
        if c.is_ascii_lowercase() {
            0
        } else if c.is_ascii_uppercase() {
            1
        } else if c.is_ascii_digit() {
            2
        } else {
            3
        }
    };
    let switches = chars
        .windows(2)
        .filter(|w| class(&w[0]) != class(&w[1]))
        .count();
    let distinct = chars.iter().collect::<std::collections::HashSet<_>>().len();
    switches * 100 >= (chars.len() - 1) * RANDOM_MIN_SWITCHES_PERCENT
        && distinct >= RANDOM_MIN_DISTINCT
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(url: &str) -> Option<String> {
        secret_in(&Url::parse(url).expect("url"))
    }

    #[test]
    fn addresses_that_carry_a_secret() {
        for url in [
            "https://evil.example/?k=SECRET",
            "https://evil.example/?key=abc",
            "https://evil.example/?api_key=x1",
            "https://evil.example/?apiKey=x1",
            "https://evil.example/?access_token=x1",
            "https://evil.example/?client_secret=x1",
            "https://evil.example/?auth=x1",
            "https://evil.example/?password=hunter2",
            "https://evil.example/?passwd=hunter2",
            "https://evil.example/?pwd=hunter2",
            "https://evil.example/?session=x1",
            "https://evil.example/?session_id=x1",
            "https://evil.example/?sig=x1",
            "https://evil.example/?X-Amz-Signature=x1",
            "https://evil.example/?X-Amz-Credential=x1",
            "https://evil.example/?X-Amz-Security-Token=x1",
            "https://evil.example/?db_password=x1",
            "https://evil.example/?aws_secret_access_key=x1",
            "https://evil.example/?credential=x1",
            "https://evil.example/?q=my%20secret",
            "https://evil.example/?q=the+password+is+x",
            "https://evil.example/?note=Token:abc",
            "https://evil.example/?d=sk-proj-4f9aXk2LmQ8rT1vB7nW3yZ6c",
            "https://evil.example/?d=ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
            "https://evil.example/?d=github_pat_11ABCDEFG0123456789abcdef",
            "https://evil.example/?d=xoxb-1234567890-abcdefghij",
            "https://evil.example/?d=AKIAIOSFODNN7EXAMPLE",
            "https://evil.example/?d=AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
            "https://evil.example/?d=glpat-a1B2c3D4e5F6g7H8i9J0",
            "https://evil.example/?d=hf_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7",
            "https://evil.example/?d=npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7",
            "https://evil.example/?d=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sflKxwRJSMeKKF2QT4fwpM",
            "https://evil.example/?d=Zk9xQ2w3Vm1Rb0J5dUg4T2FrN1NjWnBmRXRyM2xN",
            "https://evil.example/keys/ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
            "https://evil.example/c/Zk9xQ2w3Vm1Rb0J5dUg4T2FrN1NjWnBmRXRyM2xN/x",
            "https://user:hunter2@evil.example/",
            "https://ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8@evil.example/",
            "https://evil.example/#access_token=x1",
            "https://evil.example/#ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
            "https://evil.example/?ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
        ] {
            assert!(found(url).is_some(), "{url}");
        }
    }

    #[test]
    fn ordinary_addresses_carry_none() {
        for url in [
            "https://docs.rs/serde",
            "https://docs.rs/serde?search=Deserialize",
            "https://docs.rs/releases/search?query=tokenizer+rust",
            "https://example.com/list?page=2&per_page=50",
            "https://example.com/search?q=tokenizer%20rust",
            "https://example.com/search?q=secretary+of+state",
            "https://example.com/?sort_key=date&primary_key=id&public_key=x",
            "https://example.com/?keyword=rust&author=ann",
            "https://example.com/?token=",
            "https://github.com/rust-lang/rust/commit/3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a",
            "https://github.com/serde-rs/serde/blob/master/serde/src/de/mod.rs#L100",
            "https://example.com/items/550e8400-e29b-41d4-a716-446655440000",
            "https://scikit-learn.org/stable/sk-learn-tutorial-for-beginners-part-two",
            "https://docs.oracle.com/javase/8/docs/api/AbstractSingletonProxyFactoryBean2.html",
            "https://example.com/api/InternalFrameTitlePaneMaximizeButtonWindowNotFocusedState2x",
            "https://example.com/ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcd",
            "https://docs.rs/tokio/latest/tokio/sync/struct.Notify.html#method.token",
            "https://docs.github.com/en/code-security/secret-scanning/about-secret-scanning",
            "https://en.wikipedia.org/wiki/Password",
            "https://user@example.com/",
            "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
        ] {
            assert_eq!(found(url), None, "{url}");
        }
    }

    #[test]
    fn the_place_is_named_not_the_value() {
        let place = found("https://evil.example/?k=SECRET").expect("found");
        assert_eq!(place, "the value of “k”");
        assert!(!place.contains("SECRET"));
    }
}
