//! Stream editors with languages of their own: a `sed` script can run shell commands (`e`,
//! `s///e`) and write files (`w`); an `awk` program can run commands (`system()`, pipes), read
//! the environment and write files (`print > "file"`).

use crate::command::{At, Facts, Judge};
use crate::programs::ENV_LISTING;
use crate::shell::Word;

/// `sed`: its script is read for the commands that run a shell (`e`, `s///e`) or write files
/// (`w`, `s///w`); `-i` writes the files it edits.
pub fn sed(j: &mut Judge, words: &[Word], at: &At, facts: &mut Facts) {
    let mut scripts: Vec<Word> = Vec::new();
    let mut from_file = false;
    let mut in_place = false;
    let mut files: Vec<&Word> = Vec::new();
    let mut i = 1;
    let mut options_done = false;
    while let Some(w) = words.get(i) {
        let Some(a) = w.literal() else {
            files.push(w);
            i += 1;
            continue;
        };
        if options_done || !a.starts_with('-') || a == "-" {
            files.push(w);
            i += 1;
            continue;
        }
        if a == "--" {
            options_done = true;
            i += 1;
            continue;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (opt, glued) = long
                .split_once('=')
                .map_or((long, None), |(o, v)| (o, Some(v)));
            if "expression".starts_with(opt) && opt.len() >= 2 {
                match glued {
                    Some(v) => scripts.push(Word::Literal(v.to_string())),
                    None => {
                        i += 1;
                        scripts.extend(words.get(i).cloned());
                    }
                }
            } else if "file".starts_with(opt) && opt.len() >= 2 {
                from_file = true;
                if glued.is_none() {
                    i += 1;
                }
            } else if "in-place".starts_with(opt) && opt.len() >= 2 {
                in_place = true;
            } else if "line-length".starts_with(opt) && glued.is_none() {
                i += 1;
            }
            i += 1;
            continue;
        }
        let letters: Vec<char> = a.chars().skip(1).collect();
        for (k, c) in letters.iter().enumerate() {
            let rest: String = letters[k + 1..].iter().collect();
            match c {
                'e' | 'f' | 'l' => {
                    let value = if rest.is_empty() {
                        i += 1;
                        words.get(i).cloned()
                    } else {
                        Some(Word::Literal(rest))
                    };
                    match c {
                        'e' => scripts.extend(value),
                        'f' => from_file = true,
                        _ => {}
                    }
                    break;
                }
                'i' => {
                    in_place = true;
                    break;
                }
                _ => {}
            }
        }
        i += 1;
    }
    if scripts.is_empty() && !from_file && !files.is_empty() {
        scripts.push(files.remove(0).clone());
    }
    let mut only_reads = !in_place && !from_file;
    for s in &scripts {
        let Some(text) = s.literal() else {
            j.ask(
                format!("“sed” runs the script “{}”, only known when it runs (a sed script can run shell commands)", s.shown()),
                "computed script",
            );
            only_reads = false;
            continue;
        };
        match sed_script(text) {
            Some(found) => {
                if found.runs {
                    j.ask(
                        "the “sed” script runs text as a shell command (its “e” command)",
                        "program that runs commands",
                    );
                    only_reads = false;
                }
                for w in found.writes {
                    j.write(&Word::Literal(w), at, "sed");
                    only_reads = false;
                }
                for r in found.reads {
                    j.mention(&r, at);
                }
            }
            None => {
                j.ask(
                    format!("Tandem cannot read the “sed” script “{text}”, and a sed script can run shell commands"),
                    "program that runs commands",
                );
                only_reads = false;
            }
        }
    }
    if in_place {
        for f in &files {
            j.write(f, at, "sed -i");
        }
    }
    if files.iter().any(|f| f.literal().is_none()) && !j.sandboxed() {
        only_reads = false;
    }
    facts.read_only = Some(only_reads);
}

/// What a sed script does besides editing text.
#[derive(Default)]
struct SedScript {
    runs: bool,
    writes: Vec<String>,
    reads: Vec<String>,
}

/// Reads a sed script command by command. `None` when it is not one this reader follows.
fn sed_script(script: &str) -> Option<SedScript> {
    let mut found = SedScript::default();
    let c: Vec<char> = script.chars().collect();
    let mut i = 0;
    let rest_of_line = |i: &mut usize| -> String {
        let start = *i;
        while *i < c.len() && c[*i] != '\n' {
            *i += 1;
        }
        c[start..*i].iter().collect::<String>().trim().to_string()
    };
    // Reads a delimited part (`/re/`), the delimiter at `c[*i]`; leaves `*i` after the closing one.
    let delimited = |i: &mut usize, delim: char| -> Option<()> {
        while *i < c.len() {
            match c[*i] {
                '\\' => *i += 2,
                '\n' if delim != '\n' => return None,
                x if x == delim => {
                    *i += 1;
                    return Some(());
                }
                _ => *i += 1,
            }
        }
        None
    };
    while i < c.len() {
        // Separators and blanks.
        while i < c.len() && (c[i].is_whitespace() || c[i] == ';') {
            i += 1;
        }
        if i >= c.len() {
            break;
        }
        // Addresses: numbers, `$`, `/re/`, `\cREc`, `first~step`, `addr1,addr2`, `+N`, `!`.
        for _ in 0..2 {
            if i < c.len() && (c[i].is_ascii_digit() || c[i] == '$' || c[i] == '+' || c[i] == '~') {
                while i < c.len()
                    && (c[i].is_ascii_digit() || c[i] == '$' || c[i] == '+' || c[i] == '~')
                {
                    i += 1;
                }
            } else if i < c.len() && c[i] == '/' {
                i += 1;
                delimited(&mut i, '/')?;
                while i < c.len() && matches!(c[i], 'I' | 'M') {
                    i += 1;
                }
            } else if i + 1 < c.len() && c[i] == '\\' {
                let d = c[i + 1];
                i += 2;
                delimited(&mut i, d)?;
            }
            if i < c.len() && c[i] == ',' {
                i += 1;
                continue;
            }
            break;
        }
        while i < c.len() && (c[i] == ' ' || c[i] == '!') {
            i += 1;
        }
        let Some(&cmd) = c.get(i) else { break };
        i += 1;
        match cmd {
            '{' | '}' | '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x'
            | 'z' | 'F' => {}
            '#' | ':' | 'b' | 't' | 'T' | 'v' => {
                // A comment or label runs to the end of the line; a label may end at `;`.
                while i < c.len() && c[i] != '\n' && (cmd == '#' || c[i] != ';') {
                    i += 1;
                }
            }
            'a' | 'i' | 'c' => {
                while i < c.len() && c[i] != '\n' {
                    if c[i] == '\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            'l' | 'L' | 'q' | 'Q' => {
                while i < c.len() && (c[i].is_ascii_digit() || c[i] == ' ') {
                    i += 1;
                }
            }
            'r' | 'R' => found.reads.push(rest_of_line(&mut i)),
            'w' | 'W' => found.writes.push(rest_of_line(&mut i)),
            'e' => {
                found.runs = true;
                let _ = rest_of_line(&mut i);
            }
            's' | 'y' => {
                let d = *c.get(i)?;
                if d == '\\' || d == '\n' {
                    return None;
                }
                i += 1;
                delimited(&mut i, d)?;
                delimited(&mut i, d)?;
                if cmd == 's' {
                    while i < c.len() && !matches!(c[i], ';' | '\n' | '}') {
                        match c[i] {
                            'e' => found.runs = true,
                            'w' => {
                                i += 1;
                                found.writes.push(rest_of_line(&mut i));
                                break;
                            }
                            'g' | 'p' | 'i' | 'I' | 'm' | 'M' | ' ' => {}
                            x if x.is_ascii_digit() => {}
                            _ => return None,
                        }
                        i += 1;
                    }
                }
            }
            _ => return None,
        }
    }
    Some(found)
}

/// `awk`: its program may run commands (`system()`, `| getline`, `print | "cmd"`), read the
/// environment (`ENVIRON`) or write files (`print > "file"`); `-f` takes it from a file.
pub fn awk(j: &mut Judge, words: &[Word], at: &At, facts: &mut Facts) {
    let mut i = 1;
    let mut program: Option<Word> = None;
    let mut from_file = false;
    let mut writes = false;
    let mut files: Vec<&Word> = Vec::new();
    while let Some(w) = words.get(i) {
        let Some(a) = w.literal() else {
            if program.is_none() && !from_file {
                program = Some(w.clone());
            } else {
                files.push(w);
            }
            i += 1;
            continue;
        };
        match a {
            "--" => {}
            "-F" | "-v" | "--field-separator" | "--assign" => i += 1,
            "-f" | "--file" | "-i" | "--include" | "-E" | "--exec" => {
                from_file = true;
                i += 1;
            }
            "-e" | "--source" => {
                program = words.get(i + 1).cloned();
                i += 1;
            }
            "-l" | "--load" => {
                j.ask(
                    "“awk -l” loads a compiled extension, which runs any code",
                    "inline code",
                );
                from_file = true;
                i += 1;
            }
            _ if a.starts_with("-o")
                || a.starts_with("--pretty-print")
                || a.starts_with("-p")
                || a.starts_with("--profile")
                || a.starts_with("-d")
                || a.starts_with("--dump-variables") =>
            {
                writes = true;
            }
            _ if a.starts_with('-') && a.len() > 1 => {}
            _ if program.is_none() && !from_file => program = Some(w.clone()),
            _ => files.push(w),
        }
        i += 1;
    }
    let mut only_reads = !from_file && !writes;
    match &program {
        Some(Word::Dynamic(raw)) => {
            j.ask(
                format!("“awk” runs the program “{raw}”, only known when it runs"),
                "computed script",
            );
            only_reads = false;
        }
        Some(p) => {
            let text = p.shown();
            let code = strip_awk_strings(text);
            if code.contains("system")
                || code.replace("||", "").contains('|')
                || code.contains("@load")
                || code.contains("@include")
            {
                j.ask(
                    "the “awk” program runs commands (“system()” or a pipe)",
                    "program that runs commands",
                );
                only_reads = false;
            }
            if code.contains("ENVIRON") {
                j.ask(
                    format!("the “awk” program {ENV_LISTING}"),
                    "environment listing",
                );
                only_reads = false;
            }
            for target in awk_outputs(text) {
                only_reads = false;
                match target {
                    Some(file) => j.write(&Word::Literal(file), at, "awk"),
                    None => j.ask(
                        "the “awk” program writes to a file only known when it runs",
                        "computed path",
                    ),
                }
            }
        }
        None => {}
    }
    if files.iter().any(|f| f.literal().is_none()) && !j.sandboxed() {
        only_reads = false;
    }
    facts.read_only = Some(only_reads);
}

/// An awk program with its string literals blanked, so `"a|b"` is not a pipe.
fn strip_awk_strings(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    for ch in text.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if ch == '\\' {
                escaped = true;
            } else if ch == '"' {
                in_string = false;
                out.push('"');
            }
            continue;
        }
        if ch == '"' {
            in_string = true;
        }
        out.push(ch);
    }
    out
}

/// The files `print … > "file"` writes in an awk program (`None` for one it computes).
fn awk_outputs(text: &str) -> Vec<Option<String>> {
    let mut out = Vec::new();
    for statement in text.split([';', '\n', '{', '}']) {
        let s = statement.trim_start();
        if !(s.starts_with("print") || s.starts_with("printf")) {
            continue;
        }
        let code = strip_awk_strings(s);
        let Some(pos) = code.find('>') else { continue };
        let after = s[pos..].trim_start_matches('>').trim();
        match after.strip_prefix('"').and_then(|r| r.split_once('"')) {
            Some((file, _)) => out.push(Some(file.to_string())),
            None => out.push(None),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sed_scripts_that_run_or_write() {
        let s = |t: &str| sed_script(t).map(|f| (f.runs, f.writes, f.reads));
        assert_eq!(s("1,40p"), Some((false, vec![], vec![])));
        assert_eq!(s("s/a/b/g;/x/d"), Some((false, vec![], vec![])));
        assert_eq!(s("e"), Some((true, vec![], vec![])));
        assert_eq!(s("1e rm -rf /"), Some((true, vec![], vec![])));
        assert_eq!(s("s/x/rm -rf ~/e"), Some((true, vec![], vec![])));
        assert_eq!(
            s("w out.txt"),
            Some((false, vec!["out.txt".to_string()], vec![]))
        );
        assert_eq!(
            s("s/a/b/w /etc/passwd"),
            Some((false, vec!["/etc/passwd".to_string()], vec![]))
        );
        assert_eq!(s("r .env"), Some((false, vec![], vec![".env".to_string()])));
        assert!(s("1~2{s/a/b/;p}").is_some());
        assert!(s("Xunknown").is_none());
    }

    #[test]
    fn awk_programs_that_write() {
        assert_eq!(awk_outputs("{print $1}"), Vec::<Option<String>>::new());
        assert_eq!(awk_outputs("$1 > 5 {print}"), Vec::<Option<String>>::new());
        assert_eq!(
            awk_outputs("{print > \"out.txt\"}"),
            vec![Some("out.txt".to_string())]
        );
        assert_eq!(awk_outputs("{print $1 > f}"), vec![None]);
        assert!(!strip_awk_strings("{print \"a|b\"}").contains('|'));
    }
}
