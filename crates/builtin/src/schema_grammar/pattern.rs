//! A string's `pattern` (a regex anchored with `^…$`) as GBNF (llama.cpp's `_pattern_to_rule`).
//! Like llama.cpp this reads the pattern byte by byte, so a quantifier after a multi-byte
//! character applies to its last byte only.

use std::collections::HashMap;

use super::rules::{Rules, build_repetition};

pub(super) enum PatternError {
    /// A regex with no GBNF equivalent here (lookaround, `\d`, an inner anchor…).
    Unsupported(String),
    /// Not a regex at all.
    Invalid(String),
}

const MAX_PATTERN_DEPTH: i32 = 100;

const NON_LITERAL: &[u8] = b"|.()[]{}*+?^$";
const ESCAPED_IN_REGEXPS_BUT_NOT_IN_LITERALS: &[u8] = b"^$.[](){}|*+?";

/// Adds the rules for `pattern` and returns the name of the one that matches the JSON string.
pub(super) fn pattern_rule(
    rules: &mut Rules,
    pattern: &str,
    name: &str,
) -> Result<String, PatternError> {
    let bytes = pattern.as_bytes();
    if bytes.len() < 2 || bytes[0] != b'^' || bytes[bytes.len() - 1] != b'$' {
        return Err(unsupported("not anchored with '^' and '$'"));
    }
    let mut parser = Parser {
        rules,
        name,
        pattern: &bytes[1..bytes.len() - 1],
        i: 0,
        paren_depth: 0,
        sub_rule_ids: HashMap::new(),
    };
    let body = to_rule(parser.transform()?);
    if parser.paren_depth != 0 {
        return Err(invalid("unbalanced parentheses"));
    }
    let rule = [b"\"\\\"\" (", body.as_slice(), b") \"\\\"\""].concat();
    Ok(parser.rules.add(name, rule))
}

fn unsupported(why: impl Into<String>) -> PatternError {
    PatternError::Unsupported(why.into())
}

fn invalid(why: impl Into<String>) -> PatternError {
    PatternError::Invalid(why.into())
}

/// A piece of the sequence being read: literal text (to be quoted, and merged with the
/// literals next to it) or grammar.
struct Piece {
    text: Vec<u8>,
    literal: bool,
}

fn to_rule(piece: Piece) -> Vec<u8> {
    if piece.literal {
        [b"\"", piece.text.as_slice(), b"\""].concat()
    } else {
        piece.text
    }
}

fn grammar(text: Vec<u8>) -> Piece {
    Piece {
        text,
        literal: false,
    }
}

struct Parser<'r, 'p> {
    rules: &'r mut Rules,
    name: &'p str,
    pattern: &'p [u8],
    i: usize,
    paren_depth: i32,
    /// The rules made for repeated groups, by their text, so a repeated one is made once.
    sub_rule_ids: HashMap<Vec<u8>, String>,
}

impl Parser<'_, '_> {
    /// Reads up to the end of the group (or of the pattern) and returns it as grammar.
    fn transform(&mut self) -> Result<Piece, PatternError> {
        let mut seq: Vec<Piece> = Vec::new();
        let length = self.pattern.len();
        while self.i < length {
            let c = self.pattern[self.i];
            match c {
                b'.' => {
                    let dot = self.rules.add("dot", "[^\\x0A\\x0D]");
                    seq.push(grammar(dot.into_bytes()));
                    self.i += 1;
                }
                b'(' => {
                    self.i += 1;
                    self.skip_non_capturing()?;
                    self.paren_depth += 1;
                    if self.paren_depth > MAX_PATTERN_DEPTH {
                        return Err(unsupported("pattern nesting too deep"));
                    }
                    let inner = to_rule(self.transform()?);
                    seq.push(grammar([b"(", inner.as_slice(), b")"].concat()));
                }
                b')' => {
                    self.i += 1;
                    if self.paren_depth == 0 {
                        return Err(invalid("unbalanced parentheses"));
                    }
                    self.paren_depth -= 1;
                    return Ok(join_seq(seq));
                }
                b'^' | b'$' => return Err(unsupported("anchor inside the pattern")),
                b'[' => seq.push(grammar(self.character_class()?)),
                b'|' => {
                    seq.push(grammar(b"|".to_vec()));
                    self.i += 1;
                }
                b'*' | b'+' | b'?' => {
                    let last = seq.pop().ok_or_else(|| invalid("nothing to repeat"))?;
                    let mut text = to_rule(last);
                    text.push(c);
                    seq.push(grammar(text));
                    self.i += 1;
                }
                b'{' => self.repeat_last(&mut seq)?,
                _ => seq.push(self.literal(c)?),
            }
        }
        Ok(join_seq(seq))
    }

    /// `(?:` is a plain group; any other `(?` (lookaround, named group, flags) is unsupported.
    fn skip_non_capturing(&mut self) -> Result<(), PatternError> {
        if self.pattern.get(self.i) == Some(&b'?') {
            if self.pattern.get(self.i + 1) == Some(&b':') {
                self.i += 2;
            } else {
                return Err(unsupported("unsupported group syntax"));
            }
        }
        Ok(())
    }

    /// `[…]` as written, escapes included if GBNF reads them the same.
    fn character_class(&mut self) -> Result<Vec<u8>, PatternError> {
        let length = self.pattern.len();
        let mut class = vec![b'['];
        self.i += 1;
        while self.i < length && self.pattern[self.i] != b']' {
            if self.pattern[self.i] == b'\\' {
                let escape = gbnf_escape_length(self.pattern, self.i);
                if escape == 0 {
                    return Err(unsupported(format!(
                        "unsupported escape in character class: {}",
                        self.text_at(self.i, 2)
                    )));
                }
                class.extend_from_slice(&self.pattern[self.i..self.i + escape]);
                self.i += escape;
            } else {
                class.push(self.pattern[self.i]);
                self.i += 1;
            }
        }
        if self.i >= length {
            return Err(invalid("unterminated character class"));
        }
        class.push(b']');
        self.i += 1;
        Ok(class)
    }

    /// `{n}`, `{m,}`, `{,n}` or `{m,n}` after a piece; a repeated group becomes a rule of its
    /// own, named `NAME-N`.
    fn repeat_last(&mut self, seq: &mut Vec<Piece>) -> Result<(), PatternError> {
        let length = self.pattern.len();
        self.i += 1;
        let start = self.i;
        while self.i < length && self.pattern[self.i] != b'}' {
            self.i += 1;
        }
        if self.i >= length {
            return Err(unsupported("unterminated curly brackets"));
        }
        let inside = &self.pattern[start..self.i];
        self.i += 1;
        let (min, max) = repetition_bounds(inside)?;
        let last = seq.pop().ok_or_else(|| invalid("nothing to repeat"))?;
        let item = if last.literal {
            [b"\"", last.text.as_slice(), b"\""].concat()
        } else {
            self.sub_rule(last.text).into_bytes()
        };
        seq.push(grammar(build_repetition(&item, min, max, b"")));
        Ok(())
    }

    fn sub_rule(&mut self, text: Vec<u8>) -> String {
        if let Some(id) = self.sub_rule_ids.get(&text) {
            return id.clone();
        }
        let number = self.sub_rule_ids.len() + 1;
        let id = self
            .rules
            .add(&format!("{}-{number}", self.name), text.clone());
        self.sub_rule_ids.insert(text, id.clone());
        id
    }

    /// As many characters as go together as literal text: the last one before a quantifier is
    /// left to a piece of its own, so the quantifier applies to it alone.
    fn literal(&mut self, first: u8) -> Result<Piece, PatternError> {
        let length = self.pattern.len();
        let mut literal = Vec::new();
        while self.i < length {
            let c = self.pattern[self.i];
            if c == b'\\' {
                if self.i == length - 1 {
                    return Err(invalid("trailing backslash"));
                }
                let next = self.pattern[self.i + 1];
                if ESCAPED_IN_REGEXPS_BUT_NOT_IN_LITERALS.contains(&next) {
                    literal.push(next);
                    self.i += 2;
                } else {
                    let escape = gbnf_escape_length(self.pattern, self.i);
                    if escape == 0 {
                        return Err(unsupported(format!(
                            "unsupported escape: {}",
                            self.text_at(self.i, 2)
                        )));
                    }
                    literal.extend_from_slice(&self.pattern[self.i..self.i + escape]);
                    self.i += escape;
                }
            } else if c == b'"' {
                literal.extend_from_slice(b"\\\"");
                self.i += 1;
            } else if !NON_LITERAL.contains(&c)
                && (self.i == length - 1
                    || literal.is_empty()
                    || self.pattern[self.i + 1] == b'.'
                    || !NON_LITERAL.contains(&self.pattern[self.i + 1]))
            {
                literal.push(c);
                self.i += 1;
            } else {
                break;
            }
        }
        if literal.is_empty() {
            // Nothing was read: a stray `]` or `}`.
            return Err(unsupported(format!(
                "unsupported character: {}",
                String::from_utf8_lossy(&[first])
            )));
        }
        Ok(Piece {
            text: literal,
            literal: true,
        })
    }

    /// Up to `len` bytes of the pattern from `at`, for a message.
    fn text_at(&self, at: usize, len: usize) -> String {
        let end = (at + len).min(self.pattern.len());
        String::from_utf8_lossy(&self.pattern[at..end]).into_owned()
    }
}

/// The sequence as grammar, consecutive literals merged into one.
fn join_seq(seq: Vec<Piece>) -> Piece {
    let mut parts: Vec<Vec<u8>> = Vec::new();
    let mut literal: Vec<u8> = Vec::new();
    for piece in seq {
        if piece.literal {
            literal.extend_from_slice(&piece.text);
        } else {
            if !literal.is_empty() {
                parts.push(to_rule(Piece {
                    text: std::mem::take(&mut literal),
                    literal: true,
                }));
            }
            parts.push(piece.text);
        }
    }
    if !literal.is_empty() {
        parts.push(to_rule(Piece {
            text: literal,
            literal: true,
        }));
    }
    grammar(parts.join(&b' '))
}

/// The bounds in `{…}` (`i32::MAX` for none), read as `std::stoi` reads them.
fn repetition_bounds(inside: &[u8]) -> Result<(i32, i32), PatternError> {
    let nums: Vec<&[u8]> = inside.split(|&b| b == b',').collect();
    let bad_number = || unsupported("invalid number in curly brackets");
    match nums.as_slice() {
        [n] => {
            let n = stoi(n).ok_or_else(bad_number)?;
            Ok((n, n))
        }
        [min, max] => {
            let min = if min.is_empty() {
                0
            } else {
                stoi(min).ok_or_else(bad_number)?
            };
            let max = if max.is_empty() {
                i32::MAX
            } else {
                stoi(max).ok_or_else(bad_number)?
            };
            Ok((min, max))
        }
        _ => Err(unsupported("wrong number of values in curly brackets")),
    }
}

/// `std::stoi`: leading blanks, a sign, at least one digit, and anything after the digits
/// ignored; `None` when there are no digits or the number does not fit an `int`.
fn stoi(text: &[u8]) -> Option<i32> {
    let start = text
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'))?;
    let text = &text[start..];
    let (negative, text) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let digits = text.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    let mut value: i64 = 0;
    for &d in &text[..digits] {
        value = value.checked_mul(10)?.checked_add(i64::from(d - b'0'))?;
    }
    i32::try_from(if negative { -value } else { value }).ok()
}

/// The length of the escape at `pos` if GBNF reads it as the regex does (`\n`, `\"`, `\x41`,
/// `\u00e9`…), else 0.
fn gbnf_escape_length(pattern: &[u8], pos: usize) -> usize {
    if pos + 1 >= pattern.len() || pattern[pos] != b'\\' {
        return 0;
    }
    let hex_digits = match pattern[pos + 1] {
        b'x' => 2,
        b'u' => 4,
        b'U' => 8,
        // The escapes llama.cpp's grammar parser reads (`parse_char` in llama-grammar.cpp).
        b't' | b'r' | b'n' | b'\\' | b'"' | b'[' | b']' | b'-' => return 2,
        _ => return 0,
    };
    let end = pos + 2 + hex_digits;
    if end > pattern.len() || !pattern[pos + 2..end].iter().all(u8::is_ascii_hexdigit) {
        return 0;
    }
    2 + hex_digits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stoi_reads_like_cpp() {
        assert_eq!(stoi(b" 12x"), Some(12));
        assert_eq!(stoi(b"-3"), Some(-3));
        assert_eq!(stoi(b""), None);
        assert_eq!(stoi(b"x"), None);
        assert_eq!(stoi(b"99999999999"), None);
    }

    #[test]
    fn escapes_grammar_reads_the_same_way() {
        assert_eq!(gbnf_escape_length(b"\\x41", 0), 4);
        assert_eq!(gbnf_escape_length(b"\\x4", 0), 0);
        assert_eq!(gbnf_escape_length(b"\\d", 0), 0);
        assert_eq!(gbnf_escape_length(b"\\-", 0), 2);
    }
}
