//! A small model's first move on a task that names files: the files as they are and the task,
//! asked for each changed file whole in a fenced block under its path, with no tools offered.
//! Offered the tools, the built-in model answered with JSON edits whose old and new text were
//! the same, again and again (8 of 14 misses in one run of make bench-agent); asked this way
//! (aider's whole-file format), the same model solved 15 of the 22 tasks in one reply. The
//! blocks become `write_file` calls of the agent's conversation — judged, guarded, approved and
//! shown like any other — and the task goes on with the tools: run the check, fix, finish.

use super::project_text::read as read_project_text;
use llm::ChatResponse;
use protocol::{ContentBlock, Message, Role};
use tools::ProjectRoot;

/// What the model is told in a draft; the example reply shows the one form that is read.
pub(crate) const DRAFT_SYSTEM: &str = "Act as an expert software developer. You are given files and a request to change them.\nTo change a file, reply with its path on a line of its own, then its entire new content in a fenced code block. Every line as it must read after the change: never skip or elide lines, never write \"...\" or \"rest of the code\". Change only what the request asks.\n";

const EXAMPLE_REQUEST: &str = "show_greeting.py\n```\ndef greeting(name):\n    print(f\"Hello {name}\")\n```\n\nRequest: Change the greeting to be more casual.";
const EXAMPLE_REPLY: &str =
    "show_greeting.py\n```\ndef greeting(name):\n    print(f\"Hey {name}\")\n```\n";

/// Drafts asked for again after a check failed, per task: aider's loop (the failing output
/// back, the file whole again) fixed what its first reply got wrong within two rounds.
pub(crate) const REPAIRS: u32 = 2;

/// A draft about to be asked for: the files it shows (path, text as read), the task, and the
/// check that failed since the last draft.
#[derive(Debug, Clone)]
pub(crate) struct Draft {
    files: Vec<(String, String)>,
    task: String,
    failed: Option<FailedCheck>,
}

/// A check that failed, as a draft shows it: the command and the lines that say what failed.
#[derive(Debug, Clone)]
pub(crate) struct FailedCheck {
    pub command: String,
    pub lines: Vec<String>,
}

/// What a task's drafts are made from: its words and the files it named that were read.
#[derive(Debug, Clone, Default)]
pub(crate) struct DraftBasis {
    pub task: String,
    pub paths: Vec<String>,
    pub repairs: u32,
}

impl Draft {
    /// A draft of `files` for `task`; none when there is no file to show or one holds a fence
    /// of its own (its block would end early and the file be cut there).
    pub(crate) fn new(task: &str, files: Vec<(String, String)>) -> Option<Draft> {
        let fenced = |text: &str| text.lines().any(|l| l.trim_start().starts_with("```"));
        (!files.is_empty() && !files.iter().any(|(_, text)| fenced(text))).then(|| Draft {
            files,
            task: task.to_string(),
            failed: None,
        })
    }

    /// The same draft shown with a check that failed.
    pub(crate) fn after(mut self, failed: FailedCheck) -> Draft {
        self.failed = Some(failed);
        self
    }

    /// The conversation the draft is asked in: the example, then the files and the request.
    pub(crate) fn messages(&self) -> Vec<Message> {
        let mut shown = String::new();
        for (path, text) in &self.files {
            shown.push_str(path);
            shown.push_str("\n```\n");
            shown.push_str(text);
            if !text.ends_with('\n') {
                shown.push('\n');
            }
            shown.push_str("```\n\n");
        }
        if let Some(f) = &self.failed {
            shown.push_str(&format!("`{}` fails:\n", f.command));
            // Indented, not fenced: a fence here could be read as a file's block.
            for l in &f.lines {
                shown.push_str("    ");
                shown.push_str(l);
                shown.push('\n');
            }
            shown.push_str("\nFix the code so that it passes.\n");
        }
        shown.push_str("Request: ");
        shown.push_str(&self.task);
        shown.push_str("\n\nReply with the path of each file you change on a line of its own and its whole new content in a fenced code block.");
        vec![
            Message::user_text(EXAMPLE_REQUEST),
            Message {
                role: Role::Assistant,
                content: vec![ContentBlock::Text {
                    text: EXAMPLE_REPLY.to_string(),
                }],
            },
            Message::user_text(shown),
        ]
    }

    /// The reply as the `write_file` calls it means: one per block of a shown file whose text
    /// differs from what was shown. A reply with none is blank (it changed nothing to keep).
    /// Only a file's first block counts: after the answer the built-in model went on with more
    /// blocks under the same path (the tests it imagined), each of which would have replaced it.
    pub(crate) fn as_calls(&self, mut resp: ChatResponse, step: u32) -> ChatResponse {
        let shown = |p: &str| self.files.iter().any(|(path, _)| path == p);
        let mut seen = Vec::new();
        let calls: Vec<ContentBlock> =
            super::file_blocks::file_blocks(&resp.message.text(), &shown)
                .into_iter()
                .filter(|(path, _)| {
                    let first = !seen.contains(path);
                    seen.push(path.clone());
                    first
                })
                .filter(|(path, content)| {
                    self.files.iter().any(|(p, before)| {
                        p == path
                            && before.trim_end() != content.trim_end()
                            && !elides(before, content)
                    })
                })
                .enumerate()
                .map(|(i, (path, content))| ContentBlock::ToolUse {
                    id: format!("draft_{step}_{i}"),
                    name: "write_file".into(),
                    input: serde_json::json!({ "path": path, "content": content }),
                })
                .collect();
        // The calls alone: the blocks' text is their content, and kept twice it would double
        // what the next step reads.
        resp.message.content = calls;
        resp.lenient = None;
        resp.malformed_tool_calls.clear();
        resp
    }
}

/// Whether a draft stands in for part of the file with a marker ("# ... rest of the code",
/// a bare "..."): written as the file, it would lose what the marker stands for. A line the
/// file already had (Python's `...` body) is not one.
fn elides(before: &str, after: &str) -> bool {
    const SAYS_OMITTED: &[&str] = &["rest", "unchanged", "existing", "same", "remain", "omitted"];
    after.lines().map(str::trim).any(|line| {
        let bare = matches!(line, "..." | "…");
        let comment = ["#", "//", "/*", "<!--", "--"]
            .iter()
            .any(|c| line.starts_with(c))
            && (line.contains("...") || line.contains('…'))
            && SAYS_OMITTED.iter().any(|w| line.to_lowercase().contains(w));
        (bare || comment) && !before.lines().any(|l| l.trim() == line)
    })
}

/// Whether a task may want files changed: not a question. Asked to change a file it was only
/// asked about, a small model may well rewrite it anyway. "Can you fix …?" is a request.
fn asks_for_change(task: &str) -> bool {
    const ASKING: &[&str] = &[
        "what",
        "why",
        "how",
        "where",
        "which",
        "who",
        "when",
        "explain",
        "describe",
        "summarize",
        "summarise",
        "tell",
        "show",
        "list",
        "does",
        "is",
        "are",
        "can",
        "could",
        "should",
    ];
    const POLITE: &[&[&str]] = &[
        &["please"],
        &["can", "you"],
        &["could", "you"],
        &["would", "you"],
        &["will", "you"],
    ];
    let task = task.trim();
    let lower = task.to_lowercase();
    let mut words: &[&str] = &lower
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '\''))
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>();
    let mut polite = false;
    while let Some(p) = POLITE.iter().find(|p| words.starts_with(p)) {
        words = &words[p.len()..];
        polite = true;
    }
    let first = words.first().copied().unwrap_or("");
    !ASKING.contains(&first) && (polite || !task.ends_with('?'))
}

/// Output lines a draft shows at most: a test runner's whole report of one failure fits.
const OUTPUT_LINES: usize = 40;

/// What a check's output shows a draft: all of it when short (node's report puts the actual
/// and expected values on lines that name neither), else the lines that say what failed and
/// the end. The tool's own note after the output (exit code, where it is saved) is left out.
fn what_failed(output: &str) -> Vec<String> {
    let notes = [
        "[exit code ",
        "[killed at its timeout",
        "[ended by a signal",
    ];
    let all: Vec<&str> = output.lines().collect();
    let end = all
        .iter()
        .rposition(|l| notes.iter().any(|n| l.starts_with(n)))
        .unwrap_or(all.len());
    let body = &all[..end];
    let cut = |l: &str| {
        let end = l.char_indices().nth(200).map_or(l.len(), |(i, _)| i);
        l[..end].trim_end().to_string()
    };
    let body: Vec<&str> = body
        .iter()
        .copied()
        .filter(|l| !l.trim().is_empty())
        .collect();
    if body.len() <= OUTPUT_LINES {
        return body.into_iter().map(cut).collect();
    }
    let text = body.join("\n");
    let mut lines: Vec<String> = super::checks::failing_lines(&text)
        .into_iter()
        .map(cut)
        .collect();
    lines.push("…".to_string());
    lines.extend(body[body.len() - OUTPUT_LINES / 2..].iter().map(|l| cut(l)));
    lines
}

/// A small model's drafts in one task: the draft asked for at the next step, and what the
/// task's drafts are made from.
#[derive(Debug, Default)]
pub(crate) struct Drafts {
    pending: Option<Draft>,
    basis: Option<DraftBasis>,
}

impl Drafts {
    /// The draft to ask for at this step, if any.
    pub(crate) fn take(&mut self) -> Option<Draft> {
        self.pending.take()
    }

    /// A draft planned as the turn ended belongs to it, not to the next turn.
    pub(crate) fn drop_pending(&mut self) {
        self.pending = None;
    }

    /// A small model's first step on a task whose named files it read is a draft of them,
    /// where it `may_write`.
    pub(crate) fn plan_first(
        &mut self,
        task: &str,
        read: Vec<String>,
        root: &ProjectRoot,
        small_model: bool,
        may_write: bool,
    ) {
        self.pending = None;
        self.basis = None;
        if !small_model || read.is_empty() || !asks_for_change(task) || !may_write {
            return;
        }
        let basis = DraftBasis {
            task: task.to_string(),
            paths: read,
            repairs: 0,
        };
        self.pending = draft_of(root, &basis);
        self.basis = Some(basis);
    }

    /// After a check the task's draft was for failed: the next step is the draft again, with
    /// what failed, while repairs remain and it `may_write`. Where nothing may be written
    /// (read-only mode, write_file turned off), a draft's writes would only be refused.
    pub(crate) fn plan_repair(
        &mut self,
        command: &str,
        output: &str,
        root: &ProjectRoot,
        may_write: bool,
    ) {
        let Some(mut basis) = self.basis.take() else {
            return;
        };
        if basis.repairs < REPAIRS && super::checks::is_check(command) && may_write {
            basis.repairs += 1;
            let failed = FailedCheck {
                command: command.to_string(),
                lines: what_failed(output),
            };
            self.pending = draft_of(root, &basis).map(|d| d.after(failed));
        }
        self.basis = Some(basis);
    }
}

/// The draft of the basis's files as they are now.
fn draft_of(root: &ProjectRoot, basis: &DraftBasis) -> Option<Draft> {
    let files = basis
        .paths
        .iter()
        .filter_map(|p| read_project_text(root, p).map(|text| (p.clone(), text)))
        .collect();
    Draft::new(&basis.task, files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use llm::ChatResponse;

    fn reply(text: &str) -> ChatResponse {
        ChatResponse {
            message: Message {
                role: Role::Assistant,
                content: vec![ContentBlock::Text {
                    text: text.to_string(),
                }],
            },
            stop_reason: protocol::StopReason::EndTurn,
            usage: protocol::Usage::default(),
            malformed_tool_calls: Vec::new(),
            lenient: None,
            attempts: 1,
        }
    }

    fn draft() -> Draft {
        Draft::new(
            "Fix add in calc.py.",
            vec![(
                "calc.py".into(),
                "def add(a, b):\n    return a - b\n".into(),
            )],
        )
        .expect("draft")
    }

    #[test]
    fn the_files_are_shown_whole_without_line_numbers_before_the_request() {
        let messages = draft().messages();
        let last = messages.last().expect("a message").text();
        assert!(
            last.starts_with("calc.py\n```\ndef add(a, b):\n    return a - b\n```\n\nRequest: Fix add in calc.py."),
            "{last}"
        );
        assert_eq!(messages[1].role, Role::Assistant);
    }

    #[test]
    fn a_changed_block_is_a_write_and_an_unchanged_or_unknown_one_is_nothing() {
        let resp = draft().as_calls(
            reply("calc.py\n```python\ndef add(a, b):\n    return a + b\n```\n"),
            1,
        );
        assert_eq!(
            resp.message.content,
            [ContentBlock::ToolUse {
                id: "draft_1_0".into(),
                name: "write_file".into(),
                input: serde_json::json!({
                    "path": "calc.py",
                    "content": "def add(a, b):\n    return a + b\n"
                }),
            }]
        );
        // The file's first block is its answer; more under its path are not.
        let twice = draft().as_calls(
            reply("calc.py\n```\ndef add(a, b):\n    return a + b\n```\n\ncalc.py\n```\nimport unittest\n```\n"),
            1,
        );
        assert_eq!(twice.message.content.len(), 1);
        assert!(
            serde_json::to_string(&twice.message.content)
                .expect("json")
                .contains("a + b")
        );
        for text in [
            "calc.py\n```\ndef add(a, b):\n    return a - b\n```",
            "other.py\n```\nx = 1\n```",
            "The bug is the minus sign.",
        ] {
            assert!(
                draft().as_calls(reply(text), 1).message.is_blank(),
                "{text}"
            );
        }
    }

    #[test]
    fn a_repair_shows_what_failed_indented_before_the_request() {
        let d = draft().after(FailedCheck {
            command: "python3 -m unittest".into(),
            lines: vec!["AssertionError: -1 != 5".into()],
        });
        let last = d.messages().last().expect("a message").text();
        assert!(
            last.contains("```\n\n`python3 -m unittest` fails:\n    AssertionError: -1 != 5\n\nFix the code so that it passes.\nRequest: Fix add in calc.py."),
            "{last}"
        );
    }

    #[test]
    fn a_short_report_is_shown_whole_and_a_long_one_by_its_failures_and_end() {
        // node --test: the values compared are on lines that say neither "error" nor "assert".
        let node = "not ok 1 - slugify\n  error: |-\n    Expected values to be strictly equal:\n    + 'hello-world-'\n    - 'hello-world'\n\n[exit code 1; 0.1 s; full output: /tmp/o.log]\n";
        assert_eq!(
            what_failed(node),
            [
                "not ok 1 - slugify",
                "  error: |-",
                "    Expected values to be strictly equal:",
                "    + 'hello-world-'",
                "    - 'hello-world'"
            ]
        );
        let long: String = (0..100)
            .map(|i| {
                if i == 10 {
                    "error[E0308]: mismatched types\n".to_string()
                } else {
                    format!("line {i}\n")
                }
            })
            .collect();
        let shown = what_failed(&long);
        assert_eq!(shown[0], "error[E0308]: mismatched types");
        assert_eq!(shown.last().map(String::as_str), Some("line 99"));
        assert!(shown.len() <= OUTPUT_LINES, "{shown:?}");
    }

    #[test]
    fn a_question_about_a_file_is_not_drafted() {
        for task in [
            "What does calc.py do?",
            "explain calc.py",
            "Why does add in calc.py fail",
            "Is calc.py tested?",
            "Can you explain calc.py?",
            "Does calc.py handle empty lists",
        ] {
            assert!(!asks_for_change(task), "{task}");
        }
        for task in [
            "Fix add in calc.py.",
            "calc.py: add returns the wrong result. Fix it.",
            "Implement slugify in slug.js. Run `node --test` to check.",
            "max([]) in max.js returns -Infinity. Make it return null.",
            "is_palindrome in text.py says \"Racecar\" is not a palindrome. Fix it.",
            "Do the rename in calc.py.",
            "Can you fix add in calc.py?",
            "Could you please make calc.py's add return a + b?",
        ] {
            assert!(asks_for_change(task), "{task}");
        }
    }

    #[test]
    fn every_task_of_make_bench_agent_is_a_change_request() {
        let tasks =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/agent/tasks");
        let mut seen = 0;
        for entry in std::fs::read_dir(&tasks).expect("bench tasks") {
            let task = entry.expect("entry").path().join("task.json");
            let json: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&task).expect("task.json"))
                    .expect("json");
            let prompt = json["prompt"].as_str().expect("prompt");
            assert!(asks_for_change(prompt), "{prompt}");
            seen += 1;
        }
        assert!(seen >= 20, "{seen} tasks");
    }

    #[test]
    fn a_draft_that_elides_part_of_the_file_writes_nothing() {
        for text in [
            "calc.py\n```\ndef add(a, b):\n    return a + b\n# ... rest of the code unchanged\n```\n",
            "calc.py\n```\n...\ndef add(a, b):\n    return a + b\n```\n",
        ] {
            assert!(
                draft().as_calls(reply(text), 1).message.is_blank(),
                "{text}"
            );
        }
        // A `...` the file already had is code, not a gap.
        let stub = Draft::new(
            "Implement add in calc.py.",
            vec![(
                "calc.py".into(),
                "def sub(a, b):\n    ...\n\ndef add(a, b):\n    ...\n".into(),
            )],
        )
        .expect("draft");
        let done = stub.as_calls(
            reply(
                "calc.py\n```\ndef sub(a, b):\n    ...\n\ndef add(a, b):\n    return a + b\n```\n",
            ),
            1,
        );
        assert_eq!(done.message.content.len(), 1);
    }

    #[test]
    fn a_file_with_a_fence_of_its_own_is_not_drafted() {
        assert!(
            Draft::new(
                "Fix the README.",
                vec![("README.md".into(), "```sh\nls\n```\n".into())]
            )
            .is_none()
        );
        assert!(Draft::new("Fix it.", Vec::new()).is_none());
    }
}
