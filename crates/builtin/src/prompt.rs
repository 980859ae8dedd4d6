//! A request as chat messages for the model's own template: the system prompt with the tools
//! described the way Qwen's template describes them (but asking for the ```json block that
//! small Qwen-Coder models write anyway), earlier calls written back as those blocks, and tool
//! results in `<tool_response>` tags. Rendering is deterministic, so the same conversation
//! gives the same tokens every turn and the KV cache of its beginning can be kept.

use llm::ChatRequest;
use protocol::{ContentBlock, Role};
use serde_json::json;

/// One message for the chat template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateMessage {
    pub role: &'static str,
    pub content: String,
}

/// The messages for `req`, system first.
pub fn messages(req: &ChatRequest) -> Vec<TemplateMessage> {
    let mut out = Vec::new();
    let system = system_text(req);
    if !system.is_empty() {
        out.push(TemplateMessage {
            role: "system",
            content: system,
        });
    }
    for m in &req.messages {
        let mut parts: Vec<String> = Vec::new();
        for b in &m.content {
            match b {
                ContentBlock::Text { text } if !text.trim().is_empty() => parts.push(text.clone()),
                ContentBlock::Text { .. } => {}
                ContentBlock::Image { .. } => {
                    parts.push("[an image, which this model cannot see]".into())
                }
                ContentBlock::Document { .. } => {
                    parts.push("[a file, which this model cannot read]".into())
                }
                ContentBlock::ToolUse { name, input, .. } => parts.push(call_block(name, input)),
                ContentBlock::ToolResult {
                    content, is_error, ..
                } => {
                    let body = if *is_error {
                        format!("Error: {content}")
                    } else {
                        content.clone()
                    };
                    parts.push(format!("<tool_response>\n{body}\n</tool_response>"));
                }
                // Another model's reasoning: not this model's to continue.
                ContentBlock::Thinking { .. } => {}
            }
        }
        if parts.is_empty() {
            continue;
        }
        let role = match m.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        let content = parts.join("\n");
        // Two messages of one role in a row (a result, then the user's words) become one: chat
        // templates expect turns to alternate.
        match out.last_mut() {
            Some(last) if last.role == role => {
                last.content.push('\n');
                last.content.push_str(&content);
            }
            _ => out.push(TemplateMessage { role, content }),
        }
    }
    out
}

/// A call as the model writes it, so that the history reads like its own replies.
pub fn call_block(name: &str, input: &serde_json::Value) -> String {
    format!(
        "```json\n{}\n```",
        json!({"name": name, "arguments": input})
    )
}

/// The tools first, then the agent's own words. The tools and the rules are the same from one
/// session to the next, the project's folder, listing and date are not: a saved KV cache of
/// the beginning serves every project only when what differs comes last.
fn system_text(req: &ChatRequest) -> String {
    let system = req.system.clone().unwrap_or_default();
    if req.tools.is_empty() {
        return system;
    }
    let mut s = String::from(
        "# Tools\n\nYou may call one of these functions to carry out the task. You are provided with function signatures within <tools></tools> XML tags:\n<tools>",
    );
    for t in &req.tools {
        s.push('\n');
        s.push_str(
            &json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.input_schema}})
                .to_string(),
        );
    }
    s.push_str("\n</tools>\n\nTo call a function, write one JSON object with the function name and arguments in a ```json code block, one call per reply:\n```json\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n```\nThe result comes back in <tool_response></tool_response> tags. When the task is done, answer in plain words without a code block.");
    if !system.is_empty() {
        s.push_str("\n\n");
        s.push_str(&system);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::{Message, ToolDefinition};

    fn req(messages: Vec<Message>) -> ChatRequest {
        ChatRequest {
            model: "builtin".into(),
            system: Some("You are Tandem.".into()),
            messages,
            tools: vec![ToolDefinition {
                name: "read_file".into(),
                description: "Reads a file".into(),
                input_schema: json!({"type":"object","properties":{"path":{"type":"string"}}}),
            }],
            max_tokens: 10,
            temperature: None,
            call_required: false,
            fixed_messages: 0,
        }
    }

    #[test]
    fn tools_go_in_the_system_message_and_results_in_tags() {
        let m = messages(&req(vec![
            Message::user_text("read calc.py"),
            Message {
                role: Role::Assistant,
                content: vec![ContentBlock::ToolUse {
                    id: "1".into(),
                    name: "read_file".into(),
                    input: json!({"path": "calc.py"}),
                }],
            },
            Message {
                role: Role::User,
                content: vec![
                    ContentBlock::ToolResult {
                        tool_use_id: "1".into(),
                        content: "def add".into(),
                        is_error: false,
                    },
                    ContentBlock::Text {
                        text: "go on".into(),
                    },
                ],
            },
        ]));
        assert_eq!(m.len(), 4);
        assert_eq!(m[0].role, "system");
        // The tools first, the same in every session; the agent's words (with the project's
        // folder) after them.
        assert!(m[0].content.starts_with("# Tools"));
        assert!(m[0].content.contains("\"name\":\"read_file\""));
        assert!(m[0].content.ends_with("\n\nYou are Tandem."));
        assert_eq!(m[2].role, "assistant");
        assert!(m[2].content.starts_with("```json\n{\"name\":\"read_file\""));
        assert_eq!(
            m[3].content,
            "<tool_response>\ndef add\n</tool_response>\ngo on"
        );
    }

    #[test]
    fn the_same_request_renders_the_same_text() {
        let r = req(vec![Message::user_text("hi")]);
        assert_eq!(messages(&r), messages(&r));
    }
}
