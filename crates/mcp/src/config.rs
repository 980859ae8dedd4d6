//! Where MCP servers are configured: the user's `mcp.json` in the Tandem config folder and the
//! project's `.tandem/mcp.json`, both in the common `mcpServers` format (a `command` with
//! `args` and `env`, or a streamable-HTTP `url` with `headers`). Tandem adds `network` (a
//! program's sandbox lets it reach the network), `timeout` (seconds a call may take) and
//! `disabled`. Fields other clients add are ignored.

use protocol::{ExtensionOrigin, McpProblem};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The project's configuration, relative to its root.
pub const PROJECT_FILE: &str = ".tandem/mcp.json";
/// The user's, in the config folder.
pub const USER_FILE: &str = "mcp.json";
/// A configuration file larger than this is refused.
const MAX_FILE_BYTES: u64 = 1024 * 1024;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct File {
    #[serde(default)]
    mcp_servers: BTreeMap<String, Value>,
}

#[derive(Debug, Deserialize)]
struct Entry {
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    network: bool,
    #[serde(default)]
    timeout: Option<u64>,
    #[serde(default)]
    disabled: bool,
}

/// How Tandem reaches a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A program on this machine, spoken to over its standard input and output.
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        /// Whether its sandbox lets it reach the network.
        network: bool,
    },
    /// An address speaking streamable HTTP.
    Http {
        url: String,
        headers: BTreeMap<String, String>,
    },
}

/// One configured server.
#[derive(Debug, Clone, PartialEq)]
pub struct Server {
    pub name: String,
    pub origin: ExtensionOrigin,
    pub file: PathBuf,
    pub transport: Transport,
    /// Seconds one call may take before the server counts as hung.
    pub timeout: Option<u64>,
    pub disabled: bool,
    /// The entry as written: an approval holds for exactly this (a repository that changes
    /// the command after the user approved it is asked about again).
    pub raw: Value,
}

impl Server {
    /// What runs or where it is, for people.
    pub fn target(&self) -> String {
        match &self.transport {
            Transport::Stdio { command, args, .. } => std::iter::once(command.as_str())
                .chain(args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
            Transport::Http { url, .. } => url.clone(),
        }
    }
}

/// The servers configured for a project, and the files or entries that could not be read.
#[derive(Debug, Clone, Default)]
pub struct Config {
    pub servers: Vec<Server>,
    pub problems: Vec<McpProblem>,
}

/// Whether an entry named `name` loads; what is wrong, in words, when it does not.
pub(crate) fn check_entry(name: &str, raw: &Value) -> Result<(), String> {
    parse_entry(name, raw).map(|_| ())
}

fn parse_entry(name: &str, raw: &Value) -> Result<(Transport, Option<u64>, bool), String> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
    {
        return Err("a server's name may use only letters, digits, _ - and .".into());
    }
    let e: Entry = serde_json::from_value(raw.clone()).map_err(|e| e.to_string())?;
    if let Some(kind) = e.kind.as_deref()
        && !matches!(
            kind,
            "stdio" | "http" | "streamable-http" | "streamableHttp"
        )
    {
        return Err(format!(
            "type {kind:?} is not supported; use a command (stdio) or a streamable-HTTP url"
        ));
    }
    let transport = match (e.command, e.url) {
        (Some(command), None) if !command.trim().is_empty() => Transport::Stdio {
            command,
            args: e.args,
            env: e.env,
            network: e.network,
        },
        (None, Some(url)) if url.starts_with("http://") || url.starts_with("https://") => {
            Transport::Http {
                url,
                headers: e.headers,
            }
        }
        (None, Some(url)) => return Err(format!("the url {url:?} is not http(s)")),
        (Some(_), Some(_)) => return Err("give either a command or a url, not both".into()),
        _ => return Err("give a command to run, or the url of a streamable-HTTP server".into()),
    };
    if e.timeout == Some(0) {
        return Err("timeout must be at least 1 second".into());
    }
    Ok((transport, e.timeout, e.disabled))
}

/// A configuration file's text (`None`: there is none). Opened without blocking and checked on
/// the descriptor: a named pipe put at `.tandem/mcp.json` would otherwise hang every start.
fn read_config(file: &Path) -> Result<Option<String>, String> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(file);
    let f = match opened {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
        Ok(f) => f,
    };
    let meta = f.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("it is not a regular file (a named pipe, socket or device); replace it with a JSON file".into());
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err("the file is too large (over 1 MB)".into());
    }
    let mut text = String::new();
    f.take(MAX_FILE_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| e.to_string())?;
    Ok(Some(text))
}

impl Config {
    /// The user's servers, then the project's. A project server named like one of the
    /// user's is left out: a repository cannot replace a server the user set up.
    pub fn load(user_file: &Path, project_root: &Path) -> Config {
        let mut config = Config::default();
        config.read(user_file, ExtensionOrigin::User);
        config.read(&project_root.join(PROJECT_FILE), ExtensionOrigin::Project);
        config
    }

    fn read(&mut self, file: &Path, origin: ExtensionOrigin) {
        let problem = |error: String| McpProblem {
            file: file.display().to_string(),
            error,
        };
        let text = match read_config(file) {
            Ok(None) => return,
            Ok(Some(t)) => t,
            Err(e) => {
                self.problems.push(problem(e));
                return;
            }
        };
        let parsed: File = match serde_json::from_str(&text) {
            Ok(f) => f,
            Err(e) => {
                self.problems.push(problem(e.to_string()));
                return;
            }
        };
        for (name, raw) in parsed.mcp_servers {
            if self.servers.iter().any(|s| s.name == name) {
                self.problems.push(problem(format!(
                    "{name}: a server of this name is already configured in your own mcp.json; this one is left out"
                )));
                continue;
            }
            match parse_entry(&name, &raw) {
                Ok((transport, timeout, disabled)) => self.servers.push(Server {
                    name,
                    origin,
                    file: file.to_path_buf(),
                    transport,
                    timeout,
                    disabled,
                    raw,
                }),
                Err(e) => self.problems.push(problem(format!("{name}: {e}"))),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_files_are_read_and_bad_entries_reported() {
        let dir = tempfile::tempdir().expect("tempdir");
        let user = dir.path().join("mcp.json");
        std::fs::write(
            &user,
            r#"{"mcpServers": {"files": {"command": "npx", "args": ["-y", "server-files"], "network": true, "alwaysAllow": []}}}"#,
        )
        .expect("write");
        let project = dir.path().join("p");
        std::fs::create_dir_all(project.join(".tandem")).expect("mkdir");
        std::fs::write(
            project.join(PROJECT_FILE),
            r#"{"mcpServers": {
                "files": {"command": "evil"},
                "remote": {"url": "https://example.com/mcp", "headers": {"X-Key": "k"}},
                "both": {"command": "a", "url": "http://b"},
                "old": {"type": "sse", "url": "http://c"},
                "bad name": {"command": "a"},
                "slow": {"command": "a", "timeout": 0}
            }}"#,
        )
        .expect("write");
        let c = Config::load(&user, &project);
        let names: Vec<(&str, ExtensionOrigin)> = c
            .servers
            .iter()
            .map(|s| (s.name.as_str(), s.origin))
            .collect();
        assert_eq!(
            names,
            vec![
                ("files", ExtensionOrigin::User),
                ("remote", ExtensionOrigin::Project)
            ]
        );
        assert_eq!(c.servers[0].target(), "npx -y server-files");
        assert!(matches!(
            c.servers[0].transport,
            Transport::Stdio { network: true, .. }
        ));
        let errors: Vec<&str> = c.problems.iter().map(|p| p.error.as_str()).collect();
        assert_eq!(errors.len(), 5, "{errors:#?}");
        for want in [
            "bad name: a server's name",
            "both: give either",
            "files: a server of this name is already configured",
            "old: type \"sse\" is not supported",
            "slow: timeout must be",
        ] {
            assert!(
                errors.iter().any(|e| e.starts_with(want)),
                "{want}: {errors:#?}"
            );
        }
        std::fs::write(&user, "{not json").expect("write");
        let c = Config::load(&user, &project);
        assert!(
            c.problems[0].error.contains("key must be a string"),
            "{:?}",
            c.problems
        );
        // A named pipe in its place is reported at once, not waited on.
        std::fs::remove_file(&user).expect("rm");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &user,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .expect("mkfifo");
        let c = Config::load(&user, &project);
        assert!(
            c.problems[0].error.contains("not a regular file"),
            "{:?}",
            c.problems
        );
    }
}
