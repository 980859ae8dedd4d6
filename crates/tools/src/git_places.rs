//! Where git takes configuration, hooks and programs from in a project, so the sandbox can keep
//! those places out of a command's reach, and the programs a repository's own configuration
//! names, so a command that only reads or that gets the network runs git without them.
//!
//! A hook, a `core.fsmonitor`, a filter or a diff driver written by a command would run at the
//! user's next `git status` or `git commit`, outside any sandbox. A repository that arrived with
//! its `.git` folder (an archive, a copied folder) may already name such programs: a command
//! that should only read, or that has the network, must not run them.

use std::path::{Path, PathBuf};

/// What the sandbox does with a project's git places.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitPlaces {
    /// Folders that stay writable but cannot be renamed or replaced (`.git`).
    pub pinned: Vec<PathBuf>,
    /// Kept read-only.
    pub read_only: Vec<PathBuf>,
    /// The git folder whose new `commondir`/`config.worktree` the helper undoes.
    pub git_dir: Option<PathBuf>,
}

/// Folders of a git folder that hold configuration or programs. Made when missing, so that
/// they can be kept read-only: an absent folder could be created by a command.
const GIT_FOLDERS: &[&str] = &["hooks", "modules", "worktrees", "info"];

/// The places of the repository at `project` and of the repositories `nested` inside it (their
/// `.git` entries, as the project scan found them).
pub fn git_places(project: &Path, nested: &[PathBuf]) -> GitPlaces {
    let mut places = GitPlaces::default();
    let dotgit = project.join(".git");
    add_repository(&mut places, project, &dotgit, true);
    for n in nested {
        if n != &dotgit
            && let Some(work) = n.parent()
        {
            add_repository(&mut places, work, n, false);
        }
    }
    // The project's own rules and instructions: made when missing, so that a command cannot
    // create them for the next session to follow.
    let tandem = project.join(".tandem");
    if std::fs::symlink_metadata(&tandem).is_err() {
        let _ = std::fs::create_dir(&tandem);
    }
    places.read_only.push(tandem);
    places.read_only.sort();
    places.read_only.dedup();
    places
}

fn add_repository(places: &mut GitPlaces, work: &Path, dotgit: &Path, own: bool) {
    let Ok(meta) = std::fs::symlink_metadata(dotgit) else {
        return;
    };
    if meta.is_file() {
        // A linked worktree's or a submodule's pointer to its git folder (which lies outside
        // the project, or in `.git/modules`, kept read-only).
        places.read_only.push(dotgit.to_path_buf());
    } else if meta.is_dir() {
        places.pinned.push(dotgit.to_path_buf());
        places.read_only.push(dotgit.join("config"));
        for f in GIT_FOLDERS {
            let p = dotgit.join(f);
            // Only the project's own repository gets folders made; a nested one is the user's
            // business, and what it has is protected.
            if own && std::fs::symlink_metadata(&p).is_err() {
                let _ = std::fs::create_dir(&p);
            }
            places.read_only.push(p);
        }
        if own {
            places.git_dir = Some(dotgit.to_path_buf());
        }
    } else {
        return;
    }
    // What the configuration names, as git reads it for this working tree (a linked
    // worktree's configuration is its main repository's).
    let Ok(repo) = git2::Repository::open(work) else {
        return;
    };
    if let Ok(hooks) = repo.config().and_then(|c| c.get_path("core.hooksPath")) {
        // Relative to the working tree: a folder of the project (`.husky`), made when missing.
        let hooks = if hooks.is_absolute() {
            hooks
        } else {
            work.join(hooks)
        };
        if hooks.starts_with(work) {
            if std::fs::symlink_metadata(&hooks).is_err() {
                let _ = std::fs::create_dir_all(&hooks);
            }
            places.read_only.push(hooks);
        }
    }
    // Files the repository's own configuration includes from inside the project.
    let local = repo.commondir().join("config");
    let Ok(config) = git2::Config::open(&local) else {
        return;
    };
    let Ok(mut entries) = config.entries(None) else {
        return;
    };
    while let Some(Ok(e)) = entries.next() {
        let Ok(name) = e.name() else { continue };
        let name = name.to_ascii_lowercase();
        let is_include =
            name == "include.path" || (name.starts_with("includeif.") && name.ends_with(".path"));
        if let (true, Ok(value)) = (is_include, e.value()) {
            let p = Path::new(value);
            let p = if p.is_absolute() {
                p.to_path_buf()
            } else {
                repo.commondir().join(p)
            };
            if let Ok(p) = p.canonicalize()
                && p.starts_with(work)
            {
                places.read_only.push(p);
            }
        }
    }
}

/// Environment for a command whose git must not run the programs the repository names:
/// settings passed through `GIT_CONFIG_*` (which win over every configuration file) and git's
/// own variables, for what no configuration file may switch back on. The repository's own
/// configuration is replaced by a copy without programs (see [`repository_configs`]).
pub fn neutral_git_env() -> Vec<(String, String)> {
    let set: [(&str, &str); 4] = [
        ("core.fsmonitor", "false"),
        ("core.hooksPath", "/dev/null"),
        // Empty resets the list of helpers.
        ("credential.helper", ""),
        ("protocol.ext.allow", "never"),
    ];
    let mut env: Vec<(String, String)> = [
        ("GIT_PAGER", "cat"),
        ("GIT_EDITOR", "true"),
        ("GIT_SEQUENCE_EDITOR", "true"),
        ("GIT_ASKPASS", "true"),
        ("SSH_ASKPASS", "true"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    env.push(("GIT_CONFIG_COUNT".into(), set.len().to_string()));
    for (i, (k, v)) in set.into_iter().enumerate() {
        env.push((format!("GIT_CONFIG_KEY_{i}"), k.into()));
        env.push((format!("GIT_CONFIG_VALUE_{i}"), v.into()));
    }
    env
}

/// Whether a setting names a program git would run (or decides which one): dropped from the
/// copy of a repository's configuration a reading or networked command sees. Some of these
/// cannot be overridden from outside (`remote.*.uploadpack` takes the first value given).
fn names_a_program(section: &str, subsection: Option<&str>, key: &str) -> bool {
    match (section, subsection.is_some(), key) {
        ("core", false, k) => matches!(
            k,
            "fsmonitor"
                | "hookspath"
                | "sshcommand"
                | "gitproxy"
                | "askpass"
                | "pager"
                | "editor"
                | "alternaterefscommand"
        ),
        ("diff", false, "external") => true,
        ("diff", true, k) => matches!(k, "textconv" | "command"),
        ("filter", true, _) => true,
        ("merge", true, "driver") => true,
        ("remote", true, k) => matches!(k, "uploadpack" | "receivepack" | "vcs"),
        ("pager" | "credential" | "include" | "includeif" | "alias", _, _) => true,
        ("gpg", _, k) => matches!(k, "program" | "defaultkeycommand"),
        ("sequence", false, "editor") => true,
        ("submodule", true, "update") => true,
        ("difftool" | "mergetool", true, "cmd") => true,
        ("uploadpack", false, k) => k == "packobjectshook",
        ("sendemail", _, _) | ("web", _, _) | ("browser", _, _) | ("man", _, _) => true,
        _ => false,
    }
}

/// The repository's own configuration files (its `config`, a `config.worktree`), each with a
/// copy written into `dir` that keeps every setting but those naming programs; the copy is
/// shown in place of the file to a command that only reads or that has the network.
pub fn repository_configs(project: &Path, dir: &Path) -> Vec<(PathBuf, PathBuf)> {
    configs_copied(project, dir, true)
}

/// For a command that writes and has no network: the repository's configuration files
/// without the credentials they hold (a token in a remote's URL, an `http.extraHeader`), each
/// copied into `dir`; none when no file holds one (the command then sees, and may change, the
/// configuration itself).
pub fn repository_configs_without_credentials(
    project: &Path,
    dir: &Path,
) -> Vec<(PathBuf, PathBuf)> {
    let holds = git2::Repository::open(project).is_ok_and(|repo| {
        config_files(&repo).iter().any(|f| {
            git2::Config::open(f).is_ok_and(|c| {
                let mut found = false;
                let _ = c.entries(None).map(|mut entries| {
                    while let Some(Ok(e)) = entries.next() {
                        if let (Ok(name), Ok(value)) = (e.name(), e.value()) {
                            found |= credential(name, value);
                        }
                    }
                });
                found
            })
        })
    });
    if holds {
        configs_copied(project, dir, false)
    } else {
        Vec::new()
    }
}

/// The repository's own configuration files that exist.
fn config_files(repo: &git2::Repository) -> Vec<PathBuf> {
    let mut files = vec![repo.commondir().join("config")];
    files.push(repo.path().join("config.worktree"));
    files.dedup();
    files.retain(|f| f.is_file());
    files
}

/// Whether a setting (`name` as git2 gives it, `section.sub.key`) carries a credential: a URL
/// with a user or password in it, or an HTTP header (`Authorization: …`).
fn credential(name: &str, value: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".extraheader")
        || strip_userinfo(name) != name
        || strip_userinfo(value) != value
}

/// A URL (or any text holding some) without the `user:password@` of each `scheme://…@host`.
pub fn strip_userinfo(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        // The authority ends at the first `/`, `?` or `#`; its userinfo at the last `@`.
        let end = tail.find(['/', '?', '#']).unwrap_or(tail.len());
        let authority = &tail[..end];
        // Over http a user name is as good as a token (`https://ghp_…@github.com`); over ssh
        // it is who logs in (`ssh://git@host`), and only a password is taken out.
        let scheme = head[..head.len() - 3]
            .rsplit(|c: char| !c.is_ascii_alphanumeric() && c != '+' && c != '-' && c != '.')
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        let web = scheme == "http" || scheme == "https";
        match authority.rfind('@') {
            Some(i) if web || authority[..i].contains(':') => out.push_str(&authority[i + 1..]),
            _ => out.push_str(authority),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// The configuration files copied into `dir`: without credentials, and without the settings
/// that name programs when `programs_too`.
fn configs_copied(project: &Path, dir: &Path, programs_too: bool) -> Vec<(PathBuf, PathBuf)> {
    let Ok(repo) = git2::Repository::open(project) else {
        return Vec::new();
    };
    let mut files = vec![repo.commondir().join("config")];
    files.push(repo.path().join("config.worktree"));
    files.dedup();
    let mut out = Vec::new();
    for (i, file) in files.into_iter().enumerate() {
        if !file.is_file() {
            continue;
        }
        let Ok(config) = git2::Config::open(&file) else {
            continue;
        };
        let text = rewritten(&config, programs_too);
        let copy = dir.join(format!("git-config-{i}"));
        if std::fs::create_dir_all(dir).is_ok()
            && crate::write_atomic(&copy, text.as_bytes()).is_ok()
        {
            out.push((copy, file));
        }
    }
    out
}

/// `config` written out again (includes followed) without credentials, and without the
/// settings that name programs when `programs_too`.
fn rewritten(config: &git2::Config, programs_too: bool) -> String {
    let mut text = String::new();
    let mut current: Option<(String, Option<String>)> = None;
    let Ok(mut entries) = config.entries(None) else {
        return text;
    };
    while let Some(Ok(e)) = entries.next() {
        let (Ok(name), Ok(value)) = (e.name(), e.value()) else {
            continue;
        };
        let Some((section, rest)) = name.split_once('.') else {
            continue;
        };
        let (subsection, key) = match rest.rsplit_once('.') {
            Some((sub, key)) => (Some(sub.to_string()), key),
            None => (None, rest),
        };
        let section = section.to_ascii_lowercase();
        let key = key.to_ascii_lowercase();
        if programs_too && names_a_program(&section, subsection.as_deref(), &key) {
            continue;
        }
        // A header is the credential itself (`Authorization: Bearer …`); a URL keeps its
        // host and path, less the user and token.
        if key == "extraheader" {
            continue;
        }
        let subsection = subsection.map(|s| strip_userinfo(&s));
        let value = strip_userinfo(value);
        let value = value.as_str();
        let header = (section.clone(), subsection.clone());
        if current.as_ref() != Some(&header) {
            match &subsection {
                Some(sub) => text.push_str(&format!("[{section} \"{}\"]\n", escape(sub))),
                None => text.push_str(&format!("[{section}]\n")),
            }
            current = Some(header);
        }
        text.push_str(&format!("\t{key} = \"{}\"\n", escape(value)));
    }
    text
}

/// A value or subsection name inside double quotes, as git reads it back.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_taken_out_of_urls_and_nothing_else() {
        for (given, want) in [
            (
                "https://me:ghp_x@github.com/o/r.git",
                "https://github.com/o/r.git",
            ),
            ("https://ghp_x@github.com/o/r", "https://github.com/o/r"),
            ("ssh://git@host:22/r", "ssh://git@host:22/r"),
            ("ssh://me:pw@host/r", "ssh://host/r"),
            ("https://github.com/o/r.git", "https://github.com/o/r.git"),
            ("git@github.com:o/r.git", "git@github.com:o/r.git"),
            ("https://a@b/x https://c:d@e/y", "https://b/x https://e/y"),
            ("https://h/p?q=a@b", "https://h/p?q=a@b"),
        ] {
            assert_eq!(strip_userinfo(given), want, "{given}");
        }
    }
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) -> std::process::Output {
        Command::new("git")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("git")
    }

    #[test]
    fn the_places_git_reads_programs_from_are_listed_and_made() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().canonicalize().expect("canonical");
        assert!(git(&p, &["init", "-q"]).status.success());
        assert!(
            git(&p, &["config", "core.hooksPath", ".husky"])
                .status
                .success()
        );
        std::fs::write(p.join("shared.gitconfig"), "[user]\nname = x\n").expect("write");
        assert!(
            git(&p, &["config", "include.path", "../shared.gitconfig"])
                .status
                .success()
        );
        std::fs::create_dir_all(p.join("vendor/lib/.git/hooks")).expect("nested");
        std::fs::write(p.join("vendor/lib/.git/config"), "[core]\n").expect("write");
        std::fs::create_dir_all(p.join("sub")).expect("sub");
        std::fs::write(p.join("sub/.git"), "gitdir: ../.git/modules/sub\n").expect("write");

        let places = git_places(&p, &[p.join("vendor/lib/.git"), p.join("sub/.git")]);
        assert_eq!(places.git_dir.as_deref(), Some(p.join(".git").as_path()));
        assert!(places.pinned.contains(&p.join(".git")));
        assert!(places.pinned.contains(&p.join("vendor/lib/.git")));
        for ro in [
            ".git/config",
            ".git/hooks",
            ".git/modules",
            ".git/worktrees",
            ".husky",
            "shared.gitconfig",
            ".tandem",
            "vendor/lib/.git/config",
            "vendor/lib/.git/hooks",
            "sub/.git",
        ] {
            assert!(
                places.read_only.contains(&p.join(ro)),
                "{ro} in {:?}",
                places.read_only
            );
        }
        for made in [".git/modules", ".git/worktrees", ".husky", ".tandem"] {
            assert!(p.join(made).is_dir(), "{made} was made");
        }
        assert!(
            !p.join("vendor/lib/.git/modules").exists(),
            "nothing is made in a nested repository"
        );
    }

    #[test]
    fn a_repositorys_programs_are_not_run_with_its_copied_configuration() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().canonicalize().expect("canonical").join("p");
        std::fs::create_dir_all(&p).expect("mkdir");
        let marker = p.join("ran");
        let m = marker.display().to_string();
        assert!(git(&p, &["init", "-q"]).status.success());
        std::fs::write(p.join("f.txt"), "one\n").expect("write");
        std::fs::write(p.join(".gitattributes"), "* diff=evil filter=evil\n").expect("write");
        for (k, v) in [
            ("user.email", "t@example.com"),
            ("user.name", "T \"Q\" \\ name"),
        ] {
            assert!(git(&p, &["config", k, v]).status.success());
        }
        assert!(git(&p, &["add", "-A"]).status.success());
        assert!(git(&p, &["commit", "-qm", "one"]).status.success());
        for (k, v) in [
            ("core.fsmonitor", format!("touch {m}-fsmonitor; false")),
            ("diff.evil.textconv", format!("touch {m}-textconv; cat")),
            ("diff.evil.command", format!("touch {m}-command")),
            ("filter.evil.clean", format!("touch {m}-clean; cat")),
            ("filter.evil.process", format!("touch {m}-process")),
            ("diff.external", format!("touch {m}-external")),
            ("core.pager", format!("touch {m}-pager")),
            ("remote.origin.url", "https://example.com/x.git".to_string()),
            ("remote.origin.uploadpack", format!("touch {m}-uploadpack")),
            (
                "url.https://mirror.example/.insteadOf",
                "https://example.com/".to_string(),
            ),
        ] {
            assert!(git(&p, &["config", k, &v]).status.success());
        }
        std::fs::write(p.join("f.txt"), "two\n").expect("write");
        let copies = repository_configs(&p, &dir.path().join("copies"));
        assert_eq!(copies.len(), 1, "{copies:?}");
        assert_eq!(copies[0].1, p.join(".git/config"));
        // What the sandbox does with a mount: the copy in place of the file.
        let original = std::fs::read(p.join(".git/config")).expect("config");
        std::fs::copy(&copies[0].0, p.join(".git/config")).expect("copy");
        let env = neutral_git_env();
        for args in [
            vec!["status", "--short"],
            vec!["diff"],
            vec!["log", "-p", "-1"],
            vec!["diff", "HEAD"],
        ] {
            let out = Command::new("git")
                .args(&args)
                .current_dir(&p)
                .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
                .output()
                .expect("git");
            assert!(
                out.status.success(),
                "git {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            if args == ["diff"] {
                let text = String::from_utf8_lossy(&out.stdout);
                assert!(text.contains("-one") && text.contains("+two"), "{text}");
            }
        }
        // Settings that name no program are kept, quotes and all.
        for (k, v) in [
            ("user.name", "T \"Q\" \\ name"),
            ("remote.origin.url", "https://example.com/x.git"),
            (
                "url.https://mirror.example/.insteadof",
                "https://example.com/",
            ),
        ] {
            let out = git(&p, &["config", "--get", k]);
            assert_eq!(String::from_utf8_lossy(&out.stdout).trim_end(), v, "{k}");
        }
        let ran: Vec<String> = std::fs::read_dir(&p)
            .expect("list")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("ran"))
            .collect();
        assert_eq!(ran, Vec::<String>::new(), "repository programs ran");
        // With the repository's own file, they do run (the test can fail).
        std::fs::write(p.join(".git/config"), original).expect("restore");
        let _ = git(&p, &["status", "--short"]);
        assert!(p.join("ran-fsmonitor").exists());
    }
}
