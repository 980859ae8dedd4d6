//! Putting a call to the person: the approval card (the call in words, why the policy asks,
//! the rules they could grant instead), waiting for the answer in the session's queue, and
//! keeping the rule an answer asked for — for the session, or written to their rule file.

use super::approvals::Approvals;
use super::reply::{Halt, Reply};
use super::rules::Rules;
use crate::history::log::LogError;
use crate::journal::Journal;
use protocol::{
    AgentEvent, ApprovalAnswer, ApprovalRequest, Asked, ChangePreview, CommandPreview, TitlePart,
};
use serde_json::Value;
use std::path::Path;
use tokio_util::sync::CancellationToken;

/// Who asks, and where the answers come from.
pub(crate) struct Asker<'a> {
    pub journal: &'a mut Journal,
    pub approvals: &'a Approvals,
    pub rules: &'a Rules,
    /// The project, where "always in this project" applies.
    pub root: &'a Path,
}

/// What a call is on its card: its id, tool, arguments and title.
pub(crate) struct Subject<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub input: &'a Value,
    pub title: Vec<TitlePart>,
}

impl Subject<'_> {
    /// An approval card for this call, asked for `reason` under `rule`: what every question
    /// carries before what is particular to it (a change's hunks, a command's parts).
    pub(crate) fn card(&self, journal: &Journal, reason: &str, rule: &str) -> ApprovalRequest {
        ApprovalRequest {
            id: journal.event_id(self.id),
            tool: self.name.to_string(),
            input: self.input.clone(),
            asked: Asked {
                reason: reason.to_string(),
                rule: rule.to_string(),
                suggestions: Vec::new(),
            },
            change: ChangePreview::default(),
            run: CommandPreview::default(),
            agent: journal.agent_name().map(str::to_string),
            title: self.title.clone(),
            words: tools::words_for(self.name),
            review: None,
            commit: None,
        }
    }

    /// The card for a question the policy's `decision` asks, with the rules it suggests.
    pub(crate) fn question(
        &self,
        journal: &Journal,
        decision: &policy::Decision,
    ) -> ApprovalRequest {
        let mut card = self.card(journal, &decision.reason, &decision.rule.name);
        card.asked.suggestions = decision
            .suggestions
            .iter()
            .map(|s| protocol::ApprovalSuggestion {
                label: s.label.clone(),
                always: s.scope == policy::Scope::Project,
            })
            .collect();
        card
    }
}

/// What the person's answer to a call comes to.
pub(crate) enum Settled {
    /// Run it; with the hunks kept when approved in part.
    Go(Option<Vec<u32>>),
    /// Do not run it; the model hears this.
    Reply(Reply),
}

impl Asker<'_> {
    /// Puts a question and waits for the answer; both go into the events and the log. A
    /// question nobody answers (the turn stopped, the session closed) halts the turn.
    pub(crate) async fn ask(
        &mut self,
        request: ApprovalRequest,
        cancel: &CancellationToken,
    ) -> Result<ApprovalAnswer, Halt> {
        let id = request.id.clone();
        // The question is filed before the event goes out, so a front end that answers the
        // moment it sees the event finds it waiting.
        let rx = self.approvals.ask(request.clone());
        self.journal.emit(AgentEvent::ApprovalNeeded {
            request: Box::new(request),
        })?;
        let answer = tokio::select! {
            a = rx => a.ok(),
            _ = cancel.cancelled() => None,
        };
        let Some(answer) = answer else {
            self.approvals.withdraw(&id);
            return Err(Halt::Stop);
        };
        self.journal.emit(AgentEvent::ApprovalAnswered {
            id,
            answer: answer.clone(),
        })?;
        Ok(answer)
    }

    /// Puts the call the policy asks about to the person and keeps what they answered: go on
    /// (with the hunks they kept, for a change approved in part, when `splits`), or the reply
    /// a denial makes.
    pub(crate) async fn settle(
        &mut self,
        request: ApprovalRequest,
        decision: &policy::Decision,
        splits: bool,
        cancel: &CancellationToken,
    ) -> Result<Settled, Halt> {
        let answer = self.ask(request, cancel).await?;
        self.keep_answer(decision, &answer)?;
        Ok(match answer {
            ApprovalAnswer::Approve
            | ApprovalAnswer::ApproveForSession { .. }
            | ApprovalAnswer::ApproveAlways { .. } => Settled::Go(None),
            ApprovalAnswer::Deny { message } => Settled::Reply(Reply::denied(message)),
            ApprovalAnswer::ApprovePartial { accepted_hunks } if splits => {
                Settled::Go(Some(accepted_hunks))
            }
            ApprovalAnswer::ApprovePartial { .. } => Settled::Reply(Reply::not_split()),
        })
    }

    /// The rule an approval asked to grant: for the session, or kept for the project (and
    /// said so).
    fn keep_answer(
        &mut self,
        decision: &policy::Decision,
        answer: &ApprovalAnswer,
    ) -> Result<(), LogError> {
        let (index, always) = match answer {
            ApprovalAnswer::ApproveForSession { suggestion } => (*suggestion, false),
            ApprovalAnswer::ApproveAlways { suggestion } => (*suggestion, true),
            _ => return Ok(()),
        };
        let Some(sug) = decision.suggestions.get(index as usize) else {
            return Ok(());
        };
        if always {
            let text = match self.rules.keep_grant(self.root, &sug.grant, &sug.label) {
                Ok(file) => format!(
                    "added to your rules for this project ({file}): {}",
                    sug.label
                ),
                Err(e) => format!("the rule is kept for this session only: {e}"),
            };
            self.journal.emit(AgentEvent::Notice { text })?;
        }
        if let Err(e) = self.rules.grant(&sug.grant) {
            self.journal.emit(AgentEvent::Notice {
                text: format!("the rule could not be added: {e}"),
            })?;
        }
        Ok(())
    }
}
