//! The checkpoint a turn begins at, taken off the turn's path. Most take milliseconds and are
//! waited for; a big project's first one can take seconds, and the model's first call does not
//! wait for it. Nothing may change the project before it is taken: every call that may change
//! something waits for it first, and says so when the person would wait.

use crate::history::log::LogError;
use crate::journal::Journal;
use checkpoints::Checkpoints;
use protocol::AgentEvent;
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;

/// How long a turn waits for its checkpoint before going on without it.
const GRACE: Duration = Duration::from_millis(250);

/// A checkpoint still being taken, and the id it will have.
pub(crate) struct TurnCheckpoint {
    id: u32,
    taking: JoinHandle<Result<u32, String>>,
}

/// What became of starting a turn's checkpoint.
pub(crate) enum Started {
    Taken(u32),
    /// Still being taken: it will have this id.
    Taking(TurnCheckpoint),
    Failed(String),
}

impl TurnCheckpoint {
    /// Starts taking a checkpoint at log position `seq`; waits for it a moment (`wait`: to its
    /// end, for a turn that changes the project at once).
    pub async fn start(cps: Arc<Checkpoints>, seq: u64, wait: bool) -> Started {
        let id = cps.next_id();
        Self::taken_by(
            id,
            move || cps.checkpoint(seq).map_err(|e| e.to_string()),
            wait,
        )
        .await
    }

    /// [`TurnCheckpoint::start`] with what takes it (`take`), which must give `id`.
    async fn taken_by(
        id: u32,
        take: impl FnOnce() -> Result<u32, String> + Send + 'static,
        wait: bool,
    ) -> Started {
        let mut taking = tokio::task::spawn_blocking(move || match take() {
            Ok(taken) if taken == id => Ok(taken),
            Ok(taken) => Err(format!(
                "checkpoint {taken} was taken where {id} was expected"
            )),
            Err(e) => Err(e),
        });
        let ended = if wait {
            Some((&mut taking).await)
        } else {
            tokio::time::timeout(GRACE, &mut taking).await.ok()
        };
        match ended {
            None => Started::Taking(TurnCheckpoint { id, taking }),
            Some(Ok(Ok(id))) => Started::Taken(id),
            Some(Ok(Err(e))) => Started::Failed(e),
            Some(Err(e)) => Started::Failed(e.to_string()),
        }
    }

    pub fn id(&self) -> u32 {
        self.id
    }

    /// Waits for it to be taken, saying so first when it is not yet; a failure is told.
    pub async fn settle(self, journal: &mut Journal) -> Result<(), LogError> {
        if !self.taking.is_finished() {
            journal.emit(AgentEvent::Notice {
                text: "Saving a checkpoint of the project before the first change, so this turn can be undone (a big project takes a moment)…".to_string(),
            })?;
        }
        let taken = match self.taking.await {
            Ok(r) => r,
            Err(e) => Err(e.to_string()),
        };
        match taken {
            Ok(_) => Ok(()),
            Err(e) => failed(journal, &e),
        }
    }
}

/// Tells that the turn's checkpoint could not be taken.
pub(crate) fn failed(journal: &mut Journal, why: &str) -> Result<(), LogError> {
    tracing::warn!(%why, "no checkpoint for this turn");
    journal.emit(AgentEvent::Notice {
        text: format!("this turn cannot be undone: its checkpoint could not be taken ({why})"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event_sink::EventSink;
    use crate::history::log::{SessionHeader, SessionLog};
    use tokio::sync::mpsc;

    fn journal(dir: &std::path::Path) -> (Journal, mpsc::UnboundedReceiver<AgentEvent>) {
        let header = SessionHeader {
            id: "s1".into(),
            project: "/p".into(),
            task: "t".into(),
            model: "m".into(),
            started_ms: 0,
        };
        let log = SessionLog::create(dir, &header).expect("log");
        let (tx, rx) = mpsc::unbounded_channel();
        (Journal::new(log, EventSink::new(tx), None), rx)
    }

    fn notices(rx: &mut mpsc::UnboundedReceiver<AgentEvent>) -> Vec<String> {
        let mut out = Vec::new();
        while let Ok(e) = rx.try_recv() {
            if let AgentEvent::Notice { text } = e {
                out.push(text);
            }
        }
        out
    }

    #[tokio::test]
    async fn a_slow_checkpoint_does_not_hold_the_turn_and_the_wait_for_it_is_told() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (mut journal, mut rx) = journal(dir.path());
        let (go, gate) = std::sync::mpsc::channel::<()>();
        let started = TurnCheckpoint::taken_by(
            3,
            move || {
                let _ = gate.recv();
                Ok(3)
            },
            false,
        )
        .await;
        let Started::Taking(pending) = started else {
            panic!("a checkpoint still being taken holds the turn");
        };
        assert_eq!(pending.id(), 3);
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            let _ = go.send(());
        });
        pending.settle(&mut journal).await.expect("settle");
        let said = notices(&mut rx);
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(said[0].starts_with("Saving a checkpoint"), "{said:?}");
    }

    #[tokio::test]
    async fn a_quick_checkpoint_is_waited_for_and_a_wrong_one_is_a_failure() {
        assert!(matches!(
            TurnCheckpoint::taken_by(0, || Ok(0), false).await,
            Started::Taken(0)
        ));
        assert!(matches!(
            TurnCheckpoint::taken_by(2, || Ok(1), true).await,
            Started::Failed(e) if e.contains("where 2 was expected")
        ));
        assert!(matches!(
            TurnCheckpoint::taken_by(2, || Err("the disk is full".into()), true).await,
            Started::Failed(e) if e == "the disk is full"
        ));
    }
}
