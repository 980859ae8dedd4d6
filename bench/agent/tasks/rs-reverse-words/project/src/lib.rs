/// The words of `s` in reverse order, joined by single spaces.
pub fn reverse_words(s: &str) -> String {
    // Not written yet.
    let _ = s;
    String::new()
}
