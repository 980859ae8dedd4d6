//! Programs that search or walk a folder: `grep -r`, `rg`, `ag`, `ack` read every file under
//! it; `find` and `fd` run commands for each file they find (`-exec`, `-x`) or delete them.

use crate::command::{At, Facts, Judge};
use crate::readonly;
use crate::shell::{Word, basename};

/// Which files a search opens, for [`Judge::reach`].
#[derive(Debug, Default, Clone, Copy)]
pub struct Scope {
    /// Only files whose names cannot be secret (`rg -t rust`).
    pub names_safe: bool,
    /// Hidden files and folders (`.env`, `.git/`) are skipped.
    pub skips_hidden: bool,
}

/// The operands of a command, skipping options and the values of those in `with_value`.
pub fn operands<'w>(words: &'w [Word], with_value: &[&str]) -> Vec<&'w Word> {
    let mut out = Vec::new();
    let mut i = 1;
    let mut options_done = false;
    while let Some(w) = words.get(i) {
        match w.literal() {
            Some("--") if !options_done => options_done = true,
            Some(a) if !options_done && a.starts_with('-') && a.len() > 1 => {
                if with_value.contains(&a) {
                    i += 1;
                }
            }
            _ => out.push(w),
        }
        i += 1;
    }
    out
}

/// `grep -r`: a recursive read of each folder it is given (the current one when none).
pub fn grep(j: &mut Judge, name: &str, words: &[Word], at: &At) {
    let lit: Vec<&str> = words.iter().skip(1).filter_map(Word::literal).collect();
    let recursive = lit.iter().any(|a| {
        matches!(
            *a,
            "--recursive" | "--dereference-recursive" | "--directories=recurse"
        ) || (a.starts_with('-') && !a.starts_with("--") && (a.contains('r') || a.contains('R')))
    }) || lit.windows(2).any(|w| w[0] == "-d" && w[1] == "recurse");
    if !recursive {
        return;
    }
    const VALUES: &[&str] = &[
        "-e",
        "-f",
        "-m",
        "-A",
        "-B",
        "-C",
        "-d",
        "-D",
        "--regexp",
        "--file",
        "--max-count",
        "--include",
        "--exclude",
        "--exclude-dir",
        "--label",
        "--context",
    ];
    let ops = operands(words, VALUES);
    let explicit_pattern = lit.iter().any(|a| {
        a.starts_with("-e")
            || a.starts_with("-f")
            || a.starts_with("--regexp")
            || a.starts_with("--file")
    });
    let roots: Vec<&Word> = ops
        .into_iter()
        .skip(usize::from(!explicit_pattern))
        .collect();
    let what = format!("{name} -r");
    if roots.is_empty() {
        j.reach(&what, &Word::Literal(".".into()), at, Scope::default());
    }
    for r in roots {
        j.reach(&what, r, at, Scope::default());
    }
}

/// File types whose names cannot be a secret's.
const SAFE_TYPES: &[&str] = &[
    "rust",
    "rs",
    "py",
    "python",
    "js",
    "ts",
    "typescript",
    "go",
    "c",
    "cpp",
    "h",
    "java",
    "kotlin",
    "swift",
    "ruby",
    "php",
    "md",
    "markdown",
    "html",
    "css",
    "sh",
    "toml",
    "yaml",
    "json",
    "lua",
    "zig",
    "elixir",
    "haskell",
    "scala",
    "csharp",
    "cs",
    "vue",
    "svelte",
    "sql",
];

/// `rg`, `ag`, `ack`: recursive by nature. `rg` and `ag` skip hidden files unless told; a type
/// filter keeps them to files that cannot be secrets.
pub fn search(j: &mut Judge, name: &str, words: &[Word], at: &At) {
    let lit: Vec<&str> = words.iter().skip(1).filter_map(Word::literal).collect();
    if name == "rg"
        && lit.iter().any(|a| {
            matches!(
                *a,
                "--files" | "--type-list" | "-l" | "--files-with-matches" | "--count" | "-c"
            )
        })
        && !lit.contains(&"--pre")
    {
        // Names and counts only: nothing of a file's content is printed.
        if lit.iter().any(|a| matches!(*a, "--files" | "--type-list")) {
            return;
        }
    }
    let hidden = lit.iter().any(|a| {
        matches!(
            *a,
            "--hidden"
                | "-."
                | "-uu"
                | "-uuu"
                | "--unrestricted"
                | "--all-types"
                | "-a"
                | "--no-ignore"
        )
    });
    let mut types: Vec<&str> = Vec::new();
    for (k, a) in lit.iter().enumerate() {
        if matches!(*a, "-t" | "--type") {
            if let Some(t) = lit.get(k + 1) {
                types.push(t);
            }
        } else if let Some(t) = a
            .strip_prefix("--type=")
            .or_else(|| a.strip_prefix("-t").filter(|t| !t.is_empty()))
        {
            types.push(t);
        }
    }
    let names_safe = !hidden && !types.is_empty() && types.iter().all(|t| SAFE_TYPES.contains(t));
    let scope = Scope {
        names_safe,
        skips_hidden: name != "ack" && !hidden,
    };
    const VALUES: &[&str] = &[
        "-e",
        "-f",
        "-g",
        "-t",
        "-T",
        "-m",
        "-A",
        "-B",
        "-C",
        "-j",
        "-M",
        "-r",
        "--regexp",
        "--file",
        "--glob",
        "--iglob",
        "--type",
        "--type-not",
        "--max-count",
        "--replace",
        "--context",
        "--max-columns",
        "--threads",
        "--max-depth",
        "--type-add",
        "--sort",
        "--sortr",
        "--encoding",
        "--color",
        "--colors",
        "--ignore-file",
        "--pre",
        "--pre-glob",
    ];
    let ops = operands(words, VALUES);
    let explicit_pattern = lit.iter().any(|a| {
        a.starts_with("-e") || *a == "-f" || a.starts_with("--regexp") || a.starts_with("--file")
    });
    let roots: Vec<&Word> = ops
        .into_iter()
        .skip(usize::from(!explicit_pattern))
        .collect();
    if roots.is_empty() {
        j.reach(name, &Word::Literal(".".into()), at, scope);
    }
    for r in roots {
        j.reach(name, r, at, scope);
    }
}

/// `find`: options before the start folders (`-L`, `-H`, `-D …`, `-O3`), then the folders,
/// then the expression, whose `-exec` commands run with each file found and whose `-delete`
/// deletes them.
pub fn find(j: &mut Judge, words: &[Word], at: &At, facts: &mut Facts) {
    let mut i = 1;
    while let Some(a) = words.get(i).and_then(Word::literal) {
        match a {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            _ if a.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    let mut roots: Vec<Word> = Vec::new();
    while let Some(w) = words.get(i) {
        if w.literal()
            .is_some_and(|a| a.starts_with('-') || matches!(a, "(" | "!" | ")" | ","))
        {
            break;
        }
        roots.push(w.clone());
        i += 1;
    }
    if roots.is_empty() {
        roots.push(Word::Literal(".".into()));
    }
    let names = safe_name_filter(&words[i..]);
    let mut acts_itself = false;
    while i < words.len() {
        let a = words[i].literal().unwrap_or("");
        match a {
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let start = i + 1;
                let mut end = start;
                while end < words.len()
                    && !matches!(words[end].literal(), Some(";") | Some("+") | Some("\\;"))
                {
                    end += 1;
                }
                run_for_each(j, "find", &words[start..end], &roots, false, names, at);
                i = end + 1;
                continue;
            }
            "-delete" => {
                acts_itself = true;
                let targets: Vec<&Word> = roots.iter().collect();
                j.delete_tree("find -delete", &targets, at);
            }
            "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                acts_itself = true;
                if let Some(file) = words.get(i + 1) {
                    j.write(file, at, "find");
                }
            }
            _ => {}
        }
        i += 1;
    }
    facts.read_only = Some(!acts_itself);
}

/// Whether `find`'s expression keeps to names that cannot be secret (`-name '*.rs'`, with no
/// `-o` that would add others).
fn safe_name_filter(expr: &[Word]) -> bool {
    let lit: Vec<&str> = expr.iter().filter_map(Word::literal).collect();
    if lit.iter().any(|a| matches!(*a, "-o" | "-or" | ",")) {
        return false;
    }
    let names: Vec<&str> = lit
        .windows(2)
        .filter(|w| matches!(w[0], "-name" | "-iname"))
        .map(|w| w[1])
        .collect();
    !names.is_empty()
        && names.iter().all(|n| {
            [
                "x.env",
                ".env",
                "x.pem",
                "x.key",
                "id_rsa",
                "id_ed25519",
                "credentials",
                "config.json",
                "policy.toml",
                "config",
                "HEAD",
                "index",
                "packed-refs",
                "description",
                "pre-commit",
                "x.sample",
            ]
            .iter()
            .all(|s| !crate::expand::component_matches(n, s))
        })
}

/// The command a `find -exec` or `fd -x` runs for each file: `{}` stands for a file under each
/// start folder (the command is judged once per folder, with the folder in its place); when the
/// command prints files, it reads the whole tree.
fn run_for_each(
    j: &mut Judge,
    who: &str,
    inner: &[Word],
    roots: &[Word],
    append: bool,
    names_safe: bool,
    at: &At,
) {
    if inner.is_empty() {
        return;
    }
    let placeholder = |a: &str| {
        a.contains("{}")
            || a.contains("{/}")
            || a.contains("{//}")
            || a.contains("{.}")
            || a.contains("{/.}")
    };
    let uses = inner.iter().any(|w| w.literal().is_some_and(placeholder)) || append;
    if !uses {
        j.words(inner, &at.deeper());
        return;
    }
    let program = inner.first().and_then(Word::literal).map(basename);
    let prints = program
        .and_then(readonly::reader_named)
        .is_some_and(|r| r.prints_files);
    // A search inside a search multiplies: `find` in `find` with six folders each, seven deep,
    // is six to the seventh judgements. The inner one is judged once, for a file found anywhere.
    if roots.len() > 1
        && program.is_some_and(|p| matches!(p, "find" | "fd" | "fdfind" | "xargs" | "parallel"))
    {
        let cmd: Vec<Word> = inner
            .iter()
            .map(|w| match w.literal() {
                Some(a) if placeholder(a) => Word::Dynamic(format!("<file found by {who}>")),
                _ => w.clone(),
            })
            .collect();
        j.words(&cmd, &at.deeper());
        return;
    }
    for root in roots {
        let mut cmd: Vec<Word> = inner
            .iter()
            .map(|w| match w.literal() {
                Some(a) if placeholder(a) => match root.literal() {
                    Some(r) => Word::Literal(
                        a.replace("{//}", r)
                            .replace("{/.}", r)
                            .replace("{/}", r)
                            .replace("{.}", r)
                            .replace("{}", r),
                    ),
                    None => Word::Dynamic(a.to_string()),
                },
                _ => w.clone(),
            })
            .collect();
        if append && !inner.iter().any(|w| w.literal().is_some_and(placeholder)) {
            cmd.push(root.clone());
        }
        j.words(&cmd, &at.deeper());
        if prints {
            j.reach(
                &format!("{who} … {}", inner[0].shown()),
                root,
                at,
                Scope {
                    names_safe,
                    skips_hidden: false,
                },
            );
        }
    }
}

/// `fd [options] [pattern] [path…]`, `-x`/`-X` command (the path appended when it names no
/// placeholder).
pub fn fd(j: &mut Judge, words: &[Word], at: &At, facts: &mut Facts) {
    const VALUES: &[&str] = &[
        "-e",
        "-t",
        "-E",
        "-d",
        "-S",
        "-o",
        "-j",
        "-c",
        "--extension",
        "--type",
        "--exclude",
        "--max-depth",
        "--min-depth",
        "--exact-depth",
        "--size",
        "--changed-within",
        "--changed-before",
        "--owner",
        "--threads",
        "--color",
        "--path-separator",
        "--max-results",
        "--format",
        "--batch-size",
        "--ignore-file",
        "--max-buffer-time",
    ];
    let mut i = 1;
    let mut positionals: Vec<Word> = Vec::new();
    let mut exec: Option<(usize, usize)> = None;
    let mut here = at.clone();
    while let Some(w) = words.get(i) {
        match w.literal() {
            Some("-x") | Some("--exec") | Some("-X") | Some("--exec-batch") => {
                let start = i + 1;
                let mut end = start;
                while end < words.len() && words[end].literal() != Some(";") {
                    end += 1;
                }
                exec = Some((start, end));
                i = end + 1;
                continue;
            }
            Some("--base-directory") => {
                if let Some(d) = words.get(i + 1) {
                    here = here.in_dir(j.dir(d, at));
                }
                i += 2;
                continue;
            }
            Some("--search-path") => {
                if let Some(p) = words.get(i + 1) {
                    positionals.push(p.clone());
                }
                i += 2;
                continue;
            }
            Some(a) if VALUES.contains(&a) => i += 2,
            Some(a) if a.starts_with('-') && a.len() > 1 => i += 1,
            _ => {
                positionals.push(w.clone());
                i += 1;
            }
        }
    }
    let mut roots: Vec<Word> = positionals.into_iter().skip(1).collect();
    if roots.is_empty() {
        roots.push(Word::Literal(".".into()));
    }
    if let Some((start, end)) = exec {
        run_for_each(j, "fd", &words[start..end], &roots, true, false, &here);
    }
    facts.read_only = Some(true);
}
