//! Files a program made, not a person: caches, compiled files, build output. A restore still
//! puts them back, but the preview lists the person's own files first and folds these away —
//! a `__pycache__` file must not be the first thing someone reviewing a restore sees.

/// Folders whose whole content is made by tools.
const FOLDERS: &[&str] = &[
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".tox",
    ".nox",
    ".venv",
    "venv",
    "node_modules",
    ".next",
    ".nuxt",
    ".svelte-kit",
    ".parcel-cache",
    ".turbo",
    ".gradle",
    ".cache",
    "target",
    "build",
    "dist",
    "htmlcov",
    "coverage",
];

/// File endings of compiled or cached output.
const ENDINGS: &[&str] = &[".pyc", ".pyo", ".o", ".obj", ".class", ".tsbuildinfo"];

/// File names tools leave behind.
const NAMES: &[&str] = &[".DS_Store", ".coverage", "Thumbs.db"];

/// Whether a project-relative path is, by its name alone, something a program made.
pub fn by_name(path: &str) -> bool {
    let mut parts = path.split('/').filter(|p| !p.is_empty()).peekable();
    while let Some(part) = parts.next() {
        let last = parts.peek().is_none();
        if !last && (FOLDERS.contains(&part) || part.ends_with(".egg-info")) {
            return true;
        }
        if last {
            return NAMES.contains(&part) || ENDINGS.iter().any(|e| part.ends_with(e));
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caches_and_build_output_are_generated_sources_are_not() {
        for p in [
            "__pycache__/calc.cpython-312.pyc",
            "pkg/__pycache__/x.cpython-311.pyc",
            "calc.pyc",
            "node_modules/left-pad/index.js",
            "target/debug/app",
            "web/dist/app.js",
            ".DS_Store",
            "src/x.egg-info/PKG-INFO",
            "tsconfig.tsbuildinfo",
        ] {
            assert!(by_name(p), "{p} is generated");
        }
        for p in [
            "calc.py",
            "src/build.rs",
            "build.gradle",
            "docs/target.md",
            "dist",
            "notes/coverage.md",
            "src/main.c",
        ] {
            assert!(!by_name(p), "{p} is the person's own");
        }
    }
}
