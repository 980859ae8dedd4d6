//! Where the start went: moments the Rust side notes (process start, setup) and the ones the
//! window sends with `ui_ready`, put on one clock. Logged at every start; printed for the
//! startup benchmark (`make bench-startup`) when `TANDEM_BENCH_READY` is set.

use protocol::UiReadyArgs;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// When the process started, on the monotonic clock and on the wall clock (the page's time
/// origin is a wall-clock time).
static STARTED: OnceLock<(Instant, f64)> = OnceLock::new();
static RUST_MARKS: Mutex<Vec<(String, f64)>> = Mutex::new(Vec::new());

fn epoch_ms(at: SystemTime) -> f64 {
    at.duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

/// Called first thing in `run`.
pub fn start() {
    STARTED.get_or_init(|| (Instant::now(), epoch_ms(SystemTime::now())));
}

fn since_start() -> f64 {
    STARTED
        .get()
        .map(|(at, _)| at.elapsed().as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

/// Notes a moment of the Rust side's start.
pub fn mark(name: &str) {
    let at = since_start();
    RUST_MARKS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push((name.to_owned(), at));
}

/// Every moment of this start, in milliseconds since the process started, in order.
fn timeline(args: &UiReadyArgs) -> Vec<(f64, String)> {
    let page_origin = STARTED
        .get()
        .map(|(_, started)| args.time_origin_ms - started)
        .unwrap_or(0.0);
    let mut all: Vec<(f64, String)> = RUST_MARKS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .map(|(name, at)| (*at, name.clone()))
        .collect();
    all.push((page_origin, "page: time origin".to_owned()));
    all.extend(
        args.marks
            .iter()
            .map(|m| (page_origin + m.at_ms, format!("page: {}", m.name))),
    );
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    all
}

/// The window's first interactive frame: logged with the timeline, and printed as `READY <ms>`
/// and `MARK <ms> <name>` lines for the benchmark.
pub fn ready(args: &UiReadyArgs) {
    let ms = since_start();
    let timeline = timeline(args);
    let summary = timeline
        .iter()
        .map(|(at, name)| format!("{at:.0} {name}"))
        .collect::<Vec<_>>()
        .join("; ");
    tracing::info!(ms, timeline = %summary, "the window is interactive");
    if std::env::var_os("TANDEM_BENCH_READY").is_some() {
        for (at, name) in &timeline {
            println!("MARK {at:.1} {name}");
        }
        println!("READY {ms:.1}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::StartupMark;

    #[test]
    fn the_page_marks_land_on_the_process_clock_in_order() {
        start();
        mark("setup: begins");
        let (_, started) = *STARTED.get().expect("started");
        let args = UiReadyArgs {
            time_origin_ms: started + 100.0,
            marks: vec![
                StartupMark {
                    name: "b".into(),
                    at_ms: 50.0,
                },
                StartupMark {
                    name: "a".into(),
                    at_ms: 20.0,
                },
            ],
        };
        let names: Vec<_> = timeline(&args)
            .into_iter()
            .map(|(at, n)| (at.round(), n))
            .collect();
        let page: Vec<_> = names
            .iter()
            .filter(|(_, n)| n.starts_with("page"))
            .cloned()
            .collect();
        assert_eq!(
            page,
            vec![
                (100.0, "page: time origin".to_owned()),
                (120.0, "page: a".to_owned()),
                (150.0, "page: b".to_owned())
            ]
        );
        assert!(names.iter().any(|(_, n)| n == "setup: begins"));
    }
}
