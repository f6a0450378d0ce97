"""Quotas per user: how much of the shared service one user may hold or spend.

Counted quotas (bots owned, versions a day, bytes stored, open events, matches planned a day,
concurrent SPRTs, ladder entries) are checked against the user's use now, computed in one
query (:meth:`Store.quota_usage`); per-version limits (archive bytes, the bytes and members an
archive unpacks to) are checked on the submission itself, from its headers. A refusal is
:class:`ResourceExhaustedError` naming the quota, its limit, the use and when it frees: the
next UTC midnight for daily quotas, else what frees it. Admins (a token with the admin scope)
and the server itself are exempt.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, fields
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from bots.archive import MAX_ARCHIVE_BYTES, MAX_MEMBERS, MAX_UNPACKED_BYTES, Size
from server.services.caller import Caller
from server.services.errors import ResourceExhaustedError

if TYPE_CHECKING:  # the limits are read by server.config: keep the storage layer out of it
    from server.storage.base import QuotaUsage
    from server.storage.protocol import Store

MIB = 1 << 20


class Quota(enum.Enum):
    """Every quota; the value is its name on the wire (``QuotaItem.name``)."""

    BOTS = "bots"
    VERSIONS_PER_DAY = "versions_per_day"
    ARCHIVE_BYTES = "archive_bytes"
    STORED_BYTES = "stored_bytes"
    UNPACKED_BYTES = "unpacked_bytes"
    ARCHIVE_MEMBERS = "archive_members"
    OPEN_EVENTS = "open_events"
    MATCHES_PER_DAY = "matches_per_day"
    SPRTS = "sprts"
    LADDER_ENTRIES = "ladder_entries"


@dataclass(frozen=True, slots=True)
class QuotaLimits:
    """One limit per :class:`Quota` (field name = the quota's name), from ``HAMLET_QUOTA_*``.

    The per-version limits cannot exceed what :mod:`bots.archive` (and so every worker)
    accepts: a larger quota would admit bots that no worker unpacks."""

    bots: int = 50
    versions_per_day: int = 20
    archive_bytes: int = 8 * MIB
    stored_bytes: int = 200 * MIB
    unpacked_bytes: int = 32 * MIB
    archive_members: int = 512
    open_events: int = 5
    matches_per_day: int = 20_000
    sprts: int = 2
    ladder_entries: int = 3

    def limit(self, quota: Quota) -> int:
        """The limit of one quota."""
        value: int = getattr(self, quota.value)
        return value

    def validate(self) -> None:
        """ValueError naming the environment variable of the first bad limit."""
        caps = {
            "archive_bytes": MAX_ARCHIVE_BYTES,
            "unpacked_bytes": MAX_UNPACKED_BYTES,
            "archive_members": MAX_MEMBERS,
        }
        for f in fields(self):
            value = getattr(self, f.name)
            cap = caps.get(f.name)
            if not isinstance(value, int) or value < 0 or (cap is not None and value > cap):
                bound = f"0..{cap}" if cap is not None else "a whole number, 0 or more"
                raise ValueError(f"{variable(f.name)} must be {bound}, not {value!r}")

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> QuotaLimits:
        """Limits from ``HAMLET_QUOTA_<NAME>`` (unset or empty: the default); ValueError
        naming the variable of a bad value."""
        values: dict[str, int] = {}
        for f in fields(cls):
            raw = env.get(variable(f.name), "").strip().replace("_", "")
            if not raw:
                continue
            if not raw.isascii() or not raw.isdigit():
                raise ValueError(f"{variable(f.name)} must be a whole number, not {raw!r}")
            values[f.name] = int(raw)
        limits = cls(**values)
        limits.validate()
        return limits


def variable(name: str) -> str:
    """The environment variable of a limit: ``bots`` -> ``HAMLET_QUOTA_BOTS``."""
    return f"HAMLET_QUOTA_{name.upper()}"


@dataclass(frozen=True, slots=True)
class _About:
    description: str
    unit: str  # "", "bytes", "matches"
    daily: bool = False
    per_version: bool = False
    frees: str = ""  # what frees a place (quotas neither daily nor per version)


_ABOUT: dict[Quota, _About] = {
    Quota.BOTS: _About(
        "bots you own, not retired",
        "",
        frees="a place frees when you retire a bot (`hamlet bot retire NAME`)",
    ),
    Quota.VERSIONS_PER_DAY: _About("bot versions created today (UTC)", "", daily=True),
    Quota.ARCHIVE_BYTES: _About("bytes of one version's code", "bytes", per_version=True),
    Quota.STORED_BYTES: _About(
        "bytes of code stored for all your bots' versions (each distinct code once)",
        "bytes",
        frees="it does not free: stored code is kept for replays (an admin may raise "
        "HAMLET_QUOTA_STORED_BYTES)",
    ),
    Quota.UNPACKED_BYTES: _About(
        "bytes one version's archive unpacks to", "bytes", per_version=True
    ),
    Quota.ARCHIVE_MEMBERS: _About(
        "files and directories in one version's archive", "", per_version=True
    ),
    Quota.OPEN_EVENTS: _About(
        "your tournaments and SPRTs created or running (the ladder aside)",
        "",
        frees="a place frees when one of your events ends (it finishes, or "
        "`hamlet tournament cancel ID`)",
    ),
    Quota.MATCHES_PER_DAY: _About(
        "matches planned by the events you created today (UTC; an SPRT counts its most)",
        "matches",
        daily=True,
    ),
    Quota.SPRTS: _About(
        "your SPRTs created or running",
        "",
        frees="a place frees when one of your SPRTs ends (it decides, reaches its pair limit, "
        "or `hamlet tournament cancel ID`)",
    ),
    Quota.LADDER_ENTRIES: _About(
        "your bots' ladder entries, across games",
        "",
        frees="a place frees when you take a bot off a ladder (`hamlet ladder leave BOT`)",
    ),
}
_USED: dict[Quota, Callable[[QuotaUsage], int]] = {
    Quota.BOTS: lambda u: u.bots,
    Quota.VERSIONS_PER_DAY: lambda u: u.versions_today,
    Quota.STORED_BYTES: lambda u: u.stored_bytes,
    Quota.OPEN_EVENTS: lambda u: u.open_events,
    Quota.MATCHES_PER_DAY: lambda u: u.matches_today,
    Quota.SPRTS: lambda u: u.sprts,
    Quota.LADDER_ENTRIES: lambda u: u.ladder_entries,
}
_PER_VERSION: dict[Quota, Callable[[Size], int]] = {
    Quota.ARCHIVE_BYTES: lambda s: s.archive_bytes,
    Quota.UNPACKED_BYTES: lambda s: s.unpacked_bytes,
    Quota.ARCHIVE_MEMBERS: lambda s: s.members,
}


@dataclass(frozen=True, slots=True)
class QuotaLine:
    """One quota as shown to people (``GetQuota``, ``hamlet quota``)."""

    name: str
    description: str
    limit: int
    used: int  # 0 for per-version limits: each submission is measured on its own
    unit: str
    resets: str  # ISO 8601 UTC time for daily quotas, else what frees it, in words


@dataclass(frozen=True, slots=True)
class QuotaReport:
    """A user's quotas."""

    user: str
    exempt: bool
    lines: tuple[QuotaLine, ...]


def utcnow() -> datetime:
    """Naive UTC now, like :func:`server.storage.base.utcnow`."""
    return datetime.now(UTC).replace(tzinfo=None)


def day_start(now: datetime) -> datetime:
    """The UTC midnight that began ``now``'s day (naive UTC, like the store's times)."""
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


def _amount(value: int, unit: str) -> str:
    return f"{value} {unit}" if unit else str(value)


class QuotaService:
    """Checking and reporting quotas. ``limits`` None: no quotas at all (embedded tools)."""

    def __init__(
        self,
        store: Store,
        limits: QuotaLimits | None = None,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        self.store = store
        self.limits = limits
        #: The clock daily quotas follow (naive UTC); tests move it past midnight.
        self.now = now or utcnow
        self._locks: dict[int, threading.RLock] = {}
        self._locks_lock = threading.Lock()

    def exempt(self, caller: Caller) -> bool:
        """Admins and the server itself are not limited (nor anyone without limits)."""
        return self.limits is None or caller.system or caller.admin

    @contextmanager
    def hold(self, caller: Caller) -> Iterator[None]:
        """Hold the caller's lock: checks and the write they guard happen as one step.

        A lock in this process is enough because the server is the single writer of its
        database (the embedded mode's one server owns SQLite); several servers sharing one
        PostgreSQL could each admit one call over a limit at the same instant, never more.
        Re-entrant, so a service may hold it around a call that holds it again."""
        if self.exempt(caller) or caller.user_id is None:
            yield
            return
        with self._locks_lock:
            lock = self._locks.setdefault(caller.user_id, threading.RLock())
        with lock:
            yield

    @contextmanager
    def guard(self, caller: Caller, needs: Mapping[Quota, int]) -> Iterator[None]:
        """Check ``needs`` and keep the caller's lock for the write in the ``with`` block."""
        with self.hold(caller):
            self.check_all(caller, needs)
            yield

    def usage(self, user_id: int) -> QuotaUsage:
        """A user's use of every counted quota now (one query)."""
        return self.store.quota_usage(user_id, day_start(self.now()))

    def check(self, caller: Caller, quota: Quota, adding: int = 1) -> None:
        """ResourceExhaustedError if ``adding`` more would take the caller over ``quota``."""
        self.check_all(caller, {quota: adding})

    def check_all(self, caller: Caller, needs: Mapping[Quota, int]) -> None:
        """:meth:`check` for several quotas, with one look at the caller's use."""
        if self.exempt(caller) or caller.user_id is None or self.limits is None:
            return
        wanted = {q: n for q, n in needs.items() if n > 0}
        if not wanted:
            return
        used = self.usage(caller.user_id)
        for quota, adding in wanted.items():
            limit = self.limits.limit(quota)
            now = _USED[quota](used)
            if now + adding > limit:
                raise self._refusal(quota, limit, now, adding)

    def check_version(self, caller: Caller, size: Size) -> None:
        """ResourceExhaustedError if one version of this size is over a per-version quota."""
        if self.exempt(caller) or self.limits is None:
            return
        for quota, measure in _PER_VERSION.items():
            limit, value = self.limits.limit(quota), measure(size)
            if value > limit:
                about = _ABOUT[quota]
                raise ResourceExhaustedError(
                    f"quota {quota.value} ({about.description}): limit "
                    f"{_amount(limit, about.unit)}, this version has {_amount(value, about.unit)}; "
                    "it applies to each version: send a smaller one"
                )

    def report(self, user_id: int, name: str, exempt: bool) -> QuotaReport:
        """Every quota of a user with its use now (one query)."""
        limits = self.limits or QuotaLimits()
        used = self.usage(user_id)
        lines = []
        for quota in Quota:
            about = _ABOUT[quota]
            count = _USED[quota](used) if quota in _USED else 0
            lines.append(
                QuotaLine(
                    quota.value,
                    about.description,
                    limits.limit(quota),
                    count,
                    about.unit,
                    self._resets(about),
                )
            )
        return QuotaReport(name, exempt or self.limits is None, tuple(lines))

    def _resets(self, about: _About) -> str:
        if about.daily:
            return (day_start(self.now()) + timedelta(days=1)).isoformat() + "Z"
        if about.per_version:
            return "each version is measured on its own"
        return about.frees

    def _refusal(self, quota: Quota, limit: int, used: int, adding: int) -> ResourceExhaustedError:
        about = _ABOUT[quota]
        when = (
            f"it resets at {self._resets(about)} (the next UTC midnight)"
            if about.daily
            else about.frees
        )
        return ResourceExhaustedError(
            f"quota {quota.value} ({about.description}): limit {_amount(limit, about.unit)}, "
            f"used {_amount(used, about.unit)}, this needs {_amount(adding, about.unit)} "
            f"more; {when}"
        )
