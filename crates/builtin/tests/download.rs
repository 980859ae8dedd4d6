//! The model download against a local server: an interrupted download resumes with a Range
//! request, the file gets its final name only with the pinned sha256, a wrong file is deleted.

use builtin::{DownloadError, download, partial_path};
use sha2::{Digest, Sha256};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

fn body() -> Vec<u8> {
    (0..300_000u32).map(|i| (i % 251) as u8).collect()
}

fn sha(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Serves `body`; the first request is cut off after `cut` bytes. Records each request's
/// Range header.
async fn server(cut: usize) -> (String, Arc<Mutex<Vec<Option<String>>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}/model.gguf", listener.local_addr().expect("addr"));
    let ranges: Arc<Mutex<Vec<Option<String>>>> = Arc::default();
    let seen = ranges.clone();
    tokio::spawn(async move {
        let body = body();
        let mut first = true;
        while let Ok((mut sock, _)) = listener.accept().await {
            let mut buf = vec![0u8; 4096];
            let n = sock.read(&mut buf).await.unwrap_or(0);
            let head = String::from_utf8_lossy(&buf[..n]).to_string();
            let range = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("range: bytes=")
                        .map(str::to_string)
                })
                .map(|r| r.trim_end_matches('-').to_string());
            seen.lock().expect("lock").push(range.clone());
            let from: usize = range.and_then(|r| r.parse().ok()).unwrap_or(0);
            let rest = &body[from..];
            let status = if from > 0 {
                "206 Partial Content"
            } else {
                "200 OK"
            };
            let head = format!(
                "HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                rest.len()
            );
            let _ = sock.write_all(head.as_bytes()).await;
            let send = if first { &rest[..cut] } else { rest };
            first = false;
            let _ = sock.write_all(send).await;
            let _ = sock.shutdown().await;
        }
    });
    (url, ranges)
}

#[tokio::test]
async fn an_interrupted_download_resumes_and_is_checked() {
    let (url, ranges) = server(100_000).await;
    let dir = tempfile::tempdir().expect("dir");
    let dest = dir.path().join("models/model.gguf");
    let want = sha(&body());
    let cancel = CancellationToken::new();
    let first = download(&url, &want, &dest, &mut |_| {}, &cancel).await;
    assert!(
        matches!(first, Err(DownloadError::Interrupted { done: 100_000, .. })),
        "{first:?}"
    );
    assert!(!dest.exists(), "a partial file never has the final name");
    assert_eq!(
        std::fs::metadata(partial_path(&dest)).expect("part").len(),
        100_000
    );

    let mut last = None;
    download(&url, &want, &dest, &mut |p| last = Some(p), &cancel)
        .await
        .expect("resumed");
    assert_eq!(
        ranges.lock().expect("lock").as_slice(),
        &[None, Some("100000".into())]
    );
    assert_eq!(std::fs::read(&dest).expect("file"), body());
    assert!(!partial_path(&dest).exists());
    let last = last.expect("progress");
    assert_eq!((last.done, last.total), (300_000, Some(300_000)));
}

#[tokio::test]
async fn a_file_with_the_wrong_checksum_is_deleted_and_never_named() {
    let (url, _) = server(300_000).await;
    let dir = tempfile::tempdir().expect("dir");
    let dest = dir.path().join("model.gguf");
    let r = download(
        &url,
        &"0".repeat(64),
        &dest,
        &mut |_| {},
        &CancellationToken::new(),
    )
    .await;
    assert!(
        matches!(r, Err(DownloadError::ChecksumMismatch { .. })),
        "{r:?}"
    );
    assert!(!dest.exists());
    assert!(!partial_path(&dest).exists());
}

#[tokio::test]
async fn cancel_keeps_the_bytes_for_later() {
    let (url, _) = server(300_000).await;
    let dir = tempfile::tempdir().expect("dir");
    let dest = dir.path().join("model.gguf");
    let cancel = CancellationToken::new();
    cancel.cancel();
    let r = download(&url, &sha(&body()), &dest, &mut |_| {}, &cancel).await;
    assert!(matches!(r, Err(DownloadError::Cancelled)), "{r:?}");
    assert!(!dest.exists());
}

/// A failed download said "error sending request for url (https://…)" and nothing to do: it
/// says, in words, that the server could not be reached and that Resume carries on; the
/// cause is kept for Details, and the code tells the window what to offer.
#[tokio::test]
async fn a_server_that_cannot_be_reached_is_said_in_words_with_the_next_step() {
    // A port nothing listens on: the connection is refused.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    drop(listener);
    let dir = tempfile::tempdir().expect("dir");
    let dest = dir.path().join("model.gguf");
    let url = format!("http://{addr}/model.gguf");
    let r = download(
        &url,
        &sha(&body()),
        &dest,
        &mut |_| {},
        &CancellationToken::new(),
    )
    .await;
    let e = r.expect_err("nothing listens there");
    assert!(matches!(e, DownloadError::Unreachable { .. }), "{e:?}");
    let failure = e.failure().expect("a failure to show");
    assert_eq!(failure.code, protocol::DownloadFailureCode::Unreachable);
    assert_eq!(
        failure.message,
        "Tandem could not reach 127.0.0.1 to download the model. Check that this computer is online, then Resume: it carries on where it stopped."
    );
    assert!(!failure.message.contains("http"), "no address in the words");
    let detail = failure.detail.expect("the cause, for Details");
    assert!(detail.contains("refused"), "{detail}");
}

/// A connection cut partway says how much is saved, and that Resume carries on from there.
#[tokio::test]
async fn a_cut_connection_says_what_is_kept_and_to_resume() {
    let (url, _) = server(100_000).await;
    let dir = tempfile::tempdir().expect("dir");
    let dest = dir.path().join("model.gguf");
    let e = download(
        &url,
        &sha(&body()),
        &dest,
        &mut |_| {},
        &CancellationToken::new(),
    )
    .await
    .expect_err("cut");
    let failure = e.failure().expect("a failure to show");
    assert_eq!(failure.code, protocol::DownloadFailureCode::Interrupted);
    assert_eq!(
        failure.message,
        "The download from 127.0.0.1 broke off after 100 kB of 300 kB. Check that this computer is online, then Resume: it carries on where it stopped."
    );
    assert!(DownloadError::Cancelled.failure().is_none());
}
