//! Commands that only read, so they run without asking in every mode (even read_only): the
//! model looks around a lot, and asking each time would train people to click "allow" blindly.
//! Each entry lists the options that would make it write, which take it off the list.

/// `(program, first sub-command or "", options that write)`.
const READ_ONLY: &[(&str, &str, &[&str])] = &[
    ("ls", "", &[]),
    ("cat", "", &[]),
    ("head", "", &[]),
    ("tail", "", &[]),
    ("wc", "", &[]),
    ("grep", "", &[]),
    ("egrep", "", &[]),
    ("fgrep", "", &[]),
    ("rg", "", &["--pre"]),
    ("pwd", "", &[]),
    ("echo", "", &[]),
    ("printf", "", &["-v"]),
    ("which", "", &[]),
    ("whereis", "", &[]),
    ("type", "", &[]),
    ("file", "", &[]),
    ("stat", "", &[]),
    ("du", "", &[]),
    ("df", "", &[]),
    ("tree", "", &["-o"]),
    ("sort", "", &["-o", "--output"]),
    ("uniq", "", &[]),
    ("cut", "", &[]),
    ("tr", "", &[]),
    ("diff", "", &[]),
    ("cmp", "", &[]),
    ("basename", "", &[]),
    ("dirname", "", &[]),
    ("realpath", "", &[]),
    ("readlink", "", &[]),
    ("date", "", &["-s", "--set"]),
    ("whoami", "", &[]),
    ("id", "", &[]),
    ("uname", "", &[]),
    ("true", "", &[]),
    ("false", "", &[]),
    ("test", "", &[]),
    ("[", "", &[]),
    ("jq", "", &[]),
    ("nl", "", &[]),
    ("less", "", &[]),
    ("more", "", &[]),
    ("sha256sum", "", &[]),
    ("md5sum", "", &[]),
    ("git", "status", &[]),
    ("git", "log", &["--output"]),
    ("git", "diff", &["--output"]),
    ("git", "show", &["--output"]),
    ("git", "blame", &[]),
    ("git", "rev-parse", &[]),
    ("git", "ls-files", &[]),
    ("git", "describe", &[]),
    ("git", "shortlog", &[]),
    ("cargo", "--version", &[]),
    ("rustc", "--version", &[]),
    ("node", "--version", &[]),
    ("npm", "--version", &[]),
    ("python3", "--version", &[]),
];

/// Whether `name args…` only reads. `find` is read-only without its acting options.
pub fn is_read_only(name: &str, args: &[&str]) -> bool {
    if name == "find" {
        // Commands given to `-exec` are judged on their own; these act by themselves.
        const ACTS: &[&str] = &["-delete", "-fprint", "-fprint0", "-fprintf", "-fls"];
        return !args.iter().any(|a| ACTS.contains(a));
    }
    let sub = args.iter().find(|a| !a.starts_with('-')).copied();
    READ_ONLY.iter().any(|(program, first, writes)| {
        *program == name
            && (first.is_empty()
                || (first.starts_with('-') && args.first() == Some(first))
                || sub == Some(*first))
            && !args.iter().any(|a| {
                writes
                    .iter()
                    .any(|w| a == w || a.starts_with(&format!("{w}=")))
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readers_and_writers() {
        assert!(is_read_only("ls", &["-la"]));
        assert!(is_read_only("git", &["status", "--short"]));
        assert!(is_read_only("git", &["--no-pager", "log"]));
        assert!(!is_read_only("git", &["log", "--output=x"]));
        assert!(!is_read_only("git", &["push"]));
        assert!(!is_read_only("sort", &["-o", "out", "in"]));
        assert!(is_read_only("find", &[".", "-name", "*.rs"]));
        assert!(!is_read_only("find", &[".", "-delete"]));
        assert!(is_read_only("find", &[".", "-exec", "cat", "{}", ";"]));
        assert!(!is_read_only("rm", &["x"]));
    }
}
