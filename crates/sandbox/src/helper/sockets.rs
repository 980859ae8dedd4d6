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
    fn a_listening_socket_of_this_process_is_found() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("agent.sock");
        let _listener = std::os::unix::net::UnixListener::bind(&path).expect("bind");
        assert!(path_sockets(&[]).contains(&path));
        assert!(!path_sockets(&[dir.path()]).contains(&path));
    }
}
