//! `tar`: creating an archive reads every folder it is given and writes the archive;
//! extracting writes where it is told; some options run programs.

use crate::command::{At, Facts, Judge};
use crate::readonly::acts;
use crate::searches::Scope;
use crate::shell::Word;

/// `tar`: creating an archive reads every folder it is given and writes the archive;
/// extracting writes into `-C` (or here); a few options run programs.
pub fn tar(j: &mut Judge, words: &[Word], at: &At, facts: &mut Facts) {
    #[derive(PartialEq)]
    enum TarMode {
        Unknown,
        Create,
        Extract,
        List,
    }
    let mut mode = TarMode::Unknown;
    let mut archive: Option<Word> = None;
    let mut dir: Option<Word> = None;
    let mut operands: Vec<&Word> = Vec::new();
    let mut removes = false;
    let mut absolute = false;
    const RUNS: &[&str] = &[
        "--to-command",
        "--use-compress-program",
        "--info-script",
        "--new-volume-script",
        "--rsh-command",
        "--rmt-command",
        "--checkpoint-action",
    ];
    let mut pending: Vec<char> = Vec::new();
    for (k, w) in words.iter().enumerate().skip(1) {
        let Some(a) = w.literal() else {
            match pending.first() {
                Some(_) => {
                    let letter = pending.remove(0);
                    match letter {
                        'f' => archive = Some(w.clone()),
                        'C' => dir = Some(w.clone()),
                        'I' | 'F' => j.ask(
                            "“tar” runs a program named on its command line",
                            "program that runs commands",
                        ),
                        _ => {}
                    }
                }
                None => operands.push(w),
            }
            continue;
        };
        if let Some(letter) = (!pending.is_empty()).then(|| pending.remove(0)) {
            match letter {
                'f' => archive = Some(w.clone()),
                'C' => dir = Some(w.clone()),
                'I' | 'F' => j.ask(format!("“tar” runs “{a}”"), "program that runs commands"),
                _ => {}
            }
            continue;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (opt, value) = long
                .split_once('=')
                .map_or((long, None), |(o, v)| (o, Some(v)));
            let full = format!("--{opt}");
            if acts(RUNS, &full) {
                let v = value
                    .map(str::to_string)
                    .or_else(|| words.get(k + 1).and_then(Word::literal).map(str::to_string))
                    .unwrap_or_default();
                if !full.starts_with("--checkpoint-a") || v.contains("exec") || value.is_none() {
                    j.ask(
                        format!("“tar {full}” runs a program (“{v}”)"),
                        "program that runs commands",
                    );
                }
                if value.is_none() {
                    pending.push('?');
                }
                continue;
            }
            let is = |name: &str| name.starts_with(opt) && opt.len() >= 3;
            if is("create") || is("append") || is("update") || is("catenate") || is("concatenate") {
                mode = TarMode::Create;
            } else if is("extract") || is("get") {
                mode = TarMode::Extract;
            } else if is("list") || is("diff") || is("compare") {
                mode = TarMode::List;
            } else if is("remove-files") {
                removes = true;
            } else if is("absolute-names") {
                absolute = true;
            } else if is("file") {
                match value {
                    Some(v) => archive = Some(Word::Literal(v.to_string())),
                    None => pending.push('f'),
                }
            } else if is("directory") {
                match value {
                    Some(v) => dir = Some(Word::Literal(v.to_string())),
                    None => pending.push('C'),
                }
            } else if value.is_none()
                && (is("exclude")
                    || is("files-from")
                    || is("exclude-from")
                    || is("transform")
                    || is("xform")
                    || is("owner")
                    || is("group")
                    || is("mode")
                    || is("format")
                    || is("label")
                    || is("index-file"))
            {
                pending.push('?');
            }
            continue;
        }
        // Old style: the first word is a cluster without a dash (`tar czf out.tgz .`).
        let cluster = if let Some(c) = a.strip_prefix('-') {
            Some(c)
        } else if k == 1 && !a.contains(['/', '.', '=']) {
            Some(a)
        } else {
            None
        };
        match cluster {
            Some(c) => {
                for (n, letter) in c.chars().enumerate() {
                    match letter {
                        'c' | 'r' | 'u' | 'A' => mode = TarMode::Create,
                        'x' => mode = TarMode::Extract,
                        't' | 'd' => mode = TarMode::List,
                        'P' => absolute = true,
                        'f' | 'C' | 'I' | 'F' | 'T' | 'X' | 'b' | 'L' | 'V' | 'N' | 'K' | 'g'
                        | 'H' => {
                            let rest: String = c.chars().skip(n + 1).collect();
                            if a.starts_with('-') && !rest.is_empty() {
                                let v = Word::Literal(rest.clone());
                                match letter {
                                    'f' => archive = Some(v),
                                    'C' => dir = Some(v),
                                    'I' | 'F' => j.ask(
                                        format!("“tar” runs “{rest}”"),
                                        "program that runs commands",
                                    ),
                                    _ => {}
                                }
                                break;
                            }
                            pending.push(letter);
                        }
                        _ => {}
                    }
                }
            }
            None => operands.push(w),
        }
    }
    match mode {
        TarMode::Create => {
            if let Some(f) = &archive {
                j.write(f, at, "tar");
            }
            let here = match &dir {
                Some(d) => at.in_dir(j.dir(d, at)),
                None => at.clone(),
            };
            for o in &operands {
                j.reach("tar", o, &here, Scope::default());
            }
            if removes {
                j.delete_tree("tar --remove-files", &operands, &here);
            }
        }
        TarMode::Extract => {
            let target = dir.clone().unwrap_or(Word::Literal(".".into()));
            j.write(&target, at, "tar -x");
            if absolute {
                j.ask(
                    "“tar -P” extracts files to the absolute paths stored in the archive, anywhere on disk",
                    "write outside the project",
                );
            }
        }
        TarMode::List | TarMode::Unknown => {}
    }
    facts.read_only = Some(mode == TarMode::List);
}
