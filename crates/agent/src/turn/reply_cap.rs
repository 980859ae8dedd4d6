//! A reply's text capped as a tool's result is: a model that writes megabytes of text (a
//! broken server, a reply stuck repeating itself) must not fill the session's log, the window
//! and every later request. The whole text is saved beside the session's command outputs, and
//! what is kept says where.

use protocol::{ContentBlock, Message};
use std::path::Path;

/// Longer than any model writes on purpose (about 50,000 tokens of text; models stop at 8–32k).
pub(crate) const MAX_REPLY_BYTES: usize = 200_000;
/// Of a cut text: its start (what it set out to say) and its end (how it ended).
const HEAD_BYTES: usize = 120_000;
const TAIL_BYTES: usize = 60_000;

/// Cuts each text block of `message` longer than [`MAX_REPLY_BYTES`], saving its whole text
/// in `dir` as `reply-<stamp>-<n>.txt`. Whether anything was cut.
pub(crate) fn fit(message: &mut Message, dir: &Path, stamp: u64) -> bool {
    let mut cut = false;
    for (n, block) in message.content.iter_mut().enumerate() {
        let ContentBlock::Text { text } = block else {
            continue;
        };
        if text.len() <= MAX_REPLY_BYTES {
            continue;
        }
        let file = dir.join(format!("reply-{stamp}-{n}.txt"));
        let saved =
            std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&file, text.as_bytes()));
        let head = &text[..floor(text, HEAD_BYTES)];
        let tail = &text[floor(text, text.len() - TAIL_BYTES)..];
        let note = match saved {
            Ok(()) => format!(
                "\n\n[… this reply was {} characters long; it was cut here to fit. The whole of it is in {} …]\n\n",
                text.chars().count(),
                file.display()
            ),
            Err(e) => {
                tracing::warn!(%e, file = %file.display(), "could not save a cut reply");
                format!(
                    "\n\n[… this reply was {} characters long; it was cut here to fit …]\n\n",
                    text.chars().count()
                )
            }
        };
        *text = format!("{head}{note}{tail}");
        cut = true;
    }
    cut
}

/// The largest char boundary of `text` at or below `at`.
fn floor(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_of_megabytes_is_kept_cut_and_saved_whole_beside() {
        let dir = tempfile::tempdir().expect("tmp");
        let long = format!("START {} END", "é".repeat(3_000_000));
        let mut message = Message {
            role: protocol::Role::Assistant,
            content: vec![
                ContentBlock::Text {
                    text: "short".into(),
                },
                ContentBlock::Text { text: long.clone() },
            ],
        };
        assert!(fit(&mut message, dir.path(), 7));
        let ContentBlock::Text { text } = &message.content[1] else {
            panic!("text");
        };
        assert!(text.len() < MAX_REPLY_BYTES + 1000, "{}", text.len());
        assert!(text.starts_with("START ") && text.ends_with(" END"));
        assert!(
            text.contains("3000010 characters long"),
            "{}",
            &text[HEAD_BYTES - 10..HEAD_BYTES + 300]
        );
        let saved = std::fs::read_to_string(dir.path().join("reply-7-1.txt")).expect("saved");
        assert_eq!(saved, long);
        assert_eq!(
            message.content[0],
            ContentBlock::Text {
                text: "short".into()
            }
        );
        let mut small = message.clone();
        assert!(
            !fit(&mut small, dir.path(), 8),
            "a cut text is short enough now"
        );
    }
}
