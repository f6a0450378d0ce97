"""The sandbox launcher: runs between the worker and bubblewrap, then ``execve``\\s it.

Run by :mod:`workers.sandbox` as ``python -I -S -B sandbox_launch.py CONFIG`` (the config
``marshal``-ed and hex-encoded: cheaper to load than JSON; standard library only, never
imported by the worker) so that no ``preexec_fn`` runs in the worker's
threaded process. In order it:

1. asks for SIGKILL when its parent (the worker) dies (``PR_SET_PDEATHSIG``);
2. joins the bot's cgroup(s) by writing its pid to each ``cgroup.procs`` (so bubblewrap,
   the bot and all it forks are counted against the whole-tree limits from the start);
3. as root, stages the sources the sandbox uid cannot reach: in a private mount namespace
   of its own (propagation private, so nothing shows on the host) it bind-mounts each onto
   an empty directory or file in the bot's host directory;
4. sets the per-process rlimits (the floor under the cgroup limits);
5. as root, becomes the throw-away uid (no supplementary groups) — bubblewrap then builds
   the sandbox with an unprivileged user namespace, the way it runs for a normal user;
6. execs the command (bubblewrap, ``path`` with ``argv[0]`` a plain name; in insecure mode,
   the bot itself).
"""

from __future__ import annotations

import ctypes
import marshal
import os
import resource
import signal
import sys
from typing import Any

CLONE_NEWNS = 0x00020000
MS_BIND, MS_REC, MS_PRIVATE = 0x1000, 0x4000, 0x40000
PR_SET_PDEATHSIG = 1


def _fail(what: str) -> None:
    err = ctypes.get_errno()
    os.write(2, f"sandbox launcher: {what}: {os.strerror(err)}\n".encode())
    os._exit(121)


def main(cfg: dict[str, Any]) -> None:
    """Set up what ``cfg`` describes and exec the command (never returns)."""
    libc = ctypes.CDLL(None, use_errno=True)
    parent = int(cfg["parent"])

    def die_with_parent() -> None:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(1)

    die_with_parent()
    for procs in cfg["cgroup_procs"]:
        with open(procs, "w") as f:
            f.write(str(os.getpid()))
    if cfg["stage"]:
        if libc.unshare(CLONE_NEWNS) != 0:
            _fail("unshare(CLONE_NEWNS)")
        if libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
            _fail("making / private")
        for source, target in cfg["stage"]:
            if libc.mount(source.encode(), target.encode(), None, MS_BIND | MS_REC, None) != 0:
                _fail(f"staging {source}")
    for name, value in cfg["rlimits"]:
        resource.setrlimit(getattr(resource, name), (value, value))
    if cfg["uid"] is not None:
        os.setgroups([])
        os.setgid(cfg["uid"])
        os.setuid(cfg["uid"])
        die_with_parent()  # again: a uid change clears it
    for fd in cfg["close_fds"]:
        os.close(fd)
    try:
        os.execve(cfg.get("path") or cfg["argv"][0], cfg["argv"], cfg["env"])
    except OSError as exc:
        os.write(2, f"sandbox launcher: cannot run {cfg['argv'][0]}: {exc.strerror}\n".encode())
        os._exit(122)


if __name__ == "__main__":
    main(marshal.loads(bytes.fromhex(sys.argv[1])))
