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
    /// Single-letter options that take a value (glued, `-o0`, or the next word).
    pub short_values: &'static str,
    /// Long options that take a value (`--opt=v` or `--opt v`).
    pub long_values: &'static [&'static str],
    /// Options whose value is a shell script the wrapper runs.
    pub short_scripts: &'static str,
    pub long_scripts: &'static [&'static str],
    /// Options whose value is a file the wrapper writes.
    pub short_writes: &'static str,
    pub long_writes: &'static [&'static str],
    /// Options whose value is the folder the command runs in.
    pub short_chdir: &'static str,
    pub long_chdir: &'static [&'static str],
    /// Operands before the command: a duration, a CPU mask, a lock file.
    pub operands: usize,
    /// The wrapped command is a package to fetch and run (`npx pkg`): `pkg@1.2` names `pkg`.
    pub package: bool,
    /// The command words are joined and run by a shell (`watch rm -rf /` runs `sh -c`).
    pub joined: bool,
}

const fn wrapper(names: &'static [&'static str]) -> Wrapper {
    Wrapper {
        names,
        sub: &[],
        short_values: "",
        long_values: &[],
        short_scripts: "",
        long_scripts: &[],
        short_writes: "",
        long_writes: &[],
        short_chdir: "",
        long_chdir: &[],
        operands: 0,
        package: false,
        joined: false,
    }
}

pub const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        short_values: "a",
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
        short_values: "fo",
        long_values: &["--format", "--output"],
        short_writes: "o",
        long_writes: &["--output"],
        ..wrapper(&["time"])
    },
    wrapper(&["setsid", "setpriv", "torsocks", "caffeinate"]),
    Wrapper {
        short_values: "n",
        long_values: &["--adjustment"],
        ..wrapper(&["nice"])
    },
    Wrapper {
        short_values: "cnpPut",
        long_values: &["--class", "--classdata", "--pid", "--pgid", "--uid"],
        ..wrapper(&["ionice"])
    },
    Wrapper {
        short_values: "ioe",
        long_values: &["--input", "--output", "--error"],
        ..wrapper(&["stdbuf"])
    },
    Wrapper {
        operands: 1,
        ..wrapper(&["taskset", "chrt", "faketime"])
    },
    Wrapper {
        short_values: "skw",
        long_values: &["--signal", "--kill-after"],
        operands: 1,
        ..wrapper(&["timeout"])
    },
    Wrapper {
        short_values: "wEn",
        long_values: &["--timeout", "--wait", "--conflict-exit-code"],
        short_scripts: "c",
        long_scripts: &["--command"],
        operands: 1,
        ..wrapper(&["flock"])
    },
    Wrapper {
        short_values: "nd",
        long_values: &["--interval", "--differences"],
        joined: true,
        ..wrapper(&["watch"])
    },
    Wrapper {
        short_values: "eopsuEaIbOSPX",
        long_values: &["--output", "--trace", "--attach", "--user", "--env"],
        short_writes: "o",
        long_writes: &["--output"],
        ..wrapper(&["strace"])
    },
    Wrapper {
        short_values: "eopsuaDnlxLAF",
        long_values: &["--output", "--library"],
        short_writes: "o",
        long_writes: &["--output"],
        ..wrapper(&["ltrace"])
    },
    Wrapper {
        long_writes: &["--log-file", "--xml-file"],
        ..wrapper(&["valgrind"])
    },
    Wrapper {
        short_values: "ansfe",
        long_values: &[
            "--server-num",
            "--server-args",
            "--auth-file",
            "--error-file",
        ],
        ..wrapper(&["xvfb-run"])
    },
    Wrapper {
        short_values: "fq",
        ..wrapper(&["proxychains", "proxychains4"])
    },
    Wrapper {
        short_values: "pc",
        long_values: &["--package", "--call"],
        short_scripts: "c",
        long_scripts: &["--call"],
        package: true,
        ..wrapper(&["npx", "bunx", "pnpx"])
    },
    Wrapper {
        long_values: &["--from", "--with", "--python", "--index", "--index-url"],
        short_values: "pw",
        package: true,
        ..wrapper(&["uvx"])
    },
    Wrapper {
        sub: &["run"],
        short_values: "pw",
        long_values: &[
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
        long_chdir: &["--directory"],
        ..wrapper(&["uv"])
    },
    Wrapper {
        sub: &["run"],
        short_values: "PC",
        long_values: &["--directory", "--project"],
        short_chdir: "C",
        long_chdir: &["--directory"],
        ..wrapper(&["poetry"])
    },
    Wrapper {
        sub: &["run"],
        ..wrapper(&["pipenv", "pdm", "rye", "hatch"])
    },
    Wrapper {
        sub: &["run"],
        short_values: "np",
        long_values: &["--name", "--prefix", "--cwd"],
        long_chdir: &["--cwd"],
        ..wrapper(&["conda", "mamba", "micromamba"])
    },
    Wrapper {
        sub: &["exec"],
        ..wrapper(&["bundle"])
    },
    Wrapper {
        sub: &["exec", "x", "dlx"],
        short_values: "p",
        long_values: &["--package"],
        short_scripts: "c",
        long_scripts: &["--call"],
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
        short_values: "EeIOBT",
        long_values: &[
            "--echo",
            "--log-in",
            "--log-out",
            "--log-io",
            "--log-timing",
            "--logging-format",
        ],
        short_scripts: "c",
        long_scripts: &["--command"],
        short_writes: "IOBT",
        long_writes: &["--log-in", "--log-out", "--log-io", "--log-timing"],
        ..wrapper(&["script"])
    },
    Wrapper {
        long_scripts: &["--run", "--command"],
        long_values: &[
            "--run",
            "--command",
            "-p",
            "--packages",
            "-I",
            "--arg",
            "--argstr",
        ],
        ..wrapper(&["nix-shell"])
    },
    Wrapper {
        long_scripts: &["--exec"],
        long_values: &["--exec", "--watch", "--ext", "--ignore", "--delay"],
        short_values: "weid",
        ..wrapper(&["nodemon"])
    },
    Wrapper {
        short_values: "wiepWEdc",
        long_values: &[
            "--watch",
            "--exts",
            "--ignore",
            "--filter",
            "--debounce",
            "--shell",
            "--workdir",
        ],
        long_chdir: &["--workdir"],
        ..wrapper(&["watchexec"])
    },
    Wrapper {
        short_scripts: "s",
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
            if role.is_some() || w.long_values.contains(&name.as_str()) {
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
                if role.is_none() && !w.short_values.contains(*c) {
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
        let is = |shorts: &str, longs: &[&str]| match opt {
            Opt::Short(c) => shorts.contains(c),
            Opt::Long(l) => longs.contains(&l),
        };
        if is(w.short_scripts, w.long_scripts) {
            Some(Role::Script)
        } else if is(w.short_writes, w.long_writes) {
            Some(Role::Write)
        } else if is(w.short_chdir, w.long_chdir) {
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
