//! `tandem-cli export ID [--format md|jsonl] [--output FILE]`: a session as Markdown (the
//! conversation, each tool call with its decision and result, the diffs applied, the cost) or
//! as its JSON log, as the window's Export writes it.

use agent::{ExportFormat, export_session};
use anyhow::{Context as _, Result};
use clap::{Args, ValueEnum};
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    Md,
    Jsonl,
}

#[derive(Args)]
pub struct ExportArgs {
    /// The session (`tandem-cli sessions` lists them).
    id: String,
    #[arg(long, value_enum, default_value = "md")]
    format: FormatArg,
    /// Write it to this file instead of standard output.
    #[arg(long, short)]
    output: Option<PathBuf>,
}

pub fn run(a: ExportArgs) -> Result<ExitCode> {
    let path = agent::session_path(&config::locations::sessions_dir(), &a.id)?;
    if !path.exists() {
        anyhow::bail!(
            "there is no session {}; `tandem-cli sessions --project DIR` lists them",
            a.id
        );
    }
    let format = match a.format {
        FormatArg::Md => ExportFormat::Markdown,
        FormatArg::Jsonl => ExportFormat::Jsonl,
    };
    let text = export_session(&path, format)?;
    match &a.output {
        Some(file) => tools::write_atomic(file, text.as_bytes())
            .with_context(|| format!("{} could not be written", file.display()))?,
        None => std::io::stdout().write_all(text.as_bytes())?,
    }
    Ok(ExitCode::SUCCESS)
}
