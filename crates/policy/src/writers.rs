//! Programs that write, move or delete the files they are given (`rm`, `mv`, `cp`, `tee`,
//! `chmod -R`, `dd of=`) and options that name a file a program writes (`sort -o`, `curl -o`,
//! `git diff --output`), so every such file is judged like a redirect.

use crate::command::{At, Facts, Judge};
use crate::pattern::normalize_flag;
use crate::readonly::acts;
use crate::shell::Word;

/// Options whose value is a file the program writes, per program.
const OUTPUT_OPTIONS: &[(&[&str], &[&str])] = &[
    (&["sort"], &["-o", "--output"]),
    (&["tree"], &["-o"]),
    (&["less", "more"], &["-o", "-O", "--log-file", "--LOG-FILE"]),
    (
        &["curl"],
        &[
            "-o",
            "--output",
            "-c",
            "--cookie-jar",
            "-D",
            "--dump-header",
            "--trace",
            "--trace-ascii",
            "--libcurl",
            "--etag-save",
            "--output-dir",
        ],
    ),
    (
        &["wget"],
        &[
            "-O",
            "--output-document",
            "-o",
            "--output-file",
            "-a",
            "--append-output",
            "-P",
            "--directory-prefix",
        ],
    ),
    (
        &[
            "gcc", "g++", "cc", "c++", "clang", "clang++", "rustc", "ld", "go",
        ],
        &["-o"],
    ),
    (&["ssh-keygen"], &["-f"]),
    (&["openssl"], &["-out", "-keyout"]),
    (&["pandoc"], &["-o", "--output"]),
    (&["unzip"], &["-d"]),
    (&["sdiff"], &["-o", "--output"]),
];

/// Programs whose second operand is a file they write (`uniq in out`, `xxd in out`).
const SECOND_OPERAND_WRITTEN: &[&str] = &["uniq", "xxd", "json.tool"];

/// Programs that rewrite the files they are given in place unless told to print.
const IN_PLACE: &[&str] = &[
    "gzip",
    "gunzip",
    "bzip2",
    "bunzip2",
    "xz",
    "unxz",
    "zstd",
    "unzstd",
    "lz4",
    "compress",
    "uncompress",
];

pub fn judge(j: &mut Judge, name: &str, words: &[Word], at: &At, facts: &mut Facts) {
    let args = &words[1..];
    let mut flags: Vec<String> = Vec::new();
    for a in args.iter().filter_map(Word::literal) {
        if a.starts_with('-') && a.len() > 1 && a != "--" {
            normalize_flag(name, a, &mut flags);
        }
    }
    let has = |f: &str| flags.iter().any(|x| x == f);
    let operands: Vec<&Word> = {
        let mut v = Vec::new();
        let mut after = false;
        for w in args {
            match w.literal() {
                Some("--") if !after => after = true,
                Some(a) if !after && a.starts_with('-') && a.len() > 1 => {}
                _ => v.push(w),
            }
        }
        v
    };
    output_options(j, name, words, at);
    match name {
        "rm" | "rmdir" | "shred" | "unlink" | "srm" => {
            facts.no_suggestions = true;
            if has("-r") || name == "rmdir" {
                j.delete_tree(name, &operands, at);
            } else {
                for o in operands {
                    j.write(o, at, name);
                }
            }
        }
        "mv" | "cp" | "install" | "ln" | "rsync" => {
            facts.no_suggestions = true;
            // The destination is written; `mv` also takes its sources away, with what they hold.
            let targets: Vec<&Word> = match name {
                "mv" => operands.clone(),
                _ => operands.last().copied().into_iter().collect(),
            };
            for o in &targets {
                j.write(o, at, name);
                if name == "mv"
                    && let Some(p) = o.literal()
                    && let Some(r) = j.resolve(p, at)
                    && let Some(rel) = j.ctx.relative(&r.real)
                {
                    j.holds_protected(name, &r.real, &rel);
                }
            }
            let t = args
                .iter()
                .position(|w| matches!(w.literal(), Some("-t") | Some("--target-directory")));
            if let Some(t) = t.and_then(|i| args.get(i + 1)) {
                j.write(t, at, name);
            }
            for w in args {
                if let Some(dir) = w
                    .literal()
                    .and_then(|a| a.strip_prefix("--target-directory="))
                {
                    j.write(&Word::Literal(dir.to_string()), at, name);
                }
            }
        }
        "tee" | "touch" | "mkdir" | "truncate" | "mkfifo" | "mknod" | "chmod" | "chown"
        | "chgrp" | "setfacl" | "chattr" => {
            facts.no_suggestions = true;
            // chmod/chown's first operand is the mode or owner, not a path.
            let skip = usize::from(matches!(name, "chmod" | "chown" | "chgrp" | "chattr"));
            let recursive = has("-R") || has("--recursive");
            let rest: Vec<&Word> = operands.iter().skip(skip).copied().collect();
            if recursive {
                j.delete_tree(name, &rest, at);
            } else {
                for o in rest {
                    j.write(o, at, name);
                }
            }
        }
        "perl" | "ruby"
            if flags
                .iter()
                .any(|f| f == "-i" || f.starts_with("--in-place")) =>
        {
            for o in operands.iter().skip(1) {
                j.write(o, at, name);
            }
        }
        "dd" => {
            facts.no_suggestions = true;
            for w in args {
                match w {
                    Word::Literal(a) => {
                        if let Some(of) = a.strip_prefix("of=") {
                            j.write(&Word::Literal(of.to_string()), at, "dd");
                        }
                    }
                    Word::Dynamic(raw) | Word::Glob(raw) if raw.starts_with("of=") => {
                        j.write(&Word::Dynamic(raw[3..].to_string()), at, "dd");
                    }
                    _ => {}
                }
            }
        }
        "zip" => {
            facts.no_suggestions = true;
            if let Some(archive) = operands.first() {
                j.write(archive, at, "zip");
            }
            if has("-r") {
                for o in operands.iter().skip(1) {
                    j.reach("zip -r", o, at, Default::default());
                }
            }
        }
        _ if IN_PLACE.contains(&name) => {
            let prints = has("-c")
                || has("--stdout")
                || has("-l")
                || has("--list")
                || has("-t")
                || has("--test");
            if !prints {
                for o in operands {
                    j.write(o, at, name);
                }
            }
        }
        // In the sandbox, `mktemp` makes its file in the private temporary folder.
        "mktemp" if j.sandboxed() => {
            let args: Vec<&str> = args.iter().map(Word::shown).collect();
            let templated = args.iter().any(|a| a.contains("TMPDIR"));
            if crate::private_tmp::mktemp_in_private(&args) && (!templated || j.private_tmpdir()) {
                j.private_tmp_write(
                    "“mktemp” makes a file or folder in the private temporary folder".into(),
                );
            }
        }
        _ if SECOND_OPERAND_WRITTEN.contains(&name) => {
            if let Some(out) = operands.get(1) {
                j.write(out, at, name);
            }
        }
        _ => {}
    }
}

/// The files named by a program's output options (`sort -o out`, `--output=out`, `-oout`).
fn output_options(j: &mut Judge, name: &str, words: &[Word], at: &At) {
    let Some((_, options)) = OUTPUT_OPTIONS
        .iter()
        .find(|(names, _)| names.contains(&name))
    else {
        return;
    };
    let mut i = 1;
    while let Some(w) = words.get(i) {
        let Some(a) = w.literal() else {
            i += 1;
            continue;
        };
        if a == "--" {
            break;
        }
        if a.starts_with("--") {
            if acts(options, a) {
                match a.split_once('=') {
                    Some((_, v)) => j.write(&Word::Literal(v.to_string()), at, name),
                    None => {
                        if let Some(v) = words.get(i + 1) {
                            j.write(v, at, name);
                        }
                        i += 1;
                    }
                }
            }
        } else if a.starts_with('-') && a.len() > 1 {
            // `-o FILE`, `-oFILE`, `-out FILE` (openssl's one-dash long options).
            if let Some(opt) = options
                .iter()
                .find(|o| !o.starts_with("--") && a.starts_with(*o))
            {
                let glued = &a[opt.len()..];
                if glued.is_empty() {
                    if let Some(v) = words.get(i + 1) {
                        j.write(v, at, name);
                    }
                    i += 1;
                } else if opt.len() == 2 {
                    j.write(&Word::Literal(glued.to_string()), at, name);
                }
            }
        }
        i += 1;
    }
}
