//! What a command changed where it ran without a layer of the project, found by the session's
//! checkpoints: a checkpoint before it runs is the mark, and the files that differ from it
//! afterwards (with what each held then) are its changes.

use checkpoints::{Checkpoints, FileMode, FileState};
use std::sync::Arc;
use tools::{Before, ChangeFinder, FoundFile};

pub(crate) struct CheckpointFinder(pub Arc<Checkpoints>);

impl ChangeFinder for CheckpointFinder {
    fn mark(&self) -> Option<u32> {
        // A mark is a checkpoint at the conversation's place of the last one: no turn begins
        // there, so it is never offered as a place to go back to.
        let seq = self.0.records().last().map(|c| c.log_seq)?;
        match self.0.checkpoint(seq) {
            Ok(id) => Some(id),
            Err(e) => {
                tracing::warn!(%e, "no mark before a command: its changes are not shown");
                None
            }
        }
    }

    fn since(&self, mark: u32) -> Option<Vec<FoundFile>> {
        let plan = match self.0.preview(mark, None) {
            Ok(plan) => plan,
            Err(e) => {
                tracing::warn!(%e, "a command's changes could not be found");
                return None;
            }
        };
        let mut found: Vec<FoundFile> = plan
            .writes
            .iter()
            .map(|w| FoundFile {
                path: w.path.clone(),
                before: match &w.to {
                    FileState::Absent => Before::Absent,
                    FileState::File {
                        mode: FileMode::Symlink,
                        ..
                    }
                    | FileState::Unknown { .. } => Before::Unknown,
                    state @ FileState::File { mode, .. } => match self.0.bytes(state) {
                        Some(bytes) => Before::File {
                            bytes,
                            executable: *mode == FileMode::Executable,
                        },
                        None => Before::Unknown,
                    },
                },
            })
            .collect();
        found.extend(plan.not_restorable.iter().map(|n| FoundFile {
            path: n.path.clone(),
            before: Before::Unknown,
        }));
        // The command's changes are the agent's: a restore never calls them the person's.
        for f in &found {
            if let Err(e) = self.0.agent_wrote(&f.path) {
                tracing::warn!(%e, path = %f.path, "a command's change could not be noted as the agent's");
            }
        }
        Some(found)
    }
}
