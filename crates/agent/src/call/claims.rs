//! A task_done's claims against what happened. The model writes its summary; the engine knows
//! which edits the user rejected, which files changed and how the last check ended, and says
//! where they disagree — typed, so every front end shows the same thing without reading the
//! summary's words.

use crate::assist::checks::{CheckRun, is_check};
use protocol::DoneWarning;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::UNIX_EPOCH;

/// What one agent did that its summary may be checked against.
#[derive(Debug, Default)]
pub struct WorkRecord {
    /// Files whose write or edit the user rejected, with their content at that moment (None:
    /// the file did not exist). A later write through the tools takes a file off the list.
    rejected: BTreeMap<String, Option<String>>,
    last_check: Option<CheckRun>,
    /// The checks the task names in backticks ("Run `bash test.sh` to check").
    asked_checks: Vec<String>,
    /// A write went through after the last check of this task, or before any.
    written_since_check: bool,
    /// What the person said no to in this task (denied calls, rejected changes, edits kept in
    /// part): the task's end names them, so it never claims in green what was refused.
    refused: Vec<DoneWarning>,
    /// Paths changed in this task (by the tools, or by a command's landed changes).
    touched: std::collections::BTreeSet<String>,
}

/// What the model said it did.
pub struct Claim<'a> {
    pub summary: &'a str,
    /// `files_changed`, as the model wrote the paths.
    pub files: &'a [String],
}

/// Where the files the claim names are: the project, and when the session started (files
/// older than that were not changed by it).
pub struct Project<'a> {
    pub root: &'a tools::ProjectRoot,
    pub session_started_ms: Option<u64>,
}

impl WorkRecord {
    /// The user rejected a write or edit of `path`, whose content was `content`.
    pub fn rejected(&mut self, path: &str, content: Option<&str>) {
        self.rejected
            .insert(path.to_string(), content.map(str::to_string));
    }

    /// A write or edit of `path` went through (in part, at least).
    pub fn written(&mut self, path: &str) {
        self.rejected.remove(path);
        self.written_since_check = true;
        self.touched.insert(path.to_string());
        self.refused
            .retain(|w| !matches!(w, DoneWarning::EditPartlyKept { path: p, .. } if p == path));
    }

    /// `command`'s layer landed `path`. A check's own output (`__pycache__/`, a coverage
    /// file) is not a change after the check: counted as one, it sent a task_done back with
    /// "it has not run since your last change" right after the check passed (HumanEval, the
    /// built-in model). Any other command's changes are.
    pub fn landed_by(&mut self, command: &str, path: &str) {
        if is_check(command) {
            self.rejected.remove(path);
            self.touched.insert(path.to_string());
        } else {
            self.written(path);
        }
    }

    /// The person kept `kept` of the `total` changes of an edit to `path`.
    pub fn kept_in_part(&mut self, path: &str, kept: u32, total: u32) {
        self.written(path);
        self.refused.push(DoneWarning::EditPartlyKept {
            path: path.to_string(),
            kept,
            total,
        });
    }

    /// The person denied `command`: it did not run.
    pub fn command_denied(&mut self, command: &str) {
        let w = DoneWarning::CommandDenied {
            command: command.to_string(),
        };
        if !self.refused.contains(&w) {
            self.refused.push(w);
        }
    }

    /// The person said no to another call, named for people by `title`.
    pub fn call_denied(&mut self, title: &str) {
        let w = DoneWarning::CallDenied {
            title: title.to_string(),
        };
        if !self.refused.contains(&w) {
            self.refused.push(w);
        }
    }

    /// The person rejected what `command` did to `paths` (none of it landed).
    pub fn changes_rejected(&mut self, command: &str, paths: Vec<String>) {
        if !paths.is_empty() {
            self.refused.push(DoneWarning::ChangesRejected {
                command: command.to_string(),
                paths,
            });
        }
    }

    /// A new task from the user begins. A check that failed in an earlier task says nothing
    /// about this one: kept, it was blamed on every later task_done of the session. Rejected
    /// edits stay, as they are checked against the file as it is now.
    pub fn new_task(&mut self, task: &str) {
        self.last_check = None;
        self.written_since_check = false;
        self.asked_checks = crate::assist::checks::named_in(task);
        self.refused.clear();
        self.touched.clear();
    }

    /// A command ran to its end; a check among them is remembered as the last one.
    pub fn ran(&mut self, command: &str, exit_code: Option<i32>, passed: bool) {
        // Run after all: its denial is no longer what happened.
        self.refused
            .retain(|w| !matches!(w, DoneWarning::CommandDenied { command: c } if c == command));
        if is_check(command) {
            self.written_since_check = false;
            self.last_check = Some(CheckRun {
                command: command.to_string(),
                exit_code,
                passed,
            });
        }
    }

    /// The last check of this task, if one ran.
    pub fn last_check(&self) -> Option<&CheckRun> {
        self.last_check.as_ref()
    }

    /// Whether a write went through after the last check of this task, or before any.
    pub fn written_since_check(&self) -> bool {
        self.written_since_check
    }

    /// The paths changed in this task, in order.
    pub fn touched(&self) -> Vec<String> {
        self.touched.iter().cloned().collect()
    }

    /// Where `claim` disagrees with what happened, in the order files were named, the failed
    /// check last.
    pub fn warnings(&self, claim: &Claim<'_>, project: &Project<'_>) -> Vec<DoneWarning> {
        let mut out = Vec::new();
        let mut named: Vec<(String, bool)> = Vec::new();
        for f in claim.files {
            let path = project
                .root
                .resolve(f)
                .map(|r| r.display)
                .unwrap_or_else(|_| f.clone());
            if !named.iter().any(|(p, _)| *p == path) {
                named.push((path, true));
            }
        }
        // A rejected file the summary mentions is claimed too ("Edited calc.py"); it is
        // matched by its path or its name, never interpreted further.
        for path in self.rejected.keys() {
            let name = path.rsplit('/').next().unwrap_or(path);
            if !named.iter().any(|(p, _)| p == path)
                && (claim.summary.contains(path.as_str()) || claim.summary.contains(name))
            {
                named.push((path.clone(), false));
            }
        }
        for (path, listed) in named {
            let real = project.root.path().join(&path);
            let now = std::fs::read(&real)
                .ok()
                .map(|b| String::from_utf8_lossy(&b).into_owned());
            match self.rejected.get(&path) {
                // Still as it was when the user said no: nothing else changed it since.
                Some(then) if *then == now => {
                    out.push(DoneWarning::EditRejected { path });
                    continue;
                }
                Some(_) => continue,
                None => {}
            }
            if listed && untouched_since(&real, project.session_started_ms) {
                out.push(DoneWarning::FileUnchanged { path });
            } else if listed
                && !self.touched.contains(&path)
                && std::fs::symlink_metadata(&real).is_err()
            {
                // "Generated report.txt" after the command that would have made it was denied.
                out.push(DoneWarning::FileMissing { path });
            }
        }
        out.extend(self.refused.iter().cloned());
        if let Some(check) = self.last_check.as_ref().filter(|c| !c.passed) {
            out.push(DoneWarning::CheckFailed {
                command: check.command.clone(),
                exit_code: check.exit_code,
            });
        } else if let Some(asked) = self.asked_checks.first()
            && (self.last_check.is_none() || self.written_since_check)
        {
            // make bench-agent, sh-ext: told to run `bash test.sh`, the built-in model read
            // the files and called task_done, with nothing written and nothing run.
            out.push(DoneWarning::CheckNotRun {
                command: asked.clone(),
            });
        }
        out
    }
}

/// True when the file exists and was last modified before the session started: nothing in
/// the session (a tool, a command, the user) changed it. Unknown is not untouched.
fn untouched_since(path: &Path, started_ms: Option<u64>) -> bool {
    let Some(started) = started_ms else {
        return false;
    };
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .is_some_and(|d| (d.as_millis() as u64) < started)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> (tempfile::TempDir, tools::ProjectRoot) {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("calc.py"), "x = 1\n").expect("write");
        std::fs::write(dir.path().join("notes.txt"), "notes\n").expect("write");
        let root = tools::ProjectRoot::open(dir.path()).expect("root");
        (dir, root)
    }

    fn later() -> Option<u64> {
        Some(config::locations::now_ms() + 60_000)
    }

    #[test]
    fn a_rejected_edit_named_in_the_summary_is_a_warning() {
        let (_dir, root) = project();
        let mut record = WorkRecord::default();
        record.rejected("calc.py", Some("x = 1\n"));
        let p = Project {
            root: &root,
            session_started_ms: later(),
        };
        let claim = Claim {
            summary: "Edited calc.py to fix the sum.",
            files: &[],
        };
        assert_eq!(
            record.warnings(&claim, &p),
            [DoneWarning::EditRejected {
                path: "calc.py".into()
            }]
        );
        // Written later after all: no longer a contradiction.
        record.written("calc.py");
        assert_eq!(record.warnings(&claim, &p), []);
    }

    #[test]
    fn a_rejected_file_changed_since_some_other_way_is_not_claimed_falsely() {
        let (dir, root) = project();
        let mut record = WorkRecord::default();
        record.rejected("calc.py", Some("x = 0\n"));
        let p = Project {
            root: &root,
            session_started_ms: None,
        };
        let claim = Claim {
            summary: "Edited calc.py",
            files: &["./calc.py".to_string()],
        };
        assert_eq!(record.warnings(&claim, &p), []);
        let _ = dir;
    }

    #[test]
    fn a_listed_file_older_than_the_session_was_not_changed() {
        let (_dir, root) = project();
        let record = WorkRecord::default();
        let files = ["notes.txt".to_string(), "calc.py".to_string()];
        let claim = Claim {
            summary: "Updated the notes.",
            files: &files,
        };
        let started_later = Project {
            root: &root,
            session_started_ms: later(),
        };
        assert_eq!(
            record.warnings(&claim, &started_later),
            [
                DoneWarning::FileUnchanged {
                    path: "notes.txt".into()
                },
                DoneWarning::FileUnchanged {
                    path: "calc.py".into()
                }
            ]
        );
        // Files modified after the session started may be its work: no warning.
        let started_before = Project {
            root: &root,
            session_started_ms: Some(0),
        };
        assert_eq!(record.warnings(&claim, &started_before), []);
    }

    #[test]
    fn the_last_check_decides() {
        let (_dir, root) = project();
        let p = Project {
            root: &root,
            session_started_ms: None,
        };
        let claim = Claim {
            summary: "All tests pass.",
            files: &[],
        };
        let mut record = WorkRecord::default();
        record.ran("python3 -m pytest -q", Some(1), false);
        record.ran("ls", Some(2), false);
        assert_eq!(
            record.warnings(&claim, &p),
            [DoneWarning::CheckFailed {
                command: "python3 -m pytest -q".into(),
                exit_code: Some(1)
            }]
        );
        record.ran("python3 -m pytest -q", Some(0), true);
        assert_eq!(record.warnings(&claim, &p), []);
        record.ran("python3 -m pytest -q", Some(1), false);
        record.new_task("Fix calc.py.");
        assert_eq!(
            record.warnings(&claim, &p),
            [],
            "a check of an earlier task is not this task's"
        );
    }

    #[test]
    fn a_check_the_task_names_must_run_after_the_last_change() {
        let (_dir, root) = project();
        let p = Project {
            root: &root,
            session_started_ms: None,
        };
        let claim = Claim {
            summary: "Implemented ext.sh.",
            files: &[],
        };
        let not_run = [DoneWarning::CheckNotRun {
            command: "bash test.sh".into(),
        }];
        let mut record = WorkRecord::default();
        record.new_task("Implement ext.sh. Run `bash test.sh` to check.");
        assert_eq!(record.warnings(&claim, &p), not_run, "nothing ran");
        record.written("ext.sh");
        assert_eq!(record.warnings(&claim, &p), not_run, "written, not run");
        record.ran("bash test.sh", Some(0), true);
        assert_eq!(record.warnings(&claim, &p), []);
        // What the check itself left in the project is its own doing, not a later change.
        record.landed_by("bash test.sh", "__pycache__/ext.cpython-311.pyc");
        assert_eq!(record.warnings(&claim, &p), [], "the check's own output");
        record.landed_by("python3 gen.py", "report.txt");
        assert_eq!(
            record.warnings(&claim, &p),
            not_run,
            "another command's changes"
        );
        record.ran("bash test.sh", Some(0), true);
        record.written("ext.sh");
        assert_eq!(record.warnings(&claim, &p), not_run, "changed after it");
        record.ran("bash test.sh", Some(1), false);
        assert!(
            matches!(
                record.warnings(&claim, &p).as_slice(),
                [DoneWarning::CheckFailed { .. }]
            ),
            "a failed run is said as such"
        );
        record.new_task("Explain what `ls` shows.");
        assert_eq!(record.warnings(&claim, &p), [], "`ls` is not a check");
    }
}
