"""The seccomp filter of the bot sandbox: a classic-BPF program assembled here, no library.

:func:`bot_filter` returns the raw ``struct sock_filter`` array that bubblewrap loads with
``--seccomp FD`` just before it execs the bot (after ``PR_SET_NO_NEW_PRIVS``). It is an
allow-list (:mod:`workers.seccomp_policy` lists the calls and why each is needed):

- any architecture but x86-64 (the i386 ABI through ``int 0x80``, any other) kills the
  process; x32 system calls (numbers with bit 30 set) are refused with ``EPERM``;
- listed calls are allowed, some only with certain arguments: ``clone`` without a
  ``CLONE_NEW*`` flag, ``socket`` of the Unix, IPv4 and IPv6 families and not raw,
  ``ioctl`` but ``TIOCSTI``/``TIOCLINUX``, ``fcntl`` but its lock, lease and notify
  commands, ``futex`` with ``FUTEX_PRIVATE_FLAG`` (a shared wait answers ``EAGAIN``, a
  shared wake or requeue 0: no futex is keyed across processes, so none across seats);
- ``clone3`` and a few newer calls answer ``ENOSYS`` (the C library falls back to an older
  call this filter can inspect);
- everything else answers ``EPERM``.
"""

from __future__ import annotations

import errno
import struct
from dataclasses import dataclass

from workers.seccomp_policy import ALLOWED, ENOSYS

AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000

# BPF opcodes (linux/filter.h, linux/bpf_common.h).
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_AND_K = 0x54
_RET_K = 0x06
_JA = 0x05

SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_ALLOW = 0x7FFF0000

# struct seccomp_data offsets: nr, arch, instruction_pointer, args[6] (little-endian u64).
_NR, _ARCH = 0, 4


def _arg_low(index: int) -> int:
    return 16 + 8 * index


SYS_CLONE, SYS_SOCKET, SYS_IOCTL, SYS_FCNTL, SYS_FUTEX = 56, 41, 16, 72, 202

#: CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET | NEWTIME.
CLONE_NEW_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000
CLONE_NEW_FLAGS |= 0x10000000 | 0x20000000 | 0x40000000 | 0x00000080
ALLOWED_SOCKET_FAMILIES = (1, 2, 10)  # AF_UNIX, AF_INET, AF_INET6
SOCK_TYPE_MASK, SOCK_RAW, SOCK_PACKET = 0xF, 3, 10
DENIED_IOCTLS = (0x5412, 0x541C)  # TIOCSTI, TIOCLINUX
#: F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW (record locks on files
#: another seat sees), F_SETLEASE, F_GETLEASE, F_NOTIFY (leases and dnotify: others' opens).
DENIED_FCNTL = (5, 6, 7, 36, 37, 38, 1024, 1025, 1026)
FUTEX_PRIVATE_FLAG, FUTEX_CMD_MASK = 128, 0x7F
#: FUTEX_WAIT, FUTEX_WAIT_BITSET: a shared wait answers EAGAIN ("the value changed").
FUTEX_SHARED_WAITS = (0, 9)
#: FUTEX_WAKE, FUTEX_REQUEUE, FUTEX_CMP_REQUEUE, FUTEX_WAKE_OP, FUTEX_WAKE_BITSET: 0 woken.
FUTEX_SHARED_WAKES = (1, 3, 4, 5, 10)


@dataclass(frozen=True, slots=True)
class _Insn:
    code: int
    k: int
    #: Labels to jump to when true / false (None: the next instruction).
    jt: str | None = None
    jf: str | None = None
    label: str | None = None
    #: For an unconditional jump: the label it goes to (its ``k`` is computed).
    ja: str | None = None


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

        k = where[insn.ja] - i - 1 if insn.ja else insn.k
        out += struct.pack("<HBBI", insn.code, offset(insn.jt), offset(insn.jf), k)
    return bytes(out)


def _allow_chunks(numbers: list[int]) -> list[_Insn]:
    """``RET ALLOW`` for any of ``numbers``, in chunks that keep every jump in range."""
    out: list[_Insn] = []
    for c in range(0, len(numbers), 128):
        label = f"allow{c}"
        out += [_Insn(_JEQ_K, nr, jt=label) for nr in numbers[c : c + 128]]
        out += [_Insn(_JA, 1), _Insn(_RET_K, SECCOMP_RET_ALLOW, label=label)]
    return out


def bot_filter() -> bytes:
    """The filter program as bytes for bubblewrap's ``--seccomp FD``."""
    eperm = SECCOMP_RET_ERRNO | errno.EPERM
    special = {SYS_CLONE: "clone", SYS_SOCKET: "socket", SYS_IOCTL: "ioctl"}
    special |= {SYS_FCNTL: "fcntl", SYS_FUTEX: "futex"}
    p = [
        _Insn(_LD_W_ABS, _ARCH),
        _Insn(_JEQ_K, AUDIT_ARCH_X86_64, jt="nr"),
        _Insn(_RET_K, SECCOMP_RET_KILL_PROCESS),
        _Insn(_LD_W_ABS, _NR, label="nr"),
        _Insn(_JGE_K, X32_SYSCALL_BIT, jt="deny"),
    ]
    p += [_Insn(_JEQ_K, nr, jt="enosys") for nr in sorted(ENOSYS.values())]
    p += [_Insn(_JEQ_K, nr, jt=label) for nr, label in special.items()]
    p += [_Insn(_JA, 0, ja="list")]
    # Calls allowed by argument (their loads replace the number in A: each block returns).
    p += [
        _Insn(_LD_W_ABS, _arg_low(0), label="clone"),
        _Insn(_JSET_K, CLONE_NEW_FLAGS, jt="deny", jf="allow"),
        _Insn(_LD_W_ABS, _arg_low(0), label="socket"),
    ]
    p += [_Insn(_JEQ_K, family, jt="socktype") for family in ALLOWED_SOCKET_FAMILIES]
    p += [
        _Insn(_RET_K, eperm),
        _Insn(_LD_W_ABS, _arg_low(1), label="socktype"),
        _Insn(_AND_K, SOCK_TYPE_MASK),
        _Insn(_JEQ_K, SOCK_RAW, jt="deny"),
        _Insn(_JEQ_K, SOCK_PACKET, jt="deny", jf="allow"),
        _Insn(_LD_W_ABS, _arg_low(1), label="ioctl"),
    ]
    p += [_Insn(_JEQ_K, request, jt="deny") for request in DENIED_IOCTLS]
    p += [_Insn(_JA, 0, ja="allow"), _Insn(_LD_W_ABS, _arg_low(1), label="fcntl")]
    p += [_Insn(_JEQ_K, cmd, jt="deny") for cmd in DENIED_FCNTL]
    p += [
        _Insn(_JA, 0, ja="allow"),
        _Insn(_LD_W_ABS, _arg_low(1), label="futex"),
        _Insn(_JSET_K, FUTEX_PRIVATE_FLAG, jt="allow"),
        _Insn(_AND_K, FUTEX_CMD_MASK),
    ]
    p += [_Insn(_JEQ_K, op, jt="eagain") for op in FUTEX_SHARED_WAITS]
    p += [_Insn(_JEQ_K, op, jt="zero") for op in FUTEX_SHARED_WAKES]
    p += [
        _Insn(_RET_K, eperm, label="deny"),
        _Insn(_RET_K, SECCOMP_RET_ALLOW, label="allow"),
        _Insn(_RET_K, SECCOMP_RET_ERRNO | errno.ENOSYS, label="enosys"),
        _Insn(_RET_K, SECCOMP_RET_ERRNO | errno.EAGAIN, label="eagain"),
        _Insn(_RET_K, SECCOMP_RET_ERRNO, label="zero"),  # errno 0: the call returns 0
        _Insn(_LD_W_ABS, _NR, label="list"),
    ]
    listed = sorted(nr for nr in ALLOWED.values() if nr not in special)
    p += _allow_chunks(listed)
    p += [_Insn(_RET_K, eperm)]
    return _assemble(p)
