//! web_search with more results than a provider gives in one answer: the seed's `count` goes
//! up to 50, asked for page by page (Brave's `offset`, SearXNG's `pageno`), each result once.

use test_support::http;

use std::time::Duration;
use tools::{SearchProvider, WebConfig, WebSearchArgs, web_search};

/// A query parameter of the request line.
fn param<'a>(request: &'a str, name: &str) -> Option<&'a str> {
    let target = request.split_whitespace().nth(1)?;
    target
        .split_once('?')?
        .1
        .split('&')
        .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
}

/// 20 results a page over three pages (60 in all), then none; the second page repeats the
/// first page's last result, as real engines do.
fn page_of(page: usize) -> Vec<String> {
    if page >= 3 {
        return Vec::new();
    }
    let mut urls: Vec<String> = (0..20)
        .map(|i| format!("https://r.example/{page}-{i}"))
        .collect();
    if page == 1 {
        urls[0] = "https://r.example/0-19".into();
    }
    urls
}

fn results(urls: &[String], snippet: &str) -> String {
    let items: Vec<String> = urls
        .iter()
        .map(|u| format!(r#"{{"title":"t","url":"{u}","{snippet}":"s"}}"#))
        .collect();
    items.join(",")
}

fn route(request: &str) -> String {
    let path = request.split_whitespace().nth(1).unwrap_or("/");
    if path.starts_with("/res/v1/web/search") {
        // Brave: `offset` counts pages of `count`, at most 20 a page.
        let count: usize = param(request, "count")
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        if count > 20 {
            return http::respond("422 Unprocessable", "application/json", "{}", "");
        }
        let page: usize = param(request, "offset")
            .and_then(|o| o.parse().ok())
            .unwrap_or(0);
        let body = format!(
            r#"{{"web":{{"results":[{}]}}}}"#,
            results(&page_of(page), "description")
        );
        return http::respond("200 OK", "application/json", &body, "");
    }
    if path.starts_with("/search") {
        let page: usize = param(request, "pageno")
            .and_then(|p| p.parse().ok())
            .unwrap_or(1);
        let body = format!(
            r#"{{"results":[{}]}}"#,
            results(&page_of(page - 1), "content")
        );
        return http::respond("200 OK", "application/json", &body, "");
    }
    http::respond("404 Not Found", "text/plain", "", "")
}

fn args(count: u8) -> WebSearchArgs {
    WebSearchArgs {
        query: "tandem".into(),
        count: Some(count),
        freshness: None,
        country: None,
    }
}

#[tokio::test]
async fn fifty_results_are_gathered_page_by_page_each_once() {
    let base = http::serve(route).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let mut c = WebConfig::new(dir.path().to_path_buf());
    c.timeout = Duration::from_secs(5);
    for provider in [
        SearchProvider::Brave {
            api_key: "k".into(),
            base_url: base.clone(),
        },
        SearchProvider::Searxng {
            base_url: base.clone(),
        },
    ] {
        c.search = Some(provider.clone());
        let hits = web_search(&c, &args(50)).await.expect("search");
        let urls: Vec<&str> = hits.iter().map(|h| h.url.as_str()).collect();
        assert_eq!(urls.len(), 50, "{provider:?}: {urls:?}");
        let unique: std::collections::BTreeSet<&str> = urls.iter().copied().collect();
        assert_eq!(unique.len(), 50, "each result once: {urls:?}");
        assert_eq!(urls[20], "https://r.example/1-1", "{urls:?}");
        // Fewer than a page: one answer, cut to the count.
        assert_eq!(web_search(&c, &args(7)).await.expect("search").len(), 7);
    }
    // More than the provider has: what it has.
    c.search = Some(SearchProvider::Searxng { base_url: base });
    let all = web_search(&c, &args(50)).await.expect("search");
    assert_eq!(all.len(), 50);
    let err = web_search(&c, &args(51)).await.expect_err("over the limit");
    assert!(err.to_string().contains("count must be 1 to 50"), "{err}");
}
