//! An old_string that is in the file but for its spacing. Small models squash a block onto one
//! line when they quote it: make bench-agent's rs-factorial looked for
//! `if n == 0 { return 0; }` in a file that has it over three lines, was told "not found" and
//! asked again, unchanged, until the loop breaker stopped it. When the text matches once with
//! whitespace ignored, and at word boundaries, the file's own text is what the edit replaces.

/// The one span of `file` that is `old` with whitespace ignored, or None (no match, several,
/// or too little text to be sure).
pub fn span_ignoring_spacing<'a>(file: &'a str, old: &str) -> Option<&'a str> {
    let wanted: String = old.chars().filter(|c| !c.is_whitespace()).collect();
    if wanted.chars().count() < 8 {
        return None;
    }
    // The file without whitespace, each character with its byte offset in the file.
    let (squashed, at): (String, Vec<usize>) = file
        .char_indices()
        .filter(|(_, c)| !c.is_whitespace())
        .map(|(i, c)| (c, i))
        .unzip();
    let mut found = squashed.match_indices(&wanted).map(|(i, _)| i);
    let first = found.next()?;
    if found.next().is_some() {
        return None;
    }
    // Byte offsets in `squashed` to character positions, then to the file.
    let start_char = squashed[..first].chars().count();
    let end_char = start_char + wanted.chars().count() - 1;
    let start = at[start_char];
    let last = at[end_char];
    let end = last + file[last..].chars().next()?.len_utf8();
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    // Not part of a longer word at either end.
    if word(file[..start].chars().next_back()) && word(file[start..].chars().next())
        || word(file[end..].chars().next()) && word(file[..end].chars().next_back())
    {
        return None;
    }
    Some(&file[start..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    const FACTORIAL: &str = "pub fn factorial(n: u64) -> u64 {\n    if n == 0 {\n        return 0;\n    }\n    n * factorial(n - 1)\n}\n";

    #[test]
    fn a_block_squashed_onto_one_line_is_found_as_the_file_has_it() {
        assert_eq!(
            span_ignoring_spacing(FACTORIAL, "if n == 0 { return 0; }"),
            Some("if n == 0 {\n        return 0;\n    }")
        );
    }

    #[test]
    fn several_matches_short_text_or_half_words_are_not() {
        let twice = "a = compute(1)\nb = compute(1)\n";
        assert_eq!(span_ignoring_spacing(twice, "compute( 1 )"), None);
        assert_eq!(span_ignoring_spacing(FACTORIAL, "n==0"), None);
        // `actorial(n - 1)` is inside `factorial`.
        assert_eq!(span_ignoring_spacing(FACTORIAL, "actorial(n - 1)"), None);
        assert_eq!(span_ignoring_spacing(FACTORIAL, "return 1;"), None);
    }
}
