//! Changing a rule file's text as the Settings screen and the approval dialog do: a rule added
//! to one list (for every project, or under `[projects."<root>"]` in the user's file), and a
//! project trusted or no longer. Comments and layout are kept (toml_edit).

use crate::rules::PolicyError;
use protocol::RuleKey;
use std::path::Path;

fn parse(text: &str, file: &str) -> Result<toml_edit::DocumentMut, PolicyError> {
    text.parse().map_err(|e: toml_edit::TomlError| {
        let (line, column) = e
            .span()
            .map(|s| crate::rules::line_col(text, s.start))
            .unwrap_or((1, 1));
        PolicyError::Parse {
            file: file.to_string(),
            line,
            column,
            message: e.message().trim().to_string(),
        }
    })
}

/// A table of `parent`, made (implicit, so `[a.b]` is written without an empty `[a]`) when
/// it is not there.
fn table<'t>(
    parent: &'t mut toml_edit::Table,
    key: &str,
    file: &str,
) -> Result<&'t mut toml_edit::Table, PolicyError> {
    parent
        .entry(key)
        .or_insert_with(|| {
            let mut t = toml_edit::Table::new();
            t.set_implicit(true);
            toml_edit::Item::Table(t)
        })
        .as_table_mut()
        .ok_or_else(|| PolicyError::Invalid {
            file: file.to_string(),
            message: format!("“{key}” is not a table"),
        })
}

/// The text with the rule `key` names added to its list (nothing changes when it is there).
pub fn add_rule(text: &str, file: &str, key: &RuleKey) -> Result<String, PolicyError> {
    let value = key.value.trim();
    if value.is_empty() {
        return Err(PolicyError::Invalid {
            file: file.to_string(),
            message: "the rule is empty; write the command, path, domain or tool it is about"
                .into(),
        });
    }
    let mut doc = parse(text, file)?;
    let mut owner = doc.as_table_mut();
    if let Some(project) = &key.project {
        owner = table(table(owner, "projects", file)?, project, file)?;
    }
    let (section, list) = key.list.path();
    let section = table(owner, section, file)?;
    section.set_implicit(false);
    let array = section
        .entry(list)
        .or_insert_with(|| toml_edit::value(toml_edit::Array::new()))
        .as_array_mut()
        .ok_or_else(|| PolicyError::Invalid {
            file: file.to_string(),
            message: format!("“{list}” is not a list"),
        })?;
    let present = array.iter().any(|v| {
        v.as_str() == Some(value)
            || v.as_inline_table()
                .and_then(|t| t.get("pattern"))
                .and_then(toml_edit::Value::as_str)
                == Some(value)
    });
    if !present {
        array.push(value);
    }
    Ok(doc.to_string())
}

/// The text with one default set (`mode`, `max_diff_lines`, `require_approval_above`), the
/// rest as it was.
pub fn set_default(
    text: &str,
    file: &str,
    setting: protocol::PolicyDefault,
) -> Result<String, PolicyError> {
    let mut doc = parse(text, file)?;
    let invalid = |message: String| PolicyError::Invalid {
        file: file.to_string(),
        message,
    };
    let (key, value) = match setting {
        protocol::PolicyDefault::Mode(mode) => ("mode", toml_edit::value(mode.name())),
        protocol::PolicyDefault::MaxDiffLines(n)
        | protocol::PolicyDefault::RequireApprovalAbove(n)
            if n == 0 =>
        {
            return Err(invalid("a number of lines must be above 0".into()));
        }
        protocol::PolicyDefault::MaxDiffLines(n) => {
            ("max_diff_lines", toml_edit::value(i64::from(n)))
        }
        protocol::PolicyDefault::RequireApprovalAbove(n) => {
            ("require_approval_above", toml_edit::value(i64::from(n)))
        }
    };
    doc.as_table_mut().insert(key, value);
    Ok(doc.to_string())
}

/// The user's rules text with `project_root` in `trusted_projects` (its own rules file may then
/// loosen the user's rules) or taken out of it.
pub fn set_trusted(
    text: &str,
    file: &str,
    project_root: &Path,
    trusted: bool,
) -> Result<String, PolicyError> {
    let mut doc = parse(text, file)?;
    let root = project_root.to_string_lossy().into_owned();
    let array = doc
        .as_table_mut()
        .entry("trusted_projects")
        .or_insert_with(|| toml_edit::value(toml_edit::Array::new()))
        .as_array_mut()
        .ok_or_else(|| PolicyError::Invalid {
            file: file.to_string(),
            message: "“trusted_projects” is not a list".into(),
        })?;
    array.retain(|v| v.as_str() != Some(root.as_str()));
    if trusted {
        array.push(root);
    }
    if array.is_empty() {
        doc.as_table_mut().remove("trusted_projects");
    }
    Ok(doc.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Policy, RuleText};
    use protocol::{RuleFileKind, RuleList};

    fn key(project: Option<&str>, list: RuleList, value: &str) -> RuleKey {
        RuleKey {
            file: RuleFileKind::User,
            project: project.map(str::to_string),
            list,
            value: value.into(),
        }
    }

    #[test]
    fn a_rule_is_added_where_it_applies_and_comments_stay() {
        let text = "# mine\nmode = \"ask\"\n";
        let text =
            add_rule(text, "u", &key(None, RuleList::CommandsDeny, "make deploy")).expect("add");
        let text = add_rule(
            &text,
            "u",
            &key(Some("/p"), RuleList::ToolsOff, "web_fetch"),
        )
        .expect("add");
        let again = add_rule(
            &text,
            "u",
            &key(Some("/p"), RuleList::ToolsOff, "web_fetch"),
        )
        .expect("add");
        assert_eq!(text, again, "a rule already there is not added twice");
        assert!(text.starts_with("# mine\n"), "{text}");
        let p = Policy::load(
            Some(RuleText {
                path: Path::new("/u.toml"),
                text: &text,
            }),
            None,
            Path::new("/p"),
        )
        .expect("load");
        assert!(p.turned_off("web_fetch").is_some(), "{text}");
        assert!(p.describe().contains("make deploy"), "{text}");
        assert!(add_rule(&text, "u", &key(None, RuleList::CommandsAllow, "  ")).is_err());
    }

    /// Issue 46, item 8: the default mode and the diff limits were settable only in TOML.
    #[test]
    fn defaults_are_set_in_the_file_and_load_with_its_comments_kept() {
        use protocol::{Mode, PolicyDefault};
        let text = "# mine\n[commands]\nallow = [\"make lint\"]\n";
        let text = set_default(text, "u", PolicyDefault::Mode(Mode::AutoEdit)).expect("mode");
        let text = set_default(&text, "u", PolicyDefault::MaxDiffLines(900)).expect("max");
        let text =
            set_default(&text, "u", PolicyDefault::RequireApprovalAbove(120)).expect("ask above");
        let text = set_default(&text, "u", PolicyDefault::MaxDiffLines(800)).expect("again");
        assert!(
            text.contains("# mine\n[commands]"),
            "the comment stays: {text}"
        );
        assert_eq!(text.matches("max_diff_lines").count(), 1, "{text}");
        let p = Policy::load(
            Some(RuleText {
                path: Path::new("/u.toml"),
                text: &text,
            }),
            None,
            Path::new("/p"),
        )
        .expect("load");
        assert_eq!(p.mode.value, Mode::AutoEdit);
        assert_eq!(p.max_diff_lines.value, 800);
        assert_eq!(p.require_approval_above.value, 120);
        assert!(p.describe().contains("make lint"), "{text}");
        assert!(set_default(&text, "u", PolicyDefault::RequireApprovalAbove(0)).is_err());
    }

    #[test]
    fn a_project_is_trusted_and_then_not() {
        let text = set_trusted("", "u", Path::new("/p"), true).expect("trust");
        assert!(text.contains("trusted_projects = [\"/p\"]"), "{text}");
        let text = set_trusted(&text, "u", Path::new("/p"), true).expect("trust");
        assert_eq!(text.matches("/p").count(), 1, "{text}");
        let text = set_trusted(&text, "u", Path::new("/p"), false).expect("untrust");
        assert!(!text.contains("trusted_projects"), "{text}");
    }
}
