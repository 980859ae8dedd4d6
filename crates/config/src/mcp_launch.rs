//! A project's MCP servers, started the way commands are: in the OS sandbox (the project
//! writable, secrets hidden, the network only when the server's entry says `"network": true`),
//! with the allow-listed environment plus the entry's own `env`, never the app's API tokens.

use crate::locations;
use mcp::{Approvals, Hub, HubSetup, Launch, Launcher, Server, Timing, Transport};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tools::{ProjectRoot, SandboxSetup};

/// How the servers of one project are confined.
pub struct SandboxLauncher {
    pub project: PathBuf,
    /// Their private temporary folder (`TMPDIR`).
    pub tmp_dir: PathBuf,
    /// `None` on a machine without a sandbox: they run with the user's permissions, as
    /// commands do there.
    pub sandbox: Option<SandboxSetup>,
    next: AtomicU64,
}

impl SandboxLauncher {
    pub fn new(project: PathBuf, tmp_dir: PathBuf, sandbox: Option<SandboxSetup>) -> Self {
        SandboxLauncher {
            project,
            tmp_dir,
            sandbox,
            next: AtomicU64::new(0),
        }
    }
}

impl Launcher for SandboxLauncher {
    fn launch(&self, server: &Server) -> Result<Launch, String> {
        let Transport::Stdio {
            command,
            args,
            env,
            network,
        } = &server.transport
        else {
            return Err("it is not a program to start".into());
        };
        std::fs::create_dir_all(&self.tmp_dir)
            .map_err(|e| format!("{}: {e}", self.tmp_dir.display()))?;
        let (mut cmd, status, tmp_inside) = match &self.sandbox {
            Some(setup) => {
                let mut spec = setup.spec(&self.project, &self.tmp_dir, *network, false);
                // The person's own configuration names the program and its script: their
                // folders stay readable (reads are otherwise the system's and the project's).
                spec.readable = named_folders(command, args);
                std::fs::create_dir_all(&setup.state_dir)
                    .map_err(|e| format!("{}: {e}", setup.state_dir.display()))?;
                let status = setup.state_dir.join(format!(
                    "mcp-{}-{}-{}.json",
                    server.name,
                    std::process::id(),
                    self.next.fetch_add(1, Ordering::Relaxed)
                ));
                let cmd = sandbox::wrap(&setup.helper, &spec, &status, command, args);
                (cmd, Some(status), spec.tmp_inside())
            }
            None => {
                let mut cmd = std::process::Command::new(command);
                cmd.args(args);
                (cmd, None, self.tmp_dir.clone())
            }
        };
        cmd.current_dir(&self.project)
            .env_clear()
            .envs(tools::command_env::allowed_env(&[]))
            .envs(tools::command_env::FIXED.iter().copied())
            .env("TMPDIR", &tmp_inside);
        if self.sandbox.is_some() {
            // Caches go to the private folder: the home folder is read-only in the sandbox.
            cmd.env("XDG_CACHE_HOME", tmp_inside.join(".cache"))
                .env("npm_config_cache", tmp_inside.join(".npm"));
        }
        cmd.envs(env);
        Ok(Launch {
            command: cmd,
            status,
        })
    }

    fn setup_error(&self, status: &Path) -> Option<String> {
        sandbox::read_report(status).setup_error
    }
}

/// The MCP servers of a project, configured in `config_dir/mcp.json` and the project's
/// `.tandem/mcp.json`, with approvals in `config_dir`. Nothing is started yet.
pub fn mcp_hub(
    root: &ProjectRoot,
    config_dir: &Path,
    sandbox: Option<SandboxSetup>,
    timing: Timing,
) -> Arc<Hub> {
    let project = root.path().to_path_buf();
    let tmp_dir = crate::machine_sandbox::private_tmp(
        &format!("mcp-{}", project_key(&project)),
        &locations::data_dir().join("mcp"),
    );
    Hub::new(HubSetup {
        user_file: config_dir.join(mcp::USER_FILE),
        approvals: Approvals::new(config_dir.join(mcp::APPROVALS_FILE)),
        launcher: Arc::new(SandboxLauncher::new(project.clone(), tmp_dir, sandbox)),
        timing,
        project,
    })
}

/// The folders of the files a server's command line names by absolute path (the program, a
/// script, a config file), and the folders it names itself.
fn named_folders(command: &str, args: &[String]) -> Vec<PathBuf> {
    std::iter::once(command)
        .chain(args.iter().map(String::as_str))
        .map(Path::new)
        .filter(|p| p.is_absolute())
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .filter_map(|p| {
            if p.is_dir() {
                Some(p)
            } else {
                p.parent().map(Path::to_path_buf)
            }
        })
        .filter(|p| p != Path::new("/"))
        .collect()
}

/// The sandbox this machine gives a project's servers: as commands get it, with its own
/// state folder. `None` where there is no sandbox.
pub fn machine_sandbox(project: &Path) -> Option<SandboxSetup> {
    crate::machine_sandbox::sandbox_setup(
        locations::data_dir()
            .join("mcp")
            .join(project_key(project))
            .join("sandbox"),
    )
}

/// A short name for a project folder, for folders of its own.
fn project_key(project: &Path) -> String {
    use sha2::Digest as _;
    let digest = sha2::Sha256::digest(project.display().to_string().as_bytes());
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}
