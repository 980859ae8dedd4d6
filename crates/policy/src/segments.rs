//! A command line too long or too deeply nested to parse whole within the time a decision may
//! take, cut into the pieces the judge takes one by one: every `$(…)`, backquote and subshell
//! becomes a piece of its own (and a placeholder where it was), and each list is cut at its
//! `;`, `&&`, `||`, `|`, `&` and newlines. Identical pieces are judged once, so ten thousand
//! `true;` cost one judgement.

use std::collections::HashSet;

/// Beyond this many different pieces the line is not cut up any further: it asks.
const MAX_PIECES: usize = 2000;

/// Where a substitution was: a word only known when the command runs.
const PLACEHOLDER: &str = "$__tandem_substitution";

/// What the cutting found.
pub struct Pieces {
    /// The different pieces, in the order they first appear.
    pub pieces: Vec<String>,
    /// A `cd`-like word appears: where each piece runs cannot be followed.
    pub changes_folder: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Group {
    Top,
    /// `$(…)`, `<(…)`, `>(…)`.
    Substitution,
    /// `(…)`.
    Subshell,
    /// `` `…` ``.
    Backquote,
    /// `${…}`, kept in its word.
    Parameter,
}

struct Frame {
    group: Group,
    /// The statement being read, with the groups inside it replaced.
    current: Vec<u8>,
    /// Whether the frame started inside double quotes (it returns to them when it closes).
    in_double: bool,
    /// How many groups of this kind it stands for, opened one right inside the other
    /// (`((((`): thirty thousand of them cost one frame.
    repeat: usize,
}

impl Frame {
    fn new(group: Group, in_double: bool) -> Frame {
        Frame {
            group,
            current: Vec::new(),
            in_double,
            repeat: 1,
        }
    }
}

/// The pieces found so far, each once.
struct Found {
    pieces: Vec<String>,
    seen: HashSet<String>,
    /// The last piece added: a long run of the same statement is checked without hashing.
    last: Vec<u8>,
}

impl Found {
    /// Adds a piece; false once there are too many.
    fn add(&mut self, piece: &[u8]) -> bool {
        let p = piece.trim_ascii();
        if p.is_empty() || p == self.last.as_slice() {
            return true;
        }
        self.last.clear();
        self.last.extend_from_slice(p);
        // Pieces are cut at ASCII characters only, so they are whole UTF-8.
        let text = String::from_utf8_lossy(p);
        if !self.seen.contains(text.as_ref()) {
            self.seen.insert(text.to_string());
            self.pieces.push(text.into_owned());
        }
        self.pieces.len() <= MAX_PIECES
    }
}

/// Bytes with a meaning to the cutter; everything else is copied as it is.
fn special(b: u8) -> bool {
    matches!(
        b,
        b'\\'
            | b'\''
            | b'"'
            | b'$'
            | b'<'
            | b'>'
            | b'('
            | b')'
            | b'`'
            | b'}'
            | b';'
            | b'&'
            | b'|'
            | b'\n'
    )
}

/// Cuts `src` into pieces, or `None` when it holds what this cutter does not follow
/// (here-documents, `case`) or too many different pieces.
pub fn cut(src: &str) -> Option<Pieces> {
    if src.contains("<<") || has_word(src, &["case"]) {
        return None;
    }
    let changes_folder = has_word(src, &["cd", "pushd", "popd", "chdir"]);
    let mut found = Found {
        pieces: Vec::new(),
        seen: HashSet::new(),
        last: Vec::new(),
    };
    let b = src.as_bytes();
    let mut stack: Vec<Frame> = vec![Frame::new(Group::Top, false)];
    let mut single = false;
    let mut double = false;
    let mut i = 0;
    while i < b.len() {
        let frame = stack.last_mut()?;
        if single {
            let end = b[i..]
                .iter()
                .position(|c| *c == b'\'')
                .map_or(b.len(), |p| i + p + 1);
            frame.current.extend_from_slice(&b[i..end]);
            single = false;
            i = end;
            continue;
        }
        if !special(b[i]) {
            let end = b[i..]
                .iter()
                .position(|c| special(*c))
                .map_or(b.len(), |p| i + p);
            frame.current.extend_from_slice(&b[i..end]);
            i = end;
            continue;
        }
        let c = b[i];
        let next = b.get(i + 1).copied();
        match c {
            b'\\' => {
                frame.current.push(c);
                if let Some(n) = next {
                    frame.current.push(n);
                    i += 1;
                }
            }
            b'\'' if !double => {
                single = true;
                frame.current.push(c);
            }
            b'"' => {
                double = !double;
                frame.current.push(c);
            }
            b'$' if next == Some(b'(') => {
                let mut run = 1;
                while b.get(i + 2 * run) == Some(&b'$') && b.get(i + 2 * run + 1) == Some(&b'(') {
                    run += 1;
                }
                let mut f = Frame::new(Group::Substitution, double);
                if !double {
                    f.repeat = run;
                    i += 2 * (run - 1);
                }
                stack.push(f);
                double = false;
                i += 1;
            }
            b'<' | b'>' if next == Some(b'(') && !double => {
                stack.push(Frame::new(Group::Substitution, false));
                i += 1;
            }
            b'$' if next == Some(b'{') => {
                frame.current.extend_from_slice(b"${");
                stack.push(Frame::new(Group::Parameter, double));
                double = false;
                i += 1;
            }
            b'`' => {
                if frame.group == Group::Backquote {
                    let done = stack.pop()?;
                    if !found.add(&done.current) {
                        return None;
                    }
                    double = done.in_double;
                    stack
                        .last_mut()?
                        .current
                        .extend_from_slice(PLACEHOLDER.as_bytes());
                } else {
                    stack.push(Frame::new(Group::Backquote, double));
                    double = false;
                }
            }
            b'(' if !double => {
                let run = b[i..].iter().take_while(|c| **c == b'(').count();
                let mut f = Frame::new(Group::Subshell, false);
                f.repeat = run;
                stack.push(f);
                i += run - 1;
            }
            b')' if !double && matches!(frame.group, Group::Substitution | Group::Subshell) => {
                if !found.add(&frame.current) {
                    return None;
                }
                let stand_in: &[u8] = if frame.group == Group::Subshell {
                    b" : "
                } else {
                    PLACEHOLDER.as_bytes()
                };
                if frame.repeat > 1 {
                    // The group around it was empty before it: it now holds the stand-in.
                    frame.repeat -= 1;
                    frame.current.clear();
                    frame.current.extend_from_slice(stand_in);
                } else {
                    let done = stack.pop()?;
                    double = done.in_double;
                    stack.last_mut()?.current.extend_from_slice(stand_in);
                }
            }
            b'}' if !double && frame.group == Group::Parameter => {
                let done = stack.pop()?;
                double = done.in_double;
                let parent = stack.last_mut()?;
                parent.current.extend_from_slice(&done.current);
                parent.current.push(b'}');
            }
            b';' | b'&' | b'|' | b'\n' if !double && frame.group != Group::Parameter => {
                let statement = std::mem::take(&mut frame.current);
                if !found.add(&statement) {
                    return None;
                }
            }
            _ => frame.current.push(c),
        }
        i += 1;
    }
    // Whatever is still open is judged as it stands (the parser will flag it).
    while let Some(frame) = stack.pop() {
        if !found.add(&frame.current) {
            return None;
        }
    }
    Some(Pieces {
        pieces: found.pieces,
        changes_folder,
    })
}

/// Whether one of `words` appears as a whole word (letters, digits, `_`, `-` around it).
fn has_word(src: &str, words: &[&str]) -> bool {
    words.iter().any(|w| {
        src.match_indices(w).any(|(at, _)| {
            let part = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'-';
            let before = at
                .checked_sub(1)
                .and_then(|p| src.as_bytes().get(p))
                .copied();
            let after = src.as_bytes().get(at + w.len()).copied();
            !before.is_some_and(part) && !after.is_some_and(part)
        })
    })
}

/// How deeply parentheses nest, ignoring quotes: a cheap signal that the parser would be slow.
pub fn nesting(src: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for b in src.bytes() {
        match b {
            b'(' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(s: &str) -> Vec<String> {
        cut(s).map(|p| p.pieces).unwrap_or_default()
    }

    #[test]
    fn lists_and_substitutions_become_pieces() {
        assert_eq!(pieces("true; true; true && rm -rf /"), ["true", "rm -rf /"]);
        let deep = format!("{}rm -rf /{}", "$(".repeat(500), ")".repeat(500));
        let p = pieces(&deep);
        assert!(p.contains(&"rm -rf /".to_string()), "{p:?}");
        assert!(p.len() <= 3, "{p:?}");
        assert_eq!(
            pieces("echo \"$(cat .env)\""),
            ["cat .env", "echo \"$__tandem_substitution\""]
        );
        assert_eq!(pieces("echo 'a; b' \"c; d\""), ["echo 'a; b' \"c; d\""]);
        assert_eq!(pieces("((((ls))))"), ["ls", ":"]);
        assert!(cut("cat <<EOF\nx\nEOF").is_none());
        assert!(cut("cd /; rm -rf x").is_some_and(|p| p.changes_folder));
    }
}
