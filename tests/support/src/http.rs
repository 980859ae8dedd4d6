//! A small HTTP/1.1 server on 127.0.0.1: one request per connection, each answered by a route
//! function from the request's text (the whole request, body included).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

/// The requests a server answered, in order, each whole.
pub type Asked = Arc<Mutex<Vec<String>>>;

/// A whole response: status line, headers (`extra` ends each with `\r\n`) and body.
pub fn respond(status: &str, content_type: &str, body: &str, extra: &str) -> String {
    let bytes = respond_bytes(status, content_type, body.as_bytes(), extra);
    // Text headers around a text body: still text.
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A whole response with a body of any bytes (an image, a PDF).
pub fn respond_bytes(status: &str, content_type: &str, body: &[u8], extra: &str) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

/// Starts the server; returns its base URL (`http://127.0.0.1:PORT`). The route's answer is
/// sent as it is: text from [`respond`], bytes from [`respond_bytes`].
pub async fn serve<R: AsRef<[u8]> + Send + 'static>(route: fn(&str) -> R) -> String {
    serve_recording(route).await.0
}

/// [`serve`], keeping each request it answers.
pub async fn serve_recording<R: AsRef<[u8]> + Send + 'static>(
    route: fn(&str) -> R,
) -> (String, Asked) {
    let asked = Asked::default();
    let kept = asked.clone();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let kept = kept.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                loop {
                    let Ok(n) = sock.read(&mut chunk).await else {
                        return;
                    };
                    if n == 0 {
                        break;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    let text = String::from_utf8_lossy(&buf);
                    if let Some(end) = text.find("\r\n\r\n") {
                        let len = text[..end]
                            .lines()
                            .find_map(|l| {
                                l.to_ascii_lowercase()
                                    .strip_prefix("content-length:")
                                    .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                            })
                            .unwrap_or(0);
                        if buf.len() >= end + 4 + len {
                            break;
                        }
                    }
                }
                let request = String::from_utf8_lossy(&buf).into_owned();
                let reply = route(&request);
                kept.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(request);
                let _ = sock.write_all(reply.as_ref()).await;
                let _ = sock.shutdown().await;
            });
        }
    });
    (format!("http://{addr}"), asked)
}

/// [`serve_recording`] on a thread and a runtime of its own, for a test that runs none (it
/// lives as long as the test's process).
pub fn serve_on_thread<R: AsRef<[u8]> + Send + 'static>(route: fn(&str) -> R) -> (String, Asked) {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async {
            let _ = tx.send(serve_recording(route).await);
            std::future::pending::<()>().await
        });
    });
    rx.recv().expect("the server started")
}

/// The first request the server was asked, once it comes (`None` when none came in `limit`).
pub fn first_request(asked: &Asked, limit: Duration) -> Option<String> {
    let mut first = None;
    // None in time is what the caller is told: the wait's own error adds nothing.
    let _ = crate::wait::wait_until_blocking("a first request", limit, || {
        first = asked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .first()
            .cloned();
        first.is_some()
    });
    first
}
