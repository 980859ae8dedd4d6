//! The schema read into the subset that converts (llama.cpp's common/json-schema.cpp): which
//! keyword wins when several could, the defaults, and the errors with their JSON-pointer-like
//! paths are llama.cpp's.

use std::collections::{BTreeMap, HashSet};

use serde_json::{Map, Value};

use keywords::{count, format, integer, string};

mod keywords;

pub(super) enum Node {
    Any,
    /// A `#/…` reference; its target is in [`Document::refs`] under this text.
    Ref(String),
    /// `oneOf`/`anyOf`, or a `type` array (one branch a type).
    AnyOf(Vec<Node>),
    AllOf(Vec<Node>),
    Const(Value),
    Enum(Vec<Value>),
    Null,
    Boolean,
    Number,
    /// Inclusive bounds with the exclusive ones folded in; `i64::MIN`/`i64::MAX` for none.
    Integer {
        minimum: i64,
        maximum: i64,
    },
    String(StringNode),
    Array {
        items: Box<Node>,
        min_items: i32,
        /// -1 for no bound.
        max_items: i32,
    },
    /// `items`/`prefixItems` given as an array: one schema a position.
    Tuple(Vec<Node>),
    Object(ObjectNode),
}

pub(super) struct StringNode {
    /// Empty when absent.
    pub(super) pattern: String,
    pub(super) format: Format,
    pub(super) min_length: i32,
    /// -1 for no bound.
    pub(super) max_length: i32,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    None,
    Uuid,
    Date,
    Time,
    DateTime,
}

pub(super) struct ObjectNode {
    /// In the schema's order.
    pub(super) properties: Vec<Property>,
    /// `None` when no other property is allowed.
    pub(super) additional: Option<Box<Node>>,
}

pub(super) struct Property {
    pub(super) name: String,
    pub(super) schema: Node,
    pub(super) required: bool,
}

pub(super) struct Document {
    pub(super) root: Node,
    pub(super) refs: BTreeMap<String, Node>,
}

/// llama.cpp's wording: "JSON schema error at #/properties/x: …".
#[derive(Debug, thiserror::Error)]
#[error("JSON schema error at {path}: {message}")]
pub(super) struct BuildError {
    path: String,
    message: String,
}

fn fail<T>(path: &str, message: impl Into<String>) -> Result<T, BuildError> {
    Err(BuildError {
        path: path.to_string(),
        message: message.into(),
    })
}

pub(super) fn build(schema: &Value) -> Result<Document, BuildError> {
    let mut builder = Builder {
        root: schema,
        refs: BTreeMap::new(),
    };
    let root = builder.node(schema, "#")?;
    let refs = builder
        .refs
        .into_iter()
        .filter_map(|(r, node)| node.map(|n| (r, n)))
        .collect();
    Ok(Document { root, refs })
}

struct Builder<'a> {
    root: &'a Value,
    /// Each `$ref`'s target, built once; `None` while it is being built, so a cycle stops.
    refs: BTreeMap<String, Option<Node>>,
}

impl<'a> Builder<'a> {
    fn node(&mut self, schema: &Value, path: &str) -> Result<Node, BuildError> {
        let Some(obj) = schema.as_object() else {
            return fail(path, "schema must be an object");
        };
        if let Some(r) = obj.get("$ref") {
            return self.reference(r, path);
        }
        if let Some((key, alts)) = first_key(obj, &["oneOf", "anyOf"]) {
            return self
                .alternatives(alts, &format!("{path}/{key}"))
                .map(Node::AnyOf);
        }
        let type_ = obj.get("type").unwrap_or(&Value::Null);
        if let Value::Array(types) = type_ {
            return self.type_alternatives(obj, types, path);
        }
        if let Some(value) = obj.get("const") {
            return Ok(Node::Const(value.clone()));
        }
        if let Some(values) = obj.get("enum") {
            return match values {
                Value::Array(values) if !values.is_empty() => Ok(Node::Enum(values.clone())),
                _ => fail(path, "enum must be a non-empty array"),
            };
        }
        if !type_.is_null() && !type_.is_string() {
            return fail(path, "type must be a string or an array of strings");
        }
        self.typed(obj, type_.as_str().unwrap_or(""), path)
    }

    /// `{"type": ["a", "b"], …}` is `{"anyOf": [{"type": "a", …}, {"type": "b", …}]}`.
    fn type_alternatives(
        &mut self,
        obj: &Map<String, Value>,
        types: &[Value],
        path: &str,
    ) -> Result<Node, BuildError> {
        if types.is_empty() {
            return fail(path, "type must not be empty");
        }
        let mut children = Vec::with_capacity(types.len());
        for (i, t) in types.iter().enumerate() {
            let mut alt = obj.clone();
            alt.insert("type".to_string(), t.clone());
            children.push(self.node(&Value::Object(alt), &format!("{path}/type/{i}"))?);
        }
        Ok(Node::AnyOf(children))
    }

    fn typed(
        &mut self,
        obj: &Map<String, Value>,
        type_name: &str,
        path: &str,
    ) -> Result<Node, BuildError> {
        let has_properties = obj.contains_key("properties")
            || obj
                .get("additionalProperties")
                .is_some_and(|a| *a != Value::Bool(true));
        let all_of = |b: &mut Self| match obj.get("allOf") {
            Some(alts) => b
                .alternatives(alts, &format!("{path}/allOf"))
                .map(|c| Some(Node::AllOf(c))),
            None => Ok(None),
        };
        match type_name {
            // Without a type the structural keywords decide, in this order.
            "" => {
                if has_properties {
                    return self.object(obj, path);
                }
                if let Some(node) = all_of(self)? {
                    return Ok(node);
                }
                if obj.contains_key("items") || obj.contains_key("prefixItems") {
                    return self.array(obj, path);
                }
                if obj.contains_key("pattern")
                    || obj.contains_key("minLength")
                    || obj.contains_key("maxLength")
                    || format(obj, path)? != Format::None
                {
                    return string(obj, path);
                }
                Ok(Node::Any)
            }
            "object" => {
                if !has_properties && let Some(node) = all_of(self)? {
                    return Ok(node);
                }
                self.object(obj, path)
            }
            "string" => match all_of(self)? {
                Some(node) => Ok(node),
                None => string(obj, path),
            },
            "array" => self.array(obj, path),
            "integer" => integer(obj, path),
            "number" => Ok(Node::Number),
            "boolean" => Ok(Node::Boolean),
            "null" => Ok(Node::Null),
            other => fail(path, format!("unrecognized type {other}")),
        }
    }

    fn reference(&mut self, value: &Value, path: &str) -> Result<Node, BuildError> {
        let Some(r) = value.as_str() else {
            return fail(path, "$ref must be a string");
        };
        if !r.starts_with("#/") {
            return fail(
                path,
                format!(
                    "unsupported $ref {r}, only references into the same document are supported"
                ),
            );
        }
        if !self.refs.contains_key(r) {
            self.refs.insert(r.to_string(), None);
            let target = resolve(self.root, r, path)?;
            let node = self.node(target, r)?;
            self.refs.insert(r.to_string(), Some(node));
        }
        Ok(Node::Ref(r.to_string()))
    }

    fn alternatives(&mut self, alts: &Value, path: &str) -> Result<Vec<Node>, BuildError> {
        let Some(alts) = alts.as_array() else {
            return fail(path, "must be an array of schemas");
        };
        if alts.is_empty() {
            return fail(path, "must not be empty");
        }
        alts.iter()
            .enumerate()
            .map(|(i, alt)| self.node(alt, &format!("{path}/{i}")))
            .collect()
    }

    fn object(&mut self, obj: &Map<String, Value>, path: &str) -> Result<Node, BuildError> {
        let required: HashSet<&str> = match obj.get("required") {
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
            _ => HashSet::new(),
        };
        let mut properties = Vec::new();
        if let Some(props) = obj.get("properties") {
            let Some(props) = props.as_object() else {
                return fail(path, "properties must be an object");
            };
            for (name, prop) in props {
                properties.push(Property {
                    name: name.clone(),
                    schema: self.node(prop, &format!("{path}/properties/{name}"))?,
                    required: required.contains(name.as_str()),
                });
            }
        }
        let additional = match obj.get("additionalProperties") {
            Some(Value::Bool(true)) => Some(Box::new(Node::Any)),
            Some(Value::Bool(false)) => None,
            Some(schema @ Value::Object(_)) => Some(Box::new(
                self.node(schema, &format!("{path}/additionalProperties"))?,
            )),
            Some(_) => return fail(path, "additionalProperties must be a boolean or a schema"),
            // `{"type": "object"}` on its own accepts any object.
            None if !obj.contains_key("properties") => Some(Box::new(Node::Any)),
            None => None,
        };
        Ok(Node::Object(ObjectNode {
            properties,
            additional,
        }))
    }

    fn array(&mut self, obj: &Map<String, Value>, path: &str) -> Result<Node, BuildError> {
        let items = match first_key(obj, &["items", "prefixItems"]) {
            Some((key, Value::Array(items))) => {
                let mut tuple = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    tuple.push(self.node(item, &format!("{path}/{key}/{i}"))?);
                }
                return Ok(Node::Tuple(tuple));
            }
            Some((key, items)) => self.node(items, &format!("{path}/{key}"))?,
            None => Node::Any,
        };
        Ok(Node::Array {
            items: Box::new(items),
            min_items: count(obj, "minItems", path, 0)?,
            max_items: count(obj, "maxItems", path, -1)?,
        })
    }
}

/// The first of `keys` present in `obj`, with its value.
fn first_key<'v>(
    obj: &'v Map<String, Value>,
    keys: &[&'static str],
) -> Option<(&'static str, &'v Value)> {
    keys.iter().find_map(|&k| obj.get(k).map(|v| (k, v)))
}

/// The value `r` (`#/a/b/0`) points at in `root`. The path's parts are used as written
/// (llama.cpp does not undo `~0`/`~1`), and array indices are read like C's `strtoull`.
fn resolve<'a>(root: &'a Value, r: &str, path: &str) -> Result<&'a Value, BuildError> {
    let mut target = root;
    for sel in r[1..].split('/').skip(1) {
        if let Some(next) = target.as_object().and_then(|o| o.get(sel)) {
            target = next;
        } else if let Some(items) = target.as_array() {
            let index = strtoull(sel).unwrap_or(items.len() as u64);
            match usize::try_from(index).ok().and_then(|i| items.get(i)) {
                Some(next) => target = next,
                None => {
                    return fail(
                        path,
                        format!("cannot resolve $ref {r}, {sel} is out of range"),
                    );
                }
            }
        } else {
            return fail(path, format!("cannot resolve $ref {r}, {sel} not found"));
        }
    }
    Ok(target)
}

/// C's `strtoull` as `std::stoull` uses it: leading blanks, a sign (a minus wraps), digits,
/// and anything after them ignored; `None` when there are no digits or they overflow.
fn strtoull(text: &str) -> Option<u64> {
    let text = text.trim_start_matches([' ', '\t', '\n', '\u{b}', '\u{c}', '\r']);
    let (negative, text) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let value: u64 = text[..digits].parse().ok()?;
    Some(if negative {
        value.wrapping_neg()
    } else {
        value
    })
}
