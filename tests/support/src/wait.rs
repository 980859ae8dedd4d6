//! Waiting in tests, one way: until a condition holds, looked at again every 20 ms, failing with
//! what was awaited when it does not hold in time. (Hand-made deadline loops each polled at
//! their own pace and said different things when they gave up.)

use std::future::Future;
use std::time::{Duration, Instant};

/// How often a condition is looked at again.
const EVERY: Duration = Duration::from_millis(20);

/// What was awaited, when it did not come in time.
#[derive(Debug)]
pub struct TimedOut {
    pub what: String,
    pub limit: Duration,
}

impl std::fmt::Display for TimedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "timed out after {:?} waiting for {}",
            self.limit, self.what
        )
    }
}

impl std::error::Error for TimedOut {}

/// Waits until `done` holds (an async check: a window's element, a process gone), or `limit`
/// passes: then the error names `what` was awaited.
pub async fn wait_until<F, Fut>(what: &str, limit: Duration, mut done: F) -> Result<(), TimedOut>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let deadline = Instant::now() + limit;
    loop {
        if done().await {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(TimedOut {
                what: what.to_string(),
                limit,
            });
        }
        tokio::time::sleep(EVERY).await;
    }
}

/// [`wait_until`] for a test without an async runtime: the thread sleeps between looks.
pub fn wait_until_blocking(
    what: &str,
    limit: Duration,
    mut done: impl FnMut() -> bool,
) -> Result<(), TimedOut> {
    let deadline = Instant::now() + limit;
    loop {
        if done() {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(TimedOut {
                what: what.to_string(),
                limit,
            });
        }
        std::thread::sleep(EVERY);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn it_waits_for_what_comes_and_names_what_does_not() {
        let mut looks = 0;
        wait_until("the third look", Duration::from_secs(5), || {
            looks += 1;
            std::future::ready(looks >= 3)
        })
        .await
        .expect("it comes");
        assert_eq!(looks, 3);
        let err = wait_until("nothing", Duration::from_millis(50), || {
            std::future::ready(false)
        })
        .await
        .expect_err("it never comes");
        assert!(err.to_string().contains("waiting for nothing"), "{err}");
        let err = wait_until_blocking("nothing either", Duration::from_millis(50), || false)
            .expect_err("never");
        assert!(err.to_string().contains("nothing either"), "{err}");
    }
}
