//! The integers from a minimum to a maximum as GBNF, digit by digit (llama.cpp's
//! `build_min_max_int`). `i64::MIN` means no minimum and `i64::MAX` no maximum, as in llama.cpp,
//! so a bound of exactly those values is no bound; arithmetic wraps where the C++ would.

/// Neither bound is set; llama.cpp throws this when a recursion loses both (a minimum of
/// `-i64::MAX` and no maximum).
#[derive(Debug)]
pub(super) struct Unbounded;

impl Unbounded {
    pub(super) const MESSAGE: &'static str = "At least one of min_value or max_value must be set";
}

/// The alternatives (without the parentheses) that match the integers in `min..=max`.
pub(super) fn min_max_int(min: i64, max: i64) -> Result<String, Unbounded> {
    let mut out = String::new();
    build(min, max, &mut out, 16, true)?;
    Ok(out)
}

fn build(
    min: i64,
    max: i64,
    out: &mut String,
    decimals_left: i32,
    top_level: bool,
) -> Result<(), Unbounded> {
    let has_min = min != i64::MIN;
    let has_max = max != i64::MAX;
    if has_min && has_max {
        return bounded(min, max, out, decimals_left);
    }
    let less_decimals = (decimals_left - 1).max(1);
    if has_min {
        return at_least(min, out, decimals_left, less_decimals, top_level);
    }
    if has_max {
        if max >= 0 {
            if top_level {
                out.push_str("\"-\" [1-9] ");
                more_digits(out, 0, less_decimals);
                out.push_str(" | ");
            }
            build(0, max, out, decimals_left, true)?;
        } else {
            out.push_str("\"-\" (");
            build(max.wrapping_neg(), i64::MAX, out, decimals_left, false)?;
            out.push(')');
        }
        return Ok(());
    }
    Err(Unbounded)
}

fn bounded(min: i64, max: i64, out: &mut String, decimals_left: i32) -> Result<(), Unbounded> {
    if min < 0 && max < 0 {
        out.push_str("\"-\" (");
        build(
            max.wrapping_neg(),
            min.wrapping_neg(),
            out,
            decimals_left,
            true,
        )?;
        out.push(')');
        return Ok(());
    }
    let mut min = min;
    if min < 0 {
        out.push_str("\"-\" (");
        build(0, min.wrapping_neg(), out, decimals_left, true)?;
        out.push_str(") | ");
        min = 0;
    }
    let mut min_s = min.to_string();
    let max_s = max.to_string();
    for digits in min_s.len()..max_s.len() {
        uniform_range(min_s.as_bytes(), "9".repeat(digits).as_bytes(), out);
        min_s = format!("1{}", "0".repeat(digits));
        out.push_str(" | ");
    }
    uniform_range(min_s.as_bytes(), max_s.as_bytes(), out);
    Ok(())
}

fn at_least(
    min: i64,
    out: &mut String,
    decimals_left: i32,
    less_decimals: i32,
    top_level: bool,
) -> Result<(), Unbounded> {
    if min < 0 {
        out.push_str("\"-\" (");
        build(i64::MIN, min.wrapping_neg(), out, decimals_left, false)?;
        out.push_str(") | [0] | [1-9] ");
        more_digits(out, 0, decimals_left - 1);
    } else if min == 0 {
        if top_level {
            out.push_str("[0] | [1-9] ");
            more_digits(out, 0, less_decimals);
        } else {
            more_digits(out, 1, decimals_left);
        }
    } else if min <= 9 {
        let c = b'0' + min as u8;
        let range_start = if top_level { b'1' } else { b'0' };
        if c > range_start {
            digit_range(out, range_start, c - 1);
            out.push(' ');
            more_digits(out, 1, less_decimals);
            out.push_str(" | ");
        }
        digit_range(out, c, b'9');
        out.push(' ');
        more_digits(out, 0, less_decimals);
    } else {
        let min_s = min.to_string();
        let len = min_s.len() as i32;
        let c = min_s.as_bytes()[0];
        if c > b'1' {
            digit_range(out, if top_level { b'1' } else { b'0' }, c - 1);
            out.push(' ');
            more_digits(out, len, less_decimals);
            out.push_str(" | ");
        }
        digit_range(out, c, c);
        out.push_str(" (");
        // The digits after the first, as a number (llama.cpp's `stoll(min_s.substr(1))`).
        let rest = min % 10_i64.pow((len - 1) as u32);
        build(rest, i64::MAX, out, less_decimals, false)?;
        out.push(')');
        if c < b'9' {
            out.push_str(" | ");
            digit_range(out, c + 1, b'9');
            out.push(' ');
            more_digits(out, len - 1, less_decimals);
        }
    }
    Ok(())
}

/// The numbers from `from` to `to`, two digit strings of the same length, by their common
/// prefix and then one digit at a time.
fn uniform_range(from: &[u8], to: &[u8], out: &mut String) {
    let mut i = 0;
    while i < from.len() && i < to.len() && from[i] == to[i] {
        i += 1;
    }
    if i > 0 {
        out.push('"');
        push_bytes(out, &from[..i]);
        out.push('"');
    }
    if i >= from.len() || i >= to.len() {
        return;
    }
    if i > 0 {
        out.push(' ');
    }
    let sub_len = from.len() - i - 1;
    if sub_len == 0 {
        out.push('[');
        out.push(char::from(from[i]));
        out.push('-');
        out.push(char::from(to[i]));
        out.push(']');
        return;
    }
    let from_sub = &from[i + 1..];
    let to_sub = &to[i + 1..];
    let zeros = "0".repeat(sub_len);
    let nines = "9".repeat(sub_len);
    let mut to_reached = false;
    out.push('(');
    if from_sub == zeros.as_bytes() {
        digit_range(out, from[i], to[i].wrapping_sub(1));
        out.push(' ');
        more_digits(out, sub_len as i32, sub_len as i32);
    } else {
        out.push('[');
        out.push(char::from(from[i]));
        out.push_str("] (");
        uniform_range(from_sub, nines.as_bytes(), out);
        out.push(')');
        if i32::from(from[i]) < i32::from(to[i]) - 1 {
            out.push_str(" | ");
            if to_sub == nines.as_bytes() {
                digit_range(out, from[i] + 1, to[i]);
                to_reached = true;
            } else {
                digit_range(out, from[i] + 1, to[i] - 1);
            }
            out.push(' ');
            more_digits(out, sub_len as i32, sub_len as i32);
        }
    }
    if !to_reached {
        out.push_str(" | ");
        digit_range(out, to[i], to[i]);
        out.push(' ');
        uniform_range(zeros.as_bytes(), to_sub, out);
    }
    out.push(')');
}

fn push_bytes(out: &mut String, bytes: &[u8]) {
    out.extend(bytes.iter().map(|&b| char::from(b)));
}

fn digit_range(out: &mut String, from: u8, to: u8) {
    out.push('[');
    out.push(char::from(from));
    if from != to {
        out.push('-');
        out.push(char::from(to));
    }
    out.push(']');
}

/// `[0-9]` repeated `min..=max` times (`i32::MAX` for no bound).
fn more_digits(out: &mut String, min: i32, max: i32) {
    out.push_str("[0-9]");
    if min == max && min == 1 {
        return;
    }
    out.push('{');
    out.push_str(&min.to_string());
    if max != min {
        out.push(',');
        if max != i32::MAX {
            out.push_str(&max.to_string());
        }
    }
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(min: i64, max: i64) -> String {
        min_max_int(min, max).unwrap_or_default()
    }

    #[test]
    fn small_ranges_are_digit_classes() {
        assert_eq!(range(0, 9), "[0-9]");
        assert_eq!(range(1, 1), "\"1\"");
        assert_eq!(range(5, 5), "\"5\"");
    }

    #[test]
    fn neither_bound_is_an_error() {
        assert!(min_max_int(-i64::MAX, i64::MAX).is_err());
    }
}
