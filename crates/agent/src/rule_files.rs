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
    Ok(RulesView {
        yours,
        groups: policy.groups(),
        limits: policy::hard_limits(),
        notes: policy.notes.clone(),
    })
}

/// A file's text; None when there is no such file (no rules of that kind).
fn read(path: &Path) -> std::io::Result<Option<String>> {
    // Not a named pipe's reader: one at .tandem/policy.toml would hang Settings.
    tools::read_config_text(path, 4 * 1024 * 1024)
}

/// Removes the rule `key` names from its file (the user's, or the project's at `root`). The
/// new text must still load before it replaces the old, whole or not at all.
pub fn remove_rule_from_file(
    root: &Path,
    user_file: &Path,
    key: &RuleKey,
) -> Result<(), RuleFileError> {
    let path = match key.file {
        RuleFileKind::User => user_file.to_path_buf(),
        RuleFileKind::Project => policy::project_policy_path(root),
    };
    let name = path.display().to_string();
    let text = read(&path)
        .and_then(|t| {
            t.ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "it is gone"))
        })
        .map_err(|source| RuleFileError::Read {
            path: path.clone(),
            source,
        })?;
    let updated = policy::remove_rule(&text, &name, key)?;
    let as_file = policy::RuleText {
        path: &path,
        text: &updated,
    };
    match key.file {
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
}
