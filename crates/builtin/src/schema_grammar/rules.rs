//! The grammar being written: named rules, printed in name order (llama.cpp keeps them in a
//! `std::map`). A rule's text is bytes, not a `String`: a pattern can leave half a character
//! in one (see [`super::SchemaGrammarError::NotUtf8`]).

use std::collections::BTreeMap;

use super::primitives::SPACE_RULE;

#[derive(Clone)]
pub(super) struct Rules(BTreeMap<String, Vec<u8>>);

impl Rules {
    /// Every grammar has the whitespace rule the others refer to as `space`.
    pub(super) fn new() -> Self {
        let mut rules = BTreeMap::new();
        rules.insert("space".to_string(), SPACE_RULE.as_bytes().to_vec());
        Rules(rules)
    }

    /// Adds `rule` under `name` made a valid rule name, and returns the name it got: the same
    /// rule under the same name is one rule, a different one gets a number after the name.
    pub(super) fn add(&mut self, name: &str, rule: impl Into<Vec<u8>>) -> String {
        let rule = rule.into();
        let name = sanitize_name(name);
        if self.0.get(&name).is_none_or(|existing| *existing == rule) {
            self.0.insert(name.clone(), rule);
            return name;
        }
        let mut i = 0;
        loop {
            let key = format!("{name}{i}");
            if self.0.get(&key).is_none_or(|existing| *existing == rule) {
                self.0.insert(key.clone(), rule);
                return key;
            }
            i += 1;
        }
    }

    pub(super) fn contains(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    /// The grammar's text: `name ::= rule`, one a line.
    pub(super) fn render(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for (name, rule) in &self.0 {
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b" ::= ");
            out.extend_from_slice(rule);
            out.push(b'\n');
        }
        out
    }
}

/// Each run of characters other than ASCII letters, digits and `-` becomes one `-`.
pub(super) fn sanitize_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut in_run = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '-' {
            out.push(c);
            in_run = false;
        } else if !in_run {
            out.push('-');
            in_run = true;
        }
    }
    out
}

/// `item` repeated `min..=max` times (`max` `i32::MAX` for no bound), with `separator`
/// between two (empty for none), written the way llama.cpp writes it.
pub(super) fn build_repetition(item: &[u8], min: i32, max: i32, separator: &[u8]) -> Vec<u8> {
    let has_max = max != i32::MAX;
    if max == 0 {
        return Vec::new();
    }
    if min == 0 && max == 1 {
        return [item, b"?"].concat();
    }
    if separator.is_empty() {
        if min == 1 && !has_max {
            return [item, b"+"].concat();
        }
        if min == 0 && !has_max {
            return [item, b"*"].concat();
        }
        let max_text = if has_max {
            max.to_string()
        } else {
            String::new()
        };
        return [item, format!("{{{min},{max_text}}}").as_bytes()].concat();
    }
    let separated = [b"(", separator, b" ", item, b")"].concat();
    let rest = build_repetition(
        &separated,
        if min == 0 { 0 } else { min - 1 },
        if has_max { max - 1 } else { max },
        b"",
    );
    let result = [item, b" ", &rest].concat();
    if min == 0 {
        return [b"(", result.as_slice(), b")?"].concat();
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_lose_runs_of_other_characters() {
        assert_eq!(sanitize_name("a b__c-d/é€x"), "a-b-c-d-x");
    }

    #[test]
    fn a_different_rule_under_a_taken_name_gets_a_number() {
        let mut rules = Rules::new();
        assert_eq!(rules.add("x", "1"), "x");
        assert_eq!(rules.add("x", "1"), "x");
        assert_eq!(rules.add("x", "2"), "x0");
        assert_eq!(rules.add("x", "3"), "x1");
        assert_eq!(rules.add("x", "2"), "x0");
    }

    #[test]
    fn repetitions_are_written_as_llama_cpp_writes_them() {
        let rep = |min, max, sep: &str| {
            String::from_utf8(build_repetition(b"i", min, max, sep.as_bytes())).unwrap_or_default()
        };
        assert_eq!(rep(0, 1, ""), "i?");
        assert_eq!(rep(2, i32::MAX, ""), "i{2,}");
        assert_eq!(rep(0, 3, ","), "(i (, i){0,2})?");
        assert_eq!(rep(1, 1, ","), "i ");
    }
}
