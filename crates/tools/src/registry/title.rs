//! A call's title in words for people ("Edit src/main.rs", "Run `cargo test`"): each tool
//! writes its own from its typed arguments; a call of a tool from elsewhere (a skill's, a
//! server's) is named by its name made readable.

use super::{find_tool, resolve};
use protocol::TitlePart;
use serde_json::Value;

/// A title as parts: words, and code (a command, a pattern) front ends set as code.
pub type Title = Vec<TitlePart>;

/// A title of words alone.
pub(crate) fn plain(text: impl Into<String>) -> Title {
    vec![TitlePart::words(text)]
}

/// `text` when it says anything, for a title that falls back to the tool's words.
pub(crate) fn given(text: &str) -> Option<&str> {
    Some(text).filter(|t| !t.trim().is_empty())
}

/// The first line of `text`, cut to `max` characters (with an ellipsis).
pub(crate) fn first_line(text: &str, max: usize) -> String {
    let line = text.split('\n').next().unwrap_or("").trim();
    if line.chars().count() > max {
        let mut cut: String = line.chars().take(max - 1).collect();
        cut.push('…');
        cut
    } else {
        line.to_string()
    }
}

/// The title of a call of `name` with `input`, as its tool writes it: for a call the registry
/// cannot read (arguments that do not fit, a name it does not know), the tool's name in words.
pub fn title_of(name: &str, input: &Value) -> Title {
    match resolve(name, input.clone()) {
        Ok(call) => call.title(),
        Err(_) => plain(words_for(name)),
    }
}

/// A tool's name in words for people: a registry tool's own words; another's `snake_case` as
/// "Snake case", and a server's `server__tool` as "Tool (server)".
pub fn words_for(name: &str) -> String {
    if let Some(spec) = find_tool(name) {
        return spec.words.to_string();
    }
    // A server's own `read_file` is not Tandem's: it keeps its own name, made readable.
    if let Some((server, tool)) = name.split_once("__")
        && !server.is_empty()
        && !tool.is_empty()
    {
        return format!("{} ({server})", snake_words(tool));
    }
    snake_words(name)
}

/// `snake_case` as "Snake case".
fn snake_words(name: &str) -> String {
    let words = name.replace('_', " ");
    let words = words.trim();
    let mut chars = words.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(t: &Title) -> String {
        t.iter()
            .map(|p| {
                if p.code {
                    format!("`{}`", p.text)
                } else {
                    p.text.clone()
                }
            })
            .collect()
    }

    /// Each tool writes its title from its own arguments; a call that says nothing more gets
    /// the tool's words, and a tool from elsewhere its name made readable.
    #[test]
    fn titles_say_what_the_call_does_in_words() {
        let cases: &[(&str, Value, &str)] = &[
            (
                "read_file",
                json!({"path": "src/main.rs"}),
                "Read src/main.rs",
            ),
            ("read_file", json!({"path": " "}), "Read a file"),
            (
                "edit_file",
                json!({"path": "a.py", "old_string": "a", "new_string": "b"}),
                "Edit a.py",
            ),
            (
                "write_file",
                json!({"path": "a.py", "content": ""}),
                "Write a.py",
            ),
            ("list_files", json!({}), "List files"),
            ("list_files", json!({"path": "src"}), "List files in src"),
            (
                "search_codebase",
                json!({"pattern": "fn main", "path": "src"}),
                "Search for `fn main` in src",
            ),
            (
                "search_codebase",
                json!({"pattern": "x", "path": "."}),
                "Search for `x`",
            ),
            (
                "run_command",
                json!({"command": "cargo test\nmore"}),
                "Run `cargo test`",
            ),
            (
                "run_command",
                json!({"command": "sleep 9", "background": true}),
                "Run `sleep 9` in the background",
            ),
            ("task_poll", json!({"id": "t1"}), "Check background task t1"),
            ("task_stop", json!({"id": "t1"}), "Stop background task t1"),
            ("wakeup", json!({"delay_ms": 1500}), "Wait 2 s"),
            ("wakeup", json!({"delay_ms": 400}), "Wait 400 ms"),
            (
                "git_diff",
                json!({"staged": true}),
                "See the changes staged for commit (git diff)",
            ),
            ("git_diff", json!({}), "See the changes (git diff)"),
            (
                "git_commit",
                json!({"message": "Fix it\n\nbody"}),
                "Commit: Fix it",
            ),
            (
                "git_branch",
                json!({"action": "create", "name": "b"}),
                "Create branch b",
            ),
            (
                "git_branch",
                json!({"action": "switch", "name": "b"}),
                "Switch to branch b",
            ),
            ("git_branch", json!({"action": "list"}), "List the branches"),
            (
                "create_pull_request",
                json!({"title": "Add x", "body": ""}),
                "Open a pull request: Add x",
            ),
            (
                "web_fetch",
                json!({"url": "https://example.com/"}),
                "Fetch https://example.com/",
            ),
            (
                "web_search",
                json!({"query": "rust"}),
                "Search the web for “rust”",
            ),
            (
                "skill_activate",
                json!({"name": "pdf"}),
                "Activate the skill pdf",
            ),
            (
                "task_done",
                json!({"summary": "Fixed add()"}),
                "Finish: Fixed add()",
            ),
            (
                "spawn_subagent",
                json!({"title": "Tests", "description": "d"}),
                "Hand work to a helper: Tests",
            ),
            ("git_status", json!({}), "See what changed (git status)"),
            ("read_file", json!({"nope": 1}), "Read a file"),
            ("count_words", json!({}), "Count words"),
            ("repo__read_file", json!({}), "Read file (repo)"),
        ];
        for (name, input, want) in cases {
            assert_eq!(text(&title_of(name, input)), *want, "{name} {input}");
        }
    }

    #[test]
    fn a_long_first_line_is_cut_with_an_ellipsis() {
        let long = "x".repeat(100);
        let t = title_of("run_command", &json!({ "command": long }));
        assert_eq!(t[1].text.chars().count(), 80);
        assert!(t[1].text.ends_with('…'));
    }
}
