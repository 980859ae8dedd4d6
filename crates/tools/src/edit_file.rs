//! `edit_file`: exact string replacements, one or many, applied all together or not at all.

use crate::closest_text::closest_lines;
use crate::diff::edit_regions;
use crate::error::{ToolError, ToolResult};
use crate::line_endings::to_lf;
use crate::workspace::Workspace;
use crate::write_file::{Planned, apply_planned};
use protocol::FileChange;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Edit {
    /// Text to find, exactly once in the file: whole lines, with the line above when needed.
    pub old_string: String,
    /// Text to put in its place.
    pub new_string: String,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditFileArgs {
    /// File to edit, relative to the project root. It must exist.
    pub path: String,
    /// Text to find, exactly once in the file: whole lines, with the line above when needed.
    /// Give `new_string` with it, or use `edits` for several replacements.
    #[serde(default)]
    pub old_string: Option<String>,
    #[serde(default)]
    pub new_string: Option<String>,
    /// Several replacements, applied atomically: all or none.
    #[serde(default)]
    pub edits: Option<Vec<Edit>>,
}

/// `edit_file`'s single form with every field required: what a small model is offered (see the
/// registry's `small_model_form`). A call in it parses as [`EditFileArgs`].
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditOneArgs {
    /// File to edit, relative to the project root. It must exist.
    pub path: String,
    /// Text to find, exactly once in the file: whole lines copied from read_file's output
    /// without the line numbers, with the line above when needed.
    pub old_string: String,
    /// Text to put in its place.
    pub new_string: String,
}

impl EditFileArgs {
    fn edits(&self) -> ToolResult<Vec<Edit>> {
        // Small models fill the form they do not use with empty defaults: `"edits": []` beside
        // old_string and new_string, or `""`s beside `edits`. An empty value is read as absent
        // when the other form is given; refusing it as a mix sent them round in circles.
        let single_given = self.old_string.is_some() || self.new_string.is_some();
        let edits = match &self.edits {
            Some(e) if e.is_empty() && single_given => None,
            other => other.as_ref(),
        };
        let single_blank = self.old_string.as_deref().is_none_or(str::is_empty)
            && self.new_string.as_deref().is_none_or(str::is_empty);
        let (old, new) = if single_blank && edits.is_some_and(|e| !e.is_empty()) {
            (None, None)
        } else {
            (self.old_string.as_ref(), self.new_string.as_ref())
        };
        match (old, new, edits) {
            (Some(o), Some(n), None) => Ok(vec![Edit {
                old_string: o.clone(),
                new_string: n.clone(),
            }]),
            (None, None, Some(e)) if !e.is_empty() => Ok(e.clone()),
            (None, None, Some(_)) => Err(ToolError::InvalidArgument(
                "`edits` is empty; give at least one edit".into(),
            )),
            (None, None, None) => Err(ToolError::InvalidArgument(
                "give `old_string` and `new_string`, or `edits: [{old_string, new_string}]`".into(),
            )),
            _ => Err(ToolError::InvalidArgument(
                "give either `old_string` + `new_string` or `edits`, not a mix".into(),
            )),
        }
    }
}

/// Works out an edit without writing it: the file, its content now and after.
pub fn plan_edit(ws: &Workspace, args: &EditFileArgs) -> ToolResult<Planned> {
    let edits = args.edits()?;
    let resolved = ws.root().resolve(&args.path)?;
    let real = &resolved.real;
    let path = resolved.display.clone();
    let meta = std::fs::metadata(real).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => match ws.root().missing(&resolved) {
            ToolError::NoSuchPath { near, .. } if !near.is_empty() => ToolError::NoSuchPath {
                path: path.clone(),
                near,
            },
            _ => ToolError::InvalidArgument(format!(
                "{path} does not exist; edit_file changes existing files, use write_file to create it"
            )),
        },
        _ => ws.root().io_error(&resolved, e),
    })?;
    if meta.is_dir() {
        return Err(ToolError::NotAFile(resolved.shown().into()));
    }
    let bytes = crate::regular_file::read_to_change(ws.root(), &resolved, "edit_file")?;
    ws.check_fresh_bytes(real, &path, &bytes)?;
    let on_disk = crate::write_lock::fingerprint(Some(&bytes));
    let original = String::from_utf8(bytes).map_err(|_| {
        ToolError::InvalidArgument(format!(
            "{path} is not UTF-8 text; it cannot be edited by string replacement"
        ))
    })?;
    let final_newline = original.ends_with('\n');
    // Matching happens on `\n` text, whatever the file uses; replacements are mapped back below.
    let text = to_lf(&original);

    let mut spans: Vec<(usize, usize, usize)> = Vec::new();
    for (i, e) in edits.iter().enumerate() {
        let n = i + 1;
        let err = |message: String| ToolError::Edit {
            path: path.clone(),
            index: n,
            message,
        };
        let old = to_lf(&e.old_string);
        let new = to_lf(&e.new_string);
        if old.is_empty() {
            return Err(err(
                "old_string is empty; include the text next to the insertion point".into(),
            ));
        }
        if old == new {
            return Err(err(
                "old_string and new_string are the same; nothing would change. Put the text as it should read after the change in new_string".into(),
            ));
        }
        let mut found = text.match_indices(&old);
        let Some((at, _)) = found.next() else {
            let hint = if text.contains(old.trim()) {
                " (it appears with different leading or trailing whitespace; copy it exactly from read_file's output, without the line numbers)".to_string()
            } else if let Some((from, to, lines)) = closest_lines(&text, &old) {
                format!(
                    ". The closest text in {path} is lines {from}-{to}; copy old_string from it exactly, without the line numbers and bars:\n{lines}"
                )
            } else {
                "; read the file again and copy the text exactly".to_string()
            };
            return Err(err(format!("old_string was not found{hint}")));
        };
        let others: Vec<usize> = found.map(|(i, _)| i).collect();
        if !others.is_empty() {
            let starts: Vec<usize> = std::iter::once(at).chain(others).collect();
            let single = (edits.len() == 1).then_some(path.as_str());
            return Err(err(ambiguous_match(&text, &old, &new, &starts, single)));
        }
        spans.push((at, at + old.len(), i));
    }
    spans.sort();
    for pair in spans.windows(2) {
        if let [(_, a_end, a), (b_start, _, b)] = pair
            && b_start < a_end
        {
            return Err(ToolError::Edit {
                path: path.clone(),
                index: b + 1,
                message: format!("it overlaps edit {}; merge them into one edit", a + 1),
            });
        }
    }
    // Built front to back, so where each replacement lands in the result is known: the
    // review shows each edit as its own change.
    let mut lf_result = String::with_capacity(text.len());
    let mut placed = Vec::with_capacity(spans.len());
    let mut at = 0;
    for (start, end, i) in &spans {
        lf_result.push_str(text.get(at..*start).unwrap_or_default());
        let from = lf_result.len();
        if let Some(e) = edits.get(*i) {
            lf_result.push_str(&to_lf(&e.new_string));
        }
        placed.push((*start..*end, from..lf_result.len()));
        at = *end;
    }
    lf_result.push_str(text.get(at..).unwrap_or_default());
    // The regions are lines of the `\n` text; the file's own line endings (below) keep its
    // lines where they are (and where they do not, the hunks fall back to a whole-file diff).
    let regions = edit_regions(&text, &lf_result, &placed);
    // Replacements go into the file as it is: unchanged lines keep their own endings, and
    // each new text takes the endings of the text it replaces (a file mixing CRLF and LF
    // stays mixed, line for line).
    let removed_crs = removed_cr_positions(&original);
    let orig = |p: usize| p + removed_crs.partition_point(|&q| q < p);
    let mut result = original.clone();
    for (start, end, i) in spans.iter().rev() {
        let (s, e) = (orig(*start), orig(*end));
        let crlf = crlf_at(&original, s, e);
        let new = to_lf(&edits[*i].new_string);
        let new = if crlf { new.replace('\n', "\r\n") } else { new };
        result.replace_range(s..e, &new);
    }
    if final_newline
        && !result.is_empty()
        && !result.ends_with('\n')
        && !removes_final_newline(&text, &spans, &edits)
    {
        result.push_str(if original.ends_with("\r\n") {
            "\r\n"
        } else {
            "\n"
        });
    } else if !final_newline && adds_final_newline(&text, &spans, &edits) {
        // Asked for at the end of the file: the newline it lacked, in the file's own ending.
        let crlf = original
            .rfind('\n')
            .is_some_and(|i| original[..i].ends_with('\r'));
        if crlf && result.ends_with('\n') && !result.ends_with("\r\n") {
            result.pop();
            result.push_str("\r\n");
        }
    } else if !final_newline {
        // A model's replacement text ends with a newline out of habit: a file without a final
        // newline keeps it that way, unless an edit at its end asks for one (above).
        while result.ends_with('\n') {
            result.pop();
            if result.ends_with('\r') {
                result.pop();
            }
        }
    }
    let content = result;
    Ok(Planned {
        real: real.clone(),
        path,
        original: Some(original),
        on_disk,
        content,
        whole: false,
        regions,
        new_text: edits.last().map(|e| e.new_string.clone()),
    })
}

/// Whether an edit reaching the end of the file (`text`, in `\n` form) puts a newline there
/// that its old text did not have: the person asked for the final newline the file lacks.
fn adds_final_newline(text: &str, spans: &[(usize, usize, usize)], edits: &[Edit]) -> bool {
    spans.iter().any(|(_, end, i)| {
        *end == text.len()
            && edits.get(*i).is_some_and(|e| {
                !to_lf(&e.old_string).ends_with('\n') && to_lf(&e.new_string).ends_with('\n')
            })
    })
}

/// Whether an edit reaching the end of the file takes its final newline away: its old text
/// ends with the newline and its new text does not (the person asked for a file without one).
fn removes_final_newline(text: &str, spans: &[(usize, usize, usize)], edits: &[Edit]) -> bool {
    spans.iter().any(|(_, end, i)| {
        *end == text.len()
            && edits.get(*i).is_some_and(|e| {
                to_lf(&e.old_string).ends_with('\n') && !to_lf(&e.new_string).ends_with('\n')
            })
    })
}

/// Where, in the `\n` text, each `\r` that `to_lf` dropped stood: the position of the `\n` it
/// preceded.
fn removed_cr_positions(original: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for (k, (i, _)) in original.match_indices("\r\n").enumerate() {
        out.push(i - k);
    }
    out
}

/// Whether text replacing `original[s..e]` should end its lines with CRLF: as the replaced text
/// does, or, when it holds no line break, as the line it sits on does.
fn crlf_at(original: &str, s: usize, e: usize) -> bool {
    let span = &original[s..e];
    if span.contains('\n') {
        return span.contains("\r\n");
    }
    match original[e..].find('\n') {
        Some(i) => original[..e + i].ends_with('\r'),
        None => original[..s]
            .rfind('\n')
            .is_some_and(|i| original[..i].ends_with('\r')),
    }
}

pub fn edit_file(ws: &Workspace, args: &EditFileArgs) -> ToolResult<FileChange> {
    let planned = plan_edit(ws, args)?;
    apply_planned(ws, &planned, &planned.content)
}

/// The error for an `old_string` found more than once: where each one is, and for each the
/// arguments that would change only it (old and new text widened by whole lines around it until
/// unique), ready to copy — a small model retries with arguments it is given far more reliably
/// than with "add more context", which it took for "add a line to the file". `single` is the
/// path when the call had one edit, so the whole arguments can be given.
fn ambiguous_match(
    text: &str,
    old: &str,
    new: &str,
    starts: &[usize],
    single: Option<&str>,
) -> String {
    const SHOWN: usize = 5;
    let line_of = |at: usize| text[..at].matches('\n').count() + 1;
    let lines: Vec<String> = starts.iter().map(|&s| line_of(s).to_string()).collect();
    let mut out = format!(
        "old_string was found {} times (lines {}); it must occur exactly once. Call edit_file again with the arguments for the one you mean:",
        starts.len(),
        lines.join(", ")
    );
    for &start in starts.iter().take(SHOWN) {
        let Some((from, to)) = unique_widening(text, start, start + old.len()) else {
            continue;
        };
        let wide_old = &text[from..to];
        let wide_new = format!(
            "{}{new}{}",
            &text[from..start],
            &text[start + old.len()..to]
        );
        let args = match single {
            Some(path) => {
                serde_json::json!({"path": path, "old_string": wide_old, "new_string": wide_new})
            }
            None => serde_json::json!({"old_string": wide_old, "new_string": wide_new}),
        };
        out.push_str(&format!("\n  line {}: {args}", line_of(start)));
    }
    if starts.len() > SHOWN {
        out.push_str(&format!("\n  ({} more)", starts.len() - SHOWN));
    }
    out
}

/// The match widened to whole lines, then by one line before (and after) at a time, until
/// the text occurs once in the file: its byte range.
fn unique_widening(text: &str, start: usize, end: usize) -> Option<(usize, usize)> {
    let line_start = |at: usize| text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = |at: usize| text[at..].find('\n').map_or(text.len(), |i| at + i);
    let (mut from, mut to) = (line_start(start), line_end(end));
    for _ in 0..8 {
        if text.matches(&text[from..to]).count() == 1 {
            return Some((from, to));
        }
        if from > 0 {
            from = line_start(from - 1);
        } else if to < text.len() {
            to = line_end(to + 1);
        } else {
            return None;
        }
    }
    None
}
