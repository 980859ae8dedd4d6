//! `tandem-cli sandbox check`: what the kernel offers for sandboxing commands, tried for real.

use anyhow::Result;
use clap::{Args, Subcommand};
use std::process::ExitCode;

#[derive(Subcommand)]
pub enum SandboxCommand {
    /// Start a sandboxed process and report what worked; exit 1 when commands cannot be
    /// sandboxed on this machine.
    Check(CheckArgs),
}

#[derive(Args)]
pub struct CheckArgs {
    /// Print the findings as JSON.
    #[arg(long)]
    json: bool,
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

pub fn run(command: SandboxCommand) -> Result<ExitCode> {
    let SandboxCommand::Check(a) = command;
    let caps = agent::sandboxing::capabilities();
    if a.json {
        println!("{}", serde_json::to_string_pretty(caps)?);
    } else {
        println!(
            "sandbox:            {}",
            if caps.sandboxed {
                "available"
            } else {
                "NOT available"
            }
        );
        println!(
            "helper:             {}",
            caps.helper
                .as_ref()
                .map_or("not found".to_string(), |h| h.display().to_string())
        );
        println!("namespaces:         {}", yes(caps.namespaces));
        println!("network namespace:  {}", yes(caps.network_namespace));
        println!(
            "landlock:           {}",
            caps.landlock_abi
                .map_or("not available".to_string(), |v| format!("ABI {v}"))
        );
        println!("seccomp:            {}", yes(caps.seccomp));
        println!();
        println!("{}", caps.summary());
    }
    Ok(if caps.sandboxed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
