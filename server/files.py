"""The data directory's files are the server's alone: directories 0700, files 0600.

Modes are set explicitly (``chmod`` after creating), so the umask the server was started with
does not matter, and files left by an older version with wider modes are tightened at start.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

log = logging.getLogger(__name__)

DIR_MODE = 0o700
FILE_MODE = 0o600
#: SQLite's companions of a database file (same mode as the database itself).
SQLITE_SUFFIXES = ("", "-wal", "-shm", "-journal")
#: Files the data directory's sweep tightens (logs, tokens, databases).
_PRIVATE = (".log", ".token", ".db")


def private_dir(path: Path) -> Path:
    """Create ``path`` (and its parents) if needed and make it 0700."""
    path.mkdir(parents=True, exist_ok=True)
    _tighten(path, DIR_MODE)
    return path


def private_file(path: Path) -> Path:
    """Create ``path`` empty if missing (never readable by others, even for an instant) and
    make it 0600."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, FILE_MODE)
    os.close(fd)
    _tighten(path, FILE_MODE)
    return path


def _tighten(path: Path, mode: int) -> None:
    current = stat.S_IMODE(path.stat().st_mode)
    if current != mode:
        os.chmod(path, mode)
        if current & 0o077:
            log.info("made %s private (mode %o, was %o)", path, mode, current)


def sqlite_path(database_url: str) -> Path | None:
    """The file of a ``sqlite:///`` URL (None for another database or an in-memory one)."""
    prefix = "sqlite:///"
    if not database_url.startswith(prefix):
        return None
    rest = database_url[len(prefix) :].split("?", 1)[0]
    return None if not rest or rest == ":memory:" else Path(rest)


def secure_data_dir(data_dir: Path, database_url: str) -> None:
    """Make the data directory private, with the SQLite database (created empty if missing:
    SQLite accepts an empty file) and whatever the directory already holds: logs, tokens."""
    private_dir(data_dir)
    database = sqlite_path(database_url)
    if database is not None:
        private_file(database)
        for suffix in SQLITE_SUFFIXES[1:]:
            companion = database.with_name(database.name + suffix)
            if companion.exists():
                _tighten(companion, FILE_MODE)
    # Two levels only (the data dir's files, and logs/ and the like): the sweep stays quick
    # even if HAMLET_DATA_DIR names a big directory.
    for child in _two_levels(data_dir):
        if child.is_symlink():
            continue
        if child.is_dir():
            _tighten(child, DIR_MODE)
        elif child.is_file() and (child.suffix in _PRIVATE or ".db-" in child.name):
            _tighten(child, FILE_MODE)


def _two_levels(root: Path) -> list[Path]:
    out: list[Path] = []
    for child in root.iterdir():
        out.append(child)
        if child.is_dir() and not child.is_symlink():
            out.extend(child.iterdir())
    return out
