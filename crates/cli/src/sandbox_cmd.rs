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
    /// Also try a layer over this project: overlayfs refuses some file systems below it, and
    /// commands there then run without one (their changes found afterwards).
    #[arg(long)]
    project: Option<std::path::PathBuf>,
}

/// Whether commands in `project` would run over a layer of it (`None`: the machine has none).
fn project_layered(project: &std::path::Path) -> Result<Option<bool>> {
    let project = project
        .canonicalize()
        .map_err(|e| anyhow::anyhow!("{} cannot be opened: {e}", project.display()))?;
    let state = tempfile::tempdir()?;
    Ok(config::machine_sandbox::project_layered(
        &project,
        state.path(),
    ))
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

pub fn run(command: SandboxCommand) -> Result<ExitCode> {
    let SandboxCommand::Check(a) = command;
    let caps = agent::sandboxing::capabilities();
    let project = a.project.as_deref().map(project_layered).transpose()?;
    if a.json {
        let mut value = serde_json::to_value(caps)?;
        if let (Some(layered), Some(map)) = (project, value.as_object_mut()) {
            map.insert(
                "project_layered".into(),
                serde_json::json!(layered.unwrap_or(false)),
            );
        }
        println!("{}", serde_json::to_string_pretty(&value)?);
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
        let l = &caps.layers;
        println!(
            "private /tmp:       {}",
            if l.private_tmp {
                format!(
                    "yes, up to {:.1} GB (a command that fills it past that is stopped)",
                    config::machine_sandbox::Limits::default().tmp_bytes as f64
                        / f64::from(1u32 << 30)
                )
            } else {
                "no".to_string()
            }
        );
        println!("empty /run:         {}", yes(l.private_run));
        println!(
            "own terminals:      {} (/dev/pts)",
            yes(l.private_terminals)
        );
        println!("sockets hidden:     {}", yes(l.host_sockets_hidden));
        println!(
            "home hidden:        {} (but what toolchains need)",
            yes(l.home_hidden)
        );
        println!(
            "limits:             {}",
            match (l.process_limit, l.memory_limit, l.file_limit) {
                (None, None, None) => "none".to_string(),
                (p, m, f) => format!(
                    "{} processes, {} memory per process, {} per file written",
                    p.map_or("any number of".to_string(), |p| p.to_string()),
                    m.map_or("any".to_string(), |m| format!("{:.1} GB", m as f64 / 1e9)),
                    f.map_or("any size".to_string(), |f| format!(
                        "{:.1} GB",
                        f as f64 / 1e9
                    ))
                ),
            }
        );
        println!(
            "whole command:      {}",
            match (config::machine_sandbox::cgroup_place(), config::machine_sandbox::cgroup_v2_controllers()) {
                (Some(place), _) => format!(
                    "capped: memory and processes together, by a control group per command ({})",
                    place.words()
                ),
                (None, Some(c)) => format!(
                    "not capped: no control group this user may make (cgroup v2 offers {}), so the limits above are per process",
                    if c.is_empty() { "no controllers".to_string() } else { c.join(", ") }
                ),
                (None, None) => "not capped: no control group this user may make, so the limits above are per process".to_string(),
            }
        );
        println!(
            "readable folders:   {}",
            if l.readable.is_empty() {
                "(not known)".to_string()
            } else {
                l.readable.join(" ")
            }
        );
        if let Some(root) = &a.project {
            let root = root.canonicalize()?;
            let policy =
                config::load_project_policy(&root, Some(&config::locations::user_policy_file()))?;
            let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
            let granted = policy.readable_outside(home.as_deref());
            println!(
                "granted to read:    {}",
                if granted.is_empty() {
                    "nothing outside the project (your rules' paths.allow_read adds a folder)"
                        .to_string()
                } else {
                    granted
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(" ")
                }
            );
        }
        println!(
            "abstract sockets:   {}",
            if l.abstract_sockets_scoped {
                "scoped (Landlock): unreachable even with the network granted"
            } else {
                "NOT scoped (Landlock older than ABI 6): granting the network asks first"
            }
        );
        println!(
            "command changes:    {}",
            if l.project_layer {
                "on a copy-on-write layer (overlayfs): reviewed before they land"
            } else {
                "NOT layered (no unprivileged overlay here): commands write the project directly; what they changed is found afterwards, shown, and in Ask mode reviewed (a rejected change is put back)"
            }
        );
        if let Some(layered) = project {
            println!(
                "this project:       {}",
                match layered {
                    Some(true) => "commands run over a layer of it",
                    Some(false) =>
                        "NOT layered: its file system refuses to be below an overlay, so commands write it directly and what they changed is found afterwards",
                    None => "NOT layered: this machine has no layers",
                }
            );
        }
        println!();
        println!("{}", caps.summary());
    }
    Ok(if caps.sandboxed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
