//! list_files as the model calls it, which may ask for ignored files too. Its arguments are
//! their own type so that the engine's and the window's listings, which never want ignored
//! files, need not name the option; a test keeps the shared fields' schema the same.

use super::{ListFilesArgs, list, render};
use crate::error::ToolResult;
use crate::paths::ProjectRoot;
use protocol::FileListing;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListFilesToolArgs {
    /// Folder to list, relative to the project root (or absolute inside it). Default: the root.
    #[serde(default)]
    pub path: String,
    /// Include sub-folders' contents. Default false.
    #[serde(default)]
    pub recursive: bool,
    /// Glob filter, e.g. `*.ts` (matched against names) or `src/**/*.rs` (matched against the
    /// path relative to `path`).
    #[serde(default)]
    pub pattern: Option<String>,
    /// Include hidden files (names starting with a dot). Default false.
    #[serde(default)]
    pub hidden: bool,
    /// Maximum entries returned. Default 1000.
    #[serde(default)]
    pub limit: Option<u32>,
    /// Also list what .gitignore, .ignore and .git/info/exclude hide (build output, logs,
    /// generated files), each marked `(ignored)`: they are not part of the source. Default
    /// false. `.git/` is never listed; `node_modules/` is then shown as one entry, not listed
    /// inside unless it is the folder asked for.
    #[serde(default)]
    pub include_ignored: bool,
}

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

pub fn list_for_model(root: &ProjectRoot, args: &ListFilesToolArgs) -> ToolResult<ModelListing> {
    let listing_args = ListFilesArgs {
        path: args.path.clone(),
        recursive: args.recursive,
        pattern: args.pattern.clone(),
        hidden: args.hidden,
        limit: args.limit,
    };
    let (listing, ignored) = list(root, &listing_args, args.include_ignored)?;
    Ok(ModelListing { listing, ignored })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The model's arguments are the listing's, described the same, and `include_ignored`.
    #[test]
    fn the_schema_is_the_listings_and_include_ignored() {
        let schema = |v: schemars::Schema| serde_json::to_value(v).expect("schema");
        let ours = schema(schemars::schema_for!(ListFilesToolArgs));
        let base = schema(schemars::schema_for!(ListFilesArgs));
        let mut props = ours["properties"].as_object().expect("properties").clone();
        assert!(props.remove("include_ignored").is_some());
        assert_eq!(&props, base["properties"].as_object().expect("properties"));
    }
}
