//! The session's open questions: every approval request waits here for its answer, whichever
//! agent asked. A front end answers by id (an operation, no polling); Stop drops them all, which
//! cancels the calls that asked — a question never answered is never an approval.

use protocol::{ApprovalAnswer, ApprovalRequest};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::{Notify, oneshot};

struct Open {
    request: ApprovalRequest,
    reply: oneshot::Sender<ApprovalAnswer>,
    /// Order of arrival.
    seq: u64,
}

#[derive(Default)]
struct Inner {
    open: BTreeMap<String, Open>,
    next: u64,
}

/// Cheap to clone: every agent of a session and its front ends share one.
#[derive(Clone, Default)]
pub struct Approvals {
    inner: Arc<Mutex<Inner>>,
    changed: Arc<Notify>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    #[error("no question `{0}` is waiting: it was answered already, or its turn has ended")]
    NotWaiting(String),
}

impl Approvals {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Files a question; its answer arrives on the receiver (which errs if it is dropped).
    pub(crate) fn ask(&self, request: ApprovalRequest) -> oneshot::Receiver<ApprovalAnswer> {
        let (reply, rx) = oneshot::channel();
        let mut inner = self.lock();
        let seq = inner.next;
        inner.next += 1;
        inner.open.insert(
            request.id.clone(),
            Open {
                request,
                reply,
                seq,
            },
        );
        drop(inner);
        self.changed.notify_waiters();
        rx
    }

    /// Answers a waiting question.
    pub fn answer(&self, id: &str, answer: ApprovalAnswer) -> Result<(), AnswerError> {
        let open = self.lock().open.remove(id);
        self.changed.notify_waiters();
        let open = open.ok_or_else(|| AnswerError::NotWaiting(id.to_string()))?;
        open.reply
            .send(answer)
            .map_err(|_| AnswerError::NotWaiting(id.to_string()))
    }

    /// A question that is no longer waited for (its turn was stopped).
    pub(crate) fn withdraw(&self, id: &str) {
        self.lock().open.remove(id);
        self.changed.notify_waiters();
    }

    /// The questions waiting, oldest first.
    pub fn waiting(&self) -> Vec<ApprovalRequest> {
        let inner = self.lock();
        let mut v: Vec<&Open> = inner.open.values().collect();
        v.sort_by_key(|o| o.seq);
        v.into_iter().map(|o| o.request.clone()).collect()
    }

    pub fn count(&self) -> usize {
        self.lock().open.len()
    }

    /// Drops every question: the calls that asked are cancelled.
    pub fn drop_all(&self) {
        self.lock().open.clear();
        self.changed.notify_waiters();
    }

    /// Resolves when a question arrives or is answered.
    pub async fn changed(&self) {
        self.changed.notified().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(id: &str) -> ApprovalRequest {
        ApprovalRequest {
            id: id.into(),
            tool: "run_command".into(),
            input: serde_json::json!({"command": "ls"}),
            asked: protocol::Asked {
                reason: "asks".into(),
                rule: "mode".into(),
                suggestions: Vec::new(),
            },
            change: protocol::ChangePreview::default(),
            run: protocol::CommandPreview {
                command: Some("ls".into()),
                commands: vec!["ls".into()],
                ..Default::default()
            },
            agent: None,
            title: Vec::new(),
            words: String::new(),
            review: None,
            commit: None,
        }
    }

    #[tokio::test]
    async fn answered_by_id_once_and_dropped_questions_cancel() {
        let a = Approvals::default();
        let first = a.ask(request("c1"));
        let second = a.ask(request("c2"));
        assert_eq!(
            a.waiting()
                .iter()
                .map(|r| r.id.as_str())
                .collect::<Vec<_>>(),
            ["c1", "c2"]
        );
        a.answer("c1", ApprovalAnswer::Approve).expect("answer");
        assert_eq!(first.await.expect("answer"), ApprovalAnswer::Approve);
        assert_eq!(
            a.answer("c1", ApprovalAnswer::Approve),
            Err(AnswerError::NotWaiting("c1".into()))
        );
        a.drop_all();
        assert!(
            second.await.is_err(),
            "a dropped question is not an approval"
        );
        assert_eq!(a.count(), 0);
    }
}
