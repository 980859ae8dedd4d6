//! Fetches are judged on what they really reach: the host is looked up once before the policy
//! sees the call, the request goes to the addresses judged, and every redirect is judged again
//! before it is followed.

use policy::{Context, Mode, Policy, ToolCall, Verdict};
use serde_json::Value;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tools::{Hop, HopGate};

/// The addresses a `web_fetch` call's host looks up to. `Ok(empty)` when the URL is not one
/// the policy would let through anyway (it refuses it with its own words); `Err` when the host
/// cannot be found.
pub async fn resolve_fetch(input: &Value) -> Result<Vec<IpAddr>, String> {
    let url = input.get("url").and_then(Value::as_str).unwrap_or("");
    let Some((host, port)) = tools::fetch_host(url) else {
        return Ok(Vec::new());
    };
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Ok(Vec::new());
    }
    tools::resolve_host(&host, port).await
}

/// What a redirect is judged with: the session's rules and situation, as of the call.
pub struct FetchJudge {
    pub policy: Policy,
    pub mode: Mode,
    pub root: PathBuf,
    pub home: Option<PathBuf>,
    pub user_policy_file: Option<PathBuf>,
    pub sandboxed: bool,
}

impl FetchJudge {
    /// Lets a redirect through only when the policy would allow fetching it outright: there
    /// is nobody to ask in the middle of a request.
    pub fn gate(self) -> HopGate {
        Arc::new(move |hop: &Hop<'_>| {
            let resolver = |p: &Path| tools::real_path(p);
            let exists = |p: &Path| p.symlink_metadata().is_ok();
            let ctx = Context {
                project_root: &self.root,
                home: self.home.as_deref(),
                mode: Some(self.mode),
                session_diff_lines: 0,
                user_policy_file: self.user_policy_file.as_deref(),
                sandboxed: self.sandboxed,
                resolver: &resolver,
                exists: Some(&exists),
                // Not looked up yet: the careful answer.
                history_holds_secrets: &policy::history_may_hold_secrets,
                saved_outputs: &[],
            };
            let call = ToolCall::Fetch {
                url: hop.url,
                method: hop.method,
                resolved: hop.addrs,
            };
            let d = policy::evaluate(&self.policy, &call, &ctx);
            match d.decision {
                Verdict::Allow => Ok(()),
                Verdict::Ask => Err(format!("it would need the user's approval ({})", d.reason)),
                Verdict::Deny => Err(d.reason),
            }
        })
    }
}
