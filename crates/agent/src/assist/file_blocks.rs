//! A small model's whole file written as a code block instead of a call. The built-in model
//! writes code in a fenced block far more reliably than inside a JSON string (quotes and
//! newlines escaped): aider has this same model answer with a file's path and its whole new
//! text in a fenced block, and solved 15 of make bench-agent's 22 tasks where Tandem's JSON
//! writes solved 8. A reply with no call whose block follows the path of a file in the project
//! is read as a `write_file` of that file — judged, guarded and shown like any other.

/// The path and the new text of the first fenced block that follows a line naming a file
/// `exists` accepts (or whose fence names one: ```` ```calc.py ````).
pub fn file_block(text: &str, exists: &dyn Fn(&str) -> bool) -> Option<(String, String)> {
    file_blocks(text, exists).into_iter().next()
}

/// Every such block of a reply, in order: a whole-file draft may change several files.
pub fn file_blocks(text: &str, exists: &dyn Fn(&str) -> bool) -> Vec<(String, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(info) = lines[i].trim_start().strip_prefix("```") else {
            i += 1;
            continue;
        };
        let Some(close) = (i + 1..lines.len()).find(|&j| lines[j].trim() == "```") else {
            break;
        };
        let named_in_fence = path_in(info).filter(|p| exists(p));
        let named_above = lines[..i]
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .and_then(|l| path_in(l))
            .filter(|p| exists(p));
        if let Some(path) = named_in_fence.or(named_above) {
            let mut content = lines[i + 1..close].join("\n");
            content.push('\n');
            found.push((path, content));
        }
        i = close + 1;
    }
    found
}

/// The text of every closed fenced block of a reply, and whether a path is named for it (in
/// its fence or on the line above): a block named for another file is not this one's.
pub fn fenced_blocks(text: &str) -> Vec<(bool, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(info) = lines[i].trim_start().strip_prefix("```") else {
            i += 1;
            continue;
        };
        let Some(close) = (i + 1..lines.len()).find(|&j| lines[j].trim() == "```") else {
            break;
        };
        let named = path_in(info).is_some()
            || lines[..i]
                .iter()
                .rev()
                .find(|l| !l.trim().is_empty())
                .is_some_and(|l| path_in(l).is_some());
        let mut content = lines[i + 1..close].join("\n");
        content.push('\n');
        found.push((named, content));
        i = close + 1;
    }
    found
}

/// A small model's reply with no call and a whole file in a code block under its path, as the
/// `write_file` call it means.
pub(crate) fn as_write_call(
    mut resp: llm::ChatResponse,
    step: u32,
    root: &tools::ProjectRoot,
) -> llm::ChatResponse {
    let has_call = resp
        .message
        .content
        .iter()
        .any(|b| matches!(b, protocol::ContentBlock::ToolUse { .. }));
    if has_call {
        return resp;
    }
    let exists = |p: &str| root.resolve(p).is_ok_and(|r| r.real.is_file());
    let Some((path, content)) = file_block(&resp.message.text(), &exists) else {
        return resp;
    };
    // The call alone: the block's text is the call's content, and kept twice it would double
    // what the next step reads.
    resp.message.content = vec![protocol::ContentBlock::ToolUse {
        id: format!("file_block_{step}"),
        name: "write_file".into(),
        input: serde_json::json!({ "path": path, "content": content }),
    }];
    resp.lenient = None;
    resp
}

/// A write's content that is the file wrapped in a fence (```` ```python ```` … ```` ``` ````),
/// without it: py-unique wrote it so, and the fence would have become the file's first line.
pub fn unfenced(content: &str) -> Option<String> {
    let trimmed = content.trim();
    let (first, rest) = trimmed.split_once('\n')?;
    let info = first.strip_prefix("```")?;
    if info.contains('`') || !rest.trim_end().ends_with("```") {
        return None;
    }
    let body = rest.trim_end().strip_suffix("```")?;
    // One block only: another fence inside means the content is a document with code in it.
    if body.lines().any(|l| l.trim_start().starts_with("```")) {
        return None;
    }
    Some(body.to_string())
}

/// The path a line names, as models write it: `calc.py`, `**calc.py**`, `` `src/a.js`: ``,
/// `File: calc.py`, `# calc.py`.
fn path_in(line: &str) -> Option<String> {
    let line = line.trim();
    let line = line
        .strip_prefix("File:")
        .or_else(|| line.strip_prefix("file:"))
        .unwrap_or(line);
    let word = line
        .trim()
        .trim_start_matches('#')
        .trim()
        .trim_matches(|c: char| matches!(c, '*' | '`' | ':' | '"' | '\''));
    let word = word.strip_prefix("./").unwrap_or(word);
    // Dotfiles are paths too (`.gitignore`); a parent path is never in the project, and
    // `exists` refuses it anyway.
    let plausible = !word.is_empty()
        && !word.contains(char::is_whitespace)
        && word.contains('.')
        && !word.starts_with("..")
        && word
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '.' | '/' | '_' | '-'));
    plausible.then(|| word.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(p: &str) -> bool {
        matches!(p, "calc.py" | "src/strings.js" | ".gitignore")
    }

    #[test]
    fn a_path_then_a_block_is_that_file_whole() {
        for text in [
            "calc.py\n```python\ndef add(a, b):\n    return a + b\n```\n",
            "Here is the fix.\n\n**calc.py**\n```\ndef add(a, b):\n    return a + b\n```",
            "`calc.py`:\n```py\ndef add(a, b):\n    return a + b\n```",
            "```calc.py\ndef add(a, b):\n    return a + b\n```",
        ] {
            assert_eq!(
                file_block(text, &project),
                Some((
                    "calc.py".to_string(),
                    "def add(a, b):\n    return a + b\n".to_string()
                )),
                "{text}"
            );
        }
        assert_eq!(
            file_block("File: src/strings.js\n```js\nx();\n```", &project).map(|f| f.0),
            Some("src/strings.js".to_string())
        );
        for (text, path) in [
            ("./calc.py\n```\nx = 1\n```", "calc.py"),
            (".gitignore\n```\ntarget/\n```", ".gitignore"),
        ] {
            assert_eq!(
                file_block(text, &project).map(|f| f.0).as_deref(),
                Some(path)
            );
        }
    }

    #[test]
    fn every_file_of_a_draft_is_found_in_order() {
        let text = "I will fix both.\n\ncalc.py\n```python\nx = 2\n```\n\nRun it:\n```\npython3 calc.py\n```\nsrc/strings.js\n```js\ny();\n```\n";
        assert_eq!(
            file_blocks(text, &project),
            [
                ("calc.py".to_string(), "x = 2\n".to_string()),
                ("src/strings.js".to_string(), "y();\n".to_string())
            ]
        );
    }

    #[test]
    fn a_block_without_a_project_file_above_it_is_just_text() {
        for text in [
            "```python\nprint(1)\n```",
            "Run this:\n```\npython3 -m unittest\n```",
            "other.py\n```python\nx = 1\n```",
            "calc.py\n```python\nnever closed",
        ] {
            assert_eq!(file_block(text, &project), None, "{text}");
        }
    }

    #[test]
    fn a_fenced_content_is_the_file_inside_the_fence() {
        assert_eq!(
            unfenced("```python\ndef f():\n    pass\n```").as_deref(),
            Some("def f():\n    pass\n")
        );
        for content in [
            "def f():\n    pass\n",
            "# Notes\n```sh\nls\n```\ntext\n```js\nx\n```",
        ] {
            assert_eq!(unfenced(content), None, "{content}");
        }
    }
}
