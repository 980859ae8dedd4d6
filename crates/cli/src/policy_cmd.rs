//! `tandem-cli policy check` and `tandem-cli policy show`.

use anyhow::{Context as _, Result, bail};
use clap::{Args, Subcommand};
use policy::{Context, Mode, Policy, ToolCall, evaluate};
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Subcommand)]
pub enum PolicyCommand {
    /// Print the decision for one call as a JSON object.
    Check(CheckArgs),
    /// Print the merged rules, each with where it came from.
    Show(ProjectArg),
}

#[derive(Args)]
pub struct ProjectArg {
    /// The project folder.
    #[arg(long)]
    project: PathBuf,
    /// The user's rule file (default: $XDG_CONFIG_HOME/tandem/policy.toml).
    #[arg(long)]
    user_rules: Option<PathBuf>,
}

#[derive(Args)]
#[command(group(clap::ArgGroup::new("call").required(true).args(["command", "write", "read", "fetch"])))]
pub struct CheckArgs {
    #[command(flatten)]
    project: ProjectArg,
    /// The mode to judge in (default: the rules' mode).
    #[arg(long, value_parser = parse_mode)]
    mode: Option<Mode>,
    /// A shell command for run_command.
    #[arg(long)]
    command: Option<String>,
    /// A path written by write_file / edit_file.
    #[arg(long)]
    write: Option<String>,
    /// A path read by read_file / list_files / search_codebase.
    #[arg(long)]
    read: Option<String>,
    /// A URL fetched by web_fetch.
    #[arg(long)]
    fetch: Option<String>,
    /// Lines the write changes.
    #[arg(long, default_value_t = 1)]
    diff_lines: u32,
    /// Lines the session has changed before this call.
    #[arg(long, default_value_t = 0)]
    session_diff: u32,
}

pub fn parse_mode(s: &str) -> Result<Mode, String> {
    s.parse()
}

#[derive(Serialize)]
struct CheckOutput<'a> {
    decision: policy::Verdict,
    reason: &'a str,
    rule: &'a str,
    source: String,
    suggestions: &'a [policy::Suggestion],
    /// For commands: whether it needs the network, or to leave the sandbox.
    sandbox: policy::SandboxNeeds,
    /// Whether commands are sandboxed on this machine (the judgement depends on it).
    sandboxed: bool,
}

impl ProjectArg {
    pub fn new(project: PathBuf, user_rules: Option<PathBuf>) -> Self {
        ProjectArg {
            project,
            user_rules,
        }
    }
}

fn user_rules_path(explicit: Option<&Path>) -> Option<PathBuf> {
    Some(
        explicit
            .map(Path::to_path_buf)
            .unwrap_or_else(config::locations::user_policy_file),
    )
}

pub struct Loaded {
    pub root: PathBuf,
    pub user_file: Option<PathBuf>,
    pub policy: Policy,
    /// Whether this machine sandboxes commands (`TANDEM_SANDBOX=off` says no).
    pub sandboxed: bool,
}

impl Loaded {
    /// Evaluates a call for this project, resolving symlinks on disk.
    pub fn evaluate(
        &self,
        call: &ToolCall<'_>,
        mode: Option<Mode>,
        session_diff_lines: u32,
    ) -> policy::Decision {
        self.judge(mode, session_diff_lines, |policy, ctx| {
            agent::sandboxing::checked_for_this_machine(evaluate(policy, call, ctx), ctx)
        })
    }

    /// Runs `judge` with these rules and this project's situation, symlinks resolved on disk.
    pub fn judge<R>(
        &self,
        mode: Option<Mode>,
        session_diff_lines: u32,
        judge: impl FnOnce(&Policy, &Context<'_>) -> R,
    ) -> R {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let resolver = |p: &Path| tools::real_path(p);
        let exists = |p: &Path| p.symlink_metadata().is_ok();
        // Read only when a command that prints git's history is judged.
        let history = || tools::HistorySecrets::new(&self.root, policy::is_secret).holds_secrets();
        let ctx = Context {
            project_root: &self.root,
            home: home.as_deref(),
            mode,
            session_diff_lines,
            user_policy_file: self.user_file.as_deref(),
            sandboxed: self.sandboxed,
            resolver: &resolver,
            exists: Some(&exists),
            history_holds_secrets: &history,
            saved_outputs: &[],
        };
        judge(&self.policy, &ctx)
    }
}

pub fn load(args: &ProjectArg) -> Result<Loaded> {
    let root = std::fs::canonicalize(&args.project).with_context(|| {
        format!(
            "the project folder {} cannot be opened",
            args.project.display()
        )
    })?;
    if !root.is_dir() {
        bail!("{} is not a folder", root.display());
    }
    let user_file = user_rules_path(args.user_rules.as_deref());
    if args.user_rules.is_some() && user_file.as_deref().is_some_and(|p| !p.exists()) {
        bail!(
            "the rule file {} does not exist",
            args.user_rules
                .as_deref()
                .unwrap_or(Path::new(""))
                .display()
        );
    }
    let policy = config::load_project_policy(&root, user_file.as_deref())?;
    Ok(Loaded {
        root,
        user_file,
        policy,
        sandboxed: agent::sandboxing::capabilities().sandboxed,
    })
}

pub fn run(command: PolicyCommand) -> Result<()> {
    match command {
        PolicyCommand::Show(args) => {
            let loaded = load(&args)?;
            print!("{}", loaded.policy.describe());
            Ok(())
        }
        PolicyCommand::Check(args) => {
            let loaded = load(&args.project)?;
            let call = if let Some(c) = &args.command {
                ToolCall::Command { command: c }
            } else if let Some(p) = &args.write {
                ToolCall::Write {
                    path: p,
                    diff_lines: args.diff_lines,
                }
            } else if let Some(p) = &args.read {
                ToolCall::Read { path: p }
            } else if let Some(u) = &args.fetch {
                ToolCall::Fetch {
                    url: u,
                    method: "GET",
                    resolved: &[],
                }
            } else {
                bail!("give one of --command, --write, --read or --fetch");
            };
            let d = loaded.evaluate(&call, args.mode, args.session_diff);
            let out = CheckOutput {
                decision: d.decision,
                reason: &d.reason,
                rule: &d.rule.name,
                source: d.rule.source.to_string(),
                suggestions: &d.suggestions,
                sandbox: d.sandbox,
                sandboxed: loaded.sandboxed,
            };
            println!("{}", serde_json::to_string(&out)?);
            Ok(())
        }
    }
}
