//! The files a task names, read for a small model before its first step. The built-in model
//! acted before it read in 9 of 10 tasks: its first call was a write composed from the task's
//! words alone, refused as not read, then written again. Read by the agent as the model would
//! read them (a `read_file` call per file, judged by the policy, shown in the window and kept in
//! the log, so a resumed session has them too), they are in front of it when it decides, and
//! they count as read.

use crate::turn::{Agent, AgentError, ToolReply};
use protocol::{AgentEvent, ContentBlock, Message, Role};
use serde_json::{Value, json};
use std::path::Path;
use tokio_util::sync::CancellationToken;

/// Files read at most: more would crowd a small model's context.
const MAX_FILES: usize = 3;
/// A larger file is left for the model to read in parts.
const MAX_BYTES: u64 = 8 * 1024;
/// The files' bytes together at most: ~2,500 tokens of the built-in model's 8,192, beside a
/// prompt of ~2,050.
const MAX_TOTAL_BYTES: u64 = 10 * 1024;

/// Paths relative to `root` that the task names and that are files in the project, in the
/// order named, each once: words with a `.` or a `/`, stripped of the quotes and punctuation
/// around them.
pub(crate) fn named_files(task: &str, root: &Path) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut total = 0;
    for word in task.split_whitespace() {
        let around = |c: char| "`'\"()[]{}<>,;:!?*".contains(c);
        let word = word
            .trim_start_matches(around)
            .trim_end_matches(|c: char| around(c) || c == '.')
            .trim_start_matches("./");
        if word.is_empty()
            || !(word.contains('.') || word.contains('/'))
            || word.starts_with('/')
            || word.split('/').any(|part| part == ".." || part.is_empty())
            || found.iter().any(|f| f == word)
        {
            continue;
        }
        let size = std::fs::symlink_metadata(root.join(word))
            .ok()
            .filter(|m| m.is_file() && m.len() <= MAX_BYTES)
            .map(|m| m.len());
        if let Some(size) = size.filter(|s| total + s <= MAX_TOTAL_BYTES) {
            total += size;
            found.push(word.to_string());
            if found.len() == MAX_FILES {
                break;
            }
        }
    }
    found
}

impl Agent {
    /// Reads the files `task` names through `read_file` calls made for the model. False when
    /// the person stopped the task meanwhile.
    pub(crate) async fn read_named_files(
        &mut self,
        task: &str,
        cancel: &CancellationToken,
    ) -> Result<bool, AgentError> {
        let paths = named_files(task, self.toolbox.ws.root().path());
        if paths.is_empty() {
            return Ok(true);
        }
        let first = self.messages.len();
        let calls: Vec<(String, Value)> = paths
            .iter()
            .enumerate()
            .map(|(i, p)| (format!("named_{first}_{i}"), json!({ "path": p })))
            .collect();
        let message = Message {
            role: Role::Assistant,
            content: calls
                .iter()
                .map(|(id, input)| ContentBlock::ToolUse {
                    id: id.clone(),
                    name: "read_file".into(),
                    input: input.clone(),
                })
                .collect(),
        };
        self.emit(AgentEvent::AssistantMessage {
            message: message.clone(),
        })?;
        self.messages.push(message);
        let mut results = Vec::new();
        let mut stopped = false;
        for (id, input) in calls {
            let shown_id = self.event_id(&id);
            let reply = if stopped {
                None
            } else {
                self.emit(AgentEvent::ToolCallProposed {
                    id: shown_id.clone(),
                    name: "read_file".into(),
                    input: input.clone(),
                })?;
                self.judge_and_run(&id, "read_file", &input, cancel).await?
            };
            let reply = reply.unwrap_or_else(|| {
                stopped = true;
                ToolReply::stopped()
            });
            results.push(self.report_finished(id, shown_id, "read_file", &reply)?);
        }
        self.messages.push(Message {
            role: Role::User,
            content: results,
        });
        self.log.sync()?;
        Ok(!stopped)
    }
}

#[cfg(test)]
mod tests {
    use super::named_files;

    #[test]
    fn files_the_task_names_that_exist_in_order_each_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        std::fs::create_dir(root.join("src")).expect("mkdir");
        for f in ["solution.py", "src/calc.rs", "README.md", "big.txt"] {
            std::fs::write(root.join(f), "x\n").expect("write");
        }
        std::fs::write(root.join("big.txt"), "x".repeat(9_000)).expect("big");
        let task = "Implement `find_zero` in solution.py (see src/calc.rs and ./README.md). \
                    Then run solution.py's tests; ignore big.txt, missing.py, ../etc/passwd, \
                    /etc/hostname and e.g. this.";
        assert_eq!(
            named_files(task, root),
            ["solution.py", "src/calc.rs", "README.md"]
        );
        assert!(named_files("fix the bug", root).is_empty());
        // Together they stay small: the third 4 KB file no longer fits beside two.
        for f in ["a.py", "b.py", "c.py"] {
            std::fs::write(root.join(f), "y".repeat(4_000)).expect("write");
        }
        assert_eq!(named_files("a.py b.py c.py", root), ["a.py", "b.py"]);
    }
}
