//! `evaluate`: one call, the rules and the situation in; Allow, Ask or Deny out, with the rule
//! that decided.

use crate::call::{Context, ToolCall, Walked};
use crate::command::judge_command;
use crate::decision::{Decision, Finding, RuleRef, Verdict, decide};
use crate::hosts::{is_private_host, is_private_ip};
use crate::mode::Mode;
use crate::paths::{Access, judge_path};
use crate::rules::{NetworkMode, Policy};
use crate::source::Source;
use crate::suggest;
use std::net::IpAddr;
use std::path::Path;

/// Judges one tool call. Pure: no I/O beyond the resolver the context carries.
pub fn evaluate(policy: &Policy, call: &ToolCall<'_>, ctx: &Context<'_>) -> Decision {
    let mut decision = judge(policy, call, ctx);
    // A suggestion is a promise: granted, this call runs without asking. One that another
    // finding would still overrule (a redirect writing a file, a floor) is not offered, or the
    // user clicks "always" and is asked again the next time.
    if decision.decision == Verdict::Ask && !decision.suggestions.is_empty() {
        decision
            .suggestions
            .retain(|s| grant_allows(policy, &s.grant, call, ctx));
    }
    decision
}

fn grant_allows(
    policy: &Policy,
    grant: &crate::decision::Grant,
    call: &ToolCall<'_>,
    ctx: &Context<'_>,
) -> bool {
    let mut granted = policy.clone();
    granted.grant(grant).is_ok() && judge(&granted, call, ctx).decision == Verdict::Allow
}

fn judge(policy: &Policy, call: &ToolCall<'_>, ctx: &Context<'_>) -> Decision {
    let mode = ctx.mode.unwrap_or(policy.mode.value);
    let findings = match call {
        ToolCall::Read { path } => judge_read(policy, ctx, path),
        ToolCall::Write { path, diff_lines } => judge_write(policy, ctx, mode, path, *diff_lines),
        ToolCall::Command { command } => judge_command(policy, ctx, mode, command),
        ToolCall::Fetch {
            url,
            method,
            resolved,
        } => judge_fetch(policy, mode, url, method, resolved),
        ToolCall::WebSearch => judge_search(policy, mode),
        ToolCall::GitCommit { diff_lines } => {
            let mut f = thresholds(policy, ctx, *diff_lines);
            f.push(by_mode(mode, "committing", Vec::new()));
            f
        }
        ToolCall::GitBranch { changes: false } => vec![Finding::floor(
            Verdict::Allow,
            "listing branches only reads",
            "read-only tool",
        )],
        ToolCall::GitBranch { changes: true } => {
            vec![by_mode(mode, "creating or switching branches", Vec::new())]
        }
        ToolCall::PullRequest => vec![match mode {
            Mode::ReadOnly => Finding::floor(
                Verdict::Deny,
                "a pull request changes things on the server, so it is not made in Read only mode",
                "read_only mode",
            ),
            _ => Finding::floor(
                Verdict::Ask,
                "a pull request changes things on the server, so it always needs your approval (built-in rule)",
                "create_pull_request",
            ),
        }],
        ToolCall::ServerTool { name } => judge_server_tool(policy, mode, name),
        ToolCall::Internal { name } => vec![Finding::floor(
            Verdict::Allow,
            format!("“{name}” has no effect outside the agent"),
            "internal tool",
        )],
    };
    decide(findings).unwrap_or_else(|| Decision {
        decision: Verdict::Ask,
        reason: "no rule decided this call, so it needs your approval".into(),
        rule: RuleRef {
            name: "default".into(),
            source: Source::Builtin,
        },
        suggestions: Vec::new(),
        sandbox: Default::default(),
    })
}

fn unresolvable(path: &str) -> Vec<Finding> {
    vec![Finding::floor(
        Verdict::Ask,
        format!("“{path}” cannot be resolved to a file without running a shell"),
        "unresolvable path",
    )]
}

fn judge_read(policy: &Policy, ctx: &Context, path: &str) -> Vec<Finding> {
    let Some(abs) = ctx.resolve(path) else {
        return unresolvable(path);
    };
    let mut f = judge_path(policy, ctx, &abs, Access::Read);
    f.push(Finding::floor(
        Verdict::Allow,
        "reading is always allowed",
        "read-only tool",
    ));
    f
}

fn judge_write(
    policy: &Policy,
    ctx: &Context,
    mode: Mode,
    path: &str,
    diff_lines: u32,
) -> Vec<Finding> {
    let Some(walked) = ctx.walk(path) else {
        return unresolvable(path);
    };
    if let Some(link) = &walked.climbed_link {
        return vec![climbs_link(ctx, path, link, &walked)];
    }
    let abs = walked.real;
    let mut f = judge_path(policy, ctx, &abs, Access::Write);
    f.extend(thresholds(policy, ctx, diff_lines));
    let rel = ctx.relative(&abs).unwrap_or_default();
    if mode == Mode::Ask
        && let Some(rule) = policy
            .paths
            .allow_write
            .iter()
            .find(|r| r.glob.is_match(&rel))
    {
        f.push(
            Finding::new(
                Verdict::Allow,
                format!("edits to “{rel}” are allowed ({})", rule.source.label()),
                format!("paths.allow_write \"{}\"", rule.text),
                rule.source.clone(),
            )
            .with_specificity(rule.text.len()),
        );
        return f;
    }
    f.push(by_mode(
        mode,
        &format!("editing “{rel}”"),
        suggest::write(&rel),
    ));
    f
}

/// A path whose `..` climbs out of a link: the system follows the link before it applies the
/// `..`, so the file lands beside where the link leads, not where the path reads.
fn climbs_link(ctx: &Context, path: &str, link: &Path, walked: &Walked) -> Finding {
    let shown = |p: &Path| {
        ctx.relative(p)
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| p.display().to_string())
    };
    let lands = walked
        .real
        .parent()
        .map_or_else(|| shown(&walked.real), shown);
    let plain = shown(&walked.lexical);
    Finding::floor(
        Verdict::Deny,
        format!(
            "“{path}” goes through “{}”, a link to another folder, and then “..”: the system follows the link first, so the file would be written in “{lands}”, not as “{plain}” in the project; name the file without “..” (here “{plain}”) (built-in rule)",
            shown(link)
        ),
        "path through a link",
    )
}

/// What the mode says about a change that no rule decided.
fn by_mode(mode: Mode, what: &str, suggestions: Vec<crate::decision::Suggestion>) -> Finding {
    match mode {
        Mode::ReadOnly => Finding::floor(
            Verdict::Deny,
            format!("{what} is not allowed in Read only mode"),
            "read_only mode",
        ),
        Mode::Ask => Finding::floor(
            Verdict::Ask,
            format!("in Ask mode, {what} needs your approval"),
            "ask mode",
        )
        .with_suggestions(suggestions),
        Mode::AutoEdit | Mode::FullAuto => Finding::floor(
            Verdict::Allow,
            format!("{} mode allows {what}", mode.label()),
            &format!("{mode} mode"),
        ),
    }
}

/// The session's cumulative diff against `max_diff_lines` (deny) and `require_approval_above`
/// (ask, whatever the mode).
fn thresholds(policy: &Policy, ctx: &Context, diff_lines: u32) -> Vec<Finding> {
    let total = ctx.session_diff_lines.saturating_add(diff_lines);
    let mut f = Vec::new();
    if total > policy.max_diff_lines.value {
        f.push(Finding::new(
            Verdict::Deny,
            format!(
                "this session would have {total} changed lines since you last committed, over the limit of {}; review what is there and commit it yourself, then go on",
                policy.max_diff_lines.value
            ),
            "max_diff_lines",
            policy.max_diff_lines.source.clone(),
        ));
    } else if total > policy.require_approval_above.value {
        f.push(Finding::new(
            Verdict::Ask,
            format!(
                "this session has {total} changed lines since you last committed, more than {}, so every further change needs your approval until you commit them",
                policy.require_approval_above.value
            ),
            "require_approval_above",
            policy.require_approval_above.source.clone(),
        ));
    }
    f
}

fn domain_matches(host: &str, domain: &str) -> bool {
    host == domain || host.ends_with(&format!(".{domain}"))
}

fn judge_fetch(
    policy: &Policy,
    mode: Mode,
    url: &str,
    method: &str,
    resolved: &[IpAddr],
) -> Vec<Finding> {
    let parsed = match url::Url::parse(url) {
        Ok(u) => u,
        Err(e) => {
            return vec![Finding::floor(
                Verdict::Deny,
                format!("“{url}” is not a valid URL ({e})"),
                "invalid URL",
            )];
        }
    };
    if !matches!(parsed.scheme(), "http" | "https") {
        return vec![Finding::floor(
            Verdict::Deny,
            format!(
                "only http and https can be fetched, not “{}:”",
                parsed.scheme()
            ),
            "URL scheme",
        )];
    }
    // The URL standard has already read `0x7f.1`, `2852039166` and `127.1` as addresses.
    let (host, private) = match parsed.host() {
        Some(url::Host::Domain(d)) => {
            let d = d.to_ascii_lowercase();
            let name = d.trim_end_matches('.').to_string();
            let private = is_private_host(&d);
            (name, private)
        }
        Some(url::Host::Ipv4(ip)) => (ip.to_string(), is_private_ip(IpAddr::V4(ip))),
        Some(url::Host::Ipv6(ip)) => (format!("[{ip}]"), is_private_ip(IpAddr::V6(ip))),
        None => {
            return vec![Finding::floor(
                Verdict::Deny,
                format!("“{url}” names no host"),
                "invalid URL",
            )];
        }
    };
    // A local address is named with its port ("127.0.0.1:8080"): the person's own server is
    // lifted by a rule naming it, never every server on the machine.
    let port = parsed.port_or_known_default().unwrap_or(0);
    let local = format!("{host}:{port}");
    let named_local = policy
        .web
        .allowed_domains
        .iter()
        .find(|d| d.domain == local || d.domain == host);
    let mut f = Vec::new();
    if let Some(d) = policy
        .web
        .denied_domains
        .iter()
        .find(|d| domain_matches(&host, &d.domain))
    {
        f.push(Finding::new(
            Verdict::Deny,
            format!("“{host}” is a blocked domain ({})", d.source.label()),
            format!("network.denied_domains \"{}\"", d.domain),
            d.source.clone(),
        ));
    }
    let leads_to = resolved.iter().find(|ip| is_private_ip(**ip));
    if (private || leads_to.is_some()) && named_local.is_none() {
        let reason = match leads_to.filter(|_| !private) {
            None => format!(
                "“{local}” is on this machine or your private network; reaching it needs your approval (built-in rule)"
            ),
            Some(ip) => format!(
                "“{host}” leads to {ip}, on this machine or your private network; reaching it needs your approval (built-in rule)"
            ),
        };
        f.push(
            Finding::floor(Verdict::Ask, reason, "private network")
                .with_suggestions(suggest::local_address(&local)),
        );
    }
    let method = method.trim().to_ascii_uppercase();
    let reads = method.is_empty() || method == "GET" || method == "HEAD";
    if !reads {
        match mode {
            Mode::ReadOnly => f.push(Finding::floor(
                Verdict::Deny,
                format!("a {method} request can change things on “{host}”, so it is not sent in Read only mode"),
                "read_only mode",
            )),
            Mode::Ask | Mode::AutoEdit => f.push(Finding::floor(
                Verdict::Ask,
                format!(
                    "a {method} request can change things on “{host}”, so it needs your approval"
                ),
                "request that changes things",
            )),
            Mode::FullAuto => {}
        }
    }
    if policy.network.value == NetworkMode::Deny {
        f.push(Finding::new(
            Verdict::Deny,
            "web access is turned off (network = deny)",
            "network.mode",
            policy.network.source.clone(),
        ));
        return f;
    }
    let allowed = named_local.or_else(|| {
        policy
            .web
            .allowed_domains
            .iter()
            .find(|d| domain_matches(&host, &d.domain))
    });
    // Whatever the mode, the address itself must not hand a secret to a host nobody chose.
    if allowed.is_none()
        && let Some(place) = crate::url_secrets::secret_in(&parsed)
    {
        f.push(
            Finding::floor(
                Verdict::Ask,
                format!("the address carries what looks like a secret ({place}); fetching it would send that to “{host}”, which no rule allows, so it needs your approval"),
                "secret in the address",
            )
            .with_suggestions(suggest::domain(&host)),
        );
    }
    if let Some(d) = allowed {
        f.push(
            Finding::new(
                Verdict::Allow,
                format!("“{host}” is an allowed domain ({})", d.source.label()),
                format!("network.allowed_domains \"{}\"", d.domain),
                d.source.clone(),
            )
            .with_specificity(d.domain.len()),
        );
        return f;
    }
    // A local address is offered with its port (above), never the whole machine.
    let offered = if private || leads_to.is_some() {
        suggest::local_address(&local)
    } else {
        suggest::domain(&host)
    };
    f.push(network_by_mode(
        policy,
        mode,
        &format!("fetching “{host}”"),
        offered,
    ));
    f
}

/// A tool of an MCP server: refused in Read only mode (nothing says it only reads), allowed by
/// a rule naming it or in Full auto, and otherwise put to the user with that tool as the rule
/// to grant.
fn judge_server_tool(policy: &Policy, mode: Mode, name: &str) -> Vec<Finding> {
    if mode == Mode::ReadOnly {
        return vec![Finding::floor(
            Verdict::Deny,
            format!(
                "“{name}” is a tool of an outside server that may change things, so it is not used in Read only mode"
            ),
            "read_only mode",
        )];
    }
    if let Some(rule) = policy.tools.allowed.iter().find(|r| r.name == name) {
        return vec![Finding::new(
            Verdict::Allow,
            format!("the tool “{name}” is allowed ({})", rule.source.label()),
            format!("tools.allow \"{name}\""),
            rule.source.clone(),
        )];
    }
    if mode == Mode::FullAuto {
        return vec![Finding::floor(
            Verdict::Allow,
            format!("Full auto mode allows the tool “{name}”"),
            "full_auto mode",
        )];
    }
    vec![
        Finding::floor(
            Verdict::Ask,
            format!("“{name}” is a tool of an outside server (MCP); Tandem cannot see what it does, so it needs your approval"),
            "outside tool",
        )
        .with_suggestions(suggest::tool(name)),
    ]
}

fn judge_search(policy: &Policy, mode: Mode) -> Vec<Finding> {
    if policy.network.value == NetworkMode::Deny {
        return vec![Finding::new(
            Verdict::Deny,
            "web access is turned off (network = deny)",
            "network.mode",
            policy.network.source.clone(),
        )];
    }
    if let Some(src) = &policy.web.allow_search {
        return vec![Finding::new(
            Verdict::Allow,
            "web searches were allowed",
            "allow_search",
            src.clone(),
        )];
    }
    vec![network_by_mode(
        policy,
        mode,
        "searching the web",
        suggest::search(),
    )]
}

fn network_by_mode(
    policy: &Policy,
    mode: Mode,
    what: &str,
    suggestions: Vec<crate::decision::Suggestion>,
) -> Finding {
    if mode == Mode::ReadOnly && policy.network.value != NetworkMode::Allow {
        return Finding::floor(
            Verdict::Deny,
            format!("read-only mode: {what} reaches the network"),
            "read_only mode",
        );
    }
    if policy.network.value == NetworkMode::Allow || mode == Mode::FullAuto {
        return Finding::new(
            Verdict::Allow,
            format!("{what} is allowed"),
            "network.mode",
            policy.network.source.clone(),
        );
    }
    Finding::new(
        Verdict::Ask,
        format!("{what} needs your approval"),
        "network.mode",
        policy.network.source.clone(),
    )
    .with_suggestions(suggestions)
}
