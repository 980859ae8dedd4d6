//! run_command and background tasks with real processes.

use protocol::{Confinement, OutsideReason};
use std::time::Duration;
use tools::{
    CommandConfig, CommandOutcome, Event, ProjectRoot, RunCommandArgs, RunContext, TaskRegistry,
    TaskState, Workspace, run_command,
};

/// These tests cover the runner itself; the sandbox has its own (sandbox_escapes.rs).
const OUTSIDE: Confinement = Confinement::Outside {
    reason: OutsideReason::Unavailable,
};

struct Env {
    _dir: tempfile::TempDir,
    _out: tempfile::TempDir,
    ws: Workspace,
    tasks: TaskRegistry,
    config: CommandConfig,
}

fn env() -> Env {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = tempfile::tempdir().expect("tempdir");
    let ws = Workspace::new(ProjectRoot::open(dir.path()).expect("open"));
    let mut config = CommandConfig::new(out.path().to_path_buf());
    config.timing.grace = Duration::from_secs(5);
    config.timing.kill_grace = Duration::from_millis(500);
    Env {
        _dir: dir,
        _out: out,
        ws,
        tasks: TaskRegistry::new(),
        config,
    }
}

fn args(command: &str) -> RunCommandArgs {
    RunCommandArgs {
        command: command.into(),
        description: None,
        timeout: None,
        background: false,
    }
}

fn alive(pid: &str) -> bool {
    std::path::Path::new(&format!("/proc/{}", pid.trim())).exists()
        && !std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()))
            .unwrap_or_default()
            .contains(") Z")
}

#[tokio::test]
async fn output_exit_code_and_the_project_folder() {
    let e = env();
    let out = run_command(
        &e.ws,
        &e.tasks,
        &e.config,
        &args("pwd; echo to-stderr >&2; exit 3"),
        &RunContext::new(OUTSIDE),
    )
    .await
    .expect("run");
    match &out {
        CommandOutcome::Finished {
            exit_code,
            timed_out,
            output,
            output_path,
            ..
        } => {
            assert_eq!(*exit_code, Some(3));
            assert!(!timed_out);
            assert!(
                output.contains(&e.ws.root().path().display().to_string()),
                "{output}"
            );
            assert!(output.contains("to-stderr"), "{output}");
            assert!(
                std::fs::read_to_string(output_path)
                    .expect("log")
                    .contains("to-stderr")
            );
        }
        other => panic!("{other:?}"),
    }
    let text = tools::render_outcome(&out);
    assert!(
        text.contains("[exit code 3;") && text.contains("full output:"),
        "{text}"
    );
    assert!(
        e.tasks.list(false).is_empty(),
        "a finished foreground command is not a background task"
    );
}

#[tokio::test]
async fn long_output_is_cut_to_head_and_tail_but_saved_whole() {
    let mut e = env();
    e.config.kept.head_lines = 3;
    e.config.kept.tail_lines = 2;
    let out = run_command(
        &e.ws,
        &e.tasks,
        &e.config,
        &args("seq 1 1000"),
        &RunContext::new(OUTSIDE),
    )
    .await
    .expect("run");
    let CommandOutcome::Finished {
        output,
        output_path,
        total_lines,
        ..
    } = out
    else {
        panic!("not finished")
    };
    assert_eq!(total_lines, 1000);
    assert!(
        output.starts_with("1\n2\n3\n… [995 lines cut; the full output is in "),
        "{output}"
    );
    assert!(output.ends_with("999\n1000\n"), "{output}");
    assert_eq!(
        std::fs::read_to_string(output_path)
            .expect("log")
            .lines()
            .count(),
        1000
    );
}

/// The saved output keeps at most the first and the last 5 MB with a marker between, and the
/// model's head and tail are read from it a line at a time. Before, 30 MB of output left a
/// 30 MB file and was read whole into memory (200 MB took the CLI to 619 MB).
#[tokio::test]
async fn a_huge_output_keeps_its_first_and_last_megabytes_and_says_what_was_cut() {
    let e = env();
    let command =
        "echo FIRST; head -c 30000000 /dev/zero | tr '\\0' x | fold -w 100; echo; echo LAST";
    let out = run_command(
        &e.ws,
        &e.tasks,
        &e.config,
        &args(command),
        &RunContext::new(OUTSIDE),
    )
    .await
    .expect("run");
    let text = tools::render_outcome(&out);
    let CommandOutcome::Finished {
        exit_code,
        output,
        output_path,
        bytes_total,
        bytes_kept,
        ..
    } = out
    else {
        panic!("not finished")
    };
    assert_eq!(exit_code, Some(0));
    // FIRST, 300,000 lines of 100 x joined by 299,999 newlines, the echo's newline, LAST.
    assert_eq!(bytes_total, 6 + 30_000_000 + 299_999 + 1 + 5);
    let limit = tools::KEPT_HEAD_BYTES + tools::KEPT_TAIL_BYTES as u64;
    assert!(bytes_kept <= limit, "{bytes_kept}");
    let size = std::fs::metadata(&output_path).expect("saved").len();
    assert!(size <= limit + 200, "the saved output is {size} bytes");
    let saved = std::fs::read(&output_path).expect("read");
    assert!(saved.starts_with(b"FIRST\n"));
    assert!(saved.ends_with(b"\nLAST\n"));
    let cut = bytes_total - bytes_kept;
    let marker = format!("… [{cut} bytes cut here: the command printed {bytes_total} bytes");
    assert!(
        String::from_utf8_lossy(&saved).contains(&marker),
        "no marker line {marker}"
    );
    assert!(output.starts_with("FIRST\n"), "{}", &output[..200]);
    assert!(output.ends_with("\nLAST\n"));
    assert!(output.lines().count() <= 201, "{}", output.lines().count());
    assert!(
        text.contains(&format!(
            "[The command printed {bytes_total} bytes (28.9 MB); the saved output keeps its start and its end, and {cut} bytes ("
        )) && text.contains(" MB) in the middle were cut."),
        "{}",
        &text[text.len() - 600..]
    );
}

/// A single line of 50 MB is cut in the file (its ends kept) and in what the model reads.
#[tokio::test]
async fn one_enormous_line_blows_up_neither_the_file_nor_the_model_text() {
    let e = env();
    let out = run_command(
        &e.ws,
        &e.tasks,
        &e.config,
        &args("head -c 50000000 /dev/zero | tr '\\0' y; echo END"),
        &RunContext::new(OUTSIDE),
    )
    .await
    .expect("run");
    let text = tools::render_outcome(&out);
    let CommandOutcome::Finished {
        output,
        output_path,
        bytes_total,
        ..
    } = out
    else {
        panic!("not finished")
    };
    assert_eq!(bytes_total, 50_000_004);
    let size = std::fs::metadata(&output_path).expect("saved").len();
    assert!(
        size <= 10 * 1024 * 1024 + 200,
        "the saved output is {size} bytes"
    );
    assert!(output.len() < 3 * tools::MAX_LINE_CHARS, "{}", output.len());
    assert!(output.contains("[line cut: "), "{output}");
    assert!(text.contains("in the middle were cut"), "{text}");
}

#[tokio::test]
async fn a_timeout_kills_the_whole_process_tree() {
    let e = env();
    let pidfile = e.ws.root().path().join("pid");
    let mut a = args("sleep 300 & echo $! > pid; trap '' TERM; sleep 300");
    a.timeout = Some(1);
    let out = run_command(&e.ws, &e.tasks, &e.config, &a, &RunContext::new(OUTSIDE))
        .await
        .expect("run");
    let CommandOutcome::Finished { timed_out, .. } = out else {
        panic!("not finished: {out:?}")
    };
    assert!(timed_out);
    let pid = std::fs::read_to_string(&pidfile).expect("pid");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!alive(&pid), "the grandchild {pid} survived");
}

#[tokio::test]
async fn background_tasks_poll_stop_and_wake_the_agent() {
    let mut e = env();
    e.config.timing.grace = Duration::from_millis(300);
    // Outlives the grace window: becomes a task.
    let out = run_command(
        &e.ws,
        &e.tasks,
        &e.config,
        &args("echo started; sleep 1; echo finished"),
        &RunContext::new(OUTSIDE),
    )
    .await
    .expect("run");
    let CommandOutcome::Background {
        task_id, so_far, ..
    } = out
    else {
        panic!("{out:?}")
    };
    // The seed's partial snapshot: what it printed before the grace window ended comes with
    // the result, and task_poll does not repeat it.
    assert_eq!(so_far, "started\n");
    assert_eq!(e.tasks.list(false).len(), 1);
    let (_, text, _) = e.tasks.poll(&task_id).expect("poll");
    assert!(!text.contains("started"), "{text}");
    match e.tasks.next_event(Duration::from_secs(10)).await {
        Some(Event::TaskFinished { id, state }) => {
            assert_eq!(id, task_id);
            assert_eq!(state, TaskState::Exited { code: Some(0) });
        }
        other => panic!("{other:?}"),
    }
    let (info, text, _) = e.tasks.poll(&task_id).expect("poll");
    assert_eq!(text, "finished\n", "only what arrived since the last poll");
    assert!(!info.state.is_running());

    // Asked for the background; stopped; stopping again is fine.
    let mut a = args("sleep 300");
    a.background = true;
    let out = run_command(&e.ws, &e.tasks, &e.config, &a, &RunContext::new(OUTSIDE))
        .await
        .expect("run");
    let CommandOutcome::Background { task_id, .. } = out else {
        panic!("{out:?}")
    };
    e.tasks.stop(&task_id).expect("stop");
    // Whoever stopped it knows: a stopped task does not wake the agent.
    assert_eq!(e.tasks.next_event(Duration::from_millis(800)).await, None);
    let stopped = e.tasks.list(true);
    assert!(
        stopped
            .iter()
            .any(|t| t.id == task_id && t.state == TaskState::Stopped),
        "{stopped:?}"
    );
    e.tasks.stop(&task_id).expect("stop again");
    assert!(
        e.tasks
            .stop("task-99")
            .expect_err("unknown")
            .contains("task_list")
    );
    assert_eq!(e.tasks.list(true).len(), 2);

    e.tasks
        .wakeup(Duration::from_millis(100), Some("check the build".into()));
    assert_eq!(
        e.tasks.next_event(Duration::from_secs(5)).await,
        Some(Event::Wakeup {
            hint: Some("check the build".into())
        })
    );
    assert_eq!(e.tasks.next_event(Duration::from_millis(50)).await, None);
}

#[tokio::test]
async fn commands_get_an_allow_listed_environment() {
    let mut e = env();
    // Cargo sets these for the test process: they are not on the allow-list.
    assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
    let out = run_command(
        &e.ws,
        &e.tasks,
        &e.config,
        &args(
            "echo \"[$CARGO_MANIFEST_DIR][$CARGO_PKG_NAME][${PATH:+path}][$GIT_TERMINAL_PROMPT]\"",
        ),
        &RunContext::new(OUTSIDE),
    )
    .await
    .expect("run");
    let CommandOutcome::Finished { output, .. } = out else {
        panic!("not finished")
    };
    assert_eq!(output, "[][][path][0]\n");
    // What the user adds in settings passes.
    e.config.env_extra.push("CARGO_PKG_NAME".into());
    let out = run_command(
        &e.ws,
        &e.tasks,
        &e.config,
        &args("echo \"[$CARGO_PKG_NAME]\""),
        &RunContext::new(OUTSIDE),
    )
    .await
    .expect("run");
    let CommandOutcome::Finished { output, .. } = out else {
        panic!("not finished")
    };
    assert_eq!(output, "[tools]\n");
}

#[tokio::test]
async fn bad_arguments_are_clear() {
    let e = env();
    assert!(
        run_command(
            &e.ws,
            &e.tasks,
            &e.config,
            &args("  "),
            &RunContext::new(OUTSIDE)
        )
        .await
        .is_err()
    );
    let mut a = args("true");
    a.timeout = Some(0);
    assert!(
        run_command(&e.ws, &e.tasks, &e.config, &a, &RunContext::new(OUTSIDE))
            .await
            .expect_err("zero")
            .to_string()
            .contains("at least 1 second")
    );
    assert_eq!(
        CommandConfig::new("/tmp".into()).timing.kill_grace,
        Duration::from_secs(5)
    );
    assert_eq!(
        CommandConfig::new("/tmp".into()).timing.grace,
        Duration::from_secs(10)
    );
}

/// A program that is not installed: the model hears so, and what to run instead.
#[tokio::test]
async fn a_missing_program_is_named_with_what_to_run_instead() {
    let e = env();
    let out = run_command(
        &e.ws,
        &e.tasks,
        &e.config,
        &args("tandem-no-such-program --version"),
        &RunContext::new(OUTSIDE),
    )
    .await
    .expect("run");
    let text = tools::render_outcome(&out);
    assert!(text.contains("[exit code 127;"), "{text}");
    assert!(
        text.contains("`tandem-no-such-program` is not installed here"),
        "{text}"
    );
    assert!(text.contains("command -v"), "{text}");
}

/// Issue 25: a command outliving the grace window returned only "now background task N"; it
/// now returns what it printed so far, and the seed's heartbeat flags a running task's new
/// output once per burst (task_poll, or having seen it, clears the flag).
#[tokio::test]
async fn a_long_command_shows_its_output_so_far_and_new_output_is_flagged_once() {
    let mut e = env();
    e.config.timing.grace = Duration::from_millis(300);
    let marker = e.ws.root().path().join("go-on");
    let command = format!(
        "echo compiling 1; echo compiling 2; while [ ! -e {} ]; do sleep 0.05; done; echo linking; sleep 300",
        marker.display()
    );
    let out = run_command(
        &e.ws,
        &e.tasks,
        &e.config,
        &args(&command),
        &RunContext::new(OUTSIDE),
    )
    .await
    .expect("run");
    let CommandOutcome::Background {
        task_id, so_far, ..
    } = &out
    else {
        panic!("{out:?}")
    };
    assert_eq!(so_far, "compiling 1\ncompiling 2\n");
    let text = tools::render_outcome(&out);
    assert!(
        text.starts_with("Its output so far:\ncompiling 1\ncompiling 2\n"),
        "{text}"
    );
    assert!(
        e.tasks.new_output().is_empty(),
        "nothing new since the snapshot"
    );

    std::fs::write(&marker, "").expect("write");
    let mut flagged = Vec::new();
    test_support::wait_until(
        "the new output to be flagged",
        Duration::from_secs(10),
        || {
            flagged = e.tasks.new_output();
            std::future::ready(!flagged.is_empty())
        },
    )
    .await
    .unwrap_or_else(|e| panic!("{e}: never flagged"));
    assert_eq!(flagged.len(), 1);
    assert_eq!(flagged[0].0.id, *task_id);
    assert_eq!(flagged[0].1, "linking\n".len() as u64);
    assert!(e.tasks.new_output().is_empty(), "flagged once");
    let (_, polled, _) = e.tasks.poll(task_id).expect("poll");
    assert_eq!(polled, "linking\n");
    e.tasks.stop(task_id).expect("stop");
}
