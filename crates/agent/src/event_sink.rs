//! Where an agent's events go: the session's one stream. A sub-agent's events arrive wrapped
//! in `subagent` events naming it (and its parents), so front ends can show each agent's
//! transcript in its own card while one stream carries them all.

use protocol::AgentEvent;
use tokio::sync::mpsc;

#[derive(Clone)]
pub(crate) struct EventSink {
    tx: mpsc::UnboundedSender<AgentEvent>,
    /// The agent ids from the outermost sub-agent in, empty for the session's own agent.
    path: Vec<String>,
}

impl EventSink {
    pub(crate) fn new(tx: mpsc::UnboundedSender<AgentEvent>) -> Self {
        EventSink {
            tx,
            path: Vec::new(),
        }
    }

    /// The sink of a sub-agent of this one.
    pub(crate) fn nested(&self, agent: &str) -> Self {
        let mut path = self.path.clone();
        path.push(agent.to_string());
        EventSink {
            tx: self.tx.clone(),
            path,
        }
    }

    pub(crate) fn send(&self, event: AgentEvent) {
        let mut e = event;
        for agent in self.path.iter().rev() {
            e = AgentEvent::Subagent {
                agent: agent.clone(),
                event: Box::new(e),
            };
        }
        // A front end that went away misses the rest; the log still has it.
        let _ = self.tx.send(e);
    }
}
