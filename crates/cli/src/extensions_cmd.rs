//! `tandem-cli skills` and `tandem-cli mcp`: the skills a project has (broken ones reported,
//! exit 1 when there are any) and its MCP servers with their state and tools (started as a
//! session would start them: a project's own only once approved, which `mcp approve` does).

use anyhow::{Result, anyhow};
use clap::{Args, Subcommand};
use protocol::{ExtensionOrigin, McpServerView, McpState, SkillsView};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use tools::ProjectRoot;

#[derive(Args)]
pub struct SkillsArgs {
    /// The project folder.
    #[arg(long, short = 'p', default_value = ".")]
    project: PathBuf,
    /// Print the skills as JSON.
    #[arg(long)]
    json: bool,
    /// Copy the skill in this folder into your own skills (every project's sessions find it),
    /// then list them.
    #[arg(long, value_name = "FOLDER", conflicts_with = "remove")]
    add: Option<PathBuf>,
    /// Remove one of your own skills by its name, then list them.
    #[arg(long, value_name = "NAME")]
    remove: Option<String>,
}

#[derive(Subcommand)]
pub enum McpCommand {
    /// Start the project's servers as a session would, and show each one's state and tools
    /// (exit 1 when one failed or a configuration file cannot be read).
    List(McpListArgs),
    /// Approve a server of the project's `.tandem/mcp.json` for this project (kept in your
    /// config folder), so sessions start it.
    Approve(McpApproveArgs),
    /// Add a server to your own mcp.json (every project's sessions start it): a program with
    /// `--command "LINE"`, or an address with `--url`.
    Add(McpAddArgs),
    /// Remove a server from your own mcp.json.
    Remove(McpRemoveArgs),
}

#[derive(Args)]
pub struct McpAddArgs {
    /// The server's name (letters, digits, _ - and .).
    name: String,
    /// The program and its arguments, as you would type them (split like a shell would split
    /// them; nothing is expanded or run now).
    #[arg(
        long,
        value_name = "LINE",
        required_unless_present = "url",
        conflicts_with = "url"
    )]
    command: Option<String>,
    /// Let the program's sandbox reach the network.
    #[arg(long, requires = "command")]
    network: bool,
    /// The address of a streamable-HTTP server.
    #[arg(long)]
    url: Option<String>,
}

#[derive(Args)]
pub struct McpRemoveArgs {
    /// The server's name in your mcp.json.
    name: String,
}

#[derive(Args)]
pub struct McpListArgs {
    #[arg(long, short = 'p', default_value = ".")]
    project: PathBuf,
    /// Print the servers as JSON.
    #[arg(long)]
    json: bool,
    /// Seconds to wait for servers that are still starting.
    #[arg(long, default_value_t = 60)]
    wait: u64,
}

#[derive(Args)]
pub struct McpApproveArgs {
    /// The server's name in the project's `.tandem/mcp.json`.
    name: String,
    #[arg(long, short = 'p', default_value = ".")]
    project: PathBuf,
}

fn open(project: &PathBuf) -> Result<ProjectRoot> {
    ProjectRoot::open(project).map_err(|e| anyhow!("{e}"))
}

fn origin(o: ExtensionOrigin) -> &'static str {
    config::origin_words(o)
}

pub fn skills(a: SkillsArgs) -> Result<ExitCode> {
    let root = open(&a.project)?;
    let config_dir = config::locations::config_dir();
    if let Some(folder) = &a.add {
        let name = config::add_user_skill(&config_dir, folder).map_err(|e| anyhow!("{e}"))?;
        eprintln!("Added the skill {name}.");
    }
    if let Some(name) = &a.remove {
        config::remove_user_skill(&config_dir, name).map_err(|e| anyhow!("{e}"))?;
        eprintln!("Removed the skill {name}.");
    }
    let settings =
        config::read_settings(&config::locations::settings_file()).map_err(|e| anyhow!("{e}"))?;
    let view = config::skills_view(&root, &config::locations::config_dir(), &settings);
    if a.json {
        println!("{}", serde_json::to_string_pretty(&view)?);
    } else {
        print_skills(&view);
    }
    Ok(if view.problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn print_skills(view: &SkillsView) {
    if view.skills.is_empty() {
        println!(
            "No skills. A skill is a folder with a skill.json in {} or {}.",
            view.project_dir, view.user_dir
        );
    }
    for s in &view.skills {
        println!(
            "{}{} ({}: {})",
            s.name,
            if s.enabled { "" } else { " [turned off]" },
            origin(s.origin),
            s.file
        );
        println!("  {}", s.description);
        if s.triggers.is_empty() {
            println!("  triggers: none (the agent activates it with skill_activate)");
        } else {
            println!("  triggers: {}", s.triggers.join(", "));
        }
        for t in &s.tools {
            println!(
                "  tool {}: {}  [runs: {}]",
                t.name,
                t.description,
                t.run.join(" ")
            );
        }
        if s.has_instructions {
            println!("  instructions: SKILL.md");
        }
    }
    if !view.problems.is_empty() {
        println!("\nBroken skills (skipped):");
        for p in &view.problems {
            println!("  {}: {}", p.file, p.error);
        }
    }
}

pub fn mcp(command: McpCommand) -> Result<ExitCode> {
    match command {
        McpCommand::List(a) => list(a),
        McpCommand::Approve(a) => approve(a),
        McpCommand::Add(a) => add_server(a),
        McpCommand::Remove(a) => {
            config::remove_user_mcp_server(&config::locations::config_dir(), &a.name)
                .map_err(|e| anyhow!("{e}"))?;
            eprintln!("Removed the server {}.", a.name);
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn add_server(a: McpAddArgs) -> Result<ExitCode> {
    let server = match (a.command, a.url) {
        (Some(line), None) => {
            mcp::NewServer::program_from_line(&line, a.network).map_err(|e| anyhow!("{e}"))?
        }
        (None, Some(url)) => mcp::NewServer::Address { url },
        _ => return Err(anyhow!("give either --command \"LINE\" or --url URL")),
    };
    config::add_user_mcp_server(&config::locations::config_dir(), &a.name, &server)
        .map_err(|e| anyhow!("{e}"))?;
    eprintln!(
        "Added the server {}; `tandem-cli mcp list` starts it and shows its tools.",
        a.name
    );
    Ok(ExitCode::SUCCESS)
}

fn list(a: McpListArgs) -> Result<ExitCode> {
    let root = open(&a.project)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let view = runtime.block_on(async {
        let hub = config::mcp_hub(
            &root,
            &config::locations::config_dir(),
            config::machine_sandbox(root.path()),
            mcp::Timing::default(),
        );
        hub.start();
        hub.settle(Duration::from_secs(a.wait)).await;
        let view = hub.view();
        hub.stop_all();
        view
    });
    if a.json {
        println!("{}", serde_json::to_string_pretty(&view)?);
    } else {
        if view.servers.is_empty() {
            println!(
                "No MCP servers. Configure them in {} or {} (\"mcpServers\").",
                view.user_file, view.project_file
            );
        }
        for s in &view.servers {
            print_server(s, &a.project);
        }
        for p in &view.problems {
            println!("problem: {}: {}", p.file, p.error);
        }
    }
    let broken =
        !view.problems.is_empty() || view.servers.iter().any(|s| s.state == McpState::Failed);
    Ok(if broken {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn state_words(s: &McpServerView) -> String {
    match s.state {
        McpState::Running if s.restarts > 0 => {
            format!("running (started again {} times)", s.restarts)
        }
        McpState::Running => "running".into(),
        McpState::Starting => "still starting".into(),
        McpState::NeedsApproval => "waiting for your approval".into(),
        McpState::Disabled => "turned off (\"disabled\": true)".into(),
        McpState::Failed => "failed".into(),
    }
}

fn print_server(s: &McpServerView, project: &std::path::Path) {
    let confinement = match (s.local, s.network) {
        (true, true) => "in the sandbox, with the network",
        (true, false) => "in the sandbox, no network",
        (false, _) => "streamable HTTP",
    };
    println!(
        "{}: {} ({}; {}; {})",
        s.name,
        state_words(s),
        origin(s.origin),
        s.target,
        confinement
    );
    if let Some(m) = &s.message {
        println!("  {m}");
    }
    if s.state == McpState::NeedsApproval {
        println!(
            "  approve it: tandem-cli mcp approve {} --project {}",
            s.name,
            project.display()
        );
    }
    for t in &s.tools {
        println!("  tool {}: {}", t.name, t.description);
    }
    if s.state != McpState::Running && !s.stderr.is_empty() {
        println!("  its last stderr lines:");
        for l in &s.stderr {
            println!("    {l}");
        }
    }
}

fn approve(a: McpApproveArgs) -> Result<ExitCode> {
    let root = open(&a.project)?;
    let config_dir = config::locations::config_dir();
    let config = mcp::Config::load(&config_dir.join(mcp::USER_FILE), root.path());
    let server = config
        .servers
        .iter()
        .find(|s| s.name == a.name)
        .ok_or_else(|| {
            anyhow!(
                "no server named {} is configured for {}",
                a.name,
                root.path().display()
            )
        })?;
    if server.origin == ExtensionOrigin::User {
        println!("{} is your own server: it needs no approval.", server.name);
        return Ok(ExitCode::SUCCESS);
    }
    mcp::Approvals::new(config_dir.join(mcp::APPROVALS_FILE))
        .approve(root.path(), server)
        .map_err(|e| anyhow!("{e}"))?;
    println!(
        "Approved {} ({}) for {}. Sessions of this project start it from now on; if its entry in .tandem/mcp.json changes, it waits for your approval again.",
        server.name,
        server.target(),
        root.path().display()
    );
    Ok(ExitCode::SUCCESS)
}
