"""The probe bot of ``hamlet worker --check-sandbox``: run *inside* the sandbox like an
uploaded bot (standard library only, never imported by the worker), it answers one frame
with what it can see and do, as JSON. :mod:`workers.sandbox_check` judges the answer.
"""

import ctypes
import json
import os
import struct
import sys


def _status() -> dict[str, str]:
    with open("/proc/self/status") as f:
        return dict(line.split(":\t", 1) for line in f.read().splitlines() if ":\t" in line)


def _errno_of(call: str, *args: int) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    return 0 if getattr(libc, call)(*args) == 0 else ctypes.get_errno()


def _writable(path: str) -> bool:
    try:
        with open(os.path.join(path, ".probe"), "w"):
            return True
    except OSError:
        return False


def facts() -> dict[str, object]:
    """What the sandbox looks like from inside."""
    status = _status()
    with open("/proc/net/dev") as f:
        interfaces = [line.split(":")[0].strip() for line in f.read().splitlines()[2:]]
    tmp = os.statvfs("/tmp")
    return {
        "uid": os.getuid(),
        "cap_eff": int(status["CapEff"], 16),
        "cap_bnd": int(status["CapBnd"], 16),
        "no_new_privs": status.get("NoNewPrivs", "").strip() == "1",
        "seccomp": status.get("Seccomp", "").strip(),
        "unshare_errno": _errno_of("unshare", 0x10000000),
        "setns_errno": _errno_of("setns", 0, 0),
        "root": sorted(os.listdir("/")),
        "root_writable": _writable("/"),
        "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
        "pid": os.getpid(),
        "interfaces": interfaces,
        "tmp_bytes": tmp.f_blocks * tmp.f_frsize,
        "tmp_writable": _writable("/tmp"),
    }


if __name__ == "__main__":
    head = sys.stdin.buffer.read(4)
    sys.stdin.buffer.read(struct.unpack(">I", head)[0])
    data = json.dumps(facts()).encode()
    sys.stdout.buffer.write(struct.pack(">I", len(data)) + data)
    sys.stdout.buffer.flush()
