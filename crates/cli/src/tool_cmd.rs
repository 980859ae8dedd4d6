//! `tandem-cli tool NAME '{json}' --project DIR`: one tool, run as the agent would run it —
//! judged by the policy engine first. The person at the terminal is the approver: an Ask needs
//! `--approve`, a Deny never runs.

use crate::policy_cmd::{ProjectArg, load, parse_mode};
use crate::terminal::{print_err, print_out};
use anyhow::{Context as _, Result, anyhow};
use clap::Args;
use policy::{Mode, Verdict};
use protocol::{Confinement, OutsideReason};
use serde_json::Value;
use std::process::ExitCode;
use tools::{ProjectRoot, Toolbox};

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
                agent::load_project_policy(&here, Some(&agent::locations::user_policy_file()))?
            }
        };
        print!("{}", tool_list(&situation_words(&policy)));
        return Ok(ExitCode::SUCCESS);
    }
    let name = a.name.clone().unwrap_or_default();
    let project = a
        .project
        .clone()
        .map(|p| ProjectArg::new(p, a.user_rules.clone()))
        .ok_or_else(|| anyhow!("--project is required: the folder the tool works in"))?;
    let spec = tools::find_tool(&name).ok_or_else(|| {
        anyhow!(
            "there is no tool named `{}`; the tools are: {}",
            name,
            tools::TOOLS
                .iter()
                .map(|t| t.name)
                .collect::<Vec<_>>()
                .join(", ")
        )
    })?;
    let args: Value = match serde_json::from_str(&a.args) {
        Ok(v) => v,
        Err(e) => {
            eprintln!(
                "tandem-cli: the arguments are not valid JSON ({e}); give an object like '{{\"path\": \"src/main.rs\"}}'"
            );
            return Ok(ExitCode::from(1));
        }
    };
    let loaded = load(&project)?;
    if let Some(why) = situation_words(&loaded.policy)(&name) {
        eprintln!("tandem-cli: {name} is not available here: {why}");
        return Ok(ExitCode::from(1));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    // A fetch is judged on the addresses its host looks up to, and goes to those.
    let resolved = if spec.policy == tools::PolicyView::Fetch {
        match runtime.block_on(agent::resolve_fetch(&args)) {
            Ok(a) => a,
            Err(why) => {
                eprintln!("tandem-cli: fetching failed: {why}");
                return Ok(ExitCode::from(1));
            }
        }
    } else {
        Vec::new()
    };
    let root = ProjectRoot::open(&loaded.root).map_err(|e| anyhow!("{e}"))?;
    // Outputs and the sandbox's files live as long as this one call.
    let scratch = tempfile::Builder::new()
        .prefix("tandem-cli-")
        .tempdir()
        .context("making a scratch folder")?;
    let mut toolbox = Toolbox::new(root, scratch.path().to_path_buf());
    // One call: nothing to reuse, and watching the tree for changes would cost a walk of it.
    toolbox.cache = tools::Cache::off();
    toolbox.web.search = agent::web_search_from_settings(&agent::locations::settings_file());
    let scratch_id = format!("cli-{}", std::process::id());
    agent::sandboxing::confine(&mut toolbox, &scratch_id, scratch.path());
    let ws = &toolbox.ws;
    // The command line is a session of its own: the file named is taken as read by the person
    // who runs it, so the freshness guard does not refuse every edit.
    if !spec.read_only
        && let Some(p) = args.get("path").and_then(Value::as_str)
        && let Ok(r) = ws.root().resolve(p)
    {
        ws.note_seen(&r.real);
    }
    // A write is judged on its size, as in a session, so the change thresholds hold here too.
    let diff_lines = match tools::plan_change(ws, spec.name, &args) {
        Some(Ok(p)) => p.changed_lines(),
        Some(Err(e)) => {
            print_err(&format!("tandem-cli: {e}\n"));
            return Ok(ExitCode::from(1));
        }
        None => 0,
    };
    // The same judgement as in a session: a commit that would record a secret asks here too.
    let decision = loaded.judge(a.mode, 0, |policy, ctx| {
        agent::judge_tool_call(
            policy,
            ctx,
            ws.root(),
            spec.name,
            &args,
            diff_lines,
            &resolved,
        )
    });
    if a.outside && !a.approve {
        eprintln!(
            "tandem-cli: running a command outside the sandbox needs your approval too: add --approve"
        );
        return Ok(ExitCode::from(1));
    }
    match decision.decision {
        Verdict::Deny => {
            print_err(&format!(
                "tandem-cli: refused by the policy: {} [{}]\n",
                decision.reason, decision.rule.name
            ));
            return Ok(ExitCode::from(1));
        }
        Verdict::Ask if !a.approve => {
            print_err(&format!(
                "tandem-cli: {}; pass --approve to approve it [{}]\n",
                decision.reason, decision.rule.name
            ));
            return Ok(ExitCode::from(1));
        }
        _ => {}
    }

    let mode = a.mode.unwrap_or(loaded.policy.mode.value);
    let confinement = if a.outside {
        Confinement::Outside {
            reason: OutsideReason::Approved,
        }
    } else {
        agent::sandboxing::confinement(&decision, mode, toolbox.commands.sandbox.is_some())
    };
    let call = tools::CallContext {
        confinement: Some(confinement),
        fetch: tools::FetchContext {
            addrs: resolved.clone(),
            gate: Some(
                agent::FetchJudge {
                    policy: loaded.policy.clone(),
                    mode,
                    root: loaded.root.clone(),
                    home: std::env::var_os("HOME").map(std::path::PathBuf::from),
                    user_policy_file: loaded.user_file.clone(),
                    sandboxed: loaded.sandboxed,
                    // It runs: the policy allowed it, or you did (--approve).
                    cleared: args
                        .get("url")
                        .and_then(Value::as_str)
                        .and_then(agent::fetch_origin)
                        .map(|o| (o, resolved)),
                }
                .gate(),
            ),
        },
        ..Default::default()
    };
    let result = runtime.block_on(toolbox.run_in(spec.name, args, &call));
    let _ = std::fs::remove_dir_all(&toolbox.commands.tmp_dir);
    match result {
        Ok(out) => {
            if a.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&out.structured).context("printing the result")?
                );
            } else {
                print_out(&out.text);
                if !out.text.ends_with('\n') {
                    println!();
                }
            }
            // Only a hint: the evidence is a line of the command's own output, which whoever
            // wrote the repository controls, so it must not talk anyone out of the sandbox.
            if confinement.is_sandboxed()
                && let Ok(tools::CommandOutcome::Finished {
                    sandbox_denial: Some(_),
                    ..
                }) = serde_json::from_value::<tools::CommandOutcome>(out.structured)
            {
                eprintln!(
                    "tandem-cli: the command failed, and the sandbox may have refused it something; README's \"The sandbox\" says what commands may do"
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            print_err(&format!("tandem-cli: {e}\n"));
            Ok(ExitCode::from(1))
        }
    }
}

/// Why each tool that cannot work here is not offered, as the session would judge it.
fn situation_words(policy: &policy::Policy) -> impl Fn(&str) -> Option<String> + '_ {
    let search = agent::web_search_from_settings(&agent::locations::settings_file()).is_some();
    move |tool: &str| {
        let path = std::env::var_os("PATH");
        agent::Situation {
            policy,
            search_service: search,
            path_env: path.as_deref(),
        }
        .unavailable(tool)
        .map(|why| why.words())
    }
}

/// One line per tool: its name and what it does; the ones only a session can run say so, and
/// the ones that cannot work here say why.
fn tool_list(unavailable: &dyn Fn(&str) -> Option<String>) -> String {
    let width = tools::TOOLS.iter().map(|t| t.name.len()).max().unwrap_or(0);
    tools::TOOLS
        .iter()
        .map(|t| {
            let only = if t.engine_tool().is_some() {
                " (in `tandem-cli run` only)"
            } else {
                ""
            };
            let off = unavailable(t.name)
                .map(|why| format!(" [not available here: {why}]"))
                .unwrap_or_default();
            format!("{:width$}  {}{only}{off}\n", t.name, t.summary())
        })
        .collect()
}
