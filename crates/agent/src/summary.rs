//! What a tool call came to, for people: facts from the tool's structured result (a command's
//! exit code and duration, a file's lines, a search's matches), typed, so every front end puts
//! them in its own words. The text the model reads is written for the model and stays as it is.

use protocol::{FileChange, FileContent, FileListing, PlanItem, PlanStatus, ToolSummary};
use serde_json::Value;
use std::collections::BTreeSet;

/// A summary of a tool's structured result, when the tool has one worth saying.
pub(crate) fn of(name: &str, structured: &Value) -> Option<ToolSummary> {
    let value = structured.clone();
    match name {
        "read_file" => Some(match serde_json::from_value::<FileContent>(value).ok()? {
            FileContent::Text {
                path,
                start_line,
                lines,
                total_lines,
                ..
            } => ToolSummary::FileRead {
                path,
                from: start_line,
                to: start_line
                    .saturating_add(lines.len() as u32)
                    .saturating_sub(1),
                total_lines,
            },
            FileContent::Binary { path, .. } | FileContent::Image { path, .. } => {
                ToolSummary::FileSeen { path }
            }
        }),
        "write_file" | "edit_file" => {
            let c = serde_json::from_value::<FileChange>(value).ok()?;
            Some(ToolSummary::FileChanged {
                path: c.path,
                created: c.created,
                added_lines: c.added_lines,
                removed_lines: c.removed_lines,
            })
        }
        "list_files" => {
            let l = serde_json::from_value::<FileListing>(value).ok()?;
            Some(ToolSummary::FilesListed {
                count: l.entries.len() as u32,
                more: l.omitted,
            })
        }
        "search_codebase" => {
            let matches = value.get("total_matches")?.as_u64()?;
            let files: BTreeSet<&str> = value
                .get("lines")?
                .as_array()?
                .iter()
                .filter(|l| l.get("is_match").and_then(Value::as_bool) == Some(true))
                .filter_map(|l| l.get("path").and_then(Value::as_str))
                .collect();
            Some(ToolSummary::SearchMatches {
                matches: matches.min(u64::from(u32::MAX)) as u32,
                files: files.len() as u32,
            })
        }
        "web_fetch" => Some(ToolSummary::PageFetched {
            url: value.get("url")?.as_str()?.to_string(),
            status: u16::try_from(value.get("status")?.as_u64()?).ok()?,
        }),
        "web_search" => Some(ToolSummary::WebResults {
            count: value.as_array()?.len() as u32,
        }),
        "update_plan" => {
            let items = serde_json::from_value::<Vec<PlanItem>>(value).ok()?;
            Some(ToolSummary::PlanUpdated {
                steps: items.len() as u32,
                done: items
                    .iter()
                    .filter(|i| i.status == PlanStatus::Done)
                    .count() as u32,
            })
        }
        _ => None,
    }
}

/// A command's summary from its structured result: how it ended, or the task it became.
pub(crate) fn of_command(structured: &Value) -> Option<ToolSummary> {
    match serde_json::from_value::<tools::CommandOutcome>(structured.clone()).ok()? {
        tools::CommandOutcome::Finished {
            exit_code,
            timed_out,
            duration_ms,
            output,
            total_lines,
            bytes_total,
            bytes_kept,
            ..
        } => Some(ToolSummary::CommandRan {
            exit_code,
            timed_out,
            duration_ms,
            // Its start and end stand for the whole when it printed more than is shown, or
            // more than the saved output keeps.
            cut: bytes_total > bytes_kept || output.lines().count() != total_lines,
            output,
        }),
        tools::CommandOutcome::Background { task_id, .. } => {
            Some(ToolSummary::CommandInBackground { task: task_id })
        }
    }
}

#[cfg(test)]
mod tests {
    /// A tool added to the catalog without words would be shown by its code name.
    #[test]
    fn every_tool_of_the_catalog_has_words_for_people() {
        for t in tools::TOOLS {
            assert!(
                protocol::tool_words(t.name).is_some(),
                "{} has no words in protocol::TOOL_WORDS",
                t.name
            );
        }
    }
}
