//! list_files as the model calls it, which may ask for ignored files too: the listing says
//! which of its entries are ignored.

use super::{ListFilesArgs, list, render};
use crate::error::ToolResult;
use crate::paths::ProjectRoot;
use protocol::FileListing;
use serde::Serialize;
use std::collections::BTreeSet;

/// A listing with the paths of its entries that are ignored (none unless asked for).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModelListing {
    #[serde(flatten)]
    pub listing: FileListing,
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    pub ignored: BTreeSet<String>,
}

impl ModelListing {
    /// What the model reads: [`super::render_listing`] with ignored entries marked.
    pub fn render(&self) -> String {
        render(&self.listing, &self.ignored)
    }
}

pub fn list_for_model(root: &ProjectRoot, args: &ListFilesArgs) -> ToolResult<ModelListing> {
    let (listing, ignored) = list(root, args, args.include_ignored)?;
    Ok(ModelListing { listing, ignored })
}
