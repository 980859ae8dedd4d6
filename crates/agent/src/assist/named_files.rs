//! The files a task attaches with `@path` (any model) or, for a small model, simply names: read
//! before the model's first step. The built-in model acted before it read in 9 of 10 tasks: its
//! first call was a write composed from the task's words alone, refused as not read, then
//! written again. Read by the agent as the model would read them (a `read_file` call per file,
//! judged by the policy, shown in the window and kept in the log, so a resumed session has them
//! too), they are in front of it when it decides, and they count as read.

use std::path::Path;

/// How much is read before the first step.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Files read at most.
    files: usize,
    /// A larger file is left for the model to read in parts.
    bytes: u64,
    /// The files' bytes together at most.
    total: u64,
}

/// For a small model: more would crowd its context. 10 KB is ~2,500 tokens of the built-in
/// model's 8,192, beside a prompt of ~2,100.
pub(crate) const SMALL_MODEL: Limits = Limits {
    files: 3,
    bytes: 8 * 1024,
    total: 10 * 1024,
};

/// For files the person attached with `@`: what they chose, within what a model's context
/// takes in one go (a larger file is still there for read_file's pages).
pub(crate) const ATTACHED: Limits = Limits {
    files: 10,
    bytes: 256 * 1024,
    total: 512 * 1024,
};

/// Paths relative to `root` that the task attaches (`@path`) or, with `names_count`, names,
/// and that are files in the project, in the order given, each once: words with a `.` or a
/// `/`, stripped of the quotes and punctuation around them.
pub(crate) fn named_files(
    task: &str,
    root: &Path,
    names_count: bool,
    limits: Limits,
) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut total = 0;
    for word in task.split_whitespace() {
        let around = |c: char| "`'\"()[]{}<>,;:!?*".contains(c);
        let word = word.trim_start_matches(around);
        let (attached, word) = match word.strip_prefix('@') {
            Some(w) => (true, w),
            None => (false, word),
        };
        let word = word
            .trim_end_matches(|c: char| around(c) || c == '.')
            .trim_start_matches("./");
        if !(attached || names_count)
            || word.is_empty()
            || !(attached || word.contains('.') || word.contains('/'))
            || word.starts_with('/')
            || word.split('/').any(|part| part == ".." || part.is_empty())
            || found.iter().any(|f| f == word)
        {
            continue;
        }
        let size = std::fs::symlink_metadata(root.join(word))
            .ok()
            .filter(|m| m.is_file() && m.len() <= limits.bytes)
            .map(|m| m.len());
        if let Some(size) = size.filter(|s| total + s <= limits.total) {
            total += size;
            found.push(word.to_string());
            if found.len() == limits.files {
                break;
            }
        }
    }
    found
}

/// The files a task attaches (and, for a small model, names) that are read before its first
/// step, within what the model's context takes.
pub(crate) fn to_read_first(task: &str, root: &Path, small_model: bool) -> Vec<String> {
    let limits = if small_model { SMALL_MODEL } else { ATTACHED };
    named_files(task, root, small_model, limits)
}

#[cfg(test)]
mod tests {
    use super::{ATTACHED, SMALL_MODEL, named_files};

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
            named_files(task, root, true, SMALL_MODEL),
            ["solution.py", "src/calc.rs", "README.md"]
        );
        assert!(named_files("fix the bug", root, true, SMALL_MODEL).is_empty());
        // Together they stay small: the third 4 KB file no longer fits beside two.
        for f in ["a.py", "b.py", "c.py"] {
            std::fs::write(root.join(f), "y".repeat(4_000)).expect("write");
        }
        assert_eq!(
            named_files("a.py b.py c.py", root, true, SMALL_MODEL),
            ["a.py", "b.py"]
        );
    }

    #[test]
    fn files_attached_with_an_at_are_read_for_any_model_and_only_they() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        std::fs::create_dir(root.join("src")).expect("mkdir");
        for f in ["Makefile", "src/calc.rs", "notes.md"] {
            std::fs::write(root.join(f), "x\n").expect("write");
        }
        let task =
            "Use @Makefile and (@src/calc.rs), not notes.md; mail me@example.com, @missing.rs";
        assert_eq!(
            named_files(task, root, false, ATTACHED),
            ["Makefile", "src/calc.rs"],
            "a name without a dot counts when attached; a plain name does not for a large model"
        );
        assert_eq!(
            named_files(task, root, true, SMALL_MODEL),
            ["Makefile", "src/calc.rs", "notes.md"]
        );
        assert!(named_files("@../etc/passwd @/etc/hostname", root, false, ATTACHED).is_empty());
    }
}
