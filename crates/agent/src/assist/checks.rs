//! Checks: the commands that tell whether the work is right — a test suite, a build, a type
//! checker, a linter. The last one the agent ran decides whether a task_done that claims
//! success is contradicted (a failing test run before "all tests pass").

use policy::shell::{Word, parse};

/// A program and the first arguments that make it a check; an empty list: any use of it is.
struct Runner {
    program: &'static str,
    subcommands: &'static [&'static str],
}

const fn any(program: &'static str) -> Runner {
    Runner {
        program,
        subcommands: &[],
    }
}

const fn with(program: &'static str, subcommands: &'static [&'static str]) -> Runner {
    Runner {
        program,
        subcommands,
    }
}

const PACKAGE_SCRIPTS: &[&str] = &[
    "test",
    "t",
    "build",
    "lint",
    "check",
    "typecheck",
    "tsc",
    "vitest",
    "jest",
];

/// What runs checks. A package manager's `run` is followed to its script name (`npm run
/// test`), a Python module run to its module (`python -m pytest`).
const RUNNERS: &[Runner] = &[
    any("pytest"),
    any("py.test"),
    any("tox"),
    any("nox"),
    any("mypy"),
    any("pyright"),
    any("ruff"),
    any("flake8"),
    any("pylint"),
    any("jest"),
    any("vitest"),
    any("mocha"),
    any("tsc"),
    any("eslint"),
    any("rspec"),
    any("phpunit"),
    any("ctest"),
    any("make"),
    any("ninja"),
    with(
        "cargo",
        &["test", "build", "check", "clippy", "nextest", "t", "b", "c"],
    ),
    with("go", &["test", "build", "vet"]),
    with("npm", PACKAGE_SCRIPTS),
    with("pnpm", PACKAGE_SCRIPTS),
    with("yarn", PACKAGE_SCRIPTS),
    with("bun", PACKAGE_SCRIPTS),
    with("deno", &["test", "check", "lint"]),
    with("mvn", &["test", "verify", "package", "compile"]),
    with("gradle", &["test", "check", "build"]),
    with("./gradlew", &["test", "check", "build"]),
    with("dotnet", &["test", "build"]),
    with("swift", &["test", "build"]),
    with("mix", &["test", "compile"]),
    with("cmake", &["--build"]),
];

/// Options of those programs that take the next word as their value (a folder, a package).
const VALUE_OPTIONS: &[&str] = &[
    "--prefix",
    "-C",
    "--cwd",
    "--dir",
    "--filter",
    "-F",
    "--workspace",
    "-w",
    "--manifest-path",
    "--project",
    "-p",
];

/// Python modules that run checks (`python -m …`).
const PYTHON_MODULES: &[&str] = &[
    "pytest",
    "unittest",
    "mypy",
    "pyright",
    "ruff",
    "flake8",
    "pylint",
    "tox",
    "nox",
    "doctest",
    "compileall",
    "py_compile",
];

/// Words that run what follows them (`npx jest`, `bundle exec rspec`, `uv run pytest`).
const LAUNCHERS: &[(&str, &[&str])] = &[
    ("npx", &[]),
    ("bunx", &[]),
    ("uv", &["run"]),
    ("poetry", &["run"]),
    ("pipenv", &["run"]),
    ("bundle", &["exec"]),
    ("time", &[]),
    ("timeout", &[]),
    ("env", &[]),
];

/// True when `command` (a shell line) runs a check anywhere in it (`cd web && npm test`).
pub fn is_check(command: &str) -> bool {
    parse(command).commands.iter().any(|c| {
        let words: Vec<&str> = c.words.iter().filter_map(Word::literal).collect();
        runs_check(&words)
    })
}

fn is_python(program: &str) -> bool {
    let name = program.rsplit('/').next().unwrap_or(program);
    name == "python"
        || name
            .strip_prefix("python")
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

fn runs_check(words: &[&str]) -> bool {
    let Some((&program, rest)) = words.split_first() else {
        return false;
    };
    let name = program.rsplit('/').next().unwrap_or(program);
    // Skip what launches the real program: its own options, and a value that is not one.
    if let Some((_, then)) = LAUNCHERS.iter().find(|(l, _)| *l == name) {
        let mut rest = rest;
        if let Some((first, after)) = rest.split_first()
            && then.contains(first)
        {
            rest = after;
        }
        let start = rest
            .iter()
            .position(|w| !w.starts_with('-') && !w.contains('=') && w.parse::<f64>().is_err())
            .unwrap_or(rest.len());
        return runs_check(rest.get(start..).unwrap_or_default());
    }
    if is_python(program) {
        return match rest.iter().position(|w| *w == "-m") {
            Some(i) => rest
                .get(i + 1)
                .is_some_and(|m| PYTHON_MODULES.contains(&m.split('.').next().unwrap_or(m))),
            // A script named as a test: `python test_calc.py`, `python calc_test.py`.
            None => rest.iter().find(|w| !w.starts_with('-')).is_some_and(|s| {
                let file = s.rsplit('/').next().unwrap_or(s);
                file.ends_with(".py") && (file.starts_with("test") || file.ends_with("_test.py"))
            }),
        };
    }
    // Node's own test runner, or a script named as a test (`node --test`, `node test.js`).
    if name == "node" || (name == "deno" && rest.first() == Some(&"run")) {
        return rest.contains(&"--test")
            || rest
                .iter()
                .find(|w| !w.starts_with('-') && **w != "run")
                .is_some_and(|s| named_as_test(s, &[".js", ".mjs", ".cjs", ".ts"]));
    }
    // A shell script named as a test: `bash test.sh`, `sh tests/run_tests.sh`, `./test.sh`.
    if matches!(name, "bash" | "sh" | "zsh" | "dash") {
        return rest
            .iter()
            .find(|w| !w.starts_with('-'))
            .is_some_and(|s| named_as_test(s, &[".sh", ".bash", ""]));
    }
    if program.contains('/') && named_as_test(program, &[".sh", ".bash", ""]) {
        return true;
    }
    let Some(runner) = RUNNERS
        .iter()
        .find(|r| r.program == program || r.program == name)
    else {
        return false;
    };
    if runner.subcommands.is_empty() {
        return true;
    }
    // The first word that is not an option (nor an option's value) names what it does
    // (`cargo +nightly test`, `npm run test:unit`, `npm --prefix web test`).
    let mut args = rest.iter().enumerate().filter_map(|(i, w)| {
        let after_value_option = i
            .checked_sub(1)
            .and_then(|p| rest.get(p))
            .is_some_and(|o| VALUE_OPTIONS.contains(o));
        (!w.starts_with('-') && !w.starts_with('+') && !after_value_option).then_some(w)
    });
    match args.next() {
        Some(&"run") if matches!(name, "npm" | "pnpm" | "yarn" | "bun") => {
            args.next().is_some_and(|script| {
                let base = script.split(':').next().unwrap_or(script);
                runner.subcommands.contains(&base)
            })
        }
        Some(sub) => runner.subcommands.contains(sub),
        None => false,
    }
}

/// Whether a script's file name says it runs tests: `test.sh`, `test_calc.js`, `run_tests.sh`,
/// `calc.test.js`, `calc_test.sh`, with one of `extensions` (`""`: none).
fn named_as_test(path: &str, extensions: &[&str]) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    extensions.iter().any(|ext| {
        let Some(stem) = file.strip_suffix(ext) else {
            return false;
        };
        if ext.is_empty() && stem.contains('.') {
            return false;
        }
        stem.starts_with("test")
            || stem.ends_with("_test")
            || stem.ends_with(".test")
            || stem.ends_with("_tests")
            || stem == "run_tests"
    })
}

/// The outcome of the last check a run of the agent made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckRun {
    pub command: String,
    /// None when it was killed (its timeout, a signal).
    pub exit_code: Option<i32>,
    pub passed: bool,
}

/// Lines of a failing check's output shown in a step back.
const ASSERTION_LINES: usize = 8;

/// The lines of a check's output that say what failed: assertions, errors, expected and
/// received values. The last of them, since a test runner ends with its summary.
pub(crate) fn failing_lines(output: &str) -> Vec<&str> {
    const MARKS: &[&str] = &[
        "assert", "Error", "error:", "error[", "FAIL", "expected", "Expected", "Received",
        "panicked", "!=", "not ok",
    ];
    let found: Vec<&str> = output
        .lines()
        .map(str::trim_end)
        .filter(|l| MARKS.iter().any(|m| l.contains(m)))
        .map(|l| {
            let cut = l.char_indices().nth(200).map_or(l.len(), |(i, _)| i);
            &l[..cut]
        })
        .collect();
    let mut out: Vec<&str> = Vec::new();
    for l in found.iter().rev() {
        if !out.contains(l) {
            out.push(l);
        }
        if out.len() == ASSERTION_LINES {
            break;
        }
    }
    out.reverse();
    out
}

/// The commands in backticks in a task that are checks, in the order written.
pub(crate) fn named_in(task: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (i, quoted) in task.split('`').enumerate() {
        let command = quoted.trim();
        // Every second piece is inside backticks; a fenced block's language line is not a
        // command, nor is anything over one line.
        if i % 2 == 1
            && !command.is_empty()
            && !command.contains('\n')
            && is_check(command)
            && !out.iter().any(|c| c == command)
        {
            out.push(command.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checks_a_task_names_are_those_in_backticks() {
        assert_eq!(
            named_in("Fix it. Run `python3 -m pytest -q` then `npm test`; see `calc.py`."),
            ["python3 -m pytest -q", "npm test"]
        );
        assert_eq!(named_in("No backticks: run pytest."), Vec::<String>::new());
    }

    #[test]
    fn checks_are_test_build_and_lint_runs() {
        for c in [
            "pytest -q",
            "python3 -m pytest tests/",
            "python -m unittest -q test_list",
            "python3 test_calc.py",
            "cargo test -p tools",
            "cargo +nightly clippy --all-targets",
            "npm test",
            "npm run test:unit",
            "npm --prefix ui run lint",
            "cd ui && npx vitest run",
            "go test ./...",
            "make",
            "make check",
            "uv run pytest",
            "bundle exec rspec",
            "timeout 60 cargo build",
            "CI=1 npm test",
            "pytest | tail -5",
            "./gradlew test",
            // Found by make bench-agent: a failing `node --test` before task_done went
            // unremarked.
            "node --test",
            "node --test tests/",
            "node test.js",
            "node calc.test.js",
            "bash test.sh",
            "sh tests/run_tests.sh",
            "./test.sh",
            "./scripts/test",
        ] {
            assert!(is_check(c), "{c} is a check");
        }
    }

    #[test]
    fn other_commands_are_not() {
        for c in [
            "ls -la",
            "python3 calc.py",
            "python3 -m http.server",
            "cargo run",
            "npm install",
            "npm run dev",
            "git status",
            "cat test_calc.py",
            "echo cargo test",
            "go run .",
            "npx prettier --write .",
            "node server.js",
            "bash greet.sh Ada",
            "./build.sh",
            "sh -c 'echo hi'",
        ] {
            assert!(!is_check(c), "{c} is not a check");
        }
    }
}
