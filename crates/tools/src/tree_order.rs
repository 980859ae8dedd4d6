//! The one order in which listings are shown: folder by folder, sub-folders before files,
//! names compared case-insensitively and numbers by value (`dir2` before `dir10`, as a file
//! manager shows them), then exactly, so the order is total and stable.

use protocol::{EntryKind, FileEntry};

pub(crate) fn sort_entries(entries: &mut [FileEntry]) {
    // Keys are computed once per entry: a folder of 100,000 files sorts without lowercasing
    // names on every comparison.
    entries.sort_by_cached_key(sort_key);
}

/// One string whose byte order is the tree order: per path component a flag (`0` folder, `1`
/// file), the lowercased name with each run of digits written as its length then its digits
/// (so a longer number sorts after a shorter one), and a NUL; then the exact path, for names
/// that differ only in case or leading zeros.
fn sort_key(entry: &FileEntry) -> String {
    let mut key = String::with_capacity(entry.path.len() * 2 + 8);
    let mut parts = entry.path.split('/').peekable();
    while let Some(part) = parts.next() {
        // A component is a folder when more follows it, or when it is the entry itself and the
        // entry is a folder.
        let is_dir = parts.peek().is_some() || entry.kind == EntryKind::Dir;
        key.push(if is_dir { '0' } else { '1' });
        push_name(&mut key, part);
        key.push('\0');
    }
    key.push('\u{1}');
    key.push_str(&entry.path);
    key
}

fn push_name(key: &mut String, name: &str) {
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        if !c.is_ascii_digit() {
            key.extend(c.to_lowercase());
            continue;
        }
        let mut digits = String::from(c);
        while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
            digits.push(d);
            chars.next();
        }
        let value = digits.trim_start_matches('0');
        let value = if value.is_empty() { "0" } else { value };
        // `0` first keeps digits before letters, as in plain byte order; the width is
        // zero-padded so lengths compare as numbers.
        key.push('0');
        key.push_str(&format!("{:05}", value.len()));
        key.push_str(value);
    }
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
    fn numbers_in_names_sort_by_value() {
        let mut v = vec![
            entry("dir10", EntryKind::Dir),
            entry("dir2", EntryKind::Dir),
            entry("dir1", EntryKind::Dir),
            entry("dir1/file10.txt", EntryKind::File),
            entry("dir1/file9.txt", EntryKind::File),
            entry("dir1/file09.txt", EntryKind::File),
            entry("dira", EntryKind::Dir),
            entry("dir", EntryKind::Dir),
        ];
        sort_entries(&mut v);
        let order: Vec<_> = v.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(
            order,
            [
                "dir",
                "dir1",
                "dir1/file09.txt",
                "dir1/file9.txt",
                "dir1/file10.txt",
                "dir2",
                "dir10",
                "dira"
            ]
        );
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
