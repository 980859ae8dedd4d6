//! The machine itself: the administrator's tools, what formats disks or stops the machine,
//! what changes the system's settings, and stopping processes.

use crate::command::Judge;
use crate::shell::Word;

/// Programs that run commands as the administrator.
pub const ADMIN: &[&str] = &["sudo", "doas", "su", "pkexec", "run0", "runuser", "sg"];

/// Programs that format, wipe or repartition disks, or stop the machine.
pub const MACHINE_KILLERS: &[&str] = &[
    "mke2fs",
    "mkswap",
    "mkdosfs",
    "mkntfs",
    "mkfs",
    "wipefs",
    "fdisk",
    "sfdisk",
    "cfdisk",
    "gdisk",
    "sgdisk",
    "parted",
    "blkdiscard",
    "killall5",
];

/// Programs that change the system (mounts, modules, network setup, users, scheduled jobs):
/// always a question.
pub const SYSTEM_CHANGERS: &[&str] = &[
    "mount",
    "umount",
    "swapon",
    "swapoff",
    "modprobe",
    "insmod",
    "rmmod",
    "sysctl",
    "ip",
    "ifconfig",
    "iptables",
    "ip6tables",
    "nft",
    "ufw",
    "firewall-cmd",
    "useradd",
    "userdel",
    "usermod",
    "groupadd",
    "groupdel",
    "passwd",
    "chpasswd",
    "chsh",
    "visudo",
    "at",
    "batch",
    "systemd-run",
    "launchctl",
    "service",
    "update-rc.d",
    "chroot",
    "unshare",
    "nsenter",
    "setcap",
    "losetup",
    "cryptsetup",
    "dmsetup",
    "xdg-open",
    "open",
];

/// Commands of `systemctl` / `loginctl` that stop or restart the machine or end sessions.
pub const POWER: &[&str] = &[
    "poweroff",
    "reboot",
    "halt",
    "kexec",
    "suspend",
    "hibernate",
    "hybrid-sleep",
    "suspend-then-hibernate",
    "emergency",
    "rescue",
    "isolate",
    "default",
    "soft-reboot",
    "kill-session",
    "kill-user",
    "terminate-session",
    "terminate-user",
];

/// `kill`: job numbers of this shell are its own business; `-1` is every process you own.
pub fn kill(j: &mut Judge, words: &[Word]) {
    let lit: Vec<Option<&str>> = words.iter().skip(1).map(Word::literal).collect();
    if lit
        .iter()
        .any(|a| matches!(a, Some("-l") | Some("-L") | Some("--list")))
    {
        return;
    }
    let mut targets = Vec::new();
    let mut skip = false;
    for a in &lit {
        if skip {
            skip = false;
            continue;
        }
        match a {
            Some("-s") | Some("-n") => skip = true,
            Some("-1") if !targets.is_empty() || lit.len() == 1 => targets.push("-1"),
            Some(x) if x.starts_with('-') && targets.is_empty() => {}
            Some(x) => targets.push(x),
            None => targets.push("?"),
        }
    }
    // `kill -9 -1`: the `-1` after a signal is the target.
    if lit.len() >= 2 && lit.last() == Some(&Some("-1")) {
        targets.push("-1");
    }
    if targets.iter().any(|t| *t == "-1" || *t == "0") {
        j.deny(
            "“kill” with “-1” or “0” stops every process you own or the whole group",
            "kill everything",
        );
    } else if targets.iter().any(|t| !t.starts_with('%')) {
        j.ask(
            "“kill” stops a process that may not belong to this task",
            "stop a process",
        );
    }
}
