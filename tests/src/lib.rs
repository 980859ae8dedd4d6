//! The harness for end-to-end tests of the real Tandem app.
//!
//! Owns launching the built `tandem` binary through `tauri-driver` (which fronts
//! WebKitWebDriver), fixture projects made of real git repositories, and screenshots under
//! `target/e2e/`, and a scripted desktop notification service. Must not reach into the app's internals: the tests see only what a user sees.

use std::cell::Cell;
use std::future::ready;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;
use test_support::{wait_until, wait_until_blocking};
use thirtyfour::prelude::*;

mod notifications;

pub use notifications::{FakeNotifications, Sent};
pub use thirtyfour;

/// One app at a time: two WebKit instances on two cores make every test flaky and slow.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

pub type TestResult<T = ()> = Result<T, Box<dyn std::error::Error>>;

/// Checks what the tests need. Without a display or tauri-driver they fail with the way to fix
/// it, rather than pass without testing anything; `TANDEM_SKIP_E2E=1` skips them on purpose.
pub fn preflight() -> Option<PathBuf> {
    if std::env::var_os("TANDEM_SKIP_E2E").is_some() {
        eprintln!("TANDEM_SKIP_E2E is set: skipping the end-to-end test");
        return None;
    }
    assert!(
        std::env::var_os("DISPLAY").is_some(),
        "end-to-end tests need a display: run them with `make test` (which uses xvfb-run), or set TANDEM_SKIP_E2E=1"
    );
    assert!(
        tauri_driver().is_some(),
        "tauri-driver is missing: `cargo install tauri-driver --locked` (make test does it)"
    );
    let app = app_binary();
    assert!(
        app.is_file(),
        "the app binary {} is missing: build it with `cargo build --workspace --all-targets --features tandem/custom-protocol`",
        app.display()
    );
    Some(app)
}

/// The `tandem` binary next to this test's own target folder (honours CARGO_TARGET_DIR).
pub fn app_binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    // target/debug/deps/app-xxxx -> target/debug/tandem
    exe.parent()
        .and_then(Path::parent)
        .map(|dir| dir.join("tandem"))
        .unwrap_or_default()
}

fn tauri_driver() -> Option<PathBuf> {
    let from_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("tauri-driver"))
            .find(|p| p.is_file())
    });
    from_path.or_else(|| {
        let home = std::env::var_os("HOME")?;
        let p = PathBuf::from(home).join(".cargo/bin/tauri-driver");
        p.is_file().then_some(p)
    })
}

/// The folder screenshots go to: `target/e2e/` of the repository.
pub fn screenshot_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/e2e");
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// Two distinct free ports (both listeners are held until both are known).
fn free_ports() -> std::io::Result<(u16, u16)> {
    let a = TcpListener::bind("127.0.0.1:0")?;
    let b = TcpListener::bind("127.0.0.1:0")?;
    Ok((a.local_addr()?.port(), b.local_addr()?.port()))
}

/// A running tauri-driver. Dropping it sends SIGTERM, never SIGKILL: only on SIGTERM does
/// tauri-driver stop its WebKitWebDriver, and an orphan would keep the test's pipes open.
struct DriverProcess {
    child: Child,
}

impl Drop for DriverProcess {
    fn drop(&mut self) {
        let pid = self.child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        let ended = wait_until_blocking(
            "tauri-driver to end on SIGTERM",
            Duration::from_secs(5),
            || matches!(self.child.try_wait(), Ok(Some(_))),
        );
        if ended.is_ok() {
            return;
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A provider that answers nothing: enough to pass the first-run screen.
const PRESET: [(&str, &str); 3] = [
    ("TANDEM_PROVIDER", "openai"),
    ("TANDEM_BASE_URL", "http://127.0.0.1:9/v1"),
    ("TANDEM_MODEL", "none"),
];

/// A launched app with its own throwaway config folder.
pub struct App {
    pub driver: WebDriver,
    pub config_dir: PathBuf,
    // Before the process: the log is read while the app still runs.
    _log: LogOnFailure,
    _process: DriverProcess,
    _lock: tokio::sync::MutexGuard<'static, ()>,
}

/// Prints the end of the app's log when an app is dropped without `quit`, as a failing test
/// leaves it: the test's captured output then says what the app saw, also in CI (the log
/// itself is deleted with the test's config folder).
struct LogOnFailure {
    dir: PathBuf,
    armed: bool,
}

impl Drop for LogOnFailure {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            eprintln!("(no app log in {})", self.dir.display());
            return;
        };
        let mut logs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        logs.sort();
        for log in logs {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            let lines: Vec<&str> = text.lines().collect();
            let tail = &lines[lines.len().saturating_sub(60)..];
            eprintln!(
                "--- the app's log ({}), last {} lines ---\n{}",
                log.display(),
                tail.len(),
                tail.join("\n")
            );
        }
    }
}

impl App {
    /// Launches the app with these command-line arguments and a config folder of its own.
    /// A session that fails to start (the driver's port racing a previous run's shutdown) is
    /// retried with a fresh driver, twice at most; the error is reported if all attempts fail.
    pub async fn launch(app: &Path, args: &[&str], config_dir: &Path) -> TestResult<App> {
        // A provider preset keeps these tests on the project screens, past the first-run one.
        Self::launch_with_env(app, args, config_dir, &PRESET).await
    }

    /// Launches the app with extra environment variables (a provider preset, a data folder).
    pub async fn launch_with_env(
        app: &Path,
        args: &[&str],
        config_dir: &Path,
        env: &[(&str, &str)],
    ) -> TestResult<App> {
        let lock = ONE_AT_A_TIME.lock().await;
        let mut last_err = String::new();
        for attempt in 1..=3 {
            match Self::start_session(app, args, config_dir, env).await {
                Ok((driver, process)) => {
                    return Ok(App {
                        driver,
                        config_dir: config_dir.to_path_buf(),
                        _log: LogOnFailure {
                            dir: config_dir.join("logs"),
                            armed: true,
                        },
                        _process: process,
                        _lock: lock,
                    });
                }
                Err(err) => {
                    eprintln!("starting the app, attempt {attempt}: {err}");
                    last_err = err.to_string();
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
            }
        }
        Err(format!("could not start the app through tauri-driver: {last_err}").into())
    }

    async fn start_session(
        app: &Path,
        args: &[&str],
        config_dir: &Path,
        env: &[(&str, &str)],
    ) -> TestResult<(WebDriver, DriverProcess)> {
        let (port, native) = free_ports()?;
        let child = Command::new(tauri_driver().ok_or("tauri-driver missing")?)
            .args([
                "--port",
                &port.to_string(),
                "--native-port",
                &native.to_string(),
            ])
            .env("TANDEM_CONFIG_DIR", config_dir)
            // The web view keeps its storage (the window's layout) under the data home: one per
            // test, kept across a test's own restarts, so no test inherits another's panels.
            .env("XDG_DATA_HOME", config_dir.join("xdg-data"))
            .env("TANDEM_NO_KEYCHAIN", "1")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?;
        let process = DriverProcess { child };
        wait_until(
            "tauri-driver to start listening",
            Duration::from_secs(20),
            || ready(std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()),
        )
        .await
        .map_err(|_| "tauri-driver did not start listening within 20 s")?;
        let mut caps = thirtyfour::Capabilities::new();
        caps.set("browserName", "wry")?;
        caps.set(
            "tauri:options",
            serde_json::json!({ "application": app, "args": args }),
        )?;
        let driver = WebDriver::new(format!("http://127.0.0.1:{port}"), caps).await?;
        Ok((driver, process))
    }

    /// Waits up to 15 s for an element matching `css`.
    pub async fn wait_for(&self, css: &str) -> TestResult<WebElement> {
        Ok(self
            .driver
            .query(By::Css(css))
            .wait(Duration::from_secs(15), Duration::from_millis(100))
            .first()
            .await
            .map_err(|e| format!("waiting for `{css}`: {e}"))?)
    }

    /// Clicks the first element matching `css` once it can take a click: a transcript that is
    /// still scrolling to its newest item moves what is in it, and WebDriver refuses a click
    /// on an element in motion, as a person would wait for the list to settle.
    pub async fn click(&self, css: &str) -> TestResult {
        // How the last try went: tried until a click lands, or the element is not found.
        let tried: Cell<TestResult> = Cell::new(Ok(()));
        let _ = wait_until(
            &format!("`{css}` to take a click"),
            Duration::from_secs(15),
            || async {
                // A re-render between finding and clicking leaves a stale element: find it again.
                let el = match self.wait_for(css).await {
                    Ok(el) => el,
                    Err(e) => {
                        tried.set(Err(e));
                        return true;
                    }
                };
                let clicked = match el.scroll_into_view().await {
                    Ok(()) => el.click().await,
                    Err(e) => Err(e),
                };
                let done = clicked.is_ok();
                tried.set(clicked.map_err(|e| format!("clicking `{css}`: {e}").into()));
                done
            },
        )
        .await;
        // In time or not, the last try is the answer (a refused click when time ran out).
        tried.into_inner()
    }

    /// Clicks the first element matching `css` if it shows, and says whether it did: for a
    /// button the window may take away by itself meanwhile (the transcript's "Latest" goes
    /// when the list reaches its end on its own).
    pub async fn click_if_shown(&self, css: &str) -> TestResult<bool> {
        // How the last try went: tried until a click lands, or the element is not shown.
        let tried: Cell<TestResult<bool>> = Cell::new(Ok(false));
        let _ = wait_until(
            &format!("`{css}` to take a click"),
            Duration::from_secs(15),
            || async {
                let found = match self.driver.find_all(By::Css(css)).await {
                    Ok(found) => found,
                    Err(e) => {
                        tried.set(Err(e.into()));
                        return true;
                    }
                };
                let Some(el) = found.into_iter().next() else {
                    tried.set(Ok(false));
                    return true;
                };
                let clicked = match el.scroll_into_view().await {
                    Ok(()) => el.click().await,
                    Err(e) => Err(e),
                };
                let done = clicked.is_ok();
                tried.set(
                    clicked
                        .map(|()| true)
                        .map_err(|e| format!("clicking `{css}`: {e}").into()),
                );
                done
            },
        )
        .await;
        // In time or not, the last try is the answer (a refused click when time ran out).
        tried.into_inner()
    }

    /// Scrolls the first element matching `css` into view, found afresh in the page (a row of
    /// the virtualised transcript may be drawn anew between a lookup and a scroll).
    pub async fn scroll_to(&self, css: &str) -> TestResult {
        // A driver that fails ends the wait with its error.
        let failed = Cell::new(None);
        let shown = wait_until(
            &format!("`{css}` to show to scroll to"),
            Duration::from_secs(15),
            || async {
                let found = self
                    .driver
                    .execute(
                        "const e = document.querySelector(arguments[0]); if (!e) return false; e.scrollIntoView({block: 'nearest'}); return true;",
                        vec![serde_json::json!(css)],
                    )
                    .await;
                match found {
                    Ok(found) => found.json().as_bool() == Some(true),
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
        shown.map_err(|_| format!("`{css}` never showed to scroll to").into())
    }

    /// The attribute `name` (or, for `textContent`, the text) of every element matching `css`,
    /// read in one go: no element can go stale between reads.
    pub async fn attrs(&self, css: &str, name: &str) -> TestResult<Vec<String>> {
        let v = self
            .driver
            .execute(
                "return Array.from(document.querySelectorAll(arguments[0]), e => (arguments[1] === 'textContent' ? e.textContent : e.getAttribute(arguments[1])) ?? '');",
                vec![serde_json::json!(css), serde_json::json!(name)],
            )
            .await?;
        Ok(serde_json::from_value(v.json().clone())?)
    }

    /// Waits until `css` matches nothing.
    pub async fn wait_gone(&self, css: &str) -> TestResult {
        // A driver that fails ends the wait with its error.
        let failed = Cell::new(None);
        let gone = wait_until(
            &format!("`{css}` to go"),
            Duration::from_secs(15),
            || async {
                match self.driver.find_all(By::Css(css)).await {
                    Ok(found) => found.is_empty(),
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
        gone.map_err(|_| format!("`{css}` still present after 15 s").into())
    }

    /// Waits until the text of `css` contains `needle`, and returns the whole text.
    pub async fn wait_text(&self, css: &str, needle: &str) -> TestResult<String> {
        // The text last read: what is returned, or said when it never came.
        let text = Cell::new(String::new());
        let came = wait_until(
            &format!("`{css}` text to contain {needle:?}"),
            Duration::from_secs(15),
            || async {
                let now = match self.driver.find(By::Css(css)).await {
                    Ok(el) => el.text().await.unwrap_or_default(),
                    Err(_) => String::new(),
                };
                let done = now.contains(needle);
                text.set(now);
                done
            },
        )
        .await;
        let text = text.into_inner();
        came.map_err(|_| format!("`{css}` text {text:?} never contained {needle:?}"))?;
        Ok(text)
    }

    /// All elements matching `css`, in document order.
    pub async fn all(&self, css: &str) -> TestResult<Vec<WebElement>> {
        Ok(self.driver.find_all(By::Css(css)).await?)
    }

    /// Waits until at least `n` elements match `css`, and returns them.
    pub async fn wait_count(&self, css: &str, n: usize) -> TestResult<Vec<WebElement>> {
        // What the last look found (or how it failed: that ends the wait).
        let looked: Cell<TestResult<Vec<WebElement>>> = Cell::new(Ok(Vec::new()));
        let came = wait_until(
            &format!("{n} of `{css}`"),
            Duration::from_secs(20),
            || async {
                let found = self.all(css).await;
                let done = found.as_ref().map_or(true, |found| found.len() >= n);
                looked.set(found);
                done
            },
        )
        .await;
        let found = looked.into_inner()?;
        came.map_err(|_| format!("`{css}`: {} found, waited for {n}", found.len()))?;
        Ok(found)
    }

    /// Shows the file tree (the sidebar opens on the sessions).
    pub async fn show_files(&self) -> TestResult {
        self.wait_for("[data-testid=files-tab]")
            .await?
            .click()
            .await?;
        Ok(())
    }

    /// The tree row for a project-relative path.
    pub async fn row(&self, path: &str) -> TestResult<WebElement> {
        self.wait_for(&format!("[data-testid=tree-row][data-path=\"{path}\"]"))
            .await
    }

    /// Paths of the rows the tree shows, top to bottom.
    pub async fn tree_paths(&self) -> TestResult<Vec<String>> {
        let mut out = Vec::new();
        for row in self
            .driver
            .find_all(By::Css("[data-testid=tree-row]"))
            .await?
        {
            out.push(row.attr("data-path").await?.unwrap_or_default());
        }
        Ok(out)
    }

    /// Picks Full auto in the mode menu and confirms it, as a person does: the confirmation's
    /// button is enabled once the limits it lists are read.
    pub async fn choose_full_auto(&self) -> TestResult {
        self.wait_for("[data-testid=mode-select]")
            .await?
            .click()
            .await?;
        self.wait_for("[data-testid=mode-select] option[value=full_auto]")
            .await?
            .click()
            .await?;
        self.wait_for("[data-testid=full-auto-limits]").await?;
        self.click("[data-testid=full-auto-yes]").await?;
        self.wait_gone("[data-testid=full-auto-confirm]").await
    }

    /// Saves a screenshot as `target/e2e/NAME.png`, after two animation frames so the picture
    /// shows what the DOM already says (WebKit's screenshots lag otherwise).
    pub async fn screenshot(&self, name: &str) -> TestResult<PathBuf> {
        let _ = self
            .driver
            .execute_async(
                "const done = arguments[arguments.length - 1]; requestAnimationFrame(() => requestAnimationFrame(() => done(true)));",
                Vec::new(),
            )
            .await;
        let path = screenshot_dir().join(format!("{name}.png"));
        self.driver.screenshot(&path).await?;
        Ok(path)
    }

    pub async fn quit(self) -> TestResult {
        let App {
            driver,
            mut _log,
            _process,
            ..
        } = self;
        _log.armed = false;
        driver.quit().await?;
        drop(_process);
        Ok(())
    }
}

/// A data folder whose built-in model (under the default file name) is `model`, linked: the
/// first-run screen then offers it as downloaded.
pub fn data_dir_with_model(model: &Path) -> TestResult<tempfile::TempDir> {
    let data = tempfile::tempdir()?;
    std::fs::create_dir_all(data.path().join("models"))?;
    std::os::unix::fs::symlink(
        model,
        data.path()
            .join("models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"),
    )?;
    Ok(data)
}

/// Writes `body` to `root/rel`, creating folders.
pub fn write(root: &Path, rel: &str, body: &[u8]) {
    let path = root.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create fixture folder");
    }
    std::fs::write(path, body).expect("write fixture file");
}

/// Commits everything in the work tree (not ignored) as the first commit.
pub fn commit_all(repo: &git2::Repository) {
    let mut index = repo.index().expect("index");
    index
        .add_all(["*"].iter(), git2::IndexAddOption::DEFAULT, None)
        .expect("git add");
    index.write().expect("write index");
    let tree = repo
        .find_tree(index.write_tree().expect("write tree"))
        .expect("tree");
    let sig = git2::Signature::now("Tandem Tests", "tests@tandem.invalid").expect("signature");
    repo.commit(Some("HEAD"), &sig, &sig, "initial", &tree, &[])
        .expect("commit");
}

/// A real git repository with one modified, one untracked, one ignored and one binary file.
pub fn fixture_repo() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("tandem-e2e-")
        .tempdir()
        .expect("tempdir");
    let root = dir.path();
    let repo = git2::Repository::init(root).expect("git init");
    write(root, ".gitignore", b"*.log\n");
    write(
        root,
        "README.md",
        b"# Demo project\n\nUsed by the end-to-end tests.\n",
    );
    write(
        root,
        "src/main.rs",
        b"fn main() {\n    println!(\"hello\");\n}\n",
    );
    write(
        root,
        "src/lib.rs",
        b"pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
    );
    write(root, "logo.bin", b"\x00\x01\x02\x03binary\x00");
    commit_all(&repo);
    // After the commit: one modified, one untracked, one ignored.
    write(
        root,
        "src/main.rs",
        b"fn main() {\n    println!(\"hello, tandem\");\n}\n",
    );
    write(root, "notes.txt", b"an untracked file\n");
    write(root, "debug.log", b"an ignored file\n");
    dir
}
