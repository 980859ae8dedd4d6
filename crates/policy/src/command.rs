//! Judging a shell command: the [`Judge`] walks every simple command inside a command line,
//! looks through whatever runs another command (`env`, `timeout`, `bash -c`, `find -exec`,
//! `uv run`, …), follows `cd`s, and asks the tables in the modules beside it what each program
//! does: only read ([`crate::readonly`]), run code ([`crate::interpreters`],
//! [`crate::programs`]), write files ([`crate::writers`]), reach the network
//! ([`crate::network`]). What the files it touches mean is in [`crate::files`].

use crate::call::Context;
use crate::decision::{Finding, Verdict};
use crate::env_vars::{self, Risk};
use crate::expand::{self, Braces};
use crate::interpreters::{self, Source};
use crate::mode::Mode;
use crate::pattern::Args;
use crate::rules::Policy;
use crate::shell::{
    self, Assignment, CdTarget, Location, RedirectKind, SimpleCommand, Stdin, Word,
};
use crate::{git, private_tmp, programs, readonly, segments, suggest, wrappers, writers};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use unicode_normalization::UnicodeNormalization;

/// Beyond this a command cannot be reviewed by a person either.
pub const MAX_COMMAND_BYTES: usize = 64 * 1024;
/// Commands nested deeper than this (`bash -c "bash -c '…'"`, wrappers in wrappers) are not
/// followed: they ask.
const MAX_DEPTH: usize = 12;
/// Commands judged for one call, beyond which the rest asks: a line that multiplies its own
/// commands (`find` in `find` with many roots) must not take seconds.
const MAX_WORK: usize = 400;
/// Longer or more deeply nested lines are cut into pieces before parsing (see
/// [`crate::segments`]): the parser takes too long on them.
const CUT_ABOVE_BYTES: usize = 4096;
const CUT_ABOVE_NESTING: usize = 48;
/// Where the `cd`s before a command leave more possibilities than this, it runs somewhere
/// unknown.
const MAX_PLACES: usize = 4;

pub const NOT_SANDBOXED: &str =
    "commands are not sandboxed on this machine, so Full auto asks before running them";

pub fn judge_command(policy: &Policy, ctx: &Context, mode: Mode, command: &str) -> Vec<Finding> {
    if command.trim().is_empty() {
        return vec![Finding::floor(
            Verdict::Deny,
            "the command is empty: there is nothing to run",
            "empty command",
        )];
    }
    if command.contains('\0') {
        return vec![Finding::floor(
            Verdict::Deny,
            "the command contains a NUL byte, which no shell can run as written",
            "binary data",
        )];
    }
    if command.len() > MAX_COMMAND_BYTES {
        return vec![Finding::floor(
            Verdict::Deny,
            format!(
                "the command is {} KB long, too long for anyone to review; write it to a script file first",
                command.len() / 1024
            ),
            "command too long",
        )];
    }
    let mut judge = Judge::new(policy, ctx, mode);
    if command
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t' && c != '\r')
    {
        judge.ask(
            "the command contains control characters that may hide what it really does",
            "control characters",
        );
    }
    let at = At::start(ctx);
    judge.source(command, &at);
    judge.finish()
}

/// Where and how one command runs.
#[derive(Debug, Clone)]
pub struct At {
    /// The folder it runs in; `None` when only the shell knows (`cd "$X"`).
    pub cwd: Option<PathBuf>,
    /// How many commands wrap it.
    pub depth: usize,
    pub stdin: Stdin,
    /// Its own redirections write a file.
    pub writes: bool,
    /// Something around it (a variable set for it) keeps it from counting as only reading.
    pub tainted: bool,
    /// The words a person wrote before it when it is a Python module run (`python3 -m`): it is
    /// judged as the module, and a rule offered for it names it as the person ran it.
    pub run_as: Option<Vec<String>>,
}

impl At {
    fn start(ctx: &Context) -> At {
        At {
            cwd: Some(ctx.project_root.to_path_buf()),
            depth: 0,
            stdin: Stdin::Inherited,
            writes: false,
            tainted: false,
            run_as: None,
        }
    }

    /// One level deeper, for a command another one runs.
    pub fn deeper(&self) -> At {
        At {
            depth: self.depth + 1,
            run_as: None,
            ..self.clone()
        }
    }

    /// The same command, run in another folder.
    pub fn in_dir(&self, cwd: Option<PathBuf>) -> At {
        At {
            cwd,
            ..self.clone()
        }
    }
}

/// What the modules learned about one program's invocation.
#[derive(Debug, Default)]
pub struct Facts {
    /// `Some(true)` when a module knows it only reads, `Some(false)` when it knows it does not;
    /// `None` leaves it to the read-only table.
    pub read_only: Option<bool>,
    /// It reaches the network.
    pub network: bool,
    /// The words the rule lists are matched against, when not the command's own (git's
    /// abbreviated options spelled out).
    pub rule_words: Option<Vec<String>>,
    /// Suggestions would not be exactly as wide as the call (it writes outside, it runs code).
    pub no_suggestions: bool,
    /// What it writes or deletes is all in the private temporary folder (and it does).
    pub private_tmp_only: bool,
}

/// A module of the project's own that `python -m` would run instead of the one meant.
enum Shadow {
    /// This file or folder, where it runs.
    Found(String),
    /// Maybe one by this name: where it runs cannot be looked at.
    Unknown(String),
}

/// Whether the dispatcher is done with a command or the generic checks (files, rules) follow.
#[derive(Debug, PartialEq, Eq)]
pub enum Flow {
    Done,
    Continue,
}

/// Judges one command line: walks its commands and gathers every rule's finding.
pub struct Judge<'a> {
    pub policy: &'a Policy,
    pub ctx: &'a Context<'a>,
    pub mode: Mode,
    out: Vec<Finding>,
    budget: Budget,
    seen: HashSet<(Option<PathBuf>, SimpleCommand)>,
    /// Variables the line sets to a known value (`F=.env; cat $F`); `None` once unknown.
    vars: HashMap<String, Option<String>>,
    pub writes: Writes,
    tmp: PrivateTmp,
}

/// How much following a line may take: a line that runs more commands than this is asked about
/// rather than followed to the end.
#[derive(Default)]
struct Budget {
    spent: usize,
    exhausted: bool,
}

/// What the line writes, as far as it is known by name.
#[derive(Default)]
pub struct Writes {
    /// Symbolic links the line makes (`ln -s ~/.aws k`): the link's path and its target.
    pub links: Vec<(PathBuf, Word)>,
    /// Paths the line writes.
    pub paths: Vec<PathBuf>,
    /// Writes judged so far in the private temporary folder, and elsewhere.
    pub in_tmp: usize,
    pub elsewhere: usize,
}

/// What the line does to the sandbox's private temporary folder (see [`crate::private_tmp`]).
#[derive(Default)]
struct PrivateTmp {
    /// Variables the source being judged sets to a `mktemp` file only; only in the sandbox.
    vars: HashSet<String>,
    /// The line sets `TMPDIR` itself: `$TMPDIR` is no longer the private folder.
    moved: bool,
}

impl<'a> Judge<'a> {
    pub fn new(policy: &'a Policy, ctx: &'a Context<'a>, mode: Mode) -> Self {
        Judge {
            policy,
            ctx,
            mode,
            out: Vec::new(),
            budget: Budget::default(),
            seen: HashSet::new(),
            vars: HashMap::new(),
            writes: Writes::default(),
            tmp: PrivateTmp::default(),
        }
    }

    pub fn push(&mut self, f: Finding) {
        self.out.push(f);
    }

    pub fn ask(&mut self, reason: impl Into<String>, rule: &str) {
        self.out.push(Finding::floor(Verdict::Ask, reason, rule));
    }

    pub fn deny(&mut self, reason: impl Into<String>, rule: &str) {
        self.out.push(Finding::floor(Verdict::Deny, reason, rule));
    }

    /// How many findings there are so far, for [`Judge::keep_refusals_from`].
    pub fn mark(&self) -> usize {
        self.out.len()
    }

    /// Of the findings since `mark`, keeps only the refusals: for what a computed word would
    /// probably be, which asks anyway.
    pub fn keep_refusals_from(&mut self, mark: usize) {
        let mut i = mark;
        while i < self.out.len() {
            if self.out[i].verdict == Verdict::Deny {
                i += 1;
            } else {
                self.out.remove(i);
            }
        }
    }

    /// Of the findings since `mark`, keeps only the questions and refusals, without their
    /// suggestions: for a guess at what an unknown program runs.
    pub fn keep_questions_from(&mut self, mark: usize) {
        let mut i = mark;
        while i < self.out.len() {
            if self.out[i].verdict == Verdict::Allow {
                self.out.remove(i);
            } else {
                self.out[i].suggestions.clear();
                i += 1;
            }
        }
    }

    pub fn sandboxed(&self) -> bool {
        self.ctx.sandboxed
    }

    /// Whether `$TMPDIR` is the private temporary folder the sandbox gives the command.
    pub fn private_tmpdir(&self) -> bool {
        self.sandboxed() && !self.tmp.moved && !self.vars.contains_key("TMPDIR")
    }

    /// The findings, with read_only's rule applied: there, whatever would ask is refused,
    /// except reading a file outside the project, which you may still allow.
    fn finish(mut self) -> Vec<Finding> {
        if self.mode == Mode::ReadOnly {
            for f in &mut self.out {
                if f.verdict == Verdict::Ask
                    && !matches!(
                        f.rule.name.as_str(),
                        "floor: outside the project" | "floor: unresolvable path"
                    )
                    && !f.rule.name.starts_with("allow_read")
                {
                    f.verdict = Verdict::Deny;
                    f.reason = format!("{}; in Read only mode it does not run", f.reason);
                    f.suggestions.clear();
                }
            }
        }
        self.out
    }

    /// Counts one more command judged; false once the budget is spent.
    fn spend(&mut self) -> bool {
        self.budget.spent += 1;
        if self.budget.spent > MAX_WORK {
            if !self.budget.exhausted {
                self.budget.exhausted = true;
                self.ask(
                    "the command runs more commands than Tandem can follow in the time it has",
                    "complexity",
                );
            }
            return false;
        }
        true
    }

    /// Judges shell source: every reading of it (as bash sees it, with its braces spelled out,
    /// with `((` as two subshells the way `sh` reads it), or its pieces when it is too big to
    /// parse whole.
    pub fn source(&mut self, src: &str, at: &At) {
        if at.depth > MAX_DEPTH {
            self.ask("the command nests commands too deeply to follow", "nesting");
            return;
        }
        if !self.spend() {
            return;
        }
        if src.len() > CUT_ABOVE_BYTES || segments::nesting(src) > CUT_ABOVE_NESTING {
            if let Some(cut) = segments::cut(src) {
                let mut inner = at.deeper();
                if cut.changes_folder {
                    inner.cwd = None;
                }
                for piece in &cut.pieces {
                    self.source(piece, &inner);
                }
                return;
            }
            if segments::nesting(src) > CUT_ABOVE_NESTING * 4 {
                self.ask(
                    "the command is nested too deeply for Tandem to follow",
                    "nesting",
                );
                return;
            }
        }
        match expand::braces(src) {
            Some(Braces::Expanded(e)) => self.parsed(&e, &at.deeper(), false),
            Some(Braces::TooLarge) => self.ask(
                "the command's brace expansion makes more words than anyone can review",
                "brace expansion",
            ),
            None => {}
        }
        // `((…))` is arithmetic to bash but two nested subshells to `sh` (dash).
        if src.contains("((") {
            // Every `((` apart: `$(((` becomes `$( ( (`, not `$( ((`.
            let mut as_subshells = src.to_string();
            while as_subshells.contains("((") || as_subshells.contains("))") {
                as_subshells = as_subshells.replace("((", "( (").replace("))", ") )");
            }
            self.parsed(&as_subshells, &at.deeper(), false);
        }
        self.parsed(src, at, true);
    }

    /// One reading of shell source. Parse errors count only for the reading as written.
    fn parsed(&mut self, src: &str, at: &At, as_written: bool) {
        let parsed = shell::parse(src);
        // Its `mktemp` variables are its own: a shell it starts does not have them.
        let outer = self.sandboxed().then(|| {
            self.tmp.moved |= !private_tmp::tmpdir_kept(src);
            std::mem::replace(&mut self.tmp.vars, private_tmp::mktemp_vars(src, &parsed))
        });
        self.walk_parsed(&parsed, at, as_written);
        if let Some(outer) = outer {
            self.tmp.vars = outer;
        }
    }

    fn walk_parsed(&mut self, parsed: &shell::Parsed, at: &At, as_written: bool) {
        if parsed.has_error && as_written {
            self.ask(
                "the command could not be fully parsed, so Tandem cannot tell everything it would do",
                "unparsable command",
            );
        }
        if parsed.recursive_function {
            self.deny(
                "the command defines functions that call themselves, the pattern of a fork bomb that freezes the machine",
                "fork bomb",
            );
        }
        if parsed.process_substitution {
            self.ask(
                "the command uses process substitution “<(…)”, whose output may be run as code",
                "process substitution",
            );
        }
        if parsed.prompt_expansion {
            self.ask(
                "“${…@P}” expands a variable like a prompt, which runs the commands inside it",
                "prompt expansion",
            );
        }
        for a in &parsed.assignments {
            self.assignment(a, true);
        }
        let moves = parsed.commands.iter().any(|c| {
            c.words
                .first()
                .and_then(Word::literal)
                .is_some_and(|n| matches!(shell::basename(n), "cd" | "pushd" | "popd"))
        });
        if parsed.commands.is_empty() && !parsed.has_error {
            // Only assignments, comments or control words: nothing runs.
            self.push(Finding::floor(
                Verdict::Allow,
                "the command runs nothing",
                "no command",
            ));
        }
        for cmd in &parsed.commands {
            self.simple(cmd, at);
        }
        // Redirections of a whole list or loop, after its commands (and the links they make).
        let loose = if moves { at.in_dir(None) } else { at.clone() };
        for r in &parsed.redirects {
            self.redirect(r.kind, &r.target, &loose);
        }
    }

    /// A variable set on its own or exported: one that makes programs run code asks.
    /// True when it keeps what follows from counting as only reading.
    fn assignment(&mut self, a: &Assignment, remember: bool) -> bool {
        if remember {
            let value = match &a.value {
                Word::Literal(v) => Some(v.clone()),
                _ => None,
            };
            self.vars.insert(a.name.clone(), value);
        }
        match env_vars::risk(&a.name, &a.value) {
            Risk::Code(why) => {
                self.ask(
                    format!("setting “{}” {why}", a.name),
                    "environment that runs code",
                );
                true
            }
            Risk::Benign => false,
            Risk::Unknown => true,
        }
    }

    /// `ln -s TARGET NAME`: later paths through `NAME` lead to `TARGET`.
    fn note_link(&mut self, cmd: &SimpleCommand, at: &At) {
        let words: Vec<&Word> = cmd.words.iter().collect();
        if words.first().and_then(|w| w.literal()).map(shell::basename) != Some("ln") {
            return;
        }
        let symbolic = words[1..].iter().filter_map(|w| w.literal()).any(|a| {
            (a.starts_with('-') && !a.starts_with("--") && a.contains('s')) || a == "--symbolic"
        });
        let operands: Vec<&Word> = words[1..]
            .iter()
            .filter(|w| w.literal().is_none_or(|a| !a.starts_with('-')))
            .copied()
            .collect();
        if !symbolic || operands.len() != 2 {
            return;
        }
        if let Some(name) = operands[1].literal()
            && let Some(cwd) = &at.cwd
        {
            let link = crate::call::normalize(&cwd.join(name));
            self.writes.links.push((link, operands[0].clone()));
        }
    }

    /// One simple command, once for each folder the `cd`s before it may leave it in.
    fn simple(&mut self, cmd: &SimpleCommand, at: &At) {
        for cwd in self.places(&cmd.location, at) {
            if !self.seen.insert((cwd.clone(), cmd.clone())) {
                continue;
            }
            let mut here = At {
                cwd,
                depth: at.depth,
                stdin: cmd.stdin.clone(),
                writes: false,
                tainted: at.tainted,
                run_as: None,
            };
            for r in &cmd.redirects {
                self.redirect(r.kind, &r.target, &here);
            }
            here.writes = cmd.redirects.iter().any(|r| {
                r.kind == RedirectKind::Write
                    && !r.target.literal().is_some_and(is_sink)
                    && !self.in_private_tmp(&r.target, &here)
            });
            let declares = cmd.words.first().and_then(Word::literal).is_some_and(|n| {
                matches!(n, "export" | "declare" | "typeset" | "local" | "readonly")
            });
            for a in &cmd.assignments {
                if self.assignment(a, declares) {
                    here.tainted = true;
                }
            }
            if declares && !cmd.assignments.is_empty() {
                // `export X=1`: sets variables, judged above.
                self.push(Finding::floor(
                    Verdict::Allow,
                    "setting shell variables changes nothing on disk",
                    "read-only command",
                ));
                continue;
            }
            self.words(&cmd.words, &here);
            // Paths in the commands after it lead through the link it makes.
            self.note_link(cmd, &here);
        }
    }

    /// The folders a command may run in after the `cd`s before it.
    fn places(&self, location: &Location, at: &At) -> Vec<Option<PathBuf>> {
        let cds = match location {
            Location::Unknown => return vec![None],
            Location::Known(cds) => cds,
        };
        let mut places: Vec<Option<PathBuf>> = vec![at.cwd.clone()];
        for cd in cds {
            let moved: Vec<Option<PathBuf>> = places
                .iter()
                .map(|p| self.cd_target(p.as_ref(), &cd.to, at))
                .collect();
            // A `mktemp` that failed left its variable empty, and `cd ""` stays where it is.
            let may_stay = moved.iter().flatten().any(|p| private_tmp::from_var(p));
            if cd.certain && !may_stay {
                places = moved;
            } else {
                places.extend(moved);
            }
            places.dedup();
            let mut unique: Vec<Option<PathBuf>> = Vec::new();
            for p in places {
                if !unique.contains(&p) {
                    unique.push(p);
                }
            }
            places = unique;
            if places.len() > MAX_PLACES {
                return vec![None];
            }
        }
        places
    }

    /// Where `cd TARGET` from `from` leads (the shell's logical `cd`: `..` drops a name).
    fn cd_target(&self, from: Option<&PathBuf>, to: &CdTarget, at: &At) -> Option<PathBuf> {
        match to {
            CdTarget::Home => self.ctx.home.map(|h| h.to_path_buf()),
            CdTarget::Path(w) => {
                let text = match w {
                    Word::Literal(s) => s.clone(),
                    Word::Glob(_) => return None,
                    Word::Dynamic(raw) => self.guess(raw, at)?,
                };
                let p = if text == "~" || text.starts_with("~/") {
                    self.ctx
                        .home?
                        .join(text.trim_start_matches('~').trim_start_matches('/'))
                } else if text.starts_with('~') {
                    return None;
                } else if text.starts_with('/') {
                    PathBuf::from(&text)
                } else {
                    from?.join(&text)
                };
                Some(crate::call::normalize(&p))
            }
        }
    }

    /// The value of a computed word when the line itself says what it is: `$HOME`, `$PWD`, a
    /// variable set earlier to a literal. `None` when only running it would tell.
    pub fn guess(&self, raw: &str, at: &At) -> Option<String> {
        let body = raw
            .strip_prefix('"')
            .and_then(|r| r.strip_suffix('"'))
            .unwrap_or(raw);
        let mut out = String::new();
        let chars: Vec<char> = body.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if matches!(c, '`' | '\'' | '"' | '*' | '?' | '[' | '\\') {
                return None;
            }
            if c != '$' {
                out.push(c);
                i += 1;
                continue;
            }
            let (name, next) = if chars.get(i + 1) == Some(&'{') {
                let end = chars[i + 2..].iter().position(|c| *c == '}')? + i + 2;
                (chars[i + 2..end].iter().collect::<String>(), end + 1)
            } else {
                let len = chars[i + 1..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric() || **c == '_')
                    .count();
                (
                    chars[i + 1..i + 1 + len].iter().collect::<String>(),
                    i + 1 + len,
                )
            };
            // `${TMPDIR:-/tmp}`: the default never applies, the runner sets it.
            let tmpdir_default = name
                .strip_prefix("TMPDIR")
                .is_some_and(|rest| rest.starts_with(":-") || rest.starts_with('-'));
            if tmpdir_default && self.private_tmpdir() {
                out.push_str(private_tmp::ROOT);
                i = next;
                continue;
            }
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return None;
            }
            let value = match name.as_str() {
                "TMPDIR" if self.private_tmpdir() => private_tmp::ROOT.to_string(),
                n if self.tmp.vars.contains(n) => private_tmp::var_path(n),
                "HOME" if !self.vars.contains_key("HOME") => {
                    self.ctx.home?.to_string_lossy().into_owned()
                }
                "PWD" if !self.vars.contains_key("PWD") => {
                    at.cwd.as_ref()?.to_string_lossy().into_owned()
                }
                other => self.vars.get(other)?.clone()?,
            };
            out.push_str(&value);
            i = next;
        }
        Some(out)
    }

    /// A redirection of the command's input or output.
    fn redirect(&mut self, kind: RedirectKind, target: &Word, at: &At) {
        match kind {
            RedirectKind::Duplicate => {}
            RedirectKind::Read => self.read(target, at),
            RedirectKind::Write => self.write(target, at, "the command"),
        }
    }

    /// Judges a command given as words (the program first), looking through wrappers.
    pub fn words(&mut self, words: &[Word], at: &At) {
        // A reserved word in command position means the grammar took a compound command for a
        // simple one (`! { sudo ls; }`): the shell runs what follows it, so judge that.
        let start = words
            .iter()
            .take_while(|w| w.literal().is_some_and(is_reserved_word))
            .count();
        let words = &words[start..];
        let Some(first) = words.first() else { return };
        if at.depth > MAX_DEPTH {
            self.ask(
                "the command wraps other commands too deeply to follow",
                "nesting",
            );
            return;
        }
        if !self.spend() {
            return;
        }
        let raw_name = match first {
            Word::Dynamic(shown) => {
                self.ask(
                    format!("the program to run, “{shown}”, is only known when the command runs"),
                    "computed command name",
                );
                return;
            }
            Word::Glob(pattern) => {
                self.ask(
                    format!("the program to run, “{pattern}”, is a pattern the shell replaces with file names"),
                    "computed command name",
                );
                pattern.as_str()
            }
            Word::Literal(s) => s.as_str(),
        };
        // Look-alike letters (`ｒｍ`, a Cyrillic `о`): judge what it normalizes to, and ask anyway.
        let normalized: String = raw_name
            .nfkc()
            .filter(|c| !matches!(c, '\u{00ad}' | '\u{200b}'..='\u{200f}' | '\u{2060}'..='\u{2064}' | '\u{feff}'))
            .collect();
        if !raw_name.is_ascii() {
            self.ask(
                format!("the program name “{raw_name}” contains non-ASCII characters that can imitate another command"),
                "look-alike characters",
            );
        }
        let name = shell::basename(&normalized).to_string();

        // Every argument that names a secret, the repository's internals or a policy file
        // counts, whatever the program (`cat .env`, `cp x .git/hooks/pre-commit`); one that is
        // plainly a path outside the project is a read there, which needs approval.
        for w in &words[1..] {
            self.mention_word(w, at);
        }

        let mut facts = Facts::default();
        let writes_before = (self.writes.in_tmp, self.writes.elsewhere);
        if self.dispatch(&name, words, at, &mut facts) == Flow::Done {
            return;
        }
        writers::judge(self, &name, words, at, &mut facts);
        facts.private_tmp_only =
            self.writes.in_tmp > writes_before.0 && self.writes.elsewhere == writes_before.1;
        self.rules(&name, words, at, &facts);
    }

    /// What the program itself does, by the tables.
    fn dispatch(&mut self, name: &str, words: &[Word], at: &At, facts: &mut Facts) -> Flow {
        if let Some(flow) = programs::before_wrappers(self, name, words, at, facts) {
            return flow;
        }
        if let Some(w) = wrappers::find(name, words) {
            let read = wrappers::read(w, words);
            for s in &read.scripts {
                self.script(s, &at.deeper());
            }
            for file in &read.writes {
                self.write(file, at, name);
            }
            let inner_at = match &read.chdir {
                Some(dir) => at.in_dir(self.dir(dir, at)),
                None => at.clone(),
            }
            .deeper();
            match read.command {
                Some(i) if w.joined => {
                    let parts: Option<Vec<&str>> = words[i..].iter().map(Word::literal).collect();
                    match parts {
                        Some(p) => self.source(&p.join(" "), &inner_at),
                        None => self.ask(
                            format!("“{name}” runs a command only known when it runs"),
                            "computed script",
                        ),
                    }
                }
                Some(i) if w.package => {
                    let mut inner: Vec<Word> = words[i..].to_vec();
                    if let Some(Word::Literal(spec)) = inner.first() {
                        inner[0] = Word::Literal(wrappers::package_program(spec).to_string());
                    }
                    self.words(&inner, &inner_at);
                }
                Some(i) => self.words(&words[i..], &inner_at),
                None if read.scripts.is_empty() => {
                    if let Some(c) = read.computed {
                        self.ask(
                            format!("“{name}” runs “{}”, only known when it runs", c.shown()),
                            "computed command name",
                        );
                    }
                    return Flow::Continue;
                }
                None => {}
            }
            return Flow::Done;
        }
        if interpreters::is_shell(name) {
            return self.shell(name, words, at, facts);
        }
        if let Some(it) = interpreters::interpreter_named(name) {
            let source = interpreters::interpreter_source(it, words);
            return self.interpreter(name, source, words, at, facts);
        }
        if name == "git" {
            git::judge(self, words, at, facts);
            return Flow::Continue;
        }
        programs::judge(self, name, words, at, facts)
    }

    /// A shell: its `-c` script is judged as a command line; a script it reads from its input
    /// is judged when the line gives it (`bash <<< '…'`), and asks when it arrives through a
    /// pipe.
    fn shell(&mut self, name: &str, words: &[Word], at: &At, facts: &mut Facts) -> Flow {
        match interpreters::shell_source(name, words) {
            Source::Inline(script) => {
                self.script(&script, &at.deeper());
                Flow::Done
            }
            Source::Stdin => self.program_on_stdin(name, at, true, facts),
            Source::Script(_) => {
                facts.read_only = Some(false);
                Flow::Continue
            }
            Source::Nothing => {
                facts.read_only = Some(true);
                Flow::Continue
            }
            Source::Module(..) => Flow::Continue,
        }
    }

    fn interpreter(
        &mut self,
        name: &str,
        source: Source,
        words: &[Word],
        at: &At,
        facts: &mut Facts,
    ) -> Flow {
        match source {
            Source::Inline(_) => {
                self.ask(
                    format!("“{name}” would run code given inline, which Tandem cannot inspect"),
                    "inline code",
                );
                Flow::Done
            }
            Source::Stdin => self.program_on_stdin(name, at, false, facts),
            Source::Module(module, from) => {
                // `python -m pytest -q` runs what `pytest -q` runs — unless the project has a
                // module of that name where it runs: then the project's code runs instead.
                let mut inner_at = at.deeper();
                if let Some(shadow) = self.shadowing_module(&module, at) {
                    if self.mode == Mode::ReadOnly {
                        let runs = match shadow {
                            Shadow::Found(found) => format!(
                                "would run the project's own “{found}” instead of Python's module"
                            ),
                            Shadow::Unknown(top) => format!(
                                "could run a “{top}” of the project's own instead of Python's module (Tandem cannot look in the folder it runs in)"
                            ),
                        };
                        self.deny(
                            format!("“{name} -m {module}” {runs}, and the project's code does not run in Read only mode"),
                            "project code",
                        );
                    }
                    inner_at.tainted = true;
                }
                inner_at.run_as = words
                    .first()
                    .map(|python| vec![python.shown().to_string(), "-m".to_string()]);
                let mut inner = vec![Word::Literal(module)];
                inner.extend(words.iter().skip(from).cloned());
                self.words(&inner, &inner_at);
                Flow::Done
            }
            Source::Script(_) => {
                facts.read_only = Some(false);
                Flow::Continue
            }
            Source::Nothing => {
                facts.read_only = Some(true);
                Flow::Continue
            }
        }
    }

    /// What of the project's own Python would import for `-m MODULE` instead of the module
    /// meant: it puts the folder it runs in first on its path, so a `json/` or `json.py` there
    /// is what `python3 -m json.tool` runs. Also when this command line writes one before, and
    /// when the folder or the disk cannot be looked at.
    fn shadowing_module(&self, module: &str, at: &At) -> Option<Shadow> {
        let top = module.split('.').next().unwrap_or(module);
        let names = [
            top.to_string(),
            format!("{top}.py"),
            format!("{top}.pyc"),
            format!("{top}.so"),
            format!("{top}.abi3.so"),
            format!("{top}.pyd"),
        ];
        let (Some(cwd), Some(exists)) = (&at.cwd, self.ctx.exists) else {
            return Some(Shadow::Unknown(top.to_string()));
        };
        if let Some(found) = names.iter().find(|n| exists(&cwd.join(n))) {
            return Some(Shadow::Found(found.clone()));
        }
        // `echo … > json.py; python3 -m json.tool`: made by the line before it runs.
        let made = self
            .writes
            .paths
            .iter()
            .find(|w| cwd.starts_with(w) || names.iter().any(|n| w.starts_with(cwd.join(n))))?;
        let shown = made
            .strip_prefix(cwd)
            .ok()
            .filter(|r| !r.as_os_str().is_empty())
            .unwrap_or(Path::new(top));
        Some(Shadow::Found(shown.display().to_string()))
    }

    /// A shell or interpreter that reads its program from its input: the program is judged
    /// when the line gives it (`bash <<< '…'`), runs like a script file when it comes from one
    /// (`bash < build.sh`), and asks when it arrives through a pipe.
    fn program_on_stdin(&mut self, name: &str, at: &At, shell: bool, facts: &mut Facts) -> Flow {
        match &at.stdin {
            Stdin::Text(Word::Literal(text)) | Stdin::Text(Word::Glob(text)) if shell => {
                let text = text.clone();
                self.source(&text, &at.deeper());
            }
            Stdin::Text(_) => self.ask(
                format!("“{name}” would run the code in a here-document, which Tandem cannot inspect"),
                "inline code",
            ),
            Stdin::Pipe => self.ask(
                format!("the command pipes text into “{name}”, which runs whatever arrives (like “curl … | sh”)"),
                "pipe into a shell",
            ),
            Stdin::File(_) => {
                facts.read_only = Some(false);
                return Flow::Continue;
            }
            Stdin::Inherited => self.ask(
                format!("“{name}” reads the program to run from its input"),
                "inline code",
            ),
        }
        Flow::Done
    }

    /// A shell script given as one word (`bash -c '…'`, `script -c '…'`).
    pub fn script(&mut self, script: &Word, at: &At) {
        match script.literal() {
            Some(src) => {
                let src = src.to_string();
                self.source(&src, at);
            }
            None => self.ask(
                format!(
                    "the shell script “{}” is only known when the command runs",
                    script.shown()
                ),
                "computed script",
            ),
        }
    }

    /// The folder a word names, for a command that runs there (`-C dir`).
    pub fn dir(&self, dir: &Word, at: &At) -> Option<PathBuf> {
        let text = match dir {
            Word::Literal(s) => s.clone(),
            Word::Glob(_) => return None,
            Word::Dynamic(raw) => self.guess(raw, at)?,
        };
        self.cd_target(at.cwd.as_ref(), &CdTarget::Path(Word::Literal(text)), at)
    }

    /// The rule lists and the mode, for one program and its arguments.
    fn rules(&mut self, name: &str, words: &[Word], at: &At, facts: &Facts) {
        let literal = words.iter().all(|w| w.literal().is_some());
        let shown: Vec<String> = match &facts.rule_words {
            Some(w) => w.clone(),
            None => words.iter().map(|w| w.shown().to_string()).collect(),
        };
        let shown_refs: Vec<&str> = shown.iter().map(String::as_str).collect();
        let args = Args::split(name, shown_refs.get(1..).unwrap_or(&[]));
        let text = shown.join(" ");
        let mut allowed: Option<Finding> = None;
        for rule in self.policy.commands.iter() {
            match rule.verdict {
                Verdict::Deny | Verdict::Ask if rule.pattern.matches_lenient(name, &args) => {
                    let reason = rule.reason.clone().unwrap_or_else(|| match rule.verdict {
                        Verdict::Deny => format!(
                            "“{text}” is blocked by the rule “{}” ({})",
                            rule.pattern.text(),
                            rule.source.label()
                        ),
                        _ => format!(
                            "“{text}” needs your approval: rule “{}” ({})",
                            rule.pattern.text(),
                            rule.source.label()
                        ),
                    });
                    let list = if rule.verdict == Verdict::Deny {
                        "deny"
                    } else {
                        "ask"
                    };
                    self.out.push(
                        Finding::new(
                            rule.verdict,
                            reason,
                            format!("commands.{list} \"{}\"", rule.pattern.text()),
                            rule.source.clone(),
                        )
                        .with_network(facts.network),
                    );
                }
                Verdict::Allow if literal && rule.pattern.matches_strict(name, &args) => {
                    let spec = rule.pattern.specificity();
                    if allowed.as_ref().is_none_or(|a| spec > a.specificity) {
                        allowed = Some(
                            Finding::new(
                                Verdict::Allow,
                                format!(
                                    "“{}” is allowed ({})",
                                    rule.pattern.text(),
                                    rule.source.label()
                                ),
                                format!("commands.allow \"{}\"", rule.pattern.text()),
                                rule.source.clone(),
                            )
                            .with_specificity(spec)
                            .with_network(facts.network),
                        );
                    }
                }
                _ => {}
            }
        }
        let read_only = !at.writes
            && !at.tainted
            && match facts.read_only {
                Some(known) => known,
                None => readonly::only_reads(name, words, self.sandboxed()),
            };
        let only_reads = || {
            Finding::floor(
                Verdict::Allow,
                format!("“{name}” only reads"),
                "read-only command",
            )
            .with_specificity(1)
        };
        if self.mode == Mode::ReadOnly {
            if read_only {
                self.out.push(only_reads());
            } else {
                self.deny(
                    format!("“{text}” could change things, so it does not run in Read only mode"),
                    "read_only mode",
                );
            }
            return;
        }
        if let Some(a) = allowed {
            self.out.push(a);
            return;
        }
        if read_only {
            self.out.push(only_reads());
            return;
        }
        let suggestions = if literal && !facts.no_suggestions {
            suggest::command_pattern(&shown_refs)
                .and_then(|p| match &at.run_as {
                    Some(before) => suggest::as_run(before, &p, name, &args),
                    None => Some(p),
                })
                .map(|p| suggest::command(&p))
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        if facts.network {
            self.out.push(
                Finding::floor(
                    Verdict::Ask,
                    format!("this command wants the network (“{text}”), so it needs your approval"),
                    "network",
                )
                .with_suggestions(suggestions)
                .with_network(true),
            );
            return;
        }
        // It changes nothing but scratch files in the sandbox's own folder: the findings on
        // what it writes said what the mode allows.
        if facts.private_tmp_only && !at.writes && !at.tainted {
            self.out.push(
                Finding::floor(
                    Verdict::Allow,
                    format!("“{name}” changes only the private temporary folder"),
                    "private temporary folder",
                )
                .with_specificity(1),
            );
            return;
        }
        match self.mode {
            Mode::FullAuto if self.sandboxed() => self.out.push(Finding::floor(
                Verdict::Allow,
                "Full auto runs commands that no rule stops (in the sandbox)",
                "full_auto mode",
            )),
            Mode::FullAuto => self.out.push(
                Finding::floor(
                    Verdict::Ask,
                    format!("“{text}”: {NOT_SANDBOXED}"),
                    "not sandboxed",
                )
                .with_suggestions(suggestions),
            ),
            mode => self.out.push(
                Finding::floor(
                    Verdict::Ask,
                    format!(
                        "“{text}” needs your approval: in {} mode, commands ask first",
                        mode.label()
                    ),
                    &format!("{mode} mode"),
                )
                .with_suggestions(suggestions),
            ),
        }
    }
}

fn is_reserved_word(w: &str) -> bool {
    matches!(
        w,
        "{" | "}"
            | "!"
            | "[["
            | "]]"
            | "if"
            | "then"
            | "else"
            | "elif"
            | "fi"
            | "do"
            | "done"
            | "case"
            | "esac"
            | "while"
            | "until"
            | "for"
            | "in"
            | "select"
            | "function"
            | "coproc"
    )
}

/// Devices that swallow or show output: writing to them changes no file.
pub fn is_sink(path: &str) -> bool {
    matches!(
        path,
        "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty" | "-"
    )
}
