//! Adding and removing a server in an `mcp.json`, for Settings and `tandem-cli mcp add`: the
//! file's text in, the new text out (the caller writes it whole), everything else in the file
//! kept as written — other clients' fields, other servers, their order.

use crate::config::check_entry;
use serde_json::{Map, Value};

/// A server as a person adds it: a program with its arguments, or an address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NewServer {
    Program {
        command: String,
        args: Vec<String>,
        /// Whether its sandbox lets it reach the network.
        network: bool,
    },
    Address {
        url: String,
    },
}

impl NewServer {
    /// A command line as a person types it (`npx -y @scope/server --root .`), split the way a
    /// shell would split it — quotes kept together, nothing expanded or run.
    pub fn program_from_line(line: &str, network: bool) -> Result<NewServer, ConfigEditError> {
        let words = shlex::split(line).ok_or(ConfigEditError::CommandLine)?;
        let mut words = words.into_iter();
        let command = words
            .next()
            .filter(|c| !c.trim().is_empty())
            .ok_or(ConfigEditError::NoCommand)?;
        Ok(NewServer::Program {
            command,
            args: words.collect(),
            network,
        })
    }

    fn entry(&self) -> Value {
        let mut entry = Map::new();
        match self {
            NewServer::Program {
                command,
                args,
                network,
            } => {
                entry.insert("command".into(), Value::from(command.as_str()));
                entry.insert("args".into(), Value::from(args.clone()));
                if *network {
                    entry.insert("network".into(), Value::Bool(true));
                }
            }
            NewServer::Address { url } => {
                entry.insert("url".into(), Value::from(url.as_str()));
            }
        }
        Value::Object(entry)
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ConfigEditError {
    #[error("the command line has an unclosed quote; close it, or leave the quotes out")]
    CommandLine,
    #[error("give the program to run, e.g. npx -y @modelcontextprotocol/server-memory")]
    NoCommand,
    #[error("{0}")]
    Entry(String),
    #[error("a server named {0} is already set up; choose another name, or remove that one first")]
    Taken(String),
    #[error("there is no server named {0} in {1}")]
    Missing(String, String),
    #[error(
        "{file} is not a JSON object with mcpServers ({error}); fix it by hand first, nothing was changed"
    )]
    Unreadable { file: String, error: String },
}

fn servers_of<'a>(
    doc: &'a mut Value,
    file: &str,
) -> Result<&'a mut Map<String, Value>, ConfigEditError> {
    let unreadable = |error: &str| ConfigEditError::Unreadable {
        file: file.to_string(),
        error: error.to_string(),
    };
    let top = doc
        .as_object_mut()
        .ok_or_else(|| unreadable("it is not an object"))?;
    top.entry("mcpServers")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(|| unreadable("mcpServers is not an object"))
}

fn parse(text: Option<&str>, file: &str) -> Result<Value, ConfigEditError> {
    match text.map(str::trim).filter(|t| !t.is_empty()) {
        None => Ok(Value::Object(Map::new())),
        Some(t) => serde_json::from_str(t).map_err(|e| ConfigEditError::Unreadable {
            file: file.to_string(),
            error: e.to_string(),
        }),
    }
}

fn render(doc: &Value) -> String {
    // A Value always serialises; the fallback keeps the signature honest without a panic.
    serde_json::to_string_pretty(doc).unwrap_or_else(|_| "{}".into()) + "\n"
}

/// The file's text with one server added. `text` is the file as it is (`None`: there is none
/// yet); `file` names it in errors. The entry is checked as loading would check it, so what is
/// written always loads.
pub fn with_server_added(
    text: Option<&str>,
    file: &str,
    name: &str,
    server: &NewServer,
) -> Result<String, ConfigEditError> {
    let entry = server.entry();
    check_entry(name, &entry).map_err(ConfigEditError::Entry)?;
    let mut doc = parse(text, file)?;
    let servers = servers_of(&mut doc, file)?;
    if servers.contains_key(name) {
        return Err(ConfigEditError::Taken(name.to_string()));
    }
    servers.insert(name.to_string(), entry);
    Ok(render(&doc))
}

/// The file's text without the server `name`.
pub fn with_server_removed(
    text: Option<&str>,
    file: &str,
    name: &str,
) -> Result<String, ConfigEditError> {
    let mut doc = parse(text, file)?;
    let servers = servers_of(&mut doc, file)?;
    if servers.shift_remove(name).is_none() {
        return Err(ConfigEditError::Missing(name.to_string(), file.to_string()));
    }
    Ok(render(&doc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    #[test]
    fn an_added_server_loads_and_the_rest_of_the_file_is_kept() {
        let before = r#"{"mcpServers": {"files": {"command": "npx", "args": ["-y", "f"], "alwaysAllow": ["x"]}}, "other": 1}"#;
        let new =
            NewServer::program_from_line(r#"uvx "mcp server" --root '/a b'"#, true).expect("split");
        let after = with_server_added(Some(before), "mcp.json", "memory", &new).expect("add");
        let doc: Value = serde_json::from_str(&after).expect("json");
        assert_eq!(doc["other"], 1);
        assert_eq!(doc["mcpServers"]["files"]["alwaysAllow"][0], "x");
        assert_eq!(
            doc["mcpServers"]["memory"],
            serde_json::json!({"command": "uvx", "args": ["mcp server", "--root", "/a b"], "network": true})
        );
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("mcp.json");
        std::fs::write(&file, &after).expect("write");
        let config = Config::load(&file, dir.path());
        assert!(config.problems.is_empty(), "{:?}", config.problems);
        assert_eq!(config.servers.len(), 2);

        let removed = with_server_removed(Some(&after), "mcp.json", "files").expect("remove");
        let doc: Value = serde_json::from_str(&removed).expect("json");
        assert!(doc["mcpServers"].get("files").is_none());
        assert!(doc["mcpServers"].get("memory").is_some());
        assert_eq!(doc["other"], 1);
    }

    #[test]
    fn bad_additions_are_refused_and_name_what_to_do() {
        let none = with_server_added(
            None,
            "mcp.json",
            "web",
            &NewServer::Address {
                url: "https://example.com/mcp".into(),
            },
        )
        .expect("a first server makes the file");
        assert!(
            none.contains("\"url\": \"https://example.com/mcp\""),
            "{none}"
        );
        assert_eq!(
            with_server_added(
                Some(&none),
                "mcp.json",
                "web",
                &NewServer::Address {
                    url: "https://x".into()
                }
            ),
            Err(ConfigEditError::Taken("web".into()))
        );
        assert!(matches!(
            with_server_added(
                None,
                "mcp.json",
                "bad name",
                &NewServer::program_from_line("a", false).expect("split")
            ),
            Err(ConfigEditError::Entry(e)) if e.contains("letters, digits")
        ));
        assert!(matches!(
            with_server_added(None, "f", "w", &NewServer::Address { url: "ftp://x".into() }),
            Err(ConfigEditError::Entry(e)) if e.contains("not http(s)")
        ));
        assert_eq!(
            NewServer::program_from_line("npx 'oops", false),
            Err(ConfigEditError::CommandLine)
        );
        assert_eq!(
            NewServer::program_from_line("   ", false),
            Err(ConfigEditError::NoCommand)
        );
        assert!(matches!(
            with_server_added(
                Some("{not json"),
                "mcp.json",
                "w",
                &NewServer::Address {
                    url: "https://x".into()
                }
            ),
            Err(ConfigEditError::Unreadable { .. })
        ));
        assert_eq!(
            with_server_removed(Some(&none), "mcp.json", "nope"),
            Err(ConfigEditError::Missing("nope".into(), "mcp.json".into()))
        );
    }
}
