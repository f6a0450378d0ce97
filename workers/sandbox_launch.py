"""The sandbox launcher: runs between the worker and bubblewrap, then ``execve``\\s it.

Run by :mod:`workers.sandbox` as ``python -I -S -B sandbox_launch.py CONFIG`` (the config
``marshal``-ed and hex-encoded: cheaper to load than JSON; standard library only, never
imported by the worker) so that no ``preexec_fn`` runs in the worker's
threaded process. In order it:

1. asks for SIGKILL when its parent (the worker) dies (``PR_SET_PDEATHSIG``);
2. joins the bot's cgroup(s) by writing its pid to each ``cgroup.procs`` (so bubblewrap,
   the bot and all it forks are counted against the whole-tree limits from the start);
3. in a mount namespace of its own (as root; otherwise in a user namespace of its own too,
   mapping only its own uid and gid to themselves), propagation private so nothing shows on
   the host, mounts on empty directories of the bot's host directory: a clone of the
   worker's runtime image (a detached tmpfs, see below) and a fresh tmpfs holding a copy of
   the bot's files. Each is a file system of its own whose root is what the sandbox binds,
   so the bot's ``/proc/self/mountinfo`` (whose "root" field names a bind mount's source
   inside its file system) shows ``/``, not a directory of the host;
4. sets the per-process rlimits (the floor under the cgroup limits);
5. as root, becomes the throw-away uid (no supplementary groups) — bubblewrap then builds
   the sandbox with an unprivileged user namespace, the way it runs for a normal user;
6. execs the command (bubblewrap, ``path`` with ``argv[0]`` a plain name; in insecure mode,
   the bot itself).

``python -I -S -B sandbox_launch.py --image CONFIG`` builds a runtime image instead (once per
worker process, :func:`workers.sandbox_layout.runtime_image`): a new tmpfs, never attached
anywhere, holding copies of the runtime and the SDK; the mount's descriptor is sent back over
the inherited socket ``CONFIG["sock"]``. Not root, it makes the tmpfs in a user namespace of
its own (a tmpfs may be mounted there; the copies keep the worker's uid on the host).
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
MS_REC, MS_PRIVATE = 0x4000, 0x40000
PR_SET_PDEATHSIG = 1
# The new mount API (Linux 5.2; mount_setattr 5.12), x86-64 numbers.
SYS_OPEN_TREE, SYS_MOVE_MOUNT, SYS_FSOPEN, SYS_FSCONFIG, SYS_FSMOUNT = 428, 429, 430, 431, 432
SYS_MOUNT_SETATTR = 442
OPEN_TREE_CLONE, O_CLOEXEC, AT_EMPTY_PATH, AT_RECURSIVE = 1, 0o2000000, 0x1000, 0x8000
AT_FDCWD, MOVE_MOUNT_F_EMPTY_PATH = -100, 0x4
FSCONFIG_SET_STRING, FSCONFIG_CMD_CREATE = 1, 6
MOUNT_ATTR_RDONLY, MOUNT_ATTR_NOSUID, MOUNT_ATTR_NODEV = 0x1, 0x2, 0x4

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _fail(what: str) -> NoReturn:
    err = ctypes.get_errno()
    os.write(2, f"sandbox launcher: {what}: {os.strerror(err)}\n".encode())
    os._exit(121)


def _sys(what: str, number: int, *args: int | bytes | ctypes.Array[Any] | None) -> int:
    """A raw system call; exits through :func:`_fail` (naming ``what``) if it fails."""
    wrapped = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
    out = int(_libc.syscall(ctypes.c_long(number), *wrapped))
    if out < 0:
        _fail(what)
    return out


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
    if _libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        _fail("making / private")


def _new_tmpfs(mode: int) -> int:
    """A new tmpfs, detached (in no mount table): the descriptor of its root."""
    fs = _sys("fsopen(tmpfs)", SYS_FSOPEN, b"tmpfs", 1)
    _sys("naming the tmpfs", SYS_FSCONFIG, fs, FSCONFIG_SET_STRING, b"source", b"hamlet", 0)
    _sys("tmpfs mode", SYS_FSCONFIG, fs, FSCONFIG_SET_STRING, b"mode", oct(mode)[2:].encode(), 0)
    _sys("creating the tmpfs", SYS_FSCONFIG, fs, FSCONFIG_CMD_CREATE, None, None, 0)
    mnt = _sys("fsmount", SYS_FSMOUNT, fs, 1, 0)
    os.close(fs)
    return mnt


def _seal(mnt: int) -> None:
    """Make a populated tmpfs read-only (and without device files or set-uid programs)."""
    attr = (ctypes.c_uint64 * 4)(MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0)
    _sys("sealing the tmpfs", SYS_MOUNT_SETATTR, mnt, b"", AT_EMPTY_PATH, attr, 32)


def _attach(mnt: int, target: str, clone: bool) -> None:
    """Mount the tree of ``mnt`` on ``target`` (a clone of it: the worker's image is mounted
    by every seat of the process)."""
    if clone:
        flags = OPEN_TREE_CLONE | O_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE
        mnt = _sys("cloning the runtime image", SYS_OPEN_TREE, mnt, b"", flags)
    _sys(f"mounting on {target}", SYS_MOVE_MOUNT, mnt, b"", AT_FDCWD, target.encode(),
         MOVE_MOUNT_F_EMPTY_PATH)  # fmt: skip
    os.close(mnt)


def copy_tree(
    source: str, dest: str, owner: int | None, public: bool, skip: tuple[str, ...] = ()
) -> None:
    """Copy ``source`` (a file or a directory) to ``dest``, times kept (the stdlib's bytecode
    is checked against its source's time), without the top-level names in ``skip``. Modes
    are kept and the copy given to ``owner``, or (``public``) made readable by everyone.
    A symbolic link stays one if relative and inside the tree, else becomes a copy of its
    target (an absolute link would name a host path); one leading nowhere is left out."""
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
                if not os.path.exists(real):
                    continue
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
    """Build a runtime image (see the module's docstring) and send its descriptor."""
    import socket

    if os.getuid() != 0:
        _own_mount_namespace()
    mnt = _new_tmpfs(0o755)
    root = f"/proc/self/fd/{mnt}"
    for source, dest, skip in cfg["entries"]:
        parent = root
        for part in dest.split("/")[:-1]:
            parent = os.path.join(parent, part)
            if not os.path.isdir(parent):
                os.mkdir(parent, 0o755)
        copy_tree(source, os.path.join(root, dest), None, True, tuple(skip))
    _seal(mnt)
    with socket.socket(fileno=cfg["sock"]) as sock:
        socket.send_fds(sock, [b"image"], [mnt])


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
    if cfg["mounts"]:
        _own_mount_namespace()
        for kind, source, target in cfg["mounts"]:
            if kind == "image":  # the descriptor of the worker's runtime image
                _attach(int(source), target, clone=True)
                continue
            mnt = _new_tmpfs(0o700)  # a copy of the bot's files (a directory)
            top = f"/proc/self/fd/{mnt}"
            for entry in os.scandir(source):
                copy_tree(entry.path, f"{top}/{entry.name}", cfg["uid"], False)
            os.chmod(top, 0o500)
            if cfg["uid"] is not None:
                os.chown(top, cfg["uid"], cfg["uid"])
            _seal(mnt)
            _attach(mnt, target, clone=False)
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
