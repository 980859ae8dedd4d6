//! The keywords of strings, integers and arrays read as llama.cpp reads them: nlohmann's
//! conversions (truncating casts), C++'s float to integer cast, and its errors.

use serde_json::{Map, Value};

use super::{BuildError, Format, Node, StringNode, fail};

pub(super) fn string(obj: &Map<String, Value>, path: &str) -> Result<Node, BuildError> {
    let pattern = match obj.get("pattern") {
        Some(Value::String(p)) => p.clone(),
        Some(_) => return fail(path, "pattern must be a string"),
        None => String::new(),
    };
    Ok(Node::String(StringNode {
        pattern,
        format: format(obj, path)?,
        min_length: count(obj, "minLength", path, 0)?,
        max_length: count(obj, "maxLength", path, -1)?,
    }))
}

pub(super) fn integer(obj: &Map<String, Value>, path: &str) -> Result<Node, BuildError> {
    let minimum = match (obj.get("minimum"), obj.get("exclusiveMinimum")) {
        (Some(v), _) => bound(v, "minimum", path, true)?,
        (None, Some(v)) => bound(v, "exclusiveMinimum", path, false)?.wrapping_add(1),
        (None, None) => i64::MIN,
    };
    let maximum = match (obj.get("maximum"), obj.get("exclusiveMaximum")) {
        (Some(v), _) => bound(v, "maximum", path, false)?,
        (None, Some(v)) => bound(v, "exclusiveMaximum", path, true)?.wrapping_sub(1),
        (None, None) => i64::MAX,
    };
    Ok(Node::Integer { minimum, maximum })
}

/// A fractional bound is rounded inwards, towards the integers it still admits.
fn bound(value: &Value, key: &str, path: &str, round_up: bool) -> Result<i64, BuildError> {
    if let Some(i) = value.as_i64() {
        return Ok(i);
    }
    if let Some(u) = value.as_u64() {
        // nlohmann's get<int64_t> of an unsigned: a plain cast.
        return Ok(u as i64);
    }
    let Some(d) = value.as_f64() else {
        return fail(path, format!("{key} must be a number"));
    };
    Ok(double_to_i64(if round_up { d.ceil() } else { d.floor() }))
}

/// C++'s `(int64_t) d` on x86-64: out of range (or NaN) gives `i64::MIN`.
fn double_to_i64(d: f64) -> i64 {
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if d.is_nan() || !(-LIMIT..LIMIT).contains(&d) {
        i64::MIN
    } else {
        d as i64
    }
}

/// A count keyword (`minItems`, `maxLength`…), read as nlohmann's `get<int>` (a truncating
/// cast) and refused when negative.
pub(super) fn count(
    obj: &Map<String, Value>,
    key: &str,
    path: &str,
    default: i32,
) -> Result<i32, BuildError> {
    let Some(value) = obj.get(key) else {
        return Ok(default);
    };
    let n = match (value.as_i64(), value.as_u64()) {
        (Some(i), _) => i as i32,
        (None, Some(u)) => u as i32,
        _ => return fail(path, format!("{key} must be a non-negative integer")),
    };
    if n < 0 {
        return fail(path, format!("{key} must be a non-negative integer"));
    }
    Ok(n)
}

pub(super) fn format(obj: &Map<String, Value>, path: &str) -> Result<Format, BuildError> {
    let Some(value) = obj.get("format") else {
        return Ok(Format::None);
    };
    let Some(format) = value.as_str() else {
        return fail(path, "format must be a string");
    };
    Ok(match format {
        "date" => Format::Date,
        "time" => Format::Time,
        "date-time" => Format::DateTime,
        "uuid" | "uuid1" | "uuid2" | "uuid3" | "uuid4" | "uuid5" => Format::Uuid,
        _ => Format::None,
    })
}
