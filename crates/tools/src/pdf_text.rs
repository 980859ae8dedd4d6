//! The text of a PDF, for the model: read_file and web_fetch meet PDFs (a spec, a paper, an
//! invoice) and a model reads text. The parser is given the bytes in memory and may panic on
//! a malformed file: that is caught and said in words, never taken down with the session.

/// PDFs larger than this are not parsed (the parser holds the whole file and its objects).
pub const MAX_PDF_BYTES: usize = 50 * 1024 * 1024;

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
    let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pdf_extract::extract_text_from_mem(bytes)
    }));
    let text = match parsed {
        Ok(Ok(text)) => text,
        Ok(Err(e)) => return Err(format!("it could not be parsed ({e})")),
        Err(_) => return Err("it could not be parsed (the file is malformed)".into()),
    };
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
