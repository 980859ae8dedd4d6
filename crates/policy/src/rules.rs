//! Rule files (TOML) and the merged rule set: built-in defaults, then the user's file, then the
//! project's, then session grants. A file that does not parse is an error with line and column,
//! never "no rules"; rules that carry examples are checked against them when loaded.

use crate::decision::Grant;
use crate::glob::Glob;
use crate::mode::Mode;
use crate::pattern::{Args, CommandPattern};
use crate::shell::{self, basename};
use crate::source::Source;
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub const BUILTIN_TOML: &str = include_str!("builtin.toml");

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PolicyError {
    #[error("{file}:{line}:{column}: {message}")]
    Parse {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: {message}")]
    Invalid { file: String, message: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NetworkMode {
    Allow,
    Ask,
    Deny,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleFile {
    mode: Option<Mode>,
    max_diff_lines: Option<u32>,
    require_approval_above: Option<u32>,
    /// User file only: project folders whose own rules may loosen, not just tighten.
    trusted_projects: Option<Vec<String>>,
    #[serde(default)]
    paths: PathsSection,
    #[serde(default)]
    commands: CommandsSection,
    #[serde(default)]
    network: NetworkSection,
    /// Tools of MCP servers used without asking, by the name the model calls them.
    #[serde(default)]
    tools: AllowTools,
    /// User file only: what you allowed "always in this project" from the approval dialog, per
    /// project folder. Kept in your file, not the project's, so a repository cannot grant
    /// itself anything.
    #[serde(default)]
    projects: std::collections::BTreeMap<String, ProjectGrants>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProjectGrants {
    #[serde(default)]
    commands: AllowCommands,
    #[serde(default)]
    paths: AllowWrites,
    #[serde(default)]
    network: AllowDomains,
    #[serde(default)]
    tools: AllowTools,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AllowTools {
    #[serde(default)]
    allow: Vec<String>,
    /// Tools turned off: never offered to the model, and refused if it calls one anyway.
    #[serde(default)]
    off: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AllowCommands {
    #[serde(default)]
    allow: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AllowWrites {
    #[serde(default)]
    allow_write: Vec<String>,
    #[serde(default)]
    allow_read: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AllowDomains {
    #[serde(default)]
    allowed_domains: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PathsSection {
    #[serde(default)]
    protected: Vec<String>,
    #[serde(default)]
    protected_exceptions: Vec<String>,
    /// Globs the agent may write without asking, in `ask` mode.
    #[serde(default)]
    allow_write: Vec<String>,
    /// Folders outside the project the agent and its commands may read (`/srv/shared`,
    /// `~/datasets`): everything else outside is hidden from commands.
    #[serde(default)]
    allow_read: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CommandsSection {
    #[serde(default)]
    allow: Vec<CommandSpec>,
    #[serde(default)]
    ask: Vec<CommandSpec>,
    #[serde(default)]
    deny: Vec<CommandSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum CommandSpec {
    Pattern(String),
    Full(FullCommandSpec),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FullCommandSpec {
    pattern: String,
    #[serde(rename = "match", default)]
    matches: Vec<String>,
    #[serde(default)]
    not_match: Vec<String>,
    reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct NetworkSection {
    mode: Option<NetworkMode>,
    #[serde(default)]
    allowed_domains: Vec<String>,
    #[serde(default)]
    denied_domains: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct CommandRule {
    pub pattern: CommandPattern,
    pub verdict: crate::decision::Verdict,
    pub reason: Option<String>,
    pub source: Source,
}

#[derive(Debug, Clone)]
pub struct PathRule {
    pub text: String,
    pub glob: Glob,
    pub source: Source,
}

/// A place outside the project the agent and its commands may read: the folder (or file) and
/// everything in it. Written absolute or from the home folder (`~/datasets`).
#[derive(Debug, Clone)]
pub struct ReadRule {
    pub text: String,
    pub source: Source,
}

impl ReadRule {
    /// The place it names, `~/` taken as `home`; None for a `~/` place when no home is known.
    pub fn place(&self, home: Option<&Path>) -> Option<PathBuf> {
        match self.text.strip_prefix("~/") {
            Some(rest) => home.map(|h| h.join(rest)),
            None => Some(PathBuf::from(&self.text)),
        }
    }

    /// Whether `abs` is the place or inside it.
    pub fn covers(&self, abs: &Path, home: Option<&Path>) -> bool {
        self.place(home).is_some_and(|p| abs.starts_with(p))
    }
}

/// Checks a place given to `paths.allow_read`: a whole path outside any glob, absolute or
/// from the home folder, and not the whole machine or home (that would undo the sandbox's
/// allow-list rather than add a folder to it).
fn read_place(text: &str) -> Result<String, String> {
    if text.contains(['*', '?', '[', '{']) {
        return Err(format!(
            "“{text}” in paths.allow_read is a pattern; name the folder itself (it covers everything in it)"
        ));
    }
    literal_read_place(text)
}

/// [`read_place`] for a path taken as it is (a grant of one file, whose name may hold `[`).
fn literal_read_place(text: &str) -> Result<String, String> {
    let t = text.trim().trim_end_matches('/');
    if t.is_empty() || t == "~" {
        return Err(format!(
            "“{text}” in paths.allow_read would let commands read the whole machine or home; name the folder they need"
        ));
    }
    let absolute = t.starts_with('/') || t.starts_with("~/");
    if !absolute {
        return Err(format!(
            "“{text}” in paths.allow_read must be a whole folder path, starting with / or ~/"
        ));
    }
    if Path::new(t)
        .components()
        .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        return Err(format!(
            "“{text}” in paths.allow_read must not contain “..”"
        ));
    }
    Ok(t.to_string())
}

/// A tool of an MCP server allowed by name.
#[derive(Debug, Clone)]
pub struct ToolRule {
    pub name: String,
    pub source: Source,
}

#[derive(Debug, Clone)]
pub struct DomainRule {
    pub domain: String,
    pub source: Source,
}

/// A setting and where its value came from.
#[derive(Debug, Clone)]
pub struct Setting<T> {
    pub value: T,
    pub source: Source,
}

/// The merged rules the engine evaluates against.
#[derive(Debug, Clone)]
pub struct Policy {
    pub mode: Setting<Mode>,
    pub max_diff_lines: Setting<u32>,
    pub require_approval_above: Setting<u32>,
    pub network: Setting<NetworkMode>,
    /// Shared between clones (judging whether an offered grant would hold clones the policy).
    pub commands: Arc<Vec<CommandRule>>,
    pub paths: PathRules,
    pub web: WebRules,
    pub tools: ToolRules,
    pub trust: Trust,
    /// What was left out and why (a looser rule in an untrusted project file).
    pub notes: Vec<String>,
}

/// The `[paths]` rules, merged.
#[derive(Debug, Clone)]
pub struct PathRules {
    pub protected: Vec<PathRule>,
    pub protected_exceptions: Vec<PathRule>,
    /// `protected` and `protected_exceptions` compiled together, so a path is checked against
    /// all of them in one pass (it runs for every path a command names).
    pub(crate) protected_set: Arc<GlobSet>,
    pub(crate) exceptions_set: Arc<GlobSet>,
    pub allow_write: Vec<PathRule>,
    /// Places outside the project that may be read: granted this session, or written in the
    /// rules (`paths.allow_read`).
    pub allow_read: Vec<ReadRule>,
}

/// The `[network]` domain rules and whether web search runs without asking.
#[derive(Debug, Clone, Default)]
pub struct WebRules {
    pub allowed_domains: Vec<DomainRule>,
    pub denied_domains: Vec<DomainRule>,
    pub allow_search: Option<Source>,
}

/// The `[tools]` rules, merged.
#[derive(Debug, Clone, Default)]
pub struct ToolRules {
    /// Tools of MCP servers that run without asking.
    pub allowed: Vec<ToolRule>,
    /// Tools turned off (`[tools] off`), for every project or for this one.
    pub off: Vec<ToolRule>,
}

/// Which projects may loosen the rules, and the one being loaded for.
#[derive(Debug, Clone, Default)]
pub struct Trust {
    pub projects: Vec<String>,
    /// The project being loaded for, so the user's per-project grants apply to it alone.
    current: Option<String>,
}

impl Default for PathRules {
    fn default() -> Self {
        PathRules {
            protected: Vec::new(),
            protected_exceptions: Vec::new(),
            protected_set: Arc::new(GlobSet::empty()),
            exceptions_set: Arc::new(GlobSet::empty()),
            allow_write: Vec::new(),
            allow_read: Vec::new(),
        }
    }
}

/// A rule file's text and where it lives.
pub struct RuleText<'a> {
    pub path: &'a Path,
    pub text: &'a str,
}

fn path_glob(text: &str) -> Result<Glob, String> {
    Glob::new(text.trim_start_matches("./"), true, cfg!(unix))
        .map_err(|e| format!("“{text}” is not a valid glob: {e}"))
}

pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit('\n')
        .next()
        .map(|l| l.chars().count())
        .unwrap_or(0)
        + 1;
    (line, column)
}

/// Where a value is written in a file, for errors about it (first occurrence of its quoted form).
fn locate(text: &str, value: &str) -> (usize, usize) {
    let quoted = format!("\"{value}\"");
    match text.find(&quoted).or_else(|| text.find(value)) {
        Some(off) => line_col(text, off),
        None => (1, 1),
    }
}

fn parse_file(file: &str, text: &str) -> Result<RuleFile, PolicyError> {
    toml::from_str::<RuleFile>(text).map_err(|e| {
        let (line, column) = e.span().map(|s| line_col(text, s.start)).unwrap_or((1, 1));
        PolicyError::Parse {
            file: file.to_string(),
            line,
            column,
            message: e.message().trim().to_string(),
        }
    })
}

impl Policy {
    /// The built-in defaults alone.
    pub fn builtin() -> Policy {
        let mut policy = Policy::empty();
        // The built-in file is part of the program and covered by tests; failing here would be
        // a build defect, so fall back to the empty (strictest) set rather than panic.
        if let Err(err) = policy.apply(BUILTIN_TOML, "built-in", Source::Builtin, true) {
            policy
                .notes
                .push(format!("built-in rules failed to load: {err}"));
        }
        policy
    }

    fn empty() -> Policy {
        Policy {
            mode: Setting {
                value: Mode::Ask,
                source: Source::Builtin,
            },
            max_diff_lines: Setting {
                value: 2000,
                source: Source::Builtin,
            },
            require_approval_above: Setting {
                value: 200,
                source: Source::Builtin,
            },
            network: Setting {
                value: NetworkMode::Ask,
                source: Source::Builtin,
            },
            commands: Arc::new(Vec::new()),
            paths: PathRules::default(),
            web: WebRules::default(),
            tools: ToolRules::default(),
            trust: Trust::default(),
            notes: Vec::new(),
        }
    }

    /// Built-in defaults, then the user's file, then the project's. The project file may only
    /// tighten unless `project_root` is listed in the user's `trusted_projects`.
    pub fn load(
        user: Option<RuleText<'_>>,
        project: Option<RuleText<'_>>,
        project_root: &Path,
    ) -> Result<Policy, PolicyError> {
        let mut policy = Policy::builtin();
        policy.trust.current = Some(project_root.to_string_lossy().into_owned());
        if let Some(u) = user {
            let file = u.path.display().to_string();
            policy.apply(u.text, &file, Source::User(u.path.to_path_buf()), true)?;
        }
        if let Some(p) = project {
            let root = project_root.to_string_lossy();
            let trusted = policy
                .trust
                .projects
                .iter()
                .any(|t| Path::new(t) == project_root || t.as_str() == root);
            let file = p.path.display().to_string();
            policy.apply(
                p.text,
                &file,
                Source::Project(p.path.to_path_buf()),
                trusted,
            )?;
        }
        Ok(policy)
    }

    /// Merges one file. `may_loosen` is false for an untrusted project file: its loosening
    /// parts are left out, each with a note.
    fn apply(
        &mut self,
        text: &str,
        file: &str,
        source: Source,
        may_loosen: bool,
    ) -> Result<(), PolicyError> {
        use crate::decision::Verdict;
        let parsed = parse_file(file, text)?;
        let invalid = |message: String| PolicyError::Invalid {
            file: file.to_string(),
            message,
        };
        let note = |what: String| left_out(file, what);
        let mut notes = Vec::new();

        // Scalars: a later file overrides an earlier one, but an untrusted project file only
        // when its value is at least as strict (a lower mode or threshold).
        fn tighten<T: PartialOrd + Copy + std::fmt::Display>(
            slot: &mut Setting<T>,
            value: Option<T>,
            name: &str,
            source: &Source,
            may_loosen: bool,
            notes: &mut Vec<String>,
            file: &str,
        ) {
            let Some(v) = value else { return };
            if may_loosen || v <= slot.value {
                *slot = Setting {
                    value: v,
                    source: source.clone(),
                };
            } else {
                notes.push(left_out(
                    file,
                    format!("{name} “{v}” is looser than “{}”", slot.value),
                ));
            }
        }
        tighten(
            &mut self.mode,
            parsed.mode,
            "mode",
            &source,
            may_loosen,
            &mut notes,
            file,
        );
        tighten(
            &mut self.max_diff_lines,
            parsed.max_diff_lines,
            "max_diff_lines",
            &source,
            may_loosen,
            &mut notes,
            file,
        );
        tighten(
            &mut self.require_approval_above,
            parsed.require_approval_above,
            "require_approval_above",
            &source,
            may_loosen,
            &mut notes,
            file,
        );
        if let Some(t) = parsed.trusted_projects {
            if matches!(source, Source::Project(_)) {
                notes.push(note(
                    "trusted_projects belongs in your own rules, not a project's".into(),
                ));
            } else {
                self.trust.projects.extend(t);
            }
        }
        if let Some(n) = parsed.network.mode {
            if may_loosen || n >= self.network.value {
                self.network = Setting {
                    value: n,
                    source: source.clone(),
                };
            } else {
                notes.push(note(
                    "network mode is looser than the current one".to_string(),
                ));
            }
        }

        for g in &parsed.paths.protected {
            let glob = path_glob(g).map_err(&invalid)?;
            self.paths.protected.push(PathRule {
                text: g.clone(),
                glob,
                source: source.clone(),
            });
        }
        for (list, texts, name) in [
            (
                &mut self.paths.protected_exceptions,
                &parsed.paths.protected_exceptions,
                "paths.protected_exceptions",
            ),
            (
                &mut self.paths.allow_write,
                &parsed.paths.allow_write,
                "paths.allow_write",
            ),
        ] {
            for g in texts {
                let glob = path_glob(g).map_err(&invalid)?;
                if may_loosen {
                    list.push(PathRule {
                        text: g.clone(),
                        glob,
                        source: source.clone(),
                    });
                } else {
                    notes.push(note(format!("{name} “{g}” would loosen the rules")));
                }
            }
        }
        for r in &parsed.paths.allow_read {
            let text = read_place(r).map_err(&invalid)?;
            if may_loosen {
                self.paths.allow_read.push(ReadRule {
                    text,
                    source: source.clone(),
                });
            } else {
                notes.push(note(format!(
                    "paths.allow_read “{r}” would loosen the rules"
                )));
            }
        }

        for (specs, verdict) in [
            (&parsed.commands.deny, Verdict::Deny),
            (&parsed.commands.ask, Verdict::Ask),
            (&parsed.commands.allow, Verdict::Allow),
        ] {
            for spec in specs {
                let (pattern_text, matches, not_match, reason) = match spec {
                    CommandSpec::Pattern(p) => (p.as_str(), &[][..], &[][..], None),
                    CommandSpec::Full(f) => (
                        f.pattern.as_str(),
                        &f.matches[..],
                        &f.not_match[..],
                        f.reason.clone(),
                    ),
                };
                // A fault of the pattern or of its examples, at the pattern's place in the file.
                let at_pattern = |m: String| {
                    let (line, column) = locate(text, pattern_text);
                    PolicyError::Parse {
                        file: file.to_string(),
                        line,
                        column,
                        message: m,
                    }
                };
                let pattern = CommandPattern::parse(pattern_text).map_err(at_pattern)?;
                // The built-in rules' examples are checked by this crate's tests
                // (`builtin_rules_load_cleanly`), not at every load in every process; a
                // person's own rules are checked as they load.
                if cfg!(test) || !matches!(source, Source::Builtin) {
                    check_examples(&pattern, verdict, matches, not_match).map_err(at_pattern)?;
                }
                if verdict == Verdict::Allow && !may_loosen {
                    notes.push(note(format!(
                        "commands.allow “{pattern_text}” would loosen the rules"
                    )));
                    continue;
                }
                Arc::make_mut(&mut self.commands).push(CommandRule {
                    pattern,
                    verdict,
                    reason,
                    source: source.clone(),
                });
            }
        }

        for d in &parsed.network.denied_domains {
            self.web.denied_domains.push(DomainRule {
                domain: normalize_domain(d),
                source: source.clone(),
            });
        }
        for d in &parsed.network.allowed_domains {
            if may_loosen {
                self.web.allowed_domains.push(DomainRule {
                    domain: normalize_domain(d),
                    source: source.clone(),
                });
            } else {
                notes.push(note(format!(
                    "network.allowed_domains “{d}” would loosen the rules"
                )));
            }
        }
        for t in &parsed.tools.allow {
            if may_loosen {
                self.tools.allowed.push(ToolRule {
                    name: t.clone(),
                    source: source.clone(),
                });
            } else {
                notes.push(note(format!("tools.allow “{t}” would loosen the rules")));
            }
        }
        // Turning a tool off only tightens: any file may.
        for t in &parsed.tools.off {
            self.tools.off.push(ToolRule {
                name: t.clone(),
                source: source.clone(),
            });
        }
        for (project, grants) in &parsed.projects {
            if !matches!(source, Source::User(_)) {
                notes.push(note(
                    "“projects” belongs in your own rules, not a project's".into(),
                ));
                break;
            }
            if self.trust.current.as_deref() != Some(project.as_str()) {
                continue;
            }
            for c in &grants.commands.allow {
                let pattern = CommandPattern::parse(c).map_err(|m| {
                    let (line, column) = locate(text, c);
                    PolicyError::Parse {
                        file: file.to_string(),
                        line,
                        column,
                        message: m,
                    }
                })?;
                Arc::make_mut(&mut self.commands).push(CommandRule {
                    pattern,
                    verdict: Verdict::Allow,
                    reason: None,
                    source: source.clone(),
                });
            }
            for g in &grants.paths.allow_write {
                let glob = path_glob(g).map_err(&invalid)?;
                self.paths.allow_write.push(PathRule {
                    text: g.clone(),
                    glob,
                    source: source.clone(),
                });
            }
            for r in &grants.paths.allow_read {
                self.paths.allow_read.push(ReadRule {
                    text: read_place(r).map_err(&invalid)?,
                    source: source.clone(),
                });
            }
            for d in &grants.network.allowed_domains {
                self.web.allowed_domains.push(DomainRule {
                    domain: normalize_domain(d),
                    source: source.clone(),
                });
            }
            for t in &grants.tools.allow {
                self.tools.allowed.push(ToolRule {
                    name: t.clone(),
                    source: source.clone(),
                });
            }
            for t in &grants.tools.off {
                self.tools.off.push(ToolRule {
                    name: t.clone(),
                    source: source.clone(),
                });
            }
        }
        self.notes.extend(notes);
        self.paths.protected_set = Arc::new(compile_set(&self.paths.protected, file)?);
        self.paths.exceptions_set = Arc::new(compile_set(&self.paths.protected_exceptions, file)?);
        Ok(())
    }

    /// The places outside the project its rules let commands read, `~/` taken as `home`.
    pub fn readable_outside(&self, home: Option<&Path>) -> Vec<PathBuf> {
        self.paths
            .allow_read
            .iter()
            .filter_map(|r| r.place(home))
            .collect()
    }

    /// The rule that turned a tool off, if one did.
    pub fn turned_off(&self, tool: &str) -> Option<&ToolRule> {
        self.tools.off.iter().find(|t| t.name == tool)
    }

    /// Adds a rule granted in the approval dialog for the rest of the session.
    pub fn grant(&mut self, grant: &Grant) -> Result<(), String> {
        match grant {
            Grant::AllowCommand(p) => {
                let pattern = CommandPattern::parse(p)?;
                Arc::make_mut(&mut self.commands).push(CommandRule {
                    pattern,
                    verdict: crate::decision::Verdict::Allow,
                    reason: None,
                    source: Source::Session,
                });
            }
            Grant::AllowWrite(g) => self.paths.allow_write.push(PathRule {
                text: g.clone(),
                glob: path_glob(g)?,
                source: Source::Session,
            }),
            Grant::AllowRead(p) => self.paths.allow_read.push(ReadRule {
                text: literal_read_place(p)?,
                source: Source::Session,
            }),
            Grant::AllowDomain(d) => self.web.allowed_domains.push(DomainRule {
                domain: normalize_domain(d),
                source: Source::Session,
            }),
            Grant::AllowSearch => self.web.allow_search = Some(Source::Session),
            Grant::AllowTool(name) => self.tools.allowed.push(ToolRule {
                name: name.clone(),
                source: Source::Session,
            }),
        }
        Ok(())
    }

    /// The merged rules, each as (rule, where it came from), in the order `policy show` prints
    /// them; the Settings screen lists the same.
    pub fn lines(&self) -> Vec<(String, String)> {
        let mut out = vec![
            (
                format!("mode = {}", self.mode.value),
                self.mode.source.to_string(),
            ),
            (
                format!("max_diff_lines = {}", self.max_diff_lines.value),
                self.max_diff_lines.source.to_string(),
            ),
            (
                format!(
                    "require_approval_above = {}",
                    self.require_approval_above.value
                ),
                self.require_approval_above.source.to_string(),
            ),
            (
                format!("network = {:?}", self.network.value),
                self.network.source.to_string(),
            ),
        ];
        for (title, list) in [
            ("paths.protected", &self.paths.protected),
            (
                "paths.protected_exceptions",
                &self.paths.protected_exceptions,
            ),
            ("paths.allow_write", &self.paths.allow_write),
        ] {
            for r in list {
                out.push((format!("{title} \"{}\"", r.text), r.source.to_string()));
            }
        }
        for r in &self.paths.allow_read {
            out.push((
                format!("paths.allow_read \"{}\"", r.text),
                r.source.to_string(),
            ));
        }
        for r in self.commands.iter() {
            let verdict = match r.verdict {
                crate::decision::Verdict::Allow => "allow",
                crate::decision::Verdict::Ask => "ask",
                crate::decision::Verdict::Deny => "deny",
            };
            out.push((
                format!("commands.{verdict} \"{}\"", r.pattern.text()),
                r.source.to_string(),
            ));
        }
        for d in &self.web.allowed_domains {
            out.push((
                format!("network.allowed_domains \"{}\"", d.domain),
                d.source.to_string(),
            ));
        }
        for d in &self.web.denied_domains {
            out.push((
                format!("network.denied_domains \"{}\"", d.domain),
                d.source.to_string(),
            ));
        }
        for t in &self.tools.allowed {
            out.push((format!("tools.allow \"{}\"", t.name), t.source.to_string()));
        }
        for t in &self.tools.off {
            out.push((format!("tools.off \"{}\"", t.name), t.source.to_string()));
        }
        out.push((
            "hard floors (no rule lifts them): sudo/doas/su; recursive deletes outside the project; writes outside the project (commands ask, they leave the sandbox) and to shell start-up files; writes into .git/; secrets (.env, keys, ~/.ssh, cloud credentials); the policy files; code run through the environment, inline code, pipes into shells; destructive git".into(),
            "built-in".into(),
        ));
        for n in &self.notes {
            out.push((format!("note: {n}"), String::new()));
        }
        out
    }

    /// The merged rules as text, each with where it came from (`tandem-cli policy show`).
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for (rule, source) in self.lines() {
            out.push_str(&rule);
            if !source.is_empty() {
                out.push_str(&format!("  ({source})"));
            }
            out.push('\n');
        }
        out
    }
}

fn compile_set(rules: &[PathRule], file: &str) -> Result<GlobSet, PolicyError> {
    let mut b = GlobSetBuilder::new();
    for r in rules {
        let glob = GlobBuilder::new(r.text.trim_start_matches("./"))
            .literal_separator(true)
            .build()
            .map_err(|e| PolicyError::Invalid {
                file: file.to_string(),
                message: format!("“{}” is not a valid glob: {e}", r.text),
            })?;
        b.add(glob);
    }
    b.build().map_err(|e| PolicyError::Invalid {
        file: file.to_string(),
        message: format!("the path globs cannot be compiled together: {e}"),
    })
}

fn left_out(file: &str, what: String) -> String {
    format!("{file}: left out: {what} (this project is not trusted)")
}

fn normalize_domain(d: &str) -> String {
    d.trim()
        .trim_start_matches("*.")
        .trim_start_matches('.')
        .to_ascii_lowercase()
}

/// Checks a rule's own examples: each `match` must match and each `not_match` must not, with
/// the matching the rule will really use.
fn check_examples(
    pattern: &CommandPattern,
    verdict: crate::decision::Verdict,
    matches: &[String],
    not_match: &[String],
) -> Result<(), String> {
    let test = |example: &str| -> bool {
        let parsed = shell::parse(example);
        let Some(cmd) = parsed.commands.first() else {
            return false;
        };
        let all: Vec<&str> = cmd.words.iter().map(|w| w.shown()).collect();
        let words = crate::pattern::module_run(&all).unwrap_or(&all);
        let Some((program, rest)) = words.split_first() else {
            return false;
        };
        let args = Args::split(basename(program), rest);
        if verdict == crate::decision::Verdict::Allow {
            pattern.matches_strict(program, &args)
        } else {
            pattern.matches_lenient(program, &args)
        }
    };
    for e in matches {
        if !test(e) {
            return Err(format!(
                "rule “{}” should match its example “{e}” but does not",
                pattern.text()
            ));
        }
    }
    for e in not_match {
        if test(e) {
            return Err(format!(
                "rule “{}” matches “{e}”, which its examples say it must not",
                pattern.text()
            ));
        }
    }
    Ok(())
}

/// Adds an "always allow in this project" grant to the user's rules text: under
/// `[projects."<root>"]`, kept in the user's own file so that a repository can never grant
/// itself anything. Comments and layout are kept.
pub fn add_project_grant(
    user_text: &str,
    file: &str,
    project_root: &Path,
    grant: &Grant,
) -> Result<String, PolicyError> {
    use protocol::RuleList;
    let (list, value) = match grant {
        Grant::AllowCommand(p) => (RuleList::CommandsAllow, p.clone()),
        Grant::AllowWrite(g) => (RuleList::PathsAllowWrite, g.clone()),
        Grant::AllowDomain(d) => (RuleList::NetworkAllowedDomains, d.clone()),
        Grant::AllowTool(t) => (RuleList::ToolsAllow, t.clone()),
        Grant::AllowRead(p) => (RuleList::PathsAllowRead, p.clone()),
        Grant::AllowSearch => {
            return Err(PolicyError::Invalid {
                file: file.to_string(),
                message: "this permission can be given for the session only".into(),
            });
        }
    };
    crate::rule_edit::add_rule(
        user_text,
        file,
        &protocol::RuleKey {
            file: protocol::RuleFileKind::User,
            project: Some(project_root.to_string_lossy().into_owned()),
            list,
            value,
        },
    )
}

/// The user's policy file location on this platform (`$XDG_CONFIG_HOME/tandem/policy.toml`).
pub fn user_policy_path(config_dir: &Path) -> PathBuf {
    config_dir.join("tandem").join("policy.toml")
}

/// The project's policy file.
pub fn project_policy_path(project_root: &Path) -> PathBuf {
    project_root.join(".tandem").join("policy.toml")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::Verdict;

    #[test]
    fn builtin_rules_load_cleanly() {
        // Under test every built-in example is checked as well (a failed one is a note).
        let p = Policy::builtin();
        assert!(p.notes.is_empty(), "{:?}", p.notes);
        assert!(p.commands.iter().any(|c| c.verdict == Verdict::Deny));
        assert_eq!(p.mode.value, Mode::Ask);
    }

    #[test]
    fn a_broken_file_is_an_error_with_line_and_column() {
        let text = "mode = \"ask\"\n[commands]\nallow = [\"ls\"\n";
        let err = Policy::load(
            Some(RuleText {
                path: Path::new("/u/policy.toml"),
                text,
            }),
            None,
            Path::new("/p"),
        )
        .expect_err("broken");
        match err {
            PolicyError::Parse { line, file, .. } => {
                assert_eq!(file, "/u/policy.toml");
                assert!(line >= 3, "{line}");
            }
            other => panic!("{other:?}"),
        }
        let typo = "mdoe = \"ask\"\n";
        let err = Policy::load(
            Some(RuleText {
                path: Path::new("u.toml"),
                text: typo,
            }),
            None,
            Path::new("/p"),
        )
        .expect_err("typo");
        assert!(err.to_string().starts_with("u.toml:1:1:"), "{err}");
        assert!(err.to_string().contains("mdoe"), "{err}");
    }

    #[test]
    fn examples_are_checked_at_load() {
        let text = "[commands]\ndeny = [{ pattern = \"git push\", match = [\"git pull\"] }]\n";
        let err = Policy::load(
            Some(RuleText {
                path: Path::new("u.toml"),
                text,
            }),
            None,
            Path::new("/p"),
        )
        .expect_err("bad example");
        let msg = err.to_string();
        assert!(msg.contains("should match its example “git pull”"), "{msg}");
        assert!(msg.starts_with("u.toml:2:"), "{msg}");
        let text = "[commands]\nallow = [{ pattern = \"cargo test\", not_match = [\"cargo test --all\"] }]\n";
        assert!(
            Policy::load(
                Some(RuleText {
                    path: Path::new("u.toml"),
                    text
                }),
                None,
                Path::new("/p")
            )
            .is_err()
        );
    }

    #[test]
    fn untrusted_project_files_only_tighten() {
        let project = "mode = \"full_auto\"\nmax_diff_lines = 100\n[commands]\nallow = [\"rm\"]\ndeny = [\"make deploy\"]\n[paths]\nallow_write = [\"**\"]\n";
        let p = Policy::load(
            None,
            Some(RuleText {
                path: Path::new("/p/.tandem/policy.toml"),
                text: project,
            }),
            Path::new("/p"),
        )
        .expect("load");
        assert_eq!(p.mode.value, Mode::Ask);
        assert_eq!(p.max_diff_lines.value, 100);
        assert!(p.commands.iter().any(|c| c.pattern.text() == "make deploy"));
        assert!(!p.commands.iter().any(|c| c.pattern.text() == "rm"));
        assert!(p.paths.allow_write.is_empty());
        assert_eq!(p.notes.len(), 3, "{:?}", p.notes);

        let user = "trusted_projects = [\"/p\"]\n";
        let p = Policy::load(
            Some(RuleText {
                path: Path::new("/u.toml"),
                text: user,
            }),
            Some(RuleText {
                path: Path::new("/p/.tandem/policy.toml"),
                text: project,
            }),
            Path::new("/p"),
        )
        .expect("load");
        assert_eq!(p.mode.value, Mode::FullAuto);
        assert!(p.commands.iter().any(|c| c.pattern.text() == "rm"));
    }

    /// Issue 25: the seed's tools setting. A tool can be turned off everywhere (your file), in
    /// one project (your file's `[projects."/p".tools]`, or the project's own file, trusted or
    /// not: turning off only tightens).
    #[test]
    fn tools_are_turned_off_everywhere_or_per_project() {
        let user = "[tools]\noff = [\"web_search\"]\n[projects.\"/p\".tools]\noff = [\"create_pull_request\"]\n[projects.\"/q\".tools]\noff = [\"run_command\"]\n";
        let project = "[tools]\noff = [\"web_fetch\"]\n";
        let p = Policy::load(
            Some(RuleText {
                path: Path::new("/u.toml"),
                text: user,
            }),
            Some(RuleText {
                path: Path::new("/p/.tandem/policy.toml"),
                text: project,
            }),
            Path::new("/p"),
        )
        .expect("load");
        for off in ["web_search", "create_pull_request", "web_fetch"] {
            assert!(p.turned_off(off).is_some(), "{off}");
        }
        assert!(
            p.turned_off("run_command").is_none(),
            "another project's setting"
        );
        assert!(p.notes.is_empty(), "{:?}", p.notes);
        assert_eq!(
            p.turned_off("web_fetch").map(|r| r.source.to_string()),
            Some(Source::Project(PathBuf::from("/p/.tandem/policy.toml")).to_string())
        );
    }

    #[test]
    fn always_allow_in_this_project_is_kept_in_your_file_for_that_project_only() {
        let start = "# my rules\nmode = \"ask\"\n";
        let text = add_project_grant(
            start,
            "u.toml",
            Path::new("/p"),
            &Grant::AllowCommand("make check".into()),
        )
        .expect("add");
        let text = add_project_grant(
            &text,
            "u.toml",
            Path::new("/p"),
            &Grant::AllowCommand("make check".into()),
        )
        .expect("idempotent");
        let text = add_project_grant(
            &text,
            "u.toml",
            Path::new("/p"),
            &Grant::AllowWrite("src/**".into()),
        )
        .expect("add");
        assert!(text.starts_with("# my rules\n"), "comments kept: {text}");
        assert_eq!(text.matches("make check").count(), 1, "{text}");
        let here = Policy::load(
            Some(RuleText {
                path: Path::new("/u.toml"),
                text: &text,
            }),
            None,
            Path::new("/p"),
        )
        .expect("load");
        assert!(
            here.commands
                .iter()
                .any(|c| c.pattern.text() == "make check" && c.verdict == Verdict::Allow)
        );
        assert_eq!(here.paths.allow_write.len(), 1);
        let elsewhere = Policy::load(
            Some(RuleText {
                path: Path::new("/u.toml"),
                text: &text,
            }),
            None,
            Path::new("/other"),
        )
        .expect("load");
        assert!(
            !elsewhere
                .commands
                .iter()
                .any(|c| c.pattern.text() == "make check")
        );
        // A project file cannot grant itself anything this way.
        let forged = "[projects.\"/p\".commands]\nallow = [\"rm\"]\n";
        let p = Policy::load(
            None,
            Some(RuleText {
                path: Path::new("/p/.tandem/policy.toml"),
                text: forged,
            }),
            Path::new("/p"),
        )
        .expect("load");
        assert!(!p.commands.iter().any(|c| c.pattern.text() == "rm"));
        assert!(
            p.notes
                .iter()
                .any(|n| n.contains("belongs in your own rules")),
            "{:?}",
            p.notes
        );
        assert!(add_project_grant(start, "u.toml", Path::new("/p"), &Grant::AllowSearch).is_err());
    }

    #[test]
    fn describe_names_sources() {
        let p = Policy::load(
            Some(RuleText {
                path: Path::new("/u.toml"),
                text: "[commands]\nallow = [\"just test\"]\n",
            }),
            None,
            Path::new("/p"),
        )
        .expect("load");
        let d = p.describe();
        assert!(
            d.contains("commands.allow \"just test\"  (user file /u.toml)"),
            "{d}"
        );
        assert!(d.contains("paths.protected \".env\"  (built-in)"), "{d}");
    }
}
