use factorial::factorial;

#[test]
fn factorials() {
    assert_eq!(factorial(0), 1);
    assert_eq!(factorial(5), 120);
}
