//! Server-sent events: a decoder that looks at each byte once however the body is chunked, with
//! a cap on an event's size, and the HTTP side (errors, cancellation).

use crate::error::LlmError;
use crate::retry;
use std::collections::VecDeque;
use std::time::{Duration, SystemTime};
use tokio_util::sync::CancellationToken;

/// The largest event accepted. Real events are a few hundred bytes; a whole tool call's
/// arguments in one event (servers that do not stream token by token) stays far below this,
/// while a server sending more is broken or hostile, and would otherwise be buffered whole.
pub const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// The largest response body accepted. The longest real reply (128k output tokens, each in an
/// event of a few hundred bytes) stays well below this; a server that streams without end is
/// stopped here rather than filling memory.
pub const MAX_REPLY_BYTES: usize = 256 * 1024 * 1024;

/// An error body is read this far: enough for any real error message, and a server answering
/// a refusal with gigabytes is not followed.
const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;

/// One dispatched event: its `event:` name ("" when none) and its `data:` lines joined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    pub event: String,
    pub data: String,
}

/// The SSE line protocol (WHATWG HTML, "event stream interpretation"). Lines end in LF, CR or
/// CRLF; `data:` lines accumulate; a blank line dispatches. Linear in the input: a line end is
/// searched only in bytes not searched before, and consumed bytes are dropped in bulk.
pub(crate) struct Decoder {
    buf: Vec<u8>,
    /// Where the unconsumed bytes start in `buf`.
    start: usize,
    /// How far `buf` has been searched for a line end.
    scanned: usize,
    /// The last line ended in CR: an LF arriving next belongs to it.
    skip_lf: bool,
    max: usize,
    /// Bytes taken so far, and the most the body may have.
    total: usize,
    max_total: usize,
    pending: Pending,
    ready: VecDeque<SseEvent>,
}

/// The event being read.
#[derive(Default)]
struct Pending {
    event: String,
    data: String,
    has_data: bool,
    /// Bytes of its completed lines.
    size: usize,
}

impl Decoder {
    pub fn new(max_event_bytes: usize, max_reply_bytes: usize) -> Self {
        Decoder {
            buf: Vec::new(),
            start: 0,
            scanned: 0,
            skip_lf: false,
            max: max_event_bytes,
            total: 0,
            max_total: max_reply_bytes,
            pending: Pending::default(),
            ready: VecDeque::new(),
        }
    }

    /// Takes the next piece of the body; complete events become available from `next_event`.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), LlmError> {
        self.total = self.total.saturating_add(chunk.len());
        if self.total > self.max_total {
            return Err(LlmError::Protocol(format!(
                "the reply passed {} MB without ending; no model reply is that long, so the stream was dropped",
                self.max_total >> 20
            )));
        }
        self.buf.extend_from_slice(chunk);
        loop {
            if self.skip_lf && self.start < self.buf.len() {
                if self.buf[self.start] == b'\n' {
                    self.start += 1;
                }
                self.skip_lf = false;
            }
            let from = self.scanned.max(self.start);
            let Some(offset) = memchr::memchr2(b'\n', b'\r', &self.buf[from..]) else {
                self.scanned = self.buf.len();
                let partial = self.buf.len() - self.start;
                if self.pending.size + partial > self.max {
                    return Err(too_large(self.max));
                }
                break;
            };
            let end = from + offset;
            let line_start = self.start;
            self.skip_lf = self.buf[end] == b'\r';
            self.start = end + 1;
            self.scanned = self.start;
            self.pending.size += end - line_start + 1;
            if self.pending.size > self.max {
                return Err(too_large(self.max));
            }
            let line = std::str::from_utf8(&self.buf[line_start..end])
                .map_err(|_| LlmError::Protocol("the event stream is not UTF-8 text".into()))?;
            take_line(&mut self.pending, &mut self.ready, line);
        }
        // Dropping consumed bytes moves what is left to the front; doing it only once they
        // outweigh the rest keeps the moves linear in total.
        if self.start == self.buf.len() {
            self.buf.clear();
            self.start = 0;
            self.scanned = 0;
        } else if self.start > self.buf.len() / 2 {
            self.buf.drain(..self.start);
            self.scanned -= self.start;
            self.start = 0;
        }
        Ok(())
    }

    pub fn next_event(&mut self) -> Option<SseEvent> {
        self.ready.pop_front()
    }
}

fn take_line(pending: &mut Pending, ready: &mut VecDeque<SseEvent>, line: &str) {
    if line.is_empty() {
        let done = std::mem::take(pending);
        // Anthropic always sends data; a named event without any still carries its name.
        if done.has_data || !done.event.is_empty() {
            ready.push_back(SseEvent {
                event: done.event,
                data: done.data,
            });
        }
        return;
    }
    if line.starts_with(':') {
        return;
    }
    let (field, value) = match line.split_once(':') {
        Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
        None => (line, ""),
    };
    match field {
        "data" => {
            if pending.has_data {
                pending.data.push('\n');
            }
            pending.data.push_str(value);
            pending.has_data = true;
        }
        "event" => pending.event = value.to_string(),
        // `id` and `retry` serve reconnection, which a model reply never uses.
        _ => {}
    }
}

fn too_large(max: usize) -> LlmError {
    LlmError::Protocol(format!(
        "the server sent one event of more than {} MB; no model reply needs that, so the stream was dropped",
        max >> 20
    ))
}

/// A response body being read as events.
pub(crate) struct Events {
    response: reqwest::Response,
    decoder: Decoder,
    /// How long the stream may bring nothing of the reply, and when it last did.
    idle: Duration,
    last_news: tokio::time::Instant,
}

/// Sends the request; an HTTP error becomes the matching [`LlmError`], a success the event
/// stream.
pub(crate) async fn open(
    req: reqwest::RequestBuilder,
    idle: Duration,
    cancel: &CancellationToken,
) -> Result<Events, LlmError> {
    let mut resp = tokio::select! {
        r = req.send() => r.map_err(|e| LlmError::connect(&e))?,
        _ = cancel.cancelled() => return Err(LlmError::Cancelled),
    };
    let status = resp.status();
    let content_type = resp
        .headers()
        .get_all(reqwest::header::CONTENT_TYPE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|t| t.to_ascii_lowercase().contains("text/html"))
        .map(str::to_string);
    if !status.is_success() {
        let wait = retry::retry_after(resp.headers(), SystemTime::now());
        let body = tokio::select! {
            b = error_body(&mut resp) => b,
            _ = cancel.cancelled() => return Err(LlmError::Cancelled),
        };
        return Err(LlmError::from_response(
            status.as_u16(),
            wait,
            content_type.as_deref(),
            &body,
        ));
    }
    if content_type.is_some() {
        // A web page where an event stream belongs: something else answers at this address.
        return Err(LlmError::NotAnApi {
            status: status.as_u16(),
        });
    }
    Ok(Events {
        response: resp,
        decoder: Decoder::new(MAX_EVENT_BYTES, MAX_REPLY_BYTES),
        idle,
        last_news: tokio::time::Instant::now(),
    })
}

/// The start of an error response's body, as text.
async fn error_body(resp: &mut reqwest::Response) -> String {
    let mut body = Vec::new();
    while body.len() < MAX_ERROR_BODY_BYTES {
        match resp.chunk().await {
            Ok(Some(c)) => body.extend_from_slice(&c),
            _ => break,
        }
    }
    body.truncate(MAX_ERROR_BODY_BYTES);
    String::from_utf8_lossy(&body).into_owned()
}

impl Events {
    /// The next event; `None` at the end of the body; `Cancelled` as soon as the token fires
    /// (dropping the response closes the connection). A connection that fails mid-body is a
    /// cut stream.
    pub async fn next(&mut self, cancel: &CancellationToken) -> Result<Option<SseEvent>, LlmError> {
        loop {
            if let Some(e) = self.decoder.next_event() {
                // A ping is a keep-alive, not news: a stuck server can send them forever.
                if e.event != "ping" {
                    self.last_news = tokio::time::Instant::now();
                }
                return Ok(Some(e));
            }
            // The client's read timeout restarts with every byte, so comments alone would keep
            // a stuck stream open for good: the reply's own silence is timed here.
            let chunk = tokio::select! {
                c = self.response.chunk() => c,
                _ = cancel.cancelled() => return Err(LlmError::Cancelled),
                () = tokio::time::sleep_until(self.last_news + self.idle) => {
                    return Err(LlmError::Silent { seconds: self.idle.as_secs() });
                }
            };
            match chunk {
                Ok(Some(bytes)) => self.decoder.push(&bytes)?,
                Ok(None) => return Ok(None),
                Err(_) => return Err(LlmError::StreamCut),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(chunks: &[&[u8]]) -> Result<Vec<SseEvent>, LlmError> {
        let mut d = Decoder::new(1024, 4096);
        let mut out = Vec::new();
        for c in chunks {
            d.push(c)?;
            out.extend(std::iter::from_fn(|| d.next_event()));
        }
        Ok(out)
    }

    fn ev(event: &str, data: &str) -> SseEvent {
        SseEvent {
            event: event.into(),
            data: data.into(),
        }
    }

    #[test]
    fn events_survive_any_split_and_every_line_ending() {
        let body = "event: a\ndata: {\"x\": \"ü\"}\n\n: comment\r\ndata:1\r\ndata: 2\r\n\r\nevent: b\rdata: 3\r\rdata: [DONE]\n\ndata: cut";
        let want = vec![
            ev("a", "{\"x\": \"ü\"}"),
            ev("", "1\n2"),
            ev("b", "3"),
            ev("", "[DONE]"),
        ];
        assert_eq!(decode(&[body.as_bytes()]).expect("whole"), want);
        for size in 1..8 {
            let chunks: Vec<&[u8]> = body.as_bytes().chunks(size).collect();
            assert_eq!(decode(&chunks).expect("split"), want, "chunks of {size}");
        }
    }

    #[test]
    fn an_event_over_the_cap_is_refused_even_before_its_line_ends() {
        let long = format!("data: {}", "x".repeat(2000));
        let err = decode(&[long.as_bytes()]).expect_err("cap");
        assert!(err.to_string().contains("more than 0 MB"), "{err}");
        let lines = "data: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n".repeat(30);
        assert!(decode(&[lines.as_bytes()]).is_err(), "many lines add up");
        let events = "data: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n\n".repeat(30);
        assert_eq!(decode(&[events.as_bytes()]).expect("each small").len(), 30);
    }

    #[test]
    fn a_body_that_never_ends_is_stopped_at_the_reply_cap() {
        let event = b"data: {\"choices\": []}\n\n";
        let forever: Vec<&[u8]> = std::iter::repeat_n(&event[..], 1000).collect();
        let err = decode(&forever).expect_err("capped");
        assert!(err.to_string().contains("without ending"), "{err}");
    }

    #[test]
    fn bytes_that_are_not_utf8_are_a_protocol_error() {
        assert!(matches!(
            decode(&[b"data: \xff\n\n"]),
            Err(LlmError::Protocol(_))
        ));
    }
}
