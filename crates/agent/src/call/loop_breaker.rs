//! Noticing that the model goes round in circles, and what it is told when it does. Two kinds
//! of circle: the same calls made again with the same arguments (one call, or a cycle of up to
//! [`MAX_CYCLE`]), and the same check failing run after run while the edits between differ (a
//! small model went `write → run tests (fail) → edit → read` to the step limit).
//!
//! The first circle in a task is met with a step back: a different instruction, with what the
//! model needs to change course (the failing assertion, the function it last edited). The
//! second pauses the task for the person, in words.

use crate::assist::checks::failing_lines;
use crate::assist::code_shape::{block_end, indent, starts_definition};
use std::collections::VecDeque;

/// Identical calls in a row before the breaker steps in.
pub const LOOP_LIMIT: usize = 3;
/// The longest cycle of calls looked for (`read → edit → run`, and one more).
const MAX_CYCLE: usize = 4;
/// Failing runs of the same check in a row before the breaker steps in.
pub const FAILING_RUNS: u32 = 3;
/// The longest function shown in a step back.
const FUNCTION_LINES: usize = 40;

/// What the breaker decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The model hears `text` and goes on (once per task).
    StepBack { text: String },
    /// The task pauses: `reason` is for the person, `text` for the model.
    Pause { reason: String, text: String },
}

/// The last failing run of a check, and how many came in a row.
#[derive(Debug, Clone)]
struct FailingCheck {
    command: String,
    runs: u32,
    output: String,
}

/// Where the model last changed a file: the path as the model wrote it, and a line of the new
/// text (found again in the file when the step back is written).
#[derive(Debug, Clone)]
struct LastEdit {
    path: String,
    anchor: Option<String>,
}

/// One agent's record of its recent calls, checks and edits.
#[derive(Debug, Default)]
pub struct LoopBreaker {
    /// The latest calls (name, arguments as JSON).
    recent: VecDeque<(String, String)>,
    failing: Option<FailingCheck>,
    last_edit: Option<LastEdit>,
    /// A step back was taken in this task: the next circle pauses.
    stepped_back: bool,
}

impl LoopBreaker {
    /// A new task from the person: its circles are its own.
    pub fn new_task(&mut self) {
        *self = LoopBreaker::default();
    }

    /// Forgets the recent calls (the conversation was rewound or restored).
    pub fn forget_calls(&mut self) {
        self.recent.clear();
    }

    /// Before a call runs: whether it closes a circle of calls. A call that `polls` (looks at
    /// a running task again, or finishes the task) is waiting, not looping. `read` gives a project file's text (for
    /// the function shown in a step back).
    pub fn before_call(
        &mut self,
        name: &str,
        input_json: &str,
        polls: bool,
        read: &dyn Fn(&str) -> Option<String>,
    ) -> Option<Verdict> {
        if polls {
            return None;
        }
        self.recent
            .push_back((name.to_string(), input_json.to_string()));
        while self.recent.len() > MAX_CYCLE * LOOP_LIMIT {
            self.recent.pop_front();
        }
        let cycle = self.cycle()?;
        let what = if cycle.len() == 1 {
            format!(
                "called {} with the same arguments {LOOP_LIMIT} times in a row",
                cycle[0]
            )
        } else {
            format!(
                "made the same {} calls ({}) {LOOP_LIMIT} times over, with the same arguments each time",
                cycle.len(),
                cycle.join(" → ")
            )
        };
        if self.stepped_back {
            return Some(Verdict::Pause {
                reason: self.repeated_words(cycle.len()),
                text: format!(
                    "You have {what}. The task is paused for the user; try a different approach."
                ),
            });
        }
        self.stepped_back = true;
        self.recent.clear();
        let mut text = format!(
            "You have {what}, and it did not help: this call did not run. Step back and do something different."
        );
        text.push_str(&self.what_to_look_at(read));
        Some(Verdict::StepBack { text })
    }

    /// A check (a test run, a build) ran to its end.
    pub fn after_check(
        &mut self,
        command: &str,
        passed: bool,
        output: &str,
        read: &dyn Fn(&str) -> Option<String>,
    ) -> Option<Verdict> {
        if passed {
            self.failing = None;
            // Progress: a later circle is a new one, and earns its own step back.
            self.stepped_back = false;
            return None;
        }
        let runs = match &self.failing {
            Some(f) if f.command == command => f.runs + 1,
            _ => 1,
        };
        self.failing = Some(FailingCheck {
            command: command.to_string(),
            runs,
            output: output.to_string(),
        });
        if runs < FAILING_RUNS {
            return None;
        }
        let what = format!("`{command}` failed {runs} times in a row");
        if self.stepped_back {
            return Some(Verdict::Pause {
                reason: format!(
                    "`{command}` still failed {runs} times in a row after one step back"
                ),
                text: format!("{what}. The task is paused for the user."),
            });
        }
        self.stepped_back = true;
        if let Some(f) = &mut self.failing {
            f.runs = 0;
        }
        let mut text = format!(
            "\n\nStep back: {what}, and the changes between did not fix it. Do not repeat them."
        );
        text.push_str(&self.what_to_look_at(read));
        Some(Verdict::StepBack { text })
    }

    /// A write or an edit of `path` went through; `new_text` is the text it put there.
    pub fn edited(&mut self, path: &str, new_text: Option<&str>) {
        self.last_edit = Some(LastEdit {
            path: path.to_string(),
            anchor: new_text.and_then(|t| {
                t.lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty())
                    .map(str::to_string)
            }),
        });
    }

    /// The newest `period` calls in words for people, for a pause: "Tandem stopped a repeated
    /// step: Read `calc.py` again". The model's words ("called read_file with the same
    /// arguments…") reached the person's transcript, notification and export before.
    fn repeated_words(&self, period: usize) -> String {
        let seen = self.recent.len().saturating_sub(period);
        let titles: Vec<String> = self
            .recent
            .iter()
            .skip(seen)
            .map(|(name, input)| {
                let input = serde_json::from_str(input).unwrap_or(serde_json::Value::Null);
                crate::history::export::title_words(&tools::title_of(name, &input))
            })
            .collect();
        match titles.as_slice() {
            [one] => format!(
                "Tandem stopped a repeated step: {one} again ({LOOP_LIMIT} times in a row, after one step back)"
            ),
            many => format!(
                "Tandem stopped a circle of steps: {} ({LOOP_LIMIT} times over, after one step back)",
                many.join(" → ")
            ),
        }
    }

    /// The newest cycle of calls repeated [`LOOP_LIMIT`] times at the end of the record.
    fn cycle(&mut self) -> Option<Vec<String>> {
        let recent = self.recent.make_contiguous();
        (1..=MAX_CYCLE).find_map(|period| {
            let seen = recent.len().checked_sub(period * LOOP_LIMIT)?;
            let tail = &recent[seen..];
            let repeats = (period..tail.len()).all(|i| tail[i] == tail[i - period]);
            repeats.then(|| tail[..period].iter().map(|(n, _)| n.clone()).collect())
        })
    }

    /// The failing assertion and the function last edited, for a model that has to change
    /// course; then the one next step.
    pub fn what_to_look_at(&self, read: &dyn Fn(&str) -> Option<String>) -> String {
        let mut out = String::new();
        if let Some(f) = &self.failing {
            let lines = failing_lines(&f.output);
            if !lines.is_empty() {
                out.push_str(&format!("\n\nWhat `{}` reported:\n", f.command));
                for l in lines {
                    out.push_str(l);
                    out.push('\n');
                }
            }
        }
        if let Some(edit) = &self.last_edit
            && let Some(text) = read(&edit.path)
        {
            let lines: Vec<&str> = text.lines().collect();
            let at = edit
                .anchor
                .as_deref()
                .and_then(|a| lines.iter().position(|l| l.trim() == a))
                .unwrap_or(0);
            let (start, end) = enclosing_function(&lines, at);
            out.push_str(&format!(
                "\n{} as it is now (lines {}–{}):\n",
                edit.path,
                start + 1,
                end + 1
            ));
            for (i, l) in lines[start..=end].iter().enumerate() {
                out.push_str(&format!("{:>4}  {l}\n", start + i + 1));
            }
        }
        out.push_str(
            "\nRead the failing assertion and the code above, work out what the code must return for it, and make one edit that does exactly that.",
        );
        out
    }
}

/// The first and last line (0-based, inclusive) of the function around line `at`: back to the
/// nearest definition at or left of its indentation, on to the line before the next thing at
/// the definition's own indentation (a closing brace at that indentation belongs to it). At most
/// [`FUNCTION_LINES`]; without a definition, the lines around `at`.
fn enclosing_function(lines: &[&str], at: usize) -> (usize, usize) {
    if lines.is_empty() {
        return (0, 0);
    }
    let at = at.min(lines.len() - 1);
    let definition = (0..=at)
        .rev()
        .find(|&i| starts_definition(lines[i]) && indent(lines[i]) <= indent(lines[at]).max(1));
    match definition {
        Some(start) => (
            start,
            block_end(lines, start).min(start + FUNCTION_LINES - 1),
        ),
        // A script with no function around the edit: the lines around it, as many as a
        // function would get (a block end from a top-level line would be that line alone).
        None => {
            let start = at.saturating_sub(FUNCTION_LINES / 2);
            (start, (start + FUNCTION_LINES - 1).min(lines.len() - 1))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOLUTION: &str = "import math\n\n\ndef mean(xs):\n    \"\"\"The mean of xs.\"\"\"\n    total = sum(xs)\n    return total / (len(xs) + 1)\n\n\ndef other():\n    return 1\n";

    fn read(path: &str) -> Option<String> {
        (path == "solution.py").then(|| SOLUTION.to_string())
    }

    const PYTEST_FAILURE: &str = "F\n=== FAILURES ===\n    def test_mean():\n>       assert mean([1, 2, 3]) == 2\nE       assert 1.5 == 2\nE        +  where 1.5 = mean([1, 2, 3])\ntest_solution.py:4: AssertionError\n1 failed in 0.02s\n";

    /// Whether the registry says calling `name` again is waiting.
    fn polls(name: &str) -> bool {
        tools::find_tool(name).is_some_and(|t| t.step == tools::Step::Polls)
    }

    #[test]
    fn one_call_three_times_steps_back_then_pauses() {
        let mut b = LoopBreaker::default();
        let call = |b: &mut LoopBreaker| {
            b.before_call("read_file", r#"{"path":"a"}"#, polls("read_file"), &read)
        };
        assert_eq!(call(&mut b), None);
        assert_eq!(call(&mut b), None);
        let Some(Verdict::StepBack { text }) = call(&mut b) else {
            panic!("the third identical call steps back");
        };
        assert!(text.contains("called read_file with the same arguments 3 times"));
        assert!(text.contains("did not run"));
        // The record starts again after a step back: two more are not yet a circle.
        assert_eq!(call(&mut b), None);
        assert_eq!(call(&mut b), None);
        let Some(Verdict::Pause { reason, .. }) = call(&mut b) else {
            panic!("the second circle pauses");
        };
        // Words for the person: the call as the window names it, never the tool's name.
        assert_eq!(
            reason,
            "Tandem stopped a repeated step: Read a again (3 times in a row, after one step back)"
        );
    }

    #[test]
    fn a_cycle_of_two_calls_is_a_circle() {
        let mut b = LoopBreaker::default();
        let mut last = None;
        for _ in 0..LOOP_LIMIT {
            assert_eq!(last, None);
            assert_eq!(
                b.before_call("read_file", "{}", polls("read_file"), &read),
                None
            );
            last = b.before_call("list_files", "{}", polls("list_files"), &read);
        }
        assert!(
            matches!(&last, Some(Verdict::StepBack { text }) if text.contains("same 2 calls (read_file → list_files)")),
            "{last:?}"
        );
    }

    #[test]
    fn polling_is_not_a_circle() {
        let mut b = LoopBreaker::default();
        for _ in 0..10 {
            assert_eq!(
                b.before_call("task_poll", "{}", polls("task_poll"), &read),
                None
            );
        }
    }

    #[test]
    fn the_same_check_failing_three_times_steps_back_with_the_assertion_and_the_function() {
        let mut b = LoopBreaker::default();
        b.edited("solution.py", Some("    return total / (len(xs) + 1)\n"));
        let cmd = "python3 -m pytest -q";
        assert_eq!(b.after_check(cmd, false, PYTEST_FAILURE, &read), None);
        assert_eq!(b.after_check(cmd, false, PYTEST_FAILURE, &read), None);
        let Some(Verdict::StepBack { text }) = b.after_check(cmd, false, PYTEST_FAILURE, &read)
        else {
            panic!("the third failing run steps back");
        };
        assert!(text.contains("failed 3 times in a row"), "{text}");
        assert!(text.contains("E       assert 1.5 == 2"), "{text}");
        assert!(
            text.contains("solution.py as it is now (lines 4–7)"),
            "{text}"
        );
        assert!(
            text.contains("   7      return total / (len(xs) + 1)"),
            "{text}"
        );
        assert!(
            !text.contains("def other"),
            "only the edited function: {text}"
        );
        // Three more failures after the step back pause the task.
        assert_eq!(b.after_check(cmd, false, PYTEST_FAILURE, &read), None);
        assert_eq!(b.after_check(cmd, false, PYTEST_FAILURE, &read), None);
        let Some(Verdict::Pause { reason, .. }) = b.after_check(cmd, false, PYTEST_FAILURE, &read)
        else {
            panic!("the third failure after the step back pauses");
        };
        assert_eq!(
            reason,
            format!("`{cmd}` still failed 3 times in a row after one step back")
        );
    }

    #[test]
    fn a_passing_run_breaks_the_count_and_earns_a_new_step_back() {
        let mut b = LoopBreaker::default();
        let cmd = "npm test";
        for _ in 0..2 {
            assert_eq!(b.after_check(cmd, false, "FAIL", &read), None);
        }
        assert_eq!(b.after_check(cmd, true, "ok", &read), None);
        for _ in 0..2 {
            assert_eq!(b.after_check(cmd, false, "FAIL", &read), None);
        }
        assert!(matches!(
            b.after_check(cmd, false, "FAIL", &read),
            Some(Verdict::StepBack { .. })
        ));
    }

    #[test]
    fn different_commands_count_apart() {
        let mut b = LoopBreaker::default();
        for i in 0..6 {
            let cmd = if i % 2 == 0 { "pytest" } else { "ruff ." };
            assert_eq!(b.after_check(cmd, false, "FAIL", &read), None);
        }
    }

    #[test]
    fn a_new_task_forgets_the_step_back() {
        let mut b = LoopBreaker::default();
        for _ in 0..3 {
            b.after_check("pytest", false, "FAIL", &read);
        }
        b.new_task();
        for _ in 0..2 {
            assert_eq!(b.after_check("pytest", false, "FAIL", &read), None);
        }
        assert!(matches!(
            b.after_check("pytest", false, "FAIL", &read),
            Some(Verdict::StepBack { .. })
        ));
    }

    #[test]
    fn functions_are_found_in_braced_languages_too() {
        let js = "const x = 1;\n\nfunction add(a, b) {\n  return a - b;\n}\n\nfunction mul(a, b) {\n  return a * b;\n}\n";
        let lines: Vec<&str> = js.lines().collect();
        assert_eq!(enclosing_function(&lines, 3), (2, 4));
        let sh = "#!/bin/sh\ngreet() {\n  echo hi\n}\ngreet\n";
        let lines: Vec<&str> = sh.lines().collect();
        assert_eq!(enclosing_function(&lines, 2), (1, 3));
        let rs = "pub fn add(a: i32) -> i32 {\n    a - 1\n}\n";
        let lines: Vec<&str> = rs.lines().collect();
        assert_eq!(enclosing_function(&lines, 1), (0, 2));
    }

    #[test]
    fn the_failing_lines_are_the_last_distinct_ones() {
        let out = "test a ... FAIL\n".repeat(20) + "AssertionError: 3 != 4\n";
        let lines = failing_lines(&out);
        assert_eq!(lines, vec!["test a ... FAIL", "AssertionError: 3 != 4"]);
    }

    #[test]
    fn a_script_without_functions_is_shown_around_the_edit() {
        // make bench-agent, sh-greet: the step back showed only the shebang line.
        let script = |p: &str| {
            (p == "greet.sh").then(|| "#!/usr/bin/env bash\necho \"Hello $1!\"\n".to_string())
        };
        let mut b = LoopBreaker::default();
        b.edited("greet.sh", Some("echo \"Hello $1!\""));
        let text = b.what_to_look_at(&script);
        assert!(text.contains("greet.sh as it is now (lines 1–2)"), "{text}");
        assert!(text.contains("   2  echo \"Hello $1!\""), "{text}");
    }
}
