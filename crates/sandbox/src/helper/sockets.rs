//! The machine's path sockets. A socket file ignores the network namespace: whoever can open
//! its path talks to the program behind it (an ssh agent, the git credential cache, a container
//! engine with administrator rights, a database). The kernel lists every socket bound to a
//! path in this network namespace, wherever it is; the sandbox hides each one still visible.

use std::path::{Path, PathBuf};

/// The path sockets listed in `/proc/net/unix` (abstract ones, `@…`, are kept apart by the
/// network namespace or Landlock's scoping), but for those under `keep` (the project's own).
pub(super) fn path_sockets(keep: &[&Path]) -> Vec<PathBuf> {
    let Ok(table) = std::fs::read_to_string("/proc/net/unix") else {
        return Vec::new();
    };
    let mut found = parse(&table);
    found.retain(|p| !keep.iter().any(|k| p.starts_with(k)));
    found.sort();
    found.dedup();
    found
}

/// Socket files found by their type (S_IFSOCK) in `places` (folders outside the project a
/// command was let read): the kernel's table names a socket as it was bound (a relative name,
/// before a rename, in another namespace), so a service's socket among them is found by what
/// it is. A few levels deep and a bounded number of entries; none under `keep`.
pub(super) fn sockets_in(places: &[PathBuf], keep: &[&Path]) -> Vec<PathBuf> {
    use std::os::unix::fs::FileTypeExt as _;
    const DEPTH: usize = 6;
    const ENTRIES: usize = 20_000;
    let mut out = Vec::new();
    let mut seen = 0;
    // A place that is itself a socket is hidden too: reading a path never means talking to
    // the program behind it.
    for p in places {
        if std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_socket())
            && !keep.iter().any(|k| p.starts_with(k))
        {
            out.push(p.clone());
        }
    }
    let mut stack: Vec<(PathBuf, usize)> = places.iter().map(|p| (p.clone(), 0)).collect();
    while let Some((dir, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            seen += 1;
            if seen > ENTRIES {
                return out;
            }
            let Ok(t) = e.file_type() else { continue };
            let path = e.path();
            if keep.iter().any(|k| path.starts_with(k)) {
                continue;
            }
            if t.is_socket() {
                out.push(path);
            } else if t.is_dir() && depth + 1 < DEPTH {
                stack.push((path, depth + 1));
            }
        }
    }
    out
}

/// Paths of the table's lines: what follows the seventh field, spaces and all.
fn parse(table: &str) -> Vec<PathBuf> {
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let mut rest = line;
            for _ in 0..7 {
                rest = rest.trim_start();
                let end = rest.find(' ')?;
                rest = &rest[end..];
            }
            let path = rest.strip_prefix(' ')?;
            path.starts_with('/').then(|| PathBuf::from(path))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_read_whole_and_abstract_sockets_skipped() {
        let table = "Num       RefCount Protocol Flags    Type St Inode Path\n\
            0000000077900c9b: 00000002 00000000 00010000 0001 01 27838 /tmp/y/sock with space\n\
            000000007fd15736: 00000003 00000000 00000000 0001 03  7946\n\
            00000000e32322f1: 00000002 00000000 00010000 0001 01 20346 @/tmp/.X11-unix/X0\n\
            00000000c7e0a9bd: 00000002 00000000 00010000 0001 01  1080 /run/user/1000/bus\n";
        assert_eq!(
            parse(table),
            vec![
                PathBuf::from("/tmp/y/sock with space"),
                PathBuf::from("/run/user/1000/bus")
            ]
        );
    }

    #[test]
    fn a_socket_in_a_readable_place_is_found_by_its_type() {
        let dir = tempfile::tempdir().expect("tempdir");
        let deep = dir.path().join("a/b");
        std::fs::create_dir_all(&deep).expect("mkdir");
        let _listener =
            std::os::unix::net::UnixListener::bind(deep.join("svc.sock")).expect("bind");
        std::fs::write(deep.join("plain"), "x").expect("write");
        let places = [dir.path().to_path_buf()];
        assert_eq!(sockets_in(&places, &[]), vec![deep.join("svc.sock")]);
        // Named itself.
        assert_eq!(
            sockets_in(&[deep.join("svc.sock")], &[]),
            vec![deep.join("svc.sock")]
        );
        assert!(sockets_in(&places, &[&dir.path().join("a")]).is_empty());
    }

    #[test]
    fn a_listening_socket_of_this_process_is_found() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("agent.sock");
        let _listener = std::os::unix::net::UnixListener::bind(&path).expect("bind");
        assert!(path_sockets(&[]).contains(&path));
        assert!(!path_sockets(&[dir.path()]).contains(&path));
    }
}
