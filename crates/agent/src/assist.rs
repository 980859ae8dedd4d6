//! Help for models that need it, as functions over what they wrote and what happened: a call
//! put right where what the model meant is plain, a small model's whole-file drafts and the
//! files a task names read before its first step, a whole-file write that would lose what the
//! file had refused, and reading what a project's checks report.

pub(crate) mod afresh_draft;
pub(crate) mod call_repair;
pub(crate) mod checks;
pub(crate) mod code_shape;
pub(crate) mod draft_check;
pub(crate) mod echoed_numbers;
pub(crate) mod file_blocks;
pub(crate) mod function_edit;
pub(crate) mod loose_match;
pub(crate) mod named_files;
pub(crate) mod project_text;
pub(crate) mod whole_file_draft;
pub(crate) mod write_guard;
