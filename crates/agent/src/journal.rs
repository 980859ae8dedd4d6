//! Where one agent's words go: its log (what makes the session resumable), the session's one
//! event stream, and who it is — a sub-agent's events and questions carry its id and name.

use crate::event_sink::EventSink;
use crate::history::log::{LogError, SessionLog};
use protocol::AgentEvent;
use serde::Serialize;

/// A sub-agent's id (unique in the session) and name.
#[derive(Debug, Clone)]
pub(crate) struct Identity {
    pub id: String,
    pub name: String,
}

pub(crate) struct Journal {
    pub(crate) log: SessionLog,
    events: EventSink,
    identity: Option<Identity>,
}

impl Journal {
    pub(crate) fn new(log: SessionLog, events: EventSink, identity: Option<Identity>) -> Self {
        Journal {
            log,
            events,
            identity,
        }
    }

    /// An event for people: logged (but for the deltas of a reply being written) and sent.
    pub(crate) fn emit(&mut self, event: AgentEvent) -> Result<(), LogError> {
        let logged = !matches!(
            event,
            AgentEvent::TextDelta { .. }
                | AgentEvent::ThinkingDelta { .. }
                | AgentEvent::ToolCallWriting { .. }
                | AgentEvent::PromptProgress { .. }
        );
        if logged {
            self.log.append(&event)?;
        }
        self.events.send(event);
        Ok(())
    }

    /// An event sent and not logged (it only matters while it happens).
    pub(crate) fn send(&self, event: AgentEvent) {
        self.events.send(event);
    }

    /// A line for the engine alone.
    pub(crate) fn append(&mut self, entry: &impl Serialize) -> Result<(), LogError> {
        self.log.append(entry).map(|_| ())
    }

    pub(crate) fn sync(&mut self) -> Result<(), LogError> {
        self.log.sync()
    }

    /// The stream, for what sends events while the agent waits (a reply being streamed).
    pub(crate) fn sink(&self) -> EventSink {
        self.events.clone()
    }

    /// A tool call's id as events and questions name it: a sub-agent's are prefixed with its
    /// own id, so they are unique in the session.
    pub(crate) fn event_id(&self, id: &str) -> String {
        match &self.identity {
            Some(me) => format!("{}:{id}", me.id),
            None => id.to_string(),
        }
    }

    /// This agent's id when it is a sub-agent: the tasks it starts are its own.
    pub(crate) fn agent_id(&self) -> Option<&str> {
        self.identity.as_ref().map(|me| me.id.as_str())
    }

    /// This agent's name when it is a sub-agent: its questions name it.
    pub(crate) fn agent_name(&self) -> Option<&str> {
        self.identity.as_ref().map(|me| me.name.as_str())
    }
}
