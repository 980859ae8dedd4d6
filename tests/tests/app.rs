//! The real app, launched through tauri-driver under a virtual display, used as a person would.

use e2e::thirtyfour::prelude::*;
use e2e::{App, TestResult, fixture_repo, preflight, write};

fn arg(path: &std::path::Path) -> String {
    path.to_string_lossy().into_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn project_from_the_command_line_shows_tree_badges_and_file_contents() -> TestResult {
    let Some(bin) = preflight() else {
        return Ok(());
    };
    let repo = fixture_repo();
    let config = tempfile::tempdir()?;
    let root = arg(repo.path());
    let app = App::launch(&bin, &[&root], config.path()).await?;

    app.wait_for("[data-testid=project-view]").await?;
    app.show_files().await?;
    app.wait_text(
        "[data-testid=project-name]",
        &repo
            .path()
            .file_name()
            .unwrap_or_default()
            .to_string_lossy(),
    )
    .await?;
    app.row("README.md").await?;
    let paths = app.tree_paths().await?;
    assert_eq!(
        paths,
        ["src", "logo.bin", "notes.txt", "README.md"],
        "ignored and hidden files stay out"
    );

    // Badges: the untracked file, the modified file rolled up to its folder, nothing on clean files.
    assert_eq!(
        app.row("notes.txt")
            .await?
            .attr("data-git")
            .await?
            .as_deref(),
        Some("untracked")
    );
    assert_eq!(
        app.row("src").await?.attr("data-git").await?.as_deref(),
        Some("modified")
    );
    assert_eq!(
        app.row("README.md")
            .await?
            .attr("data-git")
            .await?
            .as_deref(),
        Some("")
    );
    let badge = app
        .row("notes.txt")
        .await?
        .find(By::Css("[data-testid=git-badge]"))
        .await?;
    assert_eq!(badge.text().await?, "U");

    // Lazy folder: its children appear when it opens, with their own badges.
    app.row("src").await?.click().await?;
    let main = app.row("src/main.rs").await?;
    assert_eq!(main.attr("data-git").await?.as_deref(), Some("modified"));
    assert_eq!(
        app.row("src/lib.rs")
            .await?
            .attr("data-git")
            .await?
            .as_deref(),
        Some("")
    );

    // A click shows the file with line numbers.
    app.row("README.md").await?.click().await?;
    app.wait_text("[data-testid=viewer-path]", "README.md")
        .await?;
    app.wait_for("[data-testid=file-line]").await?;
    let lines = app
        .driver
        .find_all(By::Css("[data-testid=file-line]"))
        .await?;
    assert_eq!(lines.len(), 3);
    let numbers = app
        .driver
        .find_all(By::Css("[data-testid=line-number]"))
        .await?;
    let mut seen = Vec::new();
    for n in numbers {
        seen.push(n.text().await?);
    }
    assert_eq!(seen, ["1", "2", "3"]);
    assert!(lines[0].text().await?.contains("# Demo project"));
    app.screenshot("project-readme").await?;

    // A change made outside the app shows after Refresh: a new badge, the new text.
    e2e::write(
        repo.path(),
        "README.md",
        b"# Demo project, edited\n\nUsed by the end-to-end tests.\n",
    );
    app.wait_for("[data-testid=refresh-tree]")
        .await?
        .click()
        .await?;
    app.wait_for("[data-testid=tree-row][data-path=\"README.md\"][data-git=modified]")
        .await?;
    app.wait_text("[data-testid=file-viewer]", "edited").await?;

    // Syntax-highlighted source.
    app.row("src/main.rs").await?.click().await?;
    app.wait_text("[data-testid=file-viewer]", "hello, tandem")
        .await?;
    app.screenshot("project-main-rs").await?;
    app.quit().await
}

#[tokio::test(flavor = "multi_thread")]
async fn keyboard_moves_in_the_tree_and_binary_files_are_described() -> TestResult {
    let Some(bin) = preflight() else {
        return Ok(());
    };
    let repo = fixture_repo();
    let config = tempfile::tempdir()?;
    let root = arg(repo.path());
    let app = App::launch(&bin, &["--project", &root], config.path()).await?;

    app.show_files().await?;
    let tree = app.wait_for("[data-testid=file-tree]").await?;
    app.row("src").await?;
    tree.focus().await?;
    // Focus selects the first row (src); Right opens it, Down reaches src/lib.rs.
    app.wait_for("[data-path=src][aria-selected=true]").await?;
    tree.send_keys(Key::Right).await?;
    app.row("src/lib.rs").await?;
    tree.send_keys(Key::Down).await?;
    app.wait_for("[data-path=\"src/lib.rs\"][aria-selected=true]")
        .await?;
    tree.send_keys(Key::Enter).await?;
    app.wait_text("[data-testid=viewer-path]", "src/lib.rs")
        .await?;
    app.wait_text("[data-testid=file-viewer]", "pub fn add")
        .await?;

    // Down past src/main.rs to logo.bin, then Enter: a description, not garbage.
    tree.send_keys(Key::Down).await?;
    tree.send_keys(Key::Down).await?;
    app.wait_for("[data-path=\"logo.bin\"][aria-selected=true]")
        .await?;
    tree.send_keys(Key::Enter).await?;
    let notice = app
        .wait_text("[data-testid=binary-notice]", "Binary file")
        .await?;
    assert!(notice.contains("11 bytes"), "{notice}");

    // Hidden files appear when asked for; .git never does.
    app.wait_for("[data-testid=toggle-hidden]")
        .await?
        .click()
        .await?;
    app.row(".gitignore").await?;
    assert!(!app.tree_paths().await?.iter().any(|p| p == ".git"));
    app.screenshot("keyboard-and-binary").await?;
    app.quit().await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_folder_shows_the_welcome_screen_with_the_reason() -> TestResult {
    let Some(bin) = preflight() else {
        return Ok(());
    };
    let config = tempfile::tempdir()?;
    let missing = config.path().join("no-such-project");
    let app = App::launch(&bin, &[&arg(&missing)], config.path()).await?;
    app.wait_for("[data-testid=welcome-screen]").await?;
    let text = app
        .wait_text("[data-testid=welcome-error]", "does not exist")
        .await?;
    assert!(text.contains("no-such-project"), "{text}");
    app.wait_for("[data-testid=open-folder]").await?;
    app.screenshot("error-missing-folder").await?;
    app.quit().await?;

    // The refusal is in the log file, in the log folder under the config folder.
    let logs = config.path().join("logs");
    let mut text = String::new();
    let recorded = test_support::wait_until(
        "the log to record the refusal",
        std::time::Duration::from_secs(10),
        || {
            text.clear();
            for f in std::fs::read_dir(&logs).into_iter().flatten().flatten() {
                text.push_str(&std::fs::read_to_string(f.path()).unwrap_or_default());
            }
            std::future::ready(text.contains("cannot open the project given on the command line"))
        },
    )
    .await;
    assert!(
        recorded.is_ok(),
        "the log in {} never recorded the refusal: {text:?}",
        logs.display()
    );
    assert!(text.contains("no-such-project"), "{text}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_file_instead_of_a_folder_shows_the_welcome_screen_with_the_reason() -> TestResult {
    let Some(bin) = preflight() else {
        return Ok(());
    };
    let repo = fixture_repo();
    let config = tempfile::tempdir()?;
    let file = arg(&repo.path().join("README.md"));
    let app = App::launch(&bin, &["--project", &file], config.path()).await?;
    app.wait_text("[data-testid=welcome-error]", "is a file, not a folder")
        .await?;
    app.screenshot("error-file-not-folder").await?;
    app.quit().await
}

#[tokio::test(flavor = "multi_thread")]
async fn recent_projects_persist_and_vanished_ones_are_greyed_out() -> TestResult {
    let Some(bin) = preflight() else {
        return Ok(());
    };
    let config = tempfile::tempdir()?;
    let kept = fixture_repo();
    let doomed = fixture_repo();

    for project in [&doomed, &kept] {
        let app = App::launch(&bin, &[&arg(project.path())], config.path()).await?;
        app.wait_for("[data-testid=project-view]").await?;
        // Closed before quitting: the next launch starts at the welcome screen.
        app.wait_for("[data-testid=close-project]")
            .await?
            .click()
            .await?;
        app.wait_for("[data-testid=welcome-screen]").await?;
        app.quit().await?;
    }
    let doomed_path = std::fs::canonicalize(doomed.path())?;
    let kept_path = std::fs::canonicalize(kept.path())?;
    drop(doomed); // the folder is deleted

    let app = App::launch(&bin, &[], config.path()).await?;
    app.wait_for("[data-testid=welcome-screen]").await?;
    app.wait_for("[data-testid=recent-project]").await?;
    let items = app
        .driver
        .find_all(By::Css("[data-testid=recent-project]"))
        .await?;
    assert_eq!(items.len(), 2);
    assert_eq!(
        items[0].attr("data-path").await?,
        Some(arg(&kept_path)),
        "most recent first"
    );
    assert_eq!(items[0].attr("data-exists").await?.as_deref(), Some("true"));
    assert_eq!(items[1].attr("data-path").await?, Some(arg(&doomed_path)));
    assert_eq!(
        items[1].attr("data-exists").await?.as_deref(),
        Some("false")
    );
    assert!(items[1].text().await?.contains("folder not found"));
    app.screenshot("welcome-recent").await?;

    // Remove the vanished one; open the other from the list.
    items[1]
        .find(By::Css("[data-testid=recent-remove]"))
        .await?
        .click()
        .await?;
    app.wait_gone("[data-testid=recent-project][data-exists=false]")
        .await?;
    items[0]
        .find(By::Css("[data-testid=recent-open]"))
        .await?
        .click()
        .await?;
    app.wait_for("[data-testid=project-view]").await?;
    app.row("README.md").await?;
    app.quit().await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_relaunch_reopens_the_project_that_was_open_and_not_one_that_was_closed() -> TestResult {
    let Some(bin) = preflight() else {
        return Ok(());
    };
    let config = tempfile::tempdir()?;
    let project = fixture_repo();
    let app = App::launch(&bin, &[&arg(project.path())], config.path()).await?;
    app.wait_for("[data-testid=project-view]").await?;
    app.quit().await?;

    // No folder on the command line: the one open at quit comes back.
    let app = App::launch(&bin, &[], config.path()).await?;
    app.wait_for("[data-testid=project-view]").await?;
    app.row("README.md").await?;
    app.wait_for("[data-testid=close-project]")
        .await?
        .click()
        .await?;
    app.wait_for("[data-testid=welcome-screen]").await?;
    app.quit().await?;

    let app = App::launch(&bin, &[], config.path()).await?;
    app.wait_for("[data-testid=welcome-screen]").await?;
    app.wait_for("[data-testid=recent-project]").await?;
    app.quit().await
}

#[tokio::test(flavor = "multi_thread")]
async fn the_tree_follows_changes_made_outside_the_app_in_natural_order() -> TestResult {
    let Some(bin) = preflight() else {
        return Ok(());
    };
    let config = tempfile::tempdir()?;
    let repo = fixture_repo();
    let app = App::launch(&bin, &[&arg(repo.path())], config.path()).await?;
    app.show_files().await?;
    app.row("README.md").await?;
    assert_eq!(
        app.row("README.md")
            .await?
            .attr("data-git")
            .await?
            .as_deref(),
        Some("")
    );
    // Another program changes the folder; nobody presses Refresh.
    for dir in ["dir10", "dir2", "dir1"] {
        write(repo.path(), &format!("{dir}/note.txt"), b"x\n");
    }
    write(repo.path(), "README.md", b"# Changed elsewhere\n");
    app.wait_for("[data-testid=tree-row][data-path=\"dir10\"]")
        .await?;
    app.wait_for("[data-testid=tree-row][data-path=\"README.md\"][data-git=modified]")
        .await?;
    let paths = app.tree_paths().await?;
    let at = |p: &str| paths.iter().position(|x| x == p);
    assert!(
        at("dir1") < at("dir2") && at("dir2") < at("dir10"),
        "numbers sort by value: {paths:?}"
    );
    app.screenshot("tree-followed-outside-change").await?;

    // Small things a person notices: Stop with nothing to stop is not red, and the
    // composer's hint does not look like typed text.
    let looks = app
        .driver
        .execute(
            r#"const stop = document.querySelector('[data-testid=stop-button]');
               const input = document.querySelector('[data-testid=composer-input]');
               const danger = getComputedStyle(document.documentElement).getPropertyValue('--danger').trim();
               const probe = document.createElement('span');
               probe.style.color = danger;
               document.body.appendChild(probe);
               const dangerRgb = getComputedStyle(probe).color;
               probe.remove();
               // WebKit computes no style for ::placeholder; the rule that styles it is read.
               const rules = [...document.styleSheets].flatMap((s) => [...s.cssRules]);
               const hint = rules.find((r) => r.selectorText && r.selectorText.includes('textarea::placeholder'));
               return [stop.disabled, getComputedStyle(stop).color === dangerRgb, hint ? hint.style.fontStyle : 'none', hint ? hint.style.color === '' : true];"#,
            vec![],
        )
        .await?;
    assert_eq!(
        looks.json(),
        &serde_json::json!([true, false, "italic", false]),
        "[stop disabled, stop painted red, hint style, hint coloured as text]"
    );
    app.quit().await
}
