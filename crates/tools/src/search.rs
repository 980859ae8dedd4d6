//! `search_codebase`: ripgrep's search, through ripgrep's own crates — .gitignore-aware walk
//! (in parallel), smart case, binary files skipped, `path:line: text` results.

use crate::error::{ToolError, ToolResult};
use crate::paths::{ProjectRoot, to_slash};
use grep_regex::RegexMatcherBuilder;
use grep_searcher::{
    BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch,
};
use ignore::overrides::OverrideBuilder;
use ignore::{WalkBuilder, WalkState};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

pub const DEFAULT_MAX_RESULTS: u32 = 50;
/// A search that has not finished by then returns what it has, with a note.
pub const SEARCH_TIME_LIMIT: Duration = Duration::from_secs(10);
/// Lines collected before sorting; past this the search stops early and says so.
const COLLECT_CAP: usize = 20_000;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CaseMode {
    /// Case-insensitive unless the pattern has an upper-case letter (ripgrep's `-S`).
    #[default]
    Smart,
    Sensitive,
    Insensitive,
}

/// One glob or several.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Include {
    One(String),
    Many(Vec<String>),
}

impl Include {
    fn globs(&self) -> Vec<&str> {
        match self {
            Include::One(g) => vec![g.as_str()],
            Include::Many(v) => v.iter().map(String::as_str).collect(),
        }
    }
}

impl From<&str> for Include {
    fn from(g: &str) -> Self {
        Include::One(g.to_string())
    }
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// Regular expression (Rust syntax), or a plain string with `fixed_strings`.
    pub pattern: String,
    /// Folder or file to search, relative to the project root. Default: the whole project.
    #[serde(default)]
    pub path: Option<String>,
    /// Several folders and files to search together, instead of `path`, e.g.
    /// `["src", "tests/data.rs"]`, as `rg PATTERN src tests/data.rs` does: a file named here is
    /// searched even when .gitignore hides it. Results are merged in one order.
    #[serde(default)]
    pub paths: Option<Vec<String>>,
    /// Only files matching this glob (or any of these globs), e.g. `*.rs` or `["src/**/*.ts", "*.md"]`.
    #[serde(default)]
    pub include: Option<Include>,
    /// Treat the pattern as a literal string.
    #[serde(default)]
    pub fixed_strings: bool,
    #[serde(default)]
    pub case: CaseMode,
    /// Lines of context before and after each match (0-10).
    #[serde(default)]
    pub context: Option<u8>,
    /// Maximum matching lines returned. Default 50.
    #[serde(default)]
    pub max_results: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SearchLine {
    pub path: String,
    pub line: u64,
    pub text: String,
    /// False for a context line.
    pub is_match: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SearchResult {
    /// Matching lines (and their context), sorted by path and line.
    pub lines: Vec<SearchLine>,
    /// Matching lines found in all (may exceed what is returned).
    pub total_matches: usize,
    pub truncated: bool,
    /// The search stopped at the time limit or the collection cap: results are partial.
    pub partial: Option<String>,
}

struct Collector<'a> {
    path: String,
    out: Vec<SearchLine>,
    found: &'a AtomicUsize,
    stop: &'a AtomicBool,
    timed_out: &'a AtomicBool,
    deadline: Instant,
}

impl Collector<'_> {
    /// Whether to go on in this file. The limits hold inside one file too: a huge log with
    /// millions of hits stops at the cap or the deadline, not at its end.
    fn go_on(&self) -> bool {
        if self.found.load(Ordering::Relaxed) > COLLECT_CAP {
            self.stop.store(true, Ordering::Relaxed);
        }
        if Instant::now() > self.deadline {
            self.timed_out.store(true, Ordering::Relaxed);
            self.stop.store(true, Ordering::Relaxed);
        }
        !self.stop.load(Ordering::Relaxed)
    }
}

fn line_text(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    s.trim_end_matches(['\n', '\r']).to_string()
}

impl Sink for Collector<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        let first = mat.line_number().unwrap_or(0);
        for (i, line) in mat.lines().enumerate() {
            self.out.push(SearchLine {
                path: self.path.clone(),
                line: first + i as u64,
                text: line_text(line),
                is_match: true,
            });
            self.found.fetch_add(1, Ordering::Relaxed);
        }
        Ok(self.go_on())
    }

    fn context(&mut self, _: &Searcher, ctx: &SinkContext<'_>) -> Result<bool, Self::Error> {
        if matches!(ctx.kind(), SinkContextKind::Before | SinkContextKind::After) {
            self.out.push(SearchLine {
                path: self.path.clone(),
                line: ctx.line_number().unwrap_or(0),
                text: line_text(ctx.bytes()),
                is_match: false,
            });
        }
        Ok(self.go_on())
    }
}

pub fn search_codebase(root: &ProjectRoot, args: &SearchArgs) -> ToolResult<SearchResult> {
    search_with_limit(root, args, SEARCH_TIME_LIMIT)
}

pub fn search_with_limit(
    root: &ProjectRoot,
    args: &SearchArgs,
    limit: Duration,
) -> ToolResult<SearchResult> {
    if args.pattern.is_empty() {
        return Err(ToolError::InvalidArgument(
            "pattern is empty; give text or a regular expression to find".into(),
        ));
    }
    let context = args.context.unwrap_or(0);
    if context > 10 {
        return Err(ToolError::InvalidArgument(format!(
            "context is {context}; use 0 to 10 lines"
        )));
    }
    let max = args.max_results.unwrap_or(DEFAULT_MAX_RESULTS);
    if max == 0 {
        return Err(ToolError::InvalidArgument(
            "max_results must be at least 1".into(),
        ));
    }
    let mut mb = RegexMatcherBuilder::new();
    mb.line_terminator(Some(b'\n'))
        .fixed_strings(args.fixed_strings);
    match args.case {
        CaseMode::Smart => mb.case_smart(true),
        CaseMode::Sensitive => mb.case_insensitive(false),
        CaseMode::Insensitive => mb.case_insensitive(true),
    };
    let matcher = mb
        .build(&args.pattern)
        .map_err(|e| ToolError::InvalidArgument(bad_pattern(&args.pattern, &e.to_string())))?;
    let starts = start_paths(root, args)?;
    let Some((first, rest)) = starts.split_first() else {
        return Err(ToolError::InvalidArgument("nothing to search".into()));
    };
    let mut walker = WalkBuilder::new(first);
    for start in rest {
        walker.add(start);
    }
    walker.require_git(false).hidden(true).follow_links(false);
    if let Some(include) = &args.include {
        // Globs count from the project root, as rg's `-g` counts from where it runs, whatever
        // `path` or `paths` narrow the search to.
        let mut ob = OverrideBuilder::new(root.path());
        for glob in include.globs() {
            ob.add(glob).map_err(|e| {
                ToolError::InvalidArgument(format!(
                    "include `{glob}` is not a valid glob ({e}); try `*.rs` or `src/**/*.ts`"
                ))
            })?;
        }
        walker.overrides(
            ob.build()
                .map_err(|e| ToolError::InvalidArgument(format!("include: {e}")))?,
        );
    }

    let found = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let timed_out = AtomicBool::new(false);
    let lines: Mutex<Vec<SearchLine>> = Mutex::new(Vec::new());
    let deadline = Instant::now() + limit;
    let root_path: PathBuf = root.path().to_path_buf();
    let (found_ref, stop_ref, timed_ref, lines_ref, matcher_ref, root_ref) =
        (&found, &stop, &timed_out, &lines, &matcher, root);
    walker.build_parallel().run(|| {
        let mut searcher = SearcherBuilder::new()
            .line_number(true)
            .binary_detection(BinaryDetection::quit(b'\x00'))
            .before_context(usize::from(context))
            .after_context(usize::from(context))
            .build();
        let root_path = root_path.clone();
        Box::new(move |entry| {
            if stop_ref.load(Ordering::Relaxed) {
                return WalkState::Quit;
            }
            if Instant::now() > deadline {
                timed_ref.store(true, Ordering::Relaxed);
                stop_ref.store(true, Ordering::Relaxed);
                return WalkState::Quit;
            }
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            let path = entry.path();
            // An include glob may name a hidden or ignored file, never a secret one.
            if root_ref.is_secret(path) {
                return WalkState::Continue;
            }
            let shown = relative(&root_path, path);
            let mut sink = Collector {
                path: shown,
                out: Vec::new(),
                found: found_ref,
                stop: stop_ref,
                timed_out: timed_ref,
                deadline,
            };
            // Unreadable files are skipped, as ripgrep does (it warns on stderr).
            let _ = searcher.search_path(matcher_ref, path, &mut sink);
            if !sink.out.is_empty() {
                let mut all = lines_ref.lock().unwrap_or_else(PoisonError::into_inner);
                all.extend(sink.out);
                if all.len() > COLLECT_CAP {
                    stop_ref.store(true, Ordering::Relaxed);
                }
            }
            WalkState::Continue
        })
    });

    let mut all = lines.into_inner().unwrap_or_else(PoisonError::into_inner);
    all.sort_by(|a, b| {
        a.path
            .cmp(&b.path)
            .then(a.line.cmp(&b.line))
            .then(b.is_match.cmp(&a.is_match))
    });
    all.dedup_by(|b, a| a.path == b.path && a.line == b.line);
    let total_matches = all.iter().filter(|l| l.is_match).count();
    // Keep the first `max` matches and the context lines around them.
    let mut kept = Vec::new();
    let mut matches = 0u32;
    let mut truncated = false;
    for l in all {
        if l.is_match {
            if matches == max {
                truncated = true;
                break;
            }
            matches += 1;
        }
        kept.push(l);
    }
    while kept.last().is_some_and(|l| !l.is_match) && truncated {
        kept.pop();
    }
    let partial = if timed_out.load(Ordering::Relaxed) {
        Some(format!(
            "the search stopped after {} s; results are partial. Narrow it with `paths` or `include`.",
            limit.as_secs()
        ))
    } else if stop.load(Ordering::Relaxed) {
        Some(format!(
            "over {COLLECT_CAP} matching lines; results are partial. Use a more specific pattern."
        ))
    } else {
        None
    };
    Ok(SearchResult {
        lines: kept,
        total_matches,
        truncated,
        partial,
    })
}

/// Where the search starts: `paths`, `path` or the whole project, each resolved inside the
/// project and checked to exist, so a wrong one is named rather than found empty.
fn start_paths(root: &ProjectRoot, args: &SearchArgs) -> ToolResult<Vec<PathBuf>> {
    let asked: Vec<&str> = match (&args.path, &args.paths) {
        (Some(_), Some(_)) => {
            return Err(ToolError::InvalidArgument(
                "give `path` or `paths`, not both; put every folder and file to search in `paths`"
                    .into(),
            ));
        }
        (Some(path), None) => vec![path.as_str()],
        (None, Some(paths)) if !paths.is_empty() => paths.iter().map(String::as_str).collect(),
        _ => vec![""],
    };
    asked
        .into_iter()
        .map(|p| {
            let start = root.resolve(p)?;
            std::fs::metadata(&start.real).map_err(|e| root.io_error(&start, e))?;
            Ok(start.real)
        })
        .collect()
}

/// Why a pattern does not compile, about the pattern the model wrote (the matcher's own error
/// quotes the form it compiled, wrapped in groups of its own).
fn bad_pattern(pattern: &str, compiled_error: &str) -> String {
    let why = match regex_syntax::ast::parse::Parser::new().parse(pattern) {
        Err(e) => {
            let at = pattern[..e.span().start.offset.min(pattern.len())]
                .chars()
                .count()
                + 1;
            format!("{} at character {at}", e.kind())
        }
        // The syntax is fine; a limit or a Unicode class failed: the matcher's last line says.
        Ok(_) => compiled_error
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or(compiled_error)
            .trim()
            .trim_start_matches("error: ")
            .to_string(),
    };
    format!(
        "pattern `{pattern}` is not a valid regular expression: {why}; escape special characters (\\( \\[ \\.) or set fixed_strings: true"
    )
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .map(to_slash)
        .unwrap_or_else(|_| path.display().to_string())
}

/// `path:line: text` for matches, `path-line- text` for context, `--` between groups.
pub fn render_search(result: &SearchResult) -> String {
    let mut out = String::new();
    if result.lines.is_empty() {
        out.push_str("No matches.\n");
    }
    let mut prev: Option<(&str, u64)> = None;
    for l in &result.lines {
        if let Some((p, n)) = prev
            && (p != l.path || l.line > n + 1)
            && result.lines.iter().any(|x| !x.is_match)
        {
            out.push_str("--\n");
        }
        let sep = if l.is_match { ':' } else { '-' };
        let _ = writeln!(out, "{}{sep}{}{sep} {}", l.path, l.line, l.text);
        prev = Some((&l.path, l.line));
    }
    let shown = result.lines.iter().filter(|l| l.is_match).count();
    if result.truncated {
        let _ = writeln!(
            out,
            "(showing {shown} of {} matching lines; raise max_results or narrow the search)",
            result.total_matches
        );
    }
    if let Some(p) = &result.partial {
        let _ = writeln!(out, "({p})");
    }
    out
}
