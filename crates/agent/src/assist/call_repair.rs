//! A call put right before it is judged: what models get wrong in the shape of an edit or a
//! write, where what they meant is plain, set right — each with a note for the model, so it
//! learns the right shape. Nothing here decides whether a call may run; the repaired call is
//! judged and shown like any other.
//!
//! For small models only (the built-in one, a small one behind a server, or as the provider's
//! setting says): a large model's exact text is what it meant — a file whose lines really
//! start with `   1 | `, an old_string that must match as written. In order: `read_file`'s
//! line numbers taken out of the text written (`echoed_numbers`), a fence around the whole
//! content taken off (`file_blocks`), an old_string matched with other spacing
//! (`loose_match`), and an edit of a function's first line or body widened to the whole
//! function (`function_edit`).

use super::echoed_numbers::without_numbers;
use super::project_text::read as read_project_text;
use serde_json::Value;
use tools::ProjectRoot;

/// The call to judge instead of `input` (a write's or an edit's arguments), and what the
/// model is told; None: as written.
pub(crate) fn repaired_call(
    root: &ProjectRoot,
    small_model: bool,
    input: &Value,
) -> Option<(Value, String)> {
    if !small_model {
        return None;
    }
    let mut call = input.clone();
    let mut note = String::new();
    // A file's whole text (`content`) is put right on its own; replacements (`old_string`,
    // alone or in `edits`) against the file they are to match.
    let replaces = call.get("old_string").is_some() || call.get("edits").is_some();
    let file = replaces
        .then(|| {
            call.get("path")
                .and_then(Value::as_str)
                .and_then(|p| read_project_text(root, p))
        })
        .flatten();
    if strip_numbers(&mut call, "content") {
        note.push_str(NUMBERS_NOTE);
    }
    if let Some(file) = &file {
        // Only an old_string that matches nothing as written and matches once the numbers
        // are out: the file's own text is never second-guessed.
        let file = file.replace("\r\n", "\n");
        let fixed = each_unmatched_edit(&mut call, &file, |edit, old| match without_numbers(old) {
            Some(plain) if file.contains(&plain) => {
                edit["old_string"] = Value::String(plain);
                strip_numbers(edit, "new_string");
                true
            }
            _ => false,
        });
        if fixed {
            note.push_str(NUMBERS_NOTE);
        }
    }
    // A document that is one fenced block is rare, but real.
    if let Some(plain) = call
        .get("content")
        .and_then(Value::as_str)
        .and_then(super::file_blocks::unfenced)
    {
        call["content"] = Value::String(plain);
        note.push_str(
            "\n(The ``` fence around your content was taken out: it is not part of the file.)",
        );
    }
    if let Some(file) = &file {
        let fixed = each_unmatched_edit(&mut call, file, |edit, old| {
            match super::loose_match::span_ignoring_spacing(file, old) {
                Some(span) => {
                    edit["old_string"] = Value::String(span.to_string());
                    true
                }
                None => false,
            }
        });
        if fixed {
            note.push_str("\n(Your old_string matched the file only with other spacing and line breaks: the file's own text was replaced. Copy old_string exactly next time.)");
        }
    }
    if let Some(file) = &file {
        let text = |k: &str| call.get(k).and_then(Value::as_str);
        let wide = super::function_edit::widened(
            file,
            text("old_string").unwrap_or_default(),
            text("new_string").unwrap_or_default(),
        );
        if let Some(old) = wide {
            call["old_string"] = Value::String(old);
            note.push_str("\n(Your old_string was the first line of a function and new_string a whole function: the whole function was replaced.)");
        }
    }
    (!note.is_empty()).then_some((call, note))
}

const NUMBERS_NOTE: &str = "\n(The line numbers read_file shows were taken out of your text: they are not part of the file. Write the file's text only.)";

/// Takes read_file's display out of `key`'s text; whether it did.
fn strip_numbers(v: &mut Value, key: &str) -> bool {
    let plain = v.get(key).and_then(Value::as_str).and_then(without_numbers);
    plain.map(|p| v[key] = Value::String(p)).is_some()
}

/// Calls `fix` on each part of an edit (the call itself, each of `edits`) whose old_string is
/// not in `file` as written; whether any was fixed.
fn each_unmatched_edit(
    call: &mut Value,
    file: &str,
    fix: impl Fn(&mut Value, &str) -> bool,
) -> bool {
    let one = |edit: &mut Value| {
        let Some(old) = edit.get("old_string").and_then(Value::as_str) else {
            return false;
        };
        if old.is_empty() || file.contains(old) {
            return false;
        }
        let old = old.to_string();
        fix(edit, &old)
    };
    let mut fixed = one(call);
    if let Some(edits) = call.get_mut("edits").and_then(Value::as_array_mut) {
        for edit in edits {
            fixed |= one(edit);
        }
    }
    fixed
}
