//! Keeping a file's line endings and final newline as they were when the agent rewrites it:
//! models write `\n`, Windows files use `\r\n`, and a diff of every line is noise.

/// How an existing file ends its lines and itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    pub crlf: bool,
    pub final_newline: bool,
}

impl Style {
    /// CRLF only when every line break is one (a mixed file is left as written).
    pub fn of(text: &str) -> Style {
        let crlf_count = text.matches("\r\n").count();
        let lf_count = text.matches('\n').count();
        Style {
            crlf: crlf_count > 0 && crlf_count == lf_count,
            final_newline: text.ends_with('\n'),
        }
    }

    /// `text` (as the model wrote it) in this style.
    pub fn apply(&self, text: &str) -> String {
        let mut out = if self.crlf {
            to_crlf(text)
        } else {
            text.to_string()
        };
        let nl = if self.crlf { "\r\n" } else { "\n" };
        if self.final_newline && !out.is_empty() && !out.ends_with('\n') {
            out.push_str(nl);
        } else if !self.final_newline {
            while out.ends_with('\n') {
                out.pop();
                if out.ends_with('\r') {
                    out.pop();
                }
            }
        }
        out
    }
}

pub fn to_lf(text: &str) -> String {
    text.replace("\r\n", "\n")
}

fn to_crlf(text: &str) -> String {
    to_lf(text).replace('\n', "\r\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_crlf_and_final_newline() {
        let s = Style::of("a\r\nb\r\n");
        assert_eq!(
            s,
            Style {
                crlf: true,
                final_newline: true
            }
        );
        assert_eq!(s.apply("x\ny"), "x\r\ny\r\n");
        let s = Style::of("a\nb");
        assert_eq!(s.apply("x\ny\n\n"), "x\ny");
        assert!(!Style::of("a\r\nb\n").crlf, "mixed stays as written");
    }
}
