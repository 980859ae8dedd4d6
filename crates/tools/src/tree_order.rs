//! The one order in which listings are shown: folder by folder, sub-folders before files,
//! names compared case-insensitively (then exactly, so the order is total and stable).

use protocol::{EntryKind, FileEntry};
use std::cmp::Ordering;

pub(crate) fn sort_entries(entries: &mut [FileEntry]) {
    entries.sort_by(compare);
}

fn compare(a: &FileEntry, b: &FileEntry) -> Ordering {
    let mut ca = a.path.split('/').peekable();
    let mut cb = b.path.split('/').peekable();
    loop {
        match (ca.next(), cb.next()) {
            (Some(x), Some(y)) => {
                // A component is a folder when more follows it, or when it is the entry itself
                // and the entry is a folder.
                let x_dir = ca.peek().is_some() || a.kind == EntryKind::Dir;
                let y_dir = cb.peek().is_some() || b.kind == EntryKind::Dir;
                if x != y {
                    return y_dir
                        .cmp(&x_dir)
                        .then_with(|| x.to_lowercase().cmp(&y.to_lowercase()))
                        .then_with(|| x.cmp(y));
                }
            }
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (None, None) => return Ordering::Equal,
        }
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
            ["docs", "src", "src/inner", "src/z.rs", "A.txt", "a.txt", "b.txt"]
        );
    }
}
