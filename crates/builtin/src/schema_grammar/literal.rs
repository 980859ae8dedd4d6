//! JSON values as grammar literals. llama.cpp writes a `const`, an `enum` value or a property
//! name as nlohmann's `dump()` writes the JSON, then quotes that text as a GBNF string; the text
//! is matched byte for byte, so the JSON must be written exactly as nlohmann writes it (its
//! floats differ from serde_json's: `1e+20`, `1e-05`).

use std::fmt::Write;

use serde_json::{Number, Value};

/// `text` as a GBNF string literal.
pub(super) fn format_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The literal that matches exactly `value`, as compact JSON.
pub(super) fn constant_rule(value: &Value) -> String {
    format_literal(&dump(value))
}

/// `value` as nlohmann's `dump()` writes it: compact, keys in their order, non-ASCII as is.
pub(super) fn dump(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, key);
                out.push(':');
                write_value(out, item);
            }
            out.push('}');
        }
    }
}

pub(super) fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) <= 0x1f => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn write_number(out: &mut String, n: &Number) {
    if let Some(i) = n.as_i64() {
        let _ = write!(out, "{i}");
    } else if let Some(u) = n.as_u64() {
        let _ = write!(out, "{u}");
    } else if let Some(f) = n.as_f64() {
        write_float(out, f);
    }
}

/// nlohmann's `to_chars`: Grisu2's digits of `x`, laid out like printf's `%g` with at least
/// one digit after the point, in fixed notation for exponents -4 to 15.
fn write_float(out: &mut String, x: f64) {
    if !x.is_finite() {
        out.push_str("null");
        return;
    }
    if x.is_sign_negative() {
        out.push('-');
    }
    let x = x.abs();
    if x == 0.0 {
        out.push_str("0.0");
        return;
    }
    let (digits, point) = super::grisu::digits(x);
    let k = digits.len() as i32;
    let n = point;
    if k <= n && n <= 15 {
        out.push_str(&digits);
        out.push_str(&"0".repeat((n - k) as usize));
        out.push_str(".0");
    } else if 0 < n && n <= 15 {
        let (whole, fraction) = digits.split_at(n as usize);
        let _ = write!(out, "{whole}.{fraction}");
    } else if -4 < n && n <= 0 {
        let _ = write!(out, "0.{}{digits}", "0".repeat((-n) as usize));
    } else {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            let _ = write!(out, ".{rest}");
        }
        let e = n - 1;
        let _ = write!(out, "e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn floats_are_written_as_nlohmann_writes_them() {
        let cases = [
            (1.5, "1.5"),
            (1.0, "1.0"),
            (100.0, "100.0"),
            (1e14, "100000000000000.0"),
            (1e15, "1e+15"),
            (1e16, "1e+16"),
            (1.25e20, "1.25e+20"),
            (0.001, "0.001"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (-2.5, "-2.5"),
            (-0.0, "-0.0"),
            (1e100, "1e+100"),
            // Grisu2's digits, not the shortest (Rust writes -1.153058240699682e17).
            (-1.153_058_240_699_682e17, "-1.1530582406996819e+17"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
        ];
        for (x, want) in cases {
            assert_eq!(dump(&json!(x)), want, "{x}");
        }
    }

    #[test]
    fn strings_escape_only_what_json_must() {
        assert_eq!(
            dump(&json!("a\"b\\c\n\u{1}\u{7f}é/")),
            "\"a\\\"b\\\\c\\n\\u0001\u{7f}é/\""
        );
    }
}
