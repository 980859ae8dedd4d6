//! A tool's result in words for the model: its text, with what it cannot pass on (pictures,
//! sound, binary resources) named instead. The caller fences it as untrusted.

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};

/// What one call came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallOutcome {
    pub server: String,
    pub tool: String,
    pub text: String,
    /// The server said the call failed.
    pub is_error: bool,
}

pub(crate) fn render(result: &CallToolResult) -> String {
    let mut parts: Vec<String> = Vec::new();
    for block in &result.content {
        parts.push(match block {
            ContentBlock::Text(t) => t.text.clone(),
            ContentBlock::Image(i) => {
                format!("[an image ({}) that cannot be shown here]", i.mime_type)
            }
            ContentBlock::Audio(a) => {
                format!("[a sound ({}) that cannot be played here]", a.mime_type)
            }
            ContentBlock::Resource(r) => match &r.resource {
                ResourceContents::TextResourceContents { uri, text, .. } => {
                    format!("[{uri}]\n{text}")
                }
                ResourceContents::BlobResourceContents { uri, .. } => {
                    format!("[binary content of {uri}, not shown]")
                }
                _ => "[a resource that cannot be shown here]".into(),
            },
            ContentBlock::ResourceLink(l) => format!("[a link to {}]", l.uri),
            _ => "[content of a kind Tandem cannot show]".into(),
        });
    }
    if parts.is_empty()
        && let Some(s) = &result.structured_content
    {
        parts.push(serde_json::to_string_pretty(s).unwrap_or_default());
    }
    if parts.is_empty() {
        return "(no content)".into();
    }
    parts.join("\n")
}
