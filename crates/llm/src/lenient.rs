//! Tool calls written as text. Small local models (llama.cpp's server with its stock template,
//! servers without tool support) write their calls as ```json {"name", "arguments"}``` blocks,
//! often several in one reply because they plan every step at once. Lenient mode takes the
//! first block that names an offered tool with arguments that fit its schema, and reports the
//! rest, so the model can be told that one call runs per reply and which did not run.

use protocol::ToolDefinition;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// What lenient mode did with the calls a reply wrote as ```json blocks (set on
/// [`crate::ChatResponse::lenient`] when the text held at least one).
///
/// The model believes every block it wrote will run. Only `call_id` does (if set), so the
/// agent tells it what happened: it appends [`LenientCalls::note`] to the result of the call
/// `call_id`; when no block fitted (`call_id` is `None`) there is no tool result, and the note
/// goes to the model as the next user message instead of ending the turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LenientCalls {
    /// The id of the call taken from the text (in the message's tool_use blocks), if a block
    /// fitted a tool.
    pub call_id: Option<String>,
    /// Every other block written as a call, in the order written, with why it did not run.
    pub not_run: Vec<NotRun>,
}

/// A block written as a call that did not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotRun {
    /// The tool it named.
    pub name: String,
    pub reason: NotRunReason,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotRunReason {
    /// The request offered no tool of that name.
    UnknownTool,
    /// The arguments do not fit the tool's schema (what is wrong, in words for the model).
    ArgumentsDoNotFit(String),
    /// An earlier block was taken: one call runs per reply.
    OnePerReply,
}

impl LenientCalls {
    /// The words for the model, or `None` when there is nothing it needs to hear (its one
    /// block ran).
    pub fn note(&self) -> Option<String> {
        if self.not_run.is_empty() {
            return None;
        }
        let mut reasons: Vec<String> = Vec::new();
        let mut later: Vec<String> = Vec::new();
        for n in &self.not_run {
            match &n.reason {
                NotRunReason::UnknownTool => {
                    reasons.push(format!("`{}` (there is no such tool)", n.name));
                }
                NotRunReason::ArgumentsDoNotFit(why) => {
                    reasons.push(format!("`{}` (its arguments do not fit: {why})", n.name));
                }
                NotRunReason::OnePerReply => later.push(format!("`{}`", n.name)),
            }
        }
        if !later.is_empty() {
            reasons.push(format!("{} (one call per reply)", later.join(", ")));
        }
        let reasons = reasons.join(", ");
        Some(match self.call_id {
            Some(_) => format!(
                "Only one tool call runs per reply: the first of your ```json blocks that fits a tool ran, and this is its result. Not run: {reasons}. Send the next call in your next reply, one per reply."
            ),
            None => format!(
                "None of your ```json blocks ran: {reasons}. Write one call per reply as ```json {{\"name\": \"<tool>\", \"arguments\": {{...}}}}``` with a tool you were given and the arguments its schema asks for."
            ),
        })
    }
}

/// A call taken from the text.
pub(crate) struct Taken {
    pub id: String,
    pub name: String,
    pub input: Value,
    /// The text before the taken block: the blocks after it are reported, not kept as prose.
    pub text_before: String,
}

pub(crate) struct Found {
    pub taken: Option<Taken>,
    pub report: LenientCalls,
}

impl Found {
    /// What the user is told.
    pub fn notice(&self) -> String {
        let others = self.report.not_run.len();
        match &self.taken {
            Some(t) if others == 0 => format!(
                "the model wrote its call to `{}` as a JSON block in its text; it was taken as a tool call (lenient mode)",
                t.name
            ),
            Some(t) => format!(
                "the model wrote its calls as JSON blocks in its text; the call to `{}` was taken as a tool call, {others} other blocks written as calls did not run (lenient mode: one call per reply)",
                t.name
            ),
            None => format!(
                "the model wrote {others} tool calls as JSON blocks in its text, but none fits a tool, so none ran (lenient mode)"
            ),
        }
    }
}

/// The calls written as blocks in `text`, the first that fits one of `tools` taken; `None`
/// when no block is written as a call.
pub(crate) fn find_calls(text: &str, tools: &[ToolDefinition]) -> Option<Found> {
    let mut taken: Option<Taken> = None;
    let mut not_run = Vec::new();
    for (start, written) in written_calls(text) {
        if taken.is_some() {
            not_run.push(NotRun {
                name: written.name,
                reason: NotRunReason::OnePerReply,
            });
            continue;
        }
        let Some(tool) = tools.iter().find(|t| t.name == written.name) else {
            not_run.push(NotRun {
                name: written.name,
                reason: NotRunReason::UnknownTool,
            });
            continue;
        };
        let misfit = match &written.arguments {
            Ok(input) => misfit(&tool.input_schema, input),
            Err(why) => Some(why.clone()),
        };
        match (misfit, written.arguments) {
            (None, Ok(input)) => {
                taken = Some(Taken {
                    id: text_call_id(),
                    name: written.name,
                    input,
                    text_before: text[..start].trim_end().to_string(),
                });
            }
            (why, _) => not_run.push(NotRun {
                name: written.name,
                reason: NotRunReason::ArgumentsDoNotFit(why.unwrap_or_default()),
            }),
        }
    }
    if taken.is_none() && not_run.is_empty() {
        return None;
    }
    Some(Found {
        report: LenientCalls {
            call_id: taken.as_ref().map(|t| t.id.clone()),
            not_run,
        },
        taken,
    })
}

/// A block written as a call: the tool's name, and its arguments as an object or why they
/// are not one.
struct Written {
    name: String,
    arguments: Result<Value, String>,
}

/// Every call written in the text, with where it starts, in the order written: fenced blocks
/// holding `{"name": …}` (or an array of them), `<tool_call>…</tool_call>` tags (the Qwen
/// templates' own form), and such an object on lines of its own without a fence (a small model
/// drops the fence as often as it writes it). Blocks of other code are not calls and are skipped.
fn written_calls(text: &str) -> Vec<(usize, Written)> {
    let mut out = Vec::new();
    // Where fenced and tagged blocks are, so a bare object inside one is not counted twice.
    let mut taken_spans: Vec<(usize, usize)> = Vec::new();
    let mut pos = 0;
    while let Some(found) = text[pos..].find("```") {
        let open = pos + found;
        let after_fence = open + 3;
        // The language tag (`json`, `tool_call`, none).
        let tag_len = text[after_fence..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(text.len() - after_fence);
        let body = after_fence + tag_len;
        let Some(len) = text[body..].find("```") else {
            break;
        };
        // A call whose string holds a fence of its own (a file's content written as
        // ```python … ```) ends at the first fence after which the block is whole JSON.
        let close = text[body..]
            .match_indices("```")
            .map(|(i, _)| body + i)
            .find(|&c| serde_json::from_str::<Value>(text[body..c].trim()).is_ok())
            .unwrap_or(body + len);
        pos = close + 3;
        taken_spans.push((open, pos));
        push_calls(&text[body..close], open, &mut out);
    }
    let mut pos = 0;
    while let Some(found) = text[pos..].find("<tool_call>") {
        let open = pos + found;
        let body = open + "<tool_call>".len();
        let close = text[body..]
            .find("</tool_call>")
            .map_or(text.len(), |l| body + l);
        pos = (close + "</tool_call>".len()).min(text.len());
        if taken_spans.iter().any(|&(a, b)| open >= a && open < b) {
            continue;
        }
        taken_spans.push((open, pos));
        push_calls(&text[body..close], open, &mut out);
    }
    for (at, object) in bare_objects(text, &taken_spans) {
        if let Some(w) = written(&object) {
            out.push((at, w));
        }
    }
    out.sort_by_key(|(at, _)| *at);
    out
}

fn push_calls(body: &str, at: usize, out: &mut Vec<(usize, Written)>) {
    let items = match serde_json::from_str::<Value>(body.trim()) {
        Ok(Value::Array(items)) => items,
        Ok(one) => vec![one],
        // Several objects one after the other in one block (a small model planning every
        // step at once): each is a call, in order, as far as they parse.
        Err(_) => serde_json::Deserializer::from_str(body)
            .into_iter::<Value>()
            .map_while(Result::ok)
            .collect(),
    };
    out.extend(items.iter().filter_map(written).map(|w| (at, w)));
}

/// At most this many unfenced objects are tried: a reply of prose with braces stays cheap.
const BARE_TRIES: usize = 32;

/// JSON objects that start a line outside any block, each parsed from there to its end.
fn bare_objects(text: &str, blocks: &[(usize, usize)]) -> Vec<(usize, Value)> {
    let mut out = Vec::new();
    // Where each object found ends: a line inside one is not the start of another.
    let mut ends: Vec<(usize, usize)> = Vec::new();
    let mut tries = 0;
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let at = line_start + (line.len() - line.trim_start().len());
        line_start += line.len();
        if !text[at..].starts_with('{') || blocks.iter().any(|&(a, b)| at >= a && at < b) {
            continue;
        }
        if ends.iter().any(|&(start, end)| at > start && at < end) {
            continue;
        }
        tries += 1;
        if tries > BARE_TRIES {
            break;
        }
        let mut stream = serde_json::Deserializer::from_str(&text[at..]).into_iter::<Value>();
        if let Some(Ok(v @ Value::Object(_))) = stream.next() {
            ends.push((at, at + stream.byte_offset()));
            out.push((at, v));
        }
    }
    out
}

fn written(v: &Value) -> Option<Written> {
    let name = v.get("name")?.as_str()?.to_string();
    let args = v
        .get("arguments")
        .or_else(|| v.get("parameters"))
        .cloned()
        .unwrap_or(json!({}));
    let arguments = match args {
        Value::String(s) => serde_json::from_str::<Value>(&s)
            .map_err(|_| "the arguments are a string that is not JSON".to_string()),
        other => Ok(other),
    }
    .and_then(|a| {
        a.is_object()
            .then_some(a)
            .ok_or_else(|| "the arguments must be a JSON object".to_string())
    });
    Some(Written { name, arguments })
}

/// Why `value` does not fit `schema`, or `None` when it does. The part of JSON Schema that
/// tool schemas use (type, properties, required, additionalProperties, items, enum, const,
/// anyOf/oneOf/allOf, local `$ref`); any other keyword is taken as fitting, so a schema this
/// does not understand never refuses a call the tool would take.
fn misfit(schema: &Value, value: &Value) -> Option<String> {
    let mut problems = Vec::new();
    check(schema, schema, value, "", 0, &mut problems);
    if problems.is_empty() {
        return None;
    }
    problems.truncate(3);
    Some(problems.join("; "))
}

/// Deep enough for any tool's arguments; a `$ref` that loops stops here.
const MAX_SCHEMA_DEPTH: usize = 32;

fn check(
    root: &Value,
    schema: &Value,
    value: &Value,
    at: &str,
    depth: usize,
    problems: &mut Vec<String>,
) {
    let Some(s) = schema.as_object() else {
        return;
    };
    if depth > MAX_SCHEMA_DEPTH {
        return;
    }
    let fits = |branch: &Value| {
        let mut p = Vec::new();
        check(root, branch, value, at, depth + 1, &mut p);
        p.is_empty()
    };
    if let Some(target) = s
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|pointer| root.pointer(pointer))
    {
        check(root, target, value, at, depth + 1, problems);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = s.get(key).and_then(Value::as_array)
            && !branches.iter().any(fits)
        {
            problems.push(format!("{} is none of the allowed forms", named(at)));
        }
    }
    for branch in s
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        check(root, branch, value, at, depth + 1, problems);
    }
    let types: Vec<&str> = match s.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if !types.is_empty() && !types.iter().any(|t| is_type(value, t)) {
        problems.push(format!("{} must be {}", named(at), types.join(" or ")));
        return;
    }
    if let Some(allowed) = s.get("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        let list: Vec<String> = allowed.iter().take(8).map(Value::to_string).collect();
        problems.push(format!("{} must be one of {}", named(at), list.join(", ")));
    }
    if let Some(c) = s.get("const")
        && c != value
    {
        problems.push(format!("{} must be {c}", named(at)));
    }
    if let Some(map) = value.as_object() {
        let props = s.get("properties").and_then(Value::as_object);
        if s.get("additionalProperties") == Some(&Value::Bool(false)) {
            for k in map.keys() {
                if !props.is_some_and(|p| p.contains_key(k)) {
                    problems.push(format!("unknown argument `{}`", join(at, k)));
                }
            }
        }
        for r in s
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !map.contains_key(r) {
                problems.push(format!("missing `{}`", join(at, r)));
            }
        }
        for (k, v) in map {
            if let Some(sub) = props.and_then(|p| p.get(k)) {
                check(root, sub, v, &join(at, k), depth + 1, problems);
            }
        }
    }
    if let (Some(items), Some(sub)) = (value.as_array(), s.get("items")) {
        for (i, v) in items.iter().enumerate() {
            check(root, sub, v, &format!("{at}[{i}]"), depth + 1, problems);
        }
    }
}

fn is_type(v: &Value, t: &str) -> bool {
    match t {
        "string" => v.is_string(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        "null" => v.is_null(),
        _ => true,
    }
}

fn named(at: &str) -> String {
    if at.is_empty() {
        "the arguments".into()
    } else {
        format!("`{at}`")
    }
}

fn join(at: &str, key: &str) -> String {
    if at.is_empty() {
        key.to_string()
    } else {
        format!("{at}.{key}")
    }
}

/// An id for a call taken from text, unique in the session: the transcript, approvals and the
/// conversation name a call by its id, and every reply of a session has one (a fixed id made
/// each new call's card take over the previous one). The time keeps ids apart across restarts.
fn text_call_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    format!("text_call_{ms}_{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools() -> Vec<ToolDefinition> {
        // The shapes schemars writes for the real tools: nullable types, `$defs`, no extras.
        let read = json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "offset": {"type": ["integer", "null"], "format": "int64"},
            },
            "required": ["path"],
            "additionalProperties": false,
        });
        let edit = json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "edits": {"type": ["array", "null"], "items": {"$ref": "#/$defs/Edit"}},
                "mode": {"oneOf": [{"const": "exact"}, {"const": "fuzzy"}]},
            },
            "required": ["path"],
            "additionalProperties": false,
            "$defs": {"Edit": {
                "type": "object",
                "properties": {"old_string": {"type": "string"}, "new_string": {"type": "string"}},
                "required": ["old_string", "new_string"],
            }},
        });
        [("read_file", read), ("edit_file", edit)]
            .into_iter()
            .map(|(n, s)| ToolDefinition {
                name: n.into(),
                description: String::new(),
                input_schema: s,
            })
            .collect()
    }

    fn block(v: Value) -> String {
        format!("```json\n{v}\n```")
    }

    #[test]
    fn several_objects_in_one_fence_are_calls_in_order() {
        // Recorded from Qwen2.5-Coder-1.5B in-process (the built-in model, before its grammar
        // held): every step of the plan in one block, one object per line.
        let text = "```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"calc.py\"}}\n{\"name\": \"edit_file\", \"arguments\": {\"path\": \"calc.py\"}}\n{\"name\": \"run_command\", \"arguments\": {\"command\": \"python3 -m unittest\"}}\n```";
        let found = find_calls(text, &tools()).expect("calls");
        let taken = found.taken.expect("taken");
        assert_eq!(taken.name, "read_file");
        assert_eq!(found.report.not_run.len(), 2);
        assert_eq!(found.report.not_run[0].reason, NotRunReason::OnePerReply);
        assert_eq!(found.report.not_run[1].reason, NotRunReason::OnePerReply);
    }

    #[test]
    fn a_call_without_a_fence_or_in_tool_call_tags_is_taken_too() {
        // Recorded from Qwen2.5-Coder-1.5B under llama-server's stock template: the second
        // call of a run came without its fence, and the turn ended on it.
        let text = "Ran 2 tests in 0.000s\n\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"calc.py\"}}";
        let found = find_calls(text, &tools()).expect("a call");
        let taken = found.taken.expect("taken");
        assert_eq!(taken.name, "read_file");
        assert_eq!(taken.input, json!({"path": "calc.py"}));
        let tagged = "I will read it.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.rs\"}}\n</tool_call>";
        let taken = find_calls(tagged, &tools())
            .expect("a call")
            .taken
            .expect("taken");
        assert_eq!(taken.input, json!({"path": "a.rs"}));
        assert_eq!(taken.text_before, "I will read it.");
        // Prose with braces, and code that is not a call, are not calls.
        assert!(find_calls("Use {x} here.\n{\"a\": 1}\n", &tools()).is_none());
        // A fenced call is not counted a second time as a bare one.
        let fenced = block(json!({"name": "read_file", "arguments": {"path": "a.rs"}}));
        let found = find_calls(&fenced, &tools()).expect("a call");
        assert!(
            found.report.not_run.is_empty(),
            "{:?}",
            found.report.not_run
        );
    }

    #[test]
    fn every_call_taken_from_text_has_its_own_id() {
        let text = block(json!({"name": "read_file", "arguments": {"path": "a"}}));
        let id = || {
            find_calls(&text, &tools())
                .and_then(|f| f.taken)
                .map(|t| t.id)
                .expect("a call")
        };
        let (a, b) = (id(), id());
        assert_ne!(a, b, "two replies' calls share an id");
        assert!(
            a.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
            "{a}: Anthropic takes only [a-zA-Z0-9_-]"
        );
    }

    #[test]
    fn a_lone_block_is_taken_whole_and_needs_no_note() {
        let f = find_calls(
            &block(json!({"name": "read_file", "arguments": {"path": "a"}})),
            &tools(),
        )
        .expect("a call");
        let t = f.taken.as_ref().expect("taken");
        assert_eq!(
            (t.name.as_str(), &t.input, t.text_before.as_str()),
            ("read_file", &json!({"path": "a"}), "")
        );
        assert_eq!(f.report.note(), None);
        let args_as_text = format!(
            "Sure: ```{}```",
            json!({"name": "read_file", "parameters": "{\"path\": \"b\"}"})
        );
        let f = find_calls(&args_as_text, &tools()).expect("one line, arguments as a string");
        assert_eq!(f.taken.map(|t| t.input), Some(json!({"path": "b"})));
    }

    #[test]
    fn the_first_block_that_fits_is_taken_and_the_rest_reported() {
        let text = [
            "Plan:".to_string(),
            block(json!({"name": "plan", "arguments": {}})),
            block(json!({"name": "read_file", "arguments": {"file": "a", "offset": "x"}})),
            "Code, not a call:".into(),
            "```python\nprint(1)\n```".into(),
            block(json!({"name": "edit_file", "arguments": {"path": "a", "edits": [{"old_string": "x"}]}})),
            "Now:".into(),
            block(json!([{"name": "read_file", "arguments": {"path": "a", "offset": 3}}, {"name": "edit_file", "arguments": {"path": "a"}}])),
            block(json!({"name": "read_file", "arguments": {"path": "b"}})),
        ]
        .join("\n");
        let f = find_calls(&text, &tools()).expect("calls");
        let t = f.taken.as_ref().expect("taken");
        assert_eq!(t.input, json!({"path": "a", "offset": 3}));
        assert!(t.text_before.ends_with("Now:"), "{}", t.text_before);
        let reasons: Vec<(&str, &NotRunReason)> = f
            .report
            .not_run
            .iter()
            .map(|n| (n.name.as_str(), &n.reason))
            .collect();
        assert_eq!(
            reasons,
            [
                ("plan", &NotRunReason::UnknownTool),
                (
                    "read_file",
                    &NotRunReason::ArgumentsDoNotFit(
                        "unknown argument `file`; missing `path`; `offset` must be integer or null"
                            .into()
                    )
                ),
                (
                    "edit_file",
                    &NotRunReason::ArgumentsDoNotFit("missing `edits[0].new_string`".into())
                ),
                ("edit_file", &NotRunReason::OnePerReply),
                ("read_file", &NotRunReason::OnePerReply),
            ]
        );
        let note = f.report.note().expect("a note");
        assert!(note.contains("Only one tool call runs per reply"), "{note}");
        assert!(note.contains("`plan` (there is no such tool)"), "{note}");
        assert!(
            note.contains("`edit_file`, `read_file` (one call per reply)"),
            "{note}"
        );
        assert!(
            f.notice()
                .contains("5 other blocks written as calls did not run"),
            "{}",
            f.notice()
        );
    }

    #[test]
    fn when_nothing_fits_nothing_is_taken_but_the_model_is_told_why() {
        let text = block(json!({"name": "edit_file", "arguments": {"path": "a", "mode": "wild"}}));
        let f = find_calls(&text, &tools()).expect("written as a call");
        assert!(f.taken.is_none());
        let note = f.report.note().expect("a note");
        assert!(
            note.starts_with("None of your ```json blocks ran"),
            "{note}"
        );
        assert!(
            note.contains("`mode` is none of the allowed forms"),
            "{note}"
        );
        assert!(find_calls("```json\n{\"arguments\": {}}\n```", &tools()).is_none());
        assert!(find_calls("no blocks at all", &tools()).is_none());
        assert!(
            find_calls("```json\n{\"name\": \"read_file\"", &tools()).is_none(),
            "unclosed"
        );
    }

    #[test]
    fn a_schema_that_refers_to_itself_does_not_recurse_forever() {
        let looped = json!({"$ref": "#", "type": "object"});
        assert_eq!(misfit(&looped, &json!({"a": 1})), None);
    }

    #[test]
    fn a_fence_inside_a_calls_string_does_not_end_the_block() {
        // make bench-agent, py-unique: the content of a write was itself fenced.
        let text = "```json\n{\"name\":\"read_file\",\"arguments\":{\"path\":\"```python\\nx\\n```\"}}\n```";
        let found = find_calls(text, &tools()).expect("a call");
        let taken = found.taken.expect("taken");
        assert_eq!(taken.name, "read_file");
        assert_eq!(taken.input["path"], "```python\nx\n```");
    }
}
