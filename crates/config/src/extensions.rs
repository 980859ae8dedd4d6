//! What a session may use beyond the registry: the skills found for its project (those the
//! user has not turned off) and the project's MCP servers. Loading, listing and turning skills
//! on and off live here, for the window and `tandem-cli` alike.

use crate::settings::{Settings, SettingsError};
use protocol::{ExtensionOrigin, SkillsView};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tools::{ProjectRoot, SkillSet};

/// A session's outside tools. Clones share the same skills and servers.
#[derive(Clone, Default)]
pub struct Extensions {
    /// The skills that may activate (the user's turned-off ones left out).
    pub skills: Arc<SkillSet>,
    /// The project's MCP servers, started or starting.
    pub mcp: Option<Arc<mcp::Hub>>,
}

impl Extensions {
    /// Nothing beyond the registry.
    pub fn none() -> Extensions {
        Extensions::default()
    }
}

/// What a session of this project uses: the skills not turned off in `settings`, and the
/// project's MCP servers — started now, in the background (a project's own only once the user
/// approved them). Call it inside the async runtime.
pub fn project_extensions(
    root: &ProjectRoot,
    config_dir: &Path,
    settings: &Settings,
) -> Extensions {
    let skills = Arc::new(session_skills(root, config_dir, settings));
    let hub = crate::mcp_launch::mcp_hub(
        root,
        config_dir,
        crate::mcp_launch::machine_sandbox(root.path()),
        mcp::Timing::default(),
    );
    hub.start();
    Extensions {
        skills,
        mcp: Some(hub),
    }
}

/// Where the user keeps their own skills: `skills/` in the config folder.
pub fn user_skills_dir(config_dir: &Path) -> PathBuf {
    config_dir.join(tools::USER_SKILLS_DIR)
}

/// Every skill of the project and the user, turned off or not, and the broken ones.
pub fn find_skills(root: &ProjectRoot, config_dir: &Path) -> SkillSet {
    let root = root.clone().hiding_secrets(policy::is_secret);
    SkillSet::discover(&root, Some(&user_skills_dir(config_dir)))
}

/// The skills a session may activate: the ones found, less those turned off in settings.
pub fn session_skills(root: &ProjectRoot, config_dir: &Path, settings: &Settings) -> SkillSet {
    find_skills(root, config_dir).without(&settings.skills.disabled)
}

/// The skills as Settings and `tandem-cli skills` list them.
pub fn skills_view(root: &ProjectRoot, config_dir: &Path, settings: &Settings) -> SkillsView {
    let set = find_skills(root, config_dir);
    SkillsView {
        skills: set
            .skills
            .iter()
            .map(|s| s.view(!settings.skills.disabled.contains(&s.name)))
            .collect(),
        problems: set.problems,
        project_dir: root
            .path()
            .join(tools::PROJECT_SKILLS_DIR)
            .display()
            .to_string(),
        user_dir: user_skills_dir(config_dir).display().to_string(),
    }
}

/// The settings with one skill turned on or off (the caller writes them).
pub fn with_skill_enabled(mut settings: Settings, name: &str, enabled: bool) -> Settings {
    settings.skills.disabled.retain(|n| n != name);
    if !enabled {
        settings.skills.disabled.push(name.to_string());
        settings.skills.disabled.sort();
    }
    settings
}

/// Reads settings.toml (absent: the defaults) to turn one skill on or off, and writes it back
/// whole or not at all.
pub fn set_skill_enabled(
    settings_file: &Path,
    name: &str,
    enabled: bool,
) -> Result<(), SkillSettingError> {
    let settings = match std::fs::read_to_string(settings_file) {
        Ok(text) => Settings::parse(&settings_file.display().to_string(), &text)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Settings::default(),
        Err(source) => {
            return Err(SkillSettingError::Io {
                file: settings_file.to_path_buf(),
                source,
            });
        }
    };
    let settings = with_skill_enabled(settings, name, enabled);
    crate::locations::write_atomically(settings_file, settings.to_toml().as_bytes()).map_err(
        |source| SkillSettingError::Io {
            file: settings_file.to_path_buf(),
            source,
        },
    )
}

#[derive(Debug, thiserror::Error)]
pub enum SkillSettingError {
    #[error(transparent)]
    Settings(#[from] SettingsError),
    #[error("{} cannot be written: {source}", .file.display())]
    Io {
        file: PathBuf,
        source: std::io::Error,
    },
}

/// Where a skill comes from, in words.
pub fn origin_words(origin: ExtensionOrigin) -> &'static str {
    match origin {
        ExtensionOrigin::Project => "this project",
        ExtensionOrigin::User => "your own",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skill_turned_off_is_kept_in_settings_and_left_out_of_sessions() {
        let dir = tempfile::tempdir().expect("tempdir");
        let project = dir.path().join("p");
        let skill = project.join(".tandem/skills/lint");
        std::fs::create_dir_all(&skill).expect("mkdir");
        std::fs::write(
            skill.join("skill.json"),
            r#"{"name": "lint", "description": "Lints", "triggers": ["lint"]}"#,
        )
        .expect("write");
        let config = dir.path().join("config");
        let file = config.join("settings.toml");
        std::fs::create_dir_all(&config).expect("mkdir");
        std::fs::write(&file, "[roles.default]\nprovider = \"local\"\nmodel = \"m\"\n\n[providers.local]\nkind = \"openai\"\n")
            .expect("write");
        let root = ProjectRoot::open(&project).expect("open");
        set_skill_enabled(&file, "lint", false).expect("off");
        let text = std::fs::read_to_string(&file).expect("read");
        assert!(
            text.contains("[skills]") && text.contains("disabled = [\"lint\"]"),
            "{text}"
        );
        assert!(text.contains("model = \"m\""), "the rest is kept: {text}");
        let settings = Settings::parse("s", &text).expect("parse");
        assert!(session_skills(&root, &config, &settings).skills.is_empty());
        let view = skills_view(&root, &config, &settings);
        assert_eq!(view.skills.len(), 1);
        assert!(!view.skills[0].enabled);
        set_skill_enabled(&file, "lint", true).expect("on");
        let settings =
            Settings::parse("s", &std::fs::read_to_string(&file).expect("read")).expect("parse");
        assert_eq!(session_skills(&root, &config, &settings).skills.len(), 1);
    }
}
