//! A tool call written as text (a local model without native calls) streams as a call, not as
//! JSON: prose before it streams as text, and from the first sign of a call (a ```json fence,
//! a `<tool_call>` tag, a bare `{"name"`) the rest is held back and reported as a call being
//! written — its name once it is known, then each piece as arguments — the way the HTTP
//! providers report their native calls. What the call really was is decided at the end, from
//! the whole text (`lenient::find_calls`); if it was no call, the final message carries the
//! text and the window shows it then.

use crate::StreamEvent;

/// What starts a call in a model's text (the built-in model's grammar triggers on the same).
pub const CALL_STARTS: [&str; 3] = ["```json", "<tool_call>", "{\"name\""];

/// The id a call written as text streams under (the real id is given when the reply ends).
pub const TEXT_CALL_ID: &str = "text-call";

#[derive(Debug, Default)]
pub struct CallTextStream {
    /// Text that may be the beginning of a call start (`<tool_` at the end of a piece).
    held: String,
    /// From the call's start on, everything the model wrote.
    call: Option<String>,
    named: bool,
}

impl CallTextStream {
    pub fn push(&mut self, piece: &str, on_event: &mut (dyn FnMut(StreamEvent) + Send)) {
        if let Some(call) = &mut self.call {
            call.push_str(piece);
            self.report_call(piece, on_event);
            return;
        }
        self.held.push_str(piece);
        if let Some(at) = CALL_STARTS.iter().filter_map(|s| self.held.find(s)).min() {
            let call = self.held.split_off(at);
            let before = std::mem::take(&mut self.held);
            if !before.is_empty() {
                on_event(StreamEvent::TextDelta(before));
            }
            self.call = Some(call.clone());
            self.report_call(&call, on_event);
            return;
        }
        // Keep back the longest end that could still grow into a call start.
        let keep = (1..=self.held.len())
            .rev()
            .filter(|&n| self.held.is_char_boundary(self.held.len() - n))
            .find(|&n| {
                let end = &self.held[self.held.len() - n..];
                CALL_STARTS
                    .iter()
                    .any(|s| s.len() > n && s.starts_with(end))
            })
            .unwrap_or(0);
        let rest = self.held.split_off(self.held.len() - keep);
        let out = std::mem::replace(&mut self.held, rest);
        if !out.is_empty() {
            on_event(StreamEvent::TextDelta(out));
        }
    }

    /// The reply ended: text held back for being a possible call start was prose.
    pub fn finish(&mut self, on_event: &mut (dyn FnMut(StreamEvent) + Send)) {
        let held = std::mem::take(&mut self.held);
        if !held.is_empty() {
            on_event(StreamEvent::TextDelta(held));
        }
    }

    fn report_call(&mut self, piece: &str, on_event: &mut (dyn FnMut(StreamEvent) + Send)) {
        if !self.named {
            let Some(name) = self.call.as_deref().and_then(call_name) else {
                return;
            };
            self.named = true;
            on_event(StreamEvent::ToolUseStarted {
                id: TEXT_CALL_ID.into(),
                name,
            });
            // The arguments so far count from the whole call.
            let so_far = self.call.clone().unwrap_or_default();
            on_event(StreamEvent::ToolUseDelta {
                id: TEXT_CALL_ID.into(),
                partial_json: so_far,
            });
            return;
        }
        on_event(StreamEvent::ToolUseDelta {
            id: TEXT_CALL_ID.into(),
            partial_json: piece.to_string(),
        });
    }
}

/// The value of the first complete `"name": "…"` in a call being written.
fn call_name(call: &str) -> Option<String> {
    let after = &call[call.find("\"name\"")? + "\"name\"".len()..];
    let after = after.trim_start().strip_prefix(':')?.trim_start();
    let body = after.strip_prefix('"')?;
    let end = body.find('"')?;
    let name = &body[..end];
    (!name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'))
    .then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(pieces: &[&str]) -> Vec<StreamEvent> {
        let mut events = Vec::new();
        let mut s = CallTextStream::default();
        for p in pieces {
            s.push(p, &mut |e| events.push(e));
        }
        s.finish(&mut |e| events.push(e));
        events
    }

    fn text(events: &[StreamEvent]) -> String {
        events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::TextDelta(t) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }

    fn started(events: &[StreamEvent]) -> Vec<String> {
        events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ToolUseStarted { name, .. } => Some(name.clone()),
                _ => None,
            })
            .collect()
    }

    fn arguments(events: &[StreamEvent]) -> String {
        events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ToolUseDelta { partial_json, .. } => Some(partial_json.as_str()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn prose_streams_as_it_comes() {
        let e = run(&["Hello", ", world. A ", "<b> tag and ``` code"]);
        assert_eq!(text(&e), "Hello, world. A <b> tag and ``` code");
        assert!(started(&e).is_empty());
    }

    #[test]
    fn a_fenced_call_split_across_pieces_streams_as_a_call() {
        let e = run(&[
            "I will read it.\n``",
            "`js",
            "on\n{\"na",
            "me\": \"read_",
            "file\", \"arguments\": {\"path\": \"calc.py\"}}\n```",
        ]);
        assert_eq!(text(&e), "I will read it.\n");
        assert_eq!(started(&e), ["read_file"]);
        assert!(arguments(&e).ends_with("\"calc.py\"}}\n```"), "{e:?}");
        assert!(!text(&e).contains('{'));
    }

    #[test]
    fn tagged_and_bare_calls_are_held_back_too() {
        for call in [
            "<tool_call>\n{\"name\": \"edit_file\", \"arguments\": {}}\n</tool_call>",
            "{\"name\": \"edit_file\", \"arguments\": {}}",
        ] {
            let pieces: Vec<String> = call.chars().map(String::from).collect();
            let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
            let e = run(&refs);
            assert_eq!(text(&e), "", "{call}");
            assert_eq!(started(&e), ["edit_file"], "{call}");
            assert_eq!(arguments(&e), call);
        }
    }

    #[test]
    fn a_held_end_that_is_no_call_comes_out_at_the_end() {
        let e = run(&["see <tool_"]);
        assert_eq!(text(&e), "see <tool_");
        let e = run(&["né ``"]);
        assert_eq!(text(&e), "né ``");
    }
}
