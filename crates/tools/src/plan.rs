//! `update_plan` and `task_done`: no effect on the project, typed results the UI renders.

use crate::error::{ToolError, ToolResult};
use protocol::{PlanItem, PlanStatus, TaskDone};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdatePlanArgs {
    /// The whole plan, in order; each item pending, in_progress or done.
    pub items: Vec<PlanItem>,
}

pub fn update_plan(args: &UpdatePlanArgs) -> ToolResult<Vec<PlanItem>> {
    if let Some(i) = args.items.iter().position(|i| i.text.trim().is_empty()) {
        return Err(ToolError::InvalidArgument(format!(
            "plan item {} has no text",
            i + 1
        )));
    }
    let in_progress = args
        .items
        .iter()
        .filter(|i| i.status == PlanStatus::InProgress)
        .count();
    if in_progress > 1 {
        return Err(ToolError::InvalidArgument(format!(
            "{in_progress} items are in_progress; work on one at a time and mark the others pending"
        )));
    }
    Ok(args.items.clone())
}

pub fn render_plan(items: &[PlanItem]) -> String {
    if items.is_empty() {
        return "The plan is empty.\n".into();
    }
    items
        .iter()
        .map(|i| {
            let mark = match i.status {
                PlanStatus::Done => "[x]",
                PlanStatus::InProgress => "[>]",
                PlanStatus::Pending => "[ ]",
            };
            format!("{mark} {}\n", i.text)
        })
        .collect()
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskDoneArgs {
    /// What was done, for the person who asked.
    pub summary: String,
    #[serde(default)]
    pub files_changed: Option<Vec<String>>,
}

pub fn task_done(args: &TaskDoneArgs) -> ToolResult<TaskDone> {
    if args.summary.trim().is_empty() {
        return Err(ToolError::InvalidArgument(
            "the summary is empty; say what was done".into(),
        ));
    }
    Ok(TaskDone {
        summary: args.summary.clone(),
        files_changed: args.files_changed.clone().unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(text: &str, status: PlanStatus) -> PlanItem {
        PlanItem {
            text: text.into(),
            status,
        }
    }

    #[test]
    fn plans_render_and_are_checked() {
        let items = vec![
            item("read", PlanStatus::Done),
            item("edit", PlanStatus::InProgress),
            item("test", PlanStatus::Pending),
        ];
        let ok = update_plan(&UpdatePlanArgs {
            items: items.clone(),
        })
        .expect("plan");
        assert_eq!(render_plan(&ok), "[x] read\n[>] edit\n[ ] test\n");
        let two = vec![
            item("a", PlanStatus::InProgress),
            item("b", PlanStatus::InProgress),
        ];
        assert!(
            update_plan(&UpdatePlanArgs { items: two })
                .expect_err("two")
                .to_string()
                .contains("one at a time")
        );
        assert!(
            update_plan(&UpdatePlanArgs {
                items: vec![item(" ", PlanStatus::Pending)]
            })
            .is_err()
        );
        assert!(
            task_done(&TaskDoneArgs {
                summary: "".into(),
                files_changed: None
            })
            .is_err()
        );
        let d = task_done(&TaskDoneArgs {
            summary: "Fixed it".into(),
            files_changed: Some(vec!["a.rs".into()]),
        })
        .expect("done");
        assert_eq!(d.files_changed, ["a.rs"]);
    }
}
