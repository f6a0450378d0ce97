"""Bot submissions as archives: checked when they arrive, before anything is stored.

The format and its checks live in :mod:`bots.archive` (workers apply the same checks when
they unpack); this module turns a rejection into the service's ``InvalidArgumentError``.
Nothing in an archive is run or built on the server.
"""

from __future__ import annotations

from bots.archive import ArchiveError, Size, check, is_archive, measure
from server.services.errors import InvalidArgumentError


def accept(archive: bytes) -> str:
    """The runtime an acceptable archive names; else ``InvalidArgumentError``."""
    if not is_archive(archive):
        raise InvalidArgumentError("archive is not a zip file (send Python source as `source`)")
    try:
        manifest = check(archive)
    except ArchiveError as exc:
        raise InvalidArgumentError(f"archive rejected: {exc}") from None
    return manifest.runtime.value


def size(code: bytes) -> Size:
    """A submission's size from its headers alone (nothing inflated: the per-version quotas
    are checked on it before the archive is read); ``InvalidArgumentError`` if unreadable."""
    try:
        return measure(code)
    except ArchiveError as exc:
        raise InvalidArgumentError(f"archive rejected: {exc}") from None
