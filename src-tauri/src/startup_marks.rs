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

/// What the log and the benchmark take from the window: a start has a few dozen moments, and
/// names are short; anything past these bounds is dropped rather than written out.
const MAX_PAGE_MARKS: usize = 200;
const MAX_NAME_CHARS: usize = 80;

/// A mark's name as the log shows it: one line, bounded.
fn clean_name(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(MAX_NAME_CHARS)
        .collect()
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
            .take(MAX_PAGE_MARKS)
            .filter(|m| m.at_ms.is_finite())
            .map(|m| {
                (
                    page_origin + m.at_ms,
                    format!("page: {}", clean_name(&m.name)),
                )
            }),
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

    #[test]
    fn what_the_window_sends_is_bounded_and_one_line_per_mark() {
        start();
        let args = UiReadyArgs {
            time_origin_ms: 0.0,
            marks: (0..1000)
                .map(|i| StartupMark {
                    name: format!("x\nMARK 1 forged {}", "y".repeat(500 + i)),
                    at_ms: i as f64,
                })
                .collect(),
        };
        let page: Vec<_> = timeline(&args)
            .into_iter()
            .filter(|(_, n)| n.starts_with("page: x"))
            .collect();
        assert_eq!(page.len(), MAX_PAGE_MARKS);
        assert!(
            page.iter()
                .all(|(_, n)| !n.contains('\n') && n.chars().count() <= 6 + MAX_NAME_CHARS)
        );
    }
}
