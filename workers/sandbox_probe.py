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


def _channels() -> dict[str, object]:
    """What a bot could share with another seat: locks, file events, futexes, counters."""
    import fcntl

    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    fd = os.open(sys.executable, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        flock = 0
    except OSError as exc:
        flock = exc.errno or 0
    os.close(fd)
    word = ctypes.c_int(0)
    timeout = (ctypes.c_long * 2)(0, 1_000_000)  # 1 ms: a shared wait that works times out
    ctypes.set_errno(0)
    libc.syscall(
        ctypes.c_long(202), ctypes.byref(word), ctypes.c_long(0), ctypes.c_long(0), timeout
    )
    futex = ctypes.get_errno()
    with open("/proc/stat") as f:
        stat = f.read()
    return {
        "flock_errno": flock,
        "inotify_errno": _errno_of("inotify_init1", 0),
        "io_setup_errno": _errno_of("syscall", 206, 1, 0),
        "futex_shared_errno": futex,
        "proc_stat_masked": stat.startswith("cpu  0 0 0 0 0 0 0 0 0 0\n"),
        "proc_sys": os.listdir("/proc/sys"),
    }


#: Where a host path could show: the mount table in its three forms, PID 1's command line,
#: environment and files, and the cgroup path.
HOST_VIEW = ("self/mountinfo", "self/mounts", "self/mountstats", "thread-self/mountinfo",
             "1/cmdline", "1/environ", "1/maps", "self/cgroup")  # fmt: skip


def _read(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return f.read(1 << 16).decode(errors="replace")
    except OSError as exc:
        return f"unreadable: {exc.strerror}"


def host_view() -> dict[str, str]:
    """The text of every place a host path could show (each process's mount table too)."""
    out = {f"/proc/{name}": _read(f"/proc/{name}") for name in HOST_VIEW}
    mine = out["/proc/self/mountinfo"]
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        text = _read(f"/proc/{pid}/mountinfo")
        out[f"/proc/{pid}/mountinfo"] = "= /proc/self/mountinfo" if text == mine else text
    if out["/proc/thread-self/mountinfo"] == mine:  # the answer must stay within a frame
        out["/proc/thread-self/mountinfo"] = "= /proc/self/mountinfo"
    for name in ("1/exe", "self/exe", "1/cwd", "1/root"):
        try:
            out[f"/proc/{name}"] = os.readlink(f"/proc/{name}")
        except OSError as exc:
            out[f"/proc/{name}"] = f"unreadable: {exc.strerror}"
    return out


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
        **_channels(),
        "host_view": host_view(),
    }


if __name__ == "__main__":
    head = sys.stdin.buffer.read(4)
    sys.stdin.buffer.read(struct.unpack(">I", head)[0])
    data = json.dumps(facts()).encode()
    sys.stdout.buffer.write(struct.pack(">I", len(data)) + data)
    sys.stdout.buffer.flush()
    # Stay until the worker is done looking (it reads this tree's pids, uids and freezes it
    # after the answer): a probe that exited could be gone first on a busy host.
    sys.stdin.buffer.read()
