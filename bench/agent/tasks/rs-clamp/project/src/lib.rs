/// `x` limited to the range `lo..=hi`.
pub fn clamp(x: i32, lo: i32, hi: i32) -> i32 {
    if x < lo {
        lo
    } else if x > hi {
        lo
    } else {
        x
    }
}
