//! The grammar a tool call is forced into once the model starts one: a JSON object naming one
//! of the declared tools, with arguments that fit that tool's schema, inside the fence or tag
//! that started it. Our port of llama.cpp's JSON-schema converter turns the schemas into GBNF
//! (byte for byte what llama.cpp writes, held to it by the fixtures of `tests/schema_grammar.rs`);
//! the grammar is lazy (see [`TRIGGERS`]), so prose before a call is free and the call itself
//! cannot be malformed.

use protocol::ToolDefinition;
use serde_json::{Value, json};

/// The grammar's start rule (the converter names its own start `root`).
pub const ROOT: &str = "tandem-call";

/// Words that start a call: the grammar applies from the first of these in the reply. The
/// fence is what Qwen-Coder writes, the tag is its template's form, and a bare object is what
/// small models write when they drop the fence (the same words the stream shows as a call).
pub const TRIGGERS: [&str; 3] = llm::CALL_STARTS;

#[derive(Debug, thiserror::Error)]
#[error("the tools' schemas do not convert to a grammar: {0}")]
pub struct GrammarError(String);

impl GrammarError {
    pub fn new(detail: String) -> Self {
        GrammarError(detail)
    }
}

/// One schema that any call to any of `tools` fits: `{"name": <that tool>, "arguments": <its
/// schema>}`, one branch per tool.
pub fn calls_schema(tools: &[ToolDefinition]) -> Value {
    let branches: Vec<Value> = tools
        .iter()
        .map(|t| {
            json!({
                "type": "object",
                "properties": {
                    "name": {"const": t.name},
                    "arguments": arguments_schema(&t.input_schema),
                },
                "required": ["name", "arguments"],
                "additionalProperties": false,
            })
        })
        .collect();
    json!({ "oneOf": branches })
}

/// A tool's schema as the converter should see it: an object even when the tool declared
/// nothing (some tools take no arguments and say `{}`), without `$schema` (it names the draft
/// and is no constraint), and with its local `$ref`s written out in place: nested under
/// `arguments`, a `#/$defs/…` would point at the combined schema's root, which has no `$defs`.
fn arguments_schema(schema: &Value) -> Value {
    let mut s = match schema {
        Value::Object(o) if !o.is_empty() => inline_refs(schema, schema, 0),
        _ => json!({"type": "object"}),
    };
    if let Some(o) = s.as_object_mut() {
        o.remove("$schema");
        o.remove("$defs");
        o.remove("definitions");
    }
    s
}

/// Deep enough for any tool's arguments; a `$ref` that loops becomes "anything" here.
const MAX_REF_DEPTH: usize = 16;

fn inline_refs(value: &Value, root: &Value, depth: usize) -> Value {
    match value {
        Value::Object(o) => {
            if let Some(target) = o
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix('#'))
                .and_then(|pointer| root.pointer(pointer))
            {
                if depth >= MAX_REF_DEPTH {
                    return json!({});
                }
                // Keywords beside the `$ref` (a description) are kept; the target's win.
                let mut out: serde_json::Map<String, Value> = o
                    .iter()
                    .filter(|(k, _)| k.as_str() != "$ref")
                    .map(|(k, v)| (k.clone(), inline_refs(v, root, depth)))
                    .collect();
                if let Value::Object(t) = inline_refs(target, root, depth + 1) {
                    out.extend(t);
                }
                return Value::Object(out);
            }
            Value::Object(
                o.iter()
                    .map(|(k, v)| (k.clone(), inline_refs(v, root, depth)))
                    .collect(),
            )
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| inline_refs(v, root, depth)).collect())
        }
        other => other.clone(),
    }
}

/// The GBNF for calls to `tools`, start rule [`ROOT`].
pub fn grammar(tools: &[ToolDefinition]) -> Result<String, GrammarError> {
    let body = crate::schema_grammar::json_schema_to_grammar(&calls_schema(tools))
        .map_err(|e| GrammarError(e.to_string()))?;
    Ok(format!(
        "{body}\n{ROOT} ::= \"```json\" \"\\n\"? root \"\\n\"? \"```\" | \"<tool_call>\" \"\\n\"? root \"\\n\"? \"</tool_call>\" | root\n"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, schema: Value) -> ToolDefinition {
        ToolDefinition {
            name: name.into(),
            description: String::new(),
            input_schema: schema,
        }
    }

    #[test]
    fn each_tool_is_a_branch_with_its_name_fixed() {
        let s = calls_schema(&[
            tool(
                "read_file",
                json!({"type":"object","properties":{"path":{"type":"string"}},"$schema":"x"}),
            ),
            tool("finish", json!({})),
        ]);
        let b = s["oneOf"].as_array().expect("branches");
        assert_eq!(b.len(), 2);
        assert_eq!(b[0]["properties"]["name"]["const"], "read_file");
        assert!(b[0]["properties"]["arguments"].get("$schema").is_none());
        assert_eq!(b[1]["properties"]["arguments"]["type"], "object");
    }

    #[test]
    fn local_refs_are_written_out_in_place() {
        let s = arguments_schema(&json!({
            "type": "object",
            "properties": {"action": {"$ref": "#/$defs/Action", "description": "what"}},
            "$defs": {"Action": {"type": "string", "enum": ["create", "list"]}}
        }));
        assert_eq!(s["properties"]["action"]["enum"], json!(["create", "list"]));
        assert_eq!(s["properties"]["action"]["description"], "what");
        assert!(s.get("$defs").is_none());
    }

    #[test]
    fn a_ref_that_loops_stops() {
        let s = arguments_schema(&json!({
            "type": "object",
            "properties": {"node": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}}
        }));
        assert_eq!(s["properties"]["node"]["type"], "object");
    }

    #[test]
    fn the_grammar_converts_and_wraps_the_fence() {
        let g = grammar(&[tool(
            "read_file",
            json!({"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}),
        )])
        .expect("grammar");
        assert!(g.contains("root ::="));
        assert!(g.contains(&format!("{ROOT} ::=")));
        assert!(g.contains("read_file"));
    }
}
