//! The walk over the schema that writes the rules (llama.cpp's
//! `common_chat_schema_converter`). The order of the calls matters, not only their results: a
//! rule's name depends on which rules came before it.

use std::collections::{BTreeMap, HashSet};

use super::document::{Document, Format, Node, ObjectNode, StringNode};
use super::int_range::{self, Unbounded};
use super::literal::constant_rule;
use super::pattern::{self, PatternError};
use super::primitives::{self, Builtin};
use super::rules::{Rules, build_repetition, sanitize_name};

mod object;

pub(super) struct Converter<'d> {
    document: &'d Document,
    rules: Rules,
    refs_being_resolved: HashSet<&'d str>,
    errors: Vec<String>,
    warnings: Vec<String>,
    /// What llama.cpp throws from the middle of the walk, ending it: once set, nothing more
    /// is written and this is the conversion's error.
    fatal: Option<String>,
    /// How many [`Converter::visit`]s are under way, one inside the other.
    depth: usize,
}

/// Deeper than any real schema goes. Only an `allOf` that includes itself through a `$ref`
/// gets here: llama.cpp recurses until its stack overflows and the process dies, and this
/// port stops with an error instead (one of its two departures from llama.cpp, both where
/// llama.cpp dies; the other is in [`Converter::add_component`]).
const MAX_DEPTH: usize = 500;

impl<'d> Converter<'d> {
    pub(super) fn new(document: &'d Document) -> Self {
        Converter {
            document,
            rules: Rules::new(),
            refs_being_resolved: HashSet::new(),
            errors: Vec::new(),
            warnings: Vec::new(),
            fatal: None,
            depth: 0,
        }
    }

    /// The grammar's text, or the errors llama.cpp would throw, one a line. Unsupported
    /// patterns are no error (they accept any string) but are worth a warning.
    pub(super) fn finish(self) -> Result<Vec<u8>, String> {
        if let Some(fatal) = self.fatal {
            return Err(fatal);
        }
        if !self.errors.is_empty() {
            return Err(self.errors.join("\n"));
        }
        if !self.warnings.is_empty() {
            tracing::warn!(
                "JSON schema conversion was incomplete: {}",
                self.warnings.join("; ")
            );
        }
        Ok(self.rules.render())
    }

    /// Writes the rules for `node` and returns the name to refer to it by; `name` is the
    /// path-like name its rules are named after (empty for the root).
    pub(super) fn visit(&mut self, node: &'d Node, name: &str) -> String {
        // After a fatal error llama.cpp has thrown: nothing more is written.
        if self.fatal.is_some() {
            return String::new();
        }
        if self.depth >= MAX_DEPTH {
            self.fail_fatally(format!(
                "the schema nests deeper than {MAX_DEPTH} levels (an allOf that includes itself?)"
            ));
            return String::new();
        }
        self.depth += 1;
        let rule = self.visit_node(node, name);
        self.depth -= 1;
        rule
    }

    /// Ends the conversion with `message` (the first such wins, as the first throw would).
    fn fail_fatally(&mut self, message: String) {
        if self.fatal.is_none() {
            self.fatal = Some(message);
        }
    }

    fn visit_node(&mut self, node: &'d Node, name: &str) -> String {
        let rule_name = if primitives::is_reserved_name(name) {
            format!("{name}-")
        } else if name.is_empty() {
            "root".to_string()
        } else {
            name.to_string()
        };
        match node {
            Node::Ref(r) => {
                let target = self.resolve_ref(r);
                self.rules.add(&rule_name, target)
            }
            Node::AnyOf(children) => {
                let union = self.union_rule(name, children);
                self.rules.add(&rule_name, union)
            }
            Node::AllOf(children) => self.visit_all_of(children, name, &rule_name),
            Node::Const(value) => self.rules.add(&rule_name, constant_rule(value)),
            Node::Enum(values) => {
                let values: Vec<String> = values.iter().map(constant_rule).collect();
                self.rules
                    .add(&rule_name, format!("({})", values.join(" | ")))
            }
            Node::Object(object) => self.visit_object(object, name, &rule_name),
            Node::Tuple(items) => self.visit_tuple(items, name, &rule_name),
            Node::Array {
                items,
                min_items,
                max_items,
            } => self.visit_array(items, *min_items, *max_items, name, &rule_name),
            Node::String(string) => self.visit_string(string, &rule_name),
            Node::Integer { minimum, maximum } => {
                self.visit_integer(*minimum, *maximum, &rule_name)
            }
            Node::Number => self.visit_primitive(&rule_name, &primitives::NUMBER),
            Node::Boolean => self.visit_primitive(&rule_name, &primitives::BOOLEAN),
            Node::Null => self.visit_primitive(&rule_name, &primitives::NULL),
            Node::Any => {
                let value = self.add_primitive("value", &primitives::VALUE);
                self.rules.add(&rule_name, value)
            }
        }
    }

    fn union_rule(&mut self, name: &str, alternatives: &'d [Node]) -> String {
        let separator = if name.is_empty() { "alternative-" } else { "-" };
        let rules: Vec<String> = alternatives
            .iter()
            .enumerate()
            .map(|(i, alt)| self.visit(alt, &format!("{name}{separator}{i}")))
            .collect();
        rules.join(" | ")
    }

    fn visit_object(&mut self, object: &'d ObjectNode, name: &str, rule_name: &str) -> String {
        if object.properties.is_empty() && matches!(object.additional.as_deref(), Some(Node::Any)) {
            let any_object = self.add_primitive("object", &primitives::OBJECT);
            return self.rules.add(rule_name, any_object);
        }
        let properties: Vec<(&'d str, &'d Node)> = object
            .properties
            .iter()
            .map(|p| (p.name.as_str(), &p.schema))
            .collect();
        let required: HashSet<&str> = object
            .properties
            .iter()
            .filter(|p| p.required)
            .map(|p| p.name.as_str())
            .collect();
        let rule =
            self.build_object_rule(&properties, &required, name, object.additional.as_deref());
        self.rules.add(rule_name, rule)
    }

    fn visit_tuple(&mut self, items: &'d [Node], name: &str, rule_name: &str) -> String {
        let mut rule = String::from("\"[\" space ");
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                rule.push_str(" \",\" space ");
            }
            let item_rule = self.visit(item, &format!("{}tuple-{i}", sub_name(name)));
            rule.push_str(&item_rule);
        }
        rule.push_str(" space \"]\"");
        self.rules.add(rule_name, rule)
    }

    fn visit_array(
        &mut self,
        items: &'d Node,
        min_items: i32,
        max_items: i32,
        name: &str,
        rule_name: &str,
    ) -> String {
        if matches!(items, Node::Any) && min_items == 0 && max_items < 0 {
            return self.visit_primitive(rule_name, &primitives::ARRAY);
        }
        let item_rule = self.visit(items, &format!("{}item", sub_name(name)));
        let max_items = if max_items < 0 { i32::MAX } else { max_items };
        let repetition =
            build_repetition(item_rule.as_bytes(), min_items, max_items, b"\",\" space");
        let rule = [b"\"[\" space ", repetition.as_slice(), b" space \"]\""].concat();
        self.rules.add(rule_name, rule)
    }

    fn visit_string(&mut self, string: &StringNode, rule_name: &str) -> String {
        if !string.pattern.is_empty() {
            return self.visit_pattern(&string.pattern, rule_name);
        }
        let formatted = match string.format {
            Format::None => None,
            Format::Uuid => return self.visit_primitive(rule_name, &primitives::UUID),
            Format::Date => Some(&primitives::DATE_STRING),
            Format::Time => Some(&primitives::TIME_STRING),
            Format::DateTime => Some(&primitives::DATE_TIME_STRING),
        };
        if let Some(builtin) = formatted {
            let formatted = self.add_primitive(builtin.name, builtin);
            return self.rules.add(rule_name, formatted);
        }
        if string.min_length > 0 || string.max_length >= 0 {
            let char_rule = self.add_primitive("char", &primitives::CHAR);
            let max_length = if string.max_length < 0 {
                i32::MAX
            } else {
                string.max_length
            };
            let repetition =
                build_repetition(char_rule.as_bytes(), string.min_length, max_length, b"");
            let rule = [b"\"\\\"\" ", repetition.as_slice(), b" \"\\\"\""].concat();
            return self.rules.add(rule_name, rule);
        }
        self.visit_primitive(rule_name, &primitives::STRING)
    }

    /// A pattern llama.cpp cannot turn into a grammar accepts any string (with a warning); one
    /// that is no regex is an error. Either way the rules it had added are taken back.
    fn visit_pattern(&mut self, pattern: &str, rule_name: &str) -> String {
        let snapshot = self.rules.clone();
        match pattern::pattern_rule(&mut self.rules, pattern, rule_name) {
            Ok(name) => name,
            Err(PatternError::Unsupported(why)) => {
                self.rules = snapshot;
                self.warnings.push(format!(
                    "pattern {pattern} is not supported ({why}), accepting any string"
                ));
                let string = self.add_primitive("string", &primitives::STRING);
                self.rules.add(rule_name, string)
            }
            Err(PatternError::Invalid(why)) => {
                self.rules = snapshot;
                self.errors
                    .push(format!("Invalid pattern {pattern}: {why}"));
                String::new()
            }
        }
    }

    fn visit_integer(&mut self, minimum: i64, maximum: i64, rule_name: &str) -> String {
        if minimum == i64::MIN && maximum == i64::MAX {
            return self.visit_primitive(rule_name, &primitives::INTEGER);
        }
        match int_range::min_max_int(minimum, maximum) {
            Ok(range) => self.rules.add(rule_name, format!("({range})")),
            Err(Unbounded) => {
                self.fail_fatally(Unbounded::MESSAGE.to_string());
                String::new()
            }
        }
    }

    /// A primitive keeps its own name (all strings refer to `string`), unless it is the root.
    fn visit_primitive(&mut self, rule_name: &str, builtin: &Builtin) -> String {
        let name = if rule_name == "root" {
            "root"
        } else {
            builtin.name
        };
        self.add_primitive(name, builtin)
    }

    /// Adds `builtin` under `name`, and the built-in rules it refers to that are not there yet.
    fn add_primitive(&mut self, name: &str, builtin: &Builtin) -> String {
        let added = self.rules.add(name, builtin.content);
        for &dep in builtin.deps {
            let Some(dep_rule) = primitives::find(dep) else {
                self.errors.push(format!("Rule {dep} not known"));
                continue;
            };
            if !self.rules.contains(dep) {
                self.add_primitive(dep, dep_rule);
            }
        }
        added
    }

    /// `allOf`: the intersection of its enums if they share values, otherwise one object
    /// with every member's properties (those of `anyOf` members optional).
    fn visit_all_of(&mut self, children: &'d [Node], name: &str, rule_name: &str) -> String {
        let mut parts = AllOfParts::default();
        let mut refs = Vec::new();
        for child in children {
            match child {
                Node::AnyOf(alternatives) => {
                    for alt in alternatives {
                        self.add_component(&mut parts, alt, false, &mut refs);
                    }
                }
                _ => self.add_component(&mut parts, child, true, &mut refs),
            }
        }
        let shared: Vec<&str> = parts
            .enum_values
            .iter()
            .filter(|&(_, &count)| count == children.len())
            .map(|(value, _)| value.as_str())
            .collect();
        if !shared.is_empty() {
            return self
                .rules
                .add(rule_name, format!("({})", shared.join(" | ")));
        }
        let rule = self.build_object_rule(&parts.properties, &parts.required, name, None);
        self.rules.add(rule_name, rule)
    }

    /// `refs` are the references being followed: llama.cpp follows a `$ref` that leads back
    /// to itself until its stack overflows and the process dies; here the loop adds nothing.
    fn add_component(
        &self,
        parts: &mut AllOfParts<'d>,
        component: &'d Node,
        required: bool,
        refs: &mut Vec<&'d str>,
    ) {
        match component {
            Node::Ref(r) => {
                if refs.contains(&r.as_str()) {
                    return;
                }
                if let Some(target) = self.document.refs.get(r) {
                    refs.push(r);
                    self.add_component(parts, target, required, refs);
                    refs.pop();
                }
            }
            Node::Object(object) => {
                for p in &object.properties {
                    parts.properties.push((p.name.as_str(), &p.schema));
                    if required {
                        parts.required.insert(p.name.as_str());
                    }
                }
            }
            Node::Enum(values) => {
                for value in values {
                    *parts.enum_values.entry(constant_rule(value)).or_default() += 1;
                }
            }
            _ => {}
        }
    }

    fn resolve_ref(&mut self, r: &'d str) -> String {
        let fragment = r.split_once('#').map_or(r, |(_, f)| f);
        let mut ref_name = format!("ref{}", sanitize_name(fragment));
        if !self.rules.contains(&ref_name) && !self.refs_being_resolved.contains(r) {
            let Some(target) = self.document.refs.get(r) else {
                self.errors.push(format!("Unresolved $ref {r}"));
                return String::new();
            };
            self.refs_being_resolved.insert(r);
            ref_name = self.visit(target, &ref_name);
            self.refs_being_resolved.remove(r);
        }
        ref_name
    }
}

/// What `allOf`'s members add up to.
#[derive(Default)]
struct AllOfParts<'d> {
    properties: Vec<(&'d str, &'d Node)>,
    required: HashSet<&'d str>,
    /// Each enum value's literal, and in how many members it is.
    enum_values: BTreeMap<String, usize>,
}

/// `name-`, the prefix of the rules under `name` (none under the root).
fn sub_name(name: &str) -> String {
    if name.is_empty() {
        String::new()
    } else {
        format!("{name}-")
    }
}
