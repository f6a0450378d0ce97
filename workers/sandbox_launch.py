"""The sandbox launcher: runs between the worker and bubblewrap, then ``execve``\\s it.

Run by :mod:`workers.sandbox` as ``python -I -S -B sandbox_launch.py CONFIG`` (the config
``marshal``-ed and hex-encoded: cheaper to load than JSON; standard library only, never
imported by the worker) so that no ``preexec_fn`` runs in the worker's
threaded process. In order it:

1. asks for SIGKILL when its parent (the worker) dies (``PR_SET_PDEATHSIG``);
2. joins the bot's cgroup(s) by writing its pid to each ``cgroup.procs`` (so bubblewrap,
   the bot and all it forks are counted against the whole-tree limits from the start);
3. joins the mount namespace holding the worker's runtime image (see below; and, not root,
   the user namespace owning it), then makes a private copy of it and there mounts a fresh
   tmpfs holding a copy of the bot's files on an empty directory of the bot's host
   directory. The image and the bot's files are each a file system of its own whose root is
   what the sandbox binds, so the bot's ``/proc/self/mountinfo`` (whose "root" field names a
   bind mount's source inside its file system) shows ``/``, not a directory of the host;
4. sets the per-process rlimits (the floor under the cgroup limits);
5. as root, becomes the throw-away uid (no supplementary groups) — bubblewrap then builds
   the sandbox with an unprivileged user namespace, the way it runs for a normal user;
6. execs the command (bubblewrap, ``path`` with ``argv[0]`` a plain name; in insecure mode,
   the bot itself).

``python -I -S -B sandbox_launch.py --image CONFIG`` makes the runtime image instead (once per
worker process, :func:`workers.sandbox_layout.runtime_image`): in a mount namespace of its own
(in a user namespace of its own too when not root: a tmpfs may be mounted there; the copies
keep the worker's uid on the host) it mounts a tmpfs on ``CONFIG["point"]``, copies the
runtime and the SDK into it, makes it read-only, and sends descriptors of its namespaces back
over the inherited socket ``CONFIG["sock"]``: they keep the namespace (and the tmpfs) alive
after it exits, until the worker process ends. Nothing of it shows on the host.
"""

from __future__ import annotations

import ctypes
import marshal
import os
import resource
import signal
import stat
import sys
from typing import Any, NoReturn

CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND = 0x1, 0x2, 0x4, 0x20, 0x1000
MS_REC, MS_PRIVATE = 0x4000, 0x40000
PR_SET_PDEATHSIG = 1

_libc = ctypes.CDLL(None, use_errno=True)


def _fail(what: str) -> NoReturn:
    err = ctypes.get_errno()
    os.write(2, f"sandbox launcher: {what}: {os.strerror(err)}\n".encode())
    os._exit(121)


def _own_mount_namespace() -> None:
    """A private mount namespace (in a user namespace of its own when not root)."""
    uid, gid = os.getuid(), os.getgid()
    if _libc.unshare(CLONE_NEWNS if uid == 0 else CLONE_NEWNS | CLONE_NEWUSER) != 0:
        _fail("unshare (a mount namespace of its own)")
    if uid != 0:  # the same ids inside: what it creates keeps the worker's uid on the host
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1")):
            with open(f"/proc/self/{name}", "w") as f:
                f.write(text)
        with open("/proc/self/gid_map", "w") as f:
            f.write(f"{gid} {gid} 1")
    _private("/")


def _private(path: str) -> None:
    if _libc.mount(b"none", path.encode(), None, MS_REC | MS_PRIVATE, None) != 0:
        _fail(f"making {path} private")


def _tmpfs(point: str, mode: int) -> None:
    flags = MS_NOSUID | MS_NODEV
    if _libc.mount(b"hamlet", point.encode(), b"tmpfs", flags, f"mode={mode:o}".encode()) != 0:
        _fail(f"mounting a tmpfs on {point}")


def _read_only(point: str) -> None:
    flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV
    if _libc.mount(None, point.encode(), None, flags, None) != 0:
        _fail(f"making {point} read-only")


def _join(user_fd: int | None, mnt_fd: int) -> None:
    """Enter the runtime image's namespaces, then a private copy of its mount namespace."""
    if user_fd is not None and _libc.setns(user_fd, CLONE_NEWUSER) != 0:
        _fail("joining the runtime image's user namespace")
    if _libc.setns(mnt_fd, CLONE_NEWNS) != 0:
        _fail("joining the runtime image's mount namespace")
    if _libc.unshare(CLONE_NEWNS) != 0:
        _fail("unshare (a mount namespace of its own)")


def copy_tree(
    source: str, dest: str, owner: int | None, public: bool, skip: tuple[str, ...] = ()
) -> None:
    """Copy ``source`` (a file or a directory) to ``dest``, times kept (the stdlib's bytecode
    is checked against its source's time), without the top-level names in ``skip``. Modes
    are kept and the copy given to ``owner``, or (``public``) made readable by everyone.
    A symbolic link stays one if relative and inside the tree, else becomes a copy of its
    target (an absolute link would name a host path) if ``public`` (the runtime), and is
    left out if not (the bot's files) or if it leads nowhere."""
    st = os.stat(source)
    if stat.S_ISDIR(st.st_mode):
        os.mkdir(dest)
        for entry in os.scandir(source):
            if entry.name in skip:
                continue
            target = os.path.join(dest, entry.name)
            if entry.is_symlink():
                link = os.readlink(entry.path)
                real = os.path.realpath(entry.path)
                if not os.path.isabs(link) and real.startswith(os.path.realpath(source) + "/"):
                    os.symlink(link, target)
                    continue
                if not public or not os.path.exists(real):
                    continue  # a bot's link out of its files is never followed (we are root)
            copy_tree(entry.path, target, owner, public)
    else:
        with open(source, "rb") as src, open(dest, "wb") as out:
            while chunk := src.read(1 << 20):
                out.write(chunk)
    mode = stat.S_IMODE(st.st_mode)
    if public:
        mode = 0o755 if stat.S_ISDIR(st.st_mode) or mode & 0o111 else 0o644
    os.chmod(dest, mode)
    if owner is not None:
        os.chown(dest, owner, owner)
    os.utime(dest, ns=(st.st_atime_ns, st.st_mtime_ns))


def build_image(cfg: dict[str, Any]) -> None:
    """Make a runtime image (see the module's docstring) and send its namespaces."""
    import socket

    # Modes here are set, not inherited: the worker's umask (077, say) must not make the
    # runtime unreadable to the sandbox's uid.
    os.umask(0o022)
    _own_mount_namespace()
    point = cfg["point"]
    _tmpfs(point, 0o755)
    for source, dest, skip in cfg["entries"]:
        parent = point
        for part in dest.split("/")[:-1]:
            parent = os.path.join(parent, part)
            if not os.path.isdir(parent):
                os.mkdir(parent, 0o755)
        copy_tree(source, os.path.join(point, dest), None, True, tuple(skip))
    _read_only(point)
    kinds = ("mnt",) if os.getuid() == 0 else ("user", "mnt")
    fds = [os.open(f"/proc/self/ns/{kind}", os.O_RDONLY) for kind in kinds]
    with socket.socket(fileno=cfg["sock"]) as sock:
        socket.send_fds(sock, [" ".join(kinds).encode()], fds)


def main(cfg: dict[str, Any]) -> None:
    """Set up what ``cfg`` describes and exec the command (never returns)."""
    parent = int(cfg["parent"])

    def die_with_parent() -> None:
        _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(1)

    die_with_parent()
    for procs in cfg["cgroup_procs"]:
        with open(procs, "w") as f:
            f.write(str(os.getpid()))
    if cfg["image"] is not None:
        _join(*cfg["image"])
        point, source = cfg["code"]
        _tmpfs(point, 0o700)  # a copy of the bot's files, modes and owner kept
        for entry in os.scandir(source):
            if not entry.is_symlink():  # unpacking makes none; never followed as root
                copy_tree(entry.path, f"{point}/{entry.name}", cfg["uid"], False)
        os.chmod(point, 0o500)
        if cfg["uid"] is not None:
            os.chown(point, cfg["uid"], cfg["uid"])
        _read_only(point)
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
    if sys.argv[1] == "--image":
        build_image(marshal.loads(bytes.fromhex(sys.argv[2])))
    else:
        main(marshal.loads(bytes.fromhex(sys.argv[1])))
