//! An empty Tauri 2 app: one window, one page, one command. The startup benchmark compares
//! Tandem against it (`make bench-startup`). Must stay empty: it is the floor, not a product.

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use std::sync::OnceLock;
use std::time::Instant;

use std::time::{SystemTime, UNIX_EPOCH};

static STARTED: OnceLock<(Instant, f64)> = OnceLock::new();

/// Prints how long the window took to become interactive, and when its page started (`origin`,
/// the page's time origin in ms since the epoch), for the benchmark script.
#[tauri::command]
fn ui_ready(origin: f64) {
    if let Some((at, epoch_ms)) = STARTED.get() {
        println!("MARK {:.1} page: time origin", origin - epoch_ms);
        println!("READY {:.1}", at.elapsed().as_secs_f64() * 1000.0);
    }
}

fn main() {
    let epoch_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0);
    STARTED.get_or_init(|| (Instant::now(), epoch_ms));
    let result = tauri::Builder::default()
        .invoke_handler(tauri::generate_handler![ui_ready])
        .run(tauri::generate_context!());
    if let Err(e) = result {
        eprintln!("empty-tauri-app: {e}");
        std::process::exit(1);
    }
}
