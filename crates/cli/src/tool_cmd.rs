//! `tandem-cli tool NAME '{json}' --project DIR`: one tool, run through the engine's call
//! pipeline as the agent would run it — judged by the policy engine first. The person at the
//! terminal is the approver: an Ask needs `--approve`, a Deny never runs.

use crate::policy_cmd::{ProjectArg, load, parse_mode};
use crate::terminal::{print_err, print_out};
use agent::{Desk, DeskCall, DeskOutcome};
use anyhow::{Context as _, Result, anyhow};
use clap::Args;
use policy::Mode;
use std::process::ExitCode;

#[derive(Args)]
pub struct ToolArgs {
    /// List every tool, one line each, and exit; tools that cannot work here (turned off in
    /// the rules, no search service, no `gh`) say why.
    #[arg(long, conflicts_with_all = ["name", "json", "mode", "approve", "outside"])]
    list: bool,
    /// The tool's name (`--list` shows them all).
    #[arg(required_unless_present = "list")]
    name: Option<String>,
    /// Its arguments as a JSON object.
    #[arg(default_value = "{}")]
    args: String,
    /// The project folder (with --list: whose rules say which tools are off).
    #[arg(long)]
    project: Option<std::path::PathBuf>,
    /// The user's rule file (default: $XDG_CONFIG_HOME/tandem/policy.toml).
    #[arg(long)]
    user_rules: Option<std::path::PathBuf>,
    /// Print the structured result as JSON instead of the model's text.
    #[arg(long)]
    json: bool,
    /// The mode to judge the call in (default: the rules' mode).
    #[arg(long, value_parser = parse_mode)]
    mode: Option<Mode>,
    /// Approve a call the policy would ask about (you are the one approving it).
    #[arg(long)]
    approve: bool,
    /// Run a command outside the sandbox, with your own permissions (needs --approve).
    #[arg(long)]
    outside: bool,
}

/// Runs the tool. A tool error or a refusal is exit code 1 with the message on stderr.
pub fn run(a: ToolArgs) -> Result<ExitCode> {
    if a.list {
        let policy = match &a.project {
            Some(p) => load(&ProjectArg::new(p.clone(), a.user_rules.clone()))?.policy,
            // Here: the current folder, as a project of its own.
            None => {
                let here = std::env::current_dir().context("finding the current folder")?;
                config::load_project_policy(&here, Some(&config::locations::user_policy_file()))?
            }
        };
        print!("{}", agent::tool_list(&policy));
        return Ok(ExitCode::SUCCESS);
    }
    let project = a
        .project
        .clone()
        .map(|p| ProjectArg::new(p, a.user_rules.clone()))
        .ok_or_else(|| anyhow!("--project is required: the folder the tool works in"))?;
    let input = match serde_json::from_str(&a.args) {
        Ok(v) => v,
        Err(e) => {
            eprintln!(
                "tandem-cli: the arguments are not valid JSON ({e}); give an object like '{{\"path\": \"src/main.rs\"}}'"
            );
            return Ok(ExitCode::from(1));
        }
    };
    let rules = load(&project)?;
    let root = tools::ProjectRoot::open(&rules.root).map_err(|e| anyhow!("{e}"))?;
    // Outputs and the sandbox's files live as long as this one call.
    let scratch = tempfile::Builder::new()
        .prefix("tandem-cli-")
        .tempdir()
        .context("making a scratch folder")?;
    let desk = Desk::new(root, scratch.path(), rules.policy, a.mode, rules.user_file);
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let asked = DeskCall {
        name: a.name.as_deref().unwrap_or_default(),
        input,
        approve: a.approve,
        outside: a.outside,
    };
    match runtime.block_on(desk.call(asked)) {
        DeskOutcome::Unknown(message) => Err(anyhow!(message)),
        DeskOutcome::NotRun(why) => {
            print_err(&format!("tandem-cli: {why}\n"));
            Ok(ExitCode::from(1))
        }
        DeskOutcome::Ran {
            output,
            sandbox_denied,
        } => {
            if a.json {
                println!("{}", serde_json::to_string_pretty(&output.structured)?);
            } else {
                print_out(&output.text);
                if !output.text.ends_with('\n') {
                    println!();
                }
            }
            // Only a hint: the evidence is a line of the command's own output, which whoever
            // wrote the repository controls, so it must not talk anyone out of the sandbox.
            if sandbox_denied {
                eprintln!(
                    "tandem-cli: the command failed, and the sandbox may have refused it something; README's \"The sandbox\" says what commands may do"
                );
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
