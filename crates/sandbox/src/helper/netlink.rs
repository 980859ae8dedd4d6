//! Bringing up `lo` in a new network namespace (it starts down), with one rtnetlink message:
//! no `ip` program needed inside.

use nix::sys::socket::{
    AddressFamily, MsgFlags, NetlinkAddr, SockFlag, SockProtocol, SockType, bind, recv, sendto,
    socket,
};
use std::os::fd::AsRawFd as _;

const RTM_NEWLINK: u16 = 16;
const NLM_F_REQUEST: u16 = 1;
const NLM_F_ACK: u16 = 4;
const NLMSG_ERROR: u16 = 2;
const IFF_UP: u32 = 1;
/// `lo` is always interface 1 in a new namespace.
const LOOPBACK_INDEX: i32 = 1;

/// `struct nlmsghdr` followed by `struct ifinfomsg`, in the machine's byte order.
fn set_link_up_message() -> Vec<u8> {
    let mut m = Vec::with_capacity(32);
    m.extend_from_slice(&32u32.to_ne_bytes()); // nlmsg_len
    m.extend_from_slice(&RTM_NEWLINK.to_ne_bytes());
    m.extend_from_slice(&(NLM_F_REQUEST | NLM_F_ACK).to_ne_bytes());
    m.extend_from_slice(&1u32.to_ne_bytes()); // seq
    m.extend_from_slice(&0u32.to_ne_bytes()); // pid: the kernel
    m.push(0); // ifi_family: AF_UNSPEC
    m.push(0); // padding
    m.extend_from_slice(&0u16.to_ne_bytes()); // ifi_type
    m.extend_from_slice(&LOOPBACK_INDEX.to_ne_bytes());
    m.extend_from_slice(&IFF_UP.to_ne_bytes()); // ifi_flags
    m.extend_from_slice(&IFF_UP.to_ne_bytes()); // ifi_change
    m
}

pub(super) fn loopback_up() -> Result<(), String> {
    let fd = socket(
        AddressFamily::Netlink,
        SockType::Raw,
        SockFlag::SOCK_CLOEXEC,
        SockProtocol::NetlinkRoute,
    )
    .map_err(|e| format!("netlink socket: {e}"))?;
    let kernel = NetlinkAddr::new(0, 0);
    bind(fd.as_raw_fd(), &kernel).map_err(|e| format!("netlink bind: {e}"))?;
    sendto(
        fd.as_raw_fd(),
        &set_link_up_message(),
        &kernel,
        MsgFlags::empty(),
    )
    .map_err(|e| format!("netlink send: {e}"))?;
    let mut buf = [0u8; 512];
    let n = recv(fd.as_raw_fd(), &mut buf, MsgFlags::empty())
        .map_err(|e| format!("netlink receive: {e}"))?;
    // The acknowledgement is an NLMSG_ERROR whose error field (after the 16-byte header) is 0.
    let kind = buf.get(4..6).map(|b| u16::from_ne_bytes([b[0], b[1]]));
    let code = buf
        .get(16..20)
        .map(|b| i32::from_ne_bytes([b[0], b[1], b[2], b[3]]));
    match (n >= 20, kind, code) {
        (true, Some(NLMSG_ERROR), Some(0)) => Ok(()),
        (true, Some(NLMSG_ERROR), Some(c)) => Err(format!(
            "the kernel refused: {}",
            std::io::Error::from_raw_os_error(-c)
        )),
        _ => Err("the kernel's answer was not understood".into()),
    }
}
