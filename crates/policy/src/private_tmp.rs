//! The private temporary folder the sandbox gives every command (`$TMPDIR`), and the files
//! `mktemp` makes in it. A path there is only known when the command runs, but the sandbox
//! confines it: writing or deleting there touches nothing of the user's, so in the sandbox
//! `f=$(mktemp); echo x > "$f"; rm "$f"` and `echo ok > "$TMPDIR/x"` need no question. A
//! variable counts only while the line cannot make it anything else: set once, where it
//! always runs, from a `mktemp` that writes in that folder, and bound nowhere else.

use crate::shell::{Parsed, SimpleCommand, Word};
use std::collections::HashSet;
use std::path::Path;

/// Where the private temporary folder stands in the paths the engine resolves. No path a
/// command names can start with it: a command line cannot hold a NUL.
pub const ROOT: &str = "/\0private-tmp";

/// What a variable set to `$(mktemp …)` stands for under [`ROOT`]: a NUL again, so no name in
/// the folder can be taken for one.
pub fn var_path(name: &str) -> String {
    format!("{ROOT}/\0{name}")
}

/// Whether a resolved path lies in the private temporary folder.
pub fn contains(path: &Path) -> bool {
    path.starts_with(ROOT)
}

/// Whether a resolved path is a variable set to `$(mktemp …)`, or lies under one.
pub fn from_var(path: &Path) -> bool {
    contains(path)
        && path
            .components()
            .nth(2)
            .is_some_and(|c| c.as_os_str().to_string_lossy().starts_with('\0'))
}

/// Whether a resolved path lies under a variable set to `$(mktemp …)` but is not the
/// variable itself (`"$d/x"`): when `mktemp` failed the variable is empty, and that path is
/// `/x`.
pub fn below_var(path: &Path) -> bool {
    from_var(path) && path.components().nth(3).is_some()
}

/// Names the shell or the runner sets itself, which a line may find already set.
fn reserved(name: &str) -> bool {
    matches!(
        name,
        "_" | "PWD"
            | "OLDPWD"
            | "HOME"
            | "TMPDIR"
            | "PATH"
            | "IFS"
            | "CDPATH"
            | "REPLY"
            | "OPTARG"
            | "OPTIND"
    ) || name.starts_with("BASH")
}

/// Builtins that set the variables they name (`read f`, `printf -v f`, `unset f`) or run text
/// as commands (`eval`).
const BINDERS: &[&str] = &[
    "read",
    "mapfile",
    "readarray",
    "printf",
    "getopts",
    "declare",
    "typeset",
    "local",
    "export",
    "readonly",
    "unset",
    "let",
    "eval",
    "source",
    ".",
    "wait",
    "coproc",
    "trap",
    "builtin",
    "command",
];

/// The variables the line sets to a file or folder `mktemp` makes in the private temporary
/// folder, and that nothing in the line can set to anything else.
pub fn mktemp_vars(src: &str, parsed: &Parsed) -> HashSet<String> {
    let mut out = HashSet::new();
    for (span, a) in &parsed.settled {
        let name = a.name.as_str();
        if reserved(name) || !mktemp_value(&a.value, src) {
            continue;
        }
        let assigned_again = parsed.assignments.iter().filter(|b| b.name == name).count() > 1
            || parsed
                .commands
                .iter()
                .any(|c| c.assignments.iter().any(|b| b.name == name));
        // `unset` is not a command to the parser: a line that unsets anything is doubted.
        let bound = parsed.commands.iter().any(|c| binds(c, name))
            || occurrences(src, "unset").next().is_some();
        let elsewhere = occurrences(src, name)
            .filter(|(i, _)| !span.contains(i))
            .any(|(i, len)| i < span.start || !expanded(src, i, len));
        if !assigned_again && !bound && !elsewhere {
            out.insert(a.name.clone());
        }
    }
    out
}

/// Whether the name at `i` only stands in an expansion of the variable (`$f`, `${f}`,
/// `${f%/*}`; not `${f:=…}`, which sets it), or only as an option's letters (`-d`) or in a
/// path (`x/f`): anything else may set it (`for f in`, `read f`, `(( f = 1 ))`).
fn expanded(src: &str, i: usize, len: usize) -> bool {
    let before = &src[..i];
    let after = &src[i + len..];
    if before.ends_with("${") {
        return !(after.starts_with(":=") || after.starts_with('=') || after.starts_with("::="));
    }
    before.ends_with(['$', '-', '/', '.'])
}

/// Whether the line leaves `TMPDIR` as the runner set it: it names it only to expand it.
pub fn tmpdir_kept(src: &str) -> bool {
    occurrences(src, "TMPDIR").all(|(i, len)| {
        let before = &src[..i];
        let after = &src[i + len..];
        before.ends_with('$')
            || (before.ends_with("${")
                && (after.starts_with('}') || after.starts_with(":-") || after.starts_with('-')))
    })
}

/// The words of a `mktemp` that makes its file or folder in the private temporary folder:
/// `mktemp`, `mktemp -d`, `mktemp -t name.XXXX`, `mktemp "$TMPDIR/x.XXXX"` — not one given
/// another folder (`-p`, `--tmpdir=`), nor a template it makes where the command runs.
pub fn mktemp_in_private(args: &[&str]) -> bool {
    let mut in_tmpdir = false;
    let mut template: Option<&str> = None;
    for a in args {
        if let Some(suffix) = a.strip_prefix("--suffix=") {
            if suffix.contains('/') {
                return false;
            }
        } else if matches!(*a, "--directory" | "--quiet" | "--dry-run") {
        } else if *a == "--tmpdir" {
            in_tmpdir = true;
        } else if let Some(letters) = a.strip_prefix('-').filter(|l| !l.starts_with('-')) {
            if letters.is_empty() || !letters.chars().all(|c| matches!(c, 'd' | 'q' | 't' | 'u')) {
                return false;
            }
            in_tmpdir |= letters.contains('t');
        } else if template.replace(a).is_some() {
            return false;
        }
    }
    match template {
        None => true,
        Some(t) => {
            let name_only = !t.contains('/') && !t.starts_with('$');
            (in_tmpdir && name_only) || tmpdir_template(t)
        }
    }
}

/// `$TMPDIR/name`, `${TMPDIR}/name`, `${TMPDIR:-/tmp}/name`.
fn tmpdir_template(t: &str) -> bool {
    let t = t.trim_matches('"');
    let rest = ["$TMPDIR/", "${TMPDIR}/", "${TMPDIR:-/tmp}/"]
        .iter()
        .find_map(|p| t.strip_prefix(p));
    rest.is_some_and(|r| {
        !r.is_empty()
            && r.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    })
}

/// `$(mktemp …)` or `` `mktemp …` ``, quoted or not, and nothing else.
fn mktemp_value(value: &Word, src: &str) -> bool {
    let Word::Dynamic(raw) = value else {
        return false;
    };
    let raw = raw
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(raw);
    let inner = raw
        .strip_prefix("$(")
        .and_then(|r| r.strip_suffix(')'))
        .or_else(|| raw.strip_prefix('`').and_then(|r| r.strip_suffix('`')));
    // One plain command: nothing after it, nothing quoted or escaped in its words.
    let Some(inner) = inner.filter(|i| {
        !i.contains([
            '\n', '\r', ';', '&', '|', '<', '>', '(', ')', '`', '\\', '\'',
        ])
    }) else {
        return false;
    };
    let words: Vec<&str> = inner.split_whitespace().collect();
    let Some((&"mktemp", args)) = words.split_first() else {
        return false;
    };
    // A template under `$TMPDIR` means the private folder only while the line keeps it.
    let plain = |a: &&str| {
        a.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '/' | '='))
    };
    args.iter().all(|a| plain(a) || tmpdir_template(a))
        && (args.iter().all(plain) || tmpdir_kept(src))
        && mktemp_in_private(args)
}

/// Whether a builtin that sets variables or runs text names this one anywhere in its words.
fn binds(cmd: &SimpleCommand, name: &str) -> bool {
    let Some(first) = cmd.words.first().and_then(Word::literal) else {
        return false;
    };
    BINDERS.contains(&first) && cmd.words[1..].iter().any(|w| w.shown().contains(name))
}

/// Where `name` stands as a whole name in the text: not inside a longer one.
fn occurrences<'s>(src: &'s str, name: &'s str) -> impl Iterator<Item = (usize, usize)> + 's {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    src.match_indices(name).filter_map(move |(i, m)| {
        let before = src[..i].chars().next_back();
        let after = src[i + m.len()..].chars().next();
        (!before.is_some_and(ident) && !after.is_some_and(ident)).then_some((i, m.len()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(src: &str) -> Vec<String> {
        let mut v: Vec<String> = mktemp_vars(src, &crate::shell::parse(src))
            .into_iter()
            .collect();
        v.sort();
        v
    }

    #[test]
    fn variables_that_only_mktemp_sets() {
        for (src, expected) in [
            ("f=$(mktemp); echo x > \"$f\"; rm \"$f\"", vec!["f"]),
            ("d=$(mktemp -d) && cd \"$d\" && rm -rf \"$d\"", vec!["d"]),
            ("f=\"$(mktemp -t x.XXXXXX)\"; cat \"$f\"", vec!["f"]),
            ("f=`mktemp`; rm -f \"$f\"", vec!["f"]),
            (
                "f=$(mktemp \"${TMPDIR:-/tmp}/x.XXXX\"); rm \"$f\"",
                vec!["f"],
            ),
            (
                "a=$(mktemp); b=$(mktemp -d); echo x > $a; rm -rf $b",
                vec!["a", "b"],
            ),
        ] {
            assert_eq!(vars(src), expected, "{src}");
        }
        for src in [
            "f=$(mktemp); f=~/.bashrc; echo x > \"$f\"",
            "f=$(mktemp); read f; rm -rf \"$f\"",
            "f=$(mktemp); printf -v f %s /; rm -rf \"$f\"",
            "f=$(mktemp); for f in *; do rm -rf \"$f\"; done",
            "f=$(mktemp); (( f = 1 )); rm \"$f\"",
            "f=$(mktemp); : ${f:=/}; rm -rf \"$f\"",
            "f=$(mktemp); unset f; rm -rf \"$f\"/x",
            "f=$(mktemp); eval 'f=/'; rm -rf \"$f\"",
            "rm -rf \"$f\"; f=$(mktemp)",
            "(f=$(mktemp)); rm \"$f\"",
            "ls && f=$(mktemp); rm \"$f\"",
            "f=$(mktemp -p ~); echo x > \"$f\"",
            "f=$(mktemp --tmpdir=/etc); echo x > \"$f\"",
            "f=$(mktemp ./x.XXXX); echo x > \"$f\"",
            "f=$(mktemp x.XXXX); echo x > \"$f\"",
            "f=$(mktemp /tmp/x.XXXX); echo x > \"$f\"",
            "f=$(mktemp)$(id); echo x > \"$f\"",
            "f=$(mktemp; id); echo x > \"$f\"",
            "f=$(mktemp -t\necho x); echo x > \"$f\"",
            "PWD=$(mktemp -d); rm -rf \"$PWD\"",
            "TMPDIR=~; f=$(mktemp \"$TMPDIR/x.XXXX\"); rm \"$f\"",
        ] {
            assert!(vars(src).is_empty(), "{src}: {:?}", vars(src));
        }
    }

    #[test]
    fn tmpdir_as_the_runner_set_it() {
        for src in [
            "echo ok > \"$TMPDIR/x\"",
            "echo ok > ${TMPDIR}/x",
            "echo ok > \"${TMPDIR:-/tmp}/x\"",
        ] {
            assert!(tmpdir_kept(src), "{src}");
        }
        for src in [
            "TMPDIR=~ ; echo ok > \"$TMPDIR/x\"",
            "export TMPDIR=/etc; echo ok > \"$TMPDIR/x\"",
            "unset TMPDIR; echo ok > \"$TMPDIR/x\"",
            "read TMPDIR; echo ok > \"$TMPDIR/x\"",
            "echo ok > \"${TMPDIR:=/etc}/x\"",
            "env TMPDIR=/etc sh -c 'echo > $TMPDIR/x'",
        ] {
            assert!(!tmpdir_kept(src), "{src}");
        }
    }

    #[test]
    fn mktemp_in_the_private_folder() {
        for args in [
            &[][..],
            &["-d"],
            &["-q"],
            &["-dq"],
            &["-t", "x.XXXX"],
            &["-d", "-t", "x.XXXX"],
            &["--tmpdir", "x.XXXX"],
            &["--suffix=.json"],
            &["$TMPDIR/x.XXXX"],
        ] {
            assert!(mktemp_in_private(args), "{args:?}");
        }
        for args in [
            &["-p", "/etc"][..],
            &["-pfoo"],
            &["--tmpdir=/etc"],
            &["x.XXXX"],
            &["./x.XXXX"],
            &["/tmp/x.XXXX"],
            &["-t", "../x.XXXX"],
            &["--suffix=/../x"],
            &["a.XXXX", "b.XXXX"],
        ] {
            assert!(!mktemp_in_private(args), "{args:?}");
        }
    }

    #[test]
    fn paths_under_a_variable() {
        assert!(contains(Path::new(&var_path("d"))));
        assert!(from_var(&Path::new(&var_path("d")).join("x")));
        assert!(!from_var(&Path::new(ROOT).join("x")));
        assert!(!below_var(Path::new(&var_path("d"))));
        assert!(below_var(&Path::new(&var_path("d")).join("x")));
        assert!(!below_var(&Path::new(ROOT).join("x")));
        assert!(!contains(Path::new("/tmp/x")));
    }
}
