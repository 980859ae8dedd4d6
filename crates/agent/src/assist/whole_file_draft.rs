//! A small model's first move on a task that names files: the files as they are and the task,
//! asked for each changed file whole in a fenced block under its path, with no tools offered.
//! Offered the tools, the built-in model answered with JSON edits whose old and new text were
//! the same, again and again (8 of 14 misses in one run of make bench-agent); asked this way
//! (aider's whole-file format), the same model solved 15 of the 22 tasks in one reply. The
//! blocks become `write_file` calls of the agent's conversation — judged, guarded, approved and
//! shown like any other. The check the task names then runs as the agent's own call (see
//! [`super::draft_check`]); failing, the draft is asked again with what failed (aider's loop);
//! passing, a task that ends with its check is done. A task without a named check goes on
//! with the tools.

use super::afresh_draft::Afresh;
use super::project_text::read as read_project_text;
use llm::ChatResponse;
use protocol::{ContentBlock, Message, Role};
use tools::ProjectRoot;

/// What the model is told in a draft; the example reply shows the one form that is read.
pub(crate) const DRAFT_SYSTEM: &str = "Act as an expert software developer. You are given files and a request to change them.\nTo change a file, reply with its path on a line of its own, then its entire new content in a fenced code block. Every line as it must read after the change: never skip or elide lines, never write \"...\" or \"rest of the code\". Change only what the request asks.\n";

const EXAMPLE_REQUEST: &str = "show_greeting.py\n```\ndef greeting(name):\n    print(f\"Hello {name}\")\n```\n\nRequest: Change the greeting to be more casual.";
const EXAMPLE_REPLY: &str =
    "show_greeting.py\n```\ndef greeting(name):\n    print(f\"Hey {name}\")\n```\n";

/// The messages a draft starts with after its system message (the example's request and
/// reply): the same in every draft of every session.
pub(crate) const EXAMPLE_MESSAGES: usize = 2;

/// Drafts asked for again after a check failed, per task: aider's loop (the failing output
/// back, the file whole again, three times at most) solved every problem of a public suite
/// whose first draft failed its check.
pub(crate) const REPAIRS: u32 = 3;

/// Drafts asked for again, per task, when a reply could not be used (see [`DraftMiss`]):
/// such a reply is told what was wrong with it and asked again, instead of the task falling
/// back to tool calls a small model circles in.
pub(crate) const RETRIES: u32 = 2;

/// How a retry after a failed check is sampled: llama.cpp's default. Only a reply that wrote
/// nothing for another reason than an unchanged file (no block, cut, elided) is retried so.
const RETRY_TEMPERATURE: f32 = 0.8;

/// Why a draft's reply wrote nothing. Each is told to the model in the next draft.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DraftMiss {
    /// No fenced block under a shown file's path.
    NoBlock,
    /// Every block was the file as it is: nothing changed.
    Unchanged,
    /// A block stood in for part of the file with a marker (`# ... rest of the code`).
    Elided,
    /// The reply ended (its token limit) before the block's closing fence.
    Cut,
}

impl DraftMiss {
    /// The kind, as the log and the benchmark count it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            DraftMiss::NoBlock => "no_block",
            DraftMiss::Unchanged => "unchanged",
            DraftMiss::Elided => "elided",
            DraftMiss::Cut => "cut",
        }
    }

    /// What the next draft tells the model about its last reply.
    fn words(self, paths: &str, failed: bool) -> String {
        match self {
            DraftMiss::NoBlock => format!(
                "Your last reply had no file in the form asked. Reply with {paths} on a line of its own, then its whole new content in one fenced code block, and nothing else."
            ),
            DraftMiss::Unchanged if failed => format!(
                "Your last reply gave {paths} back unchanged, and the check still fails: the code must change. Read the failure above, find the line that causes it, and write {paths} again with that fixed."
            ),
            DraftMiss::Unchanged => format!(
                "Your last reply gave {paths} back unchanged. Write {paths} again with the request done."
            ),
            DraftMiss::Elided => format!(
                "Your last reply left out part of {paths} (a \"...\" line). Write every line of the file, with none skipped."
            ),
            DraftMiss::Cut => format!(
                "Your last reply was cut off before {paths}'s block ended. Write only the file, whole, with no explanation."
            ),
        }
    }
}

/// A draft about to be asked for: the files it shows (path, text as read), the task, the
/// check that failed since the last draft, and what was wrong with the last reply.
#[derive(Debug, Clone)]
pub(crate) struct Draft {
    files: Vec<(String, String)>,
    task: String,
    failed: Option<FailedCheck>,
    missed: Option<DraftMiss>,
    /// The files as the task began, for a repair that goes on from the first draft.
    original: Option<Vec<(String, String)>>,
    /// Sampled, not the likeliest reply: see [`Draft::temperature`].
    temperature: Option<f32>,
    /// Asked afresh from the files as the task began (see [`super::afresh_draft`]).
    afresh: Option<Afresh>,
    /// The files as they are now, where they differ from those shown (an afresh draft shows
    /// the task's first files): a block equal to either writes nothing.
    now: Option<Vec<(String, String)>>,
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
    /// Drafts asked again after a reply that wrote nothing.
    pub retries: u32,
    /// The last check that failed, shown again to a retry.
    pub failed: Option<FailedCheck>,
    /// The files as the task began (its first draft showed them so).
    pub original: Vec<(String, String)>,
    /// The check the task names, run by the agent after each draft landed.
    pub check: Option<super::draft_check::DraftCheck>,
    /// Drafts asked afresh after a repair gave the file back unchanged.
    pub afresh: u32,
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
            missed: None,
            original: None,
            temperature: None,
            afresh: None,
            now: None,
        })
    }

    /// The same draft shown with a check that failed.
    pub(crate) fn after(mut self, failed: FailedCheck) -> Draft {
        self.failed = Some(failed);
        self
    }

    /// The same draft, told what was wrong with the last reply.
    pub(crate) fn missed(mut self, miss: DraftMiss) -> Draft {
        self.missed = Some(miss);
        self
    }

    /// The system message the draft is asked with.
    pub(crate) fn system(&self) -> &'static str {
        self.afresh.map_or(DRAFT_SYSTEM, Afresh::system)
    }

    /// The conversation the draft is asked in: the example, then the files and the request.
    /// A repair goes on from there as aider's loop does: the files as the task began with the
    /// request, the model's own answer (the files as they are now), then what failed — told
    /// its answer failed, the model changes it; shown the files as given, it wrote them back
    /// unchanged (make bench-agent on HumanEval).
    pub(crate) fn messages(&self) -> Vec<Message> {
        if let Some(afresh) = self.afresh {
            return afresh.messages(&blocks(&self.files), &self.task);
        }
        let mut out = vec![
            Message::user_text(EXAMPLE_REQUEST),
            Message {
                role: Role::Assistant,
                content: vec![ContentBlock::Text {
                    text: EXAMPLE_REPLY.to_string(),
                }],
            },
        ];
        let reply_form = "\n\nReply with the path of each file you change on a line of its own and its whole new content in a fenced code block.";
        match (&self.failed, &self.original) {
            (Some(f), Some(original)) => {
                out.push(Message::user_text(format!(
                    "{}Request: {}{reply_form}",
                    blocks(original),
                    self.task
                )));
                out.push(Message {
                    role: Role::Assistant,
                    content: vec![ContentBlock::Text {
                        text: blocks(&self.files).trim_end().to_string() + "\n",
                    }],
                });
                let mut said = failure_words(f);
                if let Some(miss) = self.missed {
                    said.push_str(&miss.words(&self.paths(), true));
                    said.push('\n');
                }
                said.push_str(reply_form.trim_start());
                out.push(Message::user_text(said));
            }
            _ => {
                let mut shown = blocks(&self.files);
                if let Some(f) = &self.failed {
                    shown.push_str(&failure_words(f));
                }
                if let Some(miss) = self.missed {
                    shown.push_str(&miss.words(&self.paths(), self.failed.is_some()));
                    shown.push('\n');
                }
                shown.push_str("Request: ");
                shown.push_str(&self.task);
                shown.push_str(reply_form);
                out.push(Message::user_text(shown));
            }
        }
        out
    }

    /// The shown files' paths, for words about them.
    fn paths(&self) -> String {
        self.files
            .iter()
            .map(|(p, _)| p.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// How the reply is picked: the likeliest (none) but for a draft asked again after a
    /// failed check got a reply that wrote nothing. Told its answer gave the file back
    /// unchanged, the built-in model gave it back unchanged again, three times in a row
    /// (HumanEval's problem 120): the likeliest reply stays the likeliest. Sampled, a retry
    /// can differ.
    pub(crate) fn temperature(&self) -> Option<f32> {
        self.temperature
    }

    /// The same draft going on from the files as the task began (a repair: see
    /// [`Draft::messages`]).
    pub(crate) fn from(mut self, original: Vec<(String, String)>) -> Draft {
        self.original = Some(original);
        self
    }

    #[cfg(test)]
    fn as_calls(&self, resp: ChatResponse, step: u32) -> ChatResponse {
        self.read(resp, step).0
    }

    /// The reply as the `write_file` calls it means: one per block of a shown file whose text
    /// differs from what was shown, and why it wrote nothing when it did not (the reply is then
    /// blank). Only a file's first block counts: after the answer the built-in model went on
    /// with more blocks under the same path (the tests it imagined), each of which would have
    /// replaced it.
    pub(crate) fn read(
        &self,
        mut resp: ChatResponse,
        step: u32,
    ) -> (ChatResponse, Option<DraftMiss>) {
        let text = resp.message.text();
        let shown = |p: &str| self.files.iter().any(|(path, _)| path == p);
        let mut blocks = super::file_blocks::file_blocks(&text, &shown);
        // One file shown and one block written under no path: that file. The built-in model
        // put `# solution.py` inside the block, or no path at all.
        if blocks.is_empty()
            && let [(only, _)] = self.files.as_slice()
            && let [(false, block)] = super::file_blocks::fenced_blocks(&text).as_slice()
        {
            blocks.push((only.clone(), without_path_line(block, only)));
        }
        let mut seen = Vec::new();
        let firsts: Vec<(String, String)> = blocks
            .into_iter()
            .filter(|(path, _)| {
                let first = !seen.contains(path);
                seen.push(path.clone());
                first
            })
            .collect();
        let before = |path: &str| {
            self.files
                .iter()
                .find(|(p, _)| p == path)
                .map(|(_, b)| b.as_str())
        };
        let now = |path: &str| {
            self.now
                .iter()
                .flatten()
                .find(|(p, _)| p == path)
                .map(|(_, b)| b.as_str())
        };
        // Equal to the file as shown, or (afresh) as it is now: nothing to write.
        let same = |path: &str, content: &str| {
            before(path).is_some_and(|b| same_lines(b, content))
                || now(path).is_some_and(|n| same_lines(n, content))
        };
        let miss = if firsts.is_empty() {
            let open = text
                .lines()
                .filter(|l| l.trim_start().starts_with("```"))
                .count()
                % 2
                == 1;
            Some(
                if open && resp.stop_reason == protocol::StopReason::MaxTokens {
                    DraftMiss::Cut
                } else {
                    DraftMiss::NoBlock
                },
            )
        } else if firsts
            .iter()
            .all(|(p, c)| before(p).is_some() && same(p, c))
        {
            Some(DraftMiss::Unchanged)
        } else if firsts
            .iter()
            .all(|(p, c)| before(p).is_some_and(|b| same(p, c) || elides(b, c)))
        {
            Some(DraftMiss::Elided)
        } else {
            None
        };
        let calls: Vec<ContentBlock> = firsts
            .into_iter()
            .filter(|(path, content)| {
                before(path).is_some_and(|b| !same(path, content) && !elides(b, content))
            })
            .enumerate()
            .map(|(i, (path, content))| ContentBlock::ToolUse {
                id: format!("draft_{step}_{i}"),
                name: "write_file".into(),
                input: serde_json::json!({ "path": path, "content": content }),
            })
            .collect();
        if let Some(m) = miss {
            // The reply itself is not kept (its text is not the conversation's): the log says
            // what it was, for the benchmark's count of misses and for whoever reads why.
            tracing::info!(target: "tandem::draft", miss = m.name(), reply = %text, "a draft wrote nothing");
        }
        // The calls alone: the blocks' text is their content, and kept twice it would double
        // what the next step reads.
        resp.message.content = calls;
        resp.lenient = None;
        resp.malformed_tool_calls.clear();
        (resp, miss)
    }
}

/// The same text but for blank lines at its start or end. HumanEval's stub begins with a blank
/// line the model's block leaves out: read as a change, its stub given back as it was was
/// written (+0 −1) and the task went on as if it had been answered (problem 64).
fn same_lines(a: &str, b: &str) -> bool {
    core_lines(a) == core_lines(b)
}

/// The text from its first line that is not blank, to its end without trailing space.
fn core_lines(t: &str) -> &str {
    let t = t.trim_end();
    let start = t
        .char_indices()
        .take_while(|(_, c)| c.is_whitespace())
        .filter(|(_, c)| *c == '\n')
        .last()
        .map_or(0, |(i, _)| i + 1);
    &t[start..]
}

/// A block without a first line that only names its file as a comment (`# solution.py`).
fn without_path_line(block: &str, path: &str) -> String {
    match block.split_once('\n') {
        Some((first, rest))
            if first.trim().trim_start_matches(['#', '/', '-', ' ']).trim() == path =>
        {
            rest.to_string()
        }
        _ => block.to_string(),
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
pub(crate) fn asks_for_change(task: &str) -> bool {
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

    /// The check to run after this task's draft landed, if the task names one.
    pub(crate) fn check(&self) -> Option<&super::draft_check::DraftCheck> {
        self.basis.as_ref()?.check.as_ref()
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
        let mut basis = DraftBasis {
            task: task.to_string(),
            paths: read,
            check: super::draft_check::DraftCheck::of(task),
            ..DraftBasis::default()
        };
        self.pending = draft_of(root, &basis);
        if let Some(d) = &self.pending {
            basis.original = d.files.clone();
        }
        self.basis = Some(basis);
    }

    /// After a check the task's draft was for failed: the next step is the draft again, with
    /// what failed, while repairs remain and it `may_write` (after an answer asked afresh, the
    /// other wording while one remains). Where nothing may be written
    /// (read-only mode, write_file turned off), a draft's writes would only be refused.
    pub(crate) fn plan_repair(
        &mut self,
        command: &str,
        output: &str,
        root: &ProjectRoot,
        may_write: bool,
    ) -> Repair {
        let Some(mut basis) = self.basis.take() else {
            return Repair::NotDrafted;
        };
        let plan = if !super::checks::is_check(command) || !may_write {
            Repair::NotDrafted
        } else if basis.repairs < REPAIRS {
            basis.repairs += 1;
            let failed = FailedCheck {
                command: command.to_string(),
                lines: what_failed(output),
            };
            basis.failed = Some(failed.clone());
            // An answer asked afresh that fails is followed by the other wording, not by a
            // repair of it: in make bench-agent none of five such repairs passed (HumanEval
            // 32, 120, 128, js-slugify, sh-ext), and the second wording never ran in three.
            self.pending = match (basis.afresh > 0).then(|| Afresh::nth(basis.afresh)) {
                Some(Some(wording)) => afresh_draft(root, &mut basis, wording),
                _ => draft_of(root, &basis).map(|d| d.after(failed).from(basis.original.clone())),
            };
            if self.pending.is_some() {
                Repair::Drafted
            } else {
                Repair::NotDrafted
            }
        } else {
            Repair::Exhausted {
                repairs: basis.repairs,
            }
        };
        self.basis = Some(basis);
        plan
    }

    /// After a draft's reply that wrote nothing: the draft again, told why, while retries
    /// remain. A repair that gave the file back unchanged is asked afresh instead (see
    /// [`super::afresh_draft`]): told that it did, the model gave it back unchanged again. A
    /// first draft answered in prose, or with the file as it was, may be right (nothing to
    /// change; the tools can look further); after a failed check, or with a file
    /// cut short or elided, the reply cannot be. When the retries after a failed check wrote
    /// nothing either, the task gives up: the tool calls after them circled for ten more steps
    /// and never passed (HumanEval's problem 120, five minutes), where aider stops after its
    /// tries.
    pub(crate) fn plan_retry(&mut self, miss: DraftMiss, root: &ProjectRoot) -> Retry {
        let Some(mut basis) = self.basis.take() else {
            return Retry::WithTools;
        };
        let wrong = basis.failed.is_some() || matches!(miss, DraftMiss::Elided | DraftMiss::Cut);
        if wrong && basis.retries < RETRIES {
            basis.retries += 1;
            // Once asked afresh, a reply that wrote nothing (he-64: the right function, then
            // tests of its own inside the block until it repeated itself and was cut) is
            // followed by the other wording, not by a repair of the answer that failed.
            let afresh = (basis.failed.is_some()
                && (miss == DraftMiss::Unchanged || basis.afresh > 0))
                .then(|| Afresh::nth(basis.afresh))
                .flatten();
            self.pending = match afresh {
                Some(wording) => afresh_draft(root, &mut basis, wording),
                None => draft_of(root, &basis)
                    .map(|d| match &basis.failed {
                        Some(f) => {
                            let mut d = d.after(f.clone()).from(basis.original.clone());
                            d.temperature = Some(RETRY_TEMPERATURE);
                            d
                        }
                        None => d,
                    })
                    .map(|d| d.missed(miss)),
            };
        }
        let plan = match &basis.failed {
            _ if self.pending.is_some() => Retry::Drafted,
            Some(failed) if basis.retries >= RETRIES => Retry::GiveUp {
                command: failed.command.clone(),
                tries: basis.repairs + basis.retries,
            },
            _ => Retry::WithTools,
        };
        self.basis = Some(basis);
        plan
    }
}

/// What follows a draft's reply that wrote nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Retry {
    /// The next step is the draft again, told why.
    Drafted,
    /// The task goes on with the tools.
    WithTools,
    /// The check still fails and the last drafts after it wrote nothing: the task pauses.
    GiveUp { command: String, tries: u32 },
}

impl Retry {
    /// Why a task that gives up pauses, in the words the window shows for repairs that ran out.
    pub(crate) fn reason(command: &str, tries: u32) -> String {
        format!("`{command}` still fails after {tries} tries at rewriting the file")
    }
}

/// What a failed check means for a task's drafts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Repair {
    /// No draft of this task, or not a check: the task goes on as it was.
    NotDrafted,
    /// The next step is the draft again, with what failed.
    Drafted,
    /// The check still fails after every repair the task may have: tool calls after this
    /// circled (make bench-agent), so the task pauses, saying so.
    Exhausted { repairs: u32 },
}

/// Files as a draft shows them: each path on its line, then its text in a fenced block.
fn blocks(files: &[(String, String)]) -> String {
    let mut shown = String::new();
    for (path, text) in files {
        shown.push_str(path);
        shown.push_str("\n```\n");
        shown.push_str(text);
        if !text.ends_with('\n') {
            shown.push('\n');
        }
        shown.push_str("```\n\n");
    }
    shown
}

/// A failed check as a draft tells it.
fn failure_words(f: &FailedCheck) -> String {
    let mut said = format!("`{}` fails:\n", f.command);
    // Indented, not fenced: a fence here could be read as a file's block.
    for l in &f.lines {
        said.push_str("    ");
        said.push_str(l);
        said.push('\n');
    }
    said.push_str("\nFix the code so that it passes.\n");
    said
}

/// The draft asked afresh in `wording`: the files as the task began, with those as they are
/// now kept to tell an answer given back unchanged.
fn afresh_draft(root: &ProjectRoot, basis: &mut DraftBasis, wording: Afresh) -> Option<Draft> {
    basis.afresh += 1;
    let now = draft_of(root, basis)?;
    let mut d = Draft::new(&basis.task, basis.original.clone())?;
    d.afresh = Some(wording);
    d.now = Some(now.files);
    Some(d)
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

    /// HumanEval 64: the stub begins with a blank line; the model's block left it out and was
    /// otherwise the stub. Written as a change (+0 −1), the task went on as if answered.
    #[test]
    fn a_block_that_differs_only_in_blank_lines_at_its_ends_is_unchanged() {
        let stub = Draft::new(
            "Implement f in solution.py.",
            vec![("solution.py".into(), "\n\ndef f():\n    pass\n\n".into())],
        )
        .expect("draft");
        let (resp, miss) = stub.read(reply("solution.py\n```\ndef f():\n    pass\n```\n"), 1);
        assert_eq!(miss, Some(DraftMiss::Unchanged));
        assert!(resp.message.is_blank());
        // Indenting the first line is a change, not a blank line.
        assert!(!same_lines("\nx = 1\n", "    x = 1\n"));
        assert!(same_lines("\n\nx = 1\n", "x = 1"));
        assert!(!same_lines("x = 1\n\ny = 2\n", "x = 1\ny = 2\n"));
    }

    #[test]
    fn the_example_is_the_drafts_fixed_beginning() {
        let a = draft().messages();
        let b = Draft::new(
            "Fix sub in other.py.",
            vec![("other.py".into(), "x = 1\n".into())],
        )
        .expect("draft")
        .messages();
        assert_eq!(a[..EXAMPLE_MESSAGES], b[..EXAMPLE_MESSAGES]);
        assert_ne!(a[EXAMPLE_MESSAGES], b[EXAMPLE_MESSAGES]);
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

    /// Issue 48: a repair draft's reply "came back empty" (an empty assistant message in the
    /// log) and the task fell back to tool calls that circled. Each way a reply writes nothing
    /// is named, so the next draft can say what was wrong.
    #[test]
    fn a_reply_that_writes_nothing_says_why() {
        let miss = |text: &str, stop: protocol::StopReason| {
            let mut r = reply(text);
            r.stop_reason = stop;
            draft().read(r, 1).1
        };
        use protocol::StopReason::{EndTurn, MaxTokens};
        assert_eq!(
            miss("The bug is the minus sign.", EndTurn),
            Some(DraftMiss::NoBlock)
        );
        assert_eq!(
            miss(
                "calc.py\n```\ndef add(a, b):\n    return a - b\n```\n",
                EndTurn
            ),
            Some(DraftMiss::Unchanged)
        );
        assert_eq!(
            miss(
                "calc.py\n```\ndef add(a, b):\n    return a + b\n# ... rest of the code unchanged\n```\n",
                EndTurn
            ),
            Some(DraftMiss::Elided)
        );
        assert_eq!(
            miss("calc.py\n```\ndef add(a, b):\n    return a +", MaxTokens),
            Some(DraftMiss::Cut)
        );
        assert_eq!(
            miss(
                "calc.py\n```\ndef add(a, b):\n    return a + b\n```\n",
                EndTurn
            ),
            None
        );
    }

    /// The built-in model wrote its one block with no path above it, or with `# calc.py` as
    /// the block's first line: with one file shown, that block is the file (without the line
    /// that names it).
    #[test]
    fn one_file_shown_and_one_block_without_its_path_is_that_file() {
        for text in [
            "Here is the fix:\n```python\ndef add(a, b):\n    return a + b\n```\n",
            "```python\n# calc.py\ndef add(a, b):\n    return a + b\n```\n",
        ] {
            let (resp, miss) = draft().read(reply(text), 1);
            assert_eq!(miss, None, "{text}");
            assert_eq!(
                resp.message.content,
                [ContentBlock::ToolUse {
                    id: "draft_1_0".into(),
                    name: "write_file".into(),
                    input: serde_json::json!({
                        "path": "calc.py",
                        "content": "def add(a, b):\n    return a + b\n"
                    }),
                }],
                "{text}"
            );
        }
        // Two blocks and no path: which one is the file is not plain.
        let two =
            "```python\ndef add(a, b):\n    return a + b\n```\n```python\nprint(add(1, 2))\n```\n";
        assert_eq!(draft().read(reply(two), 1).1, Some(DraftMiss::NoBlock));
    }

    fn project_with_calc() -> (tempfile::TempDir, ProjectRoot) {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(
            dir.path().join("calc.py"),
            "def add(a, b):\n    return a - b\n",
        )
        .expect("write");
        let root = ProjectRoot::open(dir.path()).expect("open");
        (dir, root)
    }

    /// Drafts of "Fix add in calc.py." with its first draft planned.
    fn calc_drafts(root: &ProjectRoot) -> Drafts {
        let mut drafts = Drafts::default();
        drafts.plan_first(
            "Fix add in calc.py.",
            vec!["calc.py".into()],
            root,
            true,
            true,
        );
        drafts
    }

    /// After the first draft wrote `answer` into calc.py and the check failed: the repair.
    fn repair_of(dir: &std::path::Path, root: &ProjectRoot, answer: &str) -> Drafts {
        let mut drafts = calc_drafts(root);
        let _ = drafts.take();
        std::fs::write(dir.join("calc.py"), answer).expect("the model's answer");
        drafts.plan_repair(
            "python3 -m unittest",
            "AssertionError: 6 != 5\n",
            root,
            true,
        );
        drafts
    }

    /// Aider's loop: the failing output back and the file whole again, three times at most;
    /// after that the task does not fall back to tool calls (they circled), it pauses.
    #[test]
    fn a_failed_check_is_repaired_three_times_then_the_task_pauses() {
        let (_dir, root) = project_with_calc();
        let mut drafts = calc_drafts(&root);
        assert!(drafts.take().is_some(), "the first draft");
        let failing = "AssertionError: -1 != 5\n[exit code 1; 0.1 s]\n";
        for n in 1..=REPAIRS {
            assert_eq!(
                drafts.plan_repair("python3 -m unittest", failing, &root, true),
                Repair::Drafted,
                "repair {n}"
            );
            let d = drafts.take().expect("a repair draft");
            let last = d.messages().last().expect("message").text();
            assert!(last.contains("AssertionError: -1 != 5"), "{last}");
        }
        assert_eq!(
            drafts.plan_repair("python3 -m unittest", failing, &root, true),
            Repair::Exhausted { repairs: 3 }
        );
        assert!(drafts.take().is_none());
        // A command that is not a check is no reason to draft.
        assert_eq!(
            drafts.plan_repair("ls", "", &root, true),
            Repair::NotDrafted
        );
    }

    /// Issue 48: shown the files as they are (its own code) with what failed, the built-in
    /// model wrote them back unchanged, four times in one task. A repair goes on as aider's
    /// loop does: the files as the task began and the request, the model's answer (the files
    /// as they are now) as its own reply, then what failed.
    #[test]
    fn a_repair_goes_on_from_the_models_own_answer() {
        let (dir, root) = project_with_calc();
        let mut drafts = repair_of(dir.path(), &root, "def add(a, b):\n    return a * b\n");
        let m = drafts.take().expect("a repair").messages();
        assert_eq!(m.len(), 5, "{m:?}");
        let texts: Vec<String> = m.iter().map(Message::text).collect();
        assert!(
            texts[2].contains("return a - b") && texts[2].contains("Request: Fix add in calc.py."),
            "{}",
            texts[2]
        );
        assert_eq!(m[3].role, Role::Assistant);
        assert_eq!(
            texts[3],
            "calc.py\n```\ndef add(a, b):\n    return a * b\n```\n"
        );
        assert!(
            texts[4].starts_with("`python3 -m unittest` fails:\n    AssertionError: 6 != 5\n\nFix the code so that it passes.\n"),
            "{}",
            texts[4]
        );
    }

    /// A repair whose reply wrote nothing in the form asked is asked again, told why, with
    /// the failure still shown: twice at most, then the task gives up.
    #[test]
    fn a_draft_that_wrote_nothing_is_asked_again_told_why() {
        let (_dir, root) = project_with_calc();
        let mut drafts = calc_drafts(&root);
        assert_eq!(drafts.take().expect("a draft").temperature(), None);
        let failing = "AssertionError: -1 != 5\n";
        drafts.plan_repair("python3 -m unittest", failing, &root, true);
        assert_eq!(
            drafts.take().expect("a repair").temperature(),
            None,
            "a repair is the likeliest reply"
        );
        for _ in 0..RETRIES {
            assert_eq!(drafts.plan_retry(DraftMiss::NoBlock, &root), Retry::Drafted);
            let retry = drafts.take().expect("a retry");
            // The likeliest reply was not in the form asked: a retry is sampled.
            assert_eq!(retry.temperature(), Some(RETRY_TEMPERATURE));
            assert_eq!(retry.system(), DRAFT_SYSTEM);
            let last = retry.messages().last().expect("message").text();
            assert!(last.contains("had no file in the form asked"), "{last}");
            assert!(last.contains("AssertionError: -1 != 5"), "{last}");
        }
        // Then the check still fails and nothing more was written: the task gives up, not
        // the tools' circle.
        assert_eq!(
            drafts.plan_retry(DraftMiss::NoBlock, &root),
            Retry::GiveUp {
                command: "python3 -m unittest".into(),
                tries: 3
            }
        );
        assert!(drafts.take().is_none());
    }

    /// Issue 48: after a failed check, the repairs gave the file back unchanged (he-128: the
    /// first draft's one wrong token survived three repairs, two of them sampled). A repair
    /// that does is followed by the draft asked afresh — the task's first files, its request,
    /// no earlier answer — in one wording and then the other, each the likeliest reply.
    #[test]
    fn a_repair_given_back_unchanged_is_followed_by_drafts_asked_afresh() {
        let (dir, root) = project_with_calc();
        let mut drafts = repair_of(dir.path(), &root, "def add(a, b):\n    return a * b\n");
        let _ = drafts.take();
        let mut systems = Vec::new();
        for _ in 0..RETRIES {
            assert_eq!(
                drafts.plan_retry(DraftMiss::Unchanged, &root),
                Retry::Drafted
            );
            let afresh = drafts.take().expect("a draft asked afresh");
            assert_eq!(afresh.temperature(), None, "the likeliest reply");
            assert_ne!(afresh.system(), DRAFT_SYSTEM);
            systems.push(afresh.system());
            let texts: Vec<String> = afresh.messages().iter().map(Message::text).collect();
            let all = texts.join("\n");
            assert!(all.contains("return a - b"), "the first files: {all}");
            assert!(
                !all.contains("return a * b"),
                "not the answer that failed: {all}"
            );
            assert!(!all.contains("AssertionError"), "nor its failure: {all}");
            assert_eq!(
                texts.last().map(String::as_str),
                Some("Fix add in calc.py.")
            );
            // A block equal to the failing answer on disk, or to the first file, writes
            // nothing; another one is the write.
            for same in [
                "def add(a, b):\n    return a * b\n",
                "def add(a, b):\n    return a - b\n",
            ] {
                let (resp, miss) =
                    afresh.read(reply(&format!("Ok.\n\ncalc.py\n```\n{same}```\n")), 3);
                assert_eq!(miss, Some(DraftMiss::Unchanged));
                assert!(resp.message.content.is_empty());
            }
            let (resp, miss) = afresh.read(
                reply("Ok, I will:\n\n1. Add.\n\ncalc.py\n```\ndef add(a, b):\n    return a + b\n```\n"),
                3,
            );
            assert_eq!(miss, None);
            assert_eq!(resp.message.content.len(), 1);
        }
        assert_ne!(systems[0], systems[1], "two wordings");
        assert!(drafts.take().is_none());
        assert_eq!(
            drafts.plan_retry(DraftMiss::Unchanged, &root),
            Retry::GiveUp {
                command: "python3 -m unittest".into(),
                tries: 3
            }
        );
    }

    /// HumanEval 64: the first draft asked afresh wrote the right function and then tests of
    /// its own inside the block until it was cut; the retry that followed repaired the failing
    /// answer (given back unchanged). Once asked afresh, any reply that writes nothing is
    /// followed by the other wording.
    #[test]
    fn a_draft_asked_afresh_that_writes_nothing_is_followed_by_the_other_wording() {
        let (_dir, root) = project_with_calc();
        let mut drafts = calc_drafts(&root);
        let _ = drafts.take();
        drafts.plan_repair("python3 -m unittest", "AssertionError\n", &root, true);
        let _ = drafts.take();
        assert_eq!(
            drafts.plan_retry(DraftMiss::Unchanged, &root),
            Retry::Drafted
        );
        let first = drafts.take().expect("afresh").system();
        assert_eq!(drafts.plan_retry(DraftMiss::Cut, &root), Retry::Drafted);
        let second = drafts.take().expect("afresh again");
        assert_ne!(second.system(), first);
        assert_ne!(second.system(), DRAFT_SYSTEM);
        assert_eq!(second.temperature(), None);
    }

    /// HumanEval 32: the answer asked afresh wrote and failed the check; the repair of it that
    /// followed used the last repair, so the other wording never ran. A failed answer asked
    /// afresh is followed by the other wording (a repair, by count), then by repairs.
    #[test]
    fn an_answer_asked_afresh_that_fails_the_check_is_followed_by_the_other_wording() {
        let (dir, root) = project_with_calc();
        let mut drafts = repair_of(dir.path(), &root, "def add(a, b):\n    return a * b\n");
        let _ = drafts.take();
        assert_eq!(
            drafts.plan_retry(DraftMiss::Unchanged, &root),
            Retry::Drafted
        );
        let first = drafts.take().expect("afresh").system();
        let fails = |d: &mut Drafts| {
            d.plan_repair(
                "python3 -m unittest",
                "AssertionError: 2 != 3\n",
                &root,
                true,
            )
        };
        std::fs::write(dir.path().join("calc.py"), "def add(a, b):\n    return b\n")
            .expect("the afresh answer");
        assert_eq!(fails(&mut drafts), Repair::Drafted);
        let second = drafts.take().expect("the other wording");
        assert_ne!(second.system(), first);
        assert_ne!(second.system(), DRAFT_SYSTEM);
        assert_eq!(second.temperature(), None);
        let all: Vec<String> = second.messages().iter().map(Message::text).collect();
        let all = all.join("\n");
        assert!(
            all.contains("return a - b") && !all.contains("return b\n"),
            "{all}"
        );
        assert!(!all.contains("AssertionError"), "{all}");
        // Both wordings tried: the next failure is repaired, until the repairs run out.
        assert_eq!(fails(&mut drafts), Repair::Drafted);
        let repair = drafts.take().expect("a repair");
        assert_eq!(repair.system(), DRAFT_SYSTEM);
        let last = repair.messages().last().expect("message").text();
        assert!(last.contains("AssertionError: 2 != 3"), "{last}");
        assert_eq!(fails(&mut drafts), Repair::Exhausted { repairs: REPAIRS });
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
