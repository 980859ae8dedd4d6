//! The spending meter a session's agents share (its sub-agents too): what the session and the
//! day have spent, checked before every model call against the limits, so a limit is never
//! passed by more than the one call in flight. The day's spending is a ledger of one line per
//! reply in the data folder (`spend/YYYY-MM-DD.jsonl`, UTC), appended by every process, so the
//! window and the CLI running at once count against the same day.

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

#[derive(Debug)]
pub struct SpendMeter {
    limits: Mutex<SpendLimits>,
    session: Mutex<Spent>,
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
            session: Mutex::new(Spent { usd, tokens }),
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

    pub fn status(&self) -> SpendStatus {
        let day = self.day();
        let s = self.session.lock().unwrap_or_else(PoisonError::into_inner);
        SpendStatus {
            limits: self.limits(),
            session_usd: s.usd,
            session_tokens: s.tokens,
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
        // Before every model call: today's ledger is read only when a day's limit needs it.
        let day = if limits.day_usd.is_some() || limits.day_tokens.is_some() {
            self.day()
        } else {
            Spent::default()
        };
        let status = {
            let s = self.session.lock().unwrap_or_else(PoisonError::into_inner);
            SpendStatus {
                limits,
                session_usd: s.usd,
                session_tokens: s.tokens,
                day_usd: day.usd,
                day_tokens: day.tokens,
            }
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
            let mut s = self.session.lock().unwrap_or_else(PoisonError::into_inner);
            s.tokens += tokens;
            s.usd += usd.unwrap_or(0.0);
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
