//! Fetches are judged on what they really reach: the host is looked up once before the policy
//! sees the call, the request goes to the addresses judged, and every redirect is judged again
//! before it is followed.

use policy::{Context, Mode, Policy, ToolCall, Verdict};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tools::{Hop, HopGate};

/// The addresses a fetch of `url` looks its host up to. `Ok(empty)` when the URL is not one
/// the policy would let through anyway (it refuses it with its own words); `Err` when the host
/// cannot be found.
pub async fn resolve_fetch(url: &str) -> Result<Vec<IpAddr>, String> {
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
    /// The fetch as it was cleared to start (allowed, or approved by the person): its origin
    /// and the addresses its host was judged with.
    pub cleared: Option<(String, Vec<IpAddr>)>,
}

/// `scheme://host:port` of a URL, the port spelled out.
pub fn origin(url: &str) -> Option<String> {
    let (scheme, _) = url.split_once("://")?;
    let (host, port) = tools::fetch_host(url)?;
    Some(format!("{}://{host}:{port}", scheme.to_ascii_lowercase()))
}

impl FetchJudge {
    /// Lets a redirect through when the policy would allow fetching it outright, or when it
    /// stays within the fetch the person cleared: there is nobody to ask in the middle of a
    /// request. A denied place is never reached.
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
            // A redirect within what was cleared (the same origin, to addresses judged then)
            // is what the person approved: a local server's /login → /home could otherwise
            // never be followed, as nobody can be asked in the middle of a request.
            let within_cleared = self.cleared.as_ref().is_some_and(|(from, addrs)| {
                origin(hop.url).as_ref() == Some(from)
                    && hop.addrs.iter().all(|a| addrs.contains(a))
            });
            match d.decision {
                Verdict::Allow => Ok(()),
                Verdict::Ask if within_cleared => Ok(()),
                Verdict::Ask => Err(format!("it would need the user's approval ({})", d.reason)),
                Verdict::Deny => Err(d.reason),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn judge(cleared: Option<(String, Vec<IpAddr>)>) -> HopGate {
        FetchJudge {
            policy: Policy::builtin(),
            mode: Mode::Ask,
            root: PathBuf::from("/project"),
            home: None,
            user_policy_file: None,
            sandboxed: true,
            cleared,
        }
        .gate()
    }

    /// Issue 25: a redirect from an approved loopback URL could never be approved (nobody can
    /// be asked mid-request). One within the origin the person approved, to the addresses
    /// judged then, is followed; anywhere else still is not.
    #[test]
    fn a_redirect_within_the_approved_origin_is_followed_and_no_further() {
        let local = vec![IpAddr::V4(Ipv4Addr::LOCALHOST)];
        let hop = |url: &'static str, addrs: &'static [IpAddr]| Hop {
            url,
            method: "GET",
            addrs,
        };
        const HERE: &[IpAddr] = &[IpAddr::V4(Ipv4Addr::LOCALHOST)];
        const ELSEWHERE: &[IpAddr] = &[IpAddr::V4(Ipv4Addr::new(10, 0, 0, 5))];
        let cleared = origin("http://127.0.0.1:8080/login").map(|o| (o, local));
        assert_eq!(
            cleared.as_ref().map(|c| c.0.as_str()),
            Some("http://127.0.0.1:8080")
        );

        let gate = judge(cleared);
        assert!(gate(&hop("http://127.0.0.1:8080/home", HERE)).is_ok());
        let other_port = gate(&hop("http://127.0.0.1:9090/admin", HERE)).expect_err("refused");
        assert!(other_port.contains("approval"), "{other_port}");
        assert!(gate(&hop("http://127.0.0.1:8080/home", ELSEWHERE)).is_err());
        assert!(gate(&hop("https://127.0.0.1:8080/home", HERE)).is_err());
        // Nothing cleared (as before): the same redirect needs a question nobody can answer.
        assert!(judge(None)(&hop("http://127.0.0.1:8080/home", HERE)).is_err());
    }
}
