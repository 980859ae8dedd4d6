//! Environment variables that make programs run code of the variable's choosing
//! (`LD_PRELOAD=./evil.so ls`, `GIT_EXTERNAL_DIFF=…`, `PS4='$(…)'`, `LESSOPEN='|…'`), and the
//! few known to be harmless, so a read-only command with them still only reads.

use crate::shell::Word;

pub enum Risk {
    /// It can make a program run code: the reason, in words.
    Code(&'static str),
    /// Known not to change what a program runs or writes.
    Benign,
    /// Not known either way: fine for a command that may act anyway, not for one that must only
    /// read.
    Unknown,
}

/// Variables that make programs load or run code, each with why.
const CODE: &[(&str, &str)] = &[
    ("BASH_ENV", "makes bash run that file first"),
    ("ENV", "makes the shell run that file first"),
    ("ZDOTDIR", "makes zsh run start-up files from that folder"),
    (
        "PS0",
        "is expanded by the shell, running the commands inside it",
    ),
    (
        "PS1",
        "is expanded by the shell, running the commands inside it",
    ),
    (
        "PS2",
        "is expanded by the shell, running the commands inside it",
    ),
    (
        "PS4",
        "is expanded when tracing, running the commands inside it",
    ),
    ("PROMPT_COMMAND", "is run by the shell"),
    ("SHELLOPTS", "changes how the shell runs"),
    ("BASHOPTS", "changes how the shell runs"),
    ("CDPATH", "changes where “cd” goes"),
    ("PATH", "changes which programs run"),
    (
        "HOME",
        "makes programs read their configuration (and the code it names) from elsewhere",
    ),
    (
        "XDG_CONFIG_HOME",
        "makes programs read their configuration (and the code it names) from elsewhere",
    ),
    ("SHELL", "changes the shell programs start"),
    ("PAGER", "names a program to run"),
    ("MANPAGER", "names a program to run"),
    ("SYSTEMD_PAGER", "names a program to run"),
    ("EDITOR", "names a program to run"),
    ("VISUAL", "names a program to run"),
    ("BROWSER", "names a program to run"),
    ("LESSOPEN", "makes “less” run a program on each file"),
    ("LESSCLOSE", "makes “less” run a program on each file"),
    ("LESS", "passes options to “less”, which can write files"),
    ("SSH_ASKPASS", "names a program to run"),
    ("SUDO_ASKPASS", "names a program to run"),
    ("PYTHONPATH", "makes Python import code from elsewhere"),
    ("PYTHONSTARTUP", "makes Python run that file"),
    ("PYTHONHOME", "makes Python load itself from elsewhere"),
    ("PYTHONWARNINGS", "can make Python import a module"),
    ("PYTHONINSPECT", "makes Python read code from its input"),
    ("NODE_OPTIONS", "can make Node load code (“--require”)"),
    ("NODE_PATH", "makes Node load modules from elsewhere"),
    ("PERL5OPT", "passes options (and code) to Perl"),
    ("PERL5LIB", "makes Perl load modules from elsewhere"),
    ("PERLLIB", "makes Perl load modules from elsewhere"),
    ("PERL5DB", "makes Perl run debugger code"),
    ("RUBYOPT", "passes options (and code) to Ruby"),
    ("RUBYLIB", "makes Ruby load code from elsewhere"),
    ("JAVA_TOOL_OPTIONS", "can make Java load an agent"),
    ("_JAVA_OPTIONS", "can make Java load an agent"),
    ("JDK_JAVA_OPTIONS", "can make Java load an agent"),
    ("RUSTC_WRAPPER", "names a program cargo runs"),
    ("RUSTC", "names a program cargo runs"),
    ("RUSTDOC", "names a program cargo runs"),
    ("RUSTFLAGS", "can name a linker cargo runs"),
    ("MAKEFLAGS", "passes options (such as “--eval”) to make"),
    ("MAKEFILES", "makes make read more makefiles"),
    (
        "GIT_CONFIG_PARAMETERS",
        "sets git configuration, which can make git run programs",
    ),
    ("GIT_EXTERNAL_DIFF", "names a program git runs"),
    ("GIT_SSH", "names a program git runs"),
    ("GIT_SSH_COMMAND", "names a program git runs"),
    ("GIT_PAGER", "names a program git runs"),
    ("GIT_EDITOR", "names a program git runs"),
    ("GIT_SEQUENCE_EDITOR", "names a program git runs"),
    ("GIT_ASKPASS", "names a program git runs"),
    ("GIT_PROXY_COMMAND", "names a program git runs"),
    ("GIT_EXEC_PATH", "makes git run its commands from elsewhere"),
    ("GIT_TEMPLATE_DIR", "makes git copy hooks from elsewhere"),
    (
        "GIT_DIR",
        "makes git use another repository and its configuration",
    ),
    ("GIT_WORK_TREE", "makes git work on another folder"),
    ("GIT_CONFIG", "makes git read another configuration file"),
    (
        "GIT_CONFIG_GLOBAL",
        "makes git read another configuration file",
    ),
    (
        "GIT_CONFIG_SYSTEM",
        "makes git read another configuration file",
    ),
];

/// Prefixes of variable families that run code.
const CODE_PREFIXES: &[(&str, &str)] = &[
    ("LD_", "makes programs load a library of its choosing"),
    ("DYLD_", "makes programs load a library of its choosing"),
    (
        "BASH_FUNC_",
        "defines a shell function every bash runs with",
    ),
    (
        "GIT_CONFIG_",
        "sets git configuration, which can make git run programs",
    ),
    (
        "npm_config_",
        "sets npm configuration, which can name programs npm runs",
    ),
    (
        "NPM_CONFIG_",
        "sets npm configuration, which can name programs npm runs",
    ),
];

/// Variables known not to change what runs or what is written.
const BENIGN: &[&str] = &[
    "LANG",
    "LANGUAGE",
    "TZ",
    "TERM",
    "COLUMNS",
    "LINES",
    "NO_COLOR",
    "FORCE_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "COLORTERM",
    "RUST_LOG",
    "RUST_BACKTRACE",
    "RUST_LIB_BACKTRACE",
    "CARGO_TERM_COLOR",
    "CARGO_INCREMENTAL",
    "NODE_ENV",
    "CI",
    "DEBUG",
    "VERBOSE",
    "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONHASHSEED",
    "PYTHONIOENCODING",
    "PYTHONUTF8",
    "TIMEFORMAT",
    "POSIXLY_CORRECT",
    "GREP_COLOR",
    "GREP_COLORS",
    "LS_COLORS",
    "GIT_TERMINAL_PROMPT",
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_AUTHOR_DATE",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    "GIT_COMMITTER_DATE",
    "GIT_OPTIONAL_LOCKS",
    "GIT_FLUSH",
    "GIT_MERGE_AUTOEDIT",
    "TMPDIR",
];

pub fn risk(name: &str, value: &Word) -> Risk {
    // `PAGER=cat` is the usual way to turn a pager off.
    if matches!(name, "PAGER" | "GIT_PAGER" | "MANPAGER")
        && value
            .literal()
            .is_some_and(|v| matches!(v, "" | "cat" | "less" | "more"))
    {
        return Risk::Benign;
    }
    if let Some((_, why)) = CODE.iter().find(|(n, _)| *n == name) {
        return Risk::Code(why);
    }
    if let Some((_, why)) = CODE_PREFIXES.iter().find(|(p, _)| name.starts_with(p)) {
        return Risk::Code(why);
    }
    if name.starts_with("CARGO_")
        && (name.ends_with("_RUNNER") || name.ends_with("_LINKER") || name.contains("RUSTC"))
    {
        return Risk::Code("names a program cargo runs");
    }
    if BENIGN.contains(&name) || name.starts_with("LC_") {
        return Risk::Benign;
    }
    Risk::Unknown
}
