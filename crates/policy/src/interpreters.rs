//! Shells and language interpreters: where each takes the program it runs from — a script
//! file, code given inline (`-c`, `-e`, `--eval=`, in a flag cluster like `-Ic` or `-we`), a
//! module (`python -m`), or its standard input (`bash <<< …`, `sh -s`, `python3 /dev/stdin`).

use crate::shell::{Word, basename};

/// Shells: `-c` runs the first operand as a script; without one they read their input.
const SHELLS: &[&str] = &[
    "sh",
    "bash",
    "rbash",
    "zsh",
    "dash",
    "ksh",
    "mksh",
    "pdksh",
    "oksh",
    "loksh",
    "yash",
    "posh",
    "ash",
    "hush",
    "csh",
    "tcsh",
    "fish",
    "elvish",
    "nu",
    "xonsh",
    "pwsh",
    "powershell",
];

/// Shells whose `-c` (or `-Command`) takes the script right after it, not as an operand.
const DIRECT_SCRIPT_SHELLS: &[&str] = &["fish", "elvish", "nu", "xonsh", "pwsh", "powershell"];

pub fn is_shell(name: &str) -> bool {
    SHELLS.contains(&basename(name))
}

/// How an interpreter's options say where its program comes from.
pub struct Interpreter {
    pub names: &'static [&'static str],
    /// Letters whose value is code (`-c`, `-e`).
    pub inline_short: &'static str,
    /// Long options whose value is code (`--eval`).
    pub inline_long: &'static [&'static str],
    /// Letters that take a value (glued or the next word) that is not code.
    pub short_values: &'static str,
    /// Letters whose optional value can only be glued (`perl -i.bak`, `-l015`).
    pub short_glued: &'static str,
    pub long_values: &'static [&'static str],
    /// The letter naming a module to run (`python -m pytest`).
    pub module: Option<char>,
    /// Options that make it read its program from its input.
    pub interactive: &'static [&'static str],
}

const fn interpreter(names: &'static [&'static str]) -> Interpreter {
    Interpreter {
        names,
        inline_short: "",
        inline_long: &[],
        short_values: "",
        short_glued: "",
        long_values: &[],
        module: None,
        interactive: &[],
    }
}

pub const INTERPRETERS: &[Interpreter] = &[
    Interpreter {
        inline_short: "c",
        short_values: "WXQ",
        long_values: &["--check-hash-based-pycs"],
        module: Some('m'),
        interactive: &["-i"],
        ..interpreter(&["python", "python2", "python3", "pypy", "pypy3"])
    },
    Interpreter {
        inline_short: "ep",
        inline_long: &["--eval", "--print"],
        short_values: "rC",
        long_values: &[
            "--require",
            "--import",
            "--loader",
            "--experimental-loader",
            "--input-type",
            "--env-file",
            "--conditions",
            "--title",
            "--inspect-port",
            "--stack-size",
        ],
        interactive: &["-i", "--interactive"],
        ..interpreter(&["node", "nodejs", "bun"])
    },
    Interpreter {
        inline_short: "eE",
        short_values: "IMm",
        short_glued: "l0ixdDC",
        ..interpreter(&["perl"])
    },
    Interpreter {
        inline_short: "e",
        short_values: "IrECF",
        short_glued: "KTWx0il",
        ..interpreter(&["ruby", "jruby"])
    },
    Interpreter {
        inline_short: "rRBE",
        short_values: "cdfFtSz",
        interactive: &["-a"],
        ..interpreter(&["php"])
    },
    Interpreter {
        inline_short: "e",
        short_values: "l",
        interactive: &["-i"],
        ..interpreter(&["lua", "luajit"])
    },
    Interpreter {
        inline_short: "e",
        inline_long: &["--eval"],
        ..interpreter(&[
            "julia",
            "racket",
            "elixir",
            "groovy",
            "Rscript",
            "R",
            "osascript",
        ])
    },
    Interpreter {
        inline_short: "ce",
        ..interpreter(&["guile", "expect"])
    },
    interpreter(&["tclsh", "wish", "irb", "jshell", "ghci", "sbcl"]),
];

/// The interpreter table entry for a program name (`python3.12` is `python3`).
pub fn interpreter_named(name: &str) -> Option<&'static Interpreter> {
    let n = basename(name);
    let n = if n.starts_with("python3.") && n[8..].chars().all(|c| c.is_ascii_digit()) {
        "python3"
    } else {
        n
    };
    INTERPRETERS.iter().find(|i| i.names.contains(&n))
}

/// Where a shell or an interpreter takes the program it runs from.
#[derive(Debug, PartialEq, Eq)]
pub enum Source {
    /// Code given in the arguments (`-c '…'`); for shells, the script text.
    Inline(Word),
    /// Its standard input.
    Stdin,
    /// A script file: the word at this index.
    Script(usize),
    /// `python -m NAME args…`: the module's name and where its arguments start.
    Module(String, usize),
    /// Nothing runs (`--version`, `--help`).
    Nothing,
}

fn is_stdin_path(a: &str) -> bool {
    matches!(a, "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0")
}

fn is_info(a: &str) -> bool {
    matches!(
        a,
        "--version" | "-V" | "--help" | "-h" | "-version" | "-help"
    )
}

/// Where a shell takes its script from. Bash reads every option first: in `bash -c -e 'x'` the
/// script is `x`, the first operand after all options.
pub fn shell_source(name: &str, words: &[Word]) -> Source {
    let direct = DIRECT_SCRIPT_SHELLS.contains(&basename(name));
    let mut command = false;
    let mut stdin = false;
    let mut i = 1;
    while let Some(w) = words.get(i) {
        let Some(a) = w.literal() else { break };
        if a == "--" || a == "-" {
            i += 1;
            stdin |= a == "-";
            break;
        }
        if is_info(a) && !command {
            return Source::Nothing;
        }
        if a.starts_with("--") {
            let (opt, glued) = a.split_once('=').map_or((a, None), |(o, v)| (o, Some(v)));
            match opt {
                "--command" | "--init-command" if direct => {
                    return match glued {
                        Some(v) => Source::Inline(Word::Literal(v.to_string())),
                        None => words
                            .get(i + 1)
                            .cloned()
                            .map_or(Source::Stdin, Source::Inline),
                    };
                }
                "--rcfile" | "--init-file" if glued.is_none() => i += 1,
                _ => {}
            }
            i += 1;
            continue;
        }
        if direct
            && matches!(
                a.to_ascii_lowercase().as_str(),
                "-c" | "-command" | "-e" | "-ec" | "-encodedcommand" | "-init-command" | "-C"
            )
        {
            return words
                .get(i + 1)
                .cloned()
                .map_or(Source::Stdin, Source::Inline);
        }
        if (a.starts_with('-') || a.starts_with('+')) && a.len() > 1 {
            for c in a.chars().skip(1) {
                match c {
                    'c' => command = true,
                    's' => stdin = true,
                    // `-o pipefail`, `-O extglob`: the option's name is the next word.
                    'o' | 'O' => i += 1,
                    _ => {}
                }
            }
            i += 1;
            continue;
        }
        break;
    }
    if command {
        return match words.get(i) {
            Some(script) => Source::Inline(script.clone()),
            None => Source::Inline(Word::Literal(String::new())),
        };
    }
    match words.get(i) {
        _ if stdin => Source::Stdin,
        None => Source::Stdin,
        Some(w) if w.literal().is_some_and(is_stdin_path) => Source::Stdin,
        Some(_) => Source::Script(i),
    }
}

/// Where an interpreter takes its program from.
pub fn interpreter_source(it: &Interpreter, words: &[Word]) -> Source {
    let mut i = 1;
    let mut interactive = false;
    while let Some(w) = words.get(i) {
        // A computed word where options go could be `-c …` itself.
        let Some(a) = w.literal() else {
            return Source::Inline(w.clone());
        };
        if is_stdin_path(a) {
            return Source::Stdin;
        }
        if is_info(a) {
            return Source::Nothing;
        }
        if it.interactive.contains(&a) {
            interactive = true;
            i += 1;
            continue;
        }
        if a == "--" {
            i += 1;
            break;
        }
        if a.starts_with("--") {
            let (opt, glued) = a.split_once('=').map_or((a, None), |(o, v)| (o, Some(v)));
            if it.inline_long.contains(&opt) {
                return match glued {
                    Some(v) => Source::Inline(Word::Literal(v.to_string())),
                    None => Source::Inline(
                        words
                            .get(i + 1)
                            .cloned()
                            .unwrap_or(Word::Literal(String::new())),
                    ),
                };
            }
            if it.long_values.contains(&opt) && glued.is_none() {
                i += 1;
            }
            i += 1;
            continue;
        }
        if a.starts_with('-') && a.len() > 1 {
            let letters: Vec<char> = a.chars().skip(1).collect();
            let mut consumed_next = false;
            for (k, c) in letters.iter().enumerate() {
                let rest: String = letters[k + 1..].iter().collect();
                let value = || -> Word {
                    if rest.is_empty() {
                        words
                            .get(i + 1)
                            .cloned()
                            .unwrap_or(Word::Literal(String::new()))
                    } else {
                        Word::Literal(rest.clone())
                    }
                };
                if it.inline_short.contains(*c) {
                    return Source::Inline(value());
                }
                if it.module == Some(*c) {
                    return match value().literal() {
                        Some(m) => Source::Module(
                            m.to_string(),
                            if rest.is_empty() { i + 2 } else { i + 1 },
                        ),
                        None => Source::Inline(value()),
                    };
                }
                if it.short_values.contains(*c) {
                    // `perl -M'x;system(…)'`: an import list is code.
                    if *c == 'M'
                        && value().literal().is_none_or(|m| {
                            !m.chars().all(|x| x.is_alphanumeric() || "_:=,".contains(x))
                        })
                    {
                        return Source::Inline(value());
                    }
                    consumed_next = rest.is_empty();
                    break;
                }
                if it.short_glued.contains(*c) {
                    break;
                }
            }
            i += if consumed_next { 2 } else { 1 };
            continue;
        }
        return Source::Script(i);
    }
    match words.get(i) {
        Some(w) if !interactive => match w.literal() {
            Some(a) if is_stdin_path(a) => Source::Stdin,
            _ => Source::Script(i),
        },
        _ => Source::Stdin,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<Word> {
        s.split_whitespace()
            .map(|w| Word::Literal(w.into()))
            .collect()
    }

    fn inline(s: &str) -> Option<String> {
        let ws = words(s);
        let name = ws[0].shown().to_string();
        let src = match interpreter_named(&name) {
            Some(it) => interpreter_source(it, &ws),
            None => shell_source(&name, &ws),
        };
        match src {
            Source::Inline(w) => Some(w.shown().to_string()),
            _ => None,
        }
    }

    #[test]
    fn inline_code_in_every_spelling() {
        assert_eq!(inline("bash -c -e X").as_deref(), Some("X"));
        assert_eq!(inline("bash -c -- X").as_deref(), Some("X"));
        assert_eq!(inline("bash -lc X").as_deref(), Some("X"));
        assert_eq!(inline("bash -o pipefail -c X").as_deref(), Some("X"));
        assert_eq!(inline("python3 -Ic X").as_deref(), Some("X"));
        assert_eq!(inline("python3 -cX").as_deref(), Some("X"));
        assert_eq!(inline("perl -we X").as_deref(), Some("X"));
        assert_eq!(inline("perl -ne X f").as_deref(), Some("X"));
        assert_eq!(inline("perl -pi.bak -e X f").as_deref(), Some("X"));
        assert_eq!(inline("ruby -we X").as_deref(), Some("X"));
        assert_eq!(inline("node --eval=X").as_deref(), Some("X"));
        assert_eq!(inline("node -p X").as_deref(), Some("X"));
        assert_eq!(inline("fish -c X").as_deref(), Some("X"));
        assert_eq!(inline("python3 script.py -c x"), None);
        assert_eq!(inline("perl -I lib script.pl -e x"), None);
    }

    #[test]
    fn where_the_program_comes_from() {
        let src = |s: &str| {
            let ws = words(s);
            let name = ws[0].shown().to_string();
            match interpreter_named(&name) {
                Some(it) => interpreter_source(it, &ws),
                None => shell_source(&name, &ws),
            }
        };
        assert_eq!(src("bash"), Source::Stdin);
        assert_eq!(src("sh -s"), Source::Stdin);
        assert_eq!(src("bash /dev/stdin"), Source::Stdin);
        assert_eq!(src("bash -x script.sh"), Source::Script(2));
        assert_eq!(src("python3"), Source::Stdin);
        assert_eq!(src("python3 -"), Source::Stdin);
        assert_eq!(src("python3 /dev/stdin"), Source::Stdin);
        assert_eq!(src("python3 -u script.py"), Source::Script(2));
        assert_eq!(
            src("python3 -m json.tool"),
            Source::Module("json.tool".into(), 3)
        );
        assert_eq!(
            src("python -W ignore -m pytest -q"),
            Source::Module("pytest".into(), 5)
        );
        assert_eq!(src("python3 --version"), Source::Nothing);
        assert_eq!(src("node scripts/gen.js"), Source::Script(1));
    }
}
