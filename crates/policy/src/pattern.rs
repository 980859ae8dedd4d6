//! Command patterns such as `cargo test`, `git push --force` or `mkfs*`.
//!
//! The first token is the program (matched on its base name, so `/bin/rm` is `rm`); tokens
//! starting with `-` are flags (short clusters split: `-rf` is `-r -f`); the others are
//! positional arguments, each a glob. Deny and ask rules match *leniently* (the positionals in
//! order anywhere among the arguments, the flags anywhere), so a reordering cannot slip past
//! them; allow rules match *strictly* (the positionals first, in order), so they allow no more
//! than they say.

use crate::glob::Glob;
use crate::shell::basename;

/// `python3 -m MODULE args…` as the engine judges it: the module is the program, since it runs
/// what `MODULE args…` runs, whichever Python starts it. A rule written the way a person runs
/// the module (`python3 -m unittest test_calc`) is matched so, and so is a rule's example.
pub fn module_run<'a, 'b>(words: &'a [&'b str]) -> Option<&'a [&'b str]> {
    let [program, flag, rest @ ..] = words else {
        return None;
    };
    if *flag != "-m" || rest.is_empty() {
        return None;
    }
    crate::interpreters::interpreter_named(program).filter(|i| i.module == Some('m'))?;
    Some(rest)
}

#[derive(Debug, Clone)]
pub struct CommandPattern {
    text: String,
    program: Glob,
    /// The program name when it has no glob characters: compared as a string, which is most of
    /// the rules and much cheaper than a glob.
    program_literal: Option<String>,
    flags: Vec<String>,
    positionals: Vec<Glob>,
}

/// Long options that mean the same as a short one, per program: `rm --recursive` is `rm -r`.
const FLAG_ALIASES: &[(&str, &str, &str)] = &[
    ("rm", "--recursive", "-r"),
    ("rm", "-R", "-r"),
    ("rm", "--force", "-f"),
    ("chmod", "--recursive", "-R"),
    ("chown", "--recursive", "-R"),
    ("git", "-f", "--force"),
    ("cp", "--recursive", "-r"),
    ("cp", "-R", "-r"),
];

fn glob(text: &str) -> Result<Glob, String> {
    Glob::new(text, false, true).map_err(|e| format!("“{text}” is not a valid pattern: {e}"))
}

/// Splits `-rf` into `-r`, `-f`; keeps `--long`, `-` and `--` as they are; maps aliases.
pub fn normalize_flag(program: &str, flag: &str, out: &mut Vec<String>) {
    let push = |f: &str, out: &mut Vec<String>| {
        let mapped = FLAG_ALIASES
            .iter()
            .find(|(p, from, _)| *p == program && *from == f)
            .map(|(_, _, to)| *to)
            .unwrap_or(f);
        out.push(mapped.to_string());
    };
    if let Some(long) = flag.strip_prefix("--") {
        // `--force=yes` is `--force`.
        let name = long.split('=').next().unwrap_or(long);
        push(&format!("--{name}"), out);
    } else if flag.len() > 2 && flag.starts_with('-') && flag.is_char_boundary(2) {
        for c in flag[1..].chars() {
            push(&format!("-{c}"), out);
        }
    } else {
        push(flag, out);
    }
}

/// A command's arguments split into flags and positionals, the way patterns see them.
pub struct Args {
    pub flags: Vec<String>,
    pub positionals: Vec<String>,
    /// Whether the first argument (if any) is a flag: strict matching wants positionals first.
    pub starts_with_flag: bool,
}

impl Args {
    pub fn split(program: &str, args: &[&str]) -> Args {
        let mut flags = Vec::new();
        let mut positionals = Vec::new();
        let mut after_dashdash = false;
        for a in args {
            if after_dashdash {
                positionals.push((*a).to_string());
            } else if *a == "--" {
                after_dashdash = true;
            } else if a.starts_with('-') && a.len() > 1 {
                normalize_flag(program, a, &mut flags);
            } else {
                positionals.push((*a).to_string());
            }
        }
        Args {
            starts_with_flag: args
                .first()
                .is_some_and(|a| a.starts_with('-') && a.len() > 1),
            flags,
            positionals,
        }
    }
}

impl CommandPattern {
    pub fn parse(text: &str) -> Result<CommandPattern, String> {
        let all: Vec<&str> = text.split_whitespace().collect();
        let mut tokens = module_run(&all).unwrap_or(&all).iter().copied();
        let program_text = tokens
            .next()
            .ok_or_else(|| "an empty command pattern matches nothing; remove it".to_string())?;
        let program_name = basename(program_text);
        let mut flags = Vec::new();
        let mut positionals = Vec::new();
        for t in tokens {
            if t.starts_with('-') && t.len() > 1 {
                normalize_flag(program_name, t, &mut flags);
            } else {
                positionals.push(glob(t)?);
            }
        }
        Ok(CommandPattern {
            text: text.split_whitespace().collect::<Vec<_>>().join(" "),
            program: glob(program_name)?,
            program_literal: (!program_name.contains(['*', '?', '[', '{', '\\']))
                .then(|| program_name.to_string()),
            flags,
            positionals,
        })
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// How much the pattern says: more tokens, more specific.
    pub fn specificity(&self) -> usize {
        1 + self.flags.len() + self.positionals.len()
    }

    fn program_matches(&self, program: &str) -> bool {
        match &self.program_literal {
            Some(name) => name == basename(program),
            None => self.program.is_match(basename(program)),
        }
    }

    fn flags_match(&self, args: &Args) -> bool {
        self.flags.iter().all(|f| args.flags.contains(f))
    }

    /// Deny and ask rules: the positionals in order anywhere, the flags anywhere.
    pub fn matches_lenient(&self, program: &str, args: &Args) -> bool {
        if !self.program_matches(program) || !self.flags_match(args) {
            return false;
        }
        let mut it = args.positionals.iter();
        self.positionals
            .iter()
            .all(|p| it.by_ref().any(|a| p.is_match(a)))
    }

    /// Allow rules: the positionals first and in order, with no flag before them.
    pub fn matches_strict(&self, program: &str, args: &Args) -> bool {
        if !self.program_matches(program) || !self.flags_match(args) {
            return false;
        }
        if !self.positionals.is_empty() && args.starts_with_flag {
            return false;
        }
        self.positionals.len() <= args.positionals.len()
            && self
                .positionals
                .iter()
                .zip(&args.positionals)
                .all(|(p, a)| p.is_match(a))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, cmd: &str) -> (bool, bool) {
        let p = CommandPattern::parse(pattern).expect("pattern");
        let words: Vec<&str> = cmd.split_whitespace().collect();
        let args = Args::split(basename(words[0]), &words[1..]);
        (
            p.matches_lenient(words[0], &args),
            p.matches_strict(words[0], &args),
        )
    }

    #[test]
    fn flags_are_normalized() {
        assert!(m("rm -rf /", "rm -fr /").0);
        assert!(m("rm -rf /", "rm -r -f /").0);
        assert!(m("rm -rf /", "/bin/rm --recursive --force /").0);
        assert!(!m("rm -rf /", "rm -rf /tmp").0);
        assert!(m("git push --force", "git push -f origin").0);
    }

    #[test]
    fn lenient_finds_positionals_anywhere_strict_wants_them_first() {
        assert_eq!(m("git push", "git -C /x push"), (true, false));
        assert_eq!(m("cargo test", "cargo test --release"), (true, true));
        assert_eq!(m("cargo test", "cargo build --bin test"), (true, false));
        assert_eq!(m("cargo test", "cargo +nightly test"), (true, false));
        assert_eq!(m("cargo test", "cargo"), (false, false));
    }

    #[test]
    fn globs() {
        assert!(m("mkfs*", "mkfs.ext4 /dev/sda").0);
        assert!(m("dd of=/dev/*", "dd if=/dev/zero of=/dev/sda").0);
        assert!(CommandPattern::parse("").is_err());
        assert!(CommandPattern::parse("a[").is_err());
    }
}
