//! The policy engine: every tool call is judged before it runs.
//!
//! Owns the rules (built-in defaults, the user's and the project's TOML files, session grants),
//! the modes and hard floors, the shell parsing that finds every command hidden in a command
//! line, and [`evaluate`], which returns Allow, Ask (with suggested rules) or Deny with the rule
//! that decided, in words a non-programmer understands. Pure: no file, network or process I/O,
//! no tokio, no Tauri. Callers read rule files and resolve symlinks, and hand the results in.
//!
//! Precedence, decided once: every rule that applies to a call gives a finding, and the
//! strongest wins — **deny beats ask beats allow**, whoever wrote the rule. Among allows the
//! most specific is the one reported. So an allow (a user's rule, a session grant) can only
//! settle what nothing else asks about or refuses: it never lifts a deny, a built-in ask
//! (`git push --force`, package installs) or a hard floor. The hard floors live in code, not in
//! the rule files: `sudo` and friends, recursive deletes outside the project, writes outside the
//! project or into `.git/`, secrets (`.env*`, keys, `~/.ssh`, cloud credentials) and the policy
//! files themselves. Files merge in order built-in → user → project → session; a project file
//! may only tighten (a stricter mode, lower thresholds, more deny/ask rules) unless the user
//! lists the project in `trusted_projects`; what it tried to loosen is reported as a note.
//!
//! The OS sandbox: [`Context::sandboxed`] says whether commands run in it, and each command's
//! [`Decision::sandbox`] says what it needs from it — the network (a networked program or
//! sub-command the user or a built-in rule allowed), or to run outside it (it writes outside the
//! project or into what the sandbox keeps read-only), which is never allowed without asking.
//! Without a sandbox, full_auto still runs what only reads and what a rule allows, and asks
//! before the rest. read_only runs only commands known to only read (an allow-list). In the
//! sandbox, a path in its private temporary folder (`$TMPDIR/…`, a variable set to
//! `$(mktemp)`) is judged like an edit inside the project, though only known when it runs.

mod archives;
mod call;
mod command;
mod decision;
mod editors;
mod engine;
mod env_vars;
mod expand;
mod files;
mod git;
mod git_history;
mod glob;
mod hosts;
mod interpreters;
mod machine;
mod mode;
mod network;
mod overview;
mod paths;
mod pattern;
mod private_tmp;
mod programs;
mod readonly;
mod rule_edit;
mod rules;
mod runners;
mod searches;
mod segments;
pub mod shell;
mod source;
mod suggest;
mod url_secrets;
mod wrappers;
mod writers;

pub use call::{Context, ToolCall, history_may_hold_secrets, lexical, normalize};
pub use command::MAX_COMMAND_BYTES;
pub use decision::{Decision, Grant, RuleRef, SandboxNeeds, Scope, Suggestion, Verdict};
pub use engine::evaluate;
pub use hosts::{is_private_host, is_private_ip};
pub use mode::Mode;
pub use overview::{hard_limits, own_rules, remove_rule};
pub use paths::{HOME_SECRETS, SecretGlobs, is_protected, is_secret, project_secret_globs};
pub use rule_edit::{add_rule, set_default, set_trusted};
pub use rules::{
    BUILTIN_TOML, NetworkMode, PathRules, Policy, PolicyError, RuleText, ToolRules, Trust,
    WebRules, add_project_grant, project_policy_path, user_policy_path,
};
pub use source::Source;
