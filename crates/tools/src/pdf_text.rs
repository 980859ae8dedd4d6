//! The text of a PDF, for the model: read_file and web_fetch meet PDFs (a spec, a paper, an
//! invoice) and a model reads text. The parser is given the bytes in memory and may panic on
//! a malformed file: that is caught and said in words, never taken down with the session.

/// PDFs larger than this are not parsed (the parser holds the whole file and its objects).
pub const MAX_PDF_BYTES: usize = 50 * 1024 * 1024;

/// A PDF whose text takes longer than this is given up on: a file from a cloned repository or
/// a web page must not hold the session.
pub const PDF_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(30);

/// Runs `job` on a thread of its own and waits at most `limit`. A job still running then is
/// left to finish on its own (a parser cannot be stopped from outside); its answer is dropped.
fn within(
    limit: std::time::Duration,
    job: impl FnOnce() -> Result<String, String> + Send + 'static,
) -> Result<String, String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("pdf-text".into())
        .spawn(move || {
            let _ = tx.send(job());
        })
        .map_err(|e| format!("it could not be read ({e})"))?;
    rx.recv_timeout(limit).unwrap_or_else(|_| {
        Err(format!(
            "reading its text took longer than {} s, so it was given up (the file may be malformed)",
            limit.as_secs()
        ))
    })
}

/// Whether bytes start like a PDF.
pub fn is_pdf(head: &[u8]) -> bool {
    head.starts_with(b"%PDF-")
}

/// The PDF's text, pages in order; `Err` says why there is none, in words.
pub fn pdf_text(bytes: &[u8]) -> Result<String, String> {
    if bytes.len() > MAX_PDF_BYTES {
        return Err(format!(
            "it is larger than {} MB, too large to read here",
            MAX_PDF_BYTES / (1024 * 1024)
        ));
    }
    let owned = bytes.to_vec();
    let text = within(PDF_TIME_LIMIT, move || {
        match std::panic::catch_unwind(|| pdf_extract::extract_text_from_mem(&owned)) {
            Ok(Ok(text)) => Ok(text),
            Ok(Err(e)) => Err(format!("it could not be parsed ({e})")),
            Err(_) => Err("it could not be parsed (the file is malformed)".into()),
        }
    })?;
    // The extractor pads pages with blank lines: runs of them say nothing.
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank += 1;
            if blank > 1 || out.is_empty() {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    if out.trim().is_empty() {
        return Err("it holds no text (it may be scanned pages, images only)".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A PDF made to keep the parser busy must not hold the session: past the limit, the read
    /// is given up in words.
    #[test]
    fn a_parse_that_does_not_end_is_given_up() {
        let (release, stuck) = std::sync::mpsc::channel::<()>();
        let err = within(Duration::from_millis(50), move || {
            let _ = stuck.recv();
            Ok("never".into())
        })
        .expect_err("given up");
        assert!(err.contains("took longer than"), "{err}");
        drop(release);
        assert_eq!(
            within(Duration::from_secs(30), || Ok("text".into())),
            Ok("text".into())
        );
    }
}
