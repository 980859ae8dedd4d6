//! One call made by a person at a terminal (`tandem-cli tool`): the same pipeline as a
//! session's — looked up once, checked and worked out, judged by the policy, run where it was
//! decided — with the person as the approver: an Ask needs their `--approve`, a Deny never
//! runs. A one-call toolbox: nothing cached, its outputs and sandbox files in a scratch folder.

use super::availability::Situation;
use super::prepare::prepare;
use super::rules::{ModeSwitch, Rules};
use policy::{Mode, Policy, ToolCall, Verdict};
use protocol::{Confinement, OutsideReason};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use tools::{Runs, ToolOutput, Toolbox};

/// A project's toolbox and rules for calls made at the terminal.
pub struct Desk {
    toolbox: Toolbox,
    rules: Rules,
}

/// One call, and what the person at the terminal said of it.
pub struct DeskCall<'a> {
    pub name: &'a str,
    pub input: Value,
    /// They approve a call the policy would ask about.
    pub approve: bool,
    /// They want a command run outside the sandbox, with their own permissions.
    pub outside: bool,
}

/// What a call at the terminal came to.
pub enum DeskOutcome {
    /// It ran; `sandbox_denied` when the sandbox may have refused a command something.
    Ran {
        output: Box<ToolOutput>,
        sandbox_denied: bool,
    },
    /// It did not run, and why, in words for the person.
    NotRun(String),
    /// No tool has this name.
    Unknown(String),
}

impl Desk {
    /// The project at `root` under `policy` (read from `user_policy_file` and the project's
    /// rules), judged in `mode` (the rules' own when unset); outputs and the sandbox's files go
    /// to `scratch`, which lives as long as the call.
    pub fn new(
        root: tools::ProjectRoot,
        scratch: &Path,
        policy: Policy,
        mode: Option<Mode>,
        user_policy_file: Option<PathBuf>,
    ) -> Desk {
        let mut toolbox = Toolbox::new(root, scratch.to_path_buf());
        // One call: nothing to reuse, and watching the tree for changes would cost a walk of it.
        toolbox.cache = tools::Cache::off();
        toolbox.web.search = config::web_search_from_settings(&config::locations::settings_file());
        let scratch_id = format!("cli-{}", std::process::id());
        let policy = Arc::new(RwLock::new(policy));
        crate::sandboxing::confine(&mut toolbox, &scratch_id, scratch, &policy);
        let rules = Rules {
            policy,
            mode_now: ModeSwitch::default(),
            mode,
            home: std::env::var_os("HOME").map(PathBuf::from),
            user_policy_file,
            ask_before_commands: config::read_settings(&config::locations::settings_file())
                .map(|s| s.commands.ask_first())
                .unwrap_or(false),
        };
        Desk { toolbox, rules }
    }

    /// Makes the call: as a session would, with the person's flags for its questions.
    pub async fn call(&self, asked: DeskCall<'_>) -> DeskOutcome {
        use DeskOutcome::NotRun;
        let call = match tools::resolve(asked.name, asked.input) {
            Ok(call) => call,
            Err(e) if tools::find_tool(asked.name).is_none() => {
                return DeskOutcome::Unknown(e.to_string());
            }
            Err(e) => return NotRun(e.to_string()),
        };
        if let Some(why) = self.rules.unavailable(&self.toolbox, asked.name) {
            return NotRun(format!(
                "{} is not available here: {}",
                asked.name,
                why.words()
            ));
        }
        // The command line is a session of its own: the file a change names is taken as read
        // by the person who runs it, so the freshness guard does not refuse every edit.
        if !call.spec.read_only {
            for asked in call.policy(&tools::Worked::default()) {
                if let ToolCall::Write { path, .. } = asked
                    && let Ok(r) = self.toolbox.ws.root().resolve(path)
                {
                    self.toolbox.ws.note_seen(&r.real);
                }
            }
        }
        let prepared = match prepare(&self.toolbox, call, false).await {
            Ok(p) => p,
            Err(reply) => return NotRun(reply.text),
        };
        // The same judgement as in a session: a write by its size, a commit that would record
        // a secret asked about.
        let decision = self
            .rules
            .judge(&self.toolbox, &prepared.call, &prepared.worked());
        if asked.outside && !asked.approve {
            return NotRun(
                "running a command outside the sandbox needs your approval too: add --approve"
                    .into(),
            );
        }
        let mode = self.rules.mode();
        let confinement = if asked.outside {
            Confinement::Outside {
                reason: OutsideReason::Approved,
            }
        } else {
            crate::sandboxing::confinement(&decision, mode, self.toolbox.commands.sandbox.is_some())
        };
        // As in a session: Ask mode's question before a command gives way to its changes,
        // which land only with --approve.
        let reviewed = super::command::reviewed_instead(
            &decision,
            Some(confinement),
            &prepared.call,
            (&self.toolbox, &self.rules),
            false,
        );
        match decision.decision {
            Verdict::Deny => {
                return NotRun(format!(
                    "refused by the policy: {} [{}]",
                    decision.reason, decision.rule.name
                ));
            }
            Verdict::Ask if !asked.approve && !reviewed => {
                return NotRun(format!(
                    "{}; pass --approve to approve it [{}]",
                    decision.reason, decision.rule.name
                ));
            }
            _ => {}
        }
        if prepared.call.spec.runs() == Runs::Engine {
            return NotRun(format!(
                "{} is run by the agent engine, not the toolbox",
                prepared.call.name()
            ));
        }
        let result = match &prepared.planned {
            // A change is written as it was planned and judged.
            Some(p) => self.toolbox.apply_change(p),
            None => {
                let ctx = tools::CallContext {
                    confinement: Some(confinement),
                    readable: decision.sandbox.reads.iter().map(Into::into).collect(),
                    fetch: tools::FetchContext {
                        addrs: prepared.addrs.clone(),
                        // It runs: the policy allowed it, or the person did (--approve).
                        gate: prepared.url().map(|url| {
                            self.rules
                                .fetch_gate(&self.toolbox, url, prepared.addrs.clone())
                        }),
                    },
                    // Nobody reviews here: in Ask mode a command's project changes are
                    // printed, and land only with --approve.
                    landing: Some(tools::Landing {
                        project: asked.approve || !matches!(mode, Mode::Ask | Mode::ReadOnly),
                        review: false,
                    }),
                    ..Default::default()
                };
                self.toolbox.run_call(&prepared.call, &ctx).await
            }
        };
        let _ = std::fs::remove_dir_all(&self.toolbox.commands.tmp_dir);
        match result {
            Ok(output) => {
                let sandbox_denied = confinement.is_sandboxed()
                    && matches!(
                        &output.details,
                        tools::Details::Command(tools::CommandOutcome::Finished {
                            sandbox_denial: Some(_),
                            ..
                        })
                    );
                DeskOutcome::Ran {
                    output: Box::new(output),
                    sandbox_denied,
                }
            }
            Err(e) => NotRun(e.to_string()),
        }
    }
}

/// One line per tool: its name and what it does; the ones only a session can run say so, and
/// the ones that cannot work here (turned off in `policy`, no search service, no `gh`) say why.
pub fn tool_list(policy: &Policy) -> String {
    let search = config::web_search_from_settings(&config::locations::settings_file()).is_some();
    let path = std::env::var_os("PATH");
    let situation = Situation {
        policy,
        search_service: search,
        path_env: path.as_deref(),
    };
    let width = tools::TOOLS.iter().map(|t| t.name.len()).max().unwrap_or(0);
    tools::TOOLS
        .iter()
        .map(|t| {
            let only = if t.runs() == Runs::Engine {
                " (in `tandem-cli run` only)"
            } else {
                ""
            };
            let off = situation
                .unavailable(t.name)
                .map(|why| format!(" [not available here: {}]", why.words()))
                .unwrap_or_default();
            format!("{:width$}  {}{only}{off}\n", t.name, t.summary())
        })
        .collect()
}
