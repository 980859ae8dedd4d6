//! Whether an address or a host name is this machine, the private network or a cloud metadata
//! service: written once here, so the engine, the fetch tool and the agent agree on it.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Host names that always mean this machine, the local network or a cloud's metadata service.
const PRIVATE_NAMES: &[&str] = &[
    "localhost",
    "localhost.localdomain",
    "ip6-localhost",
    "ip6-loopback",
    "metadata",
    "metadata.google.internal",
    "instance-data",
];

/// Suffixes that only resolve inside a machine or a private network.
const PRIVATE_SUFFIXES: &[&str] = &[".localhost", ".local", ".internal", ".home.arpa", ".lan"];

/// Whether an address is loopback, private, link-local, unique-local, carrier-grade NAT,
/// unspecified, broadcast, multicast, reserved or a metadata service — including IPv4 addresses
/// carried inside IPv6 ones (`::ffff:127.0.0.1`, NAT64 `64:ff9b::…`, 6to4 `2002:…`, Teredo).
pub fn is_private_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_private_v4(v4),
        IpAddr::V6(v6) => is_private_v6(v6),
    }
}

fn is_private_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        // 0.0.0.0/8 "this network", which Linux routes to this machine.
        || a == 0
        // 100.64.0.0/10: carrier-grade NAT (and Alibaba's metadata service, 100.100.100.200).
        || (a == 100 && (64..128).contains(&b))
        // 192.0.0.0/24: protocol assignments; 198.18.0.0/15: benchmarking networks.
        || (a == 192 && b == 0 && c == 0)
        || (a == 198 && (b == 18 || b == 19))
        // 240.0.0.0/4: reserved.
        || a >= 240
}

fn is_private_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = embedded_v4(ip) {
        return is_private_v4(v4);
    }
    let s = ip.segments();
    ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        // fc00::/7 unique-local (AWS's metadata service is fd00:ec2::254).
        || (s[0] & 0xfe00) == 0xfc00
        // fe80::/10 link-local and the deprecated fec0::/10 site-local.
        || (s[0] & 0xffc0) == 0xfe80
        || (s[0] & 0xffc0) == 0xfec0
        // 64:ff9b:1::/48: NAT64 for local use only.
        || (s[0] == 0x64 && s[1] == 0xff9b && s[2] == 1)
}

/// The IPv4 address an IPv6 one stands for, when it carries one.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let tail = |hi: u16, lo: u16| {
        let [a, b] = hi.to_be_bytes();
        let [c, d] = lo.to_be_bytes();
        Ipv4Addr::new(a, b, c, d)
    };
    if let Some(v4) = ip.to_ipv4_mapped() {
        return Some(v4);
    }
    match s {
        // IPv4-compatible (deprecated) `::a.b.c.d`, but not `::` or `::1`.
        [0, 0, 0, 0, 0, 0, hi, lo] if hi != 0 => Some(tail(hi, lo)),
        // NAT64 well-known prefix 64:ff9b::/96.
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => Some(tail(hi, lo)),
        // 6to4 2002:AABB:CCDD::/48.
        [0x2002, hi, lo, ..] => Some(tail(hi, lo)),
        // Teredo 2001:0::/32: the client's address, inverted, in the last 32 bits.
        [0x2001, 0, _, _, _, _, hi, lo] => Some(tail(!hi, !lo)),
        _ => None,
    }
}

/// Whether a host name (as written in a URL, brackets and trailing dots allowed) is this
/// machine, the private network or a metadata service. IPv4 addresses in any spelling the URL
/// standard accepts count (`127.1`, `0x7f.1`, `2130706433`); `127.0.0.1.evil.example` is a
/// name, not an address.
pub fn is_private_host(host: &str) -> bool {
    let host = host.trim().to_ascii_lowercase();
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return is_private_ip(ip);
    }
    let name = bare.trim_end_matches('.');
    if name.is_empty() {
        return true;
    }
    if PRIVATE_NAMES.contains(&name) || PRIVATE_SUFFIXES.iter().any(|s| name.ends_with(s)) {
        return true;
    }
    // What the URL standard reads as an IPv4 address (decimal, octal, hex, shortened forms).
    match url::Host::parse(name) {
        Ok(url::Host::Ipv4(v4)) => is_private_v4(v4),
        Ok(url::Host::Ipv6(v6)) => is_private_v6(v6),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_addresses_in_every_spelling() {
        for h in [
            "localhost",
            "localhost.",
            "LOCALHOST",
            "api.localhost",
            "printer.local",
            "metadata",
            "metadata.google.internal",
            "metadata.google.internal.",
            "instance-data",
            "127.0.0.1",
            "127.1",
            "0x7f.1",
            "2130706433",
            "0177.0.0.1",
            "2852039166",
            "0.0.0.0",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.100.100.200",
            "[::1]",
            "::",
            "[::ffff:127.0.0.1]",
            "[::ffff:169.254.169.254]",
            "[64:ff9b::a9fe:a9fe]",
            "[64:ff9b::7f00:1]",
            "[2002:7f00:1::]",
            "[fd00:ec2::254]",
            "[fe80::1]",
        ] {
            assert!(is_private_host(h), "{h}");
        }
        for h in [
            "docs.rs",
            "127.0.0.1.evil.example",
            "8.8.8.8",
            "[2606:4700::1111]",
            "[64:ff9b::808:808]",
            "localhost.evil.example",
        ] {
            assert!(!is_private_host(h), "{h}");
        }
    }
}
