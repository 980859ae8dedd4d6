//! `tandem-cli run`, `tandem-cli sessions`, `tandem-cli show`: the agent headless.

use crate::policy_cmd::{ProjectArg, load, parse_mode};
use crate::terminal::{errln, outln, print_err, print_out};
use agent::{Session, list_sessions, read_session};
use anyhow::{Result, anyhow, bail};
use clap::{Args, ValueEnum};
use config::{Preset, StoredKeys};
use policy::Mode;
use protocol::{
    AgentEvent, ApprovalAnswer, ApprovalRequest, Confinement, FailureCode, OutsideReason,
    TurnOutcome,
};
use serde_json::Value;
use std::io::{BufRead as _, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tools::ProjectRoot;

/// A kind of provider by its name or an alias, as the provider rows give them.
fn provider_kind(name: &str) -> Result<protocol::ProviderKind, String> {
    protocol::ProviderKind::from_alias(name).ok_or_else(|| {
        let names: Vec<&str> = protocol::ProviderKind::all().map(|k| k.name()).collect();
        format!("the kinds are: {}", names.join(", "))
    })
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

/// Which model serves the run, and how it is treated.
#[derive(Args)]
struct ModelArgs {
    /// The kind of provider: anthropic, openai (any OpenAI-compatible server) or builtin (the
    /// model built into Tandem: a GGUF file run in this process, `--model-path`, else the
    /// downloaded default in the data folder).
    #[arg(long, value_parser = provider_kind)]
    provider: Option<protocol::ProviderKind>,
    #[arg(long)]
    base_url: Option<String>,
    #[arg(long)]
    model: Option<String>,
    /// The built-in model's GGUF file (with `--provider builtin`).
    #[arg(long)]
    model_path: Option<PathBuf>,
    /// Take tool calls the model writes as text (```json blocks), as small local models do:
    /// on or off; by default on for a server on this machine, off for hosted ones.
    #[arg(long, value_enum)]
    lenient_tool_calls: Option<OnOff>,
    /// The help small models need (one form per tool, the files the task names read first, the
    /// compact tool set): on or off; by default on for the built-in model and for models of at
    /// most 4B parameters (by their name) on a server on this machine.
    #[arg(long, value_enum)]
    small_model: Option<OnOff>,
}

#[derive(Args)]
pub struct RunArgs {
    #[command(flatten)]
    project: ProjectArg,
    #[command(flatten)]
    model: ModelArgs,
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
    /// Stop before the next model call once the session has spent this much (US dollars, for
    /// models whose price is known; over settings.toml's `[limits] session_usd`). Continuing
    /// with a higher one goes on.
    #[arg(long, value_name = "USD", value_parser = parse_usd)]
    max_cost: Option<f64>,
    /// When the turn ends with background tasks or agents still at work, wait this many seconds
    /// for them (the agent is woken as they finish), then stop what is left.
    #[arg(long, default_value_t = 600)]
    background_wait: u64,
    /// The task, in words.
    task: String,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum OnOff {
    On,
    Off,
}

/// The built-in model, loaded as the window loads it (the engine does not link it).
fn builtin_loader() -> config::BuiltinLoader {
    Arc::new(|config| {
        builtin::launch(
            config,
            &config::locations::data_dir(),
            config::default_model_path(),
        )
    })
}

fn sessions_dir() -> PathBuf {
    config::locations::sessions_dir()
}

/// `--provider` (with `--model`) first, then TANDEM_PROVIDER; without either, the settings
/// file. The key comes from the environment, the keychain or the opt-in key file.
fn preset(a: &ModelArgs) -> Result<Option<Preset>> {
    match a.provider {
        Some(kind) if kind.wire() == protocol::Wire::Builtin => Ok(Some(Preset {
            kind,
            base_url: String::new(),
            model: a
                .model
                .clone()
                .unwrap_or_else(|| llm::BUILTIN_MODEL.to_string()),
            model_path: a.model_path.clone(),
        })),
        Some(kind) => Ok(Some(Preset {
            kind,
            base_url: a
                .base_url
                .clone()
                .unwrap_or_else(|| config::default_url(kind).to_string()),
            model: a
                .model
                .clone()
                .ok_or_else(|| anyhow!("--provider needs --model"))?,
            model_path: None,
        })),
        None => {
            let mut p = Preset::from_env()?;
            if let (Some(p), Some(u)) = (p.as_mut(), &a.base_url) {
                p.base_url = u.clone();
            }
            Ok(p)
        }
    }
}

/// The resolver, with `--lenient-tool-calls` and `--small-model` applied to every model it
/// resolves.
fn with_overrides(
    inner: config::ProviderResolver,
    lenient: Option<OnOff>,
    small: Option<OnOff>,
) -> config::ProviderResolver {
    if lenient.is_none() && small.is_none() {
        return inner;
    }
    std::sync::Arc::new(move |role: &str| {
        let mut resolved = inner(role)?;
        if let Some(choice) = lenient {
            resolved
                .provider
                .set_lenient_tool_calls(matches!(choice, OnOff::On));
        }
        if let Some(choice) = small {
            resolved
                .provider
                .set_small_model(matches!(choice, OnOff::On));
        }
        Ok(resolved)
    })
}

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

/// Whether a question is about a call that only reads: a read tool, and for a fetch a GET
/// or HEAD (another method sends something, so it is a write).
fn only_reads(req: &ApprovalRequest) -> bool {
    // The registry says which tools only read, and how the policy sees a fetch's method.
    agent::only_reads(&req.tool, &req.input)
}

fn ask_stdin(req: &ApprovalRequest) -> ApprovalAnswer {
    errln(format!(
        "\n── approval needed: {} ──\n{}",
        req.tool, req.asked.reason
    ));
    if let Some(c) = &req.run.command {
        errln(format!("command: {c}"));
    }
    if let Some(c) = req.run.confinement {
        errln(format!("runs:    {}", confinement_words(c)));
    }
    for h in &req.change.hunks {
        print_err(&h.text);
    }
    if let Some(review) = &req.review {
        errln("its changes, waiting for your yes (y lands them all, n none):");
        for f in &review.files {
            let why = match f.class {
                protocol::ChangeClass::RunsCode { why } => format!(" — {}", tools::why_words(why)),
                _ => String::new(),
            };
            let what = match f.change {
                protocol::ChangeKind::Deleted => "deleted",
                protocol::ChangeKind::Replaced => "replaced",
                protocol::ChangeKind::Created => "created",
                protocol::ChangeKind::Modified => "changed",
                protocol::ChangeKind::ModeChanged => "permissions changed",
            };
            errln(format!("  {} {what}{why}", f.path));
            for h in &f.hunks {
                print_err(&h.text);
            }
        }
    }
    for (i, s) in req.asked.suggestions.iter().enumerate() {
        errln(format!("  [{}] {}", i + 1, s.label));
    }
    loop {
        if req.asked.suggestions.is_empty() {
            print_err("approve? [y]es / [n]o (or type why not): ");
        } else {
            print_err(&format!(
                "approve? [y]es / [n]o (or type why not) / 1-{} to grant that rule for the session: ",
                req.asked.suggestions.len()
            ));
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
            if (1..=req.asked.suggestions.len()).contains(&n) {
                return ApprovalAnswer::ApproveForSession {
                    suggestion: u32::try_from(n - 1).unwrap_or(0),
                };
            }
            errln(format!("there is no rule {n} to grant"));
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
            outln(s);
        }
        return;
    }
    print_plain(e, "");
}

/// One event as a line of transcript; a sub-agent's are marked with its id.
fn print_plain(e: &AgentEvent, agent: &str) {
    let tag = if agent.is_empty() {
        String::new()
    } else {
        format!("[{agent}] ")
    };
    match e {
        AgentEvent::Subagent { agent: a, event } => {
            let path = if agent.is_empty() {
                a.clone()
            } else {
                format!("{agent}/{a}")
            };
            print_plain(event, &path);
        }
        AgentEvent::SubagentStarted {
            agent: a,
            name,
            task,
            ..
        } => {
            outln(format!("\n{tag}⇢ sub-agent {a} ({name}): {task}"));
        }
        AgentEvent::SubagentEnded {
            agent: a,
            report,
            steps,
            tokens,
            ..
        } => {
            outln(format!(
                "{tag}⇠ sub-agent {a} ended after {steps} steps, {tokens} tokens: {report}"
            ));
        }
        AgentEvent::Wake { reason, .. } => {
            let why = match reason {
                protocol::WakeReason::TaskFinished { task, title, state } => {
                    format!("{task} ({title}) {state}")
                }
                protocol::WakeReason::Timer { hint } => {
                    format!(
                        "wake-up{}",
                        hint.as_ref().map(|h| format!(": {h}")).unwrap_or_default()
                    )
                }
                protocol::WakeReason::ChangesAsked { task, title } => {
                    format!("review asked of {task} ({title}), still running")
                }
                protocol::WakeReason::Retry => "trying again".into(),
            };
            outln(format!("\n{tag}⏰ woken: {why}"));
        }
        AgentEvent::TextDelta { text } if !agent.is_empty() => {
            let _ = text;
        }
        AgentEvent::AssistantMessage { message } if !agent.is_empty() => {
            let text = message.text();
            if !text.trim().is_empty() {
                outln(format!("{tag}{}", text.trim()));
            }
        }
        AgentEvent::TextDelta { text } => {
            print_out(text);
        }
        AgentEvent::ToolCallProposed { name, input, .. } => {
            outln(format!("\n{tag}→ {name} {input}"))
        }
        AgentEvent::ToolFinished {
            output, is_error, ..
        } => {
            let shown: String = output.lines().take(12).collect::<Vec<_>>().join("\n");
            outln(format!("{tag}{}{shown}", if *is_error { "✗ " } else { "" }));
        }
        AgentEvent::Notice { text } => errln(format!("{tag}note: {text}")),
        AgentEvent::ContextFilling {
            used_percent,
            compact_at,
        } => errln(format!(
            "{tag}note: the conversation fills {used_percent}% of the model's context; past {compact_at}% older turns are summarised"
        )),
        AgentEvent::Compacted {
            messages_before,
            messages_after,
            dropped,
            ..
        } => errln(format!(
            "{tag}note: earlier messages summarised ({messages_before} → {messages_after} messages; {} lines of it dropped; `tandem-cli export` keeps them)",
            dropped.len()
        )),
        AgentEvent::Restored { record } => {
            outln(format!("\n{tag}↺ restored {} file(s)", record.files.len()))
        }
        AgentEvent::SkillActivated { name, tools, .. } => errln(format!(
            "{tag}Skill {name} activated{}",
            if tools.is_empty() {
                String::new()
            } else {
                format!(" (tools: {})", tools.join(", "))
            }
        )),
        AgentEvent::Error { error } => errln(format!("{tag}error: {}", with_detail(error))),
        AgentEvent::Done { summary, warnings } if warnings.is_empty() => {
            outln(format!("\n{tag}✓ {summary}"))
        }
        AgentEvent::Done { summary, warnings } => {
            outln(format!("\n{tag}⚠ {summary}"));
            for w in warnings {
                outln(format!("{tag}  ⚠ {}", done_warning_text(w)));
            }
        }
        _ => {}
    }
}

/// What contradicts a task_done, in a line.
fn done_warning_text(w: &protocol::DoneWarning) -> String {
    match w {
        protocol::DoneWarning::EditRejected { path } => {
            format!("{path} is unchanged: you rejected its edit")
        }
        protocol::DoneWarning::FileUnchanged { path } => {
            format!("{path} is listed as changed, but nothing changed it")
        }
        protocol::DoneWarning::CheckFailed { command, exit_code } => match exit_code {
            Some(code) => format!("the last check failed: `{command}` exited with {code}"),
            None => format!("the last check failed: `{command}` was killed"),
        },
        protocol::DoneWarning::CheckNotRun { command } => {
            format!("the check the task asked for did not run after the last change: `{command}`")
        }
        protocol::DoneWarning::FileMissing { path } => {
            format!("{path} is listed as changed, but it does not exist")
        }
        protocol::DoneWarning::CommandDenied { command } => {
            format!("you denied `{command}`: it did not run")
        }
        protocol::DoneWarning::CallDenied { title } => format!("you said no to: {title}"),
        protocol::DoneWarning::EditPartlyKept { path, kept, total } => {
            format!("{path}: you kept {kept} of its {total} changes")
        }
        protocol::DoneWarning::ChangesRejected { command, paths } => format!(
            "you rejected what `{command}` did to {}: it did not land",
            paths.join(", ")
        ),
    }
}

/// The question an event asks, wherever in the tree of agents it comes from.
fn question(e: &AgentEvent) -> Option<&ApprovalRequest> {
    match e {
        AgentEvent::ApprovalNeeded { request } => Some(request),
        AgentEvent::Subagent { event, .. } => question(event),
        _ => None,
    }
}

/// How `--approve` answers a question.
async fn answer_for(approve: ApproveArg, req: ApprovalRequest) -> ApprovalAnswer {
    let leaves_sandbox = matches!(
        req.run.confinement,
        Some(Confinement::Outside {
            reason: OutsideReason::Approved
        })
    );
    match approve {
        ApproveArg::All if leaves_sandbox => ApprovalAnswer::Deny {
            message: Some(
                "--approve all never lets a command leave the sandbox, so it was not run outside it; go on within the sandbox, or tell the user what the command needed".into(),
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
    }
}

pub fn run(a: RunArgs) -> Result<ExitCode> {
    // What a killed run left in /tmp/tandem-UID goes first (this run's own goes as it ends).
    config::machine_sandbox::sweep_private_tmps(&sessions_dir());
    let loaded = load(&a.project)?;
    let preset = preset(&a.model)?;
    let settings_file = config::locations::settings_file();
    if preset.is_none() {
        // Say it now, in the terminal's words, rather than as a failed turn.
        config::choose_provider(None, &settings_file, "default", &StoredKeys::from_env()).map_err(
            |e| match e {
                config::LaunchError::NoProvider(file) => anyhow!(
                    "no provider: pass --provider and --model, or choose one in the app's Settings ({file})"
                ),
                e => e.into(),
            },
        )?;
    }
    let root = ProjectRoot::open(&loaded.root).map_err(|e| anyhow!("{e}"))?;
    let caps = agent::sandboxing::capabilities();
    if !caps.sandboxed {
        errln(format!("note: {}", caps.summary()));
    }
    let model = preset.as_ref().map(|p| p.model.clone()).unwrap_or_default();
    let settings = match config::read_settings(&settings_file) {
        Ok(s) => s,
        Err(e) => {
            // --provider and --model still run (they come first), but what else the file holds
            // is lost for this run: said, since a spending limit that silently stops holding is
            // worse than none.
            errln(format!(
                "tandem-cli: warning: {e}; this run goes on without the file's settings (its [limits] too){}",
                if a.max_cost.is_some() {
                    " but with --max-cost"
                } else {
                    ""
                }
            ));
            config::Settings::default()
        }
    };
    let mut opts = agent::PersonalSession {
        root,
        policy: loaded.policy,
        user_policy_file: loaded.user_file.clone(),
        resolver: with_overrides(
            config::provider_resolver(
                config::PresetSlot::new(preset),
                settings_file,
                builtin_loader(),
            ),
            a.model.lenient_tool_calls,
            a.model.small_model,
        ),
    }
    .options(&settings);
    opts.config.model = model;
    opts.config.mode = a.mode;
    opts.config.max_steps = a.max_steps;
    opts.spend.limits.session_usd = a.max_cost.or(settings.limits.session_usd);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let approve = a.approve;
    let json = a.json;
    let (id, outcome, left) = runtime.block_on(async move {
        // Its MCP servers start with the runtime (a project's only once approved).
        opts.extensions =
            config::project_extensions(&opts.root, &config::locations::config_dir(), &settings);
        let (session, mut events) = match &a.session {
            Some(id) => Session::open(opts, id),
            None => Session::create(opts, &a.task),
        }
        .map_err(|e| anyhow!("{e}"))?;
        if let Some(m) = a.mode {
            session.set_mode(m);
        }
        // The outcome of the last turn the session's own agent ended (wake-ups may follow).
        let last: Arc<Mutex<Option<TurnOutcome>>> = Arc::default();
        let last2 = last.clone();
        let answerer = session.approvals();
        let printer = tokio::spawn(async move {
            while let Some(e) = events.recv().await {
                print_event(&e, json);
                if let AgentEvent::TurnEnded { outcome } = &e {
                    *last2.lock().unwrap_or_else(PoisonError::into_inner) = Some(outcome.clone());
                }
                if let Some(req) = question(&e) {
                    let req = req.clone();
                    let id = req.id.clone();
                    let answer = answer_for(approve, req).await;
                    let _ = answerer.answer(&id, answer);
                }
            }
        });
        let stopper = session.clone();
        let ctrl_c = tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                stopper.stop();
            }
        });
        let first = session.run(&a.task).await.map_err(|e| anyhow!("{e}"))?;
        let left = session.settle(Duration::from_secs(a.background_wait)).await;
        let id = session.id().to_string();
        // Its copy of the session keeps the events open: without it gone, the printer below
        // waited its whole timeout after every run.
        ctrl_c.abort();
        let _ = ctrl_c.await;
        drop(session);
        if tokio::time::timeout(Duration::from_secs(5), printer)
            .await
            .is_err()
        {
            // Something still holds the session's events open: said, since the run waited.
            errln("tandem-cli: the session's events did not end within 5 s; the last of its output may be missing");
        }
        let outcome = last
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .unwrap_or(first);
        Ok::<_, anyhow::Error>((id, outcome, left))
    })?;
    for t in &left {
        errln(format!(
            "tandem-cli: stopped {} ({}) as it was still running when tandem-cli exited",
            t.id, t.title
        ));
    }
    errln(format!("session: {id}"));
    Ok(match outcome {
        TurnOutcome::Done { .. } => ExitCode::SUCCESS,
        TurnOutcome::Failed { error } => {
            errln(format!(
                "tandem-cli: {} Continue with --session {id}.",
                with_detail(&error)
            ));
            if error.code == FailureCode::NoProvider {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
        TurnOutcome::Ended => {
            errln(format!(
                "tandem-cli: the model stopped without calling task_done; continue with --session {id}"
            ));
            ExitCode::from(3)
        }
        TurnOutcome::Paused { reason } => {
            errln(format!(
                "tandem-cli: paused: {reason}; continue with --session {id}"
            ));
            ExitCode::from(4)
        }
        TurnOutcome::StepLimit => {
            errln(format!(
                "tandem-cli: the step limit was reached; continue with --session {id}"
            ));
            ExitCode::from(5)
        }
        TurnOutcome::BudgetSpent { used } => {
            errln(format!(
                "tandem-cli: the token budget is spent ({used} tokens); continue with --session {id}"
            ));
            ExitCode::from(6)
        }
        TurnOutcome::LimitReached { reached } => {
            errln(format!(
                "tandem-cli: {}. Raise it (--max-cost, or [limits] in settings.toml) and continue with --session {id}.",
                agent::spend::limit_words(&reached)
            ));
            ExitCode::from(7)
        }
        TurnOutcome::Cancelled => {
            errln("tandem-cli: stopped; nothing pending was run");
            ExitCode::from(130)
        }
    })
}

#[derive(Args)]
pub struct SessionsArgs {
    #[arg(long)]
    project: Option<PathBuf>,
    /// Only the sessions whose messages, tool results or files touched hold every word of
    /// TEXT (needs --project); each with its first matching message.
    #[arg(long, value_name = "TEXT", requires = "project")]
    search: Option<String>,
}

pub fn sessions(a: SessionsArgs) -> Result<ExitCode> {
    let project = a
        .project
        .map(|p| std::fs::canonicalize(&p).map(|c| c.display().to_string()))
        .transpose()?;
    if let (Some(query), Some(project)) = (&a.search, &project) {
        let hits = agent::search_sessions(&sessions_dir(), project, query)?;
        if hits.is_empty() {
            errln(format!("no session of {project} mentions {query:?}"));
            return Ok(ExitCode::from(1));
        }
        for h in hits {
            let kind = match h.kind {
                protocol::SearchHitKind::User => "you",
                protocol::SearchHitKind::Assistant => "model",
                protocol::SearchHitKind::Tool => "result",
                protocol::SearchHitKind::File => "call",
            };
            outln(format!(
                "{}\t{}\t{} match{}\t{kind} (entry {}): {}",
                h.session,
                h.title,
                h.matches,
                if h.matches == 1 { "" } else { "es" },
                h.seq,
                h.snippet
            ));
        }
        return Ok(ExitCode::SUCCESS);
    }
    for s in list_sessions(&sessions_dir(), project.as_deref())? {
        outln(format!(
            "{}\t{}\t{}",
            s.header.id, s.header.project, s.header.task
        ));
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub struct ShowArgs {
    id: String,
    /// Print the log's entries as JSON lines instead.
    #[arg(long)]
    json: bool,
}

/// A turn as `show` lists it: what the user (or a wake-up) asked, how it ended, its checkpoint,
/// and whether a restore took it out of the conversation.
struct TurnLine {
    asked: String,
    ended: String,
    checkpoint: Option<u32>,
    in_conversation: bool,
}

/// One line per turn, numbered as `tandem-cli restore --to` takes them.
fn turns(entries: &[agent::Entry<Value>]) -> Vec<TurnLine> {
    let starts = agent::turn_starts(entries);
    let mut out: Vec<TurnLine> = Vec::new();
    let mut next = starts.iter().peekable();
    for e in entries {
        if next.peek().is_some_and(|t| t.seq == e.seq) {
            let Some(t) = next.next() else { break };
            let asked = match &t.event {
                AgentEvent::UserMessage { text, .. } => {
                    text.lines().next().unwrap_or("").chars().take(80).collect()
                }
                AgentEvent::Wake { reason, .. } => match reason {
                    protocol::WakeReason::TaskFinished { task, state, .. } => {
                        format!("(woken: {task} {state})")
                    }
                    protocol::WakeReason::Timer { .. } => "(woken: wake-up)".into(),
                    protocol::WakeReason::ChangesAsked { task, .. } => {
                        format!("(woken: review of {task} asked)")
                    }
                    protocol::WakeReason::Retry => "(tried again)".into(),
                },
                _ => String::new(),
            };
            out.push(TurnLine {
                asked,
                ended: "cut short".into(),
                checkpoint: t.checkpoint,
                in_conversation: t.in_conversation,
            });
            continue;
        }
        if let Ok(AgentEvent::TurnEnded { outcome }) =
            serde_json::from_value::<AgentEvent>(e.event.clone())
            && let Some(last) = out.last_mut()
        {
            last.ended = outcome_words(&outcome);
        }
    }
    out
}

fn outcome_words(o: &TurnOutcome) -> String {
    match o {
        TurnOutcome::Done { .. } => "done".into(),
        TurnOutcome::Ended => "ended".into(),
        TurnOutcome::Paused { .. } => "paused".into(),
        TurnOutcome::StepLimit => "step limit".into(),
        TurnOutcome::BudgetSpent { .. } => "budget spent".into(),
        TurnOutcome::LimitReached { .. } => "spending limit reached".into(),
        TurnOutcome::Cancelled => "stopped".into(),
        TurnOutcome::Failed { error } => format!("failed: {}", error.message),
    }
}

/// A failure's words and, in a terminal where nothing is folded, its technical cause.
fn with_detail(error: &protocol::EngineError) -> String {
    match &error.detail {
        Some(d) => format!("{} ({d})", error.message),
        None => error.message.clone(),
    }
}

struct AgentRow {
    id: String,
    name: String,
    parent: Option<String>,
    background: bool,
    state: String,
    steps: u32,
    tokens: u64,
}

/// The session's sub-agents as a tree: each with its title, state, steps and tokens.
fn agent_tree(entries: &[agent::Entry<Value>]) -> Vec<AgentRow> {
    let mut rows: Vec<AgentRow> = Vec::new();
    let mut visit = |e: &AgentEvent, rows: &mut Vec<AgentRow>| match e {
        AgentEvent::SubagentStarted {
            agent,
            name,
            background,
            parent,
            ..
        } => rows.push(AgentRow {
            id: agent.clone(),
            name: name.clone(),
            parent: parent.clone(),
            background: *background,
            state: "running or cut short".into(),
            steps: 0,
            tokens: 0,
        }),
        AgentEvent::SubagentEnded {
            agent,
            outcome,
            steps,
            tokens,
            ..
        } => {
            if let Some(r) = rows.iter_mut().find(|r| r.id == *agent) {
                r.state = outcome_words(outcome);
                r.steps = *steps;
                r.tokens = *tokens;
            }
        }
        _ => {}
    };
    fn walk(
        e: &AgentEvent,
        rows: &mut Vec<AgentRow>,
        visit: &mut dyn FnMut(&AgentEvent, &mut Vec<AgentRow>),
    ) {
        visit(e, rows);
        if let AgentEvent::Subagent { event, .. } = e {
            walk(event, rows, visit);
        }
    }
    for e in entries {
        if let Ok(ev) = serde_json::from_value::<AgentEvent>(e.event.clone()) {
            walk(&ev, &mut rows, &mut visit);
        }
    }
    rows
}

pub fn show(a: ShowArgs) -> Result<ExitCode> {
    let dir = sessions_dir();
    let path = agent::session_path(&dir, &a.id)?;
    if !path.exists() {
        bail!(
            "there is no session {}; `tandem-cli sessions` lists them",
            a.id
        );
    }
    let read = read_session::<Value>(&path)?;
    for w in &read.warnings {
        errln(format!("warning: {w}"));
    }
    if a.json {
        for e in &read.entries {
            outln(e.event.to_string());
        }
        return Ok(ExitCode::SUCCESS);
    }
    outln(format!(
        "session {} — {} — {}",
        read.header.id, read.header.project, read.header.task
    ));
    outln("turns:");
    for (i, t) in turns(&read.entries).iter().enumerate() {
        let checkpoint = match t.checkpoint {
            Some(c) => format!("checkpoint {c}"),
            None => "no checkpoint".into(),
        };
        let undone = if t.in_conversation {
            ""
        } else {
            " (taken out of the conversation by a restore)"
        };
        outln(format!(
            "  {}. {} — {} — {checkpoint}{undone}",
            i + 1,
            t.asked,
            t.ended
        ));
    }
    let restores: Vec<protocol::RestoreRecord> = read
        .entries
        .iter()
        .filter_map(
            |e| match serde_json::from_value::<AgentEvent>(e.event.clone()) {
                Ok(AgentEvent::Restored { record }) => Some(record),
                _ => None,
            },
        )
        .collect();
    if !restores.is_empty() {
        outln("restores:");
        for r in restores {
            let to = match r.turn {
                Some(n) => format!("turn {n}"),
                None => format!("checkpoint {}", r.checkpoint),
            };
            outln(format!(
                "  to {to} — {} file(s) — undone by restoring to checkpoint {}",
                r.files.len(),
                r.undo_checkpoint
            ));
        }
    }
    // Sub-agents: those the session's own agent started are in its log; their own children
    // and background agents' ends are in the sub-agents' logs.
    let agents_dir = dir.join(&a.id).join("agents");
    let mut rows = agent_tree(&read.entries);
    for r in rows.iter_mut() {
        if let Ok(child) = read_session::<Value>(&agents_dir.join(format!("{}.jsonl", r.id))) {
            let ended = turns(&child.entries);
            if r.state == "running or cut short"
                && let Some(last) = ended.last()
            {
                r.state = last.ended.clone();
            }
        }
    }
    let mut nested: Vec<AgentRow> = Vec::new();
    for r in &rows {
        if let Ok(child) = read_session::<Value>(&agents_dir.join(format!("{}.jsonl", r.id))) {
            nested.extend(agent_tree(&child.entries));
        }
    }
    rows.extend(nested);
    if !rows.is_empty() {
        outln("agents:");
        fn print_rows(rows: &[AgentRow], parent: Option<&str>, depth: usize) {
            for r in rows.iter().filter(|r| r.parent.as_deref() == parent) {
                outln(format!(
                    "  {}{} {}{} — {} — {} steps, {} tokens",
                    "  ".repeat(depth),
                    r.id,
                    r.name,
                    if r.background { " (background)" } else { "" },
                    r.state,
                    r.steps,
                    r.tokens
                ));
                print_rows(rows, Some(&r.id), depth + 1);
            }
        }
        print_rows(&rows, None, 0);
    }
    Ok(ExitCode::SUCCESS)
}

/// `--max-cost`: a positive amount of US dollars.
fn parse_usd(text: &str) -> Result<f64, String> {
    let v: f64 = text
        .trim()
        .trim_start_matches('$')
        .parse()
        .map_err(|_| format!("`{text}` is not an amount of dollars (such as 5 or 0.50)"))?;
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(format!("the limit must be more than $0, not {text}"))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_engines_default_model_file_is_the_built_in_models() {
        // The engine names the default file without linking the built-in model.
        assert_eq!(
            config::locations::DEFAULT_MODEL_FILE,
            builtin::DEFAULT_MODEL.file_name
        );
    }
}
