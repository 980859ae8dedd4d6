//! An empty Tauri 2 app: one window, one page, one command. The startup benchmark compares
//! Tandem against it (`make bench-startup`). Must stay empty: it is the floor, not a product.

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use std::sync::OnceLock;
use std::time::Instant;

static STARTED: OnceLock<Instant> = OnceLock::new();

/// Prints how long the window took to become interactive, for the benchmark script.
#[tauri::command]
fn ui_ready() {
    let ms = STARTED.get().map(|s| s.elapsed().as_secs_f64() * 1000.0);
    println!("READY {:.1}", ms.unwrap_or(0.0));
}

fn main() {
    STARTED.get_or_init(Instant::now);
    let result = tauri::Builder::default()
        .invoke_handler(tauri::generate_handler![ui_ready])
        .run(tauri::generate_context!());
    if let Err(e) = result {
        eprintln!("empty-tauri-app: {e}");
        std::process::exit(1);
    }
}
