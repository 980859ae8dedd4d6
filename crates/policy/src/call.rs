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
    /// Lines the session changed since the last commit (since its start outside git).
    pub session_diff_lines: u32,
    /// The user's own policy file, protected like the project's.
    pub user_policy_file: Option<&'a Path>,
    /// Whether commands run inside the OS sandbox on this machine. Without it, nothing but
    /// this engine stands between a command and the system, and full_auto asks before commands.
    pub sandboxed: bool,
    pub resolver: &'a dyn Fn(&Path) -> PathBuf,
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
        }
    }

    /// An absolute, normalized, symlink-resolved path for a path as the model wrote it.
    /// `None` when it cannot be known without running the shell (e.g. `~user/x`).
    pub fn resolve(&self, path: &str) -> Option<PathBuf> {
        let p = if path == "~" || path.starts_with("~/") {
            let home = self.home?;
            home.join(path.trim_start_matches('~').trim_start_matches('/'))
        } else if path.starts_with('~') {
            return None;
        } else if Path::new(path).is_absolute() {
            PathBuf::from(path)
        } else {
            self.project_root.join(path)
        };
        Some((self.resolver)(&normalize(&p)))
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
