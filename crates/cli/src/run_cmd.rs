//! `tandem-cli run`, `tandem-cli sessions`, `tandem-cli show`: the agent headless.

use crate::policy_cmd::{ProjectArg, load, parse_mode};
use agent::{
    Agent, AgentConfig, Preset, SessionHeader, SessionLog, StoredKeys, list_sessions, read_session,
    replay_messages,
};
use anyhow::{Context as _, Result, anyhow, bail};
use clap::{Args, ValueEnum};
use llm::{Provider, ProviderConfig, ProviderKind};
use policy::Mode;
use protocol::{
    AgentEvent, ApprovalAnswer, ApprovalRequest, Confinement, OutsideReason, TurnOutcome,
};
use serde_json::Value;
use std::io::{BufRead as _, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tools::{ProjectRoot, Toolbox};

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ProviderArg {
    Anthropic,
    Openai,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum ApproveArg {
    /// Ask on stdin.
    Ask,
    /// Yes to every question that keeps the command in the sandbox (a Deny is never a
    /// question, so it still holds; leaving the sandbox is refused: it needs a person).
    All,
    /// No to every question.
    None,
    /// Yes to reads, no to everything else.
    Reads,
}

#[derive(Args)]
pub struct RunArgs {
    #[command(flatten)]
    project: ProjectArg,
    #[arg(long, value_enum)]
    provider: Option<ProviderArg>,
    #[arg(long)]
    base_url: Option<String>,
    #[arg(long)]
    model: Option<String>,
    #[arg(long, value_enum, default_value = "ask")]
    approve: ApproveArg,
    /// Continue this session.
    #[arg(long)]
    session: Option<String>,
    /// Print events as JSON lines instead of a transcript.
    #[arg(long)]
    json: bool,
    #[arg(long, value_parser = parse_mode)]
    mode: Option<Mode>,
    #[arg(long, default_value_t = 50)]
    max_steps: u32,
    /// The task, in words.
    task: String,
}

fn sessions_dir() -> PathBuf {
    agent::locations::sessions_dir()
}

/// `--provider` (with `--model`) first, then TANDEM_PROVIDER, then the settings file; keys from
/// the environment, the keychain or the opt-in key file.
fn provider_config(a: &RunArgs) -> Result<(ProviderConfig, String)> {
    let preset = match a.provider {
        Some(p) => {
            let kind = match p {
                ProviderArg::Anthropic => ProviderKind::Anthropic,
                ProviderArg::Openai => ProviderKind::OpenAi,
            };
            Some(Preset {
                kind,
                base_url: a
                    .base_url
                    .clone()
                    .unwrap_or_else(|| agent::default_url(kind).to_string()),
                model: a
                    .model
                    .clone()
                    .ok_or_else(|| anyhow!("--provider needs --model"))?,
            })
        }
        None => Preset::from_env()?,
    };
    let (mut config, model) = agent::choose_provider(
        preset.as_ref(),
        &agent::locations::settings_file(),
        "default",
        &StoredKeys::from_env(),
    )
    .map_err(|e| match e {
        agent::LaunchError::NoProvider(file) => anyhow!(
            "no provider: pass --provider and --model, or choose one in the app's Settings ({file})"
        ),
        e => e.into(),
    })?;
    if let Some(u) = &a.base_url {
        config.base_url = u.clone();
    }
    Ok((config, a.model.clone().unwrap_or(model)))
}

const READ_TOOLS: &[&str] = &[
    "read_file",
    "list_files",
    "search_codebase",
    "git_status",
    "git_diff",
    "git_log",
    "web_fetch",
    "web_search",
];

/// Where a command would run, in words for the prompt.
fn confinement_words(c: Confinement) -> &'static str {
    match c {
        Confinement::Sandboxed { network: false, .. } => "in the sandbox (no network)",
        Confinement::Sandboxed { network: true, .. } => {
            "in the sandbox — this command wants the network"
        }
        Confinement::Outside {
            reason: OutsideReason::Approved,
        } => "OUTSIDE the sandbox, with your own permissions",
        Confinement::Outside {
            reason: OutsideReason::Unavailable,
        } => "with your own permissions (this machine has no sandbox)",
    }
}

/// Whether a question is about a call that only reads: a read tool, and for web_fetch a GET
/// or HEAD (another method sends something, so it is a write).
fn only_reads(req: &ApprovalRequest) -> bool {
    let method_reads = req
        .input
        .get("method")
        .and_then(Value::as_str)
        .is_none_or(|m| m.eq_ignore_ascii_case("get") || m.eq_ignore_ascii_case("head"));
    READ_TOOLS.contains(&req.tool.as_str()) && (req.tool != "web_fetch" || method_reads)
}

fn ask_stdin(req: &ApprovalRequest) -> ApprovalAnswer {
    eprintln!("\n── approval needed: {} ──\n{}", req.tool, req.reason);
    if let Some(c) = &req.command {
        eprintln!("command: {c}");
    }
    if let Some(c) = req.confinement {
        eprintln!("runs:    {}", confinement_words(c));
    }
    for h in &req.hunks {
        eprint!("{}", h.text);
    }
    for (i, s) in req.suggestions.iter().enumerate() {
        eprintln!("  [{}] {}", i + 1, s.label);
    }
    loop {
        if req.suggestions.is_empty() {
            eprint!("approve? [y]es / [n]o (or type why not): ");
        } else {
            eprint!(
                "approve? [y]es / [n]o (or type why not) / 1-{} to grant that rule for the session: ",
                req.suggestions.len()
            );
        }
        let _ = std::io::stderr().flush();
        let mut line = String::new();
        if std::io::stdin().lock().read_line(&mut line).unwrap_or(0) == 0 {
            return ApprovalAnswer::Deny {
                message: Some("no answer (stdin closed)".into()),
            };
        }
        let l = line.trim().to_ascii_lowercase();
        if l == "y" || l == "yes" {
            return ApprovalAnswer::Approve;
        }
        if let Ok(n) = l.parse::<usize>() {
            // Only a number that names an offered rule means anything; any other is asked again.
            if (1..=req.suggestions.len()).contains(&n) {
                return ApprovalAnswer::ApproveForSession {
                    suggestion: u32::try_from(n - 1).unwrap_or(0),
                };
            }
            eprintln!("there is no rule {n} to grant");
            continue;
        }
        return ApprovalAnswer::Deny {
            message: (!l.is_empty() && l != "n" && l != "no").then(|| line.trim().to_string()),
        };
    }
}

fn print_event(e: &AgentEvent, json: bool) {
    if json {
        if let Ok(s) = serde_json::to_string(e) {
            println!("{s}");
        }
        return;
    }
    match e {
        AgentEvent::TextDelta { text } => {
            print!("{text}");
            let _ = std::io::stdout().flush();
        }
        AgentEvent::ToolCallProposed { name, input, .. } => println!("\n→ {name} {input}"),
        AgentEvent::ToolFinished {
            output, is_error, ..
        } => {
            let shown: String = output.lines().take(12).collect::<Vec<_>>().join("\n");
            println!("{}{shown}", if *is_error { "✗ " } else { "" });
        }
        AgentEvent::Notice { text } => eprintln!("note: {text}"),
        AgentEvent::Error { message } => eprintln!("error: {message}"),
        AgentEvent::Done { summary } => println!("\n✓ {summary}"),
        _ => {}
    }
}

pub fn run(a: RunArgs) -> Result<ExitCode> {
    let loaded = load(&a.project)?;
    let (pconfig, model) = provider_config(&a)?;
    let root = ProjectRoot::open(&loaded.root).map_err(|e| anyhow!("{e}"))?;
    let dir = sessions_dir();
    let (log, previous, id) = match &a.session {
        Some(id) => {
            let (log, read) = SessionLog::reopen::<Value>(&dir, id)
                .with_context(|| format!("cannot continue session {id}"))?;
            for w in &read.warnings {
                eprintln!("warning: {w}");
            }
            (log, replay_messages(&read.entries), id.clone())
        }
        None => {
            let id = agent::locations::new_session_id();
            let header = SessionHeader {
                id: id.clone(),
                project: loaded.root.display().to_string(),
                task: a.task.clone(),
                model: model.clone(),
                started_ms: agent::locations::now_ms(),
            };
            (SessionLog::create(&dir, &header)?, Vec::new(), id)
        }
    };
    let mut toolbox = Toolbox::new(root, dir.join(&id));
    agent::sandboxing::confine(&mut toolbox, &id, &dir.join(&id));
    let caps = agent::sandboxing::capabilities();
    if !caps.sandboxed {
        eprintln!("note: {}", caps.summary());
    }
    let mut config = AgentConfig::new(model);
    config.mode = a.mode;
    config.max_steps = a.max_steps;
    config.home = std::env::var_os("HOME").map(PathBuf::from);
    config.user_policy_file = loaded.user_file.clone();
    config.session_dir = Some(dir.join(&id));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let approve = a.approve;
    let json = a.json;
    let outcome = runtime.block_on(async move {
        let (etx, mut erx) = mpsc::unbounded_channel();
        let (atx, mut arx) = mpsc::channel::<(
            ApprovalRequest,
            tokio::sync::oneshot::Sender<ApprovalAnswer>,
        )>(1);
        let printer = tokio::spawn(async move {
            while let Some(e) = erx.recv().await {
                print_event(&e, json);
            }
        });
        tokio::spawn(async move {
            while let Some((req, reply)) = arx.recv().await {
                let leaves_sandbox = matches!(
                    req.confinement,
                    Some(Confinement::Outside {
                        reason: OutsideReason::Approved
                    })
                );
                let answer = match approve {
                    ApproveArg::All if leaves_sandbox => ApprovalAnswer::Deny {
                        message: Some(
                            "leaving the sandbox needs a person to approve it (run with --approve ask)"
                                .into(),
                        ),
                    },
                    ApproveArg::All => ApprovalAnswer::Approve,
                    ApproveArg::None => ApprovalAnswer::Deny {
                        message: Some("run with --approve none".into()),
                    },
                    ApproveArg::Reads if only_reads(&req) => ApprovalAnswer::Approve,
                    ApproveArg::Reads => ApprovalAnswer::Deny {
                        message: Some("run with --approve reads".into()),
                    },
                    ApproveArg::Ask => tokio::task::spawn_blocking(move || ask_stdin(&req))
                        .await
                        .unwrap_or(ApprovalAnswer::Deny { message: None }),
                };
                let _ = reply.send(answer);
            }
        });
        let provider = Provider::new(pconfig)?;
        let mut agent = Agent::new(provider, toolbox, loaded.policy, config, log, etx, atx);
        agent.messages = previous;
        let cancel = CancellationToken::new();
        let c2 = cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                c2.cancel();
            }
        });
        let outcome = agent.run_turn(&a.task, &cancel).await;
        drop(agent);
        let _ = printer.await;
        Ok::<_, anyhow::Error>(outcome)
    })?;
    eprintln!("session: {id}");
    Ok(match outcome {
        TurnOutcome::Done { .. } => ExitCode::SUCCESS,
        TurnOutcome::Failed { message } => {
            eprintln!("tandem-cli: {message}; continue with --session {id}");
            ExitCode::FAILURE
        }
        TurnOutcome::Ended => {
            eprintln!(
                "tandem-cli: the model stopped without calling task_done; continue with --session {id}"
            );
            ExitCode::from(3)
        }
        TurnOutcome::Paused { reason } => {
            eprintln!("tandem-cli: paused: {reason}; continue with --session {id}");
            ExitCode::from(4)
        }
        TurnOutcome::StepLimit => {
            eprintln!("tandem-cli: the step limit was reached; continue with --session {id}");
            ExitCode::from(5)
        }
        TurnOutcome::BudgetSpent { used } => {
            eprintln!(
                "tandem-cli: the token budget is spent ({used} tokens); continue with --session {id}"
            );
            ExitCode::from(6)
        }
        TurnOutcome::Cancelled => {
            eprintln!("tandem-cli: stopped; nothing pending was run");
            ExitCode::from(130)
        }
    })
}

#[derive(Args)]
pub struct SessionsArgs {
    #[arg(long)]
    project: Option<PathBuf>,
}

pub fn sessions(a: SessionsArgs) -> Result<ExitCode> {
    let project = a
        .project
        .map(|p| std::fs::canonicalize(&p).map(|c| c.display().to_string()))
        .transpose()?;
    for s in list_sessions(&sessions_dir(), project.as_deref())? {
        println!("{}\t{}\t{}", s.header.id, s.header.project, s.header.task);
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub struct ShowArgs {
    id: String,
}

pub fn show(a: ShowArgs) -> Result<ExitCode> {
    let path = agent::session_path(&sessions_dir(), &a.id)?;
    if !path.exists() {
        bail!(
            "there is no session {}; `tandem-cli sessions` lists them",
            a.id
        );
    }
    let read = read_session::<Value>(&path)?;
    println!(
        "session {} — {} — {}",
        read.header.id, read.header.project, read.header.task
    );
    for e in &read.entries {
        println!("{}", e.event);
    }
    for w in &read.warnings {
        eprintln!("warning: {w}");
    }
    Ok(ExitCode::SUCCESS)
}
