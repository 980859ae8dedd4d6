//! Programs known to only read, so they run without asking in every mode (even read_only): the
//! model looks around a lot, and asking each time would train people to click "allow" blindly.
//! This is an allow-list: a program not listed here (or vouched for by its own module, like
//! git's read-only sub-commands) is not taken to only read. Each entry lists the options that
//! would make it write or run something, which take it off the list.

use crate::shell::Word;

pub struct Reader {
    pub names: &'static [&'static str],
    /// Options that write or run something. Matched as GNU tools parse them: `--outp` is
    /// `--output`, and a letter inside a cluster (`-no`) counts.
    pub acting: &'static [&'static str],
    /// It prints the files it is given: an operand only known when it runs may be a secret,
    /// which only the sandbox hides.
    pub prints_files: bool,
    /// At most this many operands (`uniq`'s second one is its output file).
    pub max_operands: Option<usize>,
    /// Options whose value is the next word, for counting operands.
    pub values: &'static [&'static str],
    /// Arguments starting with `+` are commands (`less +…`).
    pub plus_acts: bool,
}

const fn reader(names: &'static [&'static str]) -> Reader {
    Reader {
        names,
        acting: &[],
        prints_files: false,
        max_operands: None,
        values: &[],
        plus_acts: false,
    }
}

const fn printer(names: &'static [&'static str]) -> Reader {
    Reader {
        prints_files: true,
        ..reader(names)
    }
}

pub const READERS: &[Reader] = &[
    reader(&[
        "ls", "dir", "vdir", "pwd", "echo", "printf", "true", "false", "test", "[", ":", "sleep",
        "seq", "cal", "uptime", "nproc", "whoami", "id", "groups", "users", "who", "w", "uname",
        "arch", "tty", "locale", "getconf", "which", "whereis", "type", "stat", "du", "df",
        "realpath", "readlink", "basename", "dirname", "pathchk", "cd", "pushd", "popd", "dirs",
        "ps", "pgrep", "free", "lscpu", "lsblk", "read", "wait", "jobs", "times", "expr", "numfmt",
        "factor",
    ]),
    printer(&[
        "cat",
        "tac",
        "nl",
        "head",
        "tail",
        "wc",
        "cut",
        "tr",
        "fold",
        "fmt",
        "expand",
        "unexpand",
        "rev",
        "paste",
        "join",
        "comm",
        "column",
        "od",
        "hexdump",
        "strings",
        "base64",
        "base32",
        "cksum",
        "sum",
        "md5sum",
        "sha1sum",
        "sha224sum",
        "sha256sum",
        "sha384sum",
        "sha512sum",
        "b2sum",
        "zcat",
        "bzcat",
        "xzcat",
        "grep",
        "egrep",
        "fgrep",
        "zgrep",
        "diff",
        "diff3",
        "cmp",
        "jq",
        "look",
    ]),
    Reader {
        acting: &["--pre"],
        ..printer(&["rg"])
    },
    Reader {
        acting: &["--pager"],
        ..printer(&["ag", "ack"])
    },
    Reader {
        acting: &["-o", "--output", "--compress-program"],
        values: &[
            "-k",
            "-t",
            "-S",
            "-T",
            "--key",
            "--field-separator",
            "--buffer-size",
        ],
        ..printer(&["sort"])
    },
    Reader {
        max_operands: Some(1),
        values: &[
            "-f",
            "-s",
            "-w",
            "--skip-fields",
            "--skip-chars",
            "--check-chars",
        ],
        ..printer(&["uniq"])
    },
    Reader {
        max_operands: Some(1),
        values: &["-c", "-g", "-l", "-o", "-s", "-n", "-cols", "-len", "-seek"],
        ..printer(&["xxd"])
    },
    // `python -m json.tool [in [out]]`: the second operand is written. Only Python's own: a
    // `json` of the project's where it runs is its code (see `Judge::shadowing_module`).
    Reader {
        max_operands: Some(1),
        values: &["--indent"],
        ..printer(&["json.tool"])
    },
    Reader {
        acting: &["-o", "--output"],
        ..printer(&["sdiff"])
    },
    Reader {
        acting: &["-o", "-O", "--log-file", "--LOG-FILE"],
        plus_acts: true,
        ..printer(&["less", "more", "most"])
    },
    Reader {
        acting: &["-i", "--inplace"],
        ..printer(&["yq"])
    },
    Reader {
        acting: &["-s", "--set", "-f", "--file"],
        ..reader(&["date"])
    },
    Reader {
        acting: &["-C", "--compile"],
        ..reader(&["file"])
    },
    Reader {
        acting: &["-o", "-R"],
        ..reader(&["tree"])
    },
    Reader {
        acting: &["-F", "--file", "-b", "--boot"],
        max_operands: Some(0),
        ..reader(&["hostname"])
    },
];

/// Tools whose `--version` only prints it.
const VERSIONED: &[&str] = &[
    "cargo", "rustc", "rustup", "rustfmt", "node", "npm", "npx", "pnpm", "yarn", "bun", "deno",
    "python", "python3", "pip", "pip3", "go", "gcc", "g++", "cc", "clang", "make", "cmake", "git",
    "java", "javac", "ruby", "gem", "perl", "php", "tsc", "uv", "poetry", "docker", "kubectl",
    "gh", "bash", "sh", "zsh", "jq", "rg", "fd", "cc", "ld",
];

pub fn reader_named(name: &str) -> Option<&'static Reader> {
    READERS.iter().find(|r| r.names.contains(&name))
}

/// Whether `name args…` only reads, by the table.
pub fn only_reads(name: &str, words: &[Word], sandboxed: bool) -> bool {
    let args = words.get(1..).unwrap_or(&[]);
    let Some(r) = reader_named(name) else {
        return VERSIONED.contains(&name)
            && args.len() == 1
            && args[0]
                .literal()
                .is_some_and(|a| matches!(a, "--version" | "-V" | "version"));
    };
    let mut operands = 0usize;
    let mut options_done = false;
    let mut skip_value = false;
    for w in args {
        let Some(a) = w.literal() else {
            // A computed word may be any option; and for a program that prints files, any file.
            if !r.acting.is_empty() || r.max_operands.is_some() || (r.prints_files && !sandboxed) {
                return false;
            }
            operands += 1;
            continue;
        };
        if skip_value {
            skip_value = false;
            continue;
        }
        if options_done || !a.starts_with(['-', '+']) || a == "-" {
            operands += 1;
            continue;
        }
        if a == "--" {
            options_done = true;
            continue;
        }
        if a.starts_with('+') {
            if r.plus_acts {
                return false;
            }
            operands += 1;
            continue;
        }
        if acts(r.acting, a) {
            return false;
        }
        if r.values.contains(&a) {
            skip_value = true;
        }
    }
    r.max_operands.is_none_or(|max| operands <= max)
}

/// Whether an argument is one of the acting options, spelled in full, abbreviated (`--outp`),
/// with a value (`--output=x`, `-ofile`) or inside a cluster (`-no`).
pub fn acts(acting: &[&str], arg: &str) -> bool {
    if let Some(long) = arg.strip_prefix("--") {
        let name = long.split('=').next().unwrap_or(long);
        return !name.is_empty()
            && acting.iter().any(|o| {
                o.strip_prefix("--")
                    .is_some_and(|full| full == name || (name.len() >= 2 && full.starts_with(name)))
            });
    }
    let Some(cluster) = arg.strip_prefix('-') else {
        return false;
    };
    acting.iter().any(|o| {
        o.strip_prefix('-')
            .filter(|s| !s.starts_with('-'))
            .is_some_and(|letter| {
                // A long option spelled with one dash (`-cols`) must match whole.
                if letter.chars().count() > 1 {
                    cluster == letter
                } else {
                    cluster.contains(letter)
                }
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ro(s: &str) -> bool {
        let ws: Vec<Word> = s
            .split_whitespace()
            .map(|w| Word::Literal(w.into()))
            .collect();
        only_reads(ws[0].shown(), &ws, false)
    }

    #[test]
    fn readers_and_writers() {
        assert!(ro("ls -la"));
        assert!(ro("sort -rn x"));
        assert!(!ro("sort -o out in"));
        assert!(!ro("sort --outp=src/main.rs README.md"));
        assert!(!ro("sort -no out in"));
        assert!(ro("uniq -c x"));
        assert!(!ro("uniq README.md src/main.rs"));
        assert!(!ro("less +!rm x"));
        assert!(!ro("rm x"));
        assert!(ro("cargo --version"));
        assert!(!ro("cargo build"));
        assert!(ro("tree -L 2"));
        assert!(!ro("tree -o x"));
        let dynamic = vec![Word::Literal("cat".into()), Word::Dynamic("$F".into())];
        assert!(!only_reads("cat", &dynamic, false));
        assert!(only_reads("cat", &dynamic, true));
        let echo = vec![Word::Literal("echo".into()), Word::Dynamic("$PATH".into())];
        assert!(only_reads("echo", &echo, false));
    }
}
