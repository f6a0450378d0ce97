"""The seccomp filter of the bot sandbox: a classic-BPF program assembled here, no library.

:func:`bot_filter` returns the raw ``struct sock_filter`` array that bubblewrap loads with
``--seccomp FD`` just before it execs the bot (after ``PR_SET_NO_NEW_PRIVS``). The filter:

- kills the process for any architecture but x86-64 (no i386 or other ABI entry points),
  and refuses x32 system calls (numbers with bit 30 set) with ``EPERM``;
- refuses with ``EPERM`` what a bot never needs: joining or making namespaces (``setns``,
  ``unshare``, ``clone`` with a ``CLONE_NEW*`` flag), mounts of any kind, ``ptrace`` and
  cross-process memory access, ``bpf``, the kernel keyring, ``kexec_*``, ``io_uring_*``,
  ``perf_event_open``, ``userfaultfd``, module loading, clock and host changes,
  ``TIOCSTI``/``TIOCLINUX`` on terminals, and sockets other than Unix, IPv4 and IPv6 or of
  the raw type;
- answers ``clone3`` with ``ENOSYS`` (its flags are in memory a filter cannot read; the C
  library then falls back to ``clone``, whose flags are checked);
- allows everything else.
"""

from __future__ import annotations

import errno
import struct
from dataclasses import dataclass

AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000

# BPF opcodes (linux/filter.h, linux/bpf_common.h).
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_AND_K = 0x54
_RET_K = 0x06

SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_ALLOW = 0x7FFF0000

# struct seccomp_data offsets: nr, arch, instruction_pointer, args[6] (little-endian u64).
_NR, _ARCH = 0, 4


def _arg_low(index: int) -> int:
    return 16 + 8 * index


#: x86-64 system calls refused with EPERM (name: number, from asm/unistd_64.h).
DENIED: dict[str, int] = {
    "ptrace": 101,
    "syslog": 103,
    "personality": 135,
    "vhangup": 153,
    "modify_ldt": 154,
    "pivot_root": 155,
    "adjtimex": 159,
    "chroot": 161,
    "acct": 163,
    "settimeofday": 164,
    "mount": 165,
    "umount2": 166,
    "swapon": 167,
    "swapoff": 168,
    "reboot": 169,
    "sethostname": 170,
    "setdomainname": 171,
    "iopl": 172,
    "ioperm": 173,
    "init_module": 175,
    "delete_module": 176,
    "quotactl": 179,
    "lookup_dcookie": 212,
    "clock_settime": 227,
    "kexec_load": 246,
    "add_key": 248,
    "request_key": 249,
    "keyctl": 250,
    "unshare": 272,
    "move_pages": 279,
    "perf_event_open": 298,
    "fanotify_init": 300,
    "name_to_handle_at": 303,
    "open_by_handle_at": 304,
    "clock_adjtime": 305,
    "setns": 308,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "kcmp": 312,
    "finit_module": 313,
    "kexec_file_load": 320,
    "bpf": 321,
    "userfaultfd": 323,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "pidfd_getfd": 438,
    "mount_setattr": 442,
}
SYS_CLONE, SYS_CLONE3, SYS_SOCKET, SYS_IOCTL = 56, 435, 41, 16

#: CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET | NEWTIME.
CLONE_NEW_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000
CLONE_NEW_FLAGS |= 0x10000000 | 0x20000000 | 0x40000000 | 0x00000080
ALLOWED_SOCKET_FAMILIES = (1, 2, 10)  # AF_UNIX, AF_INET, AF_INET6
SOCK_TYPE_MASK, SOCK_RAW, SOCK_PACKET = 0xF, 3, 10
DENIED_IOCTLS = (0x5412, 0x541C)  # TIOCSTI, TIOCLINUX


@dataclass(frozen=True, slots=True)
class _Insn:
    code: int
    k: int
    #: Labels to jump to when true / false (None: the next instruction).
    jt: str | None = None
    jf: str | None = None
    label: str | None = None


def _assemble(program: list[_Insn]) -> bytes:
    """Resolve labels into relative jump offsets and pack ``struct sock_filter``s."""
    where = {insn.label: i for i, insn in enumerate(program) if insn.label}
    out = bytearray()
    for i, insn in enumerate(program):

        def offset(label: str | None, i: int = i) -> int:
            if label is None:
                return 0
            delta = where[label] - i - 1
            if not 0 <= delta <= 255:
                raise ValueError(f"jump to {label} out of range ({delta})")
            return delta

        out += struct.pack("<HBBI", insn.code, offset(insn.jt), offset(insn.jf), insn.k)
    return bytes(out)


def bot_filter() -> bytes:
    """The filter program as bytes for bubblewrap's ``--seccomp FD``."""
    eperm = SECCOMP_RET_ERRNO | errno.EPERM
    p = [
        _Insn(_LD_W_ABS, _ARCH),
        _Insn(_JEQ_K, AUDIT_ARCH_X86_64, jt="nr", jf="kill"),
        _Insn(_LD_W_ABS, _NR, label="nr"),
        _Insn(_JGE_K, X32_SYSCALL_BIT, jt="deny"),
        _Insn(_JEQ_K, SYS_CLONE3, jt="enosys"),
        _Insn(_JEQ_K, SYS_CLONE, jt="clone"),
        _Insn(_JEQ_K, SYS_SOCKET, jt="socket"),
        _Insn(_JEQ_K, SYS_IOCTL, jt="ioctl"),
    ]
    p += [_Insn(_JEQ_K, nr, jt="deny") for nr in sorted(DENIED.values())]
    p += [
        _Insn(_RET_K, SECCOMP_RET_ALLOW),
        _Insn(_LD_W_ABS, _arg_low(0), label="clone"),
        _Insn(_JSET_K, CLONE_NEW_FLAGS, jt="deny"),
        _Insn(_RET_K, SECCOMP_RET_ALLOW),
        _Insn(_LD_W_ABS, _arg_low(0), label="socket"),
    ]
    p += [_Insn(_JEQ_K, family, jt="socktype") for family in ALLOWED_SOCKET_FAMILIES]
    p += [
        _Insn(_RET_K, eperm),
        _Insn(_LD_W_ABS, _arg_low(1), label="socktype"),
        _Insn(_AND_K, SOCK_TYPE_MASK),
        _Insn(_JEQ_K, SOCK_RAW, jt="deny"),
        _Insn(_JEQ_K, SOCK_PACKET, jt="deny"),
        _Insn(_RET_K, SECCOMP_RET_ALLOW),
        _Insn(_LD_W_ABS, _arg_low(1), label="ioctl"),
    ]
    p += [_Insn(_JEQ_K, request, jt="deny") for request in DENIED_IOCTLS]
    p += [
        _Insn(_RET_K, SECCOMP_RET_ALLOW),
        _Insn(_RET_K, eperm, label="deny"),
        _Insn(_RET_K, SECCOMP_RET_ERRNO | errno.ENOSYS, label="enosys"),
        _Insn(_RET_K, SECCOMP_RET_KILL_PROCESS, label="kill"),
    ]
    return _assemble(p)
