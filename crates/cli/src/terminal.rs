//! Text from a model, a tool or a command, printed for a person. A terminal obeys the control
//! sequences in what it prints: an OSC 52 in a command's output sets the clipboard, a CSI can
//! rewrite the screen or hide a line. So on a terminal every control character but newline and
//! tab is shown as a visible sign instead; into a pipe or a file the bytes go as they are, for
//! scripts (and `--json` escapes them itself).

use clap::ValueEnum;
use std::borrow::Cow;
use std::io::{IsTerminal as _, Write as _};
use std::sync::OnceLock;

/// `--control-chars`: what happens to control characters in printed text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ControlChars {
    /// Escaped when the stream is a terminal, kept into a pipe or a file.
    #[default]
    Auto,
    /// Always escaped.
    Escape,
    /// Always kept.
    Keep,
}

static CHOICE: OnceLock<ControlChars> = OnceLock::new();

/// Sets the choice for the whole run (once, from the command line).
pub fn choose(choice: ControlChars) {
    let _ = CHOICE.set(choice);
}

fn escaping(stream_is_terminal: bool) -> bool {
    match CHOICE.get().copied().unwrap_or_default() {
        ControlChars::Auto => stream_is_terminal,
        ControlChars::Escape => true,
        ControlChars::Keep => false,
    }
}

/// `text` as it may go to stdout.
pub fn out(text: &str) -> Cow<'_, str> {
    if escaping(std::io::stdout().is_terminal()) {
        escape_controls(text)
    } else {
        Cow::Borrowed(text)
    }
}

/// `text` as it may go to stderr.
pub fn err(text: &str) -> Cow<'_, str> {
    if escaping(std::io::stderr().is_terminal()) {
        escape_controls(text)
    } else {
        Cow::Borrowed(text)
    }
}

/// Prints to stdout, control characters shown as the stream calls for, and flushes (streamed
/// text arrives in pieces without newlines).
pub fn print_out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(out(text).as_bytes());
    let _ = stdout.flush();
}

/// Prints to stderr, control characters shown as the stream calls for.
pub fn print_err(text: &str) {
    let _ = std::io::stderr().lock().write_all(err(text).as_bytes());
}

/// A line to stdout, as [`print_out`].
pub fn outln(line: impl AsRef<str>) {
    print_out(&format!("{}\n", line.as_ref()));
}

/// A line to stderr, as [`print_err`].
pub fn errln(line: impl AsRef<str>) {
    print_err(&format!("{}\n", line.as_ref()));
}

/// Every control character but newline and tab as a visible sign: C0 ones and DEL as their
/// Unicode control pictures (ESC is `␛`), C1 ones (which some terminals read as ESC
/// sequences) as `\u{9b}`. A carriage return is kept only before a newline (a CRLF line end);
/// alone it returns to the start of the line and lets what follows hide what came before.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.char_indices().any(|(i, c)| obeyed(c, &text[i..])) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for (i, c) in text.char_indices() {
        match c {
            c if !obeyed(c, &text[i..]) => out.push(c),
            '\u{7f}' => out.push('\u{2421}'),
            c if u32::from(c) < 0x20 => {
                out.push(char::from_u32(0x2400 + u32::from(c)).unwrap_or('\u{fffd}'))
            }
            c => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
        }
    }
    Cow::Owned(out)
}

/// Whether a terminal would act on `c`, the first character of `rest`, rather than print it.
fn obeyed(c: char, rest: &str) -> bool {
    c.is_control() && c != '\n' && c != '\t' && !rest.starts_with("\r\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_sequences_are_shown_not_obeyed() {
        let osc52 = "before\u{1b}]52;c;ZWNobyBwd25lZA==\u{7}after\n";
        assert_eq!(
            escape_controls(osc52),
            "before␛]52;c;ZWNobyBwd25lZA==␇after\n"
        );
        assert_eq!(escape_controls("\u{1b}[2J\u{1b}[H"), "␛[2J␛[H");
        assert_eq!(escape_controls("a\u{9b}31mb"), "a\\u{9b}31mb");
        assert_eq!(escape_controls("x\u{7f}\u{0}"), "x␡␀");
    }

    #[test]
    fn newlines_tabs_and_crlf_line_ends_stay() {
        let plain = "line one\n\tindented\r\nline three\n";
        assert!(matches!(escape_controls(plain), Cow::Borrowed(_)));
        assert_eq!(escape_controls("rm -rf /\rls  "), "rm -rf /␍ls  ");
        assert_eq!(escape_controls("ünïcödé ✓\n"), "ünïcödé ✓\n");
    }
}
