//! `tandem-cli skills` and `tandem-cli mcp list|approve` on real folders: skills listed with
//! their triggers and tools, broken ones reported with a non-zero exit; MCP servers started as
//! a session starts them (a project's only after `mcp approve`), shown with state and tools.

use std::path::{Path, PathBuf};
use std::process::Command;

struct Fixture {
    _dir: tempfile::TempDir,
    project: PathBuf,
    config: PathBuf,
    data: PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
    let base = dir.path().canonicalize().expect("canonical");
    let (project, config, data) = (base.join("project"), base.join("config"), base.join("data"));
    for d in [&project, &config, &data] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    Fixture {
        _dir: dir,
        project,
        config,
        data,
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn tandem_cli(f: &Fixture, args: &[&str]) -> (i32, String, String) {
    let mut with_project: Vec<&str> = args.to_vec();
    let project = f.project.display().to_string();
    with_project.extend(["--project", &project]);
    tandem_cli_as_is(f, &with_project)
}

fn tandem_cli_as_is(f: &Fixture, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tandem-cli"))
        .args(args)
        .env("TANDEM_CONFIG_DIR", &f.config)
        .env("TANDEM_DATA_DIR", &f.data)
        .env("TANDEM_NO_KEYCHAIN", "1")
        .output()
        .expect("run tandem-cli");
    test_support::ran(out)
}

const WORD_COUNT: &str = r#"{
  "name": "word-count",
  "description": "Counts the words of a file",
  "triggers": ["word count"],
  "tools": [{"name": "count_words", "description": "Words in one file",
    "inputSchema": {"type": "object", "properties": {"file": {"type": "string"}}, "required": ["file"]},
    "run": ["wc", "-w", "{{file}}"]}]
}"#;

#[test]
fn skills_are_listed_and_a_broken_one_fails_the_command() {
    let f = fixture();
    write(
        &f.project.join(".tandem/skills/word-count/skill.json"),
        WORD_COUNT,
    );
    write(
        &f.config.join("skills/mine/skill.json"),
        r#"{"name": "mine", "description": "My own"}"#,
    );
    let (code, out, err) = tandem_cli(&f, &["skills"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("word-count (this project: "), "{out}");
    assert!(out.contains("triggers: word count"), "{out}");
    assert!(
        out.contains("tool count_words: Words in one file  [runs: wc -w {{file}}]"),
        "{out}"
    );
    assert!(out.contains("mine (your own: "), "{out}");

    write(
        &f.project.join(".tandem/skills/broken/skill.json"),
        "{\"name\": 3}",
    );
    let (code, out, _) = tandem_cli(&f, &["skills"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("Broken skills (skipped):"), "{out}");
    assert!(
        out.contains(".tandem/skills/broken/skill.json: invalid type: integer `3`"),
        "{out}"
    );
    assert!(
        out.contains("word-count (this project"),
        "the others still load: {out}"
    );
    let (code, out, _) = tandem_cli(&f, &["skills", "--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["skills"].as_array().map(Vec::len), Some(2));
    assert_eq!(v["problems"][0]["origin"], "project");
}

fn tiny(marker: &str, extra: &[&str]) -> serde_json::Value {
    let server = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/mcp/tiny_server.py")
        .canonicalize()
        .expect("tiny server");
    let python = if Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    };
    let mut args = vec![
        server.display().to_string(),
        "--marker".into(),
        marker.into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    serde_json::json!({"command": python, "args": args})
}

#[test]
fn mcp_list_shows_state_and_tools_and_a_projects_server_waits_for_approval() {
    let f = fixture();
    write(
        &f.config.join("mcp.json"),
        &serde_json::json!({"mcpServers": {"tiny": tiny("mine.txt", &[])}}).to_string(),
    );
    write(
        &f.project.join(".tandem/mcp.json"),
        &serde_json::json!({"mcpServers": {"repo": tiny("repo.txt", &[])}}).to_string(),
    );
    let (code, out, err) = tandem_cli(&f, &["mcp", "list", "--wait", "30"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("tiny: running (your own; "), "{out}");
    assert!(out.contains("in the sandbox, no network)"), "{out}");
    assert!(
        out.contains("  tool tiny__echo: Says the text back."),
        "{out}"
    );
    assert!(
        out.contains("repo: waiting for your approval (this project; "),
        "{out}"
    );
    assert!(
        out.contains("approve it: tandem-cli mcp approve repo"),
        "{out}"
    );
    assert!(!out.contains("tool repo__"), "{out}");
    assert!(f.project.join("mine.txt").exists());
    assert!(
        !f.project.join("repo.txt").exists(),
        "the repository's program ran"
    );

    let (code, out, err) = tandem_cli(&f, &["mcp", "approve", "repo"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Approved repo"), "{out}");
    assert!(f.config.join(mcp::APPROVALS_FILE).exists());
    let (code, out, err) = tandem_cli(&f, &["mcp", "list", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["servers"][1]["name"], "repo");
    assert_eq!(v["servers"][1]["state"], "running");
    assert!(f.project.join("repo.txt").exists());
}

#[test]
fn a_server_that_cannot_start_is_listed_failed_with_its_stderr() {
    let f = fixture();
    write(
        &f.config.join("mcp.json"),
        &serde_json::json!({"mcpServers": {"broken": tiny("b.txt", &["--fail-start"])}})
            .to_string(),
    );
    let (code, out, err) = tandem_cli(&f, &["mcp", "list", "--wait", "60"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("broken: failed"), "{out}");
    assert!(out.contains("gave up on it"), "{out}");
    assert!(out.contains("its last stderr lines:"), "{out}");
    assert!(out.contains("the database is missing"), "{out}");
}

#[test]
fn a_skill_and_a_server_are_added_and_removed_without_writing_json() {
    let f = fixture();
    let picked = f.project.parent().expect("base").join("picked");
    write(&picked.join("skill.json"), WORD_COUNT);
    let folder = picked.display().to_string();
    let (code, out, err) = tandem_cli(&f, &["skills", "--add", &folder]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("Added the skill word-count."), "{err}");
    assert!(out.contains("word-count (your own: "), "{out}");
    assert!(f.config.join("skills/word-count/skill.json").exists());
    let (code, _, err) = tandem_cli(&f, &["skills", "--add", &folder]);
    assert_ne!(code, 0);
    assert!(
        err.contains("You already have a skill named word-count"),
        "{err}"
    );
    let (code, out, err) = tandem_cli(&f, &["skills", "--remove", "word-count"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("No skills."), "{out}");
    assert!(
        picked.join("skill.json").exists(),
        "the picked folder stays"
    );

    let tiny = tiny("added.txt", &[]);
    let line = std::iter::once(tiny["command"].as_str().expect("command"))
        .chain(
            tiny["args"]
                .as_array()
                .expect("args")
                .iter()
                .filter_map(|a| a.as_str()),
        )
        .collect::<Vec<_>>()
        .join(" ");
    let (code, out, err) = tandem_cli_as_is(&f, &["mcp", "add", "tiny", "--command", &line]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = tandem_cli(&f, &["mcp", "list", "--wait", "30"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("tiny: running (your own; "), "{out}");
    assert!(
        out.contains("  tool tiny__echo: Says the text back."),
        "{out}"
    );
    let (code, _, err) = tandem_cli_as_is(&f, &["mcp", "add", "web", "--url", "ftp://x"]);
    assert_ne!(code, 0);
    assert!(err.contains("not http(s)"), "{err}");
    let (code, out, err) = tandem_cli_as_is(&f, &["mcp", "remove", "tiny"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = tandem_cli(&f, &["mcp", "list"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("No MCP servers."), "{out}");
}
