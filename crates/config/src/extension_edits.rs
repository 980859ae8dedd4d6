//! Adding and removing the user's own skills and MCP servers, for Settings and `tandem-cli`
//! alike, so nobody has to write JSON by hand. A skill is copied into the config folder's
//! `skills/` (the skill as it was added, not a folder a project can change later); a server is
//! written into the user's `mcp.json`. A project's own skills and servers live in its
//! repository and are not touched here.

use crate::extensions::user_skills_dir;
use mcp::{ConfigEditError, NewServer};
use std::path::{Path, PathBuf};
use tools::Skill;

/// A skill folder larger than this is refused: skills are manifests and small programs.
const MAX_SKILL_FILES: usize = 2_000;
const MAX_SKILL_BYTES: u64 = 100 * 1024 * 1024;
/// Where a skill is put together before it appears whole under `skills/`, and where a removed
/// one goes before it is deleted: beside `skills/`, so loading never sees half of one.
const STAGING_DIR: &str = ".skills-staging";

#[derive(Debug, thiserror::Error)]
pub enum ExtensionEditError {
    #[error("This folder is not a skill Tandem can load — {0}")]
    NotASkill(String),
    #[error(
        "You already have a skill named {name} ({}). Remove it first, or rename the new one in its skill.json.",
        .dir.display()
    )]
    SkillTaken { name: String, dir: PathBuf },
    #[error("{} is a link; a skill is copied without links — copy the file it points to into the folder instead.", .0.display())]
    Link(PathBuf),
    #[error("{} is neither a file nor a folder; take it out of the skill folder.", .0.display())]
    NotAFile(PathBuf),
    #[error(
        "The skill folder is too large (over 2,000 files or 100 MB); a skill holds its manifest and small programs."
    )]
    TooLarge,
    #[error(
        "There is no skill of yours named {0}. A project's skills live in its .tandem/skills folder; turn them off instead."
    )]
    NoSuchSkill(String),
    #[error("{0}")]
    Mcp(#[from] ConfigEditError),
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ExtensionEditError + '_ {
    move |source| ExtensionEditError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Copies the skill in `folder` into the user's skills, where every project's sessions find
/// it. Returns the skill's name.
pub fn add_user_skill(config_dir: &Path, folder: &Path) -> Result<String, ExtensionEditError> {
    let skill = Skill::read_folder(folder).map_err(ExtensionEditError::NotASkill)?;
    let skills = user_skills_dir(config_dir);
    if let Some(dir) = user_skill_dir(&skills, &skill.name) {
        return Err(ExtensionEditError::SkillTaken {
            name: skill.name,
            dir,
        });
    }
    let dest = skills.join(&skill.name);
    if dest.symlink_metadata().is_ok() {
        return Err(ExtensionEditError::SkillTaken {
            name: skill.name,
            dir: dest,
        });
    }
    let staging = config_dir.join(STAGING_DIR);
    std::fs::create_dir_all(&staging).map_err(io(&staging))?;
    std::fs::create_dir_all(&skills).map_err(io(&skills))?;
    let building = staging.join(format!("{}-{}", skill.name, std::process::id()));
    if building.symlink_metadata().is_ok() {
        std::fs::remove_dir_all(&building).map_err(io(&building))?;
    }
    let mut budget = Budget::default();
    let copied = copy_tree(folder, &building, &mut budget)
        .and_then(|()| std::fs::rename(&building, &dest).map_err(io(&dest)));
    if copied.is_err() {
        let _ = std::fs::remove_dir_all(&building);
    }
    copied.map(|()| skill.name)
}

/// Removes one of the user's own skills (its folder in the config folder's `skills/`).
pub fn remove_user_skill(config_dir: &Path, name: &str) -> Result<(), ExtensionEditError> {
    let skills = user_skills_dir(config_dir);
    let dir = user_skill_dir(&skills, name)
        .ok_or_else(|| ExtensionEditError::NoSuchSkill(name.to_string()))?;
    let staging = config_dir.join(STAGING_DIR);
    std::fs::create_dir_all(&staging).map_err(io(&staging))?;
    // Moved out first, so the skill disappears whole even if deleting its files stops halfway.
    let leaving = staging.join(format!("removed-{name}-{}", std::process::id()));
    if leaving.symlink_metadata().is_ok() {
        std::fs::remove_dir_all(&leaving).map_err(io(&leaving))?;
    }
    std::fs::rename(&dir, &leaving).map_err(io(&dir))?;
    std::fs::remove_dir_all(&leaving).map_err(io(&leaving))
}

/// The folder under the user's `skills/` whose skill is named `name` (the folder's own name
/// may differ from the skill's, when it was put there by hand).
fn user_skill_dir(skills: &Path, name: &str) -> Option<PathBuf> {
    let entries = std::fs::read_dir(skills).ok()?;
    let mut folders: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    folders
        .into_iter()
        .find(|dir| Skill::read_folder(dir).is_ok_and(|s| s.name == name))
}

#[derive(Default)]
struct Budget {
    files: usize,
    bytes: u64,
}

fn copy_tree(from: &Path, to: &Path, budget: &mut Budget) -> Result<(), ExtensionEditError> {
    std::fs::create_dir(to).map_err(io(to))?;
    let mut entries: Vec<_> = std::fs::read_dir(from)
        .map_err(io(from))?
        .collect::<Result<_, _>>()
        .map_err(io(from))?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let target = to.join(entry.file_name());
        let meta = path.symlink_metadata().map_err(io(&path))?;
        budget.files += 1;
        budget.bytes += meta.len();
        if budget.files > MAX_SKILL_FILES || budget.bytes > MAX_SKILL_BYTES {
            return Err(ExtensionEditError::TooLarge);
        }
        if meta.file_type().is_symlink() {
            return Err(ExtensionEditError::Link(path));
        } else if meta.is_dir() {
            copy_tree(&path, &target, budget)?;
        } else if meta.is_file() {
            // fs::copy keeps the permissions, so a skill's programs stay executable.
            std::fs::copy(&path, &target).map_err(io(&path))?;
        } else {
            return Err(ExtensionEditError::NotAFile(path));
        }
    }
    Ok(())
}

fn user_mcp_file(config_dir: &Path) -> PathBuf {
    config_dir.join(mcp::USER_FILE)
}

fn edit_user_mcp(
    config_dir: &Path,
    edit: impl FnOnce(Option<&str>, &str) -> Result<String, ConfigEditError>,
) -> Result<(), ExtensionEditError> {
    let file = user_mcp_file(config_dir);
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(source) => return Err(ExtensionEditError::Io { path: file, source }),
    };
    let new = edit(text.as_deref(), &file.display().to_string())?;
    // Private: servers' headers and environments often hold tokens.
    crate::locations::write_private(&file, new.as_bytes()).map_err(io(&file))
}

/// Adds a server to the user's `mcp.json`: every project's sessions start it.
pub fn add_user_mcp_server(
    config_dir: &Path,
    name: &str,
    server: &NewServer,
) -> Result<(), ExtensionEditError> {
    edit_user_mcp(config_dir, |text, file| {
        mcp::with_server_added(text, file, name, server)
    })
}

/// Removes a server from the user's `mcp.json`.
pub fn remove_user_mcp_server(config_dir: &Path, name: &str) -> Result<(), ExtensionEditError> {
    edit_user_mcp(config_dir, |text, file| {
        mcp::with_server_removed(text, file, name)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    fn skill_folder(at: &Path, name: &str) {
        std::fs::create_dir_all(at.join("bin")).expect("mkdir");
        std::fs::write(
            at.join("skill.json"),
            format!(
                r#"{{"name": "{name}", "description": "d", "tools": [{{"name": "go", "description": "g", "inputSchema": {{"type": "object"}}, "run": ["./bin/go.sh"]}}]}}"#
            ),
        )
        .expect("write");
        std::fs::write(at.join("bin/go.sh"), "#!/bin/sh\necho go\n").expect("write");
        std::fs::set_permissions(at.join("bin/go.sh"), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
    }

    #[test]
    fn a_skill_is_copied_whole_and_removed_whole() {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = dir.path().join("config");
        let source = dir.path().join("picked");
        skill_folder(&source, "lint");
        assert_eq!(add_user_skill(&config, &source).expect("add"), "lint");
        let copied = config.join("skills/lint");
        let mode = std::fs::metadata(copied.join("bin/go.sh"))
            .expect("copied")
            .permissions()
            .mode();
        assert_eq!(mode & 0o111, 0o111, "programs stay executable");
        assert!(
            std::fs::read_dir(config.join(STAGING_DIR))
                .expect("staging")
                .next()
                .is_none(),
            "nothing left half-built"
        );
        assert!(matches!(
            add_user_skill(&config, &source),
            Err(ExtensionEditError::SkillTaken { name, .. }) if name == "lint"
        ));
        remove_user_skill(&config, "lint").expect("remove");
        assert!(!copied.exists());
        assert!(
            source.join("skill.json").exists(),
            "the picked folder stays"
        );
        assert!(matches!(
            remove_user_skill(&config, "lint"),
            Err(ExtensionEditError::NoSuchSkill(_))
        ));
    }

    #[test]
    fn folders_that_are_not_skills_or_hold_links_are_refused_and_leave_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = dir.path().join("config");
        let empty = dir.path().join("empty");
        std::fs::create_dir_all(&empty).expect("mkdir");
        let err = add_user_skill(&config, &empty).expect_err("no skill.json");
        assert!(err.to_string().contains("no skill.json"), "{err}");

        let linked = dir.path().join("linked");
        skill_folder(&linked, "linked");
        std::os::unix::fs::symlink("/etc/hostname", linked.join("bin/host")).expect("link");
        assert!(matches!(
            add_user_skill(&config, &linked),
            Err(ExtensionEditError::Link(_))
        ));
        assert!(!config.join("skills/linked").exists());
        assert!(
            std::fs::read_dir(config.join(STAGING_DIR))
                .expect("staging")
                .next()
                .is_none()
        );
    }

    #[test]
    fn servers_are_added_to_and_removed_from_the_users_file_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = dir.path().join("config");
        let server = NewServer::program_from_line("npx -y server-memory", false).expect("split");
        add_user_mcp_server(&config, "memory", &server).expect("add");
        let file = config.join(mcp::USER_FILE);
        let mode = std::fs::metadata(&file).expect("file").permissions().mode();
        assert_eq!(mode & 0o077, 0, "only its owner reads it");
        let loaded = mcp::Config::load(&file, dir.path());
        assert_eq!(loaded.servers.len(), 1);
        assert_eq!(loaded.servers[0].target(), "npx -y server-memory");
        remove_user_mcp_server(&config, "memory").expect("remove");
        assert!(mcp::Config::load(&file, dir.path()).servers.is_empty());
        assert!(matches!(
            remove_user_mcp_server(&config, "memory"),
            Err(ExtensionEditError::Mcp(ConfigEditError::Missing(..)))
        ));
    }
}
