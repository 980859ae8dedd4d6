//! What is worked out about a call before the policy judges it: whether it can work at all
//! (its tool's check: a read outside the project, an empty command), the change a write would
//! make (so the approval shows what will be written, and is judged by its size), and the
//! addresses a fetch's host looks up to (judged, and then the ones used). What cannot work is
//! the model's to fix: the tool says why, with nothing asked.

use super::reply::Reply;
use policy::ToolCall;
use std::net::IpAddr;
use tools::{Planned, Resolved, Toolbox, Worked};

/// A call with what was worked out about it.
pub(crate) struct Prepared {
    pub call: Resolved,
    /// The change a write or an edit would make.
    pub planned: Option<Planned>,
    /// For a fetch: the addresses its host looks up to.
    pub addrs: Vec<IpAddr>,
}

impl Prepared {
    /// What the policy is told was worked out.
    pub(crate) fn worked(&self) -> Worked<'_> {
        Worked {
            diff_lines: self.planned.as_ref().map_or(0, Planned::changed_lines),
            resolved: &self.addrs,
        }
    }

    /// The shell command the call runs, when it runs one.
    pub(crate) fn command(&self) -> Option<&str> {
        command_of(&self.call)
    }

    /// The URL the call fetches, when it fetches one.
    pub(crate) fn url(&self) -> Option<&str> {
        url_of(&self.call)
    }
}

/// The shell command a call runs, as its tool shows it to the policy.
pub(crate) fn command_of(call: &Resolved) -> Option<&str> {
    call.policy(&Worked::default())
        .into_iter()
        .find_map(|asked| match asked {
            ToolCall::Command { command } => Some(command),
            _ => None,
        })
}

/// The URL a call fetches, as its tool shows it to the policy.
pub(crate) fn url_of(call: &Resolved) -> Option<&str> {
    call.policy(&Worked::default())
        .into_iter()
        .find_map(|asked| match asked {
            ToolCall::Fetch { url, .. } => Some(url),
            _ => None,
        })
}

/// Works out what the policy needs to judge `call`. `small_model`: a small model's rewrite of
/// a whole file must keep what the file had.
pub(crate) async fn prepare(
    toolbox: &Toolbox,
    call: Resolved,
    small_model: bool,
) -> Result<Prepared, Reply> {
    if let Err(e) = call.check(toolbox) {
        return Err(Reply::err(e.to_string()));
    }
    let planned = match call.plan(&toolbox.ws) {
        Some(Ok(p)) => Some(p),
        Some(Err(e)) => return Err(Reply::err(e.to_string())),
        None => None,
    };
    if small_model
        && let Some(p) = planned.as_ref().filter(|p| p.whole)
        && let Some(old) = &p.original
        && let Some(why) = crate::assist::write_guard::refusal(&p.path, old, &p.content)
    {
        return Err(Reply::err(why));
    }
    // A fetch is judged on the addresses its host looks up to, and goes to those.
    let addrs = match url_of(&call) {
        Some(url) => super::fetch_gate::resolve_fetch(url)
            .await
            .map_err(|why| Reply::err(format!("fetching failed: {why}. Nothing was sent.")))?,
        None => Vec::new(),
    };
    Ok(Prepared {
        call,
        planned,
        addrs,
    })
}
