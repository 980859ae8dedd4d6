//! Whether a project's git history ever held a secret file (a `.env` committed once, then
//! removed): then `git log -p`, `git show REV` and the like can print it, and the policy asks
//! before them. Found once per session, in the background, by listing every file any commit
//! added; until the answer is known (or when it cannot be had), the history counts as holding
//! one.

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
}

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
                let found = look(&root, &is_secret);
                let (lock, ready) = &*slot;
                lock.lock().unwrap_or_else(PoisonError::into_inner).known = Some(found);
                ready.notify_all();
            });
        if spawned.is_err() {
            state.known = Some(true);
        }
    }

    /// Whether the history holds a secret file, or may (not known within a few seconds).
    pub fn holds_secrets(&self) -> bool {
        self.begin();
        let (lock, ready) = &*self.answer;
        let state = lock.lock().unwrap_or_else(PoisonError::into_inner);
        let (state, _) = ready
            .wait_timeout_while(state, WAIT, |a| a.known.is_none())
            .unwrap_or_else(PoisonError::into_inner);
        state.known.unwrap_or(true)
    }
}

/// Every path any commit of any ref added, checked until a secret one turns up. git is run
/// with the repository's programs switched off (it only lists names here, which runs none,
/// but a copied repository's configuration is not trusted).
fn look(root: &Path, is_secret: &crate::SecretTest) -> bool {
    let Ok(repo) = git2::Repository::discover(root) else {
        return false;
    };
    let Some(workdir) = repo.workdir().map(PathBuf::from) else {
        return true;
    };
    if repo.head().is_err()
        && repo
            .references()
            .map(|mut r| r.next().is_none())
            .unwrap_or(true)
    {
        // No commit yet: no history.
        return false;
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
        return true;
    };
    let Some(out) = child.stdout.take() else {
        return true;
    };
    let mut found = false;
    for name in BufReader::new(out).split(0) {
        let Ok(name) = name else { break };
        let name = String::from_utf8_lossy(&name);
        let name = name.trim_matches('\n');
        if !name.is_empty() && is_secret(&workdir.join(name)) {
            found = true;
            break;
        }
    }
    if found {
        let _ = child.kill();
    }
    let ok = child.wait().is_ok_and(|s| s.success());
    // A listing cut short by an error proves nothing.
    found || !ok
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
}
