//! A reply caught in a loop. Greedy decoding can fall into repeating the same few tokens until
//! the token limit: in `make bench-agent` (py-palindrome) the built-in model wrote
//! `or c.isspace() ` some 330 times inside an edit, 5,300 tokens and eight minutes for a reply
//! that could never be used. Such a reply is cut where the loop shows, as if it had reached
//! its token limit, and the engine tells the model as it does for any cut reply.

/// The shortest and longest repeated piece looked for, in bytes.
const UNIT: std::ops::RangeInclusive<usize> = 1..=80;
/// How many times in a row, and over how many bytes at least, a piece must repeat at the end
/// of the reply: code repeats short pieces a few times (`----`, `0, 0, 0`), never this much.
const TIMES: usize = 12;
const SPAN: usize = 240;

/// Whether `text` ends with one piece written [`TIMES`] times in a row over [`SPAN`] bytes.
pub fn ends_in_a_loop(text: &str) -> bool {
    let bytes = text.as_bytes();
    UNIT.into_iter().any(|unit| {
        let times = TIMES.max(SPAN.div_ceil(unit));
        let span = unit * times;
        if bytes.len() < span {
            return false;
        }
        let tail = &bytes[bytes.len() - span..];
        let piece = &tail[..unit];
        // A run of one character (spaces, `=`) is layout, not a loop.
        if piece.iter().all(|b| *b == piece[0]) {
            return false;
        }
        tail.chunks(unit).all(|c| c == piece)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_piece_repeated_at_the_end_is_a_loop() {
        let start = "{\"new_string\":\"kept = [c for c in s if c.isalnum() or c == ' '";
        let looping = format!("{start}{}", " or c.isspace()".repeat(40));
        assert!(ends_in_a_loop(&looping));
        assert!(!ends_in_a_loop(&format!(
            "{start}{}",
            " or c.isspace()".repeat(3)
        )));
    }

    #[test]
    fn code_that_repeats_a_little_is_not() {
        for text in [
            "x = [0, 0, 0, 0, 0, 0, 0, 0]\n".to_string(),
            format!("# {}\n", "-".repeat(300)),
            format!("{}\n", " ".repeat(400)),
            "assert f(1) == 1\nassert f(2) == 2\nassert f(3) == 3\n".repeat(4),
        ] {
            assert!(!ends_in_a_loop(&text), "{text}");
        }
    }
}
