//! What the model is told besides the conversation: the system prompt (with the project's
//! instruction file, read under the same confinement as `read_file`) and the tools it may call.

use protocol::{ContentBlock, Message};

/// Project instructions the model should follow, from the first of these files present.
const INSTRUCTION_FILES: &[&str] = &["AGENTS.md", "CLAUDE.md", ".tandem/instructions.md"];

/// Today's date (UTC) as YYYY-MM-DD.
fn today() -> String {
    crate::spend::day_of(config::locations::now_ms())
}

/// The most of an instruction file that goes into the system prompt.
const INSTRUCTIONS_CAP: usize = 32 * 1024;

pub(crate) fn system_prompt(root: &tools::ProjectRoot, sandboxed: bool) -> String {
    // What is the same in every project comes first, the project's folder and the date after:
    // a model on this machine keeps the shared beginning's KV cache between sessions.
    let mut s = String::from(
        "You are Tandem, a coding agent working in the user's project folder.\n\
         Work with the tools: read before you edit, keep changes small, run the project's tests when you change code. \
         Paths are relative to the project folder. Some calls need the user's approval; if one is refused, read why and adapt. \
         When the task is complete, call task_done with a short summary for the user.\n",
    );
    if sandboxed {
        s.push_str(
            "Commands run in a sandbox: they can change only the project folder and a private temporary folder ($TMPDIR), \
             cannot read secrets such as .env files and keys, and have no network unless the user granted it.\n",
        );
    }
    s.push_str(&format!(
        "The project folder is {} on {}. Today is {}.\n",
        root.path().display(),
        std::env::consts::OS,
        today()
    ));
    if let Some(listing) = top_level(root) {
        s.push_str(&listing);
    }
    if let Some(command) = test_command(root, &on_path) {
        s.push_str(&format!("To run the project's tests: `{command}`.\n"));
    }
    if let Some((name, text)) = instructions(root) {
        s.push_str(&format!("\nThe project's instructions ({name}):\n{text}\n"));
    }
    s
}

/// How this project's tests run, from its files: a model that guesses (`pytest` where it is
/// not installed) fails the check and gives up. The project's own `make test` first.
fn test_command(root: &tools::ProjectRoot, installed: &dyn Fn(&str) -> bool) -> Option<String> {
    // Only what the model could read itself decides the line: a link out of the project (a
    // cloned repository's `Cargo.toml` pointing elsewhere) counts as nothing there.
    let read = |f: &str| project_file(root, f, 256 * 1024);
    let inside = |f: &str| root.resolve(f).ok().map(|r| r.real);
    let is_file = |f: &str| inside(f).is_some_and(|p| p.is_file());
    if read("Makefile").is_some_and(|m| m.lines().any(|l| l.starts_with("test:"))) {
        return Some("make test".into());
    }
    if is_file("Cargo.toml") {
        return Some("cargo test".into());
    }
    if let Some(pkg) = read("package.json")
        && serde_json::from_str::<serde_json::Value>(&pkg)
            .ok()
            .is_some_and(|v| v["scripts"]["test"].is_string())
    {
        return Some("npm test".into());
    }
    if is_file("go.mod") {
        return Some("go test ./...".into());
    }
    let is_test_py = |name: &str| {
        name.ends_with(".py") && (name.starts_with("test_") || name.ends_with("_test.py"))
    };
    // A test file counts only where it is itself inside the project (not a link out of it).
    let has_test_py = |dir: &str| {
        inside(dir)
            .and_then(|d| std::fs::read_dir(d).ok())
            .is_some_and(|entries| {
                entries.flatten().any(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    let rel = if dir == "." {
                        name.clone()
                    } else {
                        format!("{dir}/{name}")
                    };
                    is_test_py(&name) && is_file(&rel)
                })
            })
    };
    if has_test_py(".") || has_test_py("tests") {
        return Some(if installed("pytest") {
            "python3 -m pytest".into()
        } else {
            "python3 -m unittest".into()
        });
    }
    None
}

/// Whether a program is on the PATH commands get.
fn on_path(program: &str) -> bool {
    tools::find_program(program, std::env::var_os("PATH").as_deref()).is_some()
}

/// The most entries of the project's top level the prompt lists.
const TOP_LEVEL_ENTRIES: usize = 60;

/// The project's top folder, as list_files shows it (.gitignore honoured, hidden files left
/// out): a model that sees `calc.py` there does not go looking for `src/calc.py`.
fn top_level(root: &tools::ProjectRoot) -> Option<String> {
    let listing = tools::list_files(
        root,
        &tools::ListFilesArgs {
            path: String::new(),
            recursive: false,
            pattern: None,
            hidden: false,
            limit: Some(TOP_LEVEL_ENTRIES as u32 + 1),
            include_ignored: false,
        },
    )
    .ok()?;
    if listing.entries.is_empty() {
        return Some("\nThe project folder is empty.\n".into());
    }
    let shown: Vec<String> = listing
        .entries
        .iter()
        .take(TOP_LEVEL_ENTRIES)
        .map(|e| match e.kind {
            protocol::EntryKind::Dir => format!("{}/", e.name),
            protocol::EntryKind::File => e.name.clone(),
        })
        .collect();
    let more = listing.entries.len() > TOP_LEVEL_ENTRIES || listing.omitted > 0;
    Some(format!(
        "\nAt the project's top level{}: {}\n",
        if more {
            " (the first entries; list_files shows all)"
        } else {
            ""
        },
        shown.join(", ")
    ))
}

/// The first instruction file present, read under the same confinement as `read_file`: a
/// link out of the project or to a secret is not followed (a cloned repository's `AGENTS.md`
/// may point at `~/.aws/credentials`), and a long file is cut.
fn instructions(root: &tools::ProjectRoot) -> Option<(&'static str, String)> {
    INSTRUCTION_FILES
        .iter()
        .find_map(|f| Some((*f, project_file(root, f, INSTRUCTIONS_CAP)?)))
}

/// A file of the project as `read_file` may read it: a link out of the project or to a secret
/// is not followed (a cloned repository decides what its files are), and a long file is cut
/// at `cap` bytes.
fn project_file(root: &tools::ProjectRoot, rel: &str, cap: usize) -> Option<String> {
    let resolved = root.resolve(rel).ok()?;
    if policy::is_secret(&resolved.real) || !resolved.real.is_file() {
        return None;
    }
    let mut text = String::new();
    // Opened as a regular file only: a named pipe named AGENTS.md would hang the session's start.
    let (file, _) = tools::open_regular(&resolved.real).ok()?;
    std::io::Read::read_to_string(&mut std::io::Read::take(file, cap as u64 + 1), &mut text)
        .ok()?;
    if text.len() > cap {
        let mut cut = cap;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str("\n[… the rest of the file was cut]");
    }
    Some(text)
}

/// A rough token count (four characters a token), enough to see the window filling up.
pub(crate) fn estimate_tokens(messages: &[Message]) -> u64 {
    let chars: usize = messages
        .iter()
        .flat_map(|m| &m.content)
        .map(|b| match b {
            ContentBlock::Text { text } => text.len(),
            ContentBlock::Thinking { thinking, .. } => thinking.len(),
            ContentBlock::ToolUse { input, .. } => input.to_string().len(),
            ContentBlock::ToolResult { content, .. } => content.len(),
            ContentBlock::Image { data, .. } | ContentBlock::Document { data, .. } => {
                data.len() / 10
            }
        })
        .sum();
    (chars / 4) as u64
}

/// The tokens a request's instructions and tool definitions take, estimated as the messages
/// are (four characters a token).
pub(crate) fn estimate_fixed(system: &str, tools: &[protocol::ToolDefinition]) -> u64 {
    let tools: usize = tools
        .iter()
        .map(|t| t.name.len() + t.description.len() + t.input_schema.to_string().len())
        .sum();
    ((system.len() + tools) / 4) as u64
}

/// What a small model is told besides the common prompt.
/// (Worded from watching the 1.5B model: told only "go step by step", it read the file, ran
/// the tests and finished without the edit; told what "make the code do X" means, it edited.)
pub(crate) const SMALL_MODEL_PROMPT: &str = "The user's message is a list of steps. Do every step, in order, one tool call per reply. To change a file, reply with its path on a line of its own and then the whole file in a fenced code block (```): every line as it must read after the change, the lines that stay exactly as they are now. After the last step, call task_done.\n";

#[cfg(test)]
mod tests {
    #[test]
    fn instruction_files_are_read_like_read_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let outside = dir.path().join("credentials");
        std::fs::write(&outside, "aws_secret_access_key = LEAKED").expect("write");
        let project = dir.path().join("p");
        std::fs::create_dir(&project).expect("mkdir");
        std::os::unix::fs::symlink(&outside, project.join("AGENTS.md")).expect("link");
        let root = tools::ProjectRoot::open(&project).expect("open");
        let prompt = super::system_prompt(&root, true);
        assert!(!prompt.contains("LEAKED"), "{prompt}");
        assert!(prompt.contains("Commands run in a sandbox"));

        // A link to a secret inside the project is not followed either.
        std::fs::remove_file(project.join("AGENTS.md")).expect("rm");
        std::fs::write(project.join(".env"), "TOKEN=LEAKED").expect("write");
        std::os::unix::fs::symlink(".env", project.join("AGENTS.md")).expect("link");
        assert!(!super::system_prompt(&root, false).contains("LEAKED"));

        // A real file is read, and a long one is cut.
        std::fs::remove_file(project.join("AGENTS.md")).expect("rm");
        let long = format!("Use tabs.\n{}", "x".repeat(100_000));
        std::fs::write(project.join("AGENTS.md"), long).expect("write");
        let prompt = super::system_prompt(&root, false);
        assert!(prompt.contains("Use tabs."));
        assert!(prompt.contains("the rest of the file was cut"));
        assert!(prompt.len() < 40_000);
    }

    #[test]
    fn the_prompt_says_how_the_projects_tests_run() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path();
        let root = tools::ProjectRoot::open(p).expect("open");
        let none = |_: &str| false;
        let all = |_: &str| true;
        assert_eq!(super::test_command(&root, &none), None);
        std::fs::write(p.join("calc.py"), "x").expect("write");
        assert_eq!(
            super::test_command(&root, &none),
            None,
            "code, but no tests"
        );
        std::fs::write(p.join("test_calc.py"), "x").expect("write");
        assert_eq!(
            super::test_command(&root, &none).as_deref(),
            Some("python3 -m unittest"),
            "pytest is not installed"
        );
        assert_eq!(
            super::test_command(&root, &all).as_deref(),
            Some("python3 -m pytest")
        );
        std::fs::write(p.join("package.json"), r#"{"scripts": {"test": "vitest"}}"#)
            .expect("write");
        assert_eq!(
            super::test_command(&root, &none).as_deref(),
            Some("npm test")
        );
        std::fs::write(p.join("Makefile"), "build:\n\ttrue\ntest: build\n\ttrue\n").expect("write");
        assert_eq!(
            super::test_command(&root, &none).as_deref(),
            Some("make test")
        );
        let root = tools::ProjectRoot::open(p).expect("open");
        assert!(
            super::system_prompt(&root, true).contains("To run the project's tests: `make test`.")
        );
    }

    /// A cloned repository cannot make the prompt claim a test command from a file outside
    /// it: a Makefile that links to another file with a `test:` line is not read, nor is a
    /// linked Cargo.toml, go.mod, test file or tests folder counted.
    #[test]
    fn a_linked_makefile_outside_the_project_is_not_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let outside = dir.path().join("other-Makefile");
        std::fs::write(&outside, "test:\n\ttouch ../pwned\n").expect("write");
        let project = dir.path().join("p");
        std::fs::create_dir(&project).expect("mkdir");
        std::os::unix::fs::symlink(&outside, project.join("Makefile")).expect("link");
        std::os::unix::fs::symlink(&outside, project.join("package.json")).expect("link");
        // Links out for every file that decides the line, and a `tests` folder that is a link
        // to a folder outside holding a test file.
        std::os::unix::fs::symlink(&outside, project.join("Cargo.toml")).expect("link");
        std::os::unix::fs::symlink(&outside, project.join("go.mod")).expect("link");
        std::os::unix::fs::symlink(&outside, project.join("test_x.py")).expect("link");
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).expect("mkdir");
        std::fs::write(elsewhere.join("test_y.py"), "x").expect("write");
        std::os::unix::fs::symlink(&elsewhere, project.join("tests")).expect("link");
        let root = tools::ProjectRoot::open(&project).expect("open");
        assert_eq!(super::test_command(&root, &|_: &str| false), None);
        assert!(!super::system_prompt(&root, true).contains("To run the project's tests"));
        for linked in ["Cargo.toml", "go.mod", "test_x.py", "tests"] {
            std::fs::remove_file(project.join(linked)).expect("rm");
        }
        // The same file inside the project is read.
        std::fs::remove_file(project.join("Makefile")).expect("rm");
        std::fs::copy(&outside, project.join("Makefile")).expect("copy");
        assert_eq!(
            super::test_command(&root, &|_: &str| false).as_deref(),
            Some("make test")
        );
    }

    /// The model is told what is at the project's top: a small one asked for `src/calc.py`
    /// when `calc.py` was at the root, and gave up on the error.
    #[test]
    fn the_prompt_names_the_top_level_without_ignored_or_hidden_files() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path();
        std::fs::create_dir(p.join("tests")).expect("mkdir");
        std::fs::write(p.join("calc.py"), "x").expect("write");
        std::fs::write(p.join(".env"), "SECRET=1").expect("write");
        std::fs::write(p.join("debug.log"), "x").expect("write");
        std::fs::write(p.join(".gitignore"), "*.log\n").expect("write");
        let root = tools::ProjectRoot::open(p).expect("open");
        let prompt = super::system_prompt(&root, true);
        assert!(
            prompt.contains("At the project's top level: tests/, calc.py"),
            "{prompt}"
        );
        let listed = prompt
            .lines()
            .find(|l| l.starts_with("At the project's top level"))
            .unwrap_or_default();
        assert!(
            !listed.contains("debug.log") && !listed.contains(".env"),
            "{listed}"
        );
        for i in 0..100 {
            std::fs::write(p.join(format!("f{i:03}.txt")), "x").expect("write");
        }
        let prompt = super::system_prompt(&root, true);
        assert!(
            prompt.contains("(the first entries; list_files shows all)"),
            "{prompt}"
        );
        assert!(!prompt.contains("f099.txt"), "{prompt}");
    }

    #[test]
    fn today_is_a_date() {
        let t = super::today();
        assert_eq!(t.len(), 10);
        assert!(t.starts_with("20"), "{t}");
        assert_eq!(&t[4..5], "-");
    }
}
