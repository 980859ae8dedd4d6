//! Objects: the properties in their order, the required ones first, then any of the
//! optional ones in order (each rest of them a rule of its own), then the others.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::{Converter, sub_name};
use crate::schema_grammar::document::Node;
use crate::schema_grammar::literal::{dump, format_literal};
use crate::schema_grammar::primitives;

/// The name of a property, or of `*` for the others, and its key-value rule.
type KvRules = HashMap<String, String>;

impl<'d> Converter<'d> {
    /// The rule for an object with `properties` (those in `required` required) and others
    /// fitting `additional` if it is there.
    pub(super) fn build_object_rule(
        &mut self,
        properties: &[(&'d str, &'d Node)],
        required: &HashSet<&str>,
        name: &str,
        additional: Option<&'d Node>,
    ) -> String {
        let prefix = sub_name(name);
        let mut required_props: Vec<String> = Vec::new();
        let mut optional_props: Vec<String> = Vec::new();
        let mut kv_rules = KvRules::new();
        let mut prop_names: Vec<String> = Vec::new();
        for &(prop_name, prop_schema) in properties {
            let prop_rule = self.visit(prop_schema, &format!("{prefix}{prop_name}"));
            let key = format_literal(&dump(&serde_json::Value::from(prop_name)));
            let kv = self.rules.add(
                &format!("{prefix}{prop_name}-kv"),
                format!("{key} space \":\" space {prop_rule}"),
            );
            kv_rules.insert(prop_name.to_string(), kv);
            if required.contains(prop_name) {
                required_props.push(prop_name.to_string());
            } else {
                optional_props.push(prop_name.to_string());
            }
            prop_names.push(prop_name.to_string());
        }
        if let Some(additional) = additional {
            let kv = self.additional_kv_rule(additional, &prop_names, &prefix);
            kv_rules.insert("*".to_string(), kv);
            optional_props.push("*".to_string());
        }
        if required_props.is_empty() && optional_props.is_empty() {
            return "\"{\" space \"}\"".to_string();
        }
        let mut rule = String::from("\"{\" space ");
        let required_kvs: Vec<&str> = required_props
            .iter()
            .map(|p| kv_rule(&kv_rules, p))
            .collect();
        rule.push_str(&required_kvs.join(" \",\" space "));
        if !optional_props.is_empty() {
            rule.push_str(" (");
            if !required_props.is_empty() {
                rule.push_str(" \",\" space ( ");
            }
            let alternatives: Vec<String> = (0..optional_props.len())
                .map(|i| self.optional_tail(&optional_props[i..], false, &kv_rules, &prefix))
                .collect();
            rule.push_str(&alternatives.join(" | "));
            if !required_props.is_empty() {
                rule.push_str(" )");
            }
            rule.push_str(" )?");
        }
        rule.push_str(" space \"}\"");
        rule
    }

    /// The rule for a property other than the named ones: a key none of them has, and a value
    /// that fits `additional`.
    fn additional_kv_rule(
        &mut self,
        additional: &'d Node,
        prop_names: &[String],
        prefix: &str,
    ) -> String {
        let sub = format!("{prefix}additional");
        let value_rule = if matches!(additional, Node::Any) {
            self.add_primitive("value", &primitives::VALUE)
        } else {
            self.visit(additional, &format!("{sub}-value"))
        };
        let key_rule = if prop_names.is_empty() {
            self.add_primitive("string", &primitives::STRING)
        } else {
            let not_names = self.not_strings(prop_names);
            self.rules.add(&format!("{sub}-k"), not_names)
        };
        self.rules.add(
            &format!("{sub}-kv"),
            format!("{key_rule} \":\" space {value_rule}"),
        )
    }

    /// The optional properties from `keys[0]` on, in their order, each after a comma; the
    /// rest after the first is a rule of its own (`NAME-KEY-rest`).
    fn optional_tail(
        &mut self,
        keys: &[String],
        first_is_optional: bool,
        kv_rules: &KvRules,
        prefix: &str,
    ) -> String {
        let Some((k, rest)) = keys.split_first() else {
            return String::new();
        };
        let kv = kv_rule(kv_rules, k);
        let comma_ref = format!("( \",\" space {kv} )");
        let mut res = match (first_is_optional, k == "*") {
            (true, true) => format!("{comma_ref}*"),
            (true, false) => format!("{comma_ref}?"),
            (false, true) => format!("{kv} {comma_ref}*"),
            (false, false) => kv.to_string(),
        };
        if !rest.is_empty() {
            let tail = self.optional_tail(rest, true, kv_rules, prefix);
            let tail_rule = self.rules.add(&format!("{prefix}{k}-rest"), tail);
            res.push(' ');
            res.push_str(&tail_rule);
        }
        res
    }

    /// A JSON string that is none of `strings`: a trie of them, each node refusing the
    /// characters that would go on along it.
    fn not_strings(&mut self, strings: &[String]) -> String {
        let trie = Trie::new(strings);
        let char_rule = self.add_primitive("char", &primitives::CHAR);
        let mut out = String::from("[\"] ( ");
        trie.write_refusals(0, &char_rule, &mut out);
        out.push_str(" )");
        if !trie.nodes[0].ends_word {
            out.push('?');
        }
        out.push_str(" [\"]");
        out
    }
}

/// A property's key-value rule; nothing for one not there, as C++'s `map[]` gives.
fn kv_rule<'a>(kv_rules: &'a KvRules, key: &str) -> &'a str {
    kv_rules.get(key).map_or("", String::as_str)
}

struct TrieNode {
    children: BTreeMap<char, usize>,
    ends_word: bool,
}

/// The strings by character, children in code point order (llama.cpp's `common_trie`).
struct Trie {
    nodes: Vec<TrieNode>,
}

impl Trie {
    fn new(words: &[String]) -> Self {
        let mut trie = Trie {
            nodes: vec![TrieNode {
                children: BTreeMap::new(),
                ends_word: false,
            }],
        };
        for word in words {
            trie.insert(word);
        }
        trie
    }

    fn insert(&mut self, word: &str) {
        let mut current = 0;
        for c in word.chars() {
            current = match self.nodes[current].children.get(&c) {
                Some(&child) => child,
                None => {
                    let child = self.nodes.len();
                    self.nodes.push(TrieNode {
                        children: BTreeMap::new(),
                        ends_word: false,
                    });
                    self.nodes[current].children.insert(c, child);
                    child
                }
            };
        }
        self.nodes[current].ends_word = true;
    }

    /// For each character that goes on from node `index`: that character and what may follow
    /// it; then any other character and the rest of a string.
    fn write_refusals(&self, index: usize, char_rule: &str, out: &mut String) {
        let node = &self.nodes[index];
        let mut rejects = String::new();
        for (i, (&c, &child)) in node.children.iter().enumerate() {
            rejects.push(c);
            if i > 0 {
                out.push_str(" | ");
            }
            out.push('[');
            out.push(c);
            out.push(']');
            if self.nodes[child].children.is_empty() {
                out.push(' ');
                out.push_str(char_rule);
                out.push('+');
            } else {
                out.push_str(" (");
                self.write_refusals(child, char_rule, out);
                out.push(')');
            }
        }
        if !node.children.is_empty() {
            out.push_str(" | [^\"");
            out.push_str(&rejects);
            out.push_str("] ");
            out.push_str(char_rule);
            out.push('*');
        }
    }
}
