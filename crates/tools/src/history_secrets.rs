//! Whether a project's git history ever held a secret file (a `.env` committed once, then
//! removed): then `git log -p`, `git show REV` and the like can print it, and the policy asks
//! before them. Found once per session, in the background, by listing every file any commit
//! added; until the answer is known (or when it cannot be had), the history counts as holding
//! one. The values those files held are kept too, so that a script the policy cannot see into
//! (one that runs `git log -p` itself) prints them hidden: see [`HistorySecrets::redact`].

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

/// How long a question waits for the answer before it is taken as "yes".
const WAIT: Duration = Duration::from_secs(10);

#[derive(Debug, Default)]
struct Answer {
    started: bool,
    known: Option<bool>,
    /// The values the history's secret files held, longest first.
    values: Arc<Vec<String>>,
}

/// What a value from the history's secret files is replaced by in a command's output.
pub const HIDDEN_VALUE: &str = "[hidden: a secret from git history]";

/// How many commits are read for the secret files' contents, and how many versions of them.
const COMMITS_READ: usize = 200_000;
const VERSIONS_READ: usize = 2_000;
/// A version larger than this is not a settings file; its values are not read.
const VERSION_BYTES: usize = 1 << 20;

/// The answer for one project, found on a thread of its own when first asked for (or when a
/// session starts it early with [`HistorySecrets::begin`]).
#[derive(Debug, Clone)]
pub struct HistorySecrets {
    root: PathBuf,
    is_secret: crate::SecretTest,
    answer: Arc<(Mutex<Answer>, Condvar)>,
}

impl HistorySecrets {
    /// For `root`'s history (nothing to look at outside git); nothing is read yet.
    pub fn new(root: &Path, is_secret: impl Into<crate::SecretTest>) -> Self {
        HistorySecrets {
            root: root.to_path_buf(),
            is_secret: is_secret.into(),
            answer: Arc::new((Mutex::new(Answer::default()), Condvar::new())),
        }
    }

    /// Starts looking, in the background.
    pub fn begin(&self) {
        let mut state = self.answer.0.lock().unwrap_or_else(PoisonError::into_inner);
        if state.started {
            return;
        }
        state.started = true;
        let (slot, root, is_secret) = (
            self.answer.clone(),
            self.root.clone(),
            self.is_secret.clone(),
        );
        let spawned = std::thread::Builder::new()
            .name("history-secrets".into())
            .spawn(move || {
                let (found, values) = look(&root, &is_secret);
                let (lock, ready) = &*slot;
                let mut answer = lock.lock().unwrap_or_else(PoisonError::into_inner);
                answer.known = Some(found);
                answer.values = Arc::new(values);
                drop(answer);
                ready.notify_all();
            });
        if spawned.is_err() {
            state.known = Some(true);
        }
    }

    /// Whether the history holds a secret file, or may (not known within a few seconds).
    pub fn holds_secrets(&self) -> bool {
        self.answered().known.unwrap_or(true)
    }

    /// The answer once the look has ended, or as it stands after [`WAIT`].
    fn answered(&self) -> std::sync::MutexGuard<'_, Answer> {
        self.begin();
        let (lock, ready) = &*self.answer;
        let state = lock.lock().unwrap_or_else(PoisonError::into_inner);
        ready
            .wait_timeout_while(state, WAIT, |a| a.known.is_none())
            .unwrap_or_else(PoisonError::into_inner)
            .0
    }

    /// The values the history's secret files held (waiting for the look, as
    /// [`HistorySecrets::holds_secrets`] does).
    fn values(&self) -> Arc<Vec<String>> {
        self.answered().values.clone()
    }

    /// `text` with every value the history's secret files ever held replaced by
    /// [`HIDDEN_VALUE`]; `None` when it holds none. A command that prints the history (a
    /// script running `git log -p`, a `git show` the person allowed) shows the change, not
    /// the secret.
    pub fn redact(&self, text: &str) -> Option<String> {
        let values = self.values();
        let mut out: Option<String> = None;
        for v in values.iter() {
            let current = out.as_deref().unwrap_or(text);
            if current.contains(v.as_str()) {
                out = Some(current.replace(v.as_str(), HIDDEN_VALUE));
            }
        }
        out
    }
}

/// The values a settings file holds: what follows `KEY=` or `key:` on each line (quotes
/// taken off), or the whole line. Only values that look like one are kept — eight characters
/// or more, and not a plain word (`production`, `localhost` would be hidden everywhere).
fn secret_values(text: &str, into: &mut Vec<String>) {
    for line in text.lines() {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') || l.starts_with("//") || l.starts_with(';') {
            continue;
        }
        let l = l.strip_prefix("export ").unwrap_or(l);
        let value = match l.split_once(['=', ':']) {
            Some((key, value))
                if !key.trim().is_empty()
                    && key
                        .trim()
                        .chars()
                        .all(|c| c.is_alphanumeric() || "_-.\"'".contains(c)) =>
            {
                value
            }
            _ => l,
        };
        let v = value.trim().trim_matches(['"', '\'', ',']).trim();
        let plain_word = v
            .chars()
            .all(|c| c.is_ascii_lowercase() || c == '_' || c == '-' || c == ' ');
        if v.chars().count() >= 8 && !plain_word && !into.iter().any(|k| k == v) {
            into.push(v.to_string());
        }
    }
}

/// Every version of the secret files `names` that any commit of any ref holds, read for the
/// values in them (bounded: commits, versions and their size).
fn values_in_history(repo: &git2::Repository, names: &[String]) -> Vec<String> {
    let mut values = Vec::new();
    let Ok(mut walk) = repo.revwalk() else {
        return values;
    };
    if walk.push_glob("*").is_err() {
        return values;
    }
    let _ = walk.push_head();
    let mut seen = std::collections::HashSet::new();
    for oid in walk.flatten().take(COMMITS_READ) {
        let Ok(tree) = repo.find_commit(oid).and_then(|c| c.tree()) else {
            continue;
        };
        for name in names {
            let Ok(entry) = tree.get_path(Path::new(name)) else {
                continue;
            };
            if seen.len() >= VERSIONS_READ || !seen.insert(entry.id()) {
                continue;
            }
            if let Ok(blob) = repo.find_blob(entry.id())
                && blob.size() <= VERSION_BYTES
            {
                secret_values(&String::from_utf8_lossy(blob.content()), &mut values);
            }
        }
    }
    // Longest first: a value inside a longer one is not replaced in it first.
    values.sort_by_key(|v| std::cmp::Reverse(v.len()));
    values
}

/// Every path any commit of any ref added, checked for secret ones; and the values those
/// held. git is run with the repository's programs switched off (it only lists names here,
/// which runs none, but a copied repository's configuration is not trusted).
fn look(root: &Path, is_secret: &crate::SecretTest) -> (bool, Vec<String>) {
    let Ok(repo) = git2::Repository::discover(root) else {
        return (false, Vec::new());
    };
    let Some(workdir) = repo.workdir().map(PathBuf::from) else {
        return (true, Vec::new());
    };
    if repo.head().is_err()
        && repo
            .references()
            .map(|mut r| r.next().is_none())
            .unwrap_or(true)
    {
        // No commit yet: no history.
        return (false, Vec::new());
    }
    let child = Command::new("git")
        .args([
            "log",
            "--all",
            "--no-renames",
            "--diff-filter=A",
            "--name-only",
            "--format=",
            "-z",
        ])
        .current_dir(&workdir)
        .env_clear()
        .envs(std::env::vars_os().filter(|(k, _)| k == "PATH" || k == "HOME" || k == "LANG"))
        .envs(crate::git_places::neutral_git_env())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        return (true, Vec::new());
    };
    let Some(out) = child.stdout.take() else {
        return (true, Vec::new());
    };
    // The secret files by name (a few hundred at most are read for their values).
    let mut names: Vec<String> = Vec::new();
    for name in BufReader::new(out).split(0) {
        let Ok(name) = name else { break };
        let name = String::from_utf8_lossy(&name);
        let name = name.trim_matches('\n');
        if !name.is_empty() && is_secret(&workdir.join(name)) && !names.iter().any(|n| n == name) {
            names.push(name.to_string());
            if names.len() >= 200 {
                let _ = child.kill();
                break;
            }
        }
    }
    let ok = child.wait().is_ok_and(|s| s.success());
    let values = values_in_history(&repo, &names);
    // A listing cut short by an error proves nothing.
    (!names.is_empty() || !ok, values)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        let ok = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_AUTHOR_NAME", "T")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "T")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .output()
            .expect("git")
            .status
            .success();
        assert!(ok, "git {args:?}");
    }

    fn secret(p: &Path) -> bool {
        p.file_name().is_some_and(|n| n == ".env")
    }

    #[test]
    fn a_secret_committed_once_is_found_and_a_clean_history_is_not() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path();
        assert!(!HistorySecrets::new(p, secret).holds_secrets(), "not git");
        git(p, &["init", "-q"]);
        assert!(!HistorySecrets::new(p, secret).holds_secrets(), "no commit");
        std::fs::write(p.join("a.txt"), "a").expect("write");
        git(p, &["add", "-A"]);
        git(p, &["commit", "-qm", "a"]);
        assert!(!HistorySecrets::new(p, secret).holds_secrets(), "clean");
        std::fs::create_dir_all(p.join("conf")).expect("mkdir");
        std::fs::write(p.join("conf/.env"), "KEY=1").expect("write");
        git(p, &["add", "-A"]);
        git(p, &["commit", "-qm", "oops"]);
        git(p, &["rm", "-q", "conf/.env"]);
        git(p, &["commit", "-qm", "removed"]);
        assert!(HistorySecrets::new(p, secret).holds_secrets(), "in history");
    }

    #[test]
    fn values_of_a_secret_file_once_committed_are_hidden_in_any_output() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path();
        git(p, &["init", "-q"]);
        std::fs::write(
            p.join(".env"),
            "# staging\nNODE_ENV=production\nexport DB_PASSWORD=\"hunter2-Sx9!\"\nAPI_KEY=ghp_abcdefghijklmnop1234\nPORT=3000\n",
        )
        .expect("write");
        git(p, &["add", "-A"]);
        git(p, &["commit", "-qm", "oops"]);
        std::fs::write(p.join(".env"), "API_KEY=sk-second-version-99\n").expect("write");
        git(p, &["commit", "-qam", "rotated"]);
        git(p, &["rm", "-q", ".env"]);
        git(p, &["commit", "-qm", "removed"]);
        let h = HistorySecrets::new(p, secret);
        let printed = "+DB_PASSWORD=\"hunter2-Sx9!\"\n+API_KEY=ghp_abcdefghijklmnop1234\n-API_KEY=sk-second-version-99\n+NODE_ENV=production\n+PORT=3000\n";
        let shown = h.redact(printed).expect("redacted");
        for secret in [
            "hunter2-Sx9!",
            "ghp_abcdefghijklmnop1234",
            "sk-second-version-99",
        ] {
            assert!(!shown.contains(secret), "{shown}");
        }
        assert!(
            shown.contains(&format!("+API_KEY={HIDDEN_VALUE}")),
            "{shown}"
        );
        // Plain words and short values stay: hiding them would hide them everywhere.
        assert!(
            shown.contains("NODE_ENV=production") && shown.contains("PORT=3000"),
            "{shown}"
        );
        assert_eq!(h.redact("nothing secret here"), None);
    }
}
