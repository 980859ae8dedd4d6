//! The files a command touches: the paths it names, reads, writes, deletes and searches, each
//! resolved from the folder the command runs in, the way the kernel walks it (`escape/..` is
//! the folder above where `escape` leads, not the project), through the links the command
//! makes itself, and judged against the floors and the sandbox's edges.

use crate::command::{At, Judge, is_sink};
use crate::decision::{Finding, Verdict};
use crate::expand::component_matches;
use crate::mode::Mode;
use crate::paths::{
    Access, HOME_ONLY_SECRETS, HOME_SECRETS, SECRET_NAMES, is_secret, is_startup_location,
    protections, read_outside,
};
use crate::private_tmp;
use crate::searches::Scope;
use crate::shell::Word;
use crate::suggest;
use std::path::{Path, PathBuf};

/// A path as the command names it, resolved.
pub struct Resolved {
    /// Where the kernel ends up.
    pub real: PathBuf,
    /// The path with `.` and `..` removed by name, the way it reads.
    pub lexical: PathBuf,
    /// A `..` climbs out of a link, so the path leads somewhere other than it reads.
    pub climbs_link: bool,
}

/// Stand-in for "any name" in the example paths built from protected globs.
const ANY: &str = "\u{1}";

impl Judge<'_> {
    /// Resolves a path from the folder the command runs in. `None` when only the shell can say
    /// (`~user/x`, a relative path where the folder is unknown).
    pub fn resolve(&self, path: &str, at: &At) -> Option<Resolved> {
        let p = if path == "~" || path.starts_with("~/") {
            self.ctx
                .home?
                .join(path.trim_start_matches('~').trim_start_matches('/'))
        } else if path.starts_with('~') {
            return None;
        } else if Path::new(path).is_absolute() {
            PathBuf::from(path)
        } else {
            at.cwd.as_ref()?.join(path)
        };
        let p = self.through_links(&p, at)?;
        let walked = crate::call::walk(self.ctx.resolver, &p);
        Some(Resolved {
            real: walked.real,
            lexical: walked.lexical,
            climbs_link: walked.climbed_link.is_some(),
        })
    }

    /// A path that starts with a link this command line makes leads where the link points.
    fn through_links(&self, p: &Path, at: &At) -> Option<PathBuf> {
        let lexical = crate::call::normalize(p);
        for (link, target) in &self.writes.links {
            if let Ok(rest) = lexical.strip_prefix(link) {
                let target = match target {
                    Word::Literal(t) => t.clone(),
                    Word::Glob(_) => return None,
                    Word::Dynamic(raw) => self.guess(raw, at)?,
                };
                let base = if target == "~" || target.starts_with("~/") {
                    self.ctx
                        .home?
                        .join(target.trim_start_matches('~').trim_start_matches('/'))
                } else if target.starts_with('/') {
                    PathBuf::from(target)
                } else {
                    link.parent()?.join(target)
                };
                return Some(base.join(rest));
            }
        }
        Some(p.to_path_buf())
    }

    fn shown(&self, abs: &Path) -> String {
        self.ctx
            .relative(abs)
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| abs.display().to_string())
    }

    /// An argument of any program: it counts when it names a secret, a protected path or a
    /// place outside the project (a pattern, when it can expand to one).
    pub fn mention_word(&mut self, w: &Word, at: &At) {
        match w {
            Word::Literal(a) => {
                for c in path_candidates(a) {
                    self.mention(c, at);
                }
            }
            Word::Glob(pattern) => {
                let pattern = pattern.clone();
                for c in path_candidates(&pattern) {
                    self.pattern(c, at, Access::Read);
                    self.mention(c, at);
                }
            }
            Word::Dynamic(raw) => {
                // What it probably is: only a secret or a protected path counts (`echo $HOME`
                // names the home folder without reading anything).
                if let Some(g) = self.guess(raw, at) {
                    let mark = self.mark();
                    for c in path_candidates(&g) {
                        self.mention(c, at);
                    }
                    self.keep_refusals_from(mark);
                }
            }
        }
    }

    /// A word that may be a path: secrets and protected paths refuse, outside asks.
    pub fn mention(&mut self, path: &str, at: &At) {
        if path.is_empty() || path.contains("://") || is_device(path) {
            return;
        }
        let Some(r) = self.resolve(path, at) else {
            // Where it is is unknown, but some names are secret wherever they are.
            if is_secret(Path::new(path)) {
                self.deny(
                    format!("“{path}” names a file that holds secrets (built-in rule)"),
                    "secrets",
                );
            }
            return;
        };
        if private_tmp::contains(&r.real) {
            return;
        }
        let found = protections(self.policy, self.ctx, &r.real, Access::Read);
        self.out_extend(found.into_iter().filter(|f| f.verdict == Verdict::Deny));
        if r.climbs_link {
            self.climbs(path);
            return;
        }
        if self.ctx.relative(&r.real).is_none() {
            let name = r.real.display().to_string();
            let f = read_outside(self.policy, self.ctx, &r.real, &name);
            if f.verdict == Verdict::Ask {
                self.push(
                    Finding::floor(
                        Verdict::Ask,
                        format!("the command names “{name}”, outside the project folder; reaching outside needs your approval (built-in rule)"),
                        "outside the project",
                    )
                    .with_suggestions(suggest::read(&r.real))
                    .reading(&r.real),
                );
            } else {
                self.push(f.reading(&r.real));
            }
        }
    }

    fn climbs(&mut self, path: &str) {
        self.deny(
            format!("“{path}” climbs out of a link with “..”, so it leads somewhere other than it reads (built-in rule)"),
            "path through a link",
        );
    }

    fn out_extend(&mut self, it: impl IntoIterator<Item = Finding>) {
        for f in it {
            self.push(f);
        }
    }

    /// A file the command certainly reads (`< file`, a script it runs).
    pub fn read(&mut self, target: &Word, at: &At) {
        match target {
            Word::Literal(p) if is_sink(p) || is_device(p) => {}
            Word::Literal(p) => {
                let Some(r) = self.resolve(p, at) else {
                    self.ask(
                        format!("“{p}” is a path only the shell can resolve"),
                        "unresolvable path",
                    );
                    return;
                };
                if private_tmp::contains(&r.real) {
                    return;
                }
                let found = protections(self.policy, self.ctx, &r.real, Access::Read);
                self.out_extend(found);
                if r.climbs_link {
                    self.climbs(p);
                } else if self.ctx.relative(&r.real).is_none() {
                    let name = r.real.display().to_string();
                    let f = read_outside(self.policy, self.ctx, &r.real, &name);
                    self.push(f.reading(&r.real));
                }
            }
            Word::Glob(p) => {
                let p = p.clone();
                self.pattern(&p, at, Access::Read);
                self.mention(&p, at);
            }
            Word::Dynamic(raw) if self.private_tmp_word(raw, at) => {}
            Word::Dynamic(raw) => {
                self.ask(
                    format!("the command reads “{raw}”, a file only known when it runs"),
                    "computed redirect",
                );
                if let Some(g) = self.guess(raw, at) {
                    self.mention(&g, at);
                }
            }
        }
    }

    /// A file the command writes (a redirect, an output option, a copy's destination).
    pub fn write(&mut self, target: &Word, at: &At, who: &str) {
        match target {
            Word::Literal(p) if is_sink(p) => {}
            Word::Literal(p) => {
                let p = p.clone();
                self.write_path(&p, at);
            }
            Word::Glob(p) => {
                let p = p.clone();
                self.writes.elsewhere += 1;
                self.ask(
                    format!("“{who}” changes “{p}”, which names files only known when it runs"),
                    "computed path",
                );
                self.pattern(&p, at, Access::Write);
            }
            Word::Dynamic(raw) if self.private_tmp_word(raw, at) => {
                self.private_tmp_write(format!(
                    "“{who}” writes “{}” in the private temporary folder",
                    raw.trim_matches('"')
                ));
            }
            Word::Dynamic(raw) => {
                self.writes.elsewhere += 1;
                self.ask(
                    format!("“{who}” writes “{raw}”, a file only known when it runs"),
                    "computed path",
                );
                if let Some(g) = self.guess(raw, at) {
                    // What it would be: only a refusal counts, the rest asks above anyway.
                    let before = self.mark();
                    self.write_path(&g, at);
                    self.keep_refusals_from(before);
                }
            }
        }
    }

    /// A literal path the command writes.
    pub fn write_path(&mut self, p: &str, at: &At) {
        let Some(r) = self.resolve(p, at) else {
            self.ask(
                format!("“{p}” is a path only the shell can resolve"),
                "unresolvable path",
            );
            return;
        };
        if private_tmp::contains(&r.real) {
            self.private_tmp_write(format!(
                "the command writes “{p}” in the private temporary folder"
            ));
            return;
        }
        self.writes.elsewhere += 1;
        self.writes.paths.push(r.lexical.clone());
        let found = protections(self.policy, self.ctx, &r.real, Access::Write);
        self.out_extend(found);
        if r.climbs_link {
            self.climbs(p);
            return;
        }
        match self.ctx.relative(&r.real) {
            Some(rel) => {
                if rel == ".tandem" || rel.starts_with(".tandem/") {
                    self.push(
                        Finding::floor(
                            Verdict::Ask,
                            format!("the sandbox keeps “{rel}” read-only, so this command would have to run outside it"),
                            "sandbox read-only path",
                        )
                        .leaving_sandbox(),
                    );
                }
                let f = self.write_by_mode(&rel);
                self.push(f);
            }
            None => self.write_outside(p, &r),
        }
    }

    fn write_outside(&mut self, p: &str, r: &Resolved) {
        let name = r.real.display().to_string();
        if self.ctx.relative(&r.lexical).is_some() {
            self.deny(
                format!(
                    "“{p}” leads outside the project through a link, to “{name}” (built-in rule)"
                ),
                "write through a link",
            );
        } else if is_startup_location(&r.real, self.ctx.home) {
            self.deny(
                format!("“{name}” decides how this machine or your shell starts programs; the agent may not change it (built-in rule)"),
                "startup files",
            );
        } else {
            self.push(
                Finding::floor(
                    Verdict::Ask,
                    format!("this command writes “{name}”, outside the project, so it would have to run outside the sandbox"),
                    "write outside the project",
                )
                .leaving_sandbox(),
            );
        }
    }

    /// Whether a computed word is a path in the private temporary folder.
    pub fn private_tmp_word(&self, raw: &str, at: &At) -> bool {
        self.guess(raw, at)
            .and_then(|g| self.resolve(&g, at))
            .is_some_and(|r| private_tmp::contains(&r.real) && !r.climbs_link)
    }

    /// Whether a redirect's target is in the private temporary folder.
    pub fn in_private_tmp(&self, target: &Word, at: &At) -> bool {
        match target {
            Word::Literal(p) => self
                .resolve(p, at)
                .is_some_and(|r| private_tmp::contains(&r.real)),
            Word::Dynamic(raw) => self.private_tmp_word(raw, at),
            Word::Glob(_) => false,
        }
    }

    /// A write or delete in the private temporary folder (`what` says which, in words): in
    /// the sandbox it touches nothing of the user's, so it is judged like an edit inside the
    /// project, which the sandbox confines alike.
    pub fn private_tmp_write(&mut self, what: String) {
        self.writes.in_tmp += 1;
        let f = match self.mode {
            Mode::ReadOnly => Finding::floor(
                Verdict::Deny,
                format!("{what}, and nothing changes in Read only mode"),
                "read_only mode",
            ),
            Mode::Ask => Finding::floor(
                Verdict::Ask,
                format!("{what}: in Ask mode, changes need your approval"),
                "ask mode",
            ),
            mode => Finding::floor(
                Verdict::Allow,
                format!("{what}, a folder for scratch files the sandbox keeps apart from your files; {} mode allows that", mode.label()),
                "private temporary folder",
            )
            .with_specificity(2),
        };
        self.push(f);
    }

    /// A command writing a file inside the project, judged like an edit.
    pub fn write_by_mode(&self, rel: &str) -> Finding {
        match self.mode {
            Mode::ReadOnly => Finding::floor(
                Verdict::Deny,
                format!("the command would write “{rel}”, and nothing changes in Read only mode"),
                "read_only mode",
            ),
            Mode::Ask => Finding::floor(
                Verdict::Ask,
                format!("the command writes “{rel}”"),
                "ask mode",
            )
            .with_suggestions(suggest::write(rel)),
            // Outside the sandbox a shell's write follows links wherever they lead, so it is not
            // the edit the write tool makes.
            Mode::FullAuto if !self.sandboxed() => Finding::floor(
                Verdict::Ask,
                format!(
                    "the command writes “{rel}”: {}",
                    crate::command::NOT_SANDBOXED
                ),
                "not sandboxed",
            ),
            Mode::AutoEdit if !self.sandboxed() => Finding::floor(
                Verdict::Ask,
                format!("the command writes “{rel}”: in Auto edit mode, commands ask first"),
                "auto_edit mode",
            ),
            mode => Finding::floor(
                Verdict::Allow,
                format!("{mode} mode allows edits inside the project"),
                "mode",
            ),
        }
    }

    /// A recursive delete (or recursive change of permissions): a floor outside the project
    /// and for whatever holds a policy file, a question for the project folder itself.
    pub fn delete_tree(&mut self, what: &str, targets: &[&Word], at: &At) {
        for word in targets {
            let text = word.shown().to_string();
            let base = match word {
                Word::Literal(t) => Some(t.clone()),
                // A pattern's fixed part says where it reaches: `/*` is the root, `src/*` is inside.
                Word::Glob(t) => {
                    let cut = t.find(['*', '?', '[']).unwrap_or(t.len());
                    let prefix = &t[..cut];
                    Some(match prefix.rfind('/') {
                        Some(0) => "/".to_string(),
                        Some(i) => prefix[..i].to_string(),
                        None => ".".to_string(),
                    })
                }
                Word::Dynamic(raw) => self.guess(raw, at),
            };
            let resolved = base.as_deref().and_then(|b| self.resolve(b, at));
            let dynamic = matches!(word, Word::Dynamic(_));
            if let Some(r) = &resolved
                && private_tmp::contains(&r.real)
            {
                // `"$d/x"` is `/x` when the `mktemp` that set `$d` failed.
                if (dynamic && private_tmp::below_var(&r.real)) || r.climbs_link {
                    self.writes.elsewhere += 1;
                    self.ask(
                        format!(
                            "“{what}” deletes “{text}”, which is only known when the command runs"
                        ),
                        "recursive delete",
                    );
                } else {
                    self.private_tmp_write(format!(
                        "“{what}” deletes “{}” in the private temporary folder",
                        text.trim_matches('"')
                    ));
                }
                continue;
            }
            self.writes.elsewhere += 1;
            let Some(r) = resolved else {
                self.ask(
                    format!("“{what}” deletes “{text}”, which is only known when the command runs"),
                    "recursive delete",
                );
                continue;
            };
            if dynamic {
                self.ask(
                    format!("“{what}” deletes “{text}”, which is only known when the command runs"),
                    "recursive delete",
                );
            }
            if r.climbs_link {
                self.climbs(&text);
                continue;
            }
            match self.ctx.relative(&r.real) {
                None => self.deny(
                    format!("“{what}” would delete or change “{}” and everything in it, outside the project folder (built-in rule)", r.real.display()),
                    "recursive delete outside the project",
                ),
                Some(rel) if rel.is_empty() => self.ask(
                    format!("“{what}” would delete or change the whole project folder"),
                    "recursive delete of the project",
                ),
                Some(rel) => {
                    if dynamic {
                        continue;
                    }
                    let found = protections(self.policy, self.ctx, &r.real, Access::Write);
                    self.out_extend(found);
                    self.holds_protected(what, &r.real, &rel);
                    let f = self.write_by_mode(&rel);
                    self.push(f);
                }
            }
        }
    }

    /// Deleting or moving a folder takes what is in it: a policy file or a protected path inside
    /// counts as touched.
    pub fn holds_protected(&mut self, what: &str, abs: &Path, rel: &str) {
        let policy_files = [
            Some(self.ctx.project_root.join(".tandem/policy.toml")),
            self.ctx.user_policy_file.map(Path::to_path_buf),
        ];
        for file in policy_files.into_iter().flatten() {
            if file.starts_with(abs) && file != abs {
                self.deny(
                    format!("“{what}” would take “{}” with “{rel}”: it is a policy file, and only you can change the rules (built-in rule)", self.shown(&file)),
                    "policy file",
                );
            }
        }
        for rule in &self.policy.paths.protected {
            let prefix = fixed_prefix(&rule.text);
            if !prefix.is_empty()
                && Path::new(&prefix).starts_with(rel)
                && Path::new(&prefix) != Path::new(rel)
            {
                self.push(Finding::new(
                    Verdict::Deny,
                    format!(
                        "“{what}” would take “{prefix}” with “{rel}”, a protected path ({})",
                        rule.source.label()
                    ),
                    format!("paths.protected \"{}\"", rule.text),
                    rule.source.clone(),
                ));
                break;
            }
        }
    }

    /// A recursive read of everything under `root` (`grep -r`, `rg`, `tar c`, `find -exec cat`).
    /// It asks when the tree holds a protected path the sandbox does not hide (`.git/`, the
    /// policy file), and, without the sandbox, because it can print secret files — unless the
    /// search only opens files whose names cannot be secret (`rg -t rust`).
    pub fn reach(&mut self, what: &str, root: &Word, at: &At, scope: Scope) {
        let text = match root {
            Word::Literal(t) | Word::Glob(t) => t.clone(),
            Word::Dynamic(raw) => match self.guess(raw, at) {
                Some(g) => g,
                None => {
                    self.ask(
                        format!("“{what}” reads everything under “{raw}”, a folder only known when it runs"),
                        "recursive read",
                    );
                    return;
                }
            },
        };
        let Some(r) = self.resolve(&text, at) else {
            self.ask(
                format!(
                    "“{what}” reads everything under “{text}”, a folder only known when it runs"
                ),
                "recursive read",
            );
            return;
        };
        let Some(rel) = self.ctx.relative(&r.real) else {
            // Outside the project: the argument's own mention asks.
            return;
        };
        if scope.names_safe {
            // It opens only files whose names no protected or secret file has.
            return;
        }
        if let Some(inside) = self.protected_under(&rel, scope.skips_hidden) {
            self.ask(
                format!("“{what}” reads everything under “{}”, which includes “{inside}”, a protected path", if rel.is_empty() { "." } else { &rel }),
                "recursive read",
            );
            return;
        }
        if !self.sandboxed() {
            self.ask(
                format!(
                    "without the sandbox, “{what}” can read secret files under “{}” such as “.env”",
                    if rel.is_empty() { "." } else { &rel }
                ),
                "recursive read",
            );
        }
    }

    /// A protected path the sandbox does not hide that lies under the tree at `rel`.
    pub(crate) fn protected_under(&self, rel: &str, skips_hidden: bool) -> Option<String> {
        let root = Path::new(rel);
        let mut fixed: Vec<String> = vec![".tandem/policy.toml".into()];
        for rule in &self.policy.paths.protected {
            let prefix = fixed_prefix(&rule.text);
            if prefix.is_empty() {
                // `**/x`: anywhere; the sandbox hides it when it is a secret.
                let example = rule.text.replace("**", "a").replace(['*', '?'], "x");
                if !is_secret(Path::new(&example)) {
                    return Some(rule.text.clone());
                }
                continue;
            }
            fixed.push(prefix);
        }
        // A search that skips hidden names never opens `.git/` or `.tandem/` below its root.
        let hidden = |p: &str| {
            Path::new(p).strip_prefix(root).is_ok_and(|below| {
                below
                    .components()
                    .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
            })
        };
        fixed.into_iter().find(|p| {
            (Path::new(p).starts_with(root) && !(skips_hidden && hidden(p))) || root.starts_with(p)
        })
    }

    /// A file name pattern the command passes on: if it can expand to a protected name it counts
    /// as naming it — refused when it can name a protected file by its exact name (`.en*` is
    /// `.env`), a question when only some name of a protected kind (`*` may be `x.pem`).
    pub fn pattern(&mut self, pattern: &str, at: &At, access: Access) {
        let abs = if let Some(rest) = pattern.strip_prefix("~/") {
            match self.ctx.home {
                Some(h) => h.join(rest),
                None => return,
            }
        } else if pattern.starts_with('/') {
            PathBuf::from(pattern)
        } else {
            match &at.cwd {
                Some(c) => c.join(pattern),
                None => return,
            }
        };
        let abs = crate::call::normalize(&abs);
        if private_tmp::contains(&abs) {
            return;
        }
        let parts: Vec<String> = abs
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let Some(k) = parts.iter().position(|p| p.contains(['*', '?', '['])) else {
            return;
        };
        for example in self.examples() {
            if let Some(candidate) = fit(&parts, k, &example) {
                let path: PathBuf = candidate.iter().collect();
                let secret = is_secret(&path);
                // `*` never expands to `.env`, but to `credentials.json` it may: a pattern in the
                // name of a secret not hidden by its dot only happens to name it.
                let by_chance =
                    secret && k + 1 == candidate.len() && !candidate[k].starts_with('.');
                let exact = !by_chance && !candidate.iter().any(|c| c.contains(ANY));
                // The sandbox hides secret files: a pattern that may only happen to name one
                // (`*` and `x.pem`) finds nothing there.
                if !exact && self.sandboxed() && secret {
                    continue;
                }
                let shown = self.shown(&path).replace(ANY, "…");
                let found = protections(self.policy, self.ctx, &path, access);
                let mut hit = false;
                for f in found.into_iter().filter(|f| f.verdict == Verdict::Deny) {
                    hit = true;
                    self.push(Finding {
                        verdict: if exact { Verdict::Deny } else { Verdict::Ask },
                        reason: format!("“{pattern}” can expand to “{shown}”: {}", f.reason),
                        ..f
                    });
                }
                if hit && exact {
                    return;
                }
            }
        }
    }

    /// Example paths of every protected kind, as components (`ANY` for any name), each with
    /// where it is anchored (`None`: at any depth).
    fn examples(&self) -> Vec<Example> {
        let mut v = Vec::new();
        let mut add = |text: &str, anchor: Option<PathBuf>| {
            if text.contains(['[', '{']) {
                return;
            }
            let (anywhere, body) = match text.strip_prefix("**/") {
                Some(b) => (true, b),
                None => (false, text.trim_start_matches('/')),
            };
            let parts: Vec<String> = body
                .split('/')
                .map(|c| {
                    if c == "**" {
                        ANY.to_string()
                    } else {
                        c.replace(['*', '?'], ANY)
                    }
                })
                .collect();
            v.push(Example {
                parts,
                anchor: if anywhere { None } else { anchor.clone() },
                open_end: body.ends_with("/**"),
            });
        };
        for g in SECRET_NAMES {
            add(g, None);
        }
        for h in HOME_SECRETS {
            if HOME_ONLY_SECRETS.contains(h) {
                if let Some(home) = self.ctx.home {
                    add(&format!("{h}/**"), Some(home.to_path_buf()));
                    add(h, Some(home.to_path_buf()));
                }
                continue;
            }
            add(&format!("**/{h}/**"), None);
            add(&format!("**/{h}"), None);
        }
        let root = self.ctx.project_root.to_path_buf();
        for rule in &self.policy.paths.protected {
            add(&rule.text, Some(root.clone()));
        }
        add(".tandem/policy.toml", Some(root));
        v
    }
}

/// An example path built from a protected glob.
struct Example {
    parts: Vec<String>,
    /// The folder it is relative to; `None` when it can be at any depth.
    anchor: Option<PathBuf>,
    /// It ends in `/**`: any depth below.
    open_end: bool,
}

/// Places an example where a pattern's components (from `k` on) could match it; the path it
/// would be, when they do.
fn fit(parts: &[String], k: usize, ex: &Example) -> Option<Vec<String>> {
    let n = parts.len();
    let candidate: Vec<String> = match &ex.anchor {
        Some(anchor) => {
            let mut c: Vec<String> = anchor
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            c.extend(ex.parts.iter().cloned());
            while ex.open_end && c.len() < n {
                c.push(ANY.to_string());
            }
            c
        }
        None => {
            if ex.parts.len() > n {
                return None;
            }
            // Before the example: the pattern's fixed folders, then any names.
            let lead = n - ex.parts.len();
            let mut c: Vec<String> = (0..lead)
                .map(|i| {
                    if i < k {
                        parts[i].clone()
                    } else {
                        ANY.to_string()
                    }
                })
                .collect();
            c.extend(ex.parts.iter().cloned());
            c
        }
    };
    if candidate.len() != n {
        return None;
    }
    let ok = (0..n).all(|i| {
        let (p, c) = (&parts[i], &candidate[i]);
        if i < k {
            // A fixed folder of the pattern: the example must agree (any name does).
            p == c || c == ANY
        } else if c.contains(ANY) {
            // The example says "any name like this": the pattern must be able to make one.
            let probe = c.replace(ANY, "x");
            component_matches(p, &probe) || component_matches(p, &c.replace(ANY, ""))
        } else {
            component_matches(p, c)
        }
    });
    ok.then_some(candidate)
}

/// The part of a glob before its first pattern character, up to the last `/` before it.
fn fixed_prefix(glob: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for part in glob.trim_start_matches("./").split('/') {
        if part.contains(['*', '?', '[', '{']) {
            break;
        }
        out.push(part);
    }
    out.join("/")
}

/// Files under `/dev` and `/proc` a command may name without reaching anything.
fn is_device(path: &str) -> bool {
    matches!(
        path,
        "/dev/null"
            | "/dev/stdout"
            | "/dev/stderr"
            | "/dev/stdin"
            | "/dev/tty"
            | "/dev/zero"
            | "/dev/urandom"
            | "/dev/random"
            | "-"
    )
}

/// Arguments that might be paths: the whole word, the value of `--opt=value` / `if=x`, and
/// curl's `@file` (upload a file's contents).
pub fn path_candidates(arg: &str) -> Vec<&str> {
    let mut v = Vec::new();
    if !arg.starts_with('-') {
        v.push(arg);
    }
    if let Some((_, value)) = arg.split_once('=')
        && !value.is_empty()
    {
        v.push(value);
    }
    let uploads: Vec<&str> = v
        .iter()
        .filter_map(|c| c.strip_prefix('@'))
        .filter(|c| !c.is_empty())
        .collect();
    v.extend(uploads);
    v
}
