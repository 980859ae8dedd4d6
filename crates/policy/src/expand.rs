//! What the shell does to words before a program sees them and that the parser leaves alone:
//! brace expansion (`{rm,-rf,/}` is `rm -rf /`) and file name patterns (`.en*` is `.env`).

/// More words than this from one brace expansion: not spelled out, the command asks.
const MAX_WORDS: usize = 256;
/// A line longer than this once spelled out asks too: parsing it would take too long.
const MAX_BYTES: usize = 8 * 1024;

#[derive(Debug, PartialEq, Eq)]
pub enum Braces {
    /// The command line with every brace expansion spelled out.
    Expanded(String),
    /// The expansion would make more words than anyone can review.
    TooLarge,
}

/// A character of the source and whether quoting protects it from expansion.
#[derive(Clone, Copy)]
struct Ch {
    c: char,
    quoted: bool,
}

/// The command line with its unquoted brace expansions spelled out the way bash does before
/// anything else, or `None` when it has none. Quoting is kept as written, so the result is
/// parsed like the original.
pub fn braces(src: &str) -> Option<Braces> {
    if !src.contains('{') || !src.contains('}') {
        return None;
    }
    let mut out = String::with_capacity(src.len());
    let mut changed = false;
    let mut word: Vec<Ch> = Vec::new();
    let flush = |word: &mut Vec<Ch>, out: &mut String, changed: &mut bool| -> Result<(), ()> {
        if word.is_empty() {
            return Ok(());
        }
        let mut words = Vec::new();
        expand_word(word, &mut words)?;
        if words.len() != 1 || words[0].len() != word.len() {
            *changed = true;
        }
        let texts: Vec<String> = words
            .iter()
            .map(|w| w.iter().map(|c| c.c).collect())
            .collect();
        out.push_str(&texts.join(" "));
        word.clear();
        Ok(())
    };
    let chars: Vec<char> = src.chars().collect();
    let mut i = 0;
    // Quote state: None, or the closing character of the quote being read.
    let mut quote: Option<char> = None;
    while i < chars.len() {
        let c = chars[i];
        match quote {
            Some(q) => {
                word.push(Ch { c, quoted: true });
                if c == '\\' && q != '\'' {
                    if let Some(&n) = chars.get(i + 1) {
                        word.push(Ch { c: n, quoted: true });
                        i += 1;
                    }
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                '\\' => {
                    word.push(Ch { c, quoted: true });
                    if let Some(&n) = chars.get(i + 1) {
                        word.push(Ch { c: n, quoted: true });
                        i += 1;
                    }
                }
                '\'' | '"' | '`' => {
                    quote = Some(c);
                    word.push(Ch { c, quoted: true });
                }
                c if c.is_whitespace() || matches!(c, ';' | '&' | '|' | '<' | '>' | '(' | ')') => {
                    if flush(&mut word, &mut out, &mut changed).is_err() {
                        return Some(Braces::TooLarge);
                    }
                    out.push(c);
                }
                _ => word.push(Ch { c, quoted: false }),
            },
        }
        i += 1;
    }
    if flush(&mut word, &mut out, &mut changed).is_err() || out.len() > MAX_BYTES {
        return Some(Braces::TooLarge);
    }
    changed.then_some(Braces::Expanded(out))
}

/// Spells out the first brace expression of a word, then the rest of each result.
fn expand_word(word: &[Ch], out: &mut Vec<Vec<Ch>>) -> Result<(), ()> {
    if out.len() > MAX_WORDS {
        return Err(());
    }
    let Some((open, close, parts)) = first_brace(word) else {
        out.push(word.to_vec());
        return Ok(());
    };
    for part in parts {
        let mut w: Vec<Ch> = word[..open].to_vec();
        w.extend(part);
        w.extend_from_slice(&word[close + 1..]);
        expand_word(&w, out)?;
        if out.len() > MAX_WORDS {
            return Err(());
        }
    }
    Ok(())
}

/// The first unquoted `{…}` with a comma or a `..` range at its top level (not `${…}`): its
/// bounds and its alternatives.
fn first_brace(word: &[Ch]) -> Option<(usize, usize, Vec<Vec<Ch>>)> {
    let mut start = 0;
    while let Some(rel) = word[start..].iter().position(|c| c.c == '{' && !c.quoted) {
        let open = start + rel;
        start = open + 1;
        if open > 0 && word[open - 1].c == '$' && !word[open - 1].quoted {
            continue;
        }
        let mut depth = 0usize;
        let mut commas = Vec::new();
        let mut close = None;
        for (j, ch) in word.iter().enumerate().skip(open) {
            if ch.quoted {
                continue;
            }
            match ch.c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(j);
                        break;
                    }
                }
                ',' if depth == 1 => commas.push(j),
                _ => {}
            }
        }
        let Some(close) = close else { continue };
        if !commas.is_empty() {
            let mut parts = Vec::new();
            let mut from = open + 1;
            for c in commas.iter().copied().chain(std::iter::once(close)) {
                parts.push(word[from..c].to_vec());
                from = c + 1;
            }
            return Some((open, close, parts));
        }
        let inner: String = word[open + 1..close].iter().map(|c| c.c).collect();
        if let Some(parts) = sequence(&inner) {
            let parts = parts
                .into_iter()
                .map(|s| s.chars().map(|c| Ch { c, quoted: true }).collect())
                .collect();
            return Some((open, close, parts));
        }
    }
    None
}

/// `{1..5}`, `{a..e}`, `{10..1..2}`: the sequence, when it is one bash expands.
fn sequence(inner: &str) -> Option<Vec<String>> {
    let parts: Vec<&str> = inner.split("..").collect();
    if !(2..=3).contains(&parts.len()) {
        return None;
    }
    let step: i64 = match parts.get(2) {
        Some(s) => s.parse::<i64>().ok()?.checked_abs()?.max(1),
        None => 1,
    };
    let (a, b) = (parts[0], parts[1]);
    let (from, to, letters) = match (a.parse::<i64>(), b.parse::<i64>()) {
        (Ok(x), Ok(y)) => (x, y, false),
        _ => {
            let (mut x, mut y) = (a.chars(), b.chars());
            match (x.next(), x.next(), y.next(), y.next()) {
                (Some(x), None, Some(y), None)
                    if x.is_ascii_alphabetic() && y.is_ascii_alphabetic() =>
                {
                    (i64::from(u32::from(x)), i64::from(u32::from(y)), true)
                }
                _ => return None,
            }
        }
    };
    let count = (from - to).checked_abs()? / step + 1;
    if count > MAX_WORDS as i64 {
        return Some(vec![String::new(); MAX_WORDS + 1]);
    }
    let mut v = Vec::new();
    let mut n = from;
    loop {
        v.push(if letters {
            char::from_u32(u32::try_from(n).ok()?)?.to_string()
        } else {
            n.to_string()
        });
        if n == to || v.len() > MAX_WORDS {
            break;
        }
        n += if to > from { step } else { -step };
        if (to > from && n > to) || (to < from && n < to) {
            break;
        }
    }
    Some(v)
}

/// Whether a file name matches one component of a shell pattern: `*`, `?`, `[…]` (`!`/`^`
/// negation, ranges), with the shell's rule that a leading `.` matches only a literal `.`.
pub fn component_matches(pattern: &str, name: &str) -> bool {
    if name.starts_with('.') && !pattern.starts_with('.') {
        return false;
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    matches_from(&p, &n)
}

fn matches_from(p: &[char], n: &[char]) -> bool {
    // Iterative with one backtrack point for `*`, the usual wildcard algorithm.
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some((pi, ni));
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    ni += 1;
                    continue;
                }
                '[' => {
                    if let Some((ok, len)) = bracket(&p[pi..], n[ni])
                        && ok
                    {
                        pi += len;
                        ni += 1;
                        continue;
                    }
                }
                '\\' if pi + 1 < p.len() && p[pi + 1] == n[ni] => {
                    pi += 2;
                    ni += 1;
                    continue;
                }
                c if c == n[ni] => {
                    pi += 1;
                    ni += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, sn)) => {
                pi = sp + 1;
                ni = sn + 1;
                star = Some((sp, sn + 1));
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// A `[…]` class at the start of `p`: whether `c` is in it, and how long the class is. `None`
/// when the bracket is not closed (then it is a literal `[`).
fn bracket(p: &[char], c: char) -> Option<(bool, usize)> {
    let mut i = 1;
    let negate = matches!(p.get(1), Some('!') | Some('^'));
    if negate {
        i += 1;
    }
    let mut found = false;
    let mut first = true;
    while i < p.len() {
        let ch = p[i];
        if ch == ']' && !first {
            return Some((found != negate, i + 1));
        }
        first = false;
        if ch == '[' && p.get(i + 1) == Some(&':') {
            // `[:alpha:]` and friends: matched loosely, as any letter or digit.
            let end = p[i + 2..].iter().position(|x| *x == ']')?;
            found |= c.is_alphanumeric();
            i += end + 3;
            continue;
        }
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|e| *e != ']') {
            let hi = p[i + 2];
            found |= ch <= c && c <= hi;
            i += 3;
            continue;
        }
        found |= ch == c;
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exp(s: &str) -> Option<String> {
        match braces(s) {
            Some(Braces::Expanded(e)) => Some(e),
            Some(Braces::TooLarge) => Some("TOO LARGE".into()),
            None => None,
        }
    }

    #[test]
    fn brace_expansion_as_bash_does_it() {
        assert_eq!(exp("{rm,-rf,/}").as_deref(), Some("rm -rf /"));
        assert_eq!(
            exp("cat {.env,README.md}").as_deref(),
            Some("cat .env README.md")
        );
        assert_eq!(exp("echo a{b,c}d").as_deref(), Some("echo abd acd"));
        assert_eq!(exp("echo {a,{b,c}}").as_deref(), Some("echo a b c"));
        assert_eq!(exp("echo x{1..3}").as_deref(), Some("echo x1 x2 x3"));
        assert_eq!(exp("echo '{a,b}' \"{c,d}\""), None);
        assert_eq!(exp("echo ${x} ${a,b}"), None);
        assert_eq!(exp("{ ls; }"), None);
        assert_eq!(exp("find . -exec cat {} \\;"), None);
        assert_eq!(exp("echo {1..100000}").as_deref(), Some("TOO LARGE"));
        assert_eq!(
            exp("echo {a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}").as_deref(),
            Some("TOO LARGE")
        );
    }

    #[test]
    fn patterns_as_the_shell_matches_them() {
        assert!(component_matches(".en*", ".env"));
        assert!(component_matches(".e?v", ".env"));
        assert!(component_matches(".[e]nv", ".env"));
        assert!(component_matches("*.pem", "server.pem"));
        assert!(!component_matches("*", ".env"));
        assert!(!component_matches("*.rs", ".env"));
        assert!(component_matches("[!a]nv", "env"));
        assert!(component_matches("[a-f]nv", "env"));
        assert!(!component_matches("[a-d]nv", "env"));
    }
}
