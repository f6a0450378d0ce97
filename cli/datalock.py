"""One process per data directory: ``hamlet up`` and ``hamlet server`` hold an exclusive lock
on ``<data dir>/hamlet.lock`` (``flock``) for as long as they run, with their pid in the file.

Two servers on one data directory would share the SQLite file, the admin and worker token files
and the embedded redis' files; the second is refused at once instead. The lock is the kernel's:
it goes with the process, however the process ends, so a stale file never blocks a new start.
Fails closed: a lock that cannot be taken for any reason refuses the start.
"""

from __future__ import annotations

import fcntl
import os
from dataclasses import dataclass
from pathlib import Path

LOCK_FILE = "hamlet.lock"


class DataDirInUseError(RuntimeError):
    """The data directory is locked by another process (or cannot be locked at all)."""


@dataclass(frozen=True, slots=True)
class DataDirLock:
    """A held lock: release it (or exit) to free the data directory."""

    path: Path
    fd: int

    def release(self) -> None:
        """Free the data directory (closing the descriptor drops the lock)."""
        os.close(self.fd)


def acquire(data_dir: Path) -> DataDirLock:
    """Lock ``data_dir`` for this process, or DataDirInUseError naming the holder's pid."""
    path = data_dir / LOCK_FILE
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        # O_CLOEXEC: the workers and redis that `up` starts must not inherit the lock.
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise DataDirInUseError(f"cannot lock the data directory {data_dir}: {exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _holder(fd)
        os.close(fd)
        raise DataDirInUseError(
            f"the data directory {data_dir} is in use by process {holder} (another `hamlet up` "
            "or `hamlet server`); stop it, or choose another data directory"
        ) from None
    except OSError as exc:
        os.close(fd)
        raise DataDirInUseError(f"cannot lock the data directory {data_dir}: {exc}") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return DataDirLock(path, fd)


def _holder(fd: int) -> str:
    """The pid the holder wrote (``unknown`` if it has not written it yet)."""
    text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    return text if text.isdigit() else "unknown"
