//! `tandem-cli`: the engine without the window, for scripts, tests and people at a terminal.
//!
//! Owns argument parsing, reading rule files from disk and printing results. Must not hold
//! engine logic: every decision comes from the `policy` crate, every path resolution from
//! `tools`.

mod export_cmd;
mod extensions_cmd;
mod policy_cmd;
mod restore_cmd;
mod run_cmd;
mod sandbox_cmd;
mod terminal;
mod tool_cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "tandem-cli", version, about = "Tandem's engine, headless")]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Control characters (terminal escape sequences) in text from models, tools and commands:
    /// shown as visible signs on a terminal and kept into a pipe or file (auto), or always one
    /// or the other.
    #[arg(long, global = true, value_enum, default_value = "auto")]
    control_chars: terminal::ControlChars,
}

#[derive(Subcommand)]
enum Command {
    /// Ask the policy engine about a call, or show the rules in force.
    Policy {
        #[command(subcommand)]
        command: policy_cmd::PolicyCommand,
    },
    /// Run one tool as the agent would (judged by the policy first).
    Tool(tool_cmd::ToolArgs),
    /// Run the agent on a task.
    Run(Box<run_cmd::RunArgs>),
    /// List sessions.
    Sessions(run_cmd::SessionsArgs),
    /// Print one session's log.
    Show(run_cmd::ShowArgs),
    /// Write a session out as Markdown or as its JSON log.
    Export(export_cmd::ExportArgs),
    /// Bring a session's project back to how it was when a turn began.
    Restore(restore_cmd::RestoreArgs),
    /// The project's skills, their triggers and tools; broken ones reported (exit 1).
    Skills(extensions_cmd::SkillsArgs),
    /// The project's MCP servers.
    Mcp {
        #[command(subcommand)]
        command: extensions_cmd::McpCommand,
    },
    /// What this machine offers to sandbox commands.
    Sandbox {
        #[command(subcommand)]
        command: sandbox_cmd::SandboxCommand,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    terminal::choose(cli.control_chars);
    // Opt-in engine logs on stderr (`TANDEM_LOG=builtin=info` shows the built-in model's
    // tokens/s): off by default, so the transcript and `--json` stay clean.
    if let Ok(filter) = std::env::var("TANDEM_LOG") {
        tracing_subscriber::fmt()
            .with_writer(std::io::stderr)
            .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
            .init();
    }
    let result = match cli.command {
        Command::Policy { command } => policy_cmd::run(command).map(|()| ExitCode::SUCCESS),
        Command::Tool(args) => tool_cmd::run(args),
        Command::Run(args) => run_cmd::run(*args),
        Command::Sessions(args) => run_cmd::sessions(args),
        Command::Show(args) => run_cmd::show(args),
        Command::Restore(args) => restore_cmd::run(args),
        Command::Export(args) => export_cmd::run(args),
        Command::Sandbox { command } => sandbox_cmd::run(command),
        Command::Skills(args) => extensions_cmd::skills(args),
        Command::Mcp { command } => extensions_cmd::mcp(command),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            terminal::print_err(&format!("tandem-cli: {err:#}\n"));
            ExitCode::from(2)
        }
    }
}
