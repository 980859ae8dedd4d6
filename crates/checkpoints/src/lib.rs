//! Checkpoints: the project at every turn boundary, so any earlier turn can be gone back to —
//! at a cost that grows with what changed, never with the size of the project.
//!
//! Owns the session's private object store (a bare git repository in the session folder, out
//! of reach of the user's `git gc`), the records of what changed between checkpoints, the
//! watcher that finds those changes without reading the tree, and restoring (journaled, each
//! file whole or not at all, finished at the next start after a crash). Reads the user's git
//! repository and never writes it. Must not know about sessions, turns or the conversation:
//! the agent maps turns to checkpoints.

mod checkpoints;
mod error;
mod generated;
mod git_view;
mod plan;
mod scan;
mod state;
mod store;
mod uncopied;

pub use checkpoints::{Checkpoints, Restored};
pub use error::{CheckpointError, Result};
pub use plan::{Plan, Write};
pub use state::{FileMode, FileState, MAX_FILE_BYTES};
pub use store::{Cause, Change, CheckpointRecord};
