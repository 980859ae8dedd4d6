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

/// WebKitGTK reads its compositing switch from the environment when the first web view is
/// made; the environment cannot be changed safely once threads run, so without a GPU the app
/// starts itself again, at once, with the switch set (same process id, same arguments).
/// Returns only if that is not needed or not possible; the web view's own setting then does
/// the same, a little later.
#[cfg(target_os = "linux")]
pub fn restart_without_compositing_if_needed() {
    use std::os::unix::process::CommandExt as _;
    const SWITCH: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";
    if use_gpu() || std::env::var_os(SWITCH).is_some() {
        return;
    }
    let mut args = std::env::args_os();
    let arg0 = args.next().unwrap_or_default();
    let err = std::process::Command::new("/proc/self/exe")
        .arg0(arg0)
        .args(args)
        .env(SWITCH, "1")
        .exec();
    tracing::warn!(error = %err, "could not restart without GL compositing");
}

#[cfg(not(target_os = "linux"))]
pub fn restart_without_compositing_if_needed() {}

/// Applies the choice to a window's web view.
#[cfg(target_os = "linux")]
pub fn apply(window: &tauri::WebviewWindow) {
    if use_gpu() {
        return;
    }
    let result = window.with_webview(|webview| {
        use webkit2gtk::{HardwareAccelerationPolicy, SettingsExt as _, WebViewExt as _};
        if let Some(settings) = webview.inner().settings() {
            settings.set_hardware_acceleration_policy(HardwareAccelerationPolicy::Never);
        }
    });
    match result {
        Ok(()) => tracing::info!("no GPU render node: the window paints without GL compositing"),
        Err(e) => tracing::warn!(error = %e, "could not choose the rendering path"),
    }
}

#[cfg(not(target_os = "linux"))]
pub fn apply(_window: &tauri::WebviewWindow) {}

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
