//! Programs that run a command they put together: `env` (with variables, a folder, or `-S`
//! splitting a string into one), `xargs` (with what arrives on its input) and GNU `parallel`
//! (through a shell, once per argument).

use crate::command::{At, Flow, Judge};
use crate::decision::{Finding, Verdict};
use crate::env_vars::{self, Risk};
use crate::programs::ENV_LISTING;
use crate::shell::Word;

/// `env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE…] [COMMAND…]`.
pub fn env(j: &mut Judge, words: &[Word], at: &At) -> Flow {
    let mut i = 1;
    let mut inner = at.deeper();
    while let Some(w) = words.get(i) {
        let Some(a) = w.literal() else {
            j.ask(
                format!(
                    "“env” is given “{}”, only known when the command runs",
                    w.shown()
                ),
                "computed command name",
            );
            return Flow::Done;
        };
        if a == "--" {
            i += 1;
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (opt, glued) = long
                .split_once('=')
                .map_or((long, None), |(o, v)| (o, Some(v)));
            let value = |i: &mut usize| -> Option<Word> {
                match glued {
                    Some(v) => Some(Word::Literal(v.to_string())),
                    None => {
                        *i += 1;
                        words.get(*i).cloned()
                    }
                }
            };
            match opt {
                "split-string" => {
                    if let Some(s) = value(&mut i) {
                        j.script(&s, &at.deeper());
                    }
                    return Flow::Done;
                }
                "chdir" => {
                    if let Some(d) = value(&mut i) {
                        inner = inner.in_dir(j.dir(&d, at));
                    }
                }
                "unset" => {
                    let _ = value(&mut i);
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        if a.starts_with('-') && a.len() > 1 {
            let letters: Vec<char> = a.chars().skip(1).collect();
            for (k, c) in letters.iter().enumerate() {
                if !matches!(c, 'S' | 'u' | 'C') {
                    continue;
                }
                let rest: String = letters[k + 1..].iter().collect();
                let value = if rest.is_empty() {
                    i += 1;
                    words.get(i).cloned()
                } else {
                    Some(Word::Literal(rest))
                };
                match (c, value) {
                    ('S', Some(s)) => {
                        j.script(&s, &at.deeper());
                        return Flow::Done;
                    }
                    ('C', Some(d)) => inner = inner.in_dir(j.dir(&d, at)),
                    _ => {}
                }
                break;
            }
            i += 1;
            continue;
        }
        if let Some((var, value)) = a.split_once('=') {
            match env_vars::risk(var, &Word::Literal(value.to_string())) {
                Risk::Code(why) => {
                    j.ask(
                        format!("setting “{var}” {why}"),
                        "environment that runs code",
                    );
                    inner.tainted = true;
                }
                Risk::Unknown => inner.tainted = true,
                Risk::Benign => {}
            }
            i += 1;
            continue;
        }
        break;
    }
    match words.get(i..).filter(|r| !r.is_empty()) {
        Some(rest) => j.words(rest, &inner),
        None => j.ask(format!("“env” {ENV_LISTING}"), "environment listing"),
    }
    Flow::Done
}

/// `xargs [options] [command [args]]`: the command runs with what arrives on its input, so its
/// operands (or the `-I` placeholder) are only known when it runs.
pub fn xargs(j: &mut Judge, words: &[Word], at: &At) -> Flow {
    const VALUES: &[&str] = &[
        "-I",
        "-n",
        "-P",
        "-d",
        "-L",
        "-s",
        "-E",
        "-a",
        "--arg-file",
        "--delimiter",
        "--max-args",
        "--max-procs",
        "--max-lines",
        "--max-chars",
        "--eof",
        "--process-slot-var",
    ];
    let mut i = 1;
    let mut replace: Option<String> = None;
    while let Some(a) = words.get(i).and_then(Word::literal) {
        if a == "--" {
            i += 1;
            break;
        }
        if !a.starts_with('-') || a.len() == 1 {
            break;
        }
        if a == "-I" {
            replace = words.get(i + 1).and_then(Word::literal).map(str::to_string);
        } else if let Some(r) = a
            .strip_prefix("-I")
            .or_else(|| a.strip_prefix("--replace="))
        {
            replace = Some(r.to_string());
        } else if a == "-i" || a == "--replace" {
            replace = Some("{}".into());
        } else if let Some(r) = a.strip_prefix("-i") {
            replace = Some(r.to_string());
        }
        i += if VALUES.contains(&a) { 2 } else { 1 };
    }
    let mut inner: Vec<Word> = match words.get(i..).filter(|r| !r.is_empty()) {
        Some(rest) => rest.to_vec(),
        None => vec![Word::Literal("echo".into())],
    };
    match &replace {
        Some(r) if !r.is_empty() => {
            for w in inner.iter_mut().skip(1) {
                if w.literal().is_some_and(|a| a.contains(r.as_str())) {
                    *w = Word::Dynamic(format!("<{} from xargs' input>", w.shown()));
                }
            }
            if inner
                .first()
                .and_then(Word::literal)
                .is_some_and(|a| a.contains(r.as_str()))
            {
                inner[0] = Word::Dynamic("<program from xargs' input>".into());
            }
        }
        _ => inner.push(Word::Dynamic("<input from xargs>".into())),
    }
    j.words(&inner, &at.deeper());
    Flow::Done
}

/// GNU `parallel`: its command template runs through a shell with each argument; without a
/// template, each argument is itself a command.
pub fn parallel(j: &mut Judge, words: &[Word], at: &At) -> Flow {
    const VALUES: &[&str] = &[
        "-j",
        "--jobs",
        "-S",
        "--sshlogin",
        "-a",
        "--arg-file",
        "-I",
        "-d",
        "--delimiter",
        "-N",
        "-n",
        "--max-args",
        "-L",
        "--max-lines",
        "--joblog",
        "--results",
        "--timeout",
        "--delay",
        "--tmpdir",
        "--workdir",
        "--wd",
        "--env",
        "--retries",
        "--halt",
        "--colsep",
        "-C",
        "--tag-string",
        "--tagstring",
        "-E",
        "--eof",
        "--load",
        "--memfree",
        "--nice",
        "-P",
    ];
    let mut i = 1;
    while let Some(a) = words.get(i).and_then(Word::literal) {
        if !a.starts_with('-') || a.starts_with(":::") || a == "--" {
            break;
        }
        if matches!(a, "-S" | "--sshlogin") || a.starts_with("--sshlogin=") {
            j.push(
                Finding::floor(
                    Verdict::Ask,
                    "“parallel -S” runs the commands on other machines over the network",
                    "network",
                )
                .with_network(true),
            );
        }
        i += if VALUES.contains(&a) { 2 } else { 1 };
    }
    let rest = words.get(i..).unwrap_or(&[]);
    let sep = rest
        .iter()
        .position(|w| w.literal().is_some_and(|a| a.starts_with(":::")));
    let (template, inputs) = match sep {
        Some(s) => (&rest[..s], Some(&rest[s + 1..])),
        None => (rest, None),
    };
    let template: Option<Vec<&str>> = template.iter().map(Word::literal).collect();
    let inputs: Option<Vec<&str>> = inputs.map(|ins| {
        ins.iter()
            .filter_map(Word::literal)
            .filter(|a| !a.starts_with(":::"))
            .collect()
    });
    let Some(template) = template else {
        j.ask(
            "“parallel” runs a command only known when it runs",
            "computed script",
        );
        return Flow::Done;
    };
    match (template.is_empty(), inputs) {
        (true, Some(cmds)) => {
            for c in cmds {
                j.source(c, &at.deeper());
            }
        }
        (false, Some(args)) if args.len() <= 64 => {
            let t = template.join(" ");
            for a in args {
                let line = if t.contains("{}") {
                    t.replace("{}", a)
                } else {
                    format!("{t} {a}")
                };
                j.source(&line, &at.deeper());
            }
        }
        (false, _) => {
            let mut inner: Vec<Word> = template
                .iter()
                .map(|a| Word::Literal((*a).to_string()))
                .collect();
            inner.push(Word::Dynamic("<input from parallel>".into()));
            j.words(&inner, &at.deeper());
            j.ask(
                "“parallel” runs its command through a shell with input only known when it runs",
                "computed script",
            );
        }
        (true, None) => j.ask(
            "“parallel” runs each line of its input as a command",
            "pipe into a shell",
        ),
    }
    Flow::Done
}
