//! `tandem-cli`: the engine without the window, for scripts, tests and people at a terminal.
//!
//! Owns argument parsing, reading rule files from disk and printing results. Must not hold
//! engine logic: every decision comes from the `policy` crate, every path resolution from
//! `tools`.

mod policy_cmd;
mod tool_cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "tandem-cli", version, about = "Tandem's engine, headless")]
struct Cli {
    #[command(subcommand)]
    command: Command,
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Policy { command } => policy_cmd::run(command).map(|()| ExitCode::SUCCESS),
        Command::Tool(args) => tool_cmd::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("tandem-cli: {err:#}");
            ExitCode::from(2)
        }
    }
}
