"""The sandbox launcher: runs between the worker and an uploaded bot, then ``execve``\\s it.

Run by :mod:`workers.sandbox` as ``python -I -S -B sandbox_launch.py CONFIG_JSON`` (standard
library only, never imported by the worker) so that no ``preexec_fn`` runs in the worker's
threaded process. In order it:

1. asks for SIGKILL when its parent (the worker) dies (``PR_SET_PDEATHSIG``);
2. enters new network and PID namespaces where the kernel allows (as root, or with a user
   namespace otherwise), recording a warning for each it cannot have;
3. with a PID namespace, forks: the bot becomes PID 1 of that namespace, so when it dies the
   kernel kills everything it spawned (even daemons that left its process group); this
   process stays outside, waits, mirrors the bot's exit, and on SIGTERM kills the bot —
   ``waitpid`` returns only once the namespace is empty, so the worker's wait means "gone";
4. sets the rlimits and, when asked, a throw-away uid; reports its notes on the status pipe
   (whose close tells the worker the bot is about to start) and execs the bot.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import sys
from typing import Any

NEWNET, NEWPID, NEWUSER = 0x40000000, 0x20000000, 0x10000000
PR_SET_PDEATHSIG = 1


def main(cfg: dict[str, Any]) -> None:
    """Set up the sandbox described by ``cfg`` and exec the bot (never returns)."""
    libc = ctypes.CDLL(None, use_errno=True)
    parent = int(cfg["parent"])

    def die_with_parent() -> None:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() not in (parent, 0):  # 0: we are PID 1 of a new namespace
            os._exit(1)

    die_with_parent()
    notes: list[str] = []
    want = (NEWNET if cfg["net"] else 0) | NEWPID
    got = 0
    for flags in (want, want | NEWUSER, NEWPID, NEWPID | NEWUSER, NEWNET, NEWNET | NEWUSER):
        if (flags & NEWUSER and cfg["uid"] is not None) or flags & ~(want | NEWUSER):
            continue
        if libc.unshare(flags) == 0:
            got = flags
            break
    if cfg["net"] and not got & NEWNET:
        notes.append("WARNING no network namespace: the bot shares the host network")
    if not got & NEWPID:
        notes.append("WARNING no PID namespace: processes that leave the group may survive")
    if got & NEWPID:
        parent = os.getpid()
        child = os.fork()
        if child:
            _wait_and_mirror(child, int(cfg["status_fd"]))
    for name, value in cfg["rlimits"]:
        resource.setrlimit(getattr(resource, name), (value, value))
    if cfg["uid"] is not None:
        os.setgroups([])
        os.setgid(cfg["uid"])
        os.setuid(cfg["uid"])
    die_with_parent()  # again: fork and a uid change both clear it
    os.write(cfg["status_fd"], json.dumps(notes).encode())
    os.close(cfg["status_fd"])
    os.execve(cfg["argv"][0], cfg["argv"], cfg["env"])


def _wait_and_mirror(child: int, status_fd: int) -> None:
    signal.signal(signal.SIGTERM, lambda *_: os.kill(child, signal.SIGKILL))
    os.close(status_fd)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # hold no end of the bot's pipes: its EOF must be the worker's
        os.dup2(null, fd)
    _, status = os.waitpid(child, 0)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
