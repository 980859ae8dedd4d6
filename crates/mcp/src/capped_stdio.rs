//! A stdio server's messages with a size cap that answers instead of going silent. The MCP
//! library drops a line longer than its limit (16 MB) without a word, so the call it answered
//! waited its whole timeout and the healthy server was then restarted. Here a message over
//! [`MAX_MESSAGE_BYTES`] is replaced by an error answer to the same request id ("the result
//! was over 16 MB"), so the call fails at once with words the model can act on.

use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, ReadBuf};
use tokio::process::{ChildStdin, ChildStdout};

/// The largest message read from a server. Below the library's own 16 MB limit, so that one
/// never drops a line this lets through.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024 - 64 * 1024;

/// How much of an oversized line is kept to find its request id.
const HEAD_BYTES: usize = 4096;

/// Reads a server's output line by line, passing each through unless it is over the cap; an
/// oversized one becomes an error answer to its request.
pub struct CappedLines<R> {
    inner: R,
    cap: usize,
    /// The line being read.
    line: Vec<u8>,
    /// The start of an oversized line, while its rest is skipped.
    skipping: Option<(Vec<u8>, usize)>,
    /// What is ready to hand on, and how much of it was.
    out: Vec<u8>,
    out_at: usize,
    eof: bool,
}

impl<R> CappedLines<R> {
    pub fn new(inner: R, cap: usize) -> Self {
        CappedLines {
            inner,
            cap,
            line: Vec::new(),
            skipping: None,
            out: Vec::new(),
            out_at: 0,
            eof: false,
        }
    }

    /// Takes in bytes read from the server.
    fn feed(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let newline = bytes.iter().position(|b| *b == b'\n');
            let take = newline.map_or(bytes.len(), |i| i + 1);
            let (now, rest) = bytes.split_at(take);
            bytes = rest;
            if let Some((head, size)) = self.skipping.as_mut() {
                *size += now.len();
                if newline.is_some() {
                    let (head, size) = (std::mem::take(head), *size);
                    self.skipping = None;
                    self.out.extend_from_slice(&too_large_answer(&head, size));
                }
                continue;
            }
            if self.line.len() + now.len() > self.cap {
                let size = self.line.len() + now.len();
                let mut head = std::mem::take(&mut self.line);
                head.extend_from_slice(&now[..now.len().min(HEAD_BYTES)]);
                head.truncate(HEAD_BYTES);
                if newline.is_some() {
                    self.out.extend_from_slice(&too_large_answer(&head, size));
                } else {
                    self.skipping = Some((head, size));
                }
                continue;
            }
            self.line.extend_from_slice(now);
            if newline.is_some() {
                self.out.append(&mut self.line);
            }
        }
    }
}

/// The request id an oversized answer begins with, if it names one near its start (servers
/// write `{"jsonrpc":"2.0","id":…` first; one that does not cannot be answered for).
fn request_id(head: &[u8]) -> Option<serde_json::Value> {
    let text = String::from_utf8_lossy(head);
    let at = text.find("\"id\"")?;
    let rest = text[at + 4..].trim_start().strip_prefix(':')?.trim_start();
    let mut values = serde_json::Deserializer::from_str(rest).into_iter::<serde_json::Value>();
    match values.next()? {
        Ok(v @ (serde_json::Value::Number(_) | serde_json::Value::String(_))) => Some(v),
        _ => None,
    }
}

fn too_large_answer(head: &[u8], size: usize) -> Vec<u8> {
    let Some(id) = request_id(head) else {
        tracing::warn!(
            size,
            "an MCP server sent a message over the size limit with no request id; dropped"
        );
        return Vec::new();
    };
    tracing::warn!(size, %id, "an MCP server's answer was over the size limit; answered with an error instead");
    let answer = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": -32603,
            "message": format!(
                "the server's result was {:.1} MB, over the {} MB Tandem reads from a tool server, so it was dropped; ask for less (a narrower query, fewer items, a page)",
                size as f64 / (1024.0 * 1024.0),
                MAX_MESSAGE_BYTES / (1024 * 1024) + 1
            ),
        }
    });
    let mut line = answer.to_string().into_bytes();
    line.push(b'\n');
    line
}

impl<R: AsyncRead + Unpin> AsyncRead for CappedLines<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        loop {
            if this.out_at < this.out.len() {
                let n = (this.out.len() - this.out_at).min(buf.remaining());
                buf.put_slice(&this.out[this.out_at..this.out_at + n]);
                this.out_at += n;
                if this.out_at == this.out.len() {
                    this.out.clear();
                    this.out_at = 0;
                }
                return Poll::Ready(Ok(()));
            }
            if this.eof {
                // An unfinished last line is handed on as it is: the reader sees it cut short.
                if this.line.is_empty() {
                    return Poll::Ready(Ok(()));
                }
                this.out.append(&mut this.line);
                continue;
            }
            let mut chunk = [0u8; 64 * 1024];
            let mut read = ReadBuf::new(&mut chunk);
            match Pin::new(&mut this.inner).poll_read(cx, &mut read) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Ready(Ok(())) => {
                    let filled = read.filled();
                    if filled.is_empty() {
                        this.eof = true;
                    } else {
                        let filled = filled.to_vec();
                        this.feed(&filled);
                    }
                }
            }
        }
    }
}

/// A server program spoken to over its standard input and output, its answers capped. The
/// program (and its process group) ends when this is dropped.
pub struct CappedChild {
    _child: Box<dyn process_wrap::tokio::ChildWrapper>,
    transport: AsyncRwTransport<RoleClient, CappedLines<ChildStdout>, ChildStdin>,
}

impl CappedChild {
    /// Takes the started program's standard input and output (both must be piped).
    pub fn new(
        mut child: Box<dyn process_wrap::tokio::ChildWrapper>,
    ) -> std::io::Result<CappedChild> {
        let stdin = child
            .stdin()
            .take()
            .ok_or_else(|| std::io::Error::other("its standard input was not piped"))?;
        let stdout = child
            .stdout()
            .take()
            .ok_or_else(|| std::io::Error::other("its standard output was not piped"))?;
        Ok(CappedChild {
            _child: child,
            transport: AsyncRwTransport::new(CappedLines::new(stdout, MAX_MESSAGE_BYTES), stdin),
        })
    }
}

impl Transport<RoleClient> for CappedChild {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.transport.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.transport.receive()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.transport.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt as _;

    async fn through(input: Vec<u8>, cap: usize) -> String {
        let mut capped = CappedLines::new(std::io::Cursor::new(input), cap);
        let mut out = Vec::new();
        capped.read_to_end(&mut out).await.expect("read");
        String::from_utf8(out).expect("utf-8")
    }

    #[tokio::test]
    async fn lines_under_the_cap_pass_and_one_over_it_becomes_an_error_answer() {
        let big = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{{\"text\":\"{}\"}}}}\n",
            "x".repeat(5000)
        );
        let input = format!("{{\"id\":1}}\n{big}{{\"id\":2}}\n");
        let out = through(input.into_bytes(), 1000).await;
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3, "{out}");
        assert_eq!(lines[0], "{\"id\":1}");
        let answer: serde_json::Value = serde_json::from_str(lines[1]).expect("json");
        assert_eq!(answer["id"], 7);
        let words = answer["error"]["message"].as_str().expect("words");
        assert!(words.contains("ask for less"), "{words}");
        assert_eq!(lines[2], "{\"id\":2}");
    }

    #[tokio::test]
    async fn a_string_id_is_kept_and_an_oversized_line_without_one_is_dropped() {
        let input = format!(
            "{{\"id\": \"req-9\", \"result\": \"{}\"}}\n{{\"result\": \"{}\"}}\n{{\"id\":3}}\n",
            "y".repeat(3000),
            "z".repeat(3000)
        );
        let out = through(input.into_bytes(), 1000).await;
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{out}");
        assert!(lines[0].contains("\"id\":\"req-9\""), "{}", lines[0]);
        assert_eq!(lines[1], "{\"id\":3}");
    }
}
