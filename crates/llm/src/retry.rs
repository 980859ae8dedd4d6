//! Which failures are retried, how often, and how long to wait.

use crate::error::LlmError;
use std::time::{Duration, SystemTime};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts after a 429 or an overload.
    pub rate_limit_retries: u32,
    /// Attempts after a 5xx or a connection failure.
    pub server_retries: u32,
    /// A stream cut mid-message is retried this many times.
    pub cut_stream_retries: u32,
    pub base_delay: Duration,
    /// The ceiling on any wait. Backoff stops growing here, and a server that asks for a longer
    /// wait (`retry-after`) is not waited for: its error is returned at once, naming the wait,
    /// since a session silently stuck for an hour is worse than a clear "try later".
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            rate_limit_retries: 5,
            server_retries: 3,
            cut_stream_retries: 1,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// How long to wait before attempt `attempt + 1` after `err`, or `None` when it is not
    /// worth another try. `retries` counts earlier retries of the same kind.
    ///
    /// Waits are jittered so that sessions refused together do not all come back at the same
    /// instant: a backoff is drawn from its upper half, a server's own wait is lengthened by up
    /// to a tenth (never shortened: it said when it will be ready).
    pub fn delay(&self, err: &LlmError, retries: u32) -> Option<Duration> {
        match err {
            LlmError::RateLimited { retry_after } | LlmError::Overloaded { retry_after } => {
                if retries >= self.rate_limit_retries {
                    return None;
                }
                match *retry_after {
                    Some(wait) if wait > self.max_delay => None,
                    Some(wait) => Some((wait + random_up_to(wait / 10)).min(self.max_delay)),
                    None => Some(self.backoff(retries)),
                }
            }
            LlmError::Server { .. } | LlmError::Connect { .. } => {
                (retries < self.server_retries).then(|| self.backoff(retries))
            }
            LlmError::StreamCut => (retries < self.cut_stream_retries).then_some(Duration::ZERO),
            LlmError::Auth { .. }
            | LlmError::Silent { .. }
            | LlmError::BadRequest { .. }
            | LlmError::Protocol(_)
            | LlmError::BadAddress { .. }
            | LlmError::NotAnApi { .. }
            | LlmError::BuiltinUnavailable(_)
            | LlmError::BuiltinNotDownloaded(_)
            | LlmError::Builtin(_)
            | LlmError::ContextFull { .. }
            | LlmError::Cancelled => None,
        }
    }

    fn backoff(&self, retries: u32) -> Duration {
        let cap = self
            .base_delay
            .saturating_mul(2u32.saturating_pow(retries))
            .min(self.max_delay);
        cap / 2 + random_up_to(cap / 2)
    }
}

fn random_up_to(max: Duration) -> Duration {
    let nanos = u64::try_from(max.as_nanos()).unwrap_or(u64::MAX);
    Duration::from_nanos(fastrand::u64(0..=nanos))
}

/// The wait a refusal asks for: `retry-after-ms` (OpenAI), else `retry-after` in seconds or as
/// an HTTP date. A value that is no wait at all (negative, NaN, infinite, unreadable) counts as
/// absent, so the backoff applies; a date in the past means now. A wait too long for a
/// `Duration` saturates (the ceiling then refuses it).
pub(crate) fn retry_after(
    headers: &reqwest::header::HeaderMap,
    now: SystemTime,
) -> Option<Duration> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = header("retry-after-ms").and_then(seconds) {
        return Some(ms / 1000);
    }
    let value = header("retry-after")?;
    if let Some(wait) = seconds(value) {
        return Some(wait);
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(when.duration_since(now).unwrap_or(Duration::ZERO))
}

/// A non-negative, finite number (decimals accepted: some servers send `0.5`).
fn seconds(v: &str) -> Option<Duration> {
    let n: f64 = v.parse().ok()?;
    if !n.is_finite() || n < 0.0 {
        return None;
    }
    Some(Duration::try_from_secs_f64(n).unwrap_or(Duration::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::{HeaderMap, HeaderValue};

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn retry_after_reads_seconds_milliseconds_and_dates_and_ignores_nonsense() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").expect("date");
        let wait = |pairs: &[(&'static str, &'static str)]| retry_after(&headers(pairs), now);
        assert_eq!(wait(&[("retry-after", "2")]), Some(Duration::from_secs(2)));
        assert_eq!(
            wait(&[("retry-after", " 0.5 ")]),
            Some(Duration::from_millis(500))
        );
        assert_eq!(
            wait(&[("retry-after-ms", "1500"), ("retry-after", "9")]),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            wait(&[("retry-after", "Sun, 06 Nov 1994 08:50:07 GMT")]),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            wait(&[("retry-after", "Sun, 06 Nov 1994 08:00:00 GMT")]),
            Some(Duration::ZERO),
            "a date in the past means now"
        );
        for nonsense in ["-1", "NaN", "inf", "-inf", "soon", ""] {
            assert_eq!(wait(&[("retry-after", nonsense)]), None, "{nonsense}");
        }
        assert_eq!(
            wait(&[("retry-after-ms", "-5"), ("retry-after", "3")]),
            Some(Duration::from_secs(3)),
            "a nonsense retry-after-ms gives way to retry-after"
        );
        assert_eq!(wait(&[("retry-after", "1e300")]), Some(Duration::MAX));
    }

    #[test]
    fn backoff_grows_is_jittered_and_stops_at_the_ceiling() {
        let p = RetryPolicy::default();
        let server = LlmError::Server {
            status: 500,
            message: String::new(),
        };
        for retries in 0..3 {
            let cap = Duration::from_millis(500) * 2u32.pow(retries);
            let draws: Vec<Duration> = (0..50).filter_map(|_| p.delay(&server, retries)).collect();
            assert_eq!(draws.len(), 50);
            assert!(
                draws.iter().all(|d| *d >= cap / 2 && *d <= cap),
                "{draws:?}"
            );
            assert!(draws.iter().any(|d| *d != draws[0]), "jittered: {draws:?}");
        }
        assert_eq!(p.delay(&server, 3), None);
        let limited = LlmError::RateLimited { retry_after: None };
        assert!(p.delay(&limited, 4).is_some_and(|d| d <= p.max_delay));
        assert_eq!(p.delay(&limited, 5), None);
    }

    #[test]
    fn a_server_wait_is_kept_lengthened_a_little_and_refused_beyond_the_ceiling() {
        let p = RetryPolicy::default();
        let asks = |s: u64| LlmError::RateLimited {
            retry_after: Some(Duration::from_secs(s)),
        };
        for _ in 0..50 {
            let d = p.delay(&asks(10), 0).expect("waits");
            assert!(
                d >= Duration::from_secs(10) && d <= Duration::from_secs(11),
                "{d:?}"
            );
        }
        assert_eq!(
            p.delay(&asks(60), 0),
            Some(Duration::from_secs(60)),
            "at the ceiling"
        );
        assert_eq!(p.delay(&asks(61), 0), None);
        let overloaded = LlmError::Overloaded {
            retry_after: Some(Duration::MAX),
        };
        assert_eq!(p.delay(&overloaded, 0), None);
        assert!(
            overloaded.to_string().contains("more than a day"),
            "{overloaded}"
        );
    }
}
