//! Reading a server-sent event stream with cancellation.

use crate::error::LlmError;
use crate::retry;
use eventsource_stream::{Event, Eventsource as _};
use futures_util::{Stream, StreamExt as _};
use std::pin::Pin;
use std::time::SystemTime;
use tokio_util::sync::CancellationToken;

pub(crate) type Events = Pin<Box<dyn Stream<Item = Result<Event, LlmError>> + Send>>;

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
        let wait = retry::retry_after(resp.headers(), SystemTime::now());
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
