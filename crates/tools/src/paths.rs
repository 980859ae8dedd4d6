//! Resolving paths against the project root. Every tool goes through [`ProjectRoot::resolve`],
//! so `..`, absolute paths and symlinks can never reach outside the project. A path that is not
//! there is named relative to the project, with the existing paths it most likely meant.

use crate::error::{ToolError, ToolResult};
use std::path::{Component, Path, PathBuf};

/// How many existing paths a missing one suggests.
const MAX_SUGGESTIONS: usize = 4;
/// Entries looked at when searching the project for the same name elsewhere: every ordinary
/// project fits, and a huge one still answers quickly (this is an error path).
const MAX_ENTRIES_SEARCHED: usize = 50_000;
/// Folders never searched for suggestions (as list_files never lists them): dependency trees
/// and version-control internals are never what the model meant.
const NEVER_SEARCHED: &[&str] = &[".git", "node_modules"];

/// Which files are kept from the agent and its commands (the policy engine's judgement,
/// handed in: secrets by their built-in patterns and the paths the person's and the project's
/// rules protect). Called with absolute paths.
#[derive(Clone)]
pub struct SecretTest(std::sync::Arc<dyn Fn(&Path) -> bool + Send + Sync>);

impl<F: Fn(&Path) -> bool + Send + Sync + 'static> From<F> for SecretTest {
    fn from(f: F) -> Self {
        SecretTest(std::sync::Arc::new(f))
    }
}

impl std::ops::Deref for SecretTest {
    type Target = dyn Fn(&Path) -> bool + Send + Sync;
    fn deref(&self) -> &Self::Target {
        &*self.0
    }
}

impl std::fmt::Debug for SecretTest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretTest")
    }
}

/// A [`SecretTest`] of a plain function (the built-in secret patterns alone).
pub fn secret_test(f: fn(&Path) -> bool) -> SecretTest {
    f.into()
}

/// A project folder, canonicalized once when opened.
#[derive(Debug, Clone)]
pub struct ProjectRoot {
    root: PathBuf,
    /// Which files hold secrets: searches never look inside them, whatever globs ask for.
    /// Handed in by the caller (the policy engine's judgement).
    secret: Option<SecretTest>,
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
    pub fn hiding_secrets(mut self, is_secret: impl Into<SecretTest>) -> Self {
        self.secret = Some(is_secret.into());
        self
    }

    /// This folder, keeping out of its searches what `other`'s keep out.
    pub(crate) fn hiding_secrets_as(mut self, other: &ProjectRoot) -> Self {
        self.secret = other.secret.clone();
        self
    }

    /// Whether a file is one of the secrets searches never open.
    pub fn is_secret(&self, path: &Path) -> bool {
        self.secret.as_ref().is_some_and(|f| f(path))
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
            near: self.nearest(path),
        };
        let display = match lexical.strip_prefix(&self.root) {
            Ok(rel) => to_slash(rel),
            Err(_) => return Err(outside()),
        };
        let real = canonicalize_existing_prefix(&lexical, 0);
        if !real.starts_with(&self.root) {
            return Err(outside());
        }
        if let Some(link) = climbed_link(&self.root, asked, &real) {
            return Err(ToolError::InvalidArgument(format!(
                "the path {path} goes through {link}, a link to another folder, and then \"..\". \
                 A program that opens it follows the link first, so it would not reach {shown}; \
                 this tool does not follow such a path. Name the file without \"..\" after a \
                 link, here \"{shown}\".",
                shown = if display.is_empty() { "." } else { &display },
            )));
        }
        Ok(Resolved { real, display })
    }

    /// Names an absolute path inside the root relative to it, with `/` separators.
    pub fn relative(&self, path: &Path) -> Option<String> {
        path.strip_prefix(&self.root).ok().map(to_slash)
    }

    /// The error for a resolved path that does not exist: named as the project knows it, with
    /// the existing paths it most likely meant.
    pub fn missing(&self, resolved: &Resolved) -> ToolError {
        ToolError::NoSuchPath {
            path: resolved.shown().to_string(),
            near: self.nearest(&resolved.display),
        }
    }

    /// An I/O error on a resolved path, as the error that explains it best, naming the path
    /// relative to the project: where the project sits on this machine is no business of the
    /// model's, and a relative path is what it must send back.
    pub fn io_error(&self, resolved: &Resolved, err: std::io::Error) -> ToolError {
        if err.kind() == std::io::ErrorKind::NotFound {
            return self.missing(resolved);
        }
        ToolError::io(resolved.shown(), err)
    }

    /// Existing paths (relative, `/`-separated) that `asked` most likely meant, closest first:
    /// the path without the project's own folder names at its front (a model that writes
    /// `PARENT/PROJECT/calc.py` for the root's `calc.py`), a near spelling in the same folder,
    /// the same name elsewhere in the project. Secret files are never suggested.
    pub fn nearest(&self, asked: &str) -> Vec<String> {
        let parts: Vec<&str> = asked
            .split(['/', '\\'])
            .filter(|p| !p.is_empty() && *p != "." && *p != "..")
            .collect();
        let Some((&name, folders)) = parts.split_last() else {
            return Vec::new();
        };
        let mut found: Vec<String> = Vec::new();
        let offer = |rel: String, found: &mut Vec<String>| {
            if found.len() < MAX_SUGGESTIONS && !found.contains(&rel) && self.exists_inside(&rel) {
                found.push(rel);
            }
        };
        for rel in self.without_own_folders(&parts) {
            offer(rel, &mut found);
        }
        for rel in self.near_spellings(folders, name) {
            offer(rel, &mut found);
        }
        for rel in self.same_name_elsewhere(&parts) {
            offer(rel, &mut found);
        }
        found
    }

    /// `asked` with a run of the root's own folder names cut from its front: the longest
    /// leading run found in the root's path (in order), and everything up to the last mention
    /// of the project's folder.
    fn without_own_folders(&self, parts: &[&str]) -> Vec<String> {
        let own: Vec<String> = self
            .root
            .components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        let mut out = Vec::new();
        let mut matched = 0;
        let mut at = 0;
        for part in &parts[..parts.len().saturating_sub(1)] {
            match own[at..].iter().position(|o| o == part) {
                Some(i) => {
                    at += i + 1;
                    matched += 1;
                }
                None => break,
            }
        }
        if matched > 0 {
            out.push(parts[matched..].join("/"));
        }
        if let Some(project) = own.last()
            && let Some(i) = parts[..parts.len().saturating_sub(1)]
                .iter()
                .rposition(|p| p == project)
        {
            out.push(parts[i + 1..].join("/"));
        }
        out
    }

    /// Names in the asked folder (when it exists) that differ from the asked name by case or
    /// by a slip of a character or two, nearest first.
    fn near_spellings(&self, folders: &[&str], name: &str) -> Vec<String> {
        let folder = folders.join("/");
        let real = canonicalize_existing_prefix(&normalize(&self.root.join(&folder)), 0);
        if !real.starts_with(&self.root) {
            return Vec::new();
        }
        let Ok(entries) = std::fs::read_dir(real) else {
            return Vec::new();
        };
        let asked = name.to_lowercase();
        let allowed = if asked.chars().count() >= 5 { 2 } else { 1 };
        let mut near: Vec<(usize, String)> = entries
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().into_string().ok())
            .filter_map(|n| {
                let d = edit_distance(&n.to_lowercase(), &asked);
                (d <= allowed).then_some((d, n))
            })
            .collect();
        near.sort();
        near.into_iter()
            .map(|(_, n)| {
                if folder.is_empty() {
                    n
                } else {
                    format!("{folder}/{n}")
                }
            })
            .collect()
    }

    /// Entries anywhere in the project with the asked name (any case), those sharing more of
    /// the asked path's end first, then the shallower.
    fn same_name_elsewhere(&self, parts: &[&str]) -> Vec<String> {
        let Some(name) = parts.last().map(|n| n.to_lowercase()) else {
            return Vec::new();
        };
        let mut hits: Vec<(usize, usize, String)> = Vec::new();
        let walk = ignore::WalkBuilder::new(&self.root)
            .require_git(false)
            .follow_links(false)
            .filter_entry(|e| {
                !(e.depth() > 0
                    && e.file_type().is_some_and(|t| t.is_dir())
                    && NEVER_SEARCHED.contains(&e.file_name().to_string_lossy().as_ref()))
            })
            .build();
        for entry in walk.take(MAX_ENTRIES_SEARCHED).filter_map(Result::ok) {
            if entry.depth() == 0 || entry.file_name().to_string_lossy().to_lowercase() != name {
                continue;
            }
            let Some(rel) = self.relative(entry.path()) else {
                continue;
            };
            let shared = rel
                .rsplit('/')
                .zip(parts.iter().rev())
                .take_while(|(a, b)| a.eq_ignore_ascii_case(b))
                .count();
            hits.push((usize::MAX - shared, entry.depth(), rel));
        }
        hits.sort();
        hits.into_iter().map(|(_, _, rel)| rel).collect()
    }

    /// Whether a relative path names something that exists inside the project and may be
    /// named (not a secret, not a link out).
    fn exists_inside(&self, rel: &str) -> bool {
        if rel.is_empty() {
            return false;
        }
        let real = canonicalize_existing_prefix(&normalize(&self.root.join(rel)), 0);
        real.starts_with(&self.root) && real.exists() && !self.is_secret(&real)
    }
}

impl Resolved {
    /// The relative path as people and models read it: the root is `.`.
    pub fn shown(&self) -> &str {
        if self.display.is_empty() {
            "."
        } else {
            &self.display
        }
    }
}

/// Optimal string alignment distance: edits, with a swap of neighbours counted as one (the
/// commonest slip, `mian.rs`).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > 2 {
        return usize::MAX;
    }
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for i in 0..=a.len() {
        d[i * width] = i;
    }
    for (j, cell) in d.iter_mut().enumerate().take(width) {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}

/// The link (as the path was written up to it) a `..` in `asked` climbs out of, when the kernel
/// would walk it from `base` somewhere other than `real`, where the path reads: the kernel
/// resolves `escape` before it applies the `..` after it, so `escape/..` is the folder above
/// where `escape` leads, which the shell and every other program reach but the tools would not.
fn climbed_link(base: &Path, asked: &Path, real: &Path) -> Option<String> {
    if !asked.components().any(|c| c == Component::ParentDir) {
        return None;
    }
    let mut walked = base.to_path_buf();
    let mut written = base.to_path_buf();
    let mut link = None;
    for (i, c) in asked.components().enumerate() {
        match c {
            Component::ParentDir => {
                walked = canonicalize_existing_prefix(&walked, 0);
                let by_name = written.parent().map(|p| canonicalize_existing_prefix(p, 0));
                if link.is_none() && walked.parent() != by_name.as_deref() {
                    link = Some(i);
                }
                walked.pop();
                written.pop();
            }
            Component::CurDir => {}
            other => {
                walked.push(other.as_os_str());
                written.push(other.as_os_str());
            }
        }
    }
    if canonicalize_existing_prefix(&walked, 0) == real {
        return None;
    }
    let upto = link.unwrap_or(usize::MAX);
    let shown: PathBuf = asked.components().take(upto).collect();
    Some(shown.display().to_string())
}

/// Removes `.` and resolves `..` without touching the disk (`..` at the top stays at the top).
pub(crate) fn normalize(path: &Path) -> PathBuf {
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
    canonicalize_existing_prefix(&normalize(path), 0)
}

/// Links followed before giving up on a chain (the kernel's own limit is 40).
const MAX_LINKS: u32 = 40;

/// The real path of `path`: its longest existing prefix canonicalized, the rest appended. A
/// link whose target does not exist yet is followed too, because a shell writing through it
/// (`echo x >> dangling`) creates the target, wherever it points.
fn canonicalize_existing_prefix(path: &Path, links: u32) -> PathBuf {
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
        let dangling = std::fs::symlink_metadata(&existing)
            .is_ok_and(|m| m.file_type().is_symlink())
            .then(|| std::fs::read_link(&existing).ok())
            .flatten();
        if let (Some(target), true) = (dangling, links < MAX_LINKS) {
            let base = existing.parent().unwrap_or(Path::new("/"));
            let mut next = normalize(&base.join(target));
            for part in rest.iter().rev() {
                next.push(part);
            }
            return canonicalize_existing_prefix(&next, links + 1);
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

    /// A shell appending through a link to a file that does not exist yet creates that file:
    /// the policy must judge the write where it lands, not at the link.
    #[test]
    fn a_dangling_link_resolves_to_where_a_write_through_it_would_land() {
        let project = tempfile::tempdir().expect("tempdir");
        let outside = tempfile::tempdir().expect("tempdir");
        let target = outside.path().join("made-by-shell");
        std::os::unix::fs::symlink(&target, project.path().join("dangle")).expect("link");
        let real = real_path(&project.path().join("dangle"));
        assert_eq!(
            real,
            outside
                .path()
                .canonicalize()
                .expect("c")
                .join("made-by-shell")
        );
        // A chain of links, one relative, still lands outside; a loop does not hang.
        std::os::unix::fs::symlink("dangle", project.path().join("second")).expect("link");
        assert_eq!(real_path(&project.path().join("second")), real);
        std::os::unix::fs::symlink("loop-b", project.path().join("loop-a")).expect("link");
        std::os::unix::fs::symlink("loop-a", project.path().join("loop-b")).expect("link");
        let _ = real_path(&project.path().join("loop-a"));
    }

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

    /// `escape/../pwned.txt` with `escape` a link to a folder outside: the shell (the kernel)
    /// writes beside where `escape` leads, outside the project. The tools refuse the path
    /// rather than write somewhere else than every other program would (issue 21).
    #[cfg(unix)]
    #[test]
    fn a_path_climbing_out_of_a_link_is_refused() {
        let (_dir, root) = project();
        let outside = tempfile::tempdir().expect("tempdir");
        std::os::unix::fs::symlink(outside.path(), root.path().join("escape")).expect("symlink");
        std::os::unix::fs::symlink(root.path().join("src"), root.path().join("inside"))
            .expect("symlink");
        for bad in ["escape/../pwned.txt", "src/../escape/../src/a.rs"] {
            let err = root.resolve(bad).expect_err(bad);
            let text = err.to_string();
            assert!(
                matches!(err, ToolError::InvalidArgument(_)),
                "{bad}: {text}"
            );
            assert!(text.contains("escape, a link"), "{bad}: {text}");
            assert!(text.contains("without \"..\""), "{bad}: {text}");
        }
        let err = root.resolve("escape/../pwned.txt").expect_err("climbs");
        assert!(err.to_string().contains("here \"pwned.txt\""), "{err}");
        // `..` through ordinary folders, and out of a link that leads back where the path
        // reads, is where it says.
        assert_eq!(
            root.resolve("src/../src/a.rs").expect("plain").display,
            "src/a.rs"
        );
        assert_eq!(
            root.resolve("inside/../src/a.rs").expect("inside").display,
            "src/a.rs"
        );
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
