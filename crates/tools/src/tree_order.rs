//! The one order in which listings are shown: folder by folder, sub-folders before files,
//! names compared case-insensitively (then exactly, so the order is total and stable).

use protocol::{EntryKind, FileEntry};

pub(crate) fn sort_entries(entries: &mut [FileEntry]) {
    // Keys are computed once per entry: a folder of 100,000 files sorts without lowercasing
    // names on every comparison.
    entries.sort_by_cached_key(sort_key);
}

/// One string whose byte order is the tree order: per path component a flag (`0` folder, `1`
/// file), the lowercased name and a NUL; then the exact path, for names that differ only in
/// case.
fn sort_key(entry: &FileEntry) -> String {
    let mut key = String::with_capacity(entry.path.len() * 2 + 8);
    let mut parts = entry.path.split('/').peekable();
    while let Some(part) = parts.next() {
        // A component is a folder when more follows it, or when it is the entry itself and the
        // entry is a folder.
        let is_dir = parts.peek().is_some() || entry.kind == EntryKind::Dir;
        key.push(if is_dir { '0' } else { '1' });
        key.extend(part.chars().flat_map(char::to_lowercase));
        key.push('\0');
    }
    key.push('\u{1}');
    key.push_str(&entry.path);
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, kind: EntryKind) -> FileEntry {
        FileEntry {
            path: path.into(),
            name: path.rsplit('/').next().unwrap_or(path).into(),
            kind,
            symlink: false,
            hidden: false,
            size: None,
            git: None,
        }
    }

    #[test]
    fn folders_first_then_case_insensitive_names_depth_first() {
        let mut v = vec![
            entry("b.txt", EntryKind::File),
            entry("src/z.rs", EntryKind::File),
            entry("A.txt", EntryKind::File),
            entry("src", EntryKind::Dir),
            entry("docs", EntryKind::Dir),
            entry("src/inner", EntryKind::Dir),
            entry("a.txt", EntryKind::File),
        ];
        sort_entries(&mut v);
        let order: Vec<_> = v.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(
            order,
            [
                "docs",
                "src",
                "src/inner",
                "src/z.rs",
                "A.txt",
                "a.txt",
                "b.txt"
            ]
        );
    }
}
