//! Programs that run another command given in their arguments (`timeout 5 rm …`, `nohup`,
//! `strace -o log rm …`, `uv run python …`), described as data: which options take a value,
//! which hold a shell script or name a file the wrapper writes, and how many operands come
//! before the command. The judge looks through them at the command they run.

use crate::shell::Word;

/// How a wrapper's arguments are laid out.
pub struct Wrapper {
    pub names: &'static [&'static str],
    /// The sub-command that makes it a wrapper (`uv run`, `poetry run`); empty when the program
    /// always is one.
    pub sub: &'static [&'static str],
    /// Options that take a value (glued, `-o0`, `--opt=v`, or the next word).
    pub values: Options,
    /// Options whose value is a shell script the wrapper runs.
    pub scripts: Options,
    /// Options whose value is a file the wrapper writes.
    pub writes: Options,
    /// Options whose value is the folder the command runs in.
    pub chdir: Options,
    /// Operands before the command: a duration, a CPU mask, a lock file.
    pub operands: usize,
    /// The wrapped command is a package to fetch and run (`npx pkg`): `pkg@1.2` names `pkg`.
    pub package: bool,
    /// The command words are joined and run by a shell (`watch rm -rf /` runs `sh -c`).
    pub joined: bool,
}

/// A set of a wrapper's options, by their single letters and their long names.
pub struct Options {
    pub short: &'static str,
    pub long: &'static [&'static str],
}

const NONE: Options = Options {
    short: "",
    long: &[],
};

impl Options {
    fn has(&self, opt: &Opt) -> bool {
        match opt {
            Opt::Short(c) => self.short.contains(*c),
            Opt::Long(l) => self.long.contains(l),
        }
    }
}

const fn wrapper(names: &'static [&'static str]) -> Wrapper {
    Wrapper {
        names,
        sub: &[],
        values: NONE,
        scripts: NONE,
        writes: NONE,
        chdir: NONE,
        operands: 0,
        package: false,
        joined: false,
    }
}

pub const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        values: Options {
            short: "a",
            long: &[],
        },
        ..wrapper(&["command", "builtin", "exec"])
    },
    wrapper(&[
        "nohup",
        "unbuffer",
        "chronic",
        "catchsegv",
        "dbus-run-session",
        "with-contenv",
    ]),
    Wrapper {
        values: Options {
            short: "fo",
            long: &["--format", "--output"],
        },
        writes: Options {
            short: "o",
            long: &["--output"],
        },
        ..wrapper(&["time"])
    },
    wrapper(&["setsid", "setpriv", "torsocks", "caffeinate"]),
    Wrapper {
        values: Options {
            short: "n",
            long: &["--adjustment"],
        },
        ..wrapper(&["nice"])
    },
    Wrapper {
        values: Options {
            short: "cnpPut",
            long: &["--class", "--classdata", "--pid", "--pgid", "--uid"],
        },
        ..wrapper(&["ionice"])
    },
    Wrapper {
        values: Options {
            short: "ioe",
            long: &["--input", "--output", "--error"],
        },
        ..wrapper(&["stdbuf"])
    },
    Wrapper {
        operands: 1,
        ..wrapper(&["taskset", "chrt", "faketime"])
    },
    Wrapper {
        values: Options {
            short: "skw",
            long: &["--signal", "--kill-after"],
        },
        operands: 1,
        ..wrapper(&["timeout"])
    },
    Wrapper {
        values: Options {
            short: "wEn",
            long: &["--timeout", "--wait", "--conflict-exit-code"],
        },
        scripts: Options {
            short: "c",
            long: &["--command"],
        },
        operands: 1,
        ..wrapper(&["flock"])
    },
    Wrapper {
        values: Options {
            short: "nd",
            long: &["--interval", "--differences"],
        },
        joined: true,
        ..wrapper(&["watch"])
    },
    Wrapper {
        values: Options {
            short: "eopsuEaIbOSPX",
            long: &["--output", "--trace", "--attach", "--user", "--env"],
        },
        writes: Options {
            short: "o",
            long: &["--output"],
        },
        ..wrapper(&["strace"])
    },
    Wrapper {
        values: Options {
            short: "eopsuaDnlxLAF",
            long: &["--output", "--library"],
        },
        writes: Options {
            short: "o",
            long: &["--output"],
        },
        ..wrapper(&["ltrace"])
    },
    Wrapper {
        writes: Options {
            short: "",
            long: &["--log-file", "--xml-file"],
        },
        ..wrapper(&["valgrind"])
    },
    Wrapper {
        values: Options {
            short: "ansfe",
            long: &[
                "--server-num",
                "--server-args",
                "--auth-file",
                "--error-file",
            ],
        },
        ..wrapper(&["xvfb-run"])
    },
    Wrapper {
        values: Options {
            short: "fq",
            long: &[],
        },
        ..wrapper(&["proxychains", "proxychains4"])
    },
    Wrapper {
        values: Options {
            short: "pc",
            long: &["--package", "--call"],
        },
        scripts: Options {
            short: "c",
            long: &["--call"],
        },
        package: true,
        ..wrapper(&["npx", "bunx", "pnpx"])
    },
    Wrapper {
        values: Options {
            short: "pw",
            long: &["--from", "--with", "--python", "--index", "--index-url"],
        },
        package: true,
        ..wrapper(&["uvx"])
    },
    Wrapper {
        sub: &["run"],
        values: Options {
            short: "pw",
            long: &[
                "--with",
                "--python",
                "--directory",
                "--project",
                "--extra",
                "--group",
                "--package",
                "--env-file",
                "--index",
                "--index-url",
                "--with-requirements",
                "--with-editable",
            ],
        },
        chdir: Options {
            short: "",
            long: &["--directory"],
        },
        ..wrapper(&["uv"])
    },
    Wrapper {
        sub: &["run"],
        values: Options {
            short: "PC",
            long: &["--directory", "--project"],
        },
        chdir: Options {
            short: "C",
            long: &["--directory"],
        },
        ..wrapper(&["poetry"])
    },
    Wrapper {
        sub: &["run"],
        ..wrapper(&["pipenv", "pdm", "rye", "hatch"])
    },
    Wrapper {
        sub: &["run"],
        values: Options {
            short: "np",
            long: &["--name", "--prefix", "--cwd"],
        },
        chdir: Options {
            short: "",
            long: &["--cwd"],
        },
        ..wrapper(&["conda", "mamba", "micromamba"])
    },
    Wrapper {
        sub: &["exec"],
        ..wrapper(&["bundle"])
    },
    Wrapper {
        sub: &["exec", "x", "dlx"],
        values: Options {
            short: "p",
            long: &["--package"],
        },
        scripts: Options {
            short: "c",
            long: &["--call"],
        },
        package: true,
        ..wrapper(&["npm", "pnpm", "yarn"])
    },
    Wrapper {
        sub: &["exec"],
        operands: 1,
        ..wrapper(&["direnv"])
    },
    Wrapper {
        sub: &["run"],
        ..wrapper(&["doppler", "op"])
    },
    Wrapper {
        values: Options {
            short: "EeIOBT",
            long: &[
                "--echo",
                "--log-in",
                "--log-out",
                "--log-io",
                "--log-timing",
                "--logging-format",
            ],
        },
        scripts: Options {
            short: "c",
            long: &["--command"],
        },
        writes: Options {
            short: "IOBT",
            long: &["--log-in", "--log-out", "--log-io", "--log-timing"],
        },
        ..wrapper(&["script"])
    },
    Wrapper {
        scripts: Options {
            short: "",
            long: &["--run", "--command"],
        },
        values: Options {
            short: "",
            long: &[
                "--run",
                "--command",
                "-p",
                "--packages",
                "-I",
                "--arg",
                "--argstr",
            ],
        },
        ..wrapper(&["nix-shell"])
    },
    Wrapper {
        scripts: Options {
            short: "",
            long: &["--exec"],
        },
        values: Options {
            short: "weid",
            long: &["--exec", "--watch", "--ext", "--ignore", "--delay"],
        },
        ..wrapper(&["nodemon"])
    },
    Wrapper {
        values: Options {
            short: "wiepWEdc",
            long: &[
                "--watch",
                "--exts",
                "--ignore",
                "--filter",
                "--debounce",
                "--shell",
                "--workdir",
            ],
        },
        chdir: Options {
            short: "",
            long: &["--workdir"],
        },
        ..wrapper(&["watchexec"])
    },
    Wrapper {
        scripts: Options {
            short: "s",
            long: &[],
        },
        ..wrapper(&["entr"])
    },
];

/// The wrapper table entry for a program, if it is one (for the sub-command given).
pub fn find(name: &str, words: &[Word]) -> Option<&'static Wrapper> {
    WRAPPERS.iter().find(|w| {
        w.names.contains(&name)
            && (w.sub.is_empty()
                || words
                    .iter()
                    .skip(1)
                    .find(|x| x.literal().is_none_or(|a| !a.starts_with('-')))
                    .and_then(Word::literal)
                    .is_some_and(|s| w.sub.contains(&s)))
    })
}

/// What a wrapper does with its arguments.
#[derive(Default)]
pub struct Wrapped<'w> {
    /// Where the wrapped command starts in the words, when there is one.
    pub command: Option<usize>,
    /// Shell scripts it runs (`script -c …`).
    pub scripts: Vec<Word>,
    /// Files it writes.
    pub writes: Vec<Word>,
    /// The folder it runs the command in.
    pub chdir: Option<Word>,
    /// A word before the command whose meaning is only known when it runs.
    pub computed: Option<&'w Word>,
}

/// Reads a wrapper's options and operands.
pub fn read<'w>(w: &Wrapper, words: &'w [Word]) -> Wrapped<'w> {
    let mut out = Wrapped::default();
    let mut i = 1;
    let mut sub_seen = w.sub.is_empty();
    let mut operands_left = w.operands;
    while let Some(word) = words.get(i) {
        let Some(a) = word.literal() else {
            if sub_seen && operands_left == 0 {
                out.command = Some(i);
                return out;
            }
            out.computed = Some(word);
            i += 1;
            operands_left = operands_left.saturating_sub(1);
            continue;
        };
        if a == "--" {
            if sub_seen {
                out.command = (i + 1 < words.len()).then_some(i + 1);
                return out;
            }
            i += 1;
            continue;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, glued) = match long.split_once('=') {
                Some((n, v)) => (format!("--{n}"), Some(Word::Literal(v.to_string()))),
                None => (a.to_string(), None),
            };
            let role = Role::of(w, Opt::Long(&name));
            if role.is_some() || w.values.long.contains(&name.as_str()) {
                let value = match glued {
                    Some(v) => Some(v),
                    None => {
                        i += 1;
                        words.get(i).cloned()
                    }
                };
                if let (Some(role), Some(v)) = (role, value) {
                    role.record(&mut out, v);
                }
            }
            i += 1;
            continue;
        }
        if a.starts_with('-') && a.len() > 1 && !is_number(a) {
            let letters: Vec<char> = a.chars().skip(1).collect();
            for (k, c) in letters.iter().enumerate() {
                let role = Role::of(w, Opt::Short(*c));
                if role.is_none() && !w.values.short.contains(*c) {
                    continue;
                }
                let rest: String = letters[k + 1..].iter().collect();
                let value = if rest.is_empty() {
                    i += 1;
                    words.get(i).cloned()
                } else {
                    Some(Word::Literal(rest))
                };
                if let (Some(role), Some(v)) = (role, value) {
                    role.record(&mut out, v);
                }
                break;
            }
            i += 1;
            continue;
        }
        if !sub_seen {
            sub_seen = w.sub.contains(&a);
            i += 1;
            continue;
        }
        if operands_left > 0 {
            operands_left -= 1;
            i += 1;
            continue;
        }
        out.command = Some(i);
        return out;
    }
    out
}

enum Opt<'a> {
    Short(char),
    Long(&'a str),
}

/// What an option's value is to the judge.
#[derive(Clone, Copy)]
enum Role {
    Script,
    Write,
    Chdir,
}

impl Role {
    fn of(w: &Wrapper, opt: Opt) -> Option<Role> {
        if w.scripts.has(&opt) {
            Some(Role::Script)
        } else if w.writes.has(&opt) {
            Some(Role::Write)
        } else if w.chdir.has(&opt) {
            Some(Role::Chdir)
        } else {
            None
        }
    }

    fn record(self, out: &mut Wrapped, v: Word) {
        match self {
            Role::Script => out.scripts.push(v),
            Role::Write => out.writes.push(v),
            Role::Chdir => out.chdir = Some(v),
        }
    }
}

fn is_number(a: &str) -> bool {
    a[1..].chars().all(|c| c.is_ascii_digit())
}

/// For `npx pkg@1.2 …`, `npx @scope/pkg …`: the program the package provides.
pub fn package_program(spec: &str) -> &str {
    let unscoped = match spec.strip_prefix('@') {
        Some(rest) => rest.split_once('/').map(|(_, p)| p).unwrap_or(rest),
        None => spec,
    };
    unscoped.split('@').next().unwrap_or(unscoped)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<Word> {
        s.split_whitespace()
            .map(|w| Word::Literal(w.into()))
            .collect()
    }

    #[test]
    fn commands_behind_wrappers() {
        let at = |s: &str| {
            let ws = words(s);
            let name = ws[0].shown().to_string();
            let w = find(&name, &ws).expect("a wrapper");
            read(w, &ws).command.map(|i| ws[i].shown().to_string())
        };
        assert_eq!(at("timeout -s KILL 5 rm -rf /").as_deref(), Some("rm"));
        assert_eq!(at("stdbuf -o0 sh").as_deref(), Some("sh"));
        assert_eq!(at("strace -f -o /dev/null rm x").as_deref(), Some("rm"));
        assert_eq!(at("uv run --with x python -c y").as_deref(), Some("python"));
        assert_eq!(at("poetry run python x").as_deref(), Some("python"));
        assert_eq!(at("npx -y node -e x").as_deref(), Some("node"));
        assert_eq!(at("setsid -f bash").as_deref(), Some("bash"));
        assert_eq!(at("nice -n 10 rm").as_deref(), Some("rm"));
        assert!(find("uv", &words("uv pip install x")).is_none());
        let ws = words("script -qc x /dev/null");
        let r = read(find("script", &ws).expect("script"), &ws);
        assert_eq!(r.scripts.len(), 1);
        assert_eq!(package_program("@scope/tool@1.2"), "tool");
        assert_eq!(package_program("tsc@5"), "tsc");
    }
}
