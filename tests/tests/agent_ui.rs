//! The desktop experience end to end: the real app, driven through WebDriver, against the
//! scripted model server on loopback. A task is typed, the answer streams in, an edit is
//! reviewed hunk by hunk (one accepted, one rejected: the file holds exactly the accepted one),
//! a command is denied with a message, a background command is stopped from the task list, and
//! after a restart the session is reopened. Screenshots of each step go to `target/e2e/`.

use e2e::thirtyfour::prelude::*;
use e2e::{App, TestResult, commit_all, preflight, write};
use model_server::{Scenario, ScriptedServer};
use std::cell::Cell;
use std::future::ready;
use std::path::{Path, PathBuf};
use std::time::Duration;
use test_support::wait_until;

/// A git repository holding a 20-line list.
fn list_project() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("tandem-e2e-agent-")
        .tempdir()
        .expect("tempdir");
    let body: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    write(dir.path(), "list.txt", body.as_bytes());
    commit_all(&git2::Repository::init(dir.path()).expect("git init"));
    dir
}

/// A fixture project, throwaway config and data folders, and a scripted Anthropic-format model
/// server the app is pointed at through TANDEM_PROVIDER / TANDEM_BASE_URL / TANDEM_MODEL.
struct Scripted {
    binary: std::path::PathBuf,
    project: tempfile::TempDir,
    config: tempfile::TempDir,
    data: tempfile::TempDir,
    server: ScriptedServer,
}

impl Scripted {
    /// None when the end-to-end tests are skipped on purpose.
    async fn start(scenario_file: &str) -> TestResult<Option<Scripted>> {
        let Some(binary) = preflight() else {
            return Ok(None);
        };
        Ok(Some(Scripted {
            binary,
            project: list_project(),
            config: tempfile::tempdir()?,
            data: tempfile::tempdir()?,
            server: ScriptedServer::start(Scenario::named(scenario_file)).await?,
        }))
    }

    /// [`Scripted::start`] with the scenario's `@NAME@` placeholders filled in.
    async fn start_with(
        scenario_file: &str,
        vars: &[(&str, String)],
    ) -> TestResult<Option<Scripted>> {
        let Some(binary) = preflight() else {
            return Ok(None);
        };
        Ok(Some(Scripted {
            binary,
            project: list_project(),
            config: tempfile::tempdir()?,
            data: tempfile::tempdir()?,
            server: ScriptedServer::start(Scenario::named_with(scenario_file, vars)).await?,
        }))
    }

    /// Launches the app on the project (again, after a quit: same folders, same server).
    async fn launch(&self, extra_env: &[(&str, &str)]) -> TestResult<App> {
        let root = self.project.path().display().to_string();
        let data = self.data.path().display().to_string();
        let mut env = vec![
            ("TANDEM_PROVIDER", "anthropic"),
            ("TANDEM_BASE_URL", self.server.base_url()),
            ("TANDEM_MODEL", "claude-sonnet-4-5"),
            ("ANTHROPIC_API_KEY", "scripted-key"),
            ("TANDEM_DATA_DIR", data.as_str()),
        ];
        env.extend_from_slice(extra_env);
        App::launch_with_env(
            &self.binary,
            &["--project", &root],
            self.config.path(),
            &env,
        )
        .await
    }
}

/// SIGKILLs every process of `binary` whose data folder is `data` (a crash, for the test).
fn kill_apps_using(binary: &std::path::Path, data: &std::path::Path) -> TestResult {
    let binary = std::fs::canonicalize(binary)?;
    let needle = format!("TANDEM_DATA_DIR={}", data.display());
    for entry in std::fs::read_dir("/proc")? {
        let dir = entry?.path();
        let Some(pid) = dir
            .file_name()
            .and_then(|n| n.to_str())
            .filter(|n| n.chars().all(|c| c.is_ascii_digit()))
            .map(str::to_string)
        else {
            continue;
        };
        let exe = std::fs::read_link(dir.join("exe")).ok();
        let environ = std::fs::read(dir.join("environ")).unwrap_or_default();
        let ours = environ
            .split(|b| *b == 0)
            .any(|var| var == needle.as_bytes());
        if exe.as_deref() == Some(binary.as_path()) && ours {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid])
                .status();
        }
    }
    Ok(())
}

/// The session logs of `dir` a process holds (the app locks the log it writes).
fn held_logs(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut held = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            let file = std::fs::OpenOptions::new().append(true).open(&path)?;
            if file.try_lock().is_err() {
                held.push(path);
            }
        }
    }
    Ok(held)
}

/// Waits until no process holds a session log of `dir`.
async fn wait_until_logs_unlocked(dir: &Path) -> TestResult {
    // The last look; one that fails ends the wait with its error.
    let mut looked = Ok(Vec::new());
    let unlocked = wait_until(
        "the session logs to be let go",
        Duration::from_secs(60),
        || {
            looked = held_logs(dir);
            ready(looked.as_ref().map_or(true, Vec::is_empty))
        },
    )
    .await;
    let held = looked?;
    assert!(unlocked.is_ok(), "still locked after 60 s: {held:?}");
    Ok(())
}

/// Types a message in the composer and sends it.
async fn send(app: &App, text: &str) -> TestResult {
    app.wait_for("[data-testid=composer-input]")
        .await?
        .send_keys(text)
        .await?;
    app.wait_for("[data-testid=send-button]")
        .await?
        .click()
        .await?;
    Ok(())
}

/// The whole text of an element (`textContent`: collapsed results included; a virtualised
/// list holds only the rows near the view).
async fn text_content(app: &App, css: &str) -> TestResult<String> {
    let v = app
        .driver
        .execute(
            "const t = document.querySelector(arguments[0]); return t ? t.textContent : '';",
            vec![serde_json::json!(css)],
        )
        .await?;
    Ok(v.json().as_str().unwrap_or("").to_string())
}

async fn wait_content(app: &App, css: &str, needle: &str) -> TestResult<String> {
    // The last look; one that fails ends the wait with its error.
    let looked: Cell<TestResult<String>> = Cell::new(Ok(String::new()));
    let came = wait_until(
        &format!("`{css}` to show {needle:?}"),
        Duration::from_secs(20),
        || async {
            let text = text_content(app, css).await;
            let done = text.as_ref().map_or(true, |t| t.contains(needle));
            looked.set(text);
            done
        },
    )
    .await;
    let text = looked.into_inner()?;
    came.map_err(|_| format!("`{css}` never showed {needle:?}; it shows {text:?}"))?;
    Ok(text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_reviewed_hunk_by_hunk_a_command_denied_a_task_stopped_and_the_session_reopened()
-> TestResult {
    let Some(s) = Scripted::start("app_review_deny_stop.json").await? else {
        return Ok(());
    };
    let app = s.launch(&[]).await?;

    // The task, typed and sent.
    send(&app, "Rename two entries in list.txt").await?;
    app.wait_text(
        "[data-testid=message-user]",
        "Rename two entries in list.txt",
    )
    .await?;
    // The streamed answer. Whether it is rendered as Markdown is checked after the reopen, when
    // the renderer has had the whole task to load: once, on a busy CI machine, the bold had not
    // appeared 15 s after the text (cause not found; the message stays mounted under the
    // approval card). A renderer that cannot load now shows the plain text and is logged.
    app.wait_text(
        "[data-testid=message-assistant]",
        "then rename the two entries",
    )
    .await?;

    // The edit: two hunks; reject the second, accept the first.
    app.wait_text("[data-testid=approval-card]", "list.txt")
        .await?;
    app.wait_count("[data-testid=hunk-reject]", 2).await?;
    // The diff editor replaces the plain diffs at the same height now (the near-edits test
    // measures it); before, the card grew then and a click landed on a moved button once,
    // under load. A person clicks once the card has settled, and so does the test.
    app.wait_gone("[data-testid=diff-loading]").await?;
    let rejects = app.wait_count("[data-testid=hunk-reject]", 2).await?;
    let accepts = app.all("[data-testid=hunk-accept]").await?;
    assert_eq!(
        (rejects.len(), accepts.len()),
        (2, 2),
        "one accept and one reject per hunk"
    );
    app.screenshot("agent-01-edit-approval").await?;
    // The native window title counts the waiting approval. The last look is the answer; one
    // that cannot run xdotool ends the wait with its error.
    let mut titled = Ok(false);
    let _ = wait_until(
        "the window title to count the waiting approval",
        Duration::from_secs(5),
        || {
            titled = std::process::Command::new("xdotool")
                .args(["search", "--name", r"^\(1\) tandem-e2e-agent-.* — Tandem$"])
                .output()
                .map(|found| found.status.success() && !found.stdout.is_empty());
            ready(!matches!(titled, Ok(false)))
        },
    )
    .await;
    assert!(
        titled?,
        "the window title should start with (1) while an approval waits"
    );
    wait_content(&app, "[data-testid=session-item]", "Waiting for you").await?;
    rejects[1].click().await?;
    accepts[0].click().await?;
    assert_eq!(
        app.attrs("[data-testid=hunk]", "data-state").await?,
        ["accepted", "rejected"]
    );
    app.screenshot("agent-02-second-hunk-rejected").await?;
    app.wait_for("[data-testid=approve-button]")
        .await?
        .click()
        .await?;

    // The command: denied with a message.
    app.wait_text("[data-testid=approval-card]", "touch deploy.marker")
        .await?;
    let on_disk = std::fs::read_to_string(s.project.path().join("list.txt"))?;
    let expected: String = (1..=20)
        .map(|i| match i {
            2 => "line two\n".to_string(),
            _ => format!("line {i}\n"),
        })
        .collect();
    assert_eq!(
        on_disk, expected,
        "the file holds exactly the accepted hunk"
    );
    // The edit's card says in words what was kept (what the model was told, "rejected hunks
    // [1]", is checked by the scripted server and folded under the card's Details).
    wait_content(&app, "[data-testid=transcript]", "You kept 1 of 2 changes").await?;
    app.wait_for("[data-testid=deny-message]")
        .await?
        .send_keys("Not now, deploy later")
        .await?;
    app.screenshot("agent-03-command-deny-with-message").await?;
    app.wait_for("[data-testid=deny-button]")
        .await?
        .click()
        .await?;
    assert!(
        !s.project.path().join("deploy.marker").exists(),
        "a denied command must not run"
    );

    // The background command: approved, then stopped from the task list.
    app.wait_text("[data-testid=approval-card]", "time.sleep(300)")
        .await?;
    app.wait_for("[data-testid=approve-button]")
        .await?
        .click()
        .await?;
    wait_content(
        &app,
        "[data-testid=transcript]",
        "stop it from the task list",
    )
    .await?;
    app.wait_gone("[data-testid=approval-card]").await?;
    wait_content(
        &app,
        "[data-testid=transcript]",
        "You said no: “Not now, deploy later”",
    )
    .await?;
    app.wait_for("[data-testid=task-item][data-kind=task]")
        .await?;
    app.screenshot("agent-04-task-running").await?;
    let list = wait_content(&app, "[data-testid=task-list]", "A long wait").await?;
    assert!(list.contains("running"), "{list:?}");
    app.screenshot("agent-04-task-running").await?;
    app.wait_for("[data-testid=task-item][data-kind=task] [data-testid=task-stop]")
        .await?
        .click()
        .await?;
    wait_content(&app, "[data-testid=task-list]", "stopped").await?;
    let meter = app.wait_text("[data-testid=cost-meter]", "$").await?;
    assert!(!meter.trim().is_empty());
    app.screenshot("agent-05-task-stopped").await?;
    app.quit().await?;

    // After a restart, the session is listed and reopens with its transcript.
    let app = s.launch(&[]).await?;
    if let Ok(tab) = app.driver.find(By::Css("[data-testid=sessions-tab]")).await {
        tab.click().await?;
    }
    let item = app.wait_for("[data-testid=session-item]").await?;
    let row = text_content(&app, "[data-testid=session-item]").await?;
    assert!(row.contains("Rename two entries"), "{row:?}");
    item.click().await?;
    // textContent: the virtualised transcript measures a row before showing it.
    wait_content(
        &app,
        "[data-testid=message-user]",
        "Rename two entries in list.txt",
    )
    .await?;
    wait_content(
        &app,
        "[data-testid=transcript]",
        "stop it from the task list",
    )
    .await?;
    app.screenshot("agent-06-session-reopened").await?;
    // The first answer, scrolled back to, is rendered as Markdown (the bold is not shown as
    // asterisks).
    scroll_transcript_to_top(&app, "then rename the two entries").await?;
    app.wait_for("[data-testid=message-assistant] strong")
        .await?;
    // The answer with the bold in it: the list's first rendered answer may be another one,
    // whichever rows the virtualised list keeps after measuring.
    let said = app
        .wait_text(
            "[data-testid=message-assistant]:has(strong)",
            "then rename the two entries",
        )
        .await?;
    assert!(!said.contains("**"), "markdown was not rendered: {said:?}");
    app.quit().await?;
    Ok(())
}

/// Scrolls the transcript to its top, as a user dragging the scrollbar would, until `needle`
/// is in it: rows still being measured right after opening can pull the list back to its end
/// once, so the user tries again, as people do. Returns how many tries it took.
async fn scroll_transcript_to_top(app: &App, needle: &str) -> TestResult<u32> {
    let mut tries = 0;
    loop {
        tries += 1;
        app.driver
            .execute(
                "const s = document.querySelector('[data-testid=transcript] .transcript-list'); s.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true })); s.scrollTop = 0; window.dispatchEvent(new PointerEvent('pointerup'));",
                Vec::new(),
            )
            .await?;
        tokio::time::sleep(Duration::from_millis(300)).await;
        if text_content(app, "[data-testid=transcript]")
            .await?
            .contains(needle)
            || tries == 3
        {
            break;
        }
    }
    wait_content(app, "[data-testid=transcript]", needle).await?;
    Ok(tries)
}

/// The first-run screen's built-in card in the real window: with the model file already in the
/// data folder (here the tiny test model under the default name), one click makes it the model
/// in use, saved as `kind = "builtin"`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn first_run_uses_the_built_in_model_once_its_file_is_there() -> TestResult {
    let Some(binary) = preflight() else {
        return Ok(());
    };
    let home = std::env::var_os("HOME")
        .map(std::path::PathBuf::from)
        .unwrap_or_default();
    let tiny = std::env::var_os("TANDEM_TINY_MODEL")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| home.join(".cache/tandem-test-models/SmolLM2-135M-Instruct.Q4_1.gguf"));
    assert!(
        tiny.exists(),
        "{} is missing: run scripts/fetch-model.sh tiny",
        tiny.display()
    );
    let project = list_project();
    let root = project.path().display().to_string();
    let config = tempfile::tempdir()?;
    let data = e2e::data_dir_with_model(&tiny)?;
    let data_dir = data.path().display().to_string();
    let app = App::launch_with_env(
        &binary,
        &["--project", &root],
        config.path(),
        &[("TANDEM_DATA_DIR", data_dir.as_str())],
    )
    .await?;
    app.wait_for("[data-testid=builtin-card]").await?;
    app.wait_text("[data-testid=builtin-card]", "is downloaded")
        .await?;
    app.screenshot("first-run-builtin").await?;
    app.wait_for("[data-testid=builtin-use]")
        .await?
        .click()
        .await?;
    app.wait_for("[data-testid=project-view]").await?;
    let saved = std::fs::read_to_string(config.path().join("settings.toml"))?;
    assert!(saved.contains("kind = \"builtin\""), "{saved}");
    assert!(saved.contains("provider = \"builtin\""), "{saved}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn first_run_connects_a_local_server_and_saves_it_in_settings() -> TestResult {
    let Some(binary) = preflight() else {
        return Ok(());
    };
    let project = list_project();
    let root = project.path().display().to_string();
    let config = tempfile::tempdir()?;
    let data = tempfile::tempdir()?;
    let server = ScriptedServer::start(Scenario::from_json(
        r#"{"name": "a local server that only lists its models", "format": "openai", "turns": [], "models": ["qwen2.5-coder:7b", "llama3.2:3b"]}"#,
    )?)
    .await?;
    let data_dir = data.path().display().to_string();
    // No provider preset and no settings: the first-run screen comes first.
    let app = App::launch_with_env(
        &binary,
        &["--project", &root],
        config.path(),
        &[("TANDEM_DATA_DIR", data_dir.as_str())],
    )
    .await?;
    app.wait_for("[data-testid=first-run]").await?;
    app.screenshot("first-run-01").await?;
    let url = manual_address(&app).await?;
    url.clear().await?;
    url.send_keys(server.base_url()).await?;
    app.wait_for("[data-testid=manual-connect]")
        .await?
        .click()
        .await?;
    app.wait_text(".manual-server", "qwen2.5-coder:7b").await?;
    app.screenshot("first-run-02-models-listed").await?;
    app.wait_for("[data-testid=manual-use]")
        .await?
        .click()
        .await?;
    app.wait_for("[data-testid=project-view]").await?;
    let saved = std::fs::read_to_string(config.path().join("settings.toml"))?;
    assert!(saved.contains(server.base_url()), "{saved}");
    assert!(
        saved.contains("llama3.2:3b") || saved.contains("qwen2.5-coder:7b"),
        "{saved}"
    );
    assert!(
        !saved.contains("key"),
        "no key is ever written to settings: {saved}"
    );
    app.wait_for("[data-testid=settings-button]")
        .await?
        .click()
        .await?;
    app.wait_for("[data-testid=settings-view]").await?;
    let values = app
        .driver
        .execute(
            "return Array.from(document.querySelectorAll('[data-testid=settings-view] input')).map(i => i.value).join(' ');",
            Vec::new(),
        )
        .await?;
    let values = values.json().as_str().unwrap_or("").to_string();
    assert!(
        values.contains(server.base_url()),
        "the provider is listed: {values:?}"
    );
    app.screenshot("settings-providers").await?;
    // The rules in force, each with where it came from.
    app.wait_for("[data-testid=settings-tab-rules]")
        .await?
        .click()
        .await?;
    wait_content(
        &app,
        "[data-testid=settings-view]",
        "Files Tandem never reads or changes",
    )
    .await?;
    app.screenshot("settings-rules").await?;
    app.quit().await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_cut_short_by_the_app_dying_shows_interrupted_and_continues() -> TestResult {
    let Some(s) = Scripted::start("app_interrupted_then_resumed.json").await? else {
        return Ok(());
    };
    let app = s.launch(&[]).await?;
    send(&app, "Start a long task").await?;
    app.wait_text("[data-testid=message-user]", "Start a long task")
        .await?;
    // The app goes away while the model is still thinking. Closed through WebDriver, its
    // process outlived the window on a loaded machine (holding the session's log for over a
    // minute): what is left of it is killed, as a crash would end it.
    app.quit().await?;
    kill_apps_using(&s.binary, s.data.path())?;
    wait_until_logs_unlocked(&s.data.path().join("sessions")).await?;

    let app = s.launch(&[]).await?;
    app.wait_for("[data-testid=sessions-tab]")
        .await?
        .click()
        .await?;
    let row = wait_content(&app, "[data-testid=session-item]", "Start a long task").await?;
    assert!(row.to_lowercase().contains("interrupted"), "{row:?}");
    app.screenshot("agent-07-interrupted-session").await?;
    app.wait_for("[data-testid=session-item]")
        .await?
        .click()
        .await?;
    app.wait_text("[data-testid=message-user]", "Start a long task")
        .await?;
    wait_content(
        &app,
        "[data-testid=transcript]",
        "Tandem closed before this turn finished",
    )
    .await?;
    send(&app, "Please continue").await?;
    wait_content(
        &app,
        "[data-testid=transcript]",
        "Picking up where we left off.",
    )
    .await?;
    let row = wait_content(&app, "[data-testid=session-item]", "Ended").await?;
    assert!(!row.to_lowercase().contains("interrupted"), "{row:?}");
    app.quit().await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_edit_changes_show_in_the_changes_panel_and_the_plan_in_the_task_list() -> TestResult {
    let Some(s) = Scripted::start("app_auto_edit_changes.json").await? else {
        return Ok(());
    };
    let app = s.launch(&[("GTK_THEME", "Adwaita:dark")]).await?;
    let mode = app.wait_for("[data-testid=mode-select]").await?;
    mode.click().await?;
    app.wait_for("[data-testid=mode-select] option[value=auto_edit]")
        .await?
        .click()
        .await?;
    send(&app, "Tidy the list").await?;
    wait_content(
        &app,
        "[data-testid=transcript]",
        "Renamed line 3 and added NOTES.md.",
    )
    .await?;
    assert!(
        app.all("[data-testid=approval-card]").await?.is_empty(),
        "auto edit asks nothing for edits inside the project"
    );
    // The plan, as update_plan left it.
    let plan = app
        .wait_count("[data-testid=task-item][data-kind=plan]", 2)
        .await?;
    assert_eq!(plan.len(), 2);
    wait_content(&app, "[data-testid=task-list]", "Add a NOTES.md").await?;
    app.screenshot("agent-08-plan-dark").await?;
    // Every file the session changed, against its start.
    app.wait_for("[data-testid=changes-tab]")
        .await?
        .click()
        .await?;
    let items = app.wait_count("[data-testid=change-item]", 2).await?;
    let all = text_content(&app, "[data-testid=changes-panel]").await?;
    assert!(
        all.contains("list.txt") && all.contains("NOTES.md"),
        "{all:?}"
    );
    items[0].click().await?;
    app.wait_for("[data-testid=change-diff]").await?;
    app.screenshot("agent-09-changes-dark").await?;
    assert_eq!(
        std::fs::read_to_string(s.project.path().join("NOTES.md"))?,
        "# Notes\n\n- line 3 is now spelled out.\n"
    );
    app.quit().await?;
    Ok(())
}

/// Issue 44: a command works on a layer of the project; when it ends its card lists what it
/// changed (a click shows the diff), and a file that would make VS Code run code stays out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commands_changes_show_on_its_card_and_in_the_changes_panel() -> TestResult {
    let Some(s) = Scripted::start("app_command_changes.json").await? else {
        return Ok(());
    };
    let app = s.launch(&[]).await?;
    app.choose_full_auto().await?;
    send(&app, "Run the tidy script").await?;
    // Full auto lands the project's files; the file VS Code would run is asked, saying why,
    // and starts rejected.
    let risky = app
        .wait_for("[data-testid=review-file][data-class=runs_code]")
        .await?;
    assert_eq!(risky.attr("data-state").await?.as_deref(), Some("rejected"));
    let why = text_content(&app, "[data-testid=review-risk]").await?;
    assert!(why.contains("VS Code runs what it names"), "{why:?}");
    assert_eq!(
        app.wait_for("[data-testid=approve-button]")
            .await?
            .text()
            .await?,
        "Reject all changes"
    );
    app.screenshot("agent-15a-command-risky-review").await?;
    app.click("[data-testid=approve-button]").await?;
    wait_content(
        &app,
        "[data-testid=transcript]",
        "The script renamed line 3 and added NOTES.md.",
    )
    .await?;
    let rows = app.wait_count("[data-testid=command-change]", 3).await?;
    let mut texts = Vec::new();
    for r in &rows {
        texts.push(r.text().await?);
    }
    assert!(
        texts
            .iter()
            .any(|t| t.contains("list.txt") && t.contains("+1") && t.contains("−1")),
        "{texts:?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t.contains("NOTES.md") && t.contains("new")),
        "{texts:?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t.contains(".vscode") && t.contains("rejected")),
        "{texts:?}"
    );
    assert!(!s.project.path().join(".vscode").exists());
    assert_eq!(
        std::fs::read_to_string(s.project.path().join("NOTES.md"))?,
        "# Notes\n"
    );
    app.screenshot("agent-15-command-changes").await?;
    // The diff is a click away, in the Changes panel.
    let list_row = app
        .wait_for("[data-testid=command-change][data-fate=landed]")
        .await?;
    list_row.click().await?;
    app.wait_for("[data-testid=change-diff]").await?;
    let panel = text_content(&app, "[data-testid=changes-panel]").await?;
    assert!(
        panel.contains("list.txt") && panel.contains("NOTES.md"),
        "{panel:?}"
    );
    app.screenshot("agent-16-command-changes-panel").await?;
    app.quit().await?;
    Ok(())
}

/// Issue 44: in Ask mode a command runs without a question, over a copy of the project; what
/// it changed is the question, file by file and hunk by hunk. One hunk rejected: the file
/// lands with the other; the Changes panel has what landed, and Undo takes it back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commands_changes_are_reviewed_with_one_hunk_rejected_and_undone() -> TestResult {
    let Some(s) = Scripted::start("app_command_review.json").await? else {
        return Ok(());
    };
    let list = s.project.path().join("list.txt");
    let before = std::fs::read_to_string(&list)?;
    let app = s.launch(&[]).await?;
    send(&app, "Tidy the list").await?;
    app.wait_for("[data-testid=approval-card] [data-testid=command-review]")
        .await?;
    // It has run, and nothing of it is in the project yet.
    assert_eq!(std::fs::read_to_string(&list)?, before);
    assert!(!s.project.path().join("NOTES.md").exists());
    app.wait_count("[data-testid=review-file]", 2).await?;
    let paths = app.attrs("[data-testid=review-file]", "data-path").await?;
    assert_eq!(paths, ["NOTES.md", "list.txt"]);
    app.wait_count(
        "[data-testid=review-file][data-path='list.txt'] [data-testid=hunk]",
        2,
    )
    .await?;
    app.wait_for("[data-testid=review-file] .cm-editor").await?;
    app.screenshot("agent-30-command-review").await?;
    let rejects = app
        .all("[data-testid=review-file][data-path='list.txt'] [data-testid=hunk-reject]")
        .await?;
    rejects
        .get(1)
        .ok_or("the second hunk's reject button")?
        .click()
        .await?;
    app.wait_text("[data-testid=approve-button]", "Keep 2 of 3 changes")
        .await?;
    app.screenshot("agent-31-command-review-one-rejected")
        .await?;
    app.click("[data-testid=approve-button]").await?;
    wait_content(
        &app,
        "[data-testid=transcript]",
        "Spelled out line 2 and started NOTES.md.",
    )
    .await?;
    let now = std::fs::read_to_string(&list)?;
    assert!(now.contains("line two\n"), "{now}");
    assert!(
        now.contains("line 19\n") && !now.contains("nineteen"),
        "{now}"
    );
    assert_eq!(
        std::fs::read_to_string(s.project.path().join("NOTES.md"))?,
        "# Notes\n"
    );
    // The Changes panel has what landed; Undo takes it back.
    app.wait_for("[data-testid=changes-tab]")
        .await?
        .click()
        .await?;
    app.wait_count("[data-testid=change-item]", 2).await?;
    app.screenshot("agent-32-command-review-changes").await?;
    app.click("[data-testid=undo-button]").await?;
    // Undo previews first (issue 46): nothing goes back until it is confirmed.
    app.wait_for("[data-testid=restore-preview][data-ready=true]")
        .await?;
    app.click("[data-testid=undo-confirm]").await?;
    app.wait_for("[data-testid=restored]").await?;
    app.wait_gone("[data-testid=change-item]").await?;
    assert_eq!(std::fs::read_to_string(&list)?, before);
    assert!(!s.project.path().join("NOTES.md").exists());
    // Settings keep the old way for who wants it: asked before every command.
    app.click("[data-testid=settings-button]").await?;
    app.click("[data-testid=settings-tab-rules]").await?;
    app.wait_for("[data-testid=commands-review]:checked")
        .await?;
    app.screenshot("agent-33-commands-setting").await?;
    app.quit().await?;
    Ok(())
}

/// Issue 44: a background command's changes so far are reviewed from its task card while it
/// goes on running; what the person keeps is in the project before it ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_commands_changes_are_reviewed_from_its_task_card() -> TestResult {
    let Some(s) = Scripted::start("app_background_review_now.json").await? else {
        return Ok(());
    };
    let list = s.project.path().join("list.txt");
    let app = s.launch(&[]).await?;
    send(&app, "Start the dev server").await?;
    // Ask mode: a command nobody waits on is asked about before it starts.
    app.wait_text("[data-testid=approval-card]", "sleep 300")
        .await?;
    app.click("[data-testid=approve-button]").await?;
    wait_content(
        &app,
        "[data-testid=transcript]",
        "The dev server runs in the background.",
    )
    .await?;
    let waiting = app
        .wait_text("[data-testid=task-changes-so-far]", "2 changes so far")
        .await?;
    assert!(waiting.contains("not in the project yet"), "{waiting}");
    assert!(!s.project.path().join("status.txt").exists());
    app.screenshot("agent-34-task-changes-so-far").await?;
    // Issue 46, item 8: the running command's card still names it beside its summary (a long
    // summary squeezed the title to nothing).
    let width = app
        .driver
        .execute(
            "const c = [...document.querySelectorAll('[data-testid=tool-card]')] \
               .find(e => e.textContent.includes('status.txt')); \
             const t = c && c.querySelector('.tool-title'); \
             return t && t.textContent.includes('printf') ? t.getBoundingClientRect().width : 0;",
            vec![],
        )
        .await?;
    let width = width.json().as_f64().unwrap_or(0.0);
    assert!(width > 100.0, "the command's title is {width}px wide");
    app.click("[data-testid=task-review-now]").await?;
    app.wait_for("[data-testid=approval-card] [data-testid=command-review]")
        .await?;
    app.wait_count("[data-testid=review-file]", 2).await?;
    let paths = app.attrs("[data-testid=review-file]", "data-path").await?;
    assert_eq!(paths, ["status.txt", "list.txt"]);
    app.screenshot("agent-35-task-review-now").await?;
    app.click("[data-testid=approve-button]").await?;
    wait_content(
        &app,
        "[data-testid=transcript]",
        "Both changes are in the project now",
    )
    .await?;
    assert_eq!(
        std::fs::read_to_string(s.project.path().join("status.txt"))?,
        "built\n"
    );
    assert!(std::fs::read_to_string(&list)?.contains("line two\n"));
    // It still runs, with nothing left to review; then stopped.
    let state = text_content(
        &app,
        "[data-testid=task-item][data-kind=task] [data-testid=task-state]",
    )
    .await?;
    assert_eq!(state, "running");
    app.wait_gone("[data-testid=task-changes-so-far]").await?;
    app.click("[data-testid=task-stop]").await?;
    wait_content(&app, "[data-testid=task-list]", "stopped").await?;
    app.quit().await?;
    Ok(())
}

/// Issue 23: `@` in the composer lists the project's files; the one picked goes in the message
/// and the model has its contents before its first step.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_picked_after_an_at_reaches_the_model_with_the_message() -> TestResult {
    let Some(s) = Scripted::start("app_at_attachment.json").await? else {
        return Ok(());
    };
    let app = s.launch(&[]).await?;
    let input = app.wait_for("[data-testid=composer-input]").await?;
    input.send_keys("How many lines has @li").await?;
    app.wait_for("[data-testid=mention-list] [data-testid=mention-option]")
        .await?;
    app.screenshot("agent-19-attach-with-at").await?;
    assert_eq!(
        text_content(&app, "[data-testid=mention-list]").await?,
        "list.txt"
    );
    input.send_keys("\u{E007}").await?; // Enter: picks the file, does not send
    assert_eq!(
        input.prop("value").await?.as_deref(),
        Some("How many lines has @list.txt ")
    );
    assert!(app.all("[data-testid=mention-list]").await?.is_empty());
    app.wait_for("[data-testid=send-button]")
        .await?
        .click()
        .await?;
    wait_content(
        &app,
        "[data-testid=transcript]",
        "list.txt has twenty lines",
    )
    .await?;
    // The read shows in the transcript as the model's own would.
    wait_content(&app, "[data-testid=transcript]", "list.txt").await?;
    app.quit().await?;
    Ok(())
}

/// A task that names its check in backticks, and a task_done before it ran: sent back once,
/// then shown as done with the warning in words.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_done_before_the_named_check_ran_says_so_in_the_window() -> TestResult {
    let Some(s) = Scripted::start("app_check_not_run.json").await? else {
        return Ok(());
    };
    let app = s.launch(&[]).await?;
    send(&app, "Check list.txt. Run `bash test.sh` to check.").await?;
    app.wait_for("[data-testid=done-summary][data-kind=warning]")
        .await?;
    assert_eq!(
        app.attrs("[data-testid=done-warning]", "data-kind").await?,
        ["check_not_run"]
    );
    let said = text_content(&app, "[data-testid=done-warning]").await?;
    assert!(
        said.contains("did not run after the last change") && said.contains("bash test.sh"),
        "{said:?}"
    );
    app.screenshot("agent-20-check-not-run").await?;
    app.quit().await?;
    Ok(())
}

/// Issue 48, in the real window: a small model behind a local server writes the file the task
/// names whole; the person approves the write, the check the task names runs as Tandem's own
/// step (no model step asked to run it, none to finish), and the task ends done in Tandem's
/// words with the check passing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_small_models_draft_is_checked_by_tandem_and_the_task_ends_when_it_passes() -> TestResult
{
    let Some(s) = Scripted::start("app_small_model_draft_checked.json").await? else {
        return Ok(());
    };
    write(
        s.project.path(),
        "calc.py",
        b"def add(a, b):\n    return a - b\n",
    );
    write(
        s.project.path(),
        "test_calc.py",
        b"import unittest\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n",
    );
    let app = s
        .launch(&[
            ("TANDEM_PROVIDER", "openai"),
            ("TANDEM_MODEL", "qwen2.5-coder:1.5b"),
        ])
        .await?;
    send(
        &app,
        "Fix add in calc.py. Run `python3 -B -m unittest -q` to check.",
    )
    .await?;
    // The draft's write, asked about like any write (Ask mode).
    app.wait_text("[data-testid=approval-card]", "calc.py")
        .await?;
    app.wait_gone("[data-testid=diff-loading]").await?;
    both_sizes(&app, "draft-01-write", (1280, 800)).await?;
    click_in_place(&app, &app.wait_for("[data-testid=approve-button]").await?).await?;
    // The check is a known test run the sandbox holds: the rules let it run unasked.
    app.wait_for("[data-testid=done-summary][data-kind=done]")
        .await?;
    assert!(
        app.all("[data-testid=approval-card]").await?.is_empty(),
        "only the write asked"
    );
    let said = app
        .wait_text("[data-testid=done-summary]", "Changed calc.py")
        .await?;
    assert!(
        said.contains("Changed calc.py") && said.contains("python3 -B -m unittest -q passes"),
        "{said:?}"
    );
    let transcript = text_content(&app, "[data-testid=transcript]").await?;
    assert!(
        transcript.contains("python3 -B -m unittest -q"),
        "the check's card: {transcript:?}"
    );
    assert_eq!(
        std::fs::read_to_string(s.project.path().join("calc.py"))?,
        "def add(a, b):\n    return a + b\n"
    );
    assert_eq!(s.server.requests().len(), 1, "one model step: the draft");
    assert!(s.server.failures().is_empty(), "{:?}", s.server.failures());
    both_sizes(&app, "draft-02-done", (1280, 800)).await?;
    app.quit().await?;
    Ok(())
}

/// Issue 48, in the real window: the small model's first draft gives the file back unchanged;
/// the check the task names runs (its failing card shown), its report brings the draft again,
/// whose write the person approves, and the task ends done — no tool step that circles.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unchanged_first_draft_runs_the_check_and_the_repair_lands_in_the_window() -> TestResult
{
    let Some(s) = Scripted::start("app_small_model_unchanged_draft.json").await? else {
        return Ok(());
    };
    write(
        s.project.path(),
        "calc.py",
        b"def add(a, b):\n    return a - b\n",
    );
    write(
        s.project.path(),
        "test_calc.py",
        b"import unittest\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n",
    );
    let app = s
        .launch(&[
            ("TANDEM_PROVIDER", "openai"),
            ("TANDEM_MODEL", "qwen2.5-coder:1.5b"),
        ])
        .await?;
    send(
        &app,
        "Fix add in calc.py. Run `python3 -B -m unittest -q` to check.",
    )
    .await?;
    // The repair's write, asked about after the failing check.
    app.wait_text("[data-testid=approval-card]", "calc.py")
        .await?;
    app.wait_gone("[data-testid=diff-loading]").await?;
    let transcript = text_content(&app, "[data-testid=transcript]").await?;
    assert!(
        transcript.contains("python3 -B -m unittest -q") && transcript.contains("-1 != 5"),
        "the failing check's card before the write: {transcript:?}"
    );
    both_sizes(&app, "unchanged-draft-01-write", (1280, 800)).await?;
    click_in_place(&app, &app.wait_for("[data-testid=approve-button]").await?).await?;
    // Waited for with its kind: read just after it first showed, under the load of the whole
    // suite the summary was once between renders (`attrs` found none).
    app.wait_for("[data-testid=done-summary][data-kind=done]")
        .await?;
    assert_eq!(
        std::fs::read_to_string(s.project.path().join("calc.py"))?,
        "def add(a, b):\n    return a + b\n"
    );
    assert_eq!(s.server.requests().len(), 2, "two drafts, no tool step");
    assert!(s.server.failures().is_empty(), "{:?}", s.server.failures());
    both_sizes(&app, "unchanged-draft-02-done", (1280, 800)).await?;
    app.quit().await?;
    Ok(())
}

/// Undo: a turn edits a file and adds one; Undo on the last message previews both by name and,
/// once confirmed, brings them back, the Changes panel empties and the transcript says what was
/// restored; the restore is undone in turn, and "Restore to here" previews the same restore with
/// its diff.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undo_brings_the_last_turns_files_back_and_the_changes_panel_empties() -> TestResult {
    let Some(s) = Scripted::start("app_undo_last_turn.json").await? else {
        return Ok(());
    };
    let list = s.project.path().join("list.txt");
    let before = std::fs::read_to_string(&list)?;
    let app = s.launch(&[]).await?;
    app.wait_for("[data-testid=mode-select]")
        .await?
        .click()
        .await?;
    app.wait_for("[data-testid=mode-select] option[value=auto_edit]")
        .await?
        .click()
        .await?;
    send(&app, "Spell out line 3").await?;
    wait_content(
        &app,
        "[data-testid=transcript]",
        "Spelled out line 3 and added NOTES.md.",
    )
    .await?;
    app.wait_for("[data-testid=changes-tab]")
        .await?
        .click()
        .await?;
    app.wait_count("[data-testid=change-item]", 2).await?;
    assert!(std::fs::read_to_string(&list)?.contains("line three"));
    app.screenshot("undo-01-before").await?;

    app.click("[data-testid=undo-button]").await?;
    // The preview names both files, and nothing has gone back yet.
    app.wait_for("[data-testid=restore-preview][data-ready=true]")
        .await?;
    app.wait_count("[data-testid=restore-file]", 2).await?;
    assert!(std::fs::read_to_string(&list)?.contains("line three"));
    app.click("[data-testid=undo-confirm]").await?;
    app.wait_for("[data-testid=restored]").await?;
    app.wait_gone("[data-testid=change-item]").await?;
    wait_content(
        &app,
        "[data-testid=changes-panel]",
        "No files changed in this session yet.",
    )
    .await?;
    assert_eq!(std::fs::read_to_string(&list)?, before);
    assert!(!s.project.path().join("NOTES.md").exists());
    // The conversation went back with the files: the message is gone from the transcript.
    assert!(app.all("[data-testid=message-user]").await?.is_empty());
    app.screenshot("undo-02-undone").await?;

    // The restore is undone in turn: the turn's work and its message are back.
    app.click("[data-testid=undo-restore]").await?;
    app.wait_count("[data-testid=change-item]", 2).await?;
    assert!(std::fs::read_to_string(&list)?.contains("line three"));
    app.wait_for("[data-testid=message-user]").await?;

    // "Restore to here" shows the same restore before it happens, file by file.
    app.click("[data-testid=restore-button]").await?;
    app.wait_for("[data-testid=restore-preview][data-ready=true]")
        .await?;
    app.wait_count("[data-testid=restore-file]", 2).await?;
    app.wait_for("[data-testid=restore-diff] .cm-editor")
        .await?;
    app.screenshot("undo-03-restore-preview").await?;
    app.click("[data-testid=restore-cancel]").await?;
    app.wait_gone("[data-testid=restore-card]").await?;
    assert!(std::fs::read_to_string(&list)?.contains("line three"));
    app.quit().await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_five_thousand_message_session_opens_and_scrolls() -> TestResult {
    let Some(binary) = preflight() else {
        return Ok(());
    };
    let project = list_project();
    let root = std::fs::canonicalize(project.path())?;
    let config = tempfile::tempdir()?;
    let data = tempfile::tempdir()?;
    // A long session, written the way the engine writes one.
    let header = agent::SessionHeader {
        id: "s-long".into(),
        project: root.display().to_string(),
        task: "A very long conversation".into(),
        model: "claude-sonnet-4-5".into(),
        started_ms: 1_700_000_000_000,
    };
    let mut log = agent::SessionLog::create(&data.path().join("sessions"), &header)?;
    for i in 0..2500 {
        log.append(&protocol::AgentEvent::UserMessage {
            text: format!("Question {i}"),
            checkpoint: None,
        })?;
        log.append(&protocol::AgentEvent::AssistantMessage {
            message: protocol::Message {
                role: protocol::Role::Assistant,
                content: vec![protocol::ContentBlock::Text {
                    text: format!(
                        "Answer {i}: some **markdown** and `code`,\n\n- a list\n- of two"
                    ),
                }],
            },
        })?;
        log.append(&protocol::AgentEvent::TurnEnded {
            outcome: protocol::TurnOutcome::Ended,
        })?;
    }
    log.sync()?;
    drop(log);
    let data_dir = data.path().display().to_string();
    let env = [
        ("TANDEM_PROVIDER", "openai"),
        ("TANDEM_BASE_URL", "http://127.0.0.1:9/v1"),
        ("TANDEM_MODEL", "none"),
        ("TANDEM_DATA_DIR", data_dir.as_str()),
    ];
    let root_arg = root.display().to_string();
    let app = App::launch_with_env(&binary, &["--project", &root_arg], config.path(), &env).await?;
    app.wait_for("[data-testid=session-item]")
        .await?
        .click()
        .await?;
    let opened = std::time::Instant::now();
    wait_content(&app, "[data-testid=transcript]", "Answer 2499").await?;
    let open_ms = opened.elapsed().as_millis();
    let rows = app.all("[data-testid=message-user]").await?.len();
    assert!(
        rows < 200,
        "the transcript is virtualised: {rows} user rows in the page for 2,500"
    );
    app.screenshot("agent-10-long-session-bottom").await?;
    // To the top, as a user dragging the scrollbar would; rows still being measured right after
    // opening can pull the list back to its end once, so the user tries again, as people do.
    let scrolled = std::time::Instant::now();
    let tries = scroll_transcript_to_top(&app, "Question 0").await?;
    let top_ms = scrolled.elapsed().as_millis();
    app.screenshot("agent-11-long-session-top").await?;
    // Measured, not asserted (timings depend on the machine).
    eprintln!(
        "5,000-message session: opened in {open_ms} ms, at the top {top_ms} ms after the first scroll ({tries} scroll(s))"
    );
    app.quit().await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sub_agents_edit_is_approved_in_the_parents_window_and_its_transcript_folds() -> TestResult
{
    let Some(s) = Scripted::start("app_subagent_approval.json").await? else {
        return Ok(());
    };
    let app = s.launch(&[]).await?;
    send(&app, "Please rename line 5 to line five").await?;
    // The question comes from the sub-agent, and says so.
    let who = app.wait_for("[data-testid=approval-agent]").await?;
    let named = who.text().await?;
    assert!(named.contains("Rename an entry"), "{named:?}");
    let card = app.wait_for("[data-testid=subagent-card]").await?;
    assert_eq!(card.attr("data-status").await?.as_deref(), Some("running"));
    // While it runs, its own transcript is open inside the parent's.
    wait_content(
        &app,
        "[data-testid=subagent-transcript]",
        "Renaming it now.",
    )
    .await?;
    app.wait_for("[data-testid=approval-card] .cm-editor")
        .await?;
    app.screenshot("agent-10-subagent-approval").await?;
    assert_eq!(
        std::fs::read_to_string(s.project.path().join("list.txt"))?
            .lines()
            .nth(4),
        Some("line 5"),
        "nothing changes before the answer"
    );
    app.click("[data-testid=approve-button]").await?;
    wait_content(
        &app,
        "[data-testid=transcript]",
        "The helper renamed line 5.",
    )
    .await?;
    assert_eq!(
        std::fs::read_to_string(s.project.path().join("list.txt"))?
            .lines()
            .nth(4),
        Some("line five")
    );
    // Finished, it folds to its report; a click opens its transcript again.
    app.wait_for("[data-testid=subagent-card][data-status=done]")
        .await?;
    wait_content(
        &app,
        "[data-testid=subagent-report]",
        "Renamed line 5 to line five.",
    )
    .await?;
    assert!(
        app.all("[data-testid=subagent-transcript]")
            .await?
            .is_empty()
    );
    app.click("[data-testid=subagent-card] .subagent-header")
        .await?;
    wait_content(
        &app,
        "[data-testid=subagent-transcript]",
        "Renaming it now.",
    )
    .await?;
    app.screenshot("agent-11-subagent-done").await?;
    app.quit().await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_allow_is_offered_only_where_it_holds_and_holds_after_a_restart() -> TestResult {
    let Some(s) = Scripted::start("app_always_allow_holds.json").await? else {
        return Ok(());
    };
    write(s.project.path(), "gen.py", b"print('report ready')\n");
    // "Always allow" answers the question asked before a command runs: the person here keeps
    // that question for every command (Settings → Rules), as before commands ran on a copy.
    write(
        s.config.path(),
        "settings.toml",
        b"[commands]\nask_first = true\n",
    );
    let app = s.launch(&[]).await?;
    send(&app, "Make the report").await?;
    // The redirect writes out.txt, which ask mode asks about whatever the command: "always
    // allow `python3 gen.py`" would not stop this question, so it is not offered.
    app.wait_for("[data-testid=approval-command]").await?;
    let command = text_content(&app, "[data-testid=approval-command]").await?;
    assert!(command.contains("> out.txt"), "{command:?}");
    assert!(app.all("[data-testid=approve-always]").await?.is_empty());
    app.click("[data-testid=approve-button]").await?;
    // What it wrote is shown before it lands, and kept.
    app.wait_for("[data-testid=review-file][data-path='out.txt']")
        .await?;
    app.click("[data-testid=approve-button]").await?;
    // The plain command offers it, and the user takes it.
    wait_content(&app, "[data-testid=transcript]", "Now printing it.").await?;
    app.click("[data-testid=approve-always]").await?;
    wait_content(&app, "[data-testid=transcript]", "The report is ready.").await?;
    app.quit().await?;

    // After a restart, a new session runs the same command without a question.
    let app = s.launch(&[]).await?;
    send(&app, "Print it again").await?;
    wait_content(
        &app,
        "[data-testid=transcript]",
        "Printed again without asking.",
    )
    .await?;
    assert!(app.all("[data-testid=approval-card]").await?.is_empty());
    app.quit().await?;
    Ok(())
}

/// Whether the whole of `css`'s first match is inside the window (not cut off, not scrolled
/// away inside its own box).
async fn fully_visible(app: &App, css: &str) -> TestResult<bool> {
    let v = app
        .driver
        .execute(
            r#"const el = document.querySelector(arguments[0]);
               if (!el) return false;
               const r = el.getBoundingClientRect();
               if (r.width === 0 || r.height === 0) return false;
               if (r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight) return false;
               // Not hidden by a scrolling ancestor either.
               for (let p = el.parentElement; p; p = p.parentElement) {
                 const s = getComputedStyle(p);
                 if (!/(auto|scroll|hidden)/.test(s.overflowY + s.overflowX)) continue;
                 const q = p.getBoundingClientRect();
                 if (r.top < q.top - 1 || r.bottom > q.bottom + 1 || r.left < q.left - 1 || r.right > q.right + 1) return false;
               }
               return true;"#,
            vec![serde_json::json!(css)],
        )
        .await?;
    Ok(v.json().as_bool().unwrap_or(false))
}

/// Issue 46, item 7: a commit's card lists its files with their diffs (not its JSON), and marks
/// the file the person never saw change in Tandem (made before the session).
async fn commit_card(dark: bool, (width, height): (u32, u32), shots: &str) -> TestResult {
    let Some(s) = Scripted::start("app_commit_card.json").await? else {
        return Ok(());
    };
    write(s.project.path(), "notes.txt", b"the person's notes\n");
    let env: &[(&str, &str)] = if dark {
        &[("GTK_THEME", "Adwaita:dark")]
    } else {
        &[]
    };
    let app = s.launch(env).await?;
    app.driver.set_window_rect(0, 0, width, height).await?;
    send(&app, "Spell out five in list.txt and commit").await?;
    app.wait_text("[data-testid=approval-card]", "list.txt")
        .await?;
    click_in_place(&app, &app.wait_for("[data-testid=approve-button]").await?).await?;
    let card = wait_content(&app, "[data-testid=commit-review]", "Spell out five").await?;
    assert!(
        !card.contains("\"message\""),
        "the card shows JSON: {card:?}"
    );
    assert_eq!(
        app.attrs("[data-testid=commit-file]", "data-seen").await?,
        ["false", "true"],
        "the change the person never saw comes first"
    );
    let unseen = text_content(&app, "[data-testid=commit-unseen-warning]").await?;
    assert!(unseen.contains("did not see it in Tandem"), "{unseen:?}");
    let diffs = app
        .attrs("[data-testid=commit-file-diff]", "textContent")
        .await?;
    assert!(
        diffs[1].contains("-line 5") && diffs[1].contains("+line five"),
        "{diffs:?}"
    );
    assert!(diffs[0].contains("+the person's notes"), "{diffs:?}");
    assert!(fully_visible(&app, "[data-testid=deny-button]").await?);
    both_sizes(&app, &format!("{shots}-commit-card"), (width, height)).await?;
    app.click("[data-testid=deny-button]").await?;
    app.wait_for("[data-testid=done-summary]").await?;
    app.quit().await?;
    Ok(())
}

/// Issue 46, items 3 and 8, in the real window: while one session waits for an answer, a new
/// session's example task asks before replacing a draft, the task is queued and said so above
/// the box (and taken back); Settings → Rules shows the defaults.
async fn queue_and_defaults(dark: bool, (width, height): (u32, u32), shots: &str) -> TestResult {
    let Some(s) = Scripted::start("app_commit_card.json").await? else {
        return Ok(());
    };
    let env: &[(&str, &str)] = if dark {
        &[("GTK_THEME", "Adwaita:dark")]
    } else {
        &[]
    };
    let app = s.launch(env).await?;
    app.driver.set_window_rect(0, 0, width, height).await?;
    send(&app, "Spell out five in list.txt and commit").await?;
    app.wait_text("[data-testid=approval-card]", "list.txt")
        .await?;
    app.click("[data-testid=new-session]").await?;
    app.wait_for("[data-testid=composer-busy]").await?;
    let input = app.wait_for("[data-testid=composer-input]").await?;
    input.send_keys("Write the docs").await?;
    app.click("[data-testid=example-task]").await?;
    app.wait_for("[data-testid=example-offer]").await?;
    both_sizes(&app, &format!("{shots}-example-offer"), (width, height)).await?;
    app.click("[data-testid=example-keep]").await?;
    app.wait_gone("[data-testid=example-offer]").await?;
    assert_eq!(composer_value(&app).await?, "Write the docs");
    app.wait_text("[data-testid=send-button]", "Queue").await?;
    app.click("[data-testid=send-button]").await?;
    let queued = wait_content(&app, "[data-testid=composer-queued]", "Write the docs").await?;
    assert!(
        queued.contains("sent when the other session is done"),
        "{queued:?}"
    );
    both_sizes(&app, &format!("{shots}-queued"), (width, height)).await?;
    app.click("[data-testid=composer-queued-cancel]").await?;
    app.wait_gone("[data-testid=composer-queued]").await?;
    assert_eq!(composer_value(&app).await?, "Write the docs");

    app.click("[data-testid=settings-button]").await?;
    app.click("[data-testid=settings-tab-rules]").await?;
    app.wait_for("[data-testid=rule-defaults] [data-testid=default-mode]")
        .await?;
    both_sizes(&app, &format!("{shots}-rule-defaults"), (width, height)).await?;
    // Item 8: what a token is, said beside the limit that counts them.
    app.click("[data-testid=settings-tab-limits]").await?;
    let hint = text_content(&app, "[data-testid=limit-tokens-hint]").await?;
    assert!(hint.contains("word"), "{hint:?}");
    // The box stays on its label's line; the hint goes under the row.
    let rows = app
        .driver
        .execute(
            "const box = document.querySelector('[data-testid=limit-session-tokens]').getBoundingClientRect(); \
             const label = document.querySelector('[data-testid=limit-session-tokens]').closest('label').querySelector('span').getBoundingClientRect(); \
             const hint = document.querySelector('[data-testid=limit-tokens-hint]').getBoundingClientRect(); \
             return [Math.abs((box.top + box.bottom) / 2 - (label.top + label.bottom) / 2) < 8, hint.top >= box.bottom - 1];",
            vec![],
        )
        .await?;
    assert_eq!(
        rows.json(),
        &serde_json::json!([true, true]),
        "the tokens row is out of line"
    );
    both_sizes(&app, &format!("{shots}-limits"), (width, height)).await?;
    app.quit().await?;
    // The first session's edit is left unanswered: the rest of its script never runs.
    let _ = s.server.failures();
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_waits_queued_while_another_session_waits_and_the_rules_show_defaults() -> TestResult
{
    queue_and_defaults(false, (1280, 800), "queue-light").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_waits_queued_dark_and_narrow() -> TestResult {
    queue_and_defaults(true, (900, 700), "queue-dark").await
}

/// Screenshots `name` at 1280×800 (`name-1280`) and 900×700 (`name-900`), then gives the
/// window `size` back: each test runs in one theme, so its two sizes make the four looks.
async fn both_sizes(app: &App, name: &str, size: (u32, u32)) -> TestResult {
    for (w, h) in [(1280, 800), (900, 700)] {
        app.driver.set_window_rect(0, 0, w, h).await?;
        app.screenshot(&format!("{name}-{w}")).await?;
    }
    app.driver.set_window_rect(0, 0, size.0, size.1).await?;
    Ok(())
}

/// Issue 46, items 1, 2, 4 and 7, in the real window: a command whose changes were said no to
/// ends amber and says what did not happen (never a green "Task done · Generated report.txt"), the command's
/// card says what it is for, a repeated step pauses in people's words (the tool's name never
/// shows) and the session says "Paused", and Undo previews first, names the person's later
/// line and keeps it. Every screen in both sizes.
async fn the_window_tells_the_truth(dark: bool, shots: &str) -> TestResult {
    let Some(s) = Scripted::start("app_truth.json").await? else {
        return Ok(());
    };
    write(
        s.project.path(),
        "gen.py",
        b"open('report.txt', 'w').write('report')\n",
    );
    let env: &[(&str, &str)] = if dark {
        &[("GTK_THEME", "Adwaita:dark")]
    } else {
        &[]
    };
    let app = s.launch(env).await?;
    let size = (1280, 800);
    app.driver.set_window_rect(0, 0, size.0, size.1).await?;

    // 1. The command, denied; the ending names what did not happen.
    send(&app, "Make the report").await?;
    app.wait_text("[data-testid=approval-card]", "python3 gen.py")
        .await?;
    // It ran over a copy of the project: what it made is the question.
    app.wait_for("[data-testid=approval-card] [data-testid=command-review]")
        .await?;
    app.wait_gone("[data-testid=diff-loading]").await?;
    click_in_place(&app, &app.wait_for("[data-testid=deny-button]").await?).await?;
    app.wait_for("[data-testid=done-summary]").await?;
    assert_eq!(
        app.attrs("[data-testid=done-summary]", "data-kind").await?,
        ["warning"],
        "never a green ending over a denied command"
    );
    assert_eq!(
        app.attrs("[data-testid=done-warning]", "data-kind").await?,
        ["file_missing", "changes_rejected"]
    );
    let said = text_content(&app, "[data-testid=done-summary]").await?;
    // The command ran over a copy of the project; what it made was said no to, so it never
    // landed.
    assert!(
        said.contains("You rejected what python3 gen.py did to report.txt: it did not land.")
            && said.contains("report.txt is listed as changed, but it does not exist."),
        "{said:?}"
    );
    let described = text_content(&app, "[data-testid=tool-description]").await?;
    assert!(
        described.contains("Makes report.txt from list.txt"),
        "{described:?}"
    );
    both_sizes(&app, &format!("{shots}-01-denied-ending"), size).await?;

    // 2. The same read six times: a step back, then a pause, in people's words.
    send(&app, "Look at list.txt").await?;
    let outcome = app
        .wait_text(
            "[data-testid=turn-outcome][data-kind=paused]",
            "repeated step",
        )
        .await?;
    assert!(
        outcome.contains("Read list.txt again") && !outcome.contains("read_file"),
        "{outcome:?}"
    );
    let quiet = text_content(&app, "[data-testid=tool-repeated-words]").await?;
    assert!(
        quiet.contains("Tandem stopped a repeated step") && !quiet.contains("read_file"),
        "{quiet:?}"
    );
    wait_content(
        &app,
        "[data-testid=session-item]",
        "Paused — tell it how to go on",
    )
    .await?;
    both_sizes(&app, &format!("{shots}-02-paused"), size).await?;
    // In a narrow window the badge wraps inside its item (it was cut at the sidebar's edge).
    app.driver.set_window_rect(0, 0, 900, 700).await?;
    let inside = app
        .driver
        .execute(
            "const b = document.querySelector('[data-testid=session-item] .state-badge').getBoundingClientRect(); \
             const i = document.querySelector('[data-testid=session-item]').getBoundingClientRect(); \
             return b.right <= i.right + 0.5;",
            vec![],
        )
        .await?;
    assert_eq!(inside.json(), &serde_json::json!(true), "the badge is cut");
    app.driver.set_window_rect(0, 0, size.0, size.1).await?;

    // 3. The agent's edit and new file, then the person's own line on top; Undo previews.
    send(&app, "Spell out line 3").await?;
    for file in ["list.txt", "NOTES.md"] {
        app.wait_text("[data-testid=approval-card]", file).await?;
        click_in_place(&app, &app.wait_for("[data-testid=approve-button]").await?).await?;
    }
    wait_content(
        &app,
        "[data-testid=transcript]",
        "Spelled out line 3 and added NOTES.md.",
    )
    .await?;
    let list = s.project.path().join("list.txt");
    // The person's line comes after the agent's write, by the clock too: a change within 2 s
    // of the agent's write is taken for that write (the checkpoints know when the agent wrote,
    // not what; see the closing note of issue 46).
    tokio::time::sleep(Duration::from_millis(2_200)).await;
    let mut mine = std::fs::read_to_string(&list)?;
    mine.push_str("my own line\n");
    std::fs::write(&list, &mine)?;
    // Undo on the last message (a transcript still settling refuses a click; `click` waits).
    app.click("[data-testid=message-actions].last [data-testid=undo-button]")
        .await?;
    app.wait_for("[data-testid=restore-preview][data-ready=true]")
        .await?;
    let keeps = text_content(&app, "[data-testid=restore-keeps]").await?;
    assert!(keeps.contains("list.txt"), "{keeps:?}");
    assert!(
        s.project.path().join("NOTES.md").exists(),
        "nothing is undone before the person confirms"
    );
    both_sizes(&app, &format!("{shots}-03-undo-preview"), size).await?;
    app.click("[data-testid=undo-confirm]").await?;
    let note = wait_content(&app, "[data-testid=restored-files]", "NOTES.md").await?;
    assert!(!s.project.path().join("NOTES.md").exists(), "{note:?}");
    assert_eq!(
        std::fs::read_to_string(&list)?,
        mine,
        "the person's line (and the agent's edit under it) is kept"
    );
    both_sizes(&app, &format!("{shots}-04-undone"), size).await?;
    app.quit().await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_denied_command_a_repeated_step_and_an_undo_say_what_happened() -> TestResult {
    the_window_tells_the_truth(false, "truth-light").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_denied_command_a_repeated_step_and_an_undo_say_what_happened_in_dark() -> TestResult {
    the_window_tells_the_truth(true, "truth-dark").await
}

/// A small bar chart (96×64 PNG), the picture of these tests.
const CHART_PNG: &[u8] = include_bytes!("../fixtures/chart.png");

/// Issue 46, item 7, in the real window: a picture read from the project and one fetched from
/// the web each show on their card (they said "Looked at a file that is not text" and "Fetched
/// the page"), and a pull request's address in a command's output is a link.
async fn pictures_and_links(dark: bool, (width, height): (u32, u32), shots: &str) -> TestResult {
    let site = test_support::http::serve(|_| {
        test_support::http::respond_bytes("200 OK", "image/png", CHART_PNG, "")
    })
    .await;
    let Some(s) =
        Scripted::start_with("app_pictures_and_links.json", &[("@PIC_URL@", site)]).await?
    else {
        return Ok(());
    };
    write(s.project.path(), "chart.png", CHART_PNG);
    let env: &[(&str, &str)] = if dark {
        &[("GTK_THEME", "Adwaita:dark")]
    } else {
        &[]
    };
    let app = s.launch(env).await?;
    app.driver.set_window_rect(0, 0, width, height).await?;
    send(&app, "Look at the chart").await?;
    // Fetching from this machine's own address asks first.
    app.wait_text("[data-testid=approval-card]", "127.0.0.1")
        .await?;
    click_in_place(&app, &app.wait_for("[data-testid=approve-button]").await?).await?;
    app.wait_for("[data-testid=done-summary]").await?;
    // Each picture is read after its card shows.
    app.wait_count("[data-testid=tool-thumbnail] img", 2)
        .await?;
    let alts = app.attrs("[data-testid=tool-thumbnail] img", "alt").await?;
    assert_eq!(
        alts.len(),
        2,
        "a thumbnail on the read's card and on the fetch's: {alts:?}"
    );
    assert!(alts[0].contains("chart.png"), "{alts:?}");
    assert!(
        alts[1].contains("fetched from http://127.0.0.1"),
        "{alts:?}"
    );
    // Drawn, not a broken image: the browser decoded the picture at its size.
    let widths = app
        .driver
        .execute_async(
            "const done = arguments[arguments.length - 1]; \
             const imgs = Array.from(document.querySelectorAll('[data-testid=tool-thumbnail] img')); \
             Promise.all(imgs.map(i => i.decode().catch(() => undefined))).then(() => done(imgs.map(i => i.naturalWidth)));",
            vec![],
        )
        .await?;
    assert_eq!(
        widths.json(),
        &serde_json::json!([96, 96]),
        "{:?}",
        widths.json()
    );
    both_sizes(&app, &format!("{shots}-pictures-and-link"), (width, height)).await?;
    // In the result and again in its Details: each is the address, without the full stop.
    let links = app
        .attrs("[data-testid=output-link]", "textContent")
        .await?;
    assert!(
        !links.is_empty() && links.iter().all(|l| l == "https://github.com/o/r/pull/7"),
        "{links:?}"
    );
    // The picture is seen whole: its button is as high as the picture, not one line.
    let clipped = app
        .driver
        .execute(
            "return Array.from(document.querySelectorAll('[data-testid=tool-thumbnail]'), b => b.getBoundingClientRect().height < b.querySelector('img').getBoundingClientRect().height);",
            vec![],
        )
        .await?;
    assert_eq!(
        clipped.json(),
        &serde_json::json!([false, false]),
        "a thumbnail is cut"
    );
    app.quit().await?;
    assert!(s.server.failures().is_empty(), "{:?}", s.server.failures());
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pictures_and_a_link_show_on_their_cards() -> TestResult {
    pictures_and_links(false, (1280, 800), "pictures-light").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pictures_and_a_link_show_on_their_cards_dark_and_narrow() -> TestResult {
    pictures_and_links(true, (900, 700), "pictures-dark").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_card_shows_its_files_and_diffs() -> TestResult {
    commit_card(false, (1280, 800), "commit-light").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_card_shows_its_files_and_diffs_dark_and_narrow() -> TestResult {
    commit_card(true, (900, 700), "commit-dark").await
}

/// Whether the element `css` is painted whole: at every point of a grid over it, what is on
/// top is it or inside it (nothing drawn over it).
async fn painted_on_top(app: &App, css: &str) -> TestResult<bool> {
    let v = app
        .driver
        .execute(
            r#"const el = document.querySelector(arguments[0]);
               if (!el) return false;
               const r = el.getBoundingClientRect();
               for (let i = 1; i < 8; i++) for (let j = 1; j < 8; j++) {
                 const at = document.elementFromPoint(r.left + (r.width * i) / 8, r.top + (r.height * j) / 8);
                 if (at === null || !(at === el || el.contains(at))) return false;
               }
               return true;"#,
            vec![serde_json::json!(css)],
        )
        .await?;
    Ok(v.json().as_bool().unwrap_or(false))
}

/// The `content` and width of a pseudo-element (`::before`) of the element `css`.
async fn pseudo_before(app: &App, css: &str) -> TestResult<(String, String)> {
    let v = app
        .driver
        .execute(
            r#"const el = document.querySelector(arguments[0]);
               if (!el) return ["", ""];
               const s = getComputedStyle(el, "::before");
               return [s.content, s.width];"#,
            vec![serde_json::json!(css)],
        )
        .await?;
    let pair: (String, String) = serde_json::from_value(v.json().clone())?;
    Ok(pair)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_narrow_window_keeps_approve_stop_and_the_project_name_usable() -> TestResult {
    let Some(s) = Scripted::start("app_narrow_window.json").await? else {
        return Ok(());
    };
    // Dark, as the other narrow-window screenshots were looked at in light.
    let app = s.launch(&[("GTK_THEME", "Adwaita:dark")]).await?;
    app.driver.set_window_rect(0, 0, 900, 700).await?;
    app.wait_for("[data-testid=composer-input]").await?;
    // One line for the name, whatever the folder is called.
    let lines = app
        .driver
        .execute(
            "const n = document.querySelector('[data-testid=project-name]'); \
             return n.getBoundingClientRect().height / parseFloat(getComputedStyle(n).lineHeight || '18');",
            vec![],
        )
        .await?;
    let lines = lines.json().as_f64().unwrap_or(99.0);
    assert!(lines < 1.6, "the project name takes {lines} lines");
    send(&app, "Rename an entry").await?;
    app.wait_for("[data-testid=approval-card] .cm-editor")
        .await?;
    app.screenshot("narrow-01-approval").await?;
    for button in ["approve-button", "deny-button"] {
        assert!(
            fully_visible(&app, &format!("[data-testid={button}]")).await?,
            "{button} is out of sight at 900x700"
        );
    }
    app.click("[data-testid=approve-button]").await?;
    app.wait_for("[data-testid=approval-command]").await?;
    assert!(fully_visible(&app, "[data-testid=approve-button]").await?);
    app.click("[data-testid=approve-button]").await?;
    wait_content(
        &app,
        "[data-testid=transcript]",
        "The wait runs in the background.",
    )
    .await?;
    app.wait_for("[data-testid=task-item][data-kind=task] [data-testid=task-stop]")
        .await?;
    app.screenshot("narrow-02-task-list").await?;
    assert!(
        fully_visible(&app, "[data-testid=task-stop]").await?,
        "the background task's Stop is cut off at 900x700"
    );
    app.click("[data-testid=task-stop]").await?;
    wait_content(&app, "[data-testid=task-list]", "stopped").await?;
    // The details panel folds away and comes back; the transcript takes the room.
    app.click("[data-testid=toggle-details]").await?;
    app.wait_for("[data-testid=details-panel][hidden]").await?;
    app.screenshot("narrow-03-details-folded").await?;
    app.click("[data-testid=toggle-details]").await?;
    app.wait_for("[data-testid=details-panel]:not([hidden])")
        .await?;
    app.quit().await?;
    Ok(())
}

/// Where an element is on screen: x, y, width, height.
async fn rect(app: &App, css: &str) -> TestResult<[f64; 4]> {
    let v = app
        .driver
        .execute(
            "const e = document.querySelector(arguments[0]); if (!e) return null; const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height];",
            vec![serde_json::json!(css)],
        )
        .await?;
    let r: Option<[f64; 4]> = serde_json::from_value(v.json().clone())?;
    r.ok_or_else(|| format!("`{css}` is not on the page").into())
}

/// The computed background colour of `css` as red, green, blue.
async fn background_rgb(app: &App, css: &str) -> TestResult<[f64; 3]> {
    let v = app
        .driver
        .execute(
            "const e = document.querySelector(arguments[0]); return e ? getComputedStyle(e).backgroundColor : '';",
            vec![serde_json::json!(css)],
        )
        .await?;
    let text = v.json().as_str().unwrap_or("").to_string();
    let parts: Vec<f64> = text
        .trim_start_matches("rgba(")
        .trim_start_matches("rgb(")
        .trim_end_matches(')')
        .split(',')
        .filter_map(|p| p.trim().parse().ok())
        .collect();
    match parts.as_slice() {
        [r, g, b, ..] => Ok([*r, *g, *b]),
        _ => Err(format!("`{css}` has no background colour: {text:?}").into()),
    }
}

/// Scrolls an element into view the way a person does, only as far as needed, and clicks it.
/// (WebDriver's own scrolling centres it, and also scrolls the page sideways where the window
/// is narrower than the page.)
async fn click_in_place(app: &App, el: &WebElement) -> TestResult {
    app.driver
        .execute(
            "arguments[0].scrollIntoView({block: 'nearest', inline: 'nearest'});",
            vec![el.to_json()?],
        )
        .await?;
    el.click().await?;
    Ok(())
}

/// The buttons a reviewer's pointer goes back and forth between.
const REVIEW_BUTTONS: [&str; 5] = [
    "[data-testid=layout-unified]",
    "[data-testid=layout-split]",
    "[data-testid=layout-whole]",
    "[data-testid=approve-button]",
    "[data-testid=deny-button]",
];

/// Where each of them starts (Approve's label, and so its width, follows the choices).
async fn review_button_rects(app: &App) -> TestResult<Vec<[f64; 2]>> {
    let mut out = Vec::new();
    for css in REVIEW_BUTTONS {
        let [x, y, ..] = rect(app, css).await?;
        out.push([x, y]);
    }
    Ok(out)
}

/// Each hunk's editor height beside that of the plain diff the window shows for the same
/// lines until the editor has loaded (built here as `lazy.tsx` draws it, one line a span).
async fn plain_and_editor_heights(app: &App) -> TestResult<Vec<(f64, f64)>> {
    let v = app
        .driver
        .execute(
            r#"return Array.from(document.querySelectorAll('[data-testid=hunk] .merge-diff'), md => { const pre = document.createElement('pre'); pre.className = 'diff-loading'; for (const line of md.querySelectorAll('.cm-deletedLine, .cm-content > .cm-line')) { const span = document.createElement('span'); span.className = line.classList.contains('cm-deletedLine') ? 'plain-del' : 'plain-add'; span.textContent = '+ ' + line.textContent + '\n'; pre.appendChild(span); } md.parentElement.appendChild(pre); const heights = [md.getBoundingClientRect().height, pre.getBoundingClientRect().height]; pre.remove(); return heights; });"#,
            Vec::new(),
        )
        .await?;
    Ok(serde_json::from_value(v.json().clone())?)
}

/// Two edits three lines apart are two changes: one kept, one rejected, the file holds
/// exactly the kept one. Switching views (unified, side by side, the whole file) never moves
/// the buttons; side by side, removed lines are red and added ones green; the whole file
/// leaves the rejected change out and keeps Approve in sight. The check then fails: its card
/// is red with the exit code, and the task_done claiming the tests pass is a warning.
async fn near_edits_reviewed_apart_and_a_failed_check(
    dark: bool,
    (width, height): (u32, u32),
    shots: &str,
) -> TestResult {
    let Some(s) = Scripted::start("app_near_edits_failed_check.json").await? else {
        return Ok(());
    };
    // A test that wants line 9 renamed (the user will reject that), and a file nothing touches.
    write(
        s.project.path(),
        "test_list.py",
        b"import unittest\n\n\nclass List(unittest.TestCase):\n    def test_nine_is_spelled_out(self):\n        with open('list.txt') as f:\n            self.assertIn('line nine', f.read())\n",
    );
    write(s.project.path(), "notes.txt", b"notes\n");
    let env: &[(&str, &str)] = if dark {
        &[("GTK_THEME", "Adwaita:dark")]
    } else {
        &[]
    };
    let app = s.launch(env).await?;
    app.driver.set_window_rect(0, 0, width, height).await?;
    let size = (width, height);
    send(&app, "Rename entries 5 and 9 in list.txt and run the tests").await?;

    // Two changes, each its own.
    app.wait_text("[data-testid=approval-card]", "list.txt")
        .await?;
    app.wait_count("[data-testid=hunk]", 2).await?;
    let titles = app
        .attrs("[data-testid=hunk] .hunk-title", "textContent")
        .await?;
    assert_eq!(titles.len(), 2, "one change per edit");
    assert!(titles[0].starts_with("Change 1 of 2"), "{titles:?}");
    assert!(titles[1].starts_with("Change 2 of 2"), "{titles:?}");
    app.wait_count("[data-testid=hunk] .cm-editor", 2).await?;
    // The plain diff shown while the editor loads takes the editor's height: the editor
    // replacing it must not move the buttons below (a click landed on a moved button).
    for (editor, plain) in plain_and_editor_heights(&app).await? {
        assert!(
            (editor - plain).abs() <= 1.0,
            "the plain diff is {plain} px high, the editor that replaces it {editor} px"
        );
    }
    both_sizes(&app, &format!("{shots}-01-two-changes"), size).await?;
    // Issue 46, item 8: the card's Approve and Deny were painted over the "Switch to Full
    // auto?" dialog. Asked while the card waits, the dialog is on top; kept as it was.
    app.wait_for("[data-testid=mode-select]")
        .await?
        .click()
        .await?;
    app.wait_for("[data-testid=mode-select] option[value=full_auto]")
        .await?
        .click()
        .await?;
    app.wait_for("[data-testid=full-auto-limits]").await?;
    both_sizes(
        &app,
        &format!("{shots}-01b-full-auto-dialog-over-the-card"),
        size,
    )
    .await?;
    assert!(
        painted_on_top(&app, "[data-testid=full-auto-confirm]").await?,
        "something is painted over the Full auto dialog"
    );
    app.click("[data-testid=full-auto-no]").await?;
    app.wait_gone("[data-testid=full-auto-confirm]").await?;
    let at_first = review_button_rects(&app).await?;

    // Side by side: the buttons stay put; removed lines red on the left, added green on the
    // right.
    click_in_place(&app, &app.wait_for("[data-testid=layout-split]").await?).await?;
    app.wait_for("[data-testid=hunk] .cm-mergeView .cm-merge-a .cm-changedLine")
        .await?;
    assert_eq!(
        review_button_rects(&app).await?,
        at_first,
        "side by side moved the buttons"
    );
    let [r, g, _] = background_rgb(&app, "[data-testid=hunk] .cm-merge-a .cm-changedLine").await?;
    assert!(r > g, "a removed line is red, not ({r}, {g})");
    let [r, g, _] = background_rgb(&app, "[data-testid=hunk] .cm-merge-b .cm-changedLine").await?;
    assert!(g > r, "an added line is green, not ({r}, {g})");
    both_sizes(&app, &format!("{shots}-02-side-by-side"), size).await?;

    // Keep the first change, reject the second.
    let rejects = app.all("[data-testid=hunk-reject]").await?;
    click_in_place(&app, &rejects[1]).await?;
    assert_eq!(
        app.attrs("[data-testid=hunk]", "data-state").await?,
        ["accepted", "rejected"]
    );
    app.wait_text("[data-testid=approve-button]", "Apply 1 of 2 changes")
        .await?;
    assert_eq!(
        review_button_rects(&app).await?,
        at_first,
        "a choice moved the buttons"
    );

    // The whole file, as it will be written: the rejected change is not in it, and Approve
    // is still in sight.
    click_in_place(&app, &app.wait_for("[data-testid=layout-whole]").await?).await?;
    app.wait_for("[data-testid=whole-file-diff] .cm-editor")
        .await?;
    let whole = text_content(&app, "[data-testid=whole-file]").await?;
    // The folded unchanged lines are marked by a drawn chevron, not "⦚" (a glyph the
    // system fonts lack: it showed as empty boxes).
    let (content, width) =
        pseudo_before(&app, "[data-testid=whole-file-diff] .cm-collapsedLines").await?;
    assert!(
        !content.contains('⦚') && width == "9px",
        "the fold marker is {content:?}, {width} wide"
    );
    assert!(whole.contains("line five"), "{whole:?}");
    assert!(
        !whole.contains("line nine"),
        "the rejected change shows: {whole:?}"
    );
    assert_eq!(
        review_button_rects(&app).await?,
        at_first,
        "the whole file moved the buttons"
    );
    let viewport = app
        .driver
        .execute("return window.innerHeight;", Vec::new())
        .await?;
    let inner = viewport.json().as_f64().unwrap_or(0.0);
    let [_, y, _, h] = rect(&app, "[data-testid=approve-button]").await?;
    assert!(
        y >= 0.0 && y + h <= inner,
        "Approve is out of sight: {y} + {h} > {inner}"
    );
    both_sizes(&app, &format!("{shots}-03-whole-file"), size).await?;
    click_in_place(&app, &app.wait_for("[data-testid=layout-unified]").await?).await?;
    assert_eq!(review_button_rects(&app).await?, at_first);
    app.click("[data-testid=approve-button]").await?;

    // The check: approved, it fails, and its card says so with the exit code.
    app.wait_text("[data-testid=approval-card]", "python3 -m unittest")
        .await?;
    let on_disk = std::fs::read_to_string(s.project.path().join("list.txt"))?;
    let expected: String = (1..=20)
        .map(|i| match i {
            5 => "line five\n".to_string(),
            _ => format!("line {i}\n"),
        })
        .collect();
    assert_eq!(on_disk, expected, "the file holds exactly the kept change");
    app.click("[data-testid=approve-button]").await?;
    let status = app
        .wait_text(
            "[data-testid=tool-card][data-kind=failed] [data-testid=tool-status]",
            "exit code 1",
        )
        .await?;
    assert!(status.contains("Failed"), "{status:?}");
    // The turn ends first (the list follows its end): scrolled up while it is still writing,
    // the card can sit too near the end for the list to count as left, on a busy machine.
    app.wait_for("[data-testid=done-summary][data-kind=warning]")
        .await?;
    // Scrolled up to it as a person does (a wheel turn stops the list following the end); on a
    // busy machine rows still being measured can pull the list back to its end, so the user
    // tries again until the list shows it has left the end.
    for _ in 0..3 {
        app.wait_for("[data-testid=tool-card][data-kind=failed]")
            .await?;
        app.driver
            .execute(
                "const e = document.querySelector('[data-testid=tool-card][data-kind=failed]'); if (e) { e.dispatchEvent(new WheelEvent('wheel', {bubbles: true, deltaY: -100})); e.scrollIntoView({block: 'start'}); }",
                Vec::new(),
            )
            .await?;
        tokio::time::sleep(Duration::from_millis(300)).await;
        if !app.all("[data-testid=jump-latest]").await?.is_empty() {
            break;
        }
    }
    both_sizes(&app, &format!("{shots}-04-failed-check"), size).await?;
    // Back to the newest entry (the list draws only the rows near what is in view). CI once
    // saw "Latest" go between its lookup and the click: the card sat so near the end that
    // rows measured after the scroll brought the list back to its end by itself.
    app.click_if_shown("[data-testid=jump-latest]").await?;

    // "The tests pass": the engine knows better, and the window says so.
    app.scroll_to("[data-testid=done-summary][data-kind=warning]")
        .await?;
    // Issue 46: the edit kept in part is named too.
    assert_eq!(
        app.attrs("[data-testid=done-warning]", "data-kind").await?,
        ["file_unchanged", "edit_partly_kept", "check_failed"]
    );
    let said = text_content(&app, "[data-testid=done-summary]").await?;
    assert!(
        said.contains("notes.txt") && said.contains("exit code 1"),
        "{said:?}"
    );
    assert!(!said.contains("✓"), "{said:?}");
    both_sizes(&app, &format!("{shots}-05-task-done-warning"), size).await?;
    app.quit().await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn near_edits_are_reviewed_apart_and_a_failed_check_is_red() -> TestResult {
    near_edits_reviewed_apart_and_a_failed_check(false, (1280, 800), "review-light").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn near_edits_and_a_failed_check_in_a_dark_narrow_window() -> TestResult {
    near_edits_reviewed_apart_and_a_failed_check(true, (900, 700), "review-dark").await
}

/// The first-run screen's "another server address" field, its fold opened. The fold is read
/// by its `open` attribute: WebKit's driver calls a field in a closed <details> displayed.
/// Waits for the look for local servers to end first (it opens or closes the fold).
async fn manual_address(app: &App) -> TestResult<WebElement> {
    app.wait_for("[data-testid=no-local], [data-testid=local-server]")
        .await?;
    let fold = app.wait_for(".manual-server").await?;
    if fold.attr("open").await?.is_none() {
        app.click(".manual-server summary").await?;
    }
    app.wait_for(".manual-server[open] [data-testid=manual-url]")
        .await
}

/// Screenshots `name` at 1280×800 and again at 900×700 (`name-900`), then restores the size.
async fn screenshots(app: &App, name: &str) -> TestResult {
    app.driver.set_window_rect(0, 0, 1280, 800).await?;
    app.screenshot(name).await?;
    app.driver.set_window_rect(0, 0, 900, 700).await?;
    app.screenshot(&format!("{name}-900")).await?;
    app.driver.set_window_rect(0, 0, 1280, 800).await?;
    Ok(())
}

/// Picks the option showing `label` in the select `testid` (as a person clicks it).
async fn pick(app: &App, testid: &str, label: &str) -> TestResult {
    app.click(&format!("[data-testid={testid}]")).await?;
    let option = app
        .driver
        .query(By::XPath(format!(
            "//select[@data-testid='{testid}']//option[normalize-space(text())='{label}']"
        )))
        .wait(Duration::from_secs(15), Duration::from_millis(100))
        .first()
        .await?;
    option.click().await?;
    Ok(())
}

/// Whether the text a select shows fits in it, arrow included (WebKit cuts it without an
/// ellipsis: "mock-model" read "mock").
async fn select_fits(app: &App, css: &str) -> TestResult<(f64, f64)> {
    let v = app
        .driver
        .execute(
            "const s = document.querySelector(arguments[0]); const c = document.createElement('canvas').getContext('2d'); const st = getComputedStyle(s); c.font = st.font; const text = s.options[s.selectedIndex].text; return [s.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight), c.measureText(text).width];",
            vec![serde_json::json!(css)],
        )
        .await?;
    let pair: (f64, f64) = serde_json::from_value(v.json().clone())?;
    Ok(pair)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_sets_up_a_local_server_in_one_place_and_the_window_switches_its_model()
-> TestResult {
    let Some(binary) = preflight() else {
        return Ok(());
    };
    let project = list_project();
    let root = std::fs::canonicalize(project.path())?.display().to_string();
    let config = tempfile::tempdir()?;
    let data = tempfile::tempdir()?;
    // Two rules of the user's: one kept for this project ("always allow"), one for every project.
    let user_rules = format!(
        "# my rules\n[network]\ndenied_domains = [\"example.com\"]\n\n[projects.\"{root}\".commands]\nallow = [\"make check\"]\n"
    );
    std::fs::write(config.path().join("policy.toml"), &user_rules)?;
    // At llama.cpp's usual address when it is free, so the first-run screen finds it.
    let scenario = r#"{"name": "a local server with two models", "format": "openai",
            "models": ["mock-model", "other-model"],
            "turns": [
              {"expect": {"model": "mock-model", "contains": ["Say hello"]}, "reply": {"text": "Hello from mock-model."}},
              {"expect": {"model": "other-model", "contains": ["Again, please"]}, "reply": {"text": "Hello from other-model."}}
            ]}"#;
    let server =
        match ScriptedServer::start_at(Scenario::from_json(scenario)?, "127.0.0.1:8080").await {
            Ok(s) => s,
            Err(e) => {
                eprintln!("127.0.0.1:8080 is taken ({e}): the detected-server check is skipped");
                ScriptedServer::start(Scenario::from_json(scenario)?).await?
            }
        };
    let data_dir = data.path().display().to_string();
    let app = App::launch_with_env(
        &binary,
        &["--project", &root],
        config.path(),
        &[("TANDEM_DATA_DIR", data_dir.as_str())],
    )
    .await?;

    // First run: another address lists the server's models, each readable whole. The look
    // for local servers ends first (it opens or closes the address fold).
    app.wait_for("[data-testid=first-run]").await?;
    app.wait_for("[data-testid=no-local], [data-testid=local-server]")
        .await?;
    if server.base_url() == "http://127.0.0.1:8080/v1" {
        app.wait_text("[data-testid=local-server]", "llama.cpp server is running")
            .await?;
        for width in [1280, 900] {
            app.driver.set_window_rect(0, 0, width, 800).await?;
            let (room, text) = select_fits(&app, "[data-testid=local-model]").await?;
            assert!(
                room >= text + 16.0,
                "at {width} px the detected server's model list shows {text} px of text in {room} px"
            );
        }
        screenshots(&app, "settings-00-first-run-detected").await?;
    }
    let url = manual_address(&app).await?;
    url.clear().await?;
    url.send_keys(server.base_url()).await?;
    app.click("[data-testid=manual-connect]").await?;
    app.wait_text(".manual-server", "Use this server").await?;
    assert!(
        app.all("[data-testid=no-local]").await?.is_empty(),
        "“No local server answered” is gone once one did"
    );
    for width in [1280, 900] {
        app.driver.set_window_rect(0, 0, width, 800).await?;
        let (room, text) = select_fits(&app, ".manual-server select").await?;
        assert!(
            room >= text + 16.0,
            "at {width} px the model list shows {text} px of text in {room} px"
        );
    }
    screenshots(&app, "settings-00-first-run-models").await?;
    // Skipped: set up in Settings instead.
    app.click("[data-testid=first-run-skip]").await?;
    let picker = app.wait_for("[data-testid=model-picker]").await?;
    assert_eq!(picker.attr("data-model").await?.as_deref(), Some(""));

    app.click("[data-testid=settings-button]").await?;
    app.wait_text("[data-testid=settings-in-use]", "No model is chosen yet")
        .await?;
    app.click("[data-testid=add-local]").await?;
    let base = app.wait_for("[data-testid=provider-base-url]").await?;
    assert_eq!(
        base.value().await?.as_deref(),
        Some(protocol::DEFAULT_LOCAL_URL),
        "one default address for local servers"
    );
    base.clear().await?;
    base.send_keys(server.base_url()).await?;
    app.click("[data-testid=test-connection]").await?;
    app.wait_text("[data-testid=test-result]", "Connected — 2 models")
        .await?;
    app.wait_text("[data-testid=settings-in-use]", "once you save")
        .await?;
    screenshots(&app, "settings-01-connected").await?;
    // Advanced, unfolded: the context size, calls written as text and the small-model help.
    app.click("[data-testid=provider-advanced] summary").await?;
    app.wait_for("[data-testid=provider-small-model]")
        .await?
        .scroll_into_view()
        .await?;
    app.screenshot("settings-01b-advanced").await?;
    app.click("[data-testid=settings-save]").await?;
    app.wait_text("[data-testid=saved-note]", "Saved.").await?;
    let saved = std::fs::read_to_string(config.path().join("settings.toml"))?;
    assert!(
        saved.contains(server.base_url()) && saved.contains("mock-model"),
        "{saved}"
    );
    // Saved: closing asks nothing.
    app.click("[data-testid=settings-close]").await?;
    app.wait_gone("[data-testid=settings-view]").await?;

    // A task runs on it.
    let picker = app
        .wait_for("[data-testid=model-picker][data-model=mock-model]")
        .await?;
    let _ = picker;
    send(&app, "Say hello").await?;
    wait_content(&app, "[data-testid=transcript]", "Hello from mock-model.").await?;
    assert!(app.all("[data-testid=transcript-error]").await?.is_empty());

    // The window switches the model; the next message goes to it.
    pick(&app, "model-picker", "other-model").await?;
    app.wait_for("[data-testid=model-picker][data-model=other-model]")
        .await?;
    let shown = app
        .driver
        .execute(
            "const s = document.querySelector('[data-testid=model-picker]'); return s.options[s.selectedIndex].text;",
            Vec::new(),
        )
        .await?;
    assert_eq!(shown.json().as_str(), Some("other-model"));
    // The driver leaves the select's list open (WebKit paints the old choice until it closes);
    // a person's next click closes it.
    app.click("[data-testid=transcript]").await?;
    screenshots(&app, "settings-02-model-picker").await?;
    send(&app, "Again, please").await?;
    wait_content(&app, "[data-testid=transcript]", "Hello from other-model.").await?;

    // The rules in words; the user's own first, each removable.
    app.click("[data-testid=settings-button]").await?;
    app.click("[data-testid=settings-tab-rules]").await?;
    let own = app.wait_count("[data-testid=own-rule]", 2).await?;
    let first = own[0].text().await?;
    assert!(
        first.contains("Run “make check” without asking") && first.contains("This project"),
        "{first:?}"
    );
    wait_content(
        &app,
        "[data-testid=rules]",
        "Files Tandem never reads or changes",
    )
    .await?;
    let all = text_content(&app, "[data-testid=rules]").await?;
    assert!(!all.contains("paths.protected"), "{all}");
    screenshots(&app, "settings-03-rules").await?;
    app.click("[data-testid=rule-remove]").await?;
    // A look that fails ends the wait with its error.
    let failed = Cell::new(None);
    let removed = wait_until(
        "the removed rule to leave the list",
        Duration::from_secs(10),
        || async {
            match app.all("[data-testid=own-rule]").await {
                Ok(rules) => rules.len() == 1,
                Err(e) => {
                    failed.set(Some(e));
                    true
                }
            }
        },
    )
    .await;
    if let Some(e) = failed.take() {
        return Err(e);
    }
    assert!(removed.is_ok(), "the rule stays listed");
    let left = std::fs::read_to_string(config.path().join("policy.toml"))?;
    assert!(
        !left.contains("make check")
            && left.contains("example.com")
            && left.starts_with("# my rules"),
        "{left}"
    );
    // A rule is added in the window (issue 25: rules could only be removed there), and the
    // project is trusted; both land in the user's own file.
    app.click("[data-testid=rule-add]").await?;
    pick(&app, "rule-kind", "Never run a command").await?;
    app.wait_for("[data-testid=rule-value]")
        .await?
        .send_keys("make deploy")
        .await?;
    pick(&app, "rule-where", "All projects").await?;
    app.click("[data-testid=rules]").await?;
    screenshots(&app, "settings-03b-rule-form").await?;
    app.click("[data-testid=rule-save]").await?;
    app.wait_count("[data-testid=own-rule]", 2).await?;
    wait_content(&app, "[data-testid=own-rules]", "Never run “make deploy”").await?;
    app.click("[data-testid=trust-project]").await?;
    // The file as last read; a read that fails ends the wait with its error.
    let mut read = Ok(String::new());
    let trusted = wait_until(
        "the project to be trusted in policy.toml",
        Duration::from_secs(10),
        || {
            read = std::fs::read_to_string(config.path().join("policy.toml"));
            ready(
                read.as_ref()
                    .map_or(true, |t| t.contains("trusted_projects")),
            )
        },
    )
    .await;
    let saved = read?;
    assert!(trusted.is_ok(), "not trusted: {saved}");
    assert!(
        saved.contains("make deploy") && saved.contains("# my rules"),
        "{saved}"
    );
    app.wait_for("[data-testid=trust-project]:checked").await?;
    screenshots(&app, "settings-03c-rules-trusted").await?;
    app.click("[data-testid=settings-close]").await?;
    app.wait_gone("[data-testid=settings-view]").await?;

    // Full auto asks first and says what it still never does.
    pick(&app, "mode-select", "Full auto").await?;
    app.wait_text("[data-testid=full-auto-limits]", "administrator")
        .await?;
    screenshots(&app, "settings-04-full-auto").await?;
    app.click("[data-testid=full-auto-no]").await?;
    let mode = app.wait_for("[data-testid=mode-select]").await?;
    assert_eq!(mode.value().await?.as_deref(), Some("ask"));
    app.quit().await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_model_server_is_explained_in_words_with_retry_and_settings() -> TestResult {
    let Some(binary) = preflight() else {
        return Ok(());
    };
    let project = list_project();
    let root = project.path().display().to_string();
    for (theme, suffix) in [(None, "light"), (Some("Adwaita:dark"), "dark")] {
        let config = tempfile::tempdir()?;
        let data = tempfile::tempdir()?;
        // Bound and let go: nothing listens there now.
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        let url = format!("http://127.0.0.1:{port}/v1");
        let data_dir = data.path().display().to_string();
        let mut env = vec![
            ("TANDEM_PROVIDER", "openai"),
            ("TANDEM_BASE_URL", url.as_str()),
            ("TANDEM_MODEL", "qwen2.5-coder:7b"),
            ("TANDEM_DATA_DIR", data_dir.as_str()),
        ];
        if let Some(t) = theme {
            env.push(("GTK_THEME", t));
        }
        let app = App::launch_with_env(&binary, &["--project", &root], config.path(), &env).await?;
        send(&app, "Fix the bug").await?;
        let shown = app
            .wait_text("[data-testid=transcript-error]", "Nothing answered at")
            .await?;
        assert!(
            shown.contains(&format!("Nothing answered at {url}")),
            "{shown:?}"
        );
        // The words, then the cause folded away (for a bug report, not to read first).
        let words = app
            .wait_text(
                "[data-testid=transcript-error] .error-words",
                "Nothing answered",
            )
            .await?;
        assert!(!words.contains("error sending request"), "{words:?}");
        let fold = app
            .wait_for("[data-testid=transcript-error] [data-testid=error-detail]")
            .await?;
        assert_eq!(fold.attr("open").await?, None, "the cause starts folded");
        let seen = text_content(&app, "[data-testid=transcript]").await?;
        assert_eq!(
            seen.matches("trying again").count(),
            1,
            "one line while retrying: {seen:?}"
        );
        app.wait_for("[data-testid=transcript-error] [data-testid=retry-button]")
            .await?;
        app.wait_for("[data-testid=transcript-error] [data-testid=open-settings-button]")
            .await?;
        screenshots(&app, &format!("errors-01-stopped-server-{suffix}")).await?;
        app.click("[data-testid=open-settings-button]").await?;
        app.wait_for("[data-testid=settings-view]").await?;
        screenshots(&app, &format!("settings-05-models-{suffix}")).await?;
        app.click("[data-testid=settings-tab-rules]").await?;
        app.wait_for("[data-testid=rule-limits]").await?;
        screenshots(&app, &format!("settings-06-rules-{suffix}")).await?;
        app.click("[data-testid=settings-close]").await?;
        app.wait_gone("[data-testid=settings-view]").await?;
        pick(&app, "mode-select", "Full auto").await?;
        app.wait_text("[data-testid=full-auto-limits]", "administrator")
            .await?;
        screenshots(&app, &format!("settings-07-full-auto-{suffix}")).await?;
        app.click("[data-testid=full-auto-no]").await?;
        app.quit().await?;
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web_search_is_set_up_and_tried_in_settings() -> TestResult {
    let Some(s) = Scripted::start("app_no_model_calls.json").await? else {
        return Ok(());
    };
    // A SearXNG stand-in on loopback: every search gets two results.
    let (url, asked) = test_support::http::serve_recording(|_| {
        test_support::http::respond(
            "200 OK",
            "application/json",
            r#"{"results":[{"title":"Tandem, the agent","url":"https://tandem.example","content":"a coding agent"},{"title":"Another page","url":"https://other.example","content":"more"}]}"#,
            "",
        )
    })
    .await;
    let app = s.launch(&[]).await?;
    app.click("[data-testid=settings-button]").await?;
    app.click("[data-testid=settings-tab-web]").await?;
    pick(
        &app,
        "web-search-provider",
        "SearXNG (a server of your own)",
    )
    .await?;
    // An address the engine cannot use is refused in words, and nothing is written.
    let field = app.wait_for("[data-testid=web-search-url]").await?;
    field.send_keys("searx.local").await?;
    app.click("[data-testid=web-search-save]").await?;
    let refused = wait_content(&app, "[data-testid=web-search-error]", "Web search:").await?;
    assert!(refused.contains("http://"), "{refused:?}");
    screenshots(&app, "settings-08-web-search-refused").await?;
    let settings = s.config.path().join("settings.toml");
    assert!(
        !std::fs::read_to_string(&settings).is_ok_and(|t| t.contains("[web_search]")),
        "a refused address was saved"
    );
    field.clear().await?;
    field.send_keys(&url).await?;
    app.click("[data-testid=web-search-test]").await?;
    let result = wait_content(&app, "[data-testid=web-search-result]", "Tandem, the agent").await?;
    assert!(result.contains("Connected: 2 results"), "{result:?}");
    assert!(
        test_support::http::first_request(&asked, Duration::from_secs(5))
            .is_some_and(|r| r.starts_with("GET /search?q="))
    );
    screenshots(&app, "settings-08-web-search").await?;
    app.click("[data-testid=web-search-save]").await?;
    app.wait_for("[data-testid=web-search-saved]").await?;
    let saved = std::fs::read_to_string(s.config.path().join("settings.toml"))?;
    assert!(
        saved.contains("[web_search]")
            && saved.contains("provider = \"searxng\"")
            && saved.contains(&url),
        "{saved}"
    );
    app.quit().await?;
    Ok(())
}

/// A skill in the project and MCP servers (the user's, and one from the project that waits for
/// approval), each the tiny stdio server of `tests/mcp`.
fn skill_and_servers(s: &Scripted) -> TestResult {
    let project = s.project.path();
    write(
        project,
        ".tandem/skills/word-count/skill.json",
        br#"{"name": "word-count", "description": "Counts the words of a file", "triggers": ["word count"],
  "tools": [{"name": "count_words", "description": "The number of words in one file",
    "inputSchema": {"type": "object", "properties": {"file": {"type": "string"}}, "required": ["file"]},
    "run": ["wc", "-w", "{{file}}"]}]}"#,
    );
    write(
        project,
        ".tandem/skills/word-count/SKILL.md",
        b"Say how many words, in a sentence.",
    );
    let server = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("mcp/tiny_server.py")
        .canonicalize()?;
    let python = if Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    };
    let entry = |marker: &str| serde_json::json!({"command": python, "args": [server.display().to_string(), "--marker", marker]});
    std::fs::write(
        s.config.path().join("mcp.json"),
        serde_json::json!({"mcpServers": {"tiny": entry("tiny.txt")}}).to_string(),
    )?;
    // For the second launch: a server that cannot start.
    let mut broken = entry("broken.txt");
    if let Some(args) = broken["args"].as_array_mut() {
        args.push("--fail-start".into());
    }
    std::fs::write(
        s.config.path().join("mcp-with-broken.json"),
        serde_json::json!({"mcpServers": {"tiny": entry("tiny.txt"), "broken": broken}})
            .to_string(),
    )?;
    write(
        project,
        ".tandem/mcp.json",
        serde_json::json!({"mcpServers": {"repo": entry("repo.txt")}})
            .to_string()
            .as_bytes(),
    );
    Ok(())
}

/// Settings' Skills and Tool servers tabs at both sizes, under `name`.
async fn extension_tabs(app: &App, name: &str) -> TestResult {
    app.click("[data-testid=settings-button]").await?;
    app.click("[data-testid=settings-tab-skills]").await?;
    app.wait_for("[data-testid=skill-card][data-name=word-count]")
        .await?;
    screenshots(app, &format!("{name}-skills")).await?;
    app.click("[data-testid=settings-tab-mcp]").await?;
    app.wait_for("[data-testid=mcp-server][data-name=tiny][data-state=running]")
        .await?;
    screenshots(app, &format!("{name}-tool-servers")).await?;
    Ok(())
}

/// The server that cannot start, once it was given up on: its last stderr lines shown.
async fn failed_server(app: &App, name: &str) -> TestResult {
    // A look that fails ends the wait with its error.
    let failed = Cell::new(None);
    let shown = wait_until(
        "the broken server to be shown failed",
        Duration::from_secs(30),
        || async {
            match app
                .all("[data-testid=mcp-server][data-name=broken][data-state=failed]")
                .await
            {
                Ok(servers) => !servers.is_empty(),
                Err(e) => {
                    failed.set(Some(e));
                    true
                }
            }
        },
    )
    .await;
    if let Some(e) = failed.take() {
        return Err(e);
    }
    shown.map_err(|_| "the broken server was never shown failed")?;
    let card = app
        .wait_text(
            "[data-testid=mcp-server][data-name=broken] [data-testid=mcp-stderr]",
            "the database is missing",
        )
        .await?;
    assert!(card.contains("cannot start"), "{card:?}");
    app.wait_for("[data-testid=mcp-server][data-name=broken] [data-testid=mcp-restart]")
        .await?;
    screenshots(app, &format!("{name}-failed")).await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_lists_a_skill_and_an_mcp_server_with_its_tools() -> TestResult {
    let Some(s) = Scripted::start("app_skill_and_tools.json").await? else {
        return Ok(());
    };
    skill_and_servers(&s)?;
    let app = s.launch(&[]).await?;

    // A task that mentions the trigger: the skill is activated and its tool runs.
    send(&app, "What is the word count of list.txt?").await?;
    let activated = app
        .wait_text(
            "[data-testid=skill-activated]",
            "Skill word-count activated",
        )
        .await?;
    assert!(
        activated.contains("your task mentions “word count”"),
        "{activated:?}"
    );
    app.wait_text("[data-testid=done-summary]", "list.txt has 40 words")
        .await?;
    screenshots(&app, "extensions-01-transcript").await?;

    // Settings lists the skill: where it came from, its trigger and its tool.
    app.click("[data-testid=settings-button]").await?;
    app.click("[data-testid=settings-tab-skills]").await?;
    let card = app
        .wait_text(
            "[data-testid=skill-card][data-name=word-count]",
            "count_words",
        )
        .await?;
    for shown in [
        "This project",
        "Counts the words of a file",
        "word count",
        "wc -w {{file}}",
    ] {
        assert!(card.contains(shown), "{shown:?} not in {card:?}");
    }
    screenshots(&app, "extensions-02-skills").await?;

    // The MCP servers: the user's runs with its tools; the project's waits for approval and
    // has started nothing.
    app.click("[data-testid=settings-tab-mcp]").await?;
    let tiny = app
        .wait_text(
            "[data-testid=mcp-server][data-name=tiny][data-state=running]",
            "tiny__echo",
        )
        .await?;
    assert!(tiny.contains("Says the text back."), "{tiny:?}");
    assert!(
        tiny.contains("Runs in the sandbox, without the network"),
        "{tiny:?}"
    );
    assert_eq!(
        app.all("[data-testid=mcp-server][data-name=tiny] [data-testid=mcp-tool]")
            .await?
            .len(),
        6
    );
    app.wait_for("[data-testid=mcp-server][data-name=repo][data-state=needs_approval]")
        .await?;
    assert!(
        !s.project.path().join("repo.txt").exists(),
        "the project's server ran"
    );
    screenshots(&app, "extensions-03-tool-servers").await?;
    app.click("[data-testid=mcp-server][data-name=repo] [data-testid=mcp-approve]")
        .await?;
    app.wait_text(
        "[data-testid=mcp-server][data-name=repo][data-state=running]",
        "repo__echo",
    )
    .await?;
    assert!(s.project.path().join("repo.txt").exists());
    screenshots(&app, "extensions-04-approved").await?;

    // A server added in the window, no JSON written by hand: it starts with its tools, lands
    // in the user's mcp.json, and goes again after Remove and a second question.
    let tiny_server = Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp/tiny_server.py");
    app.click("[data-testid=mcp-add]").await?;
    app.wait_for("[data-testid=mcp-add-name]")
        .await?
        .send_keys("added")
        .await?;
    app.wait_for("[data-testid=mcp-add-command]")
        .await?
        .send_keys(format!(
            "python3 '{}' --marker added.txt",
            tiny_server.display()
        ))
        .await?;
    screenshots(&app, "extensions-05-add-server").await?;
    app.click("[data-testid=mcp-add-submit]").await?;
    app.wait_text(
        "[data-testid=mcp-server][data-name=added][data-state=running]",
        "added__echo",
    )
    .await?;
    let file = std::fs::read_to_string(s.config.path().join("mcp.json"))?;
    assert!(
        file.contains("\"added\"") && file.contains("\"tiny\""),
        "{file}"
    );
    app.click("[data-testid=mcp-server][data-name=added] [data-testid=mcp-remove]")
        .await?;
    app.click("[data-testid=mcp-server][data-name=added] [data-testid=mcp-remove-confirm]")
        .await?;
    app.wait_gone("[data-testid=mcp-server][data-name=added]")
        .await?;
    let file = std::fs::read_to_string(s.config.path().join("mcp.json"))?;
    assert!(
        !file.contains("\"added\"") && file.contains("\"tiny\""),
        "{file}"
    );
    app.click("[data-testid=settings-close]").await?;
    app.quit().await?;

    // The same screens in the dark, with a server that cannot start: it is tried again three
    // times, then shown failed with its last stderr lines.
    std::fs::rename(
        s.config.path().join("mcp-with-broken.json"),
        s.config.path().join("mcp.json"),
    )?;
    let dark = s.launch(&[("GTK_THEME", "Adwaita:dark")]).await?;
    extension_tabs(&dark, "extensions-05-dark").await?;
    failed_server(&dark, "extensions-06-dark").await?;
    dark.quit().await?;
    Ok(())
}

/// What has the cursor: the testid of the focused element (or of the card it is in).
async fn focused_testid(app: &App) -> TestResult<String> {
    let v = app
        .driver
        .execute(
            "const a = document.activeElement; return a ? (a.getAttribute('data-testid') || a.tagName) : '';",
            Vec::new(),
        )
        .await?;
    Ok(v.json().as_str().unwrap_or("").to_string())
}

async fn composer_value(app: &App) -> TestResult<String> {
    let v = app
        .driver
        .execute(
            "const c = document.querySelector('[data-testid=composer-input]'); return c ? c.value : '';",
            Vec::new(),
        )
        .await?;
    Ok(v.json().as_str().unwrap_or("").to_string())
}

/// Issue 22 §1: typing "also add a test" in the message box while an edit's card arrives
/// approved the edit (the "a" of "also"), and "d"/"a" under Settings answered a card nobody
/// could see. Keys answer only a card the person chose, and the typed text stays theirs.
/// `typing_first`: the person is mid-word when the card arrives; otherwise the card arrives
/// into the empty message box they just sent from, and they start a follow-up after reading
/// for a while.
async fn approval_keys_only_by_intent(dark: bool, typing_first: bool, shots: &str) -> TestResult {
    let Some(s) = Scripted::start("app_keys_by_intent.json").await? else {
        return Ok(());
    };
    let env: &[(&str, &str)] = if dark {
        &[("GTK_THEME", "Adwaita:dark")]
    } else {
        &[]
    };
    let app = s.launch(env).await?;
    let list = s.project.path().join("list.txt");
    let before = std::fs::read_to_string(&list)?;
    send(&app, "Rename line 2").await?;

    // The person goes on writing; the card arrives in the middle of a word.
    let composer = app.wait_for("[data-testid=composer-input]").await?;
    composer.click().await?;
    let typed = "also add a test";
    let (first, rest) = typed.split_at(if typing_first { 5 } else { 0 });
    for c in first.chars() {
        app.driver
            .active_element()
            .await?
            .send_keys(c.to_string())
            .await?;
        tokio::time::sleep(Duration::from_millis(60)).await;
    }
    if let Err(e) = app.wait_for("[data-testid=approval-card]").await {
        app.screenshot(&format!("{shots}-no-card")).await?;
        return Err(format!("{e}; the model server saw {:?}", s.server.failures()).into());
    }
    if !typing_first {
        tokio::time::sleep(Duration::from_millis(2500)).await;
    }
    for c in rest.chars() {
        app.driver
            .active_element()
            .await?
            .send_keys(c.to_string())
            .await?;
        tokio::time::sleep(Duration::from_millis(60)).await;
    }
    // Long enough for the card's delay and for a card that would take an idle, empty box.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    app.screenshot(&format!("{shots}-typing-while-a-card-waits"))
        .await?;
    assert_eq!(composer_value(&app).await?, typed, "the typed text is kept");
    assert_eq!(focused_testid(&app).await?, "composer-input");
    assert_eq!(std::fs::read_to_string(&list)?, before, "nothing approved");
    assert_eq!(app.all("[data-testid=approval-card]").await?.len(), 1);
    assert_eq!(
        app.attrs("[data-testid=approval-card]", "data-keys")
            .await?,
        vec!["off".to_string()]
    );

    // Keys pressed with Settings open answer nothing behind it, on any tab.
    app.click("[data-testid=settings-button]").await?;
    app.wait_for("[data-testid=settings-view]").await?;
    for tab in ["rules", "skills"] {
        app.click(&format!("[data-testid=settings-tab-{tab}]"))
            .await?;
        for key in ["d", "a"] {
            app.driver.active_element().await?.send_keys(key).await?;
        }
    }
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(
        std::fs::read_to_string(&list)?,
        before,
        "nothing answered under Settings"
    );
    app.driver
        .active_element()
        .await?
        .send_keys(Key::Escape)
        .await?;
    app.wait_gone("[data-testid=settings-view]").await?;
    assert_eq!(app.all("[data-testid=approval-card]").await?.len(), 1);
    assert_eq!(composer_value(&app).await?, typed);

    // The person chooses the card (a click on its heading), reads it, and presses a.
    app.click("[data-testid=approval-card] .approval-heading strong")
        .await?;
    app.wait_for("[data-testid=approval-card][data-keys=on]")
        .await?;
    app.driver.active_element().await?.send_keys("a").await?;
    wait_content(&app, "[data-testid=transcript]", "Renamed line 2.").await?;
    assert_eq!(
        std::fs::read_to_string(&list)?,
        before.replace("line 2\n", "line two\n")
    );

    // What they wrote is still theirs to send.
    assert_eq!(composer_value(&app).await?, typed);
    app.click("[data-testid=send-button]").await?;
    wait_content(&app, "[data-testid=transcript]", "A test comes next time.").await?;
    app.quit().await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approval_keys_answer_only_a_card_the_person_chose() -> TestResult {
    approval_keys_only_by_intent(false, true, "keys-light").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_follow_up_typed_after_reading_answers_no_card_in_dark() -> TestResult {
    approval_keys_only_by_intent(true, false, "keys-dark").await
}

/// Issue 25: a running command's card shows its output live (it showed nothing until the
/// command ended), and the result replaces it when it does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_commands_output_shows_live_on_its_card() -> TestResult {
    let Some(s) = Scripted::start("app_live_output.json").await? else {
        return Ok(());
    };
    let app = s.launch(&[]).await?;
    send(&app, "Count to eight").await?;
    // A command in the sandbox runs without a question here.
    app.wait_text("[data-testid=tool-live-output]", "step 2")
        .await?;
    app.screenshot("live-output-01-running").await?;
    wait_content(&app, "[data-testid=transcript]", "Counted to eight.").await?;
    assert!(app.all("[data-testid=tool-live-output]").await?.is_empty());
    app.quit().await?;
    Ok(())
}

/// Issue 27: the session list's search box finds, in the real window, the session that
/// mentioned a word, and opens it at that message — with the keyboard only, from the search box
/// on: typing, Tab to the hit, Enter.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_search_box_finds_an_old_session_and_opens_it_at_the_match() -> TestResult {
    let Some(s) = Scripted::start("app_search_sessions.json").await? else {
        return Ok(());
    };
    let app = s.launch(&[]).await?;
    send(&app, "Write down the zeppelin idea").await?;
    wait_content(
        &app,
        "[data-testid=transcript]",
        "The zeppelin module is described",
    )
    .await?;
    app.wait_for("[data-testid=sessions-tab]")
        .await?
        .click()
        .await?;
    app.wait_for("[data-testid=new-session]")
        .await?
        .click()
        .await?;
    send(&app, "Tidy the readme").await?;
    wait_content(&app, "[data-testid=transcript]", "The readme is tidy.").await?;
    assert_eq!(app.all("[data-testid=session-item]").await?.len(), 2);

    let search = app.wait_for("[data-testid=session-search]").await?;
    search.click().await?;
    for c in "ZEPPELIN".chars() {
        app.driver
            .active_element()
            .await?
            .send_keys(c.to_string())
            .await?;
    }
    let hits = wait_content(&app, ".search-hits", "Write down the zeppelin idea").await?;
    assert!(!hits.contains("Tidy the readme"), "{hits:?}");
    wait_content(&app, "[data-testid=search-count]", "1 session mentions").await?;
    app.screenshot("agent-27-search").await?;
    app.driver
        .active_element()
        .await?
        .send_keys(Key::Tab)
        .await?;
    assert_eq!(focused_testid(&app).await?, "search-hit");
    app.driver
        .active_element()
        .await?
        .send_keys(Key::Enter)
        .await?;
    let found = wait_content(&app, "[data-testid=search-match]", "zeppelin").await?;
    assert!(found.contains("Write down the zeppelin idea"), "{found:?}");
    app.screenshot("agent-27-search-opened").await?;
    assert!(
        app.all("[data-testid=export-session]").await?.len() == 1,
        "Export is offered for the open session"
    );
    app.quit().await?;
    Ok(())
}

/// Presses Tab (Shift+Tab when `back`) until `testid` has the cursor; the testids met on the way.
async fn tab_to(app: &App, back: bool, testid: &str) -> TestResult<Vec<String>> {
    let mut met = Vec::new();
    for _ in 0..60 {
        let now = focused_testid(app).await?;
        if now == testid {
            return Ok(met);
        }
        met.push(now);
        let el = app.driver.active_element().await?;
        if back {
            el.send_keys(Key::Shift + Key::Tab).await?;
        } else {
            el.send_keys(Key::Tab).await?;
        }
    }
    Err(format!("{testid} is never reached with the keyboard; met {met:?}").into())
}

/// Issue 27: the window driven with the keyboard only: Tab reaches the controls in reading
/// order (the toolbar before the message box), a task is sent, its edit approved from the card,
/// and Settings opened and closed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_window_works_with_the_keyboard_only() -> TestResult {
    let Some(s) = Scripted::start("app_keyboard_only.json").await? else {
        return Ok(());
    };
    let app = s.launch(&[]).await?;
    let list = s.project.path().join("list.txt");
    app.wait_for("[data-testid=composer-input]").await?;
    let met = tab_to(&app, false, "composer-input").await?;
    let at = |id: &str| met.iter().position(|m| m == id);
    let settings = at("settings-button").ok_or("Settings is not on the way to the message box")?;
    let search = at("session-search").ok_or("the session search is not on the way")?;
    assert!(
        settings < search,
        "the toolbar comes before the sidebar: {met:?}"
    );

    for c in "Rename line 2".chars() {
        app.driver
            .active_element()
            .await?
            .send_keys(c.to_string())
            .await?;
    }
    app.driver
        .active_element()
        .await?
        .send_keys(Key::Enter)
        .await?;
    app.wait_for("[data-testid=approval-card]").await?;
    tab_to(&app, true, "approval-card").await?;
    // Keys answer a card that has had the cursor a moment.
    tokio::time::sleep(Duration::from_millis(800)).await;
    app.driver.active_element().await?.send_keys("a").await?;
    // The file as last read; a read that fails ends the wait with its error.
    let mut read = Ok(String::new());
    let approved = wait_until(
        "the edit to be approved with the keyboard",
        Duration::from_secs(20),
        || {
            read = std::fs::read_to_string(&list);
            ready(read.as_ref().map_or(true, |t| t.contains("line two")))
        },
    )
    .await;
    read?;
    if approved.is_err() {
        app.screenshot("keyboard-only-not-approved").await?;
        return Err("the edit was not approved with the keyboard".into());
    }
    wait_content(&app, "[data-testid=transcript]", "Renamed line 2.").await?;

    tab_to(&app, true, "settings-button").await?;
    app.driver
        .active_element()
        .await?
        .send_keys(Key::Enter)
        .await?;
    app.wait_for("[data-testid=settings-view]").await?;
    app.screenshot("agent-27-keyboard-settings").await?;
    tab_to(&app, false, "settings-tab-limits").await?;
    app.driver
        .active_element()
        .await?
        .send_keys(Key::Enter)
        .await?;
    app.wait_for("[data-testid=limit-session-usd]").await?;
    app.screenshot("agent-27-limits").await?;
    tab_to(&app, false, "settings-tab-notifications").await?;
    app.driver
        .active_element()
        .await?
        .send_keys(Key::Enter)
        .await?;
    app.wait_for("[data-testid=notify-questions]").await?;
    app.screenshot("agent-27-notifications").await?;
    app.driver
        .active_element()
        .await?
        .send_keys(Key::Escape)
        .await?;
    app.wait_gone("[data-testid=settings-view]").await?;
    app.quit().await?;
    Ok(())
}

/// Issue 27: a spending limit in settings.toml stops the turn in the real window; the
/// transcript says what was spent, the meter shows the limit, and raising it goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spending_limit_stops_the_turn_and_raising_it_goes_on() -> TestResult {
    let Some(s) = Scripted::start("app_spend_limit.json").await? else {
        return Ok(());
    };
    std::fs::write(
        s.config.path().join("settings.toml"),
        "[limits]\nsession_usd = 0.002\n",
    )?;
    let app = s.launch(&[]).await?;
    send(&app, "Read the list").await?;
    let card = wait_content(
        &app,
        "[data-testid=turn-outcome][data-kind=limit_reached]",
        "this session's limit of $0.002 is reached ($0.003",
    )
    .await?;
    assert!(
        card.contains("Stopped before the next model call"),
        "{card:?}"
    );
    wait_content(&app, "[data-testid=cost-limit]", "limit $0.002").await?;
    assert_eq!(s.server.requests().len(), 1, "no call past the limit");
    app.screenshot("agent-27-limit-reached").await?;
    app.wait_for("[data-testid=raise-limit]")
        .await?
        .click()
        .await?;
    wait_content(&app, "[data-testid=transcript]", "Read the list: 20 lines.").await?;
    wait_content(&app, "[data-testid=cost-limit]", "limit $1.00").await?;
    app.quit().await?;
    Ok(())
}

/// Issue 27: a question that arrives while the window is not in front (minimised) is sent to
/// the desktop's notification service; clicking the notification brings the window forward on
/// the session, with its question. The service is scripted on a private session bus.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_while_the_window_is_away_is_notified_and_the_click_brings_it_back() -> TestResult
{
    let Some(s) = Scripted::start("app_notify_question.json").await? else {
        return Ok(());
    };
    let notes = e2e::FakeNotifications::start()?;
    let app = s
        .launch(&[("DBUS_SESSION_BUS_ADDRESS", notes.address.as_str())])
        .await?;
    send(&app, "Write the notes").await?;
    app.wait_text("[data-testid=message-user]", "Write the notes")
        .await?;
    // The person goes to another window while the model thinks.
    app.driver.minimize_window().await?;
    let mut sent = Vec::new();
    wait_until(
        "a notification for the question",
        Duration::from_secs(20),
        || {
            sent = notes.sent();
            ready(!sent.is_empty())
        },
    )
    .await
    .map_err(|_| "no notification came for the question")?;
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0].app, "Tandem");
    assert_eq!(sent[0].summary, "Tandem needs your approval");
    // The card's words and the project, never the tool's name (issue 46).
    let project = s
        .project
        .path()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    assert_eq!(sent[0].body, format!("Write notes.txt — {project}"));
    assert!(sent[0].actions.contains(&"default".to_string()), "{sent:?}");

    notes.click(sent[0].id)?;
    // A look that fails ends the wait with its error.
    let failed = Cell::new(None);
    let forward = wait_until(
        "the click to bring the window forward",
        Duration::from_secs(20),
        || async {
            let focused = app
                .driver
                .execute_async(
                    "const done = arguments[arguments.length - 1]; window.__TAURI_INTERNALS__.invoke('plugin:window|is_focused', {label: 'main'}).then(f => done(f)).catch(() => done(false));",
                    Vec::new(),
                )
                .await;
            match focused {
                Ok(focused) => focused.json().as_bool() == Some(true),
                Err(e) => {
                    failed.set(Some(e));
                    true
                }
            }
        },
    )
    .await;
    if let Some(e) = failed.take() {
        return Err(e.into());
    }
    forward.map_err(|_| "the click did not bring the window forward")?;
    app.wait_for("[data-testid=approval-card]").await?;
    app.screenshot("agent-27-notification-click").await?;
    app.quit().await?;
    Ok(())
}
