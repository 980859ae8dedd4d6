//! What a changed path could do once it is in the project: ignored output, a project file,
//! git's own work, or a file that makes another program run code.

use protocol::RunsCodeWhy;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

/// How a path sorts before the mode's rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Ignored,
    Project,
    Git,
    RunsCode(RunsCodeWhy),
}

/// Inside the project's own `.git`: what git's ordinary work writes (a commit, a checkout, a
/// fetch, a merge). Everything else there — its configuration, hooks, a rebase's to-do list
/// with its `exec` lines — would make the person's git run what a command chose.
const GIT_WORK: &[&str] = &[
    "objects",
    "refs",
    "logs",
    "index",
    "HEAD",
    "ORIG_HEAD",
    "FETCH_HEAD",
    "COMMIT_EDITMSG",
    "packed-refs",
    "MERGE_HEAD",
    "MERGE_MSG",
    "MERGE_MODE",
    "AUTO_MERGE",
    "CHERRY_PICK_HEAD",
    "REVERT_HEAD",
    "REBASE_HEAD",
];

/// Sorts the paths of one command's layer. `upper` is the layer, `project` the project as it
/// was (the folder below the layer).
pub(crate) struct Sorter<'a> {
    project: &'a Path,
    upper: &'a Path,
    ignores: Ignores,
    /// Whether the project had its own `.git` folder when the command started.
    own_git: bool,
    shaped: HashMap<PathBuf, bool>,
}

impl<'a> Sorter<'a> {
    pub(crate) fn new(project: &'a Path, upper: &'a Path) -> Self {
        Sorter {
            project,
            upper,
            ignores: Ignores::of(project),
            own_git: project.join(".git").is_dir(),
            shaped: HashMap::new(),
        }
    }

    /// The kind of `rel` (relative to the project).
    pub(crate) fn kind(&mut self, rel: &Path, folder: bool) -> Kind {
        if let Some(why) = self.runs_code(rel, folder) {
            return Kind::RunsCode(why);
        }
        if rel.starts_with(".git") {
            return Kind::Git;
        }
        if self.ignores.ignored(rel, folder) {
            Kind::Ignored
        } else {
            Kind::Project
        }
    }

    /// The kind of a path inside a folder that moves as one: only whether it runs code counts.
    pub(crate) fn kind_inside(&mut self, rel: &Path, folder: bool) -> Kind {
        // A file in such a folder runs code only by its own name (a `.git` link, `.envrc`, the
        // editor's files): the shape of the folders it is in is their own entries' to say.
        // Thousands of files (a `node_modules`) cost a name each, not a look at the disk.
        if !folder && !named_to_run_code(rel) {
            return Kind::Project;
        }
        self.runs_code(rel, folder)
            .map_or(Kind::Project, Kind::RunsCode)
    }

    fn runs_code(&mut self, rel: &Path, folder: bool) -> Option<RunsCodeWhy> {
        let names: Vec<&str> = rel
            .components()
            .filter_map(|c| match c {
                Component::Normal(n) => n.to_str(),
                _ => None,
            })
            .collect();
        let first = names.first().copied().unwrap_or("");
        if first == ".git" {
            let second = names.get(1).copied();
            let ours = self.own_git && second.is_some_and(|n| GIT_WORK.contains(&n));
            return (!ours).then_some(RunsCodeWhy::GitInternals);
        }
        if names.contains(&".git") {
            return Some(RunsCodeWhy::GitRepository);
        }
        if first == ".tandem" {
            return Some(RunsCodeWhy::Tandem);
        }
        if first == ".idea" {
            return Some(RunsCodeWhy::Jetbrains);
        }
        if matches!(first, ".husky" | ".githooks") {
            return Some(RunsCodeWhy::Hooks);
        }
        if let Some(last) = names.last()
            && last.starts_with(".envrc")
        {
            return Some(RunsCodeWhy::Direnv);
        }
        if names.len() >= 2
            && names[names.len() - 2] == ".vscode"
            && matches!(
                names[names.len() - 1],
                "tasks.json" | "settings.json" | "launch.json"
            )
        {
            return Some(RunsCodeWhy::Editor);
        }
        // A folder shaped like a repository at or above the path (git finds one by its shape,
        // whatever its name). A file is none: its folder is the first to look at.
        let mut at = rel.to_path_buf();
        if !folder {
            at.pop();
        }
        loop {
            if !at.as_os_str().is_empty() && self.repository_shaped(&at) {
                return Some(RunsCodeWhy::GitRepository);
            }
            if !at.pop() {
                return None;
            }
        }
    }

    /// Whether `dir` holds `HEAD` and `objects` or `refs`, in the layer or in the project.
    fn repository_shaped(&mut self, dir: &Path) -> bool {
        if let Some(known) = self.shaped.get(dir) {
            return *known;
        }
        let seen = |name: &str| {
            let rel = dir.join(name);
            std::fs::symlink_metadata(self.upper.join(&rel)).is_ok_and(|m| {
                use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _};
                !(m.file_type().is_char_device() && m.rdev() == 0)
            }) || std::fs::symlink_metadata(self.project.join(&rel)).is_ok()
        };
        let shaped = seen("HEAD") && (seen("objects") || seen("refs"));
        self.shaped.insert(dir.to_path_buf(), shaped);
        shaped
    }
}

/// Whether a file's own name (or its folder's, `.vscode`) could make a program run it.
fn named_to_run_code(rel: &Path) -> bool {
    let name = rel.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let folder = rel
        .parent()
        .and_then(Path::file_name)
        .and_then(|n| n.to_str())
        .unwrap_or("");
    name == ".git"
        || name.starts_with(".envrc")
        || matches!(name, "HEAD" | "config")
        || folder == ".vscode"
        || rel.components().any(|c| {
            matches!(
                c.as_os_str().to_str(),
                Some(".git" | ".tandem" | ".idea" | ".husky" | ".githooks")
            )
        })
}

/// The project's ignore rules as they were when the command started (what a command writes to
/// `.gitignore` cannot make its own files land unreviewed).
enum Ignores {
    /// A repository: git's own rules (every `.gitignore`, `info/exclude`, the user's file).
    /// Only read through libgit2, which runs no hooks and no fsmonitor.
    Repository(git2::Repository),
    /// A folder that is not a repository: its top `.gitignore`, which build tools write all
    /// the same (reading every `.gitignore` of the tree would be a walk of the project).
    File(ignore::gitignore::Gitignore),
    None,
}

impl Ignores {
    fn of(project: &Path) -> Self {
        if let Ok(repo) = git2::Repository::open(project) {
            return Ignores::Repository(repo);
        }
        let file = project.join(".gitignore");
        if !file.is_file() {
            return Ignores::None;
        }
        let mut builder = ignore::gitignore::GitignoreBuilder::new(project);
        let _ = builder.add(file);
        builder.build().map_or(Ignores::None, Ignores::File)
    }

    fn ignored(&self, rel: &Path, folder: bool) -> bool {
        match self {
            Ignores::Repository(repo) => ignored(repo, rel, folder),
            Ignores::File(rules) => rules.matched_path_or_any_parents(rel, folder).is_ignore(),
            Ignores::None => false,
        }
    }
}

fn ignored(repo: &git2::Repository, rel: &Path, folder: bool) -> bool {
    let shown = if folder {
        // libgit2 matches folder-only rules (`target/`) when the path ends in a slash.
        PathBuf::from(format!("{}/", rel.display()))
    } else {
        rel.to_path_buf()
    };
    repo.is_path_ignored(&shown).unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorter_in(project: &Path, upper: &Path) -> Sorter<'static> {
        let p: &'static Path = Box::leak(project.to_path_buf().into_boxed_path());
        let u: &'static Path = Box::leak(upper.to_path_buf().into_boxed_path());
        Sorter::new(p, u)
    }

    #[test]
    fn files_that_make_programs_run_code_are_named_for_the_program() {
        let d = tempfile::tempdir().expect("tmp");
        let project = d.path().join("p");
        let upper = d.path().join("u");
        std::fs::create_dir_all(project.join(".git")).expect("mkdir");
        std::fs::create_dir_all(&upper).expect("mkdir");
        git2::Repository::init(&project).expect("init");
        std::fs::write(project.join(".gitignore"), "target/\n").expect("write");
        let mut s = sorter_in(&project, &upper);
        let k = |s: &mut Sorter, p: &str| s.kind(Path::new(p), false);
        assert_eq!(k(&mut s, "src/main.rs"), Kind::Project);
        assert_eq!(s.kind(Path::new("target"), true), Kind::Ignored);
        assert_eq!(k(&mut s, "target/debug/app"), Kind::Ignored);
        assert_eq!(k(&mut s, ".git/objects/ab/cdef"), Kind::Git);
        assert_eq!(k(&mut s, ".git/index"), Kind::Git);
        let runs = |why| Kind::RunsCode(why);
        assert_eq!(k(&mut s, ".git/config"), runs(RunsCodeWhy::GitInternals));
        assert_eq!(
            k(&mut s, ".git/hooks/pre-commit"),
            runs(RunsCodeWhy::GitInternals)
        );
        assert_eq!(
            k(&mut s, ".git/rebase-merge/git-rebase-todo"),
            runs(RunsCodeWhy::GitInternals)
        );
        assert_eq!(
            k(&mut s, "vendor/lib/.git/config"),
            runs(RunsCodeWhy::GitRepository)
        );
        assert_eq!(k(&mut s, ".vscode/tasks.json"), runs(RunsCodeWhy::Editor));
        assert_eq!(k(&mut s, ".vscode/extensions.json"), Kind::Project);
        assert_eq!(
            k(&mut s, ".idea/workspace.xml"),
            runs(RunsCodeWhy::Jetbrains)
        );
        assert_eq!(k(&mut s, "sub/.envrc"), runs(RunsCodeWhy::Direnv));
        assert_eq!(k(&mut s, ".husky/pre-commit"), runs(RunsCodeWhy::Hooks));
        assert_eq!(k(&mut s, ".tandem/policy.toml"), runs(RunsCodeWhy::Tandem));
        // A repository by its shape, under any name, even in ignored output.
        std::fs::create_dir_all(upper.join("target/x/objects")).expect("mkdir");
        std::fs::write(upper.join("target/x/HEAD"), "ref: refs/heads/main\n").expect("write");
        assert_eq!(
            k(&mut s, "target/x/config"),
            runs(RunsCodeWhy::GitRepository)
        );
    }

    #[test]
    fn a_folder_that_is_no_repository_ignores_what_its_gitignore_names() {
        let d = tempfile::tempdir().expect("tmp");
        std::fs::write(d.path().join(".gitignore"), "build/\n*.log\n").expect("write");
        let upper = tempfile::tempdir().expect("tmp");
        let mut s = sorter_in(d.path(), upper.path());
        assert_eq!(s.kind(Path::new("build"), true), Kind::Ignored);
        assert_eq!(s.kind(Path::new("build/out/app.js"), false), Kind::Ignored);
        assert_eq!(s.kind(Path::new("run.log"), false), Kind::Ignored);
        assert_eq!(s.kind(Path::new("src/app.js"), false), Kind::Project);
    }

    #[test]
    fn without_its_own_repository_a_project_has_no_git_work() {
        let d = tempfile::tempdir().expect("tmp");
        let mut s = sorter_in(d.path(), d.path());
        assert_eq!(
            s.kind(Path::new(".git/objects/ab/cd"), false),
            Kind::RunsCode(RunsCodeWhy::GitInternals)
        );
    }
}
