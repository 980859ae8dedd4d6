//! The window's own failures, written to the log. What the page sends is cut to a size and
//! logged as quoted fields, so a long or multi-line message cannot flood the log or forge lines
//! in it.

use protocol::UiErrorArgs;

/// The most characters of a message, and of a stack, that reach the log.
const MESSAGE_CHARS: usize = 2_000;
const STACK_CHARS: usize = 8_000;

/// The fields as they are logged: cut to size, the cut marked.
pub fn fields(args: &UiErrorArgs) -> (String, String, String) {
    (
        cut(&args.part, 40),
        cut(&args.message, MESSAGE_CHARS),
        cut(args.stack.as_deref().unwrap_or(""), STACK_CHARS),
    )
}

fn cut(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((at, _)) => format!("{}[… cut]", &text[..at]),
        None => text.to_string(),
    }
}

pub fn log(args: &UiErrorArgs) {
    let (part, message, stack) = fields(args);
    // Debug formatting quotes and escapes: a newline in the message stays inside its field.
    tracing::error!(?part, ?message, ?stack, "the window's own code failed");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A message written to look like more log lines stays inside its one line.
    #[test]
    fn a_multi_line_message_cannot_forge_log_lines() {
        #[derive(Clone, Default)]
        struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
        impl std::io::Write for Captured {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0.lock().expect("lock").extend_from_slice(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let out = Captured::default();
        let writer = out.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish();
        let forged = "boom\n2026-12-01T00:00:00Z  INFO tandem_lib: approved rm -rf ~";
        tracing::subscriber::with_default(subscriber, || {
            log(&UiErrorArgs {
                part: "page\nINFO".into(),
                message: forged.into(),
                stack: Some("at a\nat b".into()),
            });
        });
        let text = String::from_utf8(out.0.lock().expect("lock").clone()).expect("utf-8");
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(text.contains("the window's own code failed"), "{text}");
        assert!(text.contains(r"boom\n2026-12-01"), "{text}");
    }

    #[test]
    fn a_long_message_and_stack_are_cut_and_marked() {
        let args = UiErrorArgs {
            part: "markdown".into(),
            message: "é".repeat(5_000),
            stack: Some("x\n".repeat(10_000)),
        };
        let (part, message, stack) = fields(&args);
        assert_eq!(part, "markdown");
        assert_eq!(
            message.chars().count(),
            MESSAGE_CHARS + "[… cut]".chars().count()
        );
        assert!(message.ends_with("[… cut]"));
        assert_eq!(
            stack.chars().count(),
            STACK_CHARS + "[… cut]".chars().count()
        );
        let short = UiErrorArgs {
            part: "window".into(),
            message: "boom".into(),
            stack: None,
        };
        assert_eq!(
            fields(&short),
            ("window".into(), "boom".into(), String::new())
        );
    }
}
