//! A long fetched page, as the model gets it: its head and tail within the engine's cap, the
//! whole saved where read_file and search_codebase reach it, and any range on request.

use test_support::http;

use serde_json::json;
use std::time::Duration;
use tools::{FetchContext, FetchResult, WebConfig, WebFetchArgs, cap_result, render_fetch};

const LINES: usize = 2000;

/// `line 0001 xxx…`: 2000 lines of 50 characters and a newline.
fn numbered() -> String {
    (1..=LINES)
        .map(|i| format!("line {i:04} {}\n", "x".repeat(40)))
        .collect()
}

/// Text of three-byte characters: the engine's cap counts bytes.
fn wide() -> String {
    (1..=LINES)
        .map(|i| format!("{i:04} {}\n", "字".repeat(30)))
        .collect()
}

fn route(request: &str) -> String {
    let path = request.split_whitespace().nth(1).unwrap_or("/");
    match path {
        "/lines" => http::respond("200 OK", "text/plain", &numbered(), ""),
        "/wide" => http::respond("200 OK", "text/plain; charset=utf-8", &wide(), ""),
        "/short" => http::respond("200 OK", "text/plain", &"s".repeat(200), ""),
        _ => http::respond("404 Not Found", "text/plain", "", ""),
    }
}

fn config() -> (tempfile::TempDir, WebConfig) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut c = WebConfig::new(dir.path().join("fetched"));
    c.timeout = Duration::from_secs(5);
    (dir, c)
}

/// Arguments as the model sends them.
fn args(v: serde_json::Value) -> WebFetchArgs {
    serde_json::from_value(v).expect("valid arguments")
}

async fn fetch(c: &WebConfig, a: serde_json::Value) -> FetchResult {
    tools::web_fetch(c, &args(a), &FetchContext::default())
        .await
        .expect("fetch")
}

/// The one line of `text` that is not page text, and the page lines around it.
fn marker_and_lines(text: &str) -> (String, Vec<&str>) {
    let (kept, marks): (Vec<&str>, Vec<&str>) = text.lines().partition(|l| l.starts_with("line "));
    assert_eq!(marks.len(), 1, "one marker: {marks:?}");
    (marks[0].to_string(), kept)
}

fn number(line: &str) -> usize {
    line[5..9].parse().expect("line number")
}

#[tokio::test]
async fn a_long_page_keeps_its_head_and_tail_within_the_engine_cap() {
    let base = http::serve(route).await;
    let (_d, c) = config();
    let r = fetch(&c, json!({"url": format!("{base}/lines")})).await;
    let whole = numbered();
    assert!(r.cut && r.total_chars == whole.len());
    let shown = render_fetch(&r);
    assert!(
        cap_result(&shown).is_none(),
        "the engine would cut it again ({} bytes)",
        shown.len()
    );

    // Cut between lines, more of the head than of the tail, and the gap named exactly.
    let (marker, kept) = marker_and_lines(&r.text);
    assert!(kept.iter().all(|l| l.len() == 50), "whole lines only");
    assert_eq!(number(kept[0]), 1);
    assert_eq!(number(kept[kept.len() - 1]), LINES);
    let head = kept
        .iter()
        .enumerate()
        .take_while(|(i, l)| number(l) == i + 1)
        .count();
    let tail_from = number(kept[head]);
    assert!(head > kept.len() - head, "head {head} of {}", kept.len());
    let left_out = tail_from - head - 1;
    assert!(
        marker.contains(&format!(
            "{} characters (lines {}–{}) left out here",
            left_out * 51,
            head + 1,
            tail_from - 1
        )),
        "{marker}"
    );

    // The whole text is saved, and the marker says how to read it.
    let saved = r.saved_to.clone().expect("saved");
    assert!(saved.is_absolute() && saved.starts_with(&c.output_dir));
    assert_eq!(std::fs::read_to_string(&saved).expect("saved text"), whole);
    let p = saved.display();
    assert!(
        marker.contains(&format!(
            "The whole text ({LINES} lines) is saved as {p}: read any part with read_file (path={p}, offset, limit) or search it with search_codebase (path={p})."
        )),
        "{marker}"
    );
}

#[tokio::test]
async fn max_length_is_held_to_what_fits_and_wide_text_fits_too() {
    let base = http::serve(route).await;
    let (_d, c) = config();
    let r = fetch(
        &c,
        json!({"url": format!("{base}/lines"), "max_length": 1_000_000}),
    )
    .await;
    assert!(r.cut);
    assert!(cap_result(&render_fetch(&r)).is_none());
    let r = fetch(&c, json!({"url": format!("{base}/wide")})).await;
    assert!(r.cut);
    assert!(
        cap_result(&render_fetch(&r)).is_none(),
        "{} bytes",
        r.text.len()
    );
    assert!(r.text.starts_with("0001 字"), "{}", &r.text[..40]);
    assert!(r.text.ends_with(&format!("{LINES} {}\n", "字".repeat(30))));
}

#[tokio::test]
async fn an_offset_returns_that_range_and_says_where_it_is() {
    let base = http::serve(route).await;
    let (_d, c) = config();
    let whole = numbered();
    // Line 101 starts at character 5100; 1000 characters are 19 whole lines and a part of
    // one, which is left for the next range.
    let r = fetch(
        &c,
        json!({"url": format!("{base}/lines"), "offset": 5100, "max_length": 1000}),
    )
    .await;
    assert!(r.cut);
    assert!(r.text.starts_with(&whole[5100..6069]), "{}", r.text);
    let note = &r.text[969..];
    assert!(
        note.contains(&format!(
            "characters 5100–6069 of {} (lines 101–119 of {LINES})",
            whole.len()
        )),
        "{note}"
    );
    assert!(note.contains("offset=6069"), "{note}");
    let saved = r.saved_to.clone().expect("saved");
    assert_eq!(std::fs::read_to_string(&saved).expect("saved"), whole);
    assert!(
        note.contains(&format!("saved as {}", saved.display())),
        "{note}"
    );

    // The last range says it is the end.
    let from = whole.len() - 51;
    let r = fetch(&c, json!({"url": format!("{base}/lines"), "offset": from})).await;
    assert!(r.text.starts_with(&whole[from..]), "{}", r.text);
    assert!(r.text[51..].contains("the end"), "{}", r.text);

    // Past the end: an error naming the length.
    let err = tools::web_fetch(
        &c,
        &args(json!({"url": format!("{base}/lines"), "offset": 500_000})),
        &FetchContext::default(),
    )
    .await
    .expect_err("past the end");
    assert!(
        err.to_string()
            .contains(&format!("{} characters long", whole.len())),
        "{err}"
    );
}

/// A saved page takes a name no other file has: an earlier one is never written over, and
/// fetches at the same time each get their own.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_saved_page_never_overwrites_another() {
    let base = http::serve(route).await;
    let (_d, c) = config();
    std::fs::create_dir_all(&c.output_dir).expect("mkdir");
    let earlier = c.output_dir.join("fetch-2.txt");
    std::fs::write(&earlier, "earlier").expect("write");

    let r = fetch(
        &c,
        json!({"url": format!("{base}/short"), "max_length": 50}),
    )
    .await;
    let saved = r.saved_to.expect("saved");
    assert_ne!(saved, earlier);
    assert_eq!(std::fs::read_to_string(&earlier).expect("read"), "earlier");

    let fetches: Vec<_> = (0..8)
        .map(|_| {
            let c = c.clone();
            let url = format!("{base}/short");
            tokio::spawn(async move { fetch(&c, json!({"url": url, "max_length": 50})).await })
        })
        .collect();
    let mut paths = std::collections::BTreeSet::new();
    for f in fetches {
        let path = f.await.expect("join").saved_to.expect("saved");
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            "s".repeat(200)
        );
        paths.insert(path);
    }
    assert_eq!(paths.len(), 8, "{paths:?}");
}
