//! A provider behind a corporate CA: the CA is in the system's certificate store (here
//! `SSL_CERT_FILE`, which the platform verifier reads on Linux), not in the bundled roots. The
//! client must trust it, and must still work on a machine with no system store at all. The
//! store is read from the environment, so each case runs this test binary again as a child
//! with its own environment.

use llm::{ChatRequest, Provider, ProviderConfig, ProviderKind};
use protocol::Message;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::pem::PemObject as _;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_util::sync::CancellationToken;

const CHILD: &str = "TANDEM_TLS_TEST_CHILD";

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Runs `reply_through_tls` in a child process with `SSL_CERT_FILE` set or not.
fn child(cert_file: Option<PathBuf>) -> (bool, String) {
    let mut cmd = Command::new(std::env::current_exe().expect("test binary"));
    cmd.args(["--exact", "reply_through_tls", "--ignored", "--nocapture"])
        .env(CHILD, "1")
        .env_remove("SSL_CERT_FILE")
        .env_remove("SSL_CERT_DIR");
    if let Some(f) = cert_file {
        cmd.env("SSL_CERT_FILE", f);
    }
    let out = cmd.output().expect("run the child");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn a_ca_in_the_system_store_is_trusted() {
    let (ok, out) = child(Some(data("corporate-ca.pem")));
    assert!(ok, "{out}");
    assert!(out.contains("1 passed"), "{out}");
}

#[test]
fn without_a_system_store_the_bundled_roots_still_work_and_an_unknown_ca_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let empty = dir.path().join("empty.pem");
    std::fs::write(&empty, "").expect("write");
    let (ok, out) = child(Some(empty));
    assert!(
        !ok,
        "a server signed by an unknown CA must be refused: {out}"
    );
    // The client was built (the bundled roots stand in for the missing store) and refused
    // the server's certificate at the handshake.
    assert!(out.contains("UnknownIssuer"), "{out}");
}

/// An OpenAI-compatible server on 127.0.0.1 over TLS, its certificate signed by the test CA.
async fn tls_server() -> String {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(data("localhost.pem"))
        .expect("cert file")
        .collect::<Result<_, _>>()
        .expect("certs");
    let key = PrivateKeyDer::from_pem_file(data("localhost-key.pem")).expect("key");
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::aws_lc_rs::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("versions")
    .with_no_client_auth()
    .with_single_cert(certs, key)
    .expect("server config");
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!(
        "https://127.0.0.1:{}/v1",
        listener.local_addr().expect("addr").port()
    );
    tokio::spawn(async move {
        while let Ok((sock, _)) = listener.accept().await {
            let Ok(mut tls) = acceptor.accept(sock).await else {
                continue;
            };
            let mut buf = Vec::new();
            let mut tmp = [0u8; 4096];
            // The head, then as much body as it announces.
            loop {
                let n = tls.read(&mut tmp).await.unwrap_or(0);
                if n == 0 {
                    break;
                }
                buf.extend_from_slice(&tmp[..n]);
                let text = String::from_utf8_lossy(&buf).to_ascii_lowercase();
                if let Some(end) = text.find("\r\n\r\n") {
                    let len = text[..end]
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .and_then(|v| v.trim().parse::<usize>().ok())
                        .unwrap_or(0);
                    if buf.len() >= end + 4 + len {
                        break;
                    }
                }
            }
            let body = "data: {\"choices\": [{\"index\": 0, \"delta\": {\"content\": \"hello over TLS\"}, \"finish_reason\": \"stop\"}]}\n\ndata: [DONE]\n\n";
            let reply = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = tls.write_all(reply.as_bytes()).await;
            let _ = tls.shutdown().await;
        }
    });
    base
}

#[tokio::test]
#[ignore = "run by the tests above, in a child process with its own certificate store"]
async fn reply_through_tls() {
    assert!(
        std::env::var_os(CHILD).is_some(),
        "only meaningful as a child"
    );
    let base = tls_server().await;
    let provider =
        Provider::new(ProviderConfig::new(ProviderKind::OpenAi, &base, None)).expect("provider");
    let req = ChatRequest {
        model: "m".into(),
        system: None,
        messages: vec![Message::user_text("hi")],
        tools: vec![],
        max_tokens: 16,
        temperature: None,
        call_required: false,
        fixed_messages: 0,
    };
    let reply = provider
        .stream(&req, &mut |_| {}, &CancellationToken::new())
        .await
        .map_err(|e| e.to_string());
    assert_eq!(
        reply.map(|r| r.message.text()),
        Ok("hello over TLS".to_string())
    );
}
