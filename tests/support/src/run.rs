//! Programs run as the tests run them: the real binary or `git`, with what it printed and how
//! it ended.

use std::path::Path;

/// A finished program: its exit code (-1 when a signal ended it), stdout, stderr.
pub type Ran = (i32, String, String);

/// What a finished program printed, as text.
pub fn ran(out: std::process::Output) -> Ran {
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `cmd` to its end.
pub fn run(cmd: &mut std::process::Command) -> Ran {
    ran(cmd
        .output()
        .unwrap_or_else(|e| panic!("running {cmd:?}: {e}")))
}

/// Runs `cmd` to its end without holding up the runtime (a scripted server may be answering
/// it on the same one).
pub async fn run_async(cmd: &mut tokio::process::Command) -> Ran {
    ran(cmd
        .output()
        .await
        .unwrap_or_else(|e| panic!("running {cmd:?}: {e}")))
}

/// `tandem-cli ARGS` (the binary at `bin`) as someone with no settings of their own runs it
/// against the scripted model server: its data and config in `data`, the scripted key, no
/// input.
pub async fn tandem_cli_scripted(bin: &str, data: &Path, args: &[&str]) -> Ran {
    run_async(
        tokio::process::Command::new(bin)
            .args(args)
            .env("TANDEM_DATA_DIR", data)
            .env("XDG_CONFIG_HOME", data.join("config"))
            .env("ANTHROPIC_API_KEY", "scripted-key")
            .stdin(std::process::Stdio::null()),
    )
    .await
}

/// `tandem-cli SUBCOMMAND ARGS… --project DIR` (the binary at `bin`) with no user rules and
/// no keychain.
pub fn tandem_cli_in(bin: &str, subcommand: &str, project: &Path, args: &[&str]) -> Ran {
    run(std::process::Command::new(bin)
        .arg(subcommand)
        .args(args)
        .arg("--project")
        .arg(project)
        .env("XDG_CONFIG_HOME", project.join("no-user-config"))
        .env("TANDEM_NO_KEYCHAIN", "1"))
}

/// The arguments of `tandem-cli run` in `project` against the scripted Anthropic server at
/// `base_url` (model `scripted-model`), then `more` (approvals, the task).
pub fn scripted_run<'a>(project: &'a str, base_url: &'a str, more: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "run",
        "--project",
        project,
        "--provider",
        "anthropic",
        "--base-url",
        base_url,
        "--model",
        "scripted-model",
    ];
    args.extend_from_slice(more);
    args
}

/// `git ARGS` in `dir`, which must succeed; its stdout. Commits are made as "Tandem Test"
/// whatever the machine's own git identity (a fresh CI machine has none).
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=Tandem Test",
            "-c",
            "user.email=test@example.com",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("running git: {e}"));
    assert!(
        out.status.success(),
        "git {args:?} in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
