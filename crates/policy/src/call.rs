//! What is being judged: one tool call, described by what it would do, and the situation
//! around it.

use crate::mode::Mode;
use std::path::{Path, PathBuf};

/// A tool call as the engine sees it. Paths are as the model gave them (relative to the
/// project root, absolute, or `~/…`); the engine resolves them through [`Context::resolve`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolCall<'a> {
    /// read_file, list_files, search_codebase: a read of this path.
    Read { path: &'a str },
    /// write_file, edit_file: a write of this path changing `diff_lines` lines.
    Write { path: &'a str, diff_lines: u32 },
    /// run_command, in the project root.
    Command { command: &'a str },
    /// web_fetch: `method` as the model gave it (GET when absent); `resolved` holds the
    /// addresses the caller looked the host up to and will connect to (empty when not looked
    /// up), so a name that points at this machine or the private network is judged as such.
    Fetch {
        url: &'a str,
        method: &'a str,
        resolved: &'a [std::net::IpAddr],
    },
    /// web_search.
    WebSearch,
    /// git_commit of `diff_lines` changed lines.
    GitCommit { diff_lines: u32 },
    /// git_branch: `changes` is false for `list`.
    GitBranch { changes: bool },
    /// create_pull_request.
    PullRequest,
    /// A tool of an MCP server, named `server__tool` as the model sees it. What it does is the
    /// server's to say (its annotations are hints from a program the engine cannot inspect),
    /// so it asks unless the user allowed this very tool.
    ServerTool { name: &'a str },
    /// Tools with no effect outside the agent (update_plan, task_done, task_*, wakeup,
    /// sub-agents, git_status/diff/log).
    Internal { name: &'a str },
}

/// The situation of a call: the project, the mode in force, the session's diff so far, and how
/// to resolve symlinks (the engine itself does no I/O; a caller that can touch the disk passes
/// a resolver that follows links, tests may pass the lexical one).
pub struct Context<'a> {
    pub project_root: &'a Path,
    pub home: Option<&'a Path>,
    /// Overrides the policy's mode (the UI's mode selector).
    pub mode: Option<Mode>,
    /// Lines the agent changed since the user last committed (since the session's start
    /// outside git): the agent's own commits do not count as the user's.
    pub session_diff_lines: u32,
    /// The user's own policy file, protected like the project's.
    pub user_policy_file: Option<&'a Path>,
    /// Whether commands run inside the OS sandbox on this machine. Without it, nothing but
    /// this engine stands between a command and the system, and full_auto asks before commands.
    pub sandboxed: bool,
    pub resolver: &'a dyn Fn(&Path) -> PathBuf,
    /// Whether a path exists on disk (a file, a folder or a link), for what only the disk can
    /// tell: a module of the project's own that Python would run instead of its own (`json/`
    /// beside `python3 -m json.tool`), a word git takes for a file rather than a revision.
    /// `None` when the caller cannot look: each check then takes the careful answer.
    pub exists: Option<&'a dyn Fn(&Path) -> bool>,
    /// True when the repository's history has a commit touching a protected path (a `.env`
    /// committed once, a key), or when that is not known: the host fails closed. Git commands
    /// that print file contents out of history (`git log -p`, `git show REV`, `git diff REV`)
    /// ask then. Asked only for such a command (finding out reads the history).
    pub history_holds_secrets: &'a dyn Fn() -> bool,
    /// The folders where the session saves its own output (cut results, command output,
    /// fetched pages, sub-agents' transcripts): reading there is reading the agent's own
    /// words back, and needs no question though it is outside the project.
    pub saved_outputs: &'a [PathBuf],
}

/// The careful answer when nobody looked: the history may hold a secret.
pub fn history_may_hold_secrets() -> bool {
    true
}

/// Removes `.` and `..` without touching the disk.
pub fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

pub fn lexical(path: &Path) -> PathBuf {
    normalize(path)
}

/// A path walked the way the kernel walks it.
pub(crate) struct Walked {
    /// Where the kernel ends up.
    pub real: PathBuf,
    /// The path with `.` and `..` removed by name, the way it reads.
    pub lexical: PathBuf,
    /// The link a `..` climbs out of, when that leads somewhere other than the path reads
    /// (`escape/..` is the folder above where `escape` leads, not the folder holding it).
    pub climbed_link: Option<PathBuf>,
}

/// Walks an absolute path as the kernel does: each folder is resolved before the `..` after
/// it is applied.
pub(crate) fn walk(resolver: &dyn Fn(&Path) -> PathBuf, path: &Path) -> Walked {
    use std::path::Component;
    let lexical = normalize(path);
    let by_name = resolver(&lexical);
    if !path.components().any(|c| c == Component::ParentDir) {
        return Walked {
            real: by_name,
            lexical,
            climbed_link: None,
        };
    }
    let mut walked = PathBuf::new();
    let mut written = PathBuf::new();
    let mut link = None;
    for c in path.components() {
        match c {
            Component::ParentDir => {
                walked = resolver(&walked);
                // The first `..` whose folder the kernel finds elsewhere than its name says is
                // the one that climbs out of a link.
                if link.is_none() && walked.parent() != written.parent().map(resolver).as_deref() {
                    link = Some(written.clone());
                }
                walked.pop();
                written.pop();
            }
            Component::CurDir => {}
            other => {
                walked.push(other.as_os_str());
                written.push(other.as_os_str());
            }
        }
    }
    let real = resolver(&walked);
    let climbed_link = (real != by_name).then(|| link.unwrap_or_else(|| lexical.clone()));
    Walked {
        real,
        lexical,
        climbed_link,
    }
}

impl<'a> Context<'a> {
    pub fn new(project_root: &'a Path) -> Self {
        Context {
            project_root,
            home: None,
            mode: None,
            session_diff_lines: 0,
            user_policy_file: None,
            sandboxed: false,
            resolver: &lexical,
            exists: None,
            history_holds_secrets: &history_may_hold_secrets,
            saved_outputs: &[],
        }
    }

    /// Whether a resolved path is one of the session's saved outputs (or their folder).
    pub fn is_saved_output(&self, abs: &Path) -> bool {
        self.saved_outputs
            .iter()
            .any(|dir| abs.starts_with(dir) || abs.starts_with((self.resolver)(dir)))
    }

    /// An absolute, normalized, symlink-resolved path for a path as the model wrote it.
    /// `None` when it cannot be known without running the shell (e.g. `~user/x`).
    pub fn resolve(&self, path: &str) -> Option<PathBuf> {
        Some((self.resolver)(&normalize(&self.absolute(path)?)))
    }

    /// A path as the model wrote it, walked the way the kernel walks it.
    pub(crate) fn walk(&self, path: &str) -> Option<Walked> {
        Some(walk(self.resolver, &self.absolute(path)?))
    }

    /// The path from the root of the file system, `..` still in it.
    fn absolute(&self, path: &str) -> Option<PathBuf> {
        Some(if path == "~" || path.starts_with("~/") {
            self.home?
                .join(path.trim_start_matches('~').trim_start_matches('/'))
        } else if path.starts_with('~') {
            return None;
        } else if Path::new(path).is_absolute() {
            PathBuf::from(path)
        } else {
            self.project_root.join(path)
        })
    }

    /// The path relative to the project root, with `/`, when it is inside.
    pub fn relative(&self, abs: &Path) -> Option<String> {
        abs.strip_prefix(self.project_root).ok().map(|r| {
            r.components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/")
        })
    }
}
