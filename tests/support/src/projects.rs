//! Small projects the suites give the agent.

use std::path::Path;

/// A Python module whose `add` subtracts: the file a small model is asked to fix.
pub fn buggy_calc_module(dir: &Path) {
    std::fs::write(dir.join("calc.py"), "def add(a, b):\n    return a - b\n").expect("write");
}

/// [`buggy_calc_module`] and the unittest that says it is wrong.
pub fn buggy_calc(dir: &Path) {
    buggy_calc_module(dir);
    std::fs::write(
        dir.join("test_calc.py"),
        "import unittest\nfrom calc import add\n\n\nclass Calc(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n",
    )
    .expect("write");
}

/// Every file under the project's `.git` (index, HEAD, refs, the stash, objects), byte for
/// byte, by its path from the project: what a test compares before and after to see that the
/// person's repository was left exactly as it was.
pub fn git_dir(root: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut dirs = vec![root.join(".git")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                let rel = p.strip_prefix(root).expect("inside").display().to_string();
                out.insert(rel, std::fs::read(&p).expect("read"));
            }
        }
    }
    out
}

/// The disk a folder's files take (allocated blocks, as `du` counts them): what a session's
/// data costs next to the project's.
pub fn disk_bytes(dir: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt as _;
    let mut total = 0;
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            if let Ok(meta) = std::fs::symlink_metadata(e.path()) {
                total += meta.blocks() * 512;
                if meta.is_dir() {
                    dirs.push(e.path());
                }
            }
        }
    }
    total
}
