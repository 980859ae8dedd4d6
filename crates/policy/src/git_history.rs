//! git commands that print file contents out of the repository's history (`git log -p`,
//! `git show REV`, `git diff REV`, `git archive`, …). A secret once committed and then removed
//! (a `.env`, a key) is still in the history, and these print it: while the history holds one,
//! or nobody knows whether it does ([`crate::Context::history_holds_secrets`]), they ask —
//! unless a pathspec limits them to paths that are not protected (`git log -p -- src/`).
//! `REV:path` names one file's content and is judged as a read of that path (see
//! [`crate::git`]).

use crate::command::{At, Judge};
use crate::decision::Verdict;
use crate::paths::{Access, protections};

/// Options that make a log-like command print each commit's changes.
const PATCH: &[&str] = &[
    "-p",
    "-u",
    "--patch",
    "-c",
    "--cc",
    "--full-diff",
    "--patch-with-stat",
    "--patch-with-raw",
    "--word-diff",
    "--color-words",
    "-W",
    "--function-context",
    "--binary",
    "--unified",
];

/// Options with a glued value that make a log-like command print changes (`-U3`, `-L1,5:f`).
const PATCH_PREFIXES: &[&str] = &["-U", "-L", "--unified=", "--word-diff=", "--color-words="];

/// Options that make `show` and `diff` print names or counts instead of the changes, spelled
/// in full: an abbreviation is not taken for one of them, so it is judged as printing.
const NO_PATCH: &[&str] = &[
    "-s",
    "-q",
    "--quiet",
    "--no-patch",
    "--stat",
    "--numstat",
    "--shortstat",
    "--name-only",
    "--name-status",
    "--raw",
    "--summary",
    "--compact-summary",
    "--dirstat",
];

/// Options of the log-like commands (`log`, `show`, `diff`, …) that take the next word as
/// their value, so it is not taken for a revision.
const LOG_VALUES: &[&str] = &[
    "-n",
    "-S",
    "-G",
    "-O",
    "-L",
    "--author",
    "--committer",
    "--grep",
    "--since",
    "--until",
    "--after",
    "--before",
    "--skip",
    "--max-count",
    "--min-parents",
    "--max-parents",
    "--encoding",
    "--date",
    "--decorate-refs",
    "--decorate-refs-exclude",
    "--exclude",
    "--diff-filter",
];

/// The same for `git grep`.
const GREP_VALUES: &[&str] = &[
    "-e",
    "-f",
    "-A",
    "-B",
    "-C",
    "-m",
    "--max-count",
    "--max-depth",
    "--threads",
];

/// The same for `git archive`.
const ARCHIVE_VALUES: &[&str] = &[
    "-o", "--output", "--prefix", "--format", "--remote", "--exec",
];

/// Asks when a git command would print file contents out of a history that holds, or may
/// hold, a secret.
pub fn judge(j: &mut Judge, sub: &str, args: &[&str], at: &At) {
    if !prints(j, sub, args, at) || !(j.ctx.history_holds_secrets)() {
        return;
    }
    j.ask(
        format!("this repository's history holds, or may hold, a protected file (such as .env) that was committed once; “git {sub}” shows file contents from that history, so it could print the secret"),
        "history holds secrets",
    );
}

/// Whether the command prints file contents from history, paths that cannot be protected
/// aside.
fn prints(j: &Judge, sub: &str, args: &[&str], at: &At) -> bool {
    let dashdash = args.iter().position(|a| *a == "--");
    let (before, after) = match dashdash {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &[][..]),
    };
    let has = |o: &str| {
        before
            .iter()
            .any(|a| *a == o || a.starts_with(&format!("{o}=")))
    };
    let patch = before.iter().any(|a| {
        PATCH.contains(a)
            || PATCH_PREFIXES
                .iter()
                .any(|p| a.starts_with(p) && a.len() > p.len())
    }) || before
        .iter()
        .any(|a| PATCH.iter().any(|o| a.starts_with(&format!("{o}="))));
    let no_patch = before
        .iter()
        .any(|a| NO_PATCH.contains(a) || NO_PATCH.iter().any(|o| a.starts_with(&format!("{o}="))));
    let shows_changes = patch || !no_patch;
    let values = match sub {
        "grep" => GREP_VALUES,
        "archive" => ARCHIVE_VALUES,
        _ => LOG_VALUES,
    };
    let words = operands(before, values);
    // `--full-diff` prints the whole of each commit the pathspec picks.
    let limited =
        || !has("--full-diff") && !after.is_empty() && after.iter().all(|p| safe_path(j, p, at));
    let printing = match sub {
        // `reflog` is `log -g`; the plumbing diffs print names unless told otherwise.
        "log" | "whatchanged" | "reflog" | "diff-tree" | "diff-index" => patch,
        // `stash list` takes log's options too.
        "stash" => matches!(words.first(), Some(&"show") | Some(&"list")) && patch,
        // A commit or a tag shows its changes; `REV:path` alone is one file's content.
        "show" => shows_changes && (words.is_empty() || words.iter().any(|w| !is_blob(w))),
        "diff" | "difftool" => {
            shows_changes
                && !has("--no-index")
                && (has("--cached")
                    || has("--staged")
                    || has("--merge-base")
                    || words.iter().any(|w| !is_blob(w) && is_revision(j, w, at)))
        }
        "grep" => {
            let pattern_given = before
                .iter()
                .any(|a| matches!(*a, "-e" | "-f") || a.starts_with("--regexp"));
            let skip = usize::from(!pattern_given);
            words.iter().skip(skip).any(|w| is_revision(j, w, at))
        }
        "blame" | "annotate" => {
            // The file is the last word; a revision before it reads the file in history.
            let Some((file, revs)) = words.split_last() else {
                return false;
            };
            let revision = revs.iter().any(|w| is_revision(j, w, at));
            let file = after.last().copied().unwrap_or(file);
            return revision && !safe_path(j, file, at);
        }
        "cat-file" => {
            // `-t`, `-s`, `-e`: the type, the size, whether it exists; not the content.
            let options: Vec<&&str> = before.iter().filter(|a| a.starts_with('-')).collect();
            let only_about = !options.is_empty()
                && options.iter().all(|a| {
                    matches!(
                        **a,
                        "-t" | "-s" | "-e" | "--batch-check" | "--allow-unknown-type"
                    ) || a.starts_with("--batch-check=")
                });
            let batch = options
                .iter()
                .any(|a| a.starts_with("--batch") && !a.starts_with("--batch-check"));
            let objects: Vec<&&str> = words
                .iter()
                .filter(|w| !matches!(**w, "blob" | "tree" | "commit" | "tag"))
                .collect();
            !only_about && (batch || objects.is_empty() || objects.iter().any(|w| !is_blob(w)))
        }
        "archive" => {
            if has("--list") || has("-l") {
                return false;
            }
            // `git archive HEAD src/`: the paths after the tree limit it, when they are paths.
            let paths: Vec<&str> = words
                .iter()
                .skip(1)
                .copied()
                .chain(after.iter().copied())
                .collect();
            return paths.is_empty()
                || !paths
                    .iter()
                    .all(|p| !is_revision(j, p, at) && safe_path(j, p, at));
        }
        "bundle" => words.first() == Some(&"create"),
        "format-patch" | "range-diff" | "fast-export" | "unpack-file" => shows_changes,
        _ => false,
    };
    printing && !limited()
}

/// The words that are not options or their values.
fn operands<'a>(args: &[&'a str], values: &[&str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut skip = false;
    for a in args {
        if skip {
            skip = false;
            continue;
        }
        if a.starts_with('-') {
            skip = values.contains(a);
            continue;
        }
        out.push(*a);
    }
    out
}

/// `REV:path` or `:path`: one file's content (judged as a read of that path elsewhere).
fn is_blob(word: &str) -> bool {
    word.split_once(':')
        .is_some_and(|(_, path)| !path.is_empty())
}

/// Whether a word names a revision rather than a file: anything that is not a file where git
/// runs, or all of them when the disk cannot be looked at.
fn is_revision(j: &Judge, word: &str, at: &At) -> bool {
    if word.contains("..") || word.contains(['^', '~', '@', ':']) {
        return true;
    }
    match (j.ctx.exists, &at.cwd) {
        (Some(exists), Some(cwd)) => !exists(&cwd.join(word)),
        _ => true,
    }
}

/// A pathspec that limits the output to paths no rule protects: a plain path inside the
/// project, not the project itself, not a secret or a protected path, and holding none.
fn safe_path(j: &Judge, spec: &str, at: &At) -> bool {
    if spec.is_empty() || spec.starts_with(':') || spec.contains(['*', '?', '[']) {
        return false;
    }
    let Some(r) = j.resolve(spec, at) else {
        return false;
    };
    let Some(rel) = j.ctx.relative(&r.lexical) else {
        return false;
    };
    !r.climbs_link
        && !rel.is_empty()
        && protections(j.policy, j.ctx, &r.lexical, Access::Read)
            .iter()
            .all(|f| f.verdict != Verdict::Deny)
        && j.protected_under(&rel, false).is_none()
}
