use words::reverse_words;

#[test]
fn reversed() {
    assert_eq!(reverse_words("one two three"), "three two one");
    assert_eq!(reverse_words("solo"), "solo");
}
