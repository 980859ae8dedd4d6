//! Project paths as text, without loss. A command may make a file whose name is not UTF-8;
//! checkpoints, the watcher and restore keep paths as `String`s, so each byte of a name that is
//! not UTF-8 is kept as NUL and two hex digits. NUL cannot be part of a file name, so the text
//! is unambiguous and turns back into the very same bytes; people see `\xE9` instead.

use std::borrow::Cow;
use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::os::unix::ffi::{OsStrExt as _, OsStringExt as _};
use std::path::{Path, PathBuf};

/// The text standing for a name's bytes.
pub fn from_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            let _ = write!(out, "\0{b:02x}");
        }
    }
    out
}

/// The text standing for a path (relative or not).
pub fn from_path(path: &Path) -> String {
    from_os(path.as_os_str())
}

pub fn from_os(name: &OsStr) -> String {
    match name.to_str() {
        Some(s) => s.to_string(),
        None => from_bytes(name.as_bytes()),
    }
}

/// The byte a NUL and two hex digits stand for. Only bytes that cannot stand alone in UTF-8
/// (0x80 and up) are ever written so: anything else is left as it is, so no text can spell a
/// `/` or a `.` into a path this way (a NUL then stays in it, and the file system refuses it).
fn hex_byte(s: &str) -> Option<u8> {
    let digits = s.get(..2)?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u8::from_str_radix(digits, 16).ok().filter(|b| *b >= 0x80)
}

/// The bytes a text made by [`from_bytes`] stands for (any other text: its own bytes).
pub fn to_bytes(text: &str) -> Cow<'_, [u8]> {
    if !text.contains('\0') {
        return Cow::Borrowed(text.as_bytes());
    }
    let mut out = Vec::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('\0') {
        out.extend_from_slice(&rest.as_bytes()[..at]);
        let after = &rest[at + 1..];
        match hex_byte(after) {
            Some(b) => {
                out.push(b);
                rest = &after[2..];
            }
            None => {
                out.push(0);
                rest = after;
            }
        }
    }
    out.extend_from_slice(rest.as_bytes());
    Cow::Owned(out)
}

/// The path a text made by [`from_path`] stands for.
pub fn to_path(text: &str) -> Cow<'_, Path> {
    match to_bytes(text) {
        Cow::Borrowed(b) => Cow::Borrowed(Path::new(OsStr::from_bytes(b))),
        Cow::Owned(v) => Cow::Owned(PathBuf::from(OsString::from_vec(v))),
    }
}

/// How people see the path: each byte that is not UTF-8 as `\xE9`, and each control
/// character escaped (`\n`, `\t`, `\x1B`): a name with a newline or an escape sequence in it
/// must not break a listing into lines of its own or drive the terminal.
pub fn shown(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        rest = &rest[c.len_utf8()..];
        match c {
            '\0' => match hex_byte(rest) {
                Some(b) => {
                    let _ = write!(out, "\\x{b:02X}");
                    rest = &rest[2..];
                }
                None => out.push_str("\\0"),
            },
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => match u8::try_from(u32::from(c)) {
                Ok(b) => {
                    let _ = write!(out, "\\x{b:02X}");
                }
                Err(_) => {
                    let _ = write!(out, "\\u{{{:X}}}", u32::from(c));
                }
            },
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_shown_on_one_line_with_its_control_characters_escaped() {
        assert_eq!(shown("plain/ünï.txt"), "plain/ünï.txt");
        assert_eq!(shown("two\nlines.txt"), "two\\nlines.txt");
        assert_eq!(shown("tab\there\r"), "tab\\there\\r");
        assert_eq!(shown("esc\u{1b}[31mred"), "esc\\x1B[31mred");
        assert_eq!(shown("c1\u{9b}x"), "c1\\x9Bx");
        assert_eq!(shown(&from_bytes(b"caf\xe9\n.txt")), "caf\\xE9\\n.txt");
    }

    #[test]
    fn every_name_comes_back_as_the_same_bytes() {
        for bytes in [
            &b"plain.txt"[..],
            b"caf\xe9.txt",
            b"\xff\xfe",
            "résumé/ünïcode".as_bytes(),
            b"half \xc3 of a character",
            b"dir/\x80/x",
        ] {
            let text = from_bytes(bytes);
            assert_eq!(to_bytes(&text).as_ref(), bytes, "{text:?}");
            assert_eq!(
                to_path(&text).as_os_str().as_bytes(),
                bytes,
                "{text:?} as a path"
            );
        }
        assert_eq!(from_bytes("résumé".as_bytes()), "résumé");
    }

    /// A text that tries to spell a separator or a parent folder does not become one: a key a
    /// checkpoint is given cannot be turned into a path outside the project.
    #[test]
    fn only_bytes_that_are_not_utf8_are_spelled_back() {
        let sneaky = "x\u{0}2f..\u{0}2f..\u{0}2fetc\u{0}2fpasswd";
        let back = to_path(sneaky);
        assert!(back.components().count() == 1, "{back:?} has folders in it");
        assert!(back.as_os_str().as_bytes().contains(&0), "the NUL stays");
        assert_eq!(to_bytes("a\u{0}41").as_ref(), b"a\x0041");
    }

    #[test]
    fn people_see_the_bytes_in_hex() {
        assert_eq!(shown(&from_bytes(b"caf\xe9.txt")), "caf\\xE9.txt");
        assert_eq!(shown("plain"), "plain");
    }
}
