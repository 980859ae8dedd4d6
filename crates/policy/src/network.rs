//! Commands that reach the network: programs that always do (`curl`, `ssh`, `nc`), and the
//! sub-commands of package managers and tools that do (`npm install`, `cargo fetch`,
//! `git push`). A networked command runs in the sandbox only with the network granted, which
//! the user gives (a rule, an approval); git's fetching sub-commands have a built-in rule.

use crate::shell::Word;

/// Programs whose purpose is the network, whatever their arguments.
const ALWAYS: &[&str] = &[
    "curl",
    "wget",
    "aria2c",
    "http",
    "https",
    "xh",
    "curlie",
    "ssh",
    "scp",
    "sftp",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "telnet",
    "ftp",
    "lftp",
    "tftp",
    "dig",
    "nslookup",
    "host",
    "drill",
    "whois",
    "ping",
    "ping6",
    "traceroute",
    "tracepath",
    "mtr",
    "nmap",
    "gh",
    "glab",
    "hub",
    "aws",
    "gcloud",
    "az",
    "gsutil",
    "s3cmd",
    "rclone",
    "kubectl",
    "helm",
    "doctl",
    "flyctl",
    "heroku",
    "vercel",
    "netlify",
    "wrangler",
    "svn",
    "http.server",
    "SimpleHTTPServer",
];

/// Sub-commands that reach the network, per program (the first word after the program and its
/// options).
const SUBCOMMANDS: &[(&str, &[&str])] = &[
    (
        "npm",
        &[
            "install",
            "i",
            "ci",
            "add",
            "update",
            "up",
            "upgrade",
            "publish",
            "unpublish",
            "view",
            "info",
            "show",
            "search",
            "login",
            "adduser",
            "audit",
            "outdated",
            "dist-tag",
            "deprecate",
            "owner",
            "access",
            "token",
            "ping",
            "doctor",
            "install-test",
            "it",
            "exec",
            "x",
        ],
    ),
    (
        "yarn",
        &[
            "install", "add", "upgrade", "up", "dlx", "npm", "publish", "info", "outdated",
            "audit", "login",
        ],
    ),
    (
        "pnpm",
        &[
            "install", "i", "add", "update", "up", "dlx", "publish", "audit", "outdated", "fetch",
            "info", "view",
        ],
    ),
    (
        "bun",
        &["install", "i", "add", "update", "upgrade", "x", "publish"],
    ),
    ("pip", &["install", "download", "search", "index"]),
    ("pip3", &["install", "download", "search", "index"]),
    ("pipx", &["install", "run", "upgrade", "inject"]),
    ("uv", &["sync", "add", "lock", "tool", "python"]),
    ("uvx", &[]),
    (
        "poetry",
        &["install", "add", "update", "lock", "publish", "self"],
    ),
    (
        "cargo",
        &[
            "install",
            "fetch",
            "update",
            "publish",
            "search",
            "login",
            "yank",
            "owner",
            "add",
            "vendor",
            "generate-lockfile",
        ],
    ),
    ("go", &["get", "install"]),
    (
        "gem",
        &["install", "update", "push", "fetch", "search", "sources"],
    ),
    ("bundle", &["install", "update", "add", "outdated"]),
    (
        "composer",
        &["install", "update", "require", "create-project"],
    ),
    (
        "apt",
        &[
            "install",
            "update",
            "upgrade",
            "full-upgrade",
            "dist-upgrade",
            "download",
            "source",
        ],
    ),
    (
        "apt-get",
        &[
            "install",
            "update",
            "upgrade",
            "dist-upgrade",
            "download",
            "source",
        ],
    ),
    ("dnf", &["install", "update", "upgrade", "download"]),
    ("yum", &["install", "update", "upgrade"]),
    (
        "brew",
        &["install", "update", "upgrade", "fetch", "tap", "search"],
    ),
    ("snap", &["install", "refresh"]),
    ("flatpak", &["install", "update"]),
    ("zypper", &["install", "in", "update", "up"]),
    ("apk", &["add", "update", "upgrade", "fetch"]),
    ("docker", &["pull", "push", "login", "search"]),
    ("podman", &["pull", "push", "login", "search"]),
    ("conda", &["install", "create", "update"]),
    ("mamba", &["install", "create", "update"]),
    (
        "rustup",
        &[
            "update",
            "install",
            "toolchain",
            "target",
            "component",
            "self",
        ],
    ),
    (
        "terraform",
        &["init", "plan", "apply", "destroy", "import", "refresh"],
    ),
    ("openssl", &["s_client", "s_server", "s_time", "ocsp"]),
    ("deno", &["install", "upgrade"]),
];

/// Whether the command reaches the network. git is judged in its own module.
pub fn wants(name: &str, words: &[Word]) -> bool {
    if ALWAYS.contains(&name) {
        return true;
    }
    let args: Vec<&str> = words.iter().skip(1).filter_map(Word::literal).collect();
    let sub = args.iter().find(|a| !a.starts_with('-')).copied();
    match name {
        // `yarn` alone installs; `uv pip install`, `go mod download` are two words deep.
        "yarn" if sub.is_none() => return true,
        "uv" if sub == Some("pip") => {
            return args
                .iter()
                .skip_while(|a| **a != "pip")
                .nth(1)
                .is_some_and(|s| matches!(*s, "install" | "download" | "sync" | "compile"));
        }
        "go" if sub == Some("mod") => {
            return args
                .iter()
                .skip_while(|a| **a != "mod")
                .nth(1)
                .is_some_and(|s| matches!(*s, "download" | "tidy"));
        }
        "rsync" => {
            return args
                .iter()
                .any(|a| a.starts_with("rsync://") || (!a.starts_with('-') && remote_operand(a)));
        }
        "php" => return args.iter().any(|a| a.starts_with("-S")),
        "pacman" => return args.iter().any(|a| a.starts_with("-S")),
        _ => {}
    }
    SUBCOMMANDS
        .iter()
        .find(|(p, _)| *p == name)
        .is_some_and(|(_, subs)| subs.is_empty() || sub.is_some_and(|s| subs.contains(&s)))
}

/// `host:path` or `user@host:path`, the way scp and rsync name another machine.
fn remote_operand(a: &str) -> bool {
    match a.split_once(':') {
        Some((host, _)) => !host.is_empty() && !host.contains('/'),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(s: &str) -> bool {
        let ws: Vec<Word> = s
            .split_whitespace()
            .map(|w| Word::Literal(w.into()))
            .collect();
        wants(ws[0].shown(), &ws)
    }

    #[test]
    fn networked_commands() {
        for c in [
            "curl https://x",
            "npm install",
            "npm ci",
            "pip install x",
            "uv pip install x",
            "uv sync",
            "cargo fetch",
            "go mod download",
            "rsync -a . host:/x",
            "openssl s_client -connect x:443",
            "yarn",
        ] {
            assert!(net(c), "{c}");
        }
        for c in [
            "npm test",
            "npm run build",
            "cargo test",
            "rsync -a src/ backup/",
            "ls",
            "go test ./...",
        ] {
            assert!(!net(c), "{c}");
        }
    }
}
