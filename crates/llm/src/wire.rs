//! What both wire formats share once a stream is read: token counts however a server writes
//! them, and a tool call's arguments checked once they are whole.

use crate::request::MalformedToolCall;
use protocol::ContentBlock;
use serde::{Deserialize, Deserializer};
use serde_json::{Value, json};

/// A token count. Compatible servers write counts as floats or nulls now and then; a count
/// that is not a number is unknown rather than a reason to drop the reply.
pub(crate) fn count<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    let v = Option::<Value>::deserialize(d)?;
    Ok(v.and_then(|v| {
        v.as_u64().or_else(|| {
            v.as_f64()
                .filter(|f| f.is_finite() && *f >= 0.0)
                .map(|f| f as u64)
        })
    })
    .map(|n| u32::try_from(n).unwrap_or(u32::MAX)))
}

/// A finished tool call. Arguments that are not a JSON object leave the call in the message
/// with empty arguments (the conversation stays well-formed) and are reported beside it.
pub(crate) fn tool_use(
    id: String,
    name: String,
    arguments: String,
) -> (ContentBlock, Option<MalformedToolCall>) {
    let raw = if arguments.trim().is_empty() {
        "{}".to_string()
    } else {
        arguments
    };
    let error = match serde_json::from_str::<Value>(&raw) {
        Ok(input) if input.is_object() => {
            return (ContentBlock::ToolUse { id, name, input }, None);
        }
        Ok(_) => "the arguments must be a JSON object".to_string(),
        Err(e) => e.to_string(),
    };
    let malformed = MalformedToolCall {
        id: id.clone(),
        name: name.clone(),
        raw,
        error,
    };
    let block = ContentBlock::ToolUse {
        id,
        name,
        input: json!({}),
    };
    (block, Some(malformed))
}
