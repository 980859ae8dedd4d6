//! The rules for people: the built-in ones grouped in plain words, the user's own rules read
//! from their files (each named exactly, so one can be removed), and the limits that hold in
//! every mode. `tandem-cli policy show` keeps the exact listing ([`Policy::lines`]).

use crate::decision::Verdict;
use crate::rules::{NetworkMode, Policy, PolicyError};
use crate::source::Source;
use protocol::{OwnRule, RuleFileKind, RuleGroup, RuleGroupKind, RuleKey, RuleList};
use std::path::Path;

/// What holds whatever the mode (the hard floors in the engine's code), one sentence each.
/// Full auto's confirmation lists them, so they must stay true of `evaluate`.
pub fn hard_limits() -> Vec<String> {
    [
        "It never runs commands as the administrator (sudo, su, doas).",
        "It never reads or changes secrets: .env files, keys, SSH and cloud credentials.",
        "It never changes Tandem's rules or git's own folder (.git).",
        "It never deletes folders outside the project.",
        "It still asks before a command reaches outside the project or the sandbox, before rewriting git history (git push --force, git reset --hard) and before installing packages.",
    ]
    .map(String::from)
    .to_vec()
}

/// Known globs of the built-in rules, in words. Several globs say one thing (`.env`, `**/.env.*`
/// …); a glob not listed is shown as written.
const PATH_WORDS: &[(&str, &str)] = &[
    (".env", ".env files"),
    (".env.*", ".env files"),
    ("**/.env", ".env files"),
    ("**/.env.*", ".env files"),
    ("**/*.pem", "certificates and private keys (.pem, .key)"),
    ("**/*.key", "certificates and private keys (.pem, .key)"),
    ("**/id_rsa*", "SSH keys"),
    ("**/id_ed25519*", "SSH keys"),
    ("**/id_ecdsa*", "SSH keys"),
    ("**/id_dsa*", "SSH keys"),
    (".git/**", "git's own folder (.git)"),
    (".tandem/policy.toml", "the project's Tandem rules"),
    (
        "**/.env.example",
        "example .env files (.env.example, .env.sample, .env.template)",
    ),
    (
        "**/.env.sample",
        "example .env files (.env.example, .env.sample, .env.template)",
    ),
    (
        "**/.env.template",
        "example .env files (.env.example, .env.sample, .env.template)",
    ),
    ("**/*.pub", "public keys (.pub)"),
];

/// A path glob in words: a known one by name, a folder's contents as "files in …".
fn path_words(glob: &str) -> String {
    if let Some((_, words)) = PATH_WORDS.iter().find(|(g, _)| *g == glob) {
        return (*words).to_string();
    }
    match glob.strip_suffix("/**") {
        Some("") | None if glob == "**" => "any file in the project".into(),
        Some(dir) => format!("files in “{}”", dir.trim_start_matches("**/")),
        None => format!("“{}”", glob.trim_start_matches("**/")),
    }
}

/// A command pattern in words: a trailing `*` is "…".
fn command_words(pattern: &str) -> String {
    match pattern.strip_suffix('*') {
        Some(head) => format!("{}…", head.trim_end()),
        None => pattern.to_string(),
    }
}

/// Programs that install or update packages (their ask rules form one group).
const PACKAGE_MANAGERS: &[&str] = &[
    "npm", "pnpm", "yarn", "pip", "pip3", "uv", "poetry", "cargo", "gem", "go", "bundle",
    "composer",
];

fn push_unique(items: &mut Vec<String>, item: String) {
    if !items.contains(&item) {
        items.push(item);
    }
}

impl Policy {
    /// The built-in rules in groups of plain words. The user's and the project's own rules are
    /// listed apart ([`own_rules`]); the limits use the values in force, wherever they were set.
    pub fn groups(&self) -> Vec<RuleGroup> {
        let builtin = |s: &Source| matches!(s, Source::Builtin);
        let mut never_read = Vec::new();
        for r in self.paths.protected.iter().filter(|r| builtin(&r.source)) {
            push_unique(&mut never_read, path_words(&r.text));
        }
        never_read
            .push("credentials in your home folder (~/.ssh, ~/.aws, ~/.gnupg, ~/.kube, …)".into());
        let mut not_secret = Vec::new();
        for r in self
            .paths
            .protected_exceptions
            .iter()
            .filter(|r| builtin(&r.source))
        {
            push_unique(&mut not_secret, path_words(&r.text));
        }
        let mut never_run = vec!["sudo, su, doas (administrator commands)".to_string()];
        let (mut git, mut installs, mut system, mut allowed) = (vec![], vec![], vec![], vec![]);
        for c in self.commands.iter().filter(|c| builtin(&c.source)) {
            let words = command_words(c.pattern.text());
            let program = c.pattern.text().split_whitespace().next().unwrap_or("");
            match c.verdict {
                Verdict::Deny => push_unique(&mut never_run, words),
                Verdict::Ask if program == "git" => push_unique(&mut git, words),
                Verdict::Ask if PACKAGE_MANAGERS.contains(&program) => {
                    push_unique(&mut installs, words)
                }
                Verdict::Ask => push_unique(&mut system, words),
                Verdict::Allow => push_unique(&mut allowed, words),
            }
        }
        let web = match self.network.value {
            NetworkMode::Allow => "Web access is allowed without asking",
            NetworkMode::Ask => "Fetching from the web asks first, except from these sites",
            NetworkMode::Deny => "Web access is refused, except for these sites",
        };
        let mut web_items: Vec<String> = self
            .web
            .allowed_domains
            .iter()
            .filter(|d| builtin(&d.source))
            .map(|d| d.domain.clone())
            .collect();
        if web_items.is_empty() {
            web_items.push("no site is allowed in advance".into());
        }
        let group = |kind, title: &str, items: Vec<String>| RuleGroup {
            kind,
            title: title.to_string(),
            items,
        };
        let mut out = vec![
            group(
                RuleGroupKind::NeverRead,
                "Files Tandem never reads or changes",
                never_read,
            ),
            group(
                RuleGroupKind::NotSecret,
                "Files that look secret but may be read",
                not_secret,
            ),
            group(
                RuleGroupKind::NeverRun,
                "Commands Tandem never runs",
                never_run,
            ),
            group(
                RuleGroupKind::AlwaysAsk,
                "Git commands that rewrite or throw away work always ask first",
                git,
            ),
            group(
                RuleGroupKind::AlwaysAsk,
                "Installing or updating packages always asks first (then it may use the network)",
                installs,
            ),
            group(
                RuleGroupKind::AlwaysAsk,
                "System, service and container tools always ask first",
                system,
            ),
            group(
                RuleGroupKind::RunsWithoutAsking,
                "Checks and builds run without asking, in the sandbox",
                allowed,
            ),
            group(RuleGroupKind::Web, web, web_items),
            group(
                RuleGroupKind::Limits,
                "How much one session may change",
                vec![
                    format!(
                        "after {} changed lines, every further change asks first",
                        self.require_approval_above.value
                    ),
                    format!(
                        "past {} changed lines, changes stop until you review and commit",
                        self.max_diff_lines.value
                    ),
                ],
            ),
        ];
        out.retain(|g| !g.items.is_empty());
        out
    }
}

/// A rule in words.
fn own_words(list: RuleList, value: &str) -> String {
    match list {
        RuleList::CommandsAllow => format!("Run “{}” without asking", command_words(value)),
        RuleList::CommandsAsk => format!("Ask before running “{}”", command_words(value)),
        RuleList::CommandsDeny => format!("Never run “{}”", command_words(value)),
        RuleList::PathsProtected => format!("Never read or change {}", path_words(value)),
        RuleList::PathsProtectedExceptions => {
            format!("Let the agent read {} (not secret)", path_words(value))
        }
        RuleList::PathsAllowWrite => format!("Edit {} without asking", path_words(value)),
        RuleList::PathsAllowRead => {
            format!("Let the agent and its commands read “{value}”, outside the project")
        }
        RuleList::NetworkAllowedDomains => format!("Fetch from {value} without asking"),
        RuleList::NetworkDeniedDomains => format!("Never fetch from {value}"),
        RuleList::ToolsAllow => format!("Use the tool “{value}” without asking"),
        RuleList::ToolsOff => format!("Turn off the tool “{value}” (never offered to the agent)"),
    }
}

/// The values of one list in a parsed rule file: strings, or command tables' `pattern`.
fn list_values(table: &toml::Table, list: RuleList) -> Vec<String> {
    let (section, key) = list.path();
    let Some(items) = table
        .get(section)
        .and_then(|s| s.get(key))
        .and_then(toml::Value::as_array)
    else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|v| match v {
            toml::Value::String(s) => Some(s.clone()),
            toml::Value::Table(t) => t
                .get("pattern")
                .and_then(toml::Value::as_str)
                .map(str::to_string),
            _ => None,
        })
        .collect()
}

/// The rules written in one rule file, each in words and named exactly. The user's grants for
/// `project_root` and the project file's rules come first, then the user's rules for every
/// project, then their grants for other projects.
pub fn own_rules(
    text: &str,
    file: &str,
    kind: RuleFileKind,
    project_root: &Path,
) -> Result<Vec<OwnRule>, PolicyError> {
    let table: toml::Table = toml::from_str(text).map_err(|e| PolicyError::Parse {
        file: file.to_string(),
        line: 1,
        column: 1,
        message: e.message().trim().to_string(),
    })?;
    let rule = |project: Option<&str>, list: RuleList, value: String| {
        let (section, key) = list.path();
        let written = match project {
            Some(p) => format!("projects.\"{p}\".{section}.{key} \"{value}\""),
            None => format!("{section}.{key} \"{value}\""),
        };
        OwnRule {
            words: own_words(list, &value),
            rule: written,
            key: RuleKey {
                file: kind,
                project: project.map(str::to_string),
                list,
                value,
            },
        }
    };
    let everywhere: Vec<OwnRule> = RuleList::ALL
        .into_iter()
        .flat_map(|list| {
            list_values(&table, list)
                .into_iter()
                .map(move |v| (list, v))
        })
        .map(|(list, v)| rule(None, list, v))
        .collect();
    let (mut here, mut elsewhere) = (Vec::new(), Vec::new());
    if kind == RuleFileKind::User
        && let Some(projects) = table.get("projects").and_then(toml::Value::as_table)
    {
        let current = project_root.to_string_lossy();
        for (project, grants) in projects {
            let Some(grants) = grants.as_table() else {
                continue;
            };
            for list in RuleList::ALL {
                for v in list_values(grants, list) {
                    let r = rule(Some(project), list, v);
                    if *project == current {
                        here.push(r);
                    } else {
                        elsewhere.push(r);
                    }
                }
            }
        }
    }
    Ok(match kind {
        // The project file's rules are all this project's.
        RuleFileKind::Project => everywhere,
        RuleFileKind::User => here
            .into_iter()
            .chain(everywhere)
            .chain(elsewhere)
            .collect(),
    })
}

/// The rule file's text without the rule `key` names, formatting and comments kept. Lists
/// and tables it leaves empty go too. A rule that is not in the file is an error.
pub fn remove_rule(text: &str, file: &str, key: &RuleKey) -> Result<String, PolicyError> {
    let invalid = |message: String| PolicyError::Invalid {
        file: file.to_string(),
        message,
    };
    let mut doc: toml_edit::DocumentMut =
        text.parse()
            .map_err(|e: toml_edit::TomlError| PolicyError::Parse {
                file: file.to_string(),
                line: 1,
                column: 1,
                message: e.message().trim().to_string(),
            })?;
    let (section, list_key) = key.list.path();
    let gone = || {
        invalid(format!(
            "the rule “{}” is not in this file any more",
            key.value
        ))
    };
    let root = doc.as_table_mut();
    let owner: &mut toml_edit::Table = match &key.project {
        Some(p) => root
            .get_mut("projects")
            .and_then(|t| t.as_table_like_mut())
            .and_then(|t| t.get_mut(p))
            .and_then(toml_edit::Item::as_table_mut)
            .ok_or_else(gone)?,
        None => root,
    };
    let section_table = owner
        .get_mut(section)
        .and_then(toml_edit::Item::as_table_like_mut)
        .ok_or_else(gone)?;
    let matches = |v: &toml_edit::Value| match v {
        toml_edit::Value::String(s) => s.value() == &key.value,
        toml_edit::Value::InlineTable(t) => {
            t.get("pattern").and_then(toml_edit::Value::as_str) == Some(key.value.as_str())
        }
        _ => false,
    };
    let now_empty = match section_table.get_mut(list_key) {
        Some(toml_edit::Item::Value(toml_edit::Value::Array(array))) => {
            let i = array.iter().position(matches).ok_or_else(gone)?;
            array.remove(i);
            array.is_empty()
        }
        Some(toml_edit::Item::ArrayOfTables(tables)) => {
            let i = tables
                .iter()
                .position(|t| {
                    t.get("pattern").and_then(toml_edit::Item::as_str) == Some(key.value.as_str())
                })
                .ok_or_else(gone)?;
            tables.remove(i);
            tables.is_empty()
        }
        _ => return Err(gone()),
    };
    if now_empty {
        section_table.remove(list_key);
    }
    if section_table.is_empty() {
        owner.remove(section);
    }
    if let Some(p) = &key.project {
        let projects = doc
            .as_table_mut()
            .get_mut("projects")
            .and_then(toml_edit::Item::as_table_like_mut);
        if let Some(projects) = projects {
            if projects
                .get(p)
                .and_then(toml_edit::Item::as_table_like)
                .is_some_and(|t| t.is_empty())
            {
                projects.remove(p);
            }
            if projects.is_empty() {
                doc.as_table_mut().remove("projects");
            }
        }
    }
    Ok(doc.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RuleText;

    const USER: &str = r#"# my rules
[commands]
allow = ["just test", { pattern = "make check", match = ["make check"] }]

[paths]
allow_write = ["docs/**"]

[projects."/p".commands]
allow = ["cargo run"]

[projects."/p".network]
allowed_domains = ["docs.rs"]

[projects."/other".commands]
allow = ["npm start"]
"#;

    fn load(text: &str) -> Policy {
        Policy::load(
            Some(RuleText {
                path: Path::new("/u.toml"),
                text,
            }),
            None,
            Path::new("/p"),
        )
        .expect("load")
    }

    #[test]
    fn the_built_in_rules_read_as_a_few_groups_of_words() {
        let groups = Policy::builtin().groups();
        assert!(groups.len() <= 10, "{groups:#?}");
        let never = &groups[0];
        assert_eq!(never.title, "Files Tandem never reads or changes");
        assert_eq!(
            never.items[..3],
            [
                "git's own folder (.git)",
                ".env files",
                "certificates and private keys (.pem, .key)"
            ]
        );
        assert!(never.items.contains(&"SSH keys".to_string()));
        for g in &groups {
            for item in g.items.iter().chain([&g.title]) {
                for jargon in ["**", "paths.", "commands.", "`", "\""] {
                    assert!(!item.contains(jargon), "{jargon:?} in {item:?}");
                }
            }
        }
        let installs = groups
            .iter()
            .find(|g| g.title.starts_with("Installing"))
            .expect("installs");
        assert!(installs.items.contains(&"npm install".to_string()));
        assert!(!installs.items.contains(&"docker".to_string()));
        let never_run = groups
            .iter()
            .find(|g| g.kind == RuleGroupKind::NeverRun)
            .expect("never run");
        assert!(
            never_run.items.contains(&"mkfs…".to_string()),
            "{never_run:?}"
        );
    }

    #[test]
    fn the_users_rules_list_this_projects_first_in_words_and_leave_the_groups() {
        let rules = own_rules(USER, "/u.toml", RuleFileKind::User, Path::new("/p")).expect("read");
        let words: Vec<&str> = rules.iter().map(|r| r.words.as_str()).collect();
        assert_eq!(
            words,
            [
                "Run “cargo run” without asking",
                "Fetch from docs.rs without asking",
                "Run “just test” without asking",
                "Run “make check” without asking",
                "Edit files in “docs” without asking",
                "Run “npm start” without asking",
            ]
        );
        assert_eq!(rules[0].key.project.as_deref(), Some("/p"));
        assert_eq!(rules[2].key.project, None);
        assert_eq!(rules[5].key.project.as_deref(), Some("/other"));
        assert_eq!(
            rules[0].rule,
            "projects.\"/p\".commands.allow \"cargo run\""
        );
        // The groups are the built-in rules only: the user's are listed apart.
        let groups = load(USER).groups();
        assert!(
            !groups
                .iter()
                .any(|g| g.items.iter().any(|i| i.contains("just test")))
        );
    }

    #[test]
    fn removing_a_rule_takes_exactly_that_one_and_keeps_the_rest_of_the_file() {
        let key = |project: Option<&str>, list, value: &str| RuleKey {
            file: RuleFileKind::User,
            project: project.map(str::to_string),
            list,
            value: value.into(),
        };
        let text = remove_rule(
            USER,
            "/u.toml",
            &key(Some("/p"), RuleList::CommandsAllow, "cargo run"),
        )
        .expect("remove");
        assert!(text.starts_with("# my rules\n"), "{text}");
        assert!(!text.contains("cargo run"), "{text}");
        assert!(!text.contains("[projects.\"/p\".commands]"), "{text}");
        assert!(text.contains("docs.rs"), "{text}");
        assert!(text.contains("npm start"), "{text}");
        let p = load(&text);
        assert!(!p.commands.iter().any(|c| c.pattern.text() == "cargo run"));
        assert!(p.commands.iter().any(|c| c.pattern.text() == "just test"));

        // A table with examples goes by its pattern.
        let text = remove_rule(
            &text,
            "/u.toml",
            &key(None, RuleList::CommandsAllow, "make check"),
        )
        .expect("remove");
        assert!(!text.contains("make check"), "{text}");
        assert!(text.contains("allow = [\"just test\"]"), "{text}");

        // The last grant of a project takes its table with it.
        let text = remove_rule(
            &text,
            "/u.toml",
            &key(Some("/p"), RuleList::NetworkAllowedDomains, "docs.rs"),
        )
        .expect("remove");
        assert!(!text.contains("\"/p\""), "{text}");
        assert!(text.contains("[projects.\"/other\".commands]"), "{text}");

        // Twice is an error that says so, and leaves nothing half-done.
        let err = remove_rule(
            &text,
            "/u.toml",
            &key(Some("/p"), RuleList::NetworkAllowedDomains, "docs.rs"),
        )
        .expect_err("gone");
        assert!(err.to_string().contains("not in this file"), "{err}");
        let err = remove_rule(
            &text,
            "/u.toml",
            &key(None, RuleList::CommandsDeny, "just test"),
        )
        .expect_err("wrong list");
        assert!(err.to_string().contains("not in this file"), "{err}");
    }

    #[test]
    fn the_hard_limits_hold_in_full_auto() {
        use crate::{Context, ToolCall, evaluate};
        let policy = Policy::builtin();
        let root = Path::new("/p");
        let mut ctx = Context::new(root);
        ctx.mode = Some(crate::Mode::FullAuto);
        ctx.sandboxed = true;
        for (command, limit) in [
            ("sudo rm -rf build", 0),
            ("cat .env", 1),
            ("rm -rf /etc/nginx", 3),
        ] {
            let d = evaluate(&policy, &ToolCall::Command { command }, &ctx);
            assert_eq!(d.decision, Verdict::Deny, "{command}: {}", d.reason);
            assert!(hard_limits()[limit].starts_with("It never"), "{limit}");
        }
        for path in [".tandem/policy.toml", ".git/config"] {
            let d = evaluate(
                &policy,
                &ToolCall::Write {
                    path,
                    diff_lines: 1,
                },
                &ctx,
            );
            assert_eq!(d.decision, Verdict::Deny, "{path}: {}", d.reason);
        }
        let d = evaluate(
            &policy,
            &ToolCall::Command {
                command: "git push --force",
            },
            &ctx,
        );
        assert_eq!(d.decision, Verdict::Ask, "{}", d.reason);
    }
}
