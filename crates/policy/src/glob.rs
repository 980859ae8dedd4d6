//! Globs as the rules match them, compiled cheaply. `globset`'s own matcher builds a full DFA
//! for every small glob whenever any crate in the build turns on regex-automata's `dfa-build`
//! (tracing-subscriber's filter does): ~150 µs a glob, so loading the built-in rules took
//! milliseconds and judging a call that offers "always allow" (which compiles the offered
//! rule to check it) took half a millisecond. Here a glob that is a plain name, or a plain
//! folder and `/**`, is compared as text; any other is the regex `globset` writes for it,
//! searched by the lazy DFA. Both match exactly what `globset` matches (tested against it).

use globset::GlobBuilder;
use regex_automata::meta::Regex;
use std::path::Path;
use std::sync::Arc;

/// One compiled glob. Shared, not copied, when the rules are cloned: judging whether an offered
/// "always allow" would hold clones the whole policy, and a regex's clone makes a new cache.
#[derive(Debug, Clone)]
pub struct Glob {
    how: Match,
}

#[derive(Debug, Clone)]
enum Match {
    /// The whole path is this text.
    Exactly(Arc<str>),
    /// The path is inside this folder (the text ends with `/`).
    Under(Arc<str>),
    Regex(Arc<Regex>),
}

/// The characters that make a glob more than its text (`\` escapes; `!` only inside `[]`).
fn is_plain(text: &str) -> bool {
    !text.is_empty() && !text.contains(['*', '?', '[', ']', '{', '}', '\\'])
}

impl Glob {
    /// A glob of the rules: `separator` says whether `*` stops at `/` (paths) or not (command
    /// words); `escapes` whether `\` escapes the next character. The error says what is wrong
    /// with the glob.
    pub fn new(text: &str, separator: bool, escapes: bool) -> Result<Glob, String> {
        if is_plain(text) {
            return Ok(Glob {
                how: Match::Exactly(text.into()),
            });
        }
        if let Some(dir) = text.strip_suffix("/**")
            && is_plain(dir)
        {
            return Ok(Glob {
                how: Match::Under(format!("{dir}/").into()),
            });
        }
        let glob = GlobBuilder::new(text)
            .literal_separator(separator)
            .backslash_escape(escapes)
            .build()
            .map_err(|e| e.to_string())?;
        let syntax = regex_automata::util::syntax::Config::new()
            .utf8(false)
            .dot_matches_new_line(true);
        // As globset configures it, less the full DFA (the lazy one is built as it searches).
        let config = Regex::config()
            .utf8_empty(false)
            .dfa(false)
            .nfa_size_limit(Some(10 * (1 << 20)))
            .hybrid_cache_capacity(10 * (1 << 20));
        let re = Regex::builder()
            .syntax(syntax)
            .configure(config)
            .build(glob.regex())
            .map_err(|e| e.to_string())?;
        Ok(Glob {
            how: Match::Regex(Arc::new(re)),
        })
    }

    /// Whether `path` (its bytes, as on this system) matches the whole glob.
    pub fn is_match(&self, path: impl AsRef<Path>) -> bool {
        use std::os::unix::ffi::OsStrExt as _;
        let bytes = path.as_ref().as_os_str().as_bytes();
        match &self.how {
            Match::Exactly(t) => bytes == t.as_bytes(),
            Match::Under(dir) => bytes.starts_with(dir.as_bytes()),
            Match::Regex(re) => re.is_match(bytes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every form, with and without `/` stopping `*`, against globset's own matcher.
    #[test]
    fn matches_what_globset_matches() {
        let globs = [
            "src/main.rs",
            "main.rs",
            "src/**",
            "src/a b/**",
            "**",
            "*.rs",
            "src/*.rs",
            "**/*.rs",
            "src/**/*.rs",
            "a[bc]d",
            "a[!b]d",
            "{x,y}/z",
            "cargo",
            "git-*",
            "docs/[*]x",
            ".env",
            ".env.*",
            "build.log",
            "é/**",
            "x/**/",
        ];
        let paths = [
            "src/main.rs",
            "main.rs",
            "src",
            "src/",
            "src/a/b.rs",
            "srcx/a",
            "src/a b/c",
            "src/a b",
            "a.rs",
            "abd",
            "acd",
            "aXd",
            "x/z",
            "y/z",
            "cargo",
            "cargo-x",
            "git-log",
            "docs/*x",
            "docs/ax",
            ".env",
            ".env.local",
            "build.log",
            "é/x",
            "x/y/",
            "",
        ];
        for g in globs {
            for sep in [true, false] {
                let ours = Glob::new(g, sep, true).expect("glob");
                let theirs = GlobBuilder::new(g)
                    .literal_separator(sep)
                    .backslash_escape(true)
                    .build()
                    .expect("globset")
                    .compile_matcher();
                for p in paths {
                    assert_eq!(
                        ours.is_match(p),
                        theirs.is_match(p),
                        "glob {g:?} (separator {sep}) on {p:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_bad_glob_says_why() {
        let err = Glob::new("a[b", true, true).expect_err("unclosed");
        assert!(err.contains("unclosed"), "{err}");
    }
}
