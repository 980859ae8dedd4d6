//! The rule files as the Settings screen uses them: the rules for a project in words, and
//! removing one of the user's rules from its file — atomically, so a crash or a second writer
//! never leaves a half-written rule file (which would stop every session from starting).

use crate::launch::{LaunchError, load_project_policy};
use protocol::{RuleFileKind, RuleKey, RulesView};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum RuleFileError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot save {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Policy(#[from] policy::PolicyError),
}

/// The rules for the project at `root`, for people: the user's own (their file's, then the
/// project file's), the built-in ones in groups, and the limits of every mode.
pub fn rules_view(root: &Path, user_file: &Path) -> Result<RulesView, LaunchError> {
    let policy = load_project_policy(root, Some(user_file))?;
    let mut yours = Vec::new();
    for (kind, path) in [
        (RuleFileKind::User, user_file.to_path_buf()),
        (RuleFileKind::Project, policy::project_policy_path(root)),
    ] {
        let Some(text) = read(&path).map_err(|source| LaunchError::Io {
            path: path.clone(),
            source,
        })?
        else {
            continue;
        };
        let file = path.display().to_string();
        yours.extend(policy::own_rules(&text, &file, kind, root)?);
    }
    // This project's rules first, wherever they are written; then the rest in file order.
    yours.sort_by_key(|r| {
        let here = r.key.file == RuleFileKind::Project
            || r.key.project.as_deref() == Some(&*root.to_string_lossy());
        let everywhere = r.key.project.is_none();
        match (here, everywhere) {
            (true, _) => 0,
            (false, true) => 1,
            (false, false) => 2,
        }
    });
    let here = root.to_string_lossy();
    Ok(RulesView {
        yours,
        groups: policy.groups(),
        limits: policy::hard_limits(),
        notes: policy.notes.clone(),
        trusted: policy
            .trust
            .projects
            .iter()
            .any(|t| Path::new(t) == root || *t == here),
        tools: tools::TOOLS.iter().map(|t| t.name.to_string()).collect(),
        defaults: protocol::PolicyDefaults {
            mode: policy.mode.value,
            max_diff_lines: policy.max_diff_lines.value,
            require_approval_above: policy.require_approval_above.value,
        },
    })
}

/// A file's text; None when there is no such file (no rules of that kind).
fn read(path: &Path) -> std::io::Result<Option<String>> {
    // Not a named pipe's reader: one at .tandem/policy.toml would hang Settings.
    tools::read_config_text(path, 4 * 1024 * 1024)
}

/// Removes the rule `key` names from its file (the user's, or the project's at `root`).
pub fn remove_rule_from_file(
    root: &Path,
    user_file: &Path,
    key: &RuleKey,
) -> Result<(), RuleFileError> {
    edit_file(root, user_file, key.file, false, |text, name| {
        policy::remove_rule(text, name, key)
    })
}

/// Adds the rule `key` names to its file; with `replacing`, that rule (in the same file) goes
/// in the same write: a rule changed in Settings is never lost halfway, nor there twice.
pub fn add_rule_to_file(
    root: &Path,
    user_file: &Path,
    key: &RuleKey,
    replacing: Option<&RuleKey>,
) -> Result<(), RuleFileError> {
    // A tool name that names nothing turns nothing off: said, not kept. A server's tools
    // (`server__tool`) are known only once it runs, so they are taken as written.
    if key.list == protocol::RuleList::ToolsOff
        && !key.value.contains("__")
        && tools::find_tool(key.value.trim()).is_none()
    {
        return Err(RuleFileError::Policy(policy::PolicyError::Invalid {
            file: "the rule".into(),
            message: format!(
                "no tool is named “{}”; the tools are: {}",
                key.value,
                tools::TOOLS
                    .iter()
                    .map(|t| t.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }));
    }
    if let Some(old) = replacing.filter(|old| old.file != key.file) {
        // Moved between files: added first, so a failure leaves the old rule in force.
        add_rule_to_file(root, user_file, key, None)?;
        return remove_rule_from_file(root, user_file, old);
    }
    edit_file(root, user_file, key.file, true, |text, name| {
        let text = match replacing {
            Some(old) if old != key => policy::remove_rule(text, name, old)?,
            _ => text.to_string(),
        };
        policy::add_rule(&text, name, key)
    })
}

/// Trusts the project at `root` (its own rules file may loosen the user's rules), or stops.
pub fn set_project_trusted(
    root: &Path,
    user_file: &Path,
    trusted: bool,
) -> Result<(), RuleFileError> {
    edit_file(root, user_file, RuleFileKind::User, true, |text, name| {
        policy::set_trusted(text, name, root, trusted)
    })
}

/// Sets one default in the user's own rules file.
pub fn set_default_in_file(
    root: &Path,
    user_file: &Path,
    setting: protocol::PolicyDefault,
) -> Result<(), RuleFileError> {
    edit_file(root, user_file, RuleFileKind::User, true, |text, name| {
        policy::set_default(text, name, setting)
    })
}

/// Changes one rule file by `change`. The new text must still load before it replaces the
/// old, whole or not at all. `may_create`: a missing file is taken as empty.
fn edit_file(
    root: &Path,
    user_file: &Path,
    kind: RuleFileKind,
    may_create: bool,
    change: impl FnOnce(&str, &str) -> Result<String, policy::PolicyError>,
) -> Result<(), RuleFileError> {
    let path = match kind {
        RuleFileKind::User => user_file.to_path_buf(),
        RuleFileKind::Project => policy::project_policy_path(root),
    };
    let name = path.display().to_string();
    let text = read(&path)
        .and_then(|t| match t {
            Some(t) => Ok(t),
            None if may_create => Ok(String::new()),
            None => Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "it is gone",
            )),
        })
        .map_err(|source| RuleFileError::Read {
            path: path.clone(),
            source,
        })?;
    let updated = change(&text, &name)?;
    let as_file = policy::RuleText {
        path: &path,
        text: &updated,
    };
    match kind {
        RuleFileKind::User => policy::Policy::load(Some(as_file), None, root)?,
        RuleFileKind::Project => policy::Policy::load(None, Some(as_file), root)?,
    };
    // The same whole-or-nothing write as an "always allow" grant to the same file.
    crate::locations::write_atomically(&path, updated.as_bytes())
        .map_err(|source| RuleFileError::Write { path, source })
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::RuleList;

    #[test]
    fn a_rule_is_removed_from_the_users_file_and_the_view_no_longer_lists_it() {
        let config = tempfile::tempdir().expect("tempdir");
        let project = tempfile::tempdir().expect("tempdir");
        let root = project.path();
        let user_file = config.path().join("policy.toml");
        let text = format!(
            "# mine\n[projects.\"{}\".commands]\nallow = [\"make check\", \"cargo run\"]\n\n[network]\ndenied_domains = [\"example.com\"]\n",
            root.display()
        );
        std::fs::write(&user_file, &text).expect("write");
        std::fs::create_dir_all(root.join(".tandem")).expect("mkdir");
        std::fs::write(
            root.join(".tandem/policy.toml"),
            "[commands]\ndeny = [\"make deploy\"]\n",
        )
        .expect("write");

        let view = rules_view(root, &user_file).expect("view");
        let words: Vec<&str> = view.yours.iter().map(|r| r.words.as_str()).collect();
        assert_eq!(
            words,
            [
                "Run “make check” without asking",
                "Run “cargo run” without asking",
                "Never run “make deploy”",
                "Never fetch from example.com",
            ]
        );
        assert!(!view.groups.is_empty() && !view.limits.is_empty());

        let key = view.yours[0].key.clone();
        remove_rule_from_file(root, &user_file, &key).expect("remove");
        let after = std::fs::read_to_string(&user_file).expect("read");
        assert!(after.starts_with("# mine\n"), "{after}");
        assert!(!after.contains("make check"), "{after}");
        assert!(after.contains("cargo run"), "{after}");
        let view = rules_view(root, &user_file).expect("view");
        assert_eq!(view.yours.len(), 3);
        // No temporary file is left beside it.
        let left: Vec<_> = std::fs::read_dir(config.path())
            .expect("dir")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left, [std::ffi::OsString::from("policy.toml")]);

        // The project's own file too.
        let deploy = view
            .yours
            .iter()
            .find(|r| r.key.file == RuleFileKind::Project)
            .expect("project rule")
            .key
            .clone();
        remove_rule_from_file(root, &user_file, &deploy).expect("remove");
        assert!(
            !std::fs::read_to_string(root.join(".tandem/policy.toml"))
                .expect("read")
                .contains("make deploy")
        );

        // A rule already gone is an error, and the file is left as it was.
        let before = std::fs::read_to_string(&user_file).expect("read");
        let err = remove_rule_from_file(root, &user_file, &key).expect_err("gone");
        assert!(err.to_string().contains("not in this file"), "{err}");
        assert_eq!(std::fs::read_to_string(&user_file).expect("read"), before);
        let wrong = RuleKey {
            list: RuleList::CommandsDeny,
            ..key
        };
        assert!(remove_rule_from_file(root, &user_file, &wrong).is_err());
    }

    /// Issue 25: rules could only be removed in Settings, not added or changed, and a project
    /// could not be trusted there. Each is a whole-or-nothing write the next session reads.
    #[test]
    fn rules_are_added_changed_and_the_project_trusted() {
        let config = tempfile::tempdir().expect("tempdir");
        let project = tempfile::tempdir().expect("tempdir");
        let root = project.path();
        let user_file = config.path().join("policy.toml");
        let here = Some(root.display().to_string());
        let key = |project: Option<String>, list, value: &str| RuleKey {
            file: RuleFileKind::User,
            project,
            list,
            value: value.into(),
        };
        // No file yet: the first rule makes it.
        let allow = key(here.clone(), RuleList::CommandsAllow, "make check");
        add_rule_to_file(root, &user_file, &allow, None).expect("add");
        let off = key(None, RuleList::ToolsOff, "web_search");
        add_rule_to_file(root, &user_file, &off, None).expect("add");
        let view = rules_view(root, &user_file).expect("view");
        let words: Vec<&str> = view.yours.iter().map(|r| r.words.as_str()).collect();
        assert_eq!(
            words,
            [
                "Run “make check” without asking",
                "Turn off the tool “web_search” (never offered to the agent)"
            ]
        );
        assert!(view.tools.iter().any(|t| t == "web_fetch"));

        // Changed: the old rule goes as the new one comes.
        let changed = key(here.clone(), RuleList::CommandsAllow, "make test");
        add_rule_to_file(root, &user_file, &changed, Some(&allow)).expect("change");
        let text = std::fs::read_to_string(&user_file).expect("read");
        assert!(
            text.contains("make test") && !text.contains("make check"),
            "{text}"
        );
        // A tool that does not exist is refused in words.
        let typo = key(None, RuleList::ToolsOff, "web_serch");
        let err = add_rule_to_file(root, &user_file, &typo, None).expect_err("no such tool");
        assert!(
            err.to_string().contains("no tool is named “web_serch”"),
            "{err}"
        );
        // A rule that does not load is refused and the file is left as it was.
        let bad = key(None, RuleList::PathsProtected, "[unclosed");
        assert!(add_rule_to_file(root, &user_file, &bad, None).is_err());
        assert_eq!(std::fs::read_to_string(&user_file).expect("read"), text);

        assert!(!view.trusted);
        set_project_trusted(root, &user_file, true).expect("trust");
        assert!(rules_view(root, &user_file).expect("view").trusted);
        set_project_trusted(root, &user_file, false).expect("untrust");
        assert!(!rules_view(root, &user_file).expect("view").trusted);
    }

    /// Issue 46: the window starts a project in its default mode. Attack: a cloned repository
    /// whose own rules file says `mode = "full_auto"` must not start the window in Full auto
    /// (or loosen the limits) unless the person trusts it; the person's own defaults hold.
    #[test]
    fn a_cloned_projects_rules_file_cannot_loosen_the_defaults_the_window_starts_with() {
        use protocol::{Mode, PolicyDefault};
        let config = tempfile::tempdir().expect("tempdir");
        let project = tempfile::tempdir().expect("tempdir");
        let root = project.path();
        let user_file = config.path().join("policy.toml");
        std::fs::create_dir_all(root.join(".tandem")).expect("mkdir");
        std::fs::write(
            root.join(".tandem/policy.toml"),
            "mode = \"full_auto\"\nmax_diff_lines = 999999\nrequire_approval_above = 999999\n",
        )
        .expect("write");
        let d = rules_view(root, &user_file).expect("view").defaults;
        assert_eq!(
            (d.mode, d.max_diff_lines, d.require_approval_above),
            (Mode::Ask, 2000, 200)
        );
        set_default_in_file(root, &user_file, PolicyDefault::Mode(Mode::AutoEdit)).expect("mode");
        set_default_in_file(root, &user_file, PolicyDefault::MaxDiffLines(500)).expect("max");
        let d = rules_view(root, &user_file).expect("view").defaults;
        assert_eq!((d.mode, d.max_diff_lines), (Mode::AutoEdit, 500));
        // A number that cannot work is refused, the file left as it was.
        let before = std::fs::read_to_string(&user_file).expect("read");
        assert!(
            set_default_in_file(root, &user_file, PolicyDefault::RequireApprovalAbove(0)).is_err()
        );
        assert_eq!(std::fs::read_to_string(&user_file).expect("read"), before);
    }
}
