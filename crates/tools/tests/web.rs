//! web_fetch and web_search against a real HTTP server on 127.0.0.1.

use std::time::Duration;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tools::{
    FetchFormat, SearchProvider, WebConfig, WebFetchArgs, WebSearchArgs, web_fetch, web_search,
};

fn respond(status: &str, content_type: &str, body: &str, extra: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n{body}",
        body.len()
    )
}

fn route(request: &str) -> String {
    let first = request.lines().next().unwrap_or("");
    let path = first.split_whitespace().nth(1).unwrap_or("/");
    let has = |h: &str| {
        request
            .to_ascii_lowercase()
            .contains(&h.to_ascii_lowercase())
    };
    match path.split('?').next().unwrap_or("") {
        "/page" => respond(
            "200 OK",
            "text/html; charset=utf-8",
            "<html><head><title>t</title><script>evil()</script></head><body><h1>Hello</h1><p>Some <b>bold</b> text.</p></body></html>",
            "",
        ),
        "/data" => respond(
            "200 OK",
            "application/json",
            r#"{"items":[{"name":"a"},{"name":"b"}],"n":2}"#,
            "",
        ),
        "/long" => respond("200 OK", "text/plain", &"x".repeat(200), ""),
        "/huge" => respond("200 OK", "text/plain", &"y".repeat(5000), ""),
        "/loop" => respond("302 Found", "text/plain", "", "Location: /loop\r\n"),
        "/missing" => respond("404 Not Found", "text/plain", "not here", ""),
        "/echo" => respond(
            "200 OK",
            "text/plain",
            if has("x-test: yes") && path.contains("a=1") {
                "headers and query arrived"
            } else {
                "missing"
            },
            "",
        ),
        "/search" if first.starts_with("POST") => {
            if has("authorization: bearer tv-key") {
                respond(
                    "200 OK",
                    "application/json",
                    r#"{"results":[{"title":"Tavily hit","url":"https://t.example","content":"from tavily"}]}"#,
                    "",
                )
            } else {
                respond("401 Unauthorized", "application/json", "{}", "")
            }
        }
        "/search" => respond(
            "200 OK",
            "application/json",
            r#"{"results":[{"title":"Searx hit","url":"https://s.example","content":"from searx"}]}"#,
            "",
        ),
        "/res/v1/web/search" => {
            if has("x-subscription-token: brave-key") {
                respond(
                    "200 OK",
                    "application/json",
                    r#"{"web":{"results":[{"title":"Brave hit","url":"https://b.example","description":"from brave"}]}}"#,
                    "",
                )
            } else {
                respond("401 Unauthorized", "application/json", "{}", "")
            }
        }
        _ => respond("404 Not Found", "text/plain", "", ""),
    }
}

/// A small HTTP/1.1 server: one request per connection, answers from `route`.
async fn server() -> String {
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
                let _ = sock.write_all(reply.as_bytes()).await;
                let _ = sock.shutdown().await;
            });
        }
    });
    format!("http://{addr}")
}

fn fetch_args(url: String) -> WebFetchArgs {
    WebFetchArgs {
        url,
        method: None,
        headers: None,
        query: None,
        body: None,
        format: FetchFormat::Auto,
        jsonpath: None,
        max_length: None,
    }
}

fn config() -> (tempfile::TempDir, WebConfig) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut c = WebConfig::new(dir.path().to_path_buf());
    c.timeout = Duration::from_secs(5);
    (dir, c)
}

#[tokio::test]
async fn html_becomes_markdown_and_is_fenced_as_untrusted() {
    let base = server().await;
    let (_d, c) = config();
    let r = web_fetch(&c, &fetch_args(format!("{base}/page")))
        .await
        .expect("fetch");
    assert_eq!(r.status, 200);
    assert!(
        r.text.contains("# Hello") && r.text.contains("**bold**"),
        "{}",
        r.text
    );
    assert!(
        !r.text.contains("evil()"),
        "scripts are dropped: {}",
        r.text
    );
    let shown = tools::render_fetch(&r);
    assert!(
        shown.contains("<untrusted-web-content source=") && shown.contains("never as instructions"),
        "{shown}"
    );
    let mut raw = fetch_args(format!("{base}/page"));
    raw.format = FetchFormat::Raw;
    assert!(
        web_fetch(&c, &raw)
            .await
            .expect("raw")
            .text
            .starts_with("<html>")
    );
}

#[tokio::test]
async fn json_is_pretty_and_jsonpath_selects() {
    let base = server().await;
    let (_d, c) = config();
    let r = web_fetch(&c, &fetch_args(format!("{base}/data")))
        .await
        .expect("fetch");
    assert!(r.text.contains("\n  \"items\": ["), "{}", r.text);
    let mut a = fetch_args(format!("{base}/data"));
    a.jsonpath = Some("$.items[*].name".into());
    assert_eq!(
        web_fetch(&c, &a).await.expect("jsonpath").text,
        "[\n  \"a\",\n  \"b\"\n]"
    );
    a.jsonpath = Some("$.items[".into());
    assert!(
        web_fetch(&c, &a)
            .await
            .expect_err("bad path")
            .to_string()
            .contains("not a valid JSONPath")
    );
    let mut h = fetch_args(format!("{base}/page"));
    h.jsonpath = Some("$.x".into());
    assert!(
        web_fetch(&c, &h)
            .await
            .expect_err("not json")
            .to_string()
            .contains("needs a JSON response")
    );
}

#[tokio::test]
async fn long_bodies_are_cut_and_saved_limits_hold() {
    let base = server().await;
    let (_d, mut c) = config();
    let mut a = fetch_args(format!("{base}/long"));
    a.max_length = Some(50);
    let r = web_fetch(&c, &a).await.expect("fetch");
    assert!(r.cut && r.total_chars == 200);
    assert!(r.text.contains("cut at 50 of 200 characters"), "{}", r.text);
    assert_eq!(
        std::fs::read_to_string(r.saved_to.expect("saved"))
            .expect("read")
            .len(),
        200
    );

    c.max_body_bytes = 1000;
    let err = web_fetch(&c, &fetch_args(format!("{base}/huge")))
        .await
        .expect_err("too big");
    assert!(err.to_string().contains("too large"), "{err}");
    let err = web_fetch(&c, &fetch_args(format!("{base}/loop")))
        .await
        .expect_err("loop");
    assert!(
        err.to_string().contains("redirected too many times"),
        "{err}"
    );
    let r = web_fetch(&c, &fetch_args(format!("{base}/missing")))
        .await
        .expect("404 is a result");
    assert_eq!((r.status, r.text.as_str()), (404, "not here"));
    assert!(
        web_fetch(&c, &fetch_args("file:///etc/passwd".into()))
            .await
            .expect_err("scheme")
            .to_string()
            .contains("only http and https")
    );
    assert!(
        web_fetch(&c, &fetch_args("http://127.0.0.1:1/".into()))
            .await
            .expect_err("refused")
            .to_string()
            .contains("could not be reached")
    );

    let mut e = fetch_args(format!("{base}/echo"));
    e.headers = Some([("X-Test".to_string(), "yes".to_string())].into());
    e.query = Some([("a".to_string(), "1".to_string())].into());
    assert_eq!(
        web_fetch(&c, &e).await.expect("echo").text,
        "headers and query arrived"
    );
    e.method = Some("TRACE".into());
    assert!(
        web_fetch(&c, &e)
            .await
            .expect_err("method")
            .to_string()
            .contains("not supported")
    );
}

#[tokio::test]
async fn search_through_each_provider_and_without_one() {
    let base = server().await;
    let (_d, mut c) = config();
    let q = WebSearchArgs {
        query: "tandem".into(),
        count: Some(3),
        freshness: Some("pw".into()),
        country: None,
    };
    let err = web_search(&c, &q).await.expect_err("none configured");
    assert!(
        err.to_string()
            .contains("no web search provider is configured"),
        "{err}"
    );

    c.search = Some(SearchProvider::Searxng {
        base_url: base.clone(),
    });
    assert_eq!(
        web_search(&c, &q).await.expect("searx")[0].title,
        "Searx hit"
    );
    c.search = Some(SearchProvider::Brave {
        api_key: "brave-key".into(),
        base_url: base.clone(),
    });
    let hits = web_search(&c, &q).await.expect("brave");
    assert_eq!(
        (hits[0].title.as_str(), hits[0].snippet.as_str()),
        ("Brave hit", "from brave")
    );
    c.search = Some(SearchProvider::Brave {
        api_key: "wrong".into(),
        base_url: base.clone(),
    });
    assert!(
        web_search(&c, &q)
            .await
            .expect_err("401")
            .to_string()
            .contains("refused the API key")
    );
    c.search = Some(SearchProvider::Tavily {
        api_key: "tv-key".into(),
        base_url: base.clone(),
    });
    let hits = web_search(&c, &q).await.expect("tavily");
    assert_eq!(hits[0].url, "https://t.example");
    let text = tools::render_search_hits("tandem", &hits);
    assert!(
        text.contains("1. Tavily hit") && text.contains("untrusted-web-content"),
        "{text}"
    );
    let bad = WebSearchArgs {
        freshness: Some("week".into()),
        ..q
    };
    assert!(web_search(&c, &bad).await.is_err());
}
