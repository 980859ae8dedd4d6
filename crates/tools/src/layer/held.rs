//! Changes that wait for the person's answer: a layer's (not landed yet) or changes found
//! afterwards (in the project already, kept or put back as answered). One type travels in a
//! command's outcome and is reviewed and answered the same way whichever it is.

use super::Landed;
use super::found::FoundHeld;
use super::review::LayerHeld;
use protocol::ChangeReview;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, PoisonError};

/// A command's changes held for review.
#[derive(Debug)]
pub struct Held(From);

#[derive(Debug)]
enum From {
    /// In its layer: they land only with a yes.
    Layer(LayerHeld),
    /// Found in the project after it ran (no layer): a no puts back what was there.
    Found(FoundHeld),
}

impl Held {
    pub(crate) fn layer(held: LayerHeld) -> Self {
        Held(From::Layer(held))
    }

    pub(crate) fn found(held: FoundHeld) -> Self {
        Held(From::Found(held))
    }

    /// What waits for the person's answer.
    pub fn review(&self) -> &ChangeReview {
        match &self.0 {
            From::Layer(h) => h.review(),
            From::Found(h) => h.review(),
        }
    }

    /// Every piece's index: the answer that accepts everything.
    pub fn all(&self) -> BTreeSet<u32> {
        (0..self.review().pieces).collect()
    }

    /// Answers the review: the accepted pieces are in the project afterwards, the rest are
    /// not (never landed, or put back), and what became of each change is said. A file the
    /// person changed meanwhile is a conflict, never written over.
    pub fn land(
        self,
        accepted: &BTreeSet<u32>,
        before_write: Option<&(dyn Fn(&str) + Send + Sync)>,
    ) -> std::io::Result<Landed> {
        match self.0 {
            From::Layer(h) => h.land(accepted, before_write),
            From::Found(h) => h.land(accepted, before_write),
        }
    }

    /// Nobody can answer: a layer's changes are refused (nothing of them lands); changes
    /// found afterwards stay as they are (they are the project now, as before layers).
    pub fn refuse(self) -> std::io::Result<Landed> {
        match self.0 {
            From::Layer(h) => h.refuse(),
            From::Found(h) => Ok(h.keep()),
        }
    }
}

/// A handle on held changes that travels in a command's outcome: whoever answers the review
/// takes them; if nobody does, dropping the last handle removes the layer and nothing lands.
#[derive(Clone, Default)]
pub struct HeldChanges(Arc<Mutex<Option<Held>>>);

impl std::fmt::Debug for HeldChanges {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HeldChanges")
    }
}

/// Outcomes compare by what they say; held changes are not part of that.
impl PartialEq for HeldChanges {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl Eq for HeldChanges {}

impl HeldChanges {
    pub(crate) fn new(held: Held) -> Self {
        HeldChanges(Arc::new(Mutex::new(Some(held))))
    }

    /// The held changes, once: `None` when there are none, or someone took them.
    pub fn take(&self) -> Option<Held> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    /// Whether changes wait here.
    pub fn waiting(&self) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }
}
