//! Resolving paths against the project root. Every tool goes through [`ProjectRoot::resolve`],
//! so `..`, absolute paths and symlinks can never reach outside the project.

use crate::error::{ToolError, ToolResult};
use std::path::{Component, Path, PathBuf};

/// A project folder, canonicalized once when opened.
#[derive(Debug, Clone)]
pub struct ProjectRoot {
    root: PathBuf,
    /// Which files hold secrets: searches never look inside them, whatever globs ask for.
    /// Handed in by the caller (the policy engine's judgement).
    secret: Option<fn(&Path) -> bool>,
}

impl PartialEq for ProjectRoot {
    fn eq(&self, other: &Self) -> bool {
        self.root == other.root
    }
}

impl Eq for ProjectRoot {}

/// A path inside the project: where it really is, and how to name it to people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// Canonical absolute path (symlinks followed), or for a path that does not exist yet, its
    /// canonical existing ancestor joined with the rest.
    pub real: PathBuf,
    /// The path as asked for, made relative to the root with `/` separators ("" = the root).
    pub display: String,
}

impl ProjectRoot {
    /// Opens a project folder: it must exist, be a folder, and be readable.
    pub fn open(path: impl AsRef<Path>) -> ToolResult<Self> {
        let path = path.as_ref();
        if path.as_os_str().is_empty() {
            return Err(ToolError::InvalidArgument(
                "the project path is empty; choose a folder".into(),
            ));
        }
        let root = std::fs::canonicalize(path).map_err(|e| ToolError::io(path, e))?;
        let meta = std::fs::metadata(&root).map_err(|e| ToolError::io(&root, e))?;
        if !meta.is_dir() {
            return Err(ToolError::NotADirectory(root));
        }
        std::fs::read_dir(&root).map_err(|e| ToolError::io(&root, e))?;
        Ok(Self { root, secret: None })
    }

    /// The same project, with the files `is_secret` names kept out of every search.
    pub fn hiding_secrets(mut self, is_secret: fn(&Path) -> bool) -> Self {
        self.secret = Some(is_secret);
        self
    }

    /// Whether a file is one of the secrets searches never open.
    pub fn is_secret(&self, path: &Path) -> bool {
        self.secret.is_some_and(|f| f(path))
    }

    pub fn path(&self) -> &Path {
        &self.root
    }

    /// The folder's name, for window titles and the recent list.
    pub fn name(&self) -> String {
        self.root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.root.to_string_lossy().into_owned())
    }

    /// Resolves a path given by the model or the UI (relative to the root, or absolute) and
    /// refuses it when it leaves the project, lexically or through a symlink.
    pub fn resolve(&self, path: &str) -> ToolResult<Resolved> {
        if path.contains('\0') {
            return Err(ToolError::InvalidArgument(
                "the path contains a NUL byte; pass a plain path".into(),
            ));
        }
        let asked = Path::new(path);
        let joined = if asked.is_absolute() {
            asked.to_path_buf()
        } else {
            self.root.join(asked)
        };
        let lexical = normalize(&joined);
        let outside = || ToolError::OutsideProject {
            path: path.to_string(),
            root: self.root.display().to_string(),
        };
        let display = match lexical.strip_prefix(&self.root) {
            Ok(rel) => to_slash(rel),
            Err(_) => return Err(outside()),
        };
        let real = canonicalize_existing_prefix(&lexical);
        if !real.starts_with(&self.root) {
            return Err(outside());
        }
        Ok(Resolved { real, display })
    }

    /// Names an absolute path inside the root relative to it, with `/` separators.
    pub fn relative(&self, path: &Path) -> Option<String> {
        path.strip_prefix(&self.root).ok().map(to_slash)
    }
}

/// Removes `.` and resolves `..` without touching the disk (`..` at the top stays at the top).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for comp in path.components() {
        match comp {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Where a path really is: `.` and `..` removed, then the longest existing ancestor
/// canonicalized (symlinks followed) and the rest appended, so a file about to be created is
/// judged by where its folder really is. Never fails; never refuses (callers judge the result).
pub fn real_path(path: &Path) -> PathBuf {
    canonicalize_existing_prefix(&normalize(path))
}

fn canonicalize_existing_prefix(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(&existing) {
            let mut out = real;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (
            existing.file_name().map(|n| n.to_os_string()),
            existing.parent(),
        ) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

pub(crate) fn to_slash(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> (tempfile::TempDir, ProjectRoot) {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("src")).expect("mkdir");
        std::fs::write(dir.path().join("src/a.rs"), "a").expect("write");
        let root = ProjectRoot::open(dir.path()).expect("open");
        (dir, root)
    }

    #[test]
    fn relative_and_absolute_paths_inside_resolve() {
        let (_dir, root) = project();
        let r = root.resolve("src/../src/./a.rs").expect("resolve");
        assert_eq!(r.display, "src/a.rs");
        let abs = root.path().join("src/a.rs");
        let r2 = root.resolve(&abs.to_string_lossy()).expect("resolve abs");
        assert_eq!(r2.real, r.real);
        assert_eq!(root.resolve("").expect("root").display, "");
    }

    #[test]
    fn escapes_are_refused() {
        let (_dir, root) = project();
        for bad in ["..", "../x", "src/../../x", "/etc/passwd", "/"] {
            let err = root.resolve(bad).expect_err(bad);
            assert!(
                matches!(err, ToolError::OutsideProject { .. }),
                "{bad}: {err}"
            );
            assert!(err.to_string().contains("outside the project"));
        }
    }

    #[cfg(unix)]
    #[test]
    fn symlink_escape_is_refused() {
        let (_dir, root) = project();
        let outside = tempfile::tempdir().expect("tempdir");
        std::fs::write(outside.path().join("secret"), "s").expect("write");
        std::os::unix::fs::symlink(outside.path(), root.path().join("link")).expect("symlink");
        assert!(matches!(
            root.resolve("link/secret"),
            Err(ToolError::OutsideProject { .. })
        ));
        // A path to be created under the escaping link is refused as well.
        assert!(matches!(
            root.resolve("link/new/file"),
            Err(ToolError::OutsideProject { .. })
        ));
    }

    #[test]
    fn open_rejects_missing_and_file_paths() {
        let (dir, _root) = project();
        assert!(matches!(
            ProjectRoot::open(dir.path().join("nope")),
            Err(ToolError::NotFound(_))
        ));
        assert!(matches!(
            ProjectRoot::open(dir.path().join("src/a.rs")),
            Err(ToolError::NotADirectory(_))
        ));
        assert!(matches!(
            ProjectRoot::open(""),
            Err(ToolError::InvalidArgument(_))
        ));
    }
}
