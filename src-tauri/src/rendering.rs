//! How the window's web view renders. WebKitGTK composites with OpenGL by default; on a machine
//! without a GPU (no DRM render node: virtual machines, remote desktops, Xvfb) that GL is
//! Mesa's software rasterizer, and every composited frame costs ~150 ms on two cores — the
//! window opens visibly later and scrolling stutters. There, software painting without
//! compositing is several times faster, so Tandem asks for it. `TANDEM_GPU=1` keeps
//! compositing anyway; `TANDEM_GPU=0` turns it off on any machine. Under WebDriver automation
//! it stays on (see [`use_gpu`]).

use std::path::Path;

/// Whether hardware-accelerated compositing should be used here.
pub fn use_gpu() -> bool {
    match std::env::var("TANDEM_GPU").ok().as_deref() {
        Some("1") => true,
        Some("0") => false,
        // Under WebDriver (tauri-driver sets this), compositing stays on: WebKitWebDriver's
        // screenshots of a page that is not repainting hang without it.
        _ if std::env::var("TAURI_WEBVIEW_AUTOMATION").as_deref() == Ok("true") => true,
        _ => has_render_node(Path::new("/dev/dri")),
    }
}

/// A DRM render node (`renderD128`…) is what hardware GL needs on Linux.
fn has_render_node(dri: &Path) -> bool {
    std::fs::read_dir(dri)
        .map(|entries| {
            entries
                .flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
        })
        .unwrap_or(false)
}

/// WebKitGTK reads its compositing switch (`WEBKIT_DISABLE_COMPOSITING_MODE`) from the
/// environment when the first web view is made. Setting it there is what makes the first paint
/// fast; setting the web view's policy afterwards, or restarting the process with the switch,
/// was measured slower (docs/benchmarks.md). Must be called first thing in `main`, before any
/// thread exists.
pub fn choose_before_any_thread() {
    const SWITCH: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";
    if cfg!(not(target_os = "linux")) || use_gpu() || std::env::var_os(SWITCH).is_some() {
        return;
    }
    set_env_before_threads(SWITCH, "1");
}

#[allow(unsafe_code)]
fn set_env_before_threads(key: &str, value: &str) {
    // SAFETY: `set_var` is unsafe only because another thread could read the environment at
    // the same moment. This runs at the top of `main`, before the app, its runtime, GTK or
    // logging start any thread, so no other thread exists yet.
    unsafe { std::env::set_var(key, value) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_render_node_means_a_gpu() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert!(!has_render_node(dir.path()));
        assert!(!has_render_node(&dir.path().join("missing")));
        std::fs::write(dir.path().join("card0"), "").expect("card0");
        assert!(!has_render_node(dir.path()), "a card without a render node");
        std::fs::write(dir.path().join("renderD128"), "").expect("node");
        assert!(has_render_node(dir.path()));
    }
}
