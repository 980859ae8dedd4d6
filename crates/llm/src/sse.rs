//! Reading a server-sent event stream with cancellation.

use crate::error::LlmError;
use eventsource_stream::{Event, Eventsource as _};
use futures_util::{Stream, StreamExt as _};
use std::pin::Pin;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

pub(crate) type Events = Pin<Box<dyn Stream<Item = Result<Event, LlmError>> + Send>>;

fn retry_after(resp: &reqwest::Response) -> Option<Duration> {
    let h = resp.headers();
    if let Some(ms) = h
        .get("retry-after-ms")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<f64>().ok())
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    h.get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok())
        .map(Duration::from_secs_f64)
}

/// Sends the request; an HTTP error becomes the matching [`LlmError`], a success the event
/// stream.
pub(crate) async fn open(
    req: reqwest::RequestBuilder,
    cancel: &CancellationToken,
) -> Result<Events, LlmError> {
    let resp = tokio::select! {
        r = req.send() => r.map_err(|e| LlmError::Connect(e.to_string()))?,
        _ = cancel.cancelled() => return Err(LlmError::Cancelled),
    };
    let status = resp.status();
    if !status.is_success() {
        let wait = retry_after(&resp);
        let body = resp.text().await.unwrap_or_default();
        return Err(LlmError::from_status(status.as_u16(), wait, &body));
    }
    let stream = resp.bytes_stream().eventsource().map(|e| {
        e.map_err(|err| match err {
            eventsource_stream::EventStreamError::Transport(_) => LlmError::StreamCut,
            other => LlmError::Protocol(other.to_string()),
        })
    });
    Ok(Box::pin(stream))
}

/// The next event, or `Cancelled` as soon as the token fires (the stream is dropped, which
/// closes the connection).
pub(crate) async fn next(
    events: &mut Events,
    cancel: &CancellationToken,
) -> Result<Option<Event>, LlmError> {
    tokio::select! {
        e = events.next() => e.transpose(),
        _ = cancel.cancelled() => Err(LlmError::Cancelled),
    }
}
