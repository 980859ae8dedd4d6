//! `list_files`: a folder's entries, .gitignore-aware, never inside `.git/` or `node_modules/`.

mod ignored;

use crate::error::{ToolError, ToolResult};
use crate::paths::{ProjectRoot, to_slash};
use crate::tree_order::sort_entries;
use globset::{GlobBuilder, GlobMatcher};
use protocol::{EntryKind, FileEntry, FileListing};
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

pub(crate) use ignored::list_for_model;

/// Folders no listing ever enters: version-control internals and dependency trees that dwarf
/// the project and are never what the user or the model is looking for.
const NEVER_LISTED: &[&str] = &[".git", "node_modules"];
/// Of those, the one a listing of ignored files shows (not what is inside it): that the
/// project's dependencies are installed is worth knowing; git's own folder is not.
const SHOWN_WITH_IGNORED: &str = "node_modules";

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListFilesArgs {
    /// Folder to list, relative to the project root (or absolute inside it). Default: the root.
    #[serde(default)]
    pub path: String,
    /// Include sub-folders' contents. Default false.
    #[serde(default)]
    pub recursive: bool,
    /// Glob filter, e.g. `*.ts` (matched against names) or `src/**/*.rs` (matched against the
    /// path relative to `path`).
    #[serde(default)]
    pub pattern: Option<String>,
    /// Include hidden files (names starting with a dot). Default false.
    #[serde(default)]
    pub hidden: bool,
    /// Maximum entries returned. Default 1000.
    #[serde(default)]
    pub limit: Option<u32>,
    /// Also list what .gitignore, .ignore and .git/info/exclude hide (build output, logs,
    /// generated files), each marked `(ignored)`: they are not part of the source. Default
    /// false. `.git/` is never listed; `node_modules/` is then shown as one entry, not listed
    /// inside unless it is the folder asked for.
    #[serde(default)]
    pub include_ignored: bool,
}

pub const DEFAULT_LIST_LIMIT: u32 = 1000;

enum Pattern {
    /// No `/` in the glob: matched against the entry's name, at any depth (ripgrep's `-g`).
    Name(GlobMatcher),
    /// Matched against the path relative to the listed folder.
    Path(GlobMatcher),
}

impl Pattern {
    fn parse(glob: &str) -> ToolResult<Self> {
        // `*` stops at `/`, as in .gitignore and ripgrep's -g.
        let matcher = GlobBuilder::new(glob)
            .literal_separator(true)
            .build()
            .map_err(|e| {
                ToolError::InvalidArgument(format!(
                    "pattern `{glob}` is not a valid glob ({e}); try something like `*.rs` or `src/**/*.ts`"
                ))
            })?
            .compile_matcher();
        Ok(if glob.contains('/') {
            Pattern::Path(matcher)
        } else {
            Pattern::Name(matcher)
        })
    }

    fn matches(&self, name: &str, rel: &str) -> bool {
        match self {
            Pattern::Name(m) => m.is_match(name),
            Pattern::Path(m) => m.is_match(rel),
        }
    }
}

/// Lists a folder. Entries are sorted folder by folder, sub-folders first.
pub fn list_files(root: &ProjectRoot, args: &ListFilesArgs) -> ToolResult<FileListing> {
    list(root, args, false).map(|(listing, _)| listing)
}

/// A listing, and which of its entries .gitignore/.ignore would hide: with `include_ignored`
/// those are listed too (the set is empty without it).
fn list(
    root: &ProjectRoot,
    args: &ListFilesArgs,
    include_ignored: bool,
) -> ToolResult<(FileListing, BTreeSet<String>)> {
    let limit = args.limit.unwrap_or(DEFAULT_LIST_LIMIT);
    if limit == 0 {
        return Err(ToolError::InvalidArgument(
            "limit must be at least 1".into(),
        ));
    }
    let pattern = args.pattern.as_deref().map(Pattern::parse).transpose()?;
    let dir = root.resolve(&args.path)?;
    let meta = std::fs::metadata(&dir.real).map_err(|e| root.io_error(&dir, e))?;
    if !meta.is_dir() {
        return Err(ToolError::NotADirectory(dir.shown().into()));
    }
    let walk = Walk {
        dir: &dir.real,
        display: &dir.display,
        args,
        pattern: pattern.as_ref(),
        include_ignored,
    };
    let (mut entries, mut skipped) = walk.entries(true);
    // What the ignore files hide is what a walk without them finds beyond a walk with them.
    let mut kept = None;
    if include_ignored {
        kept = Some(entries.into_iter().map(|e| e.path).collect::<BTreeSet<_>>());
        (entries, skipped) = walk.entries(false);
    }
    // What the rules keep from the agent is not listed to it (the window's own root hides
    // nothing); the listing says how many were left out, so "no such file" is not assumed.
    let before = entries.len();
    entries.retain(|e| !root.is_secret(&root.path().join(&e.path)));
    let protected = before - entries.len();
    if protected > 0 {
        skipped.push(format!(
            "{protected} {} not listed: the rules keep {} from the agent (secrets or protected paths)",
            if protected == 1 { "file" } else { "files" },
            if protected == 1 { "it" } else { "them" },
        ));
    }
    sort_entries(&mut entries);
    let total = entries.len();
    entries.truncate(limit as usize);
    let ignored = match kept {
        Some(kept) => entries
            .iter()
            .filter(|e| !kept.contains(&e.path))
            .map(|e| e.path.clone())
            .collect(),
        None => BTreeSet::new(),
    };
    let listing = FileListing {
        path: dir.display,
        omitted: u32::try_from(total - entries.len()).unwrap_or(u32::MAX),
        entries,
        skipped,
    };
    Ok((listing, ignored))
}

/// One walk of a listing's folder.
struct Walk<'a> {
    dir: &'a Path,
    /// The folder as shown, relative to the project root.
    display: &'a str,
    args: &'a ListFilesArgs,
    pattern: Option<&'a Pattern>,
    include_ignored: bool,
}

impl Walk<'_> {
    /// The folder's entries (unsorted) and the folders that could not be read, honouring the
    /// ignore files or not.
    fn entries(&self, honour_ignores: bool) -> (Vec<FileEntry>, Vec<String>) {
        let mut walker = ignore::WalkBuilder::new(self.dir);
        let show_node_modules = self.include_ignored;
        walker
            .standard_filters(honour_ignores)
            .hidden(!self.args.hidden)
            .require_git(false)
            .follow_links(false)
            .max_depth(if self.args.recursive { None } else { Some(1) })
            .filter_entry(move |e| {
                let name = e.file_name().to_string_lossy();
                let never = e.depth() > 0
                    && e.file_type().is_some_and(|t| t.is_dir())
                    && NEVER_LISTED.contains(&name.as_ref())
                    && !(show_node_modules && name == SHOWN_WITH_IGNORED);
                !never
            });
        let mut entries = Vec::new();
        let mut skipped = Vec::new();
        if !self.args.recursive {
            for item in walker.build() {
                match item {
                    Ok(e) => entries.extend(self.to_entry(e)),
                    Err(err) => skipped.push(err.to_string()),
                }
            }
            return (entries, skipped);
        }
        // A whole tree: walk it on every core, as ripgrep does, then sort. Each thread fills
        // its own list and hands it over once, when the walk drops it.
        struct Local<'a> {
            found: &'a std::sync::Mutex<(Vec<FileEntry>, Vec<String>)>,
            entries: Vec<FileEntry>,
            skipped: Vec<String>,
        }
        impl Drop for Local<'_> {
            fn drop(&mut self) {
                let mut all = self
                    .found
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                all.0.append(&mut self.entries);
                all.1.append(&mut self.skipped);
            }
        }
        let found = std::sync::Mutex::new((Vec::new(), Vec::new()));
        walker.build_parallel().run(|| {
            let mut local = Local {
                found: &found,
                entries: Vec::new(),
                skipped: Vec::new(),
            };
            Box::new(move |item| {
                match item {
                    Ok(e) => {
                        // node_modules is shown as one entry, never listed inside.
                        let stop_here = e.depth() > 0
                            && e.file_name() == SHOWN_WITH_IGNORED
                            && e.file_type().is_some_and(|t| t.is_dir());
                        local.entries.extend(self.to_entry(e));
                        if stop_here {
                            return ignore::WalkState::Skip;
                        }
                    }
                    Err(err) => local.skipped.push(err.to_string()),
                }
                ignore::WalkState::Continue
            })
        });
        found
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn to_entry(&self, entry: ignore::DirEntry) -> Option<FileEntry> {
        if entry.depth() == 0 {
            return None;
        }
        let rel_to_dir = to_slash(entry.path().strip_prefix(self.dir).ok()?);
        let name = entry.file_name().to_string_lossy().into_owned();
        if self.pattern.is_some_and(|p| !p.matches(&name, &rel_to_dir)) {
            return None;
        }
        let symlink = entry.path_is_symlink();
        // A symlink is shown as what it points to; a dangling one as a file.
        let target = if symlink {
            std::fs::metadata(entry.path()).ok()
        } else {
            entry.metadata().ok()
        };
        let is_dir = target.as_ref().is_some_and(|m| m.is_dir());
        let path = if self.display.is_empty() {
            rel_to_dir
        } else {
            format!("{}/{rel_to_dir}", self.display)
        };
        Some(FileEntry {
            hidden: name.starts_with('.'),
            path,
            name,
            kind: if is_dir {
                EntryKind::Dir
            } else {
                EntryKind::File
            },
            symlink,
            size: if is_dir {
                None
            } else {
                target.map(|m| m.len())
            },
            git: None,
        })
    }
}

/// The listing as the model reads it: one path per line, folders with a trailing `/`.
pub fn render_listing(listing: &FileListing) -> String {
    render(listing, &BTreeSet::new())
}

/// [`render_listing`], with the entries in `ignored` marked so.
fn render(listing: &FileListing, ignored: &BTreeSet<String>) -> String {
    let mut out = String::new();
    let shown = if listing.path.is_empty() {
        "the project root"
    } else {
        listing.path.as_str()
    };
    if listing.entries.is_empty() {
        let _ = writeln!(
            out,
            "No entries in {shown} (hidden files are listed with hidden=true, ignored ones with include_ignored=true)."
        );
    }
    for e in &listing.entries {
        let mut notes: Vec<String> = Vec::new();
        let name = match e.kind {
            EntryKind::Dir => format!("{}/", e.path),
            EntryKind::File => {
                notes.push(
                    e.size
                        .map(human_size)
                        .unwrap_or_else(|| "broken link".into()),
                );
                e.path.clone()
            }
        };
        if e.symlink {
            notes.push("symlink".into());
        }
        // Build output, dependencies, local files: not part of the project's source.
        if ignored.contains(&e.path) {
            notes.push("ignored".into());
        }
        if notes.is_empty() {
            let _ = writeln!(out, "{name}");
        } else {
            let _ = writeln!(out, "{name} ({})", notes.join(", "));
        }
    }
    if listing.omitted > 0 {
        let _ = writeln!(
            out,
            "… {} more entries not shown. Raise `limit`, narrow with `pattern`, or list a sub-folder.",
            listing.omitted
        );
    }
    for s in &listing.skipped {
        let _ = writeln!(out, "skipped: {s}");
    }
    out
}

pub(crate) fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn project() -> (tempfile::TempDir, ProjectRoot) {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path();
        for d in [
            "src/inner",
            ".git/objects",
            "node_modules/pkg",
            "target",
            ".hidden_dir",
        ] {
            fs::create_dir_all(p.join(d)).expect("mkdir");
        }
        for (f, body) in [
            ("README.md", "readme"),
            ("src/main.rs", "fn main() {}"),
            ("src/lib.rs", "lib"),
            ("src/inner/deep.rs", "deep"),
            ("build.log", "ignored"),
            ("target/out.bin", "ignored dir"),
            (".env", "SECRET=1"),
            (".gitignore", "*.log\ntarget/\n"),
            (".git/HEAD", "ref"),
            ("node_modules/pkg/index.js", "x"),
            (".hidden_dir/x.txt", "x"),
        ] {
            fs::write(p.join(f), body).expect("write");
        }
        let root = ProjectRoot::open(p).expect("open");
        (dir, root)
    }

    fn paths(l: &FileListing) -> Vec<&str> {
        l.entries.iter().map(|e| e.path.as_str()).collect()
    }

    #[test]
    fn lists_root_non_recursively_honouring_gitignore_without_a_repo() {
        let (_d, root) = project();
        let l = list_files(&root, &ListFilesArgs::default()).expect("list");
        assert_eq!(paths(&l), ["src", "README.md"]);
        assert_eq!(l.entries[0].kind, EntryKind::Dir);
        assert_eq!(l.entries[1].size, Some(6));
        assert_eq!(l.omitted, 0);
    }

    #[test]
    fn hidden_shows_dotfiles_but_never_git_or_node_modules() {
        let (_d, root) = project();
        let args = ListFilesArgs {
            hidden: true,
            ..Default::default()
        };
        let l = list_files(&root, &args).expect("list");
        assert_eq!(
            paths(&l),
            [".hidden_dir", "src", ".env", ".gitignore", "README.md"]
        );
        assert!(l.entries.iter().filter(|e| e.hidden).count() == 3);
        let rec = list_files(
            &root,
            &ListFilesArgs {
                hidden: true,
                recursive: true,
                ..Default::default()
            },
        )
        .expect("list");
        assert!(
            !paths(&rec)
                .iter()
                .any(|p| p.contains(".git/") || p.contains("node_modules"))
        );
    }

    #[test]
    fn recursive_lists_depth_first_in_tree_order() {
        let (_d, root) = project();
        let args = ListFilesArgs {
            recursive: true,
            ..Default::default()
        };
        let l = list_files(&root, &args).expect("list");
        assert_eq!(
            paths(&l),
            [
                "src",
                "src/inner",
                "src/inner/deep.rs",
                "src/lib.rs",
                "src/main.rs",
                "README.md"
            ]
        );
    }

    #[test]
    fn sub_folder_paths_stay_relative_to_the_root() {
        let (_d, root) = project();
        let args = ListFilesArgs {
            path: "src".into(),
            ..Default::default()
        };
        let l = list_files(&root, &args).expect("list");
        assert_eq!(l.path, "src");
        assert_eq!(paths(&l), ["src/inner", "src/lib.rs", "src/main.rs"]);
    }

    #[test]
    fn pattern_by_name_and_by_path() {
        let (_d, root) = project();
        let by_name = ListFilesArgs {
            recursive: true,
            pattern: Some("*.rs".into()),
            ..Default::default()
        };
        let l = list_files(&root, &by_name).expect("list");
        assert_eq!(
            paths(&l),
            ["src/inner/deep.rs", "src/lib.rs", "src/main.rs"]
        );
        let by_path = ListFilesArgs {
            recursive: true,
            pattern: Some("src/*.rs".into()),
            ..Default::default()
        };
        let l = list_files(&root, &by_path).expect("list");
        assert_eq!(paths(&l), ["src/lib.rs", "src/main.rs"]);
        let bad = ListFilesArgs {
            pattern: Some("a[".into()),
            ..Default::default()
        };
        let err = list_files(&root, &bad).expect_err("bad glob");
        assert!(err.to_string().contains("not a valid glob"), "{err}");
    }

    #[test]
    fn limit_cuts_and_counts_the_rest() {
        let (_d, root) = project();
        let args = ListFilesArgs {
            recursive: true,
            limit: Some(2),
            ..Default::default()
        };
        let l = list_files(&root, &args).expect("list");
        assert_eq!(l.entries.len(), 2);
        assert_eq!(l.omitted, 4);
        assert!(render_listing(&l).contains("4 more entries not shown"));
        let zero = ListFilesArgs {
            limit: Some(0),
            ..Default::default()
        };
        assert!(matches!(
            list_files(&root, &zero),
            Err(ToolError::InvalidArgument(_))
        ));
    }

    #[test]
    fn errors_say_what_to_do() {
        let (_d, root) = project();
        let file = ListFilesArgs {
            path: "README.md".into(),
            ..Default::default()
        };
        let err = list_files(&root, &file).expect_err("file");
        assert!(err.to_string().contains("Use read_file"), "{err}");
        let missing = ListFilesArgs {
            path: "nope".into(),
            ..Default::default()
        };
        assert!(matches!(
            list_files(&root, &missing),
            Err(ToolError::NoSuchPath { .. })
        ));
        let outside = ListFilesArgs {
            path: "../".into(),
            ..Default::default()
        };
        assert!(matches!(
            list_files(&root, &outside),
            Err(ToolError::OutsideProject { .. })
        ));
    }

    #[test]
    fn render_marks_folders() {
        let (_d, root) = project();
        let l = list_files(&root, &ListFilesArgs::default()).expect("list");
        assert_eq!(render_listing(&l), "src/\nREADME.md (6 B)\n");
    }

    #[cfg(unix)]
    #[test]
    fn symlink_loops_do_not_hang_a_recursive_listing() {
        let (_d, root) = project();
        std::os::unix::fs::symlink(root.path(), root.path().join("src/loop")).expect("symlink");
        let args = ListFilesArgs {
            recursive: true,
            ..Default::default()
        };
        let l = list_files(&root, &args).expect("list");
        let looped = l
            .entries
            .iter()
            .find(|e| e.path == "src/loop")
            .expect("loop entry");
        assert!(looped.symlink);
        assert_eq!(looped.kind, EntryKind::Dir);
        assert!(!paths(&l).iter().any(|p| p.starts_with("src/loop/")));
    }

    #[test]
    fn schema_names_every_parameter() {
        let schema = serde_json::to_value(schemars::schema_for!(ListFilesArgs)).expect("schema");
        let props = schema["properties"].as_object().expect("properties");
        for key in ["path", "recursive", "pattern", "hidden", "limit"] {
            assert!(props.contains_key(key), "{key}");
        }
    }

    #[test]
    fn a_folder_of_100_000_files_lists_one_page_and_counts_the_rest() {
        let dir = tempfile::tempdir().expect("tempdir");
        let big = dir.path().join("big");
        fs::create_dir(&big).expect("mkdir");
        for i in 0..100_000 {
            fs::File::create(big.join(format!("f{i:06}.txt"))).expect("create");
        }
        let root = ProjectRoot::open(dir.path()).expect("open");
        // The root lists at once: the big folder is one entry until it is opened.
        let top = list_files(&root, &ListFilesArgs::default()).expect("list root");
        assert_eq!(paths(&top), ["big"]);
        let args = ListFilesArgs {
            path: "big".into(),
            limit: Some(5000),
            ..Default::default()
        };
        let l = list_files(&root, &args).expect("list big");
        assert_eq!(l.entries.len(), 5000);
        assert_eq!(l.omitted, 95_000);
        assert_eq!(l.entries[0].path, "big/f000000.txt");
    }
}
