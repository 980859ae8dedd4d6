//! Issue 25: PDFs and images are what the seed calls attachments. A PDF was "a binary file;
//! it cannot be shown as text" to read_file and "(binary response …)" to web_fetch; an image
//! fetched was "(binary response: image/png, 70 bytes)". A PDF's text is read now, paged like
//! a text file's lines, and a fetched image comes with its bytes for the engine to attach.

/// A one-page PDF saying "Quarterly totals: 42 units", as a PDF writer makes one.
const PDF: &[u8] = include_bytes!("../../../tests/fixtures/quarterly.pdf");

use serde_json::json;
use test_support::http;
use tools::{FetchContext, ProjectRoot, ReadFileArgs, WebConfig, read_file, render_content};

fn args(path: &str, offset: Option<i64>) -> ReadFileArgs {
    ReadFileArgs {
        path: path.into(),
        offset,
        limit: None,
    }
}

#[test]
fn read_file_gives_a_pdfs_text_paged_and_says_when_there_is_none() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("report.pdf"), PDF).expect("write");
    std::fs::write(dir.path().join("broken.pdf"), b"%PDF-1.4\nnot really a pdf").expect("write");
    let root = ProjectRoot::open(dir.path()).expect("open");
    let c = read_file(&root, &args("report.pdf", None)).expect("read");
    assert_eq!(
        render_content(&c),
        "report.pdf (a PDF: its text, extracted): lines 1-1 of 1\n   1 | Quarterly totals: 42 units\n"
    );
    let err = read_file(&root, &args("broken.pdf", None)).expect_err("no text");
    assert!(
        err.to_string()
            .contains("broken.pdf is a PDF, but it could not be parsed"),
        "{err}"
    );
    let past = read_file(&root, &args("report.pdf", Some(5))).expect_err("past the end");
    assert!(past.to_string().contains("past the end"), "{past}");
}

/// A 1×1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
    0x42, 0x60, 0x82,
];

async fn fetch(base: String) -> tools::FetchResult {
    let url = format!("{base}/file");
    let dir = tempfile::tempdir().expect("tempdir");
    let c = WebConfig::new(dir.path().to_path_buf());
    let a: tools::WebFetchArgs = serde_json::from_value(json!({"url": url})).expect("args");
    tools::web_fetch(&c, &a, &FetchContext::default())
        .await
        .expect("fetch")
}

#[tokio::test]
async fn web_fetch_reads_a_pdf_and_brings_an_image_to_attach() {
    let pdf =
        fetch(http::serve(|_| http::respond_bytes("200 OK", "application/pdf", PDF, "")).await)
            .await;
    assert_eq!(pdf.text, "Quarterly totals: 42 units\n");
    assert!(pdf.image.is_none());
    // The file itself too, for a model that takes files.
    let file = pdf.document.expect("the PDF");
    assert_eq!(file.mime, "application/pdf");
    assert_eq!(
        base64::Engine::decode(
            &base64::engine::general_purpose::STANDARD,
            &file.data_base64
        )
        .expect("base64"),
        PDF
    );

    let png =
        fetch(http::serve(|_| http::respond_bytes("200 OK", "image/png", PNG, "")).await).await;
    assert_eq!(png.text, "(an image: image/png, 67 B)");
    let image = png.image.expect("the image");
    assert_eq!(image.mime, "image/png");
    assert_eq!(
        base64::Engine::decode(
            &base64::engine::general_purpose::STANDARD,
            &image.data_base64
        )
        .expect("base64"),
        PNG
    );
}

/// Issue 46: a fetched picture is saved among the session's fetched files, so the window can
/// show the person the picture the model saw (it was "Fetched the page" and nothing more).
#[tokio::test]
async fn a_fetched_picture_is_saved_for_the_window() {
    let base = http::serve(|_| http::respond_bytes("200 OK", "image/png", PNG, "")).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let c = WebConfig::new(dir.path().join("fetched"));
    let a: tools::WebFetchArgs =
        serde_json::from_value(json!({"url": format!("{base}/pic")})).expect("args");
    let r = tools::web_fetch(&c, &a, &FetchContext::default())
        .await
        .expect("fetch");
    let saved = r.picture_saved.expect("the picture was saved");
    assert!(
        saved.starts_with(dir.path().join("fetched")),
        "{}",
        saved.display()
    );
    assert_eq!(saved.extension().and_then(|e| e.to_str()), Some("png"));
    assert_eq!(std::fs::read(&saved).expect("read"), PNG);
}
