//! A small HTTP/1.1 server on 127.0.0.1: one request per connection, each answered by a route
//! function from the request's text (the whole request, body included).

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

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
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
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
                let reply = route(&String::from_utf8_lossy(&buf));
                let _ = sock.write_all(reply.as_ref()).await;
                let _ = sock.shutdown().await;
            });
        }
    });
    format!("http://{addr}")
}
