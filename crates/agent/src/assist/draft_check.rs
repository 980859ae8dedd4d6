//! The check a task names, run by the agent itself right after a small model's draft landed,
//! as aider's `--auto-test` runs its test command after each reply. Asked to run it, the
//! built-in model spent a whole step on it — reading the conversation again, ~20 s of a 60 s
//! HumanEval task on two cores — and another to finish; aider's loop spent neither, and was
//! faster on the same model (make bench-agent). The command is still a call like any other:
//! judged by the policy, put to the person when the policy asks, shown, its failure sent back
//! to the next draft.

/// The check to run after a draft: the first one the task names in backticks, and whether
/// the task ends with it — the only check named, nothing asked after it ("… then run `npm test`.", "Run
/// `cargo test` to check."), so a draft whose check passes has done the whole task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DraftCheck {
    pub command: String,
    pub ends_task: bool,
}

/// Words that may follow a task's last check without asking for more.
const AFTER_CHECK: &[&str] = &[
    "to",
    "check",
    "verify",
    "confirm",
    "when",
    "done",
    "it",
    "afterwards",
    "again",
    "that",
    "the",
    "tests",
    "pass",
    "passes",
    "work",
    "works",
];

impl DraftCheck {
    /// The check `task` names, if any.
    pub(crate) fn of(task: &str) -> Option<DraftCheck> {
        let named = super::checks::named_in(task);
        let command = named.first()?.clone();
        let quoted = format!("`{command}`");
        // Two checks named: passing the one run is not the task done.
        let ends_task = named.len() == 1
            && task.rfind(&quoted).is_some_and(|at| {
                let rest = &task[at + quoted.len()..];
                // A command after it (`git diff`) is more to do.
                !rest.contains('`')
                    && rest
                        .split(|c: char| !c.is_alphanumeric())
                        .filter(|w| !w.is_empty())
                        .all(|w| AFTER_CHECK.contains(&w.to_lowercase().as_str()))
            });
        Some(DraftCheck { command, ends_task })
    }

    /// What a task a draft finished says it did, in Tandem's words (the model said nothing
    /// more: its draft was the answer).
    pub(crate) fn summary(&self, files: &[String]) -> String {
        let files = files
            .iter()
            .map(|f| format!("`{f}`"))
            .collect::<Vec<_>>()
            .join(", ");
        if files.is_empty() {
            format!("`{}` passes.", self.command)
        } else {
            format!("Changed {files}; `{}` passes.", self.command)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(task: &str) -> Option<(String, bool)> {
        DraftCheck::of(task).map(|c| (c.command, c.ends_task))
    }

    #[test]
    fn a_task_that_ends_with_its_check_is_done_when_the_check_passes() {
        for task in [
            "calc.py: add returns the wrong result. Fix it, then run the tests with `python3 -m unittest`.",
            "Implement grade(score) in grades.py following its docstring. Run `python3 -m unittest` when done.",
            "Implement reverse_words in src/lib.rs. Run `cargo test` to check.",
            "Fix max.sh and run `bash test.sh`",
            "Fix it. Run `npm test` to verify that the tests pass!",
        ] {
            let (_, ends) = check(task).expect(task);
            assert!(ends, "{task}");
        }
    }

    #[test]
    fn a_task_that_asks_more_after_its_check_is_not() {
        for task in [
            "Fix calc.py, run `python3 -m unittest`, then commit it.",
            "Fix calc.py and run `pytest`. Then update the README with the new behaviour.",
            "Run `cargo test` and tell me which tests are slow.",
            "Fix it, run `npm test`, then show the output of `git diff`.",
        ] {
            let (_, ends) = check(task).expect(task);
            assert!(!ends, "{task}");
        }
    }

    #[test]
    fn the_first_named_check_is_the_one_run_and_a_task_without_one_has_none() {
        assert_eq!(
            check("Fix it. Run `python3 -m pytest -q` then `npm test`."),
            Some(("python3 -m pytest -q".into(), false))
        );
        assert_eq!(check("Fix calc.py; see `calc.py`."), None);
        assert_eq!(check("Fix calc.py, then run the tests."), None);
    }

    #[test]
    fn the_summary_names_the_files_and_the_check() {
        let c = DraftCheck::of("Fix it and run `bash test.sh`").expect("a check");
        assert_eq!(
            c.summary(&["max.sh".into()]),
            "Changed `max.sh`; `bash test.sh` passes."
        );
    }
}
