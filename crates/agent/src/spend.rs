//! The spending meter a session's agents share (its sub-agents too): what the session and the
//! day have spent, checked before every model call against the limits. A call reserves what it
//! is expected to cost before it is sent (released when its reply is counted, or when it fails),
//! and a call may start only while what is spent and reserved is under the limit: agents working
//! at once pass a limit by at most one call, as one agent does. The day's spending is a ledger
//! of one line per reply in the data folder (`spend/YYYY-MM-DD.jsonl`, UTC), appended by every
//! process, so the window and the CLI running at once count against the same day — what another
//! process has in flight is not in it, so across processes the day can be passed by one call
//! per process.

use protocol::{Amount, LimitReached, SpendLimits, SpendScope, SpendStatus};
use serde::{Deserialize, Serialize};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

/// How a session's spending is limited, from the front end.
#[derive(Debug, Clone, Default)]
pub struct SpendOptions {
    pub limits: SpendLimits,
    /// The day's ledger folder (`<data>/spend`); None: days are not counted (tests).
    pub ledger_dir: Option<PathBuf>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct LedgerLine {
    usd: f64,
    tokens: u64,
}

#[derive(Debug, Default)]
struct Spent {
    usd: f64,
    tokens: u64,
}

/// What one call is expected to cost, reserved while it is in flight.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Estimate {
    pub usd: f64,
    pub tokens: u64,
}

#[derive(Debug, Default)]
struct Counted {
    /// What this session's replies cost.
    spent: Spent,
    /// What the calls in flight are expected to cost.
    reserved: Spent,
    /// The last reply's cost: the next call's estimate when its prompt tells less.
    last: Estimate,
}

#[derive(Debug)]
pub struct SpendMeter {
    limits: Mutex<SpendLimits>,
    session: Mutex<Counted>,
    ledger_dir: Option<PathBuf>,
}

impl Default for SpendMeter {
    fn default() -> Self {
        SpendMeter::new(SpendOptions::default(), 0.0, 0)
    }
}

/// The calendar day (UTC) of a time in ms since the epoch, as `YYYY-MM-DD`.
pub(crate) fn day_of(ms: u64) -> String {
    let date = time::OffsetDateTime::from_unix_timestamp((ms / 1000) as i64)
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH)
        .date();
    format!(
        "{:04}-{:02}-{:02}",
        date.year(),
        u8::from(date.month()),
        date.day()
    )
}

/// Today's ledger file.
fn ledger_file(dir: &Path) -> PathBuf {
    dir.join(format!("{}.jsonl", day_of(config::locations::now_ms())))
}

impl SpendMeter {
    /// A meter for a session that has spent `usd` and `tokens` so far (a continued one).
    pub fn new(options: SpendOptions, usd: f64, tokens: u64) -> SpendMeter {
        SpendMeter {
            limits: Mutex::new(options.limits),
            session: Mutex::new(Counted {
                spent: Spent { usd, tokens },
                ..Counted::default()
            }),
            ledger_dir: options.ledger_dir,
        }
    }

    pub fn limits(&self) -> SpendLimits {
        *self.limits.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The person's new limits for this session.
    pub fn set_limits(&self, limits: SpendLimits) {
        *self.limits.lock().unwrap_or_else(PoisonError::into_inner) = limits;
    }

    /// What today has spent, every session together. An unreadable line (one being written by
    /// another process) counts nothing.
    fn day(&self) -> Spent {
        let Some(dir) = &self.ledger_dir else {
            return Spent::default();
        };
        // A day's ledger is a line per reply: far below this.
        let text = tools::read_config_text(&ledger_file(dir), 64 << 20)
            .ok()
            .flatten()
            .unwrap_or_default();
        let mut out = Spent::default();
        for line in text.lines() {
            if let Ok(l) = serde_json::from_str::<LedgerLine>(line) {
                out.usd += l.usd;
                out.tokens += l.tokens;
            }
        }
        out
    }

    fn counted(&self) -> std::sync::MutexGuard<'_, Counted> {
        self.session.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn status(&self) -> SpendStatus {
        let day = self.day();
        let s = self.counted();
        SpendStatus {
            limits: self.limits(),
            session_usd: s.spent.usd,
            session_tokens: s.spent.tokens,
            day_usd: day.usd,
            day_tokens: day.tokens,
        }
    }

    /// Whether another model call may be made: the first limit already reached, if any.
    pub fn check(&self) -> Result<(), LimitReached> {
        let limits = self.limits();
        if limits.is_empty() {
            return Ok(());
        }
        let day = self.day_if_limited(&limits);
        let s = self.counted();
        Self::over(limits, &s, &day)
    }

    /// Before a call is sent: whether it may be made (what is spent and reserved by the calls
    /// in flight is under every limit), and if so `estimate` is reserved until the reply is
    /// counted ([`Self::settle`]) or the call fails ([`Self::release`]). Checked and reserved
    /// at once, so agents asking together cannot all pass on the same room.
    pub fn reserve(&self, estimate: Estimate) -> Result<(), LimitReached> {
        let limits = self.limits();
        let day = self.day_if_limited(&limits);
        let mut s = self.counted();
        if !limits.is_empty() {
            Self::over(limits, &s, &day)?;
        }
        s.reserved.usd += estimate.usd;
        s.reserved.tokens += estimate.tokens;
        Ok(())
    }

    /// A call reserved with `estimate` ended without a reply to count.
    pub fn release(&self, estimate: Estimate) {
        let mut s = self.counted();
        s.reserved.usd = (s.reserved.usd - estimate.usd).max(0.0);
        s.reserved.tokens = s.reserved.tokens.saturating_sub(estimate.tokens);
    }

    /// A call reserved with `estimate` got its reply: what it really used is recorded.
    pub fn settle(&self, estimate: Estimate, tokens: u64, usd: Option<f64>) {
        self.release(estimate);
        self.record(tokens, usd);
    }

    /// What the next call is expected to cost: what its prompt holds (`input_tokens`, priced
    /// by `price`), or the last reply's cost when that was more (a prompt grows).
    pub fn estimate(&self, input_tokens: u64, price: impl Fn(u64) -> Option<f64>) -> Estimate {
        let last = self.counted().last;
        Estimate {
            usd: price(input_tokens).unwrap_or(0.0).max(last.usd),
            tokens: input_tokens.max(last.tokens),
        }
    }

    /// Today's spending when a day's limit needs it (the ledger is read before every call).
    fn day_if_limited(&self, limits: &SpendLimits) -> Spent {
        if limits.day_usd.is_some() || limits.day_tokens.is_some() {
            self.day()
        } else {
            Spent::default()
        }
    }

    /// The first limit that what is spent and reserved has reached, if any.
    fn over(limits: SpendLimits, s: &Counted, day: &Spent) -> Result<(), LimitReached> {
        let status = SpendStatus {
            limits,
            session_usd: s.spent.usd + s.reserved.usd,
            session_tokens: s.spent.tokens + s.reserved.tokens,
            day_usd: day.usd + s.reserved.usd,
            day_tokens: day.tokens + s.reserved.tokens,
        };
        let usd = |scope, spent: f64, limit: Option<f64>| {
            limit.filter(|l| spent >= *l).map(|l| LimitReached {
                scope,
                spent: Amount::Usd { usd: spent },
                limit: Amount::Usd { usd: l },
            })
        };
        let tokens = |scope, spent: u64, limit: Option<u64>| {
            limit.filter(|l| spent >= *l).map(|l| LimitReached {
                scope,
                spent: Amount::Tokens { tokens: spent },
                limit: Amount::Tokens { tokens: l },
            })
        };
        let reached = usd(SpendScope::Session, status.session_usd, limits.session_usd)
            .or_else(|| {
                tokens(
                    SpendScope::Session,
                    status.session_tokens,
                    limits.session_tokens,
                )
            })
            .or_else(|| usd(SpendScope::Day, status.day_usd, limits.day_usd))
            .or_else(|| tokens(SpendScope::Day, status.day_tokens, limits.day_tokens));
        match reached {
            Some(r) => Err(r),
            None => Ok(()),
        }
    }

    /// One reply's use: `usd` is None when its price is unknown (it counts in tokens only).
    pub fn record(&self, tokens: u64, usd: Option<f64>) {
        {
            let mut s = self.counted();
            s.spent.tokens += tokens;
            s.spent.usd += usd.unwrap_or(0.0);
            s.last = Estimate {
                usd: usd.unwrap_or(0.0),
                tokens,
            };
        }
        let Some(dir) = &self.ledger_dir else {
            return;
        };
        let line = LedgerLine {
            usd: usd.unwrap_or(0.0),
            tokens,
        };
        let appended = std::fs::create_dir_all(dir).and_then(|()| {
            let text = serde_json::to_string(&line).map_err(std::io::Error::other)?;
            // One short line in one write to a file opened to append: lines from processes
            // writing at once do not interleave.
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(ledger_file(dir))?
                .write_all(format!("{text}\n").as_bytes())
        });
        if let Err(e) = appended {
            tracing::warn!(%e, "today's spending could not be recorded");
        }
    }
}

/// What is wrong with limits a person typed, in words; None when they can be kept.
pub fn limits_problem(l: &SpendLimits) -> Option<String> {
    for (name, v) in [("session", l.session_usd), ("day", l.day_usd)] {
        if let Some(v) = v
            && !(v.is_finite() && v > 0.0)
        {
            return Some(format!(
                "the {name}'s limit must be more than $0 (leave it empty for none)"
            ));
        }
    }
    for (name, v) in [("session", l.session_tokens), ("day", l.day_tokens)] {
        if v == Some(0) {
            return Some(format!(
                "the {name}'s token limit must be more than 0 (leave it empty for none)"
            ));
        }
    }
    None
}

/// Dollars as people read them: cents from a dollar up, and below it as many digits as it
/// takes to show anything (a cheap call costs $0.003, not "$0.00").
pub fn usd_words(v: f64) -> String {
    if v >= 1.0 || v == 0.0 {
        return format!("${v:.2}");
    }
    let text = format!("{v:.4}");
    let trimmed = text.trim_end_matches('0');
    let decimals = trimmed.split('.').nth(1).map_or(0, str::len);
    if decimals < 2 {
        format!("${v:.2}")
    } else {
        format!("${trimmed}")
    }
}

/// A limit reached, in words: for the CLI and sub-agents' reports.
pub fn limit_words(r: &LimitReached) -> String {
    let amount = |a: &Amount| match a {
        Amount::Usd { usd } => usd_words(*usd),
        Amount::Tokens { tokens } => format!("{tokens} tokens"),
    };
    let scope = match r.scope {
        SpendScope::Session => "this session",
        SpendScope::Day => "today",
    };
    format!(
        "the spending limit for {scope} ({}) is reached: {} spent",
        amount(&r.limit),
        amount(&r.spent)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dollars_show_what_was_spent() {
        assert_eq!(usd_words(0.5), "$0.50");
        assert_eq!(usd_words(0.6000001), "$0.60");
        assert_eq!(usd_words(0.003), "$0.003");
        assert_eq!(usd_words(0.00315), "$0.0032");
        assert_eq!(usd_words(12.345), "$12.35");
        assert_eq!(usd_words(0.0), "$0.00");
    }

    #[test]
    fn dates_are_the_calendar_s() {
        const DAY_MS: u64 = 86_400_000;
        assert_eq!(day_of(0), "1970-01-01");
        assert_eq!(day_of(20_789 * DAY_MS + 1), "2026-12-02");
        assert_eq!(day_of(11_016 * DAY_MS + DAY_MS - 1), "2000-02-29");
    }

    #[test]
    fn a_limit_stops_the_next_call_and_raising_it_lets_it_go() {
        let dir = tempfile::tempdir().expect("tempdir");
        let limits = SpendLimits {
            session_usd: Some(0.10),
            ..SpendLimits::default()
        };
        let meter = SpendMeter::new(
            SpendOptions {
                limits,
                ledger_dir: Some(dir.path().to_path_buf()),
            },
            0.0,
            0,
        );
        assert!(meter.check().is_ok());
        meter.record(1000, Some(0.06));
        assert!(meter.check().is_ok());
        meter.record(1000, Some(0.06));
        let reached = meter.check().expect_err("over the limit");
        assert_eq!(reached.scope, SpendScope::Session);
        assert_eq!(reached.limit, Amount::Usd { usd: 0.10 });
        meter.set_limits(SpendLimits {
            session_usd: Some(0.50),
            ..limits
        });
        assert!(meter.check().is_ok());
        assert_eq!(meter.status().day_tokens, 2000);
    }

    /// Issue 47: four workers under a $2 limit at $0.45 a call spent $3.60: each checked what
    /// was recorded while the others' calls were in flight. Each call now reserves what it is
    /// expected to cost before it is sent, checked and reserved at once.
    #[test]
    fn agents_calling_at_once_pass_a_limit_by_at_most_one_call() {
        let meter = std::sync::Arc::new(SpendMeter::new(
            SpendOptions {
                limits: SpendLimits {
                    session_usd: Some(2.0),
                    ..SpendLimits::default()
                },
                ledger_dir: None,
            },
            0.0,
            0,
        ));
        // Each call's prompt prices at $0.45.
        let price = |_| Some(0.45);
        // Four workers, each calling until the limit stops it; all four ask before any reply.
        let mut spent_calls = 0;
        loop {
            let asked: Vec<Estimate> = (0..4)
                .filter_map(|_| {
                    let e = meter.estimate(10, price);
                    meter.reserve(e).ok().map(|()| e)
                })
                .collect();
            if asked.is_empty() {
                break;
            }
            for e in asked {
                meter.settle(e, 1000, Some(0.45));
                spent_calls += 1;
            }
        }
        let spent = meter.status().session_usd;
        assert!(
            spent <= 2.0 + 0.45 + 1e-9,
            "spent ${spent} in {spent_calls} calls"
        );
        assert!(
            spent >= 2.0,
            "the limit lets calls through until it is reached: ${spent}"
        );
        // A call that fails gives its room back.
        let meter = SpendMeter::new(
            SpendOptions {
                limits: SpendLimits {
                    session_usd: Some(1.0),
                    ..SpendLimits::default()
                },
                ledger_dir: None,
            },
            0.0,
            0,
        );
        let big = Estimate {
            usd: 0.9,
            tokens: 1,
        };
        meter.reserve(big).expect("room");
        meter
            .reserve(big)
            .expect("under the limit when asked: one call may pass it");
        assert!(meter.reserve(big).is_err(), "reserved past the limit");
        meter.release(big);
        meter.release(big);
        assert!(meter.reserve(big).is_ok(), "released");
    }

    #[test]
    fn the_day_counts_every_session() {
        let dir = tempfile::tempdir().expect("tempdir");
        let options = SpendOptions {
            limits: SpendLimits {
                day_tokens: Some(3000),
                ..SpendLimits::default()
            },
            ledger_dir: Some(dir.path().to_path_buf()),
        };
        let one = SpendMeter::new(options.clone(), 0.0, 0);
        let two = SpendMeter::new(options, 0.0, 0);
        one.record(2000, None);
        assert!(two.check().is_ok());
        two.record(1000, None);
        let reached = one.check().expect_err("the day is spent");
        assert_eq!(reached.scope, SpendScope::Day);
        assert_eq!(reached.spent, Amount::Tokens { tokens: 3000 });
    }
}
