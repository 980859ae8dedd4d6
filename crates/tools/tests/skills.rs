//! Skills from disk: found in the project and the user's folder, broken ones reported and
//! skipped, and their tools run as programs — in the sandbox, with the model's values as whole
//! arguments that no shell reads.

use protocol::{Confinement, ExtensionOrigin};
use serde_json::json;
use std::path::{Path, PathBuf};
use tools::{CallContext, ProjectRoot, SandboxSetup, SkillSet, Toolbox, skill_argv};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

const WORD_COUNT: &str = r#"{
  "name": "word-count",
  "description": "Counts words in a file",
  "triggers": ["word count", "/\\bcount (the )?words\\b/"],
  "tools": [{
    "name": "count_words",
    "description": "Words in one file",
    "inputSchema": {"type": "object", "properties": {"file": {"type": "string"}}, "required": ["file"]},
    "run": ["wc", "-w", "{{file}}"]
  }]
}"#;

struct Fixture {
    _dir: tempfile::TempDir,
    base: PathBuf,
    project: PathBuf,
    user: PathBuf,
}

/// Under the build's temporary folder rather than /tmp, as a real project is.
fn fixture() -> Fixture {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
    let base = dir.path().canonicalize().expect("canonical");
    let project = base.join("project");
    let user = base.join("config/skills");
    std::fs::create_dir_all(&project).expect("mkdir");
    std::fs::create_dir_all(&user).expect("mkdir");
    Fixture {
        _dir: dir,
        base,
        project,
        user,
    }
}

fn secret(p: &Path) -> bool {
    p.file_name().is_some_and(|n| n == ".env")
}

#[test]
fn skills_are_found_and_broken_ones_reported_and_skipped() {
    let f = fixture();
    write(
        &f.project.join(".tandem/skills/word-count/skill.json"),
        WORD_COUNT,
    );
    write(
        &f.project.join(".tandem/skills/word-count/SKILL.md"),
        "Count with count_words.",
    );
    write(
        &f.project.join(".tandem/skills/broken/skill.json"),
        "{\"name\": \"broken\",",
    );
    write(
        &f.project.join(".tandem/skills/shell/skill.json"),
        r#"{"name": "shell", "description": "d", "tools": [{"name": "sh", "description": "d",
            "inputSchema": {"type": "object", "properties": {"p": {"type": "string"}}}, "run": ["{{p}}"]}]}"#,
    );
    write(
        &f.project.join(".tandem/skills/empty/README"),
        "no manifest",
    );
    // A SKILL.md that leads to a secret must never reach the prompt.
    write(&f.project.join(".env"), "TOKEN=LEAKED");
    write(
        &f.project.join(".tandem/skills/leaky/skill.json"),
        r#"{"name": "leaky", "description": "d"}"#,
    );
    std::os::unix::fs::symlink(
        "../../../.env",
        f.project.join(".tandem/skills/leaky/SKILL.md"),
    )
    .expect("link");
    // The user's skill of the same name wins over the repository's.
    write(
        &f.user.join("mine/skill.json"),
        r#"{"name": "word-count", "description": "the user's own", "triggers": ["tally"]}"#,
    );
    let root = ProjectRoot::open(&f.project)
        .expect("open")
        .hiding_secrets(secret);
    let set = SkillSet::discover(&root, Some(&f.user));
    let names: Vec<(&str, ExtensionOrigin)> = set
        .skills
        .iter()
        .map(|s| (s.name.as_str(), s.origin))
        .collect();
    assert_eq!(names, vec![("word-count", ExtensionOrigin::User)]);
    let problems: Vec<(String, &str)> = set
        .problems
        .iter()
        .map(|p| {
            (
                p.file
                    .trim_start_matches(&format!("{}/", f.project.display()))
                    .to_string(),
                p.error.as_str(),
            )
        })
        .collect();
    let expect = [
        (".tandem/skills/broken/skill.json", "EOF while parsing"),
        (".tandem/skills/empty/skill.json", "there is no skill.json"),
        (".tandem/skills/leaky/SKILL.md", "leads to a secret file"),
        (".tandem/skills/shell/skill.json", "cannot be a placeholder"),
        (
            ".tandem/skills/word-count/skill.json",
            "already loaded from",
        ),
    ];
    assert_eq!(problems.len(), expect.len(), "{problems:#?}");
    for ((file, error), (want_file, want)) in problems.iter().zip(expect) {
        assert_eq!(file, want_file);
        assert!(error.contains(want), "{file}: {error}");
    }
    assert!(
        !format!("{set:?}").contains("LEAKED"),
        "a secret was read into a skill"
    );
}

#[tokio::test]
async fn a_skill_tool_gets_the_models_value_as_one_argument_in_the_sandbox() {
    let helper = sandbox::find_helper()
        .expect("the tandem-sandbox helper is built (cargo build -p sandbox)");
    let f = fixture();
    write(
        &f.project.join(".tandem/skills/word-count/skill.json"),
        WORD_COUNT,
    );
    // A user skill runs its own script: the config folder is hidden from the sandbox, so the
    // skill's folder alone is shown, read-only, under /run/tandem.
    write(
        &f.user.join("echo/skill.json"),
        r#"{"name": "echo", "description": "d", "tools": [{"name": "args", "description": "d",
            "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
            "run": ["sh", "{{skill_dir}}/show.sh", "{{text}}"]}]}"#,
    );
    write(&f.user.join("echo/show.sh"), "printf '[%s]\\n' \"$@\"\n");
    let root = ProjectRoot::open(&f.project).expect("open");
    let set = SkillSet::discover(&root, Some(&f.user));
    assert!(set.problems.is_empty(), "{:?}", set.problems);

    let mut toolbox = Toolbox::new(root, f.base.join("session"));
    toolbox.commands.tmp_dir = f.base.join("session/tmp");
    toolbox.commands.sandbox = Some(
        SandboxSetup::new(helper, f.base.join("session/sandbox"), secret)
            .hiding(vec![f.base.join("config")]),
    );
    let sandboxed = Confinement::Sandboxed {
        network: false,
        read_only: false,
    };
    let ctx = CallContext {
        confinement: Some(sandboxed),
        ..CallContext::default()
    };
    let payload = "x; touch ../pwned";

    let wc = set.get("word-count").expect("skill");
    let dir = toolbox.skill_dir(wc, sandboxed);
    let argv = skill_argv(
        &wc.tools[0],
        &json!({"file": payload}),
        &dir.display().to_string(),
    )
    .expect("argv");
    let out = toolbox.run_skill_tool(wc, &argv, &ctx).await.expect("ran");
    assert!(
        out.text
            .contains("wc: 'x; touch ../pwned': No such file or directory"),
        "{}",
        out.text
    );
    assert_eq!(out.structured["confinement"]["kind"], "sandboxed");

    let echo = set.get("echo").expect("skill");
    let dir = toolbox.skill_dir(echo, sandboxed);
    assert!(!dir.starts_with(&f.user), "{}", dir.display());
    let argv = skill_argv(
        &echo.tools[0],
        &json!({"text": payload}),
        &dir.display().to_string(),
    )
    .expect("argv");
    let out = toolbox
        .run_skill_tool(echo, &argv, &ctx)
        .await
        .expect("ran");
    assert!(
        out.text.starts_with("[x; touch ../pwned]\n"),
        "{}",
        out.text
    );
    assert_eq!(out.structured["exit_code"], 0, "{}", out.text);

    for place in [&f.base, &f.project, &f.base.join("session/tmp")] {
        assert!(
            !place.join("pwned").exists(),
            "pwned in {}",
            place.display()
        );
    }
}

/// Issue 47: the seed's own example of a skill tool (no `run`) was refused as "missing field
/// `run`". It is refused with the line to add.
#[test]
fn a_skill_tool_without_run_is_refused_with_the_line_to_add() {
    let f = fixture();
    write(
        &f.project.join(".tandem/skills/deploy/skill.json"),
        r#"{"name": "deploy", "description": "Deploy the application",
            "triggers": ["deploy", "release", "ship"],
            "tools": [{"name": "deploy_staging", "description": "Deploy to staging environment",
              "inputSchema": {"type": "object", "properties": {"version": {"type": "string"}}}}]}"#,
    );
    let root = ProjectRoot::open(&f.project).expect("open");
    let set = SkillSet::discover(&root, Some(&f.user));
    assert_eq!(set.problems.len(), 1, "{:#?}", set.problems);
    let error = &set.problems[0].error;
    assert!(!error.contains("missing field"), "{error}");
    assert!(
        error.contains(r#""run": ["{{skill_dir}}/deploy_staging.sh", "{{version}}"]"#),
        "{error}"
    );
}
