//! A project file's text as the help for small models reads it: for a step back, a widened
//! edit or a draft.

/// The text of `path` in the project; nothing for a path outside the project or a file too
/// big to show a function of.
pub(crate) fn read(root: &tools::ProjectRoot, path: &str) -> Option<String> {
    const LARGEST: u64 = 1 << 20;
    let real = root.resolve(path).ok()?.real;
    if std::fs::metadata(&real).ok()?.len() > LARGEST {
        return None;
    }
    std::fs::read_to_string(real).ok()
}
