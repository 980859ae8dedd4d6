//! Line endings: models write `\n`; files may use `\r\n`. Matching happens on `\n` text, and
//! `edit_file` maps its replacements back onto the file as it is (see there).

pub fn to_lf(text: &str) -> String {
    text.replace("\r\n", "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crlf_becomes_lf_and_lone_cr_stays() {
        assert_eq!(to_lf("a\r\nb\rc\n"), "a\nb\rc\n");
    }
}
