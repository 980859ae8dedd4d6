//! Where a session's commands run: its toolbox confined (secret files kept out of searches,
//! the machine's sandbox for commands, a private temporary folder), and where a command the
//! policy let through runs — with what this machine's sandbox cannot promise put to the
//! person.

use crate::call::rules::SharedPolicy;
use config::machine_sandbox::{private_tmp, sandbox_setup_hiding};
use policy::{Decision, Mode};
use protocol::{Confinement, OutsideReason};
use std::path::Path;
use std::sync::PoisonError;
use tools::{SecretTest, Toolbox};

pub use config::machine_sandbox::{Capabilities, HOME_FOR_TOOLCHAINS, Unavailable, capabilities};

/// Gives a session's toolbox its confinement: secret files and the paths its rules protect
/// kept out of searches, diffs, listings and commands' view, the sandbox for commands (when
/// this machine has one) and a private temporary folder. Nothing is read yet: a session that
/// lives long starts that with [`start_watching`].
pub fn confine(toolbox: &mut Toolbox, session_id: &str, session_dir: &Path, rules: &SharedPolicy) {
    let kept = kept_from_agent(rules.clone(), toolbox.ws.root().path());
    toolbox.ws.hide_secrets(kept.clone());
    toolbox.history = Some(tools::HistorySecrets::new(
        toolbox.ws.root().path(),
        kept.clone(),
    ));
    toolbox.commands.tmp_dir = private_tmp(session_id, session_dir);
    toolbox.scratch = Some(toolbox.commands.tmp_dir.clone());
    toolbox.commands.sandbox =
        sandbox_setup_hiding(session_dir.join("sandbox"), kept).map(|mut s| {
            s.granted_reads = granted_reads(rules.clone());
            s
        });
    tools::CommandLayer::clear_stale(&session_dir.join("sandbox"), toolbox.ws.root().path());
    toolbox.commands.reaper = sandbox::find_helper().ok();
}

/// The one list of what the agent and its commands never see: files of the built-in secret
/// patterns and the paths the merged rules protect (built-in, the person's, the project's),
/// read from the session's rules at each look. read_file and write_file are judged by the same
/// rules; searches, diffs, listings, git's status and the sandbox ask this.
pub fn kept_from_agent(rules: SharedPolicy, root: &Path) -> SecretTest {
    let root = root.to_path_buf();
    SecretTest::from(move |abs: &Path| {
        policy::is_secret(abs)
            || policy::is_protected(
                &rules.read().unwrap_or_else(PoisonError::into_inner),
                &root,
                abs,
            )
    })
}

/// The places outside the project the session's rules let commands read (`paths.allow_read`
/// and what the person allowed this session), read from the rules at each command.
pub fn granted_reads(rules: SharedPolicy) -> tools::GrantedReads {
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    tools::GrantedReads::from(move || {
        rules
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .readable_outside(home.as_deref())
    })
}

/// Starts reading the project (its secret files, its repositories, its history) in the
/// background, so the session's first command does not wait for it.
pub fn start_watching(toolbox: &Toolbox) {
    if let Some(setup) = &toolbox.commands.sandbox {
        setup.watch(toolbox.ws.root().path());
    }
    if let Some(h) = &toolbox.history {
        h.begin();
    }
}

/// Where a command the policy let through runs: in the sandbox (with the network when the
/// policy grants it), outside only when the policy said it must leave — in which case it was
/// put to the user — or when this machine has no sandbox.
pub fn confinement(decision: &Decision, mode: Mode, sandboxed: bool) -> Confinement {
    if !sandboxed {
        Confinement::Outside {
            reason: OutsideReason::Unavailable,
        }
    } else if decision.sandbox.outside {
        Confinement::Outside {
            reason: OutsideReason::Approved,
        }
    } else {
        Confinement::Sandboxed {
            network: decision.sandbox.network,
            read_only: mode == Mode::ReadOnly,
        }
    }
}

/// The policy's decision, with what this machine's sandbox cannot promise put to the user
/// (see [`confine_network_grant`]).
pub fn checked_for_this_machine(decision: Decision, ctx: &policy::Context<'_>) -> Decision {
    if ctx.sandboxed {
        confine_network_grant(decision, capabilities())
    } else {
        decision
    }
}

/// A command the policy lets have the network runs in the machine's network namespace, where
/// other programs' abstract sockets (the X server's, a session bus's) live. Landlock keeps it
/// from them from ABI 6 on; on an older kernel nothing does, so a grant that would run without
/// a question is put to the user instead.
pub fn confine_network_grant(decision: Decision, caps: &Capabilities) -> Decision {
    if decision.decision != policy::Verdict::Allow
        || !decision.sandbox.network
        || !caps.sandboxed
        || caps.network_confined()
    {
        return decision;
    }
    Decision {
        decision: policy::Verdict::Ask,
        reason: format!(
            "{}; it would get the network, and this system's kernel cannot keep a command with the network away from other programs on this computer (Landlock older than ABI 6)",
            decision.reason
        ),
        rule: policy::RuleRef {
            name: "sandbox: network not confinable".into(),
            source: policy::Source::Builtin,
        },
        ..decision
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(abi: u32) -> Capabilities {
        Capabilities {
            sandboxed: true,
            helper: None,
            namespaces: true,
            network_namespace: true,
            landlock_abi: Some(abi),
            seccomp: true,
            layers: sandbox::Layers {
                abstract_sockets_scoped: abi >= 6,
                ..Default::default()
            },
            unavailable: None,
        }
    }

    #[test]
    fn a_network_grant_asks_where_abstract_sockets_cannot_be_scoped() {
        let policy = policy::Policy::builtin();
        let root = std::env::temp_dir();
        let resolver = |p: &Path| p.to_path_buf();
        let mut ctx = policy::Context::new(&root);
        ctx.mode = Some(Mode::FullAuto);
        ctx.sandboxed = true;
        ctx.resolver = &resolver;
        let d = policy::evaluate(
            &policy,
            &policy::ToolCall::Command {
                command: "git fetch origin",
            },
            &ctx,
        );
        assert!(d.is_allowed() && d.sandbox.network, "{d:?}");
        assert!(confine_network_grant(d.clone(), &caps(7)).is_allowed());
        let asked = confine_network_grant(d, &caps(5));
        assert_eq!(asked.decision, policy::Verdict::Ask);
        assert!(asked.reason.contains("ABI 6"), "{}", asked.reason);
    }
}
