//! The seccomp filter: system calls a command in the sandbox never needs and that could reach
//! past it (tracing other processes, the kernel keyring, new namespaces, mounts, typing into a
//! terminal, loading kernel code, vsock without the network) fail with EPERM.

use super::{SetupError, step};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};
use std::collections::BTreeMap;

const DENIED: &[i64] = &[
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_reboot,
    libc::SYS_acct,
    libc::SYS_quotactl,
    libc::SYS_setns,
    libc::SYS_unshare,
    libc::SYS_open_by_handle_at,
    libc::SYS_name_to_handle_at,
    libc::SYS_syslog,
];

/// `ioctl` requests that push input into a terminal (TIOCSTI) or poke the console (TIOCLINUX).
const DENIED_IOCTLS: &[u64] = &[0x5412, 0x541C];

const NAMESPACE_FLAGS: &[u64] = &[
    libc::CLONE_NEWUSER as u64,
    libc::CLONE_NEWNS as u64,
    libc::CLONE_NEWPID as u64,
    libc::CLONE_NEWNET as u64,
    libc::CLONE_NEWIPC as u64,
    libc::CLONE_NEWUTS as u64,
    libc::CLONE_NEWCGROUP as u64,
];

fn cond(arg: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, SetupError> {
    SeccompCondition::new(arg, SeccompCmpArgLen::Qword, op, value)
        .map_err(step("building the seccomp filter"))
}

fn rule(c: SeccompCondition) -> Result<SeccompRule, SetupError> {
    SeccompRule::new(vec![c]).map_err(step("building the seccomp filter"))
}

/// Socket families the network namespace does not separate: a VM's or the host's vsock
/// services would be reachable with the network off.
const UNNAMESPACED_FAMILIES: &[u64] = &[libc::AF_VSOCK as u64];

pub(super) fn install(network: bool) -> Result<(), SetupError> {
    let arch = TargetArch::try_from(std::env::consts::ARCH)
        .map_err(step("choosing the seccomp architecture"))?;
    let mut denied: BTreeMap<i64, Vec<SeccompRule>> =
        DENIED.iter().map(|&n| (n, Vec::new())).collect();
    let mut ioctl = Vec::new();
    for &req in DENIED_IOCTLS {
        ioctl.push(rule(
            SeccompCondition::new(1, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, req)
                .map_err(step("building the seccomp filter"))?,
        )?);
    }
    denied.insert(libc::SYS_ioctl, ioctl);
    let mut clone = Vec::new();
    for &flag in NAMESPACE_FLAGS {
        clone.push(rule(cond(0, SeccompCmpOp::MaskedEq(flag), flag)?)?);
    }
    denied.insert(libc::SYS_clone, clone);
    if !network {
        let mut socket = Vec::new();
        for &family in UNNAMESPACED_FAMILIES {
            socket.push(rule(
                SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, family)
                    .map_err(step("building the seccomp filter"))?,
            )?);
        }
        denied.insert(libc::SYS_socket, socket);
    }
    let deny = SeccompFilter::new(
        denied,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(step("building the seccomp filter"))?;
    // clone3 takes its flags in memory, which a filter cannot read: "not implemented" makes
    // the C library fall back to clone, whose flags it can.
    let clone3 = SeccompFilter::new(
        BTreeMap::from([(libc::SYS_clone3, Vec::new())]),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch,
    )
    .map_err(step("building the seccomp filter"))?;
    for f in [deny, clone3] {
        let prog = BpfProgram::try_from(f).map_err(step("compiling the seccomp filter"))?;
        seccompiler::apply_filter(&prog).map_err(step("installing the seccomp filter"))?;
    }
    Ok(())
}
