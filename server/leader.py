"""One writer per database: the lease a server holds on its database for as long as it runs.

Two servers on one database would both dispatch queued matches and both reap leases; the
second one is refused at start, before it migrates or touches anything, with the holder named
(host, pid, since). The lease is the database's own where it has one, so it works across hosts:

* PostgreSQL: a session-level advisory lock (:data:`ADVISORY_KEY`) on a dedicated connection,
  held until that connection closes (the server stops, dies, or loses its host). The holder
  names itself in ``application_name``, which anyone can read in ``pg_stat_activity``.
* SQLite: an exclusive ``flock`` on ``<database file>.leader``, with the holder in the file
  (SQLite's own locks are POSIX record locks, which ``flock`` does not touch on Linux). A
  database on one host can only be shared by processes of that host, which this lock covers.

Fails closed: a lease that cannot be taken for any reason refuses the start.
"""

from __future__ import annotations

import fcntl
import os
import socket
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

#: The advisory lock's key: "hamlet" read as a big-endian integer (any fixed bigint would do;
#: it only has to be the same for every Hamlet server).
ADVISORY_KEY = int.from_bytes(b"hamlet", "big")
#: The prefix of the holder's ``application_name`` (at most 63 bytes in all).
APP_PREFIX = "hamlet-server"


class LeaseHeldError(RuntimeError):
    """Another server holds the database (or the lease cannot be taken at all)."""


@dataclass(frozen=True, slots=True)
class Holder:
    """Who holds a lease: enough for an operator to find and stop it."""

    host: str
    pid: int
    since: str  # ISO time, UTC, seconds

    @classmethod
    def me(cls) -> Holder:
        """This process, now."""
        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        return cls(socket.gethostname()[:24], os.getpid(), now)

    def encode(self) -> str:
        """``hamlet-server host=H pid=P since=T`` (fits PostgreSQL's 63-byte names)."""
        return f"{APP_PREFIX} host={self.host} pid={self.pid} since={self.since}"[:63]

    @classmethod
    def decode(cls, text: str) -> Holder | None:
        """The holder written by :meth:`encode`, or None for anything else."""
        fields = dict(p.split("=", 1) for p in text.split()[1:] if "=" in p)
        try:
            return cls(fields["host"], int(fields["pid"]), fields["since"])
        except (KeyError, ValueError):
            return None

    def describe(self) -> str:
        """How the refusal names it."""
        return f"process {self.pid} on host {self.host} (since {self.since})"


@dataclass(slots=True)
class Lease:
    """A held lease; :meth:`release` (or the process ending) frees the database."""

    database: str
    holder: Holder
    _release: Any = field(repr=False)
    #: Checks the lease still holds and takes it again if its connection was lost:
    #: True held, False another server holds it now, None the database cannot be reached.
    _renew: Any = field(default=None, repr=False)

    def release(self) -> None:
        """Give the database up (idempotent)."""
        release, self._release = self._release, None
        if release is not None:
            release()

    def renew(self) -> bool | None:
        """Whether the lease still holds (see ``_renew``); a file lock always does."""
        if self._renew is None or self._release is None:
            return True
        held: bool | None = self._renew()
        return held


def acquire(url: str) -> Lease:
    """Take the writer's lease on the database at ``url``, or :class:`LeaseHeldError`."""
    parsed = make_url(url)
    me = Holder.me()
    if parsed.get_backend_name() == "sqlite":
        if not parsed.database or parsed.database == ":memory:":
            return Lease("memory", me, lambda: None)  # a private database: nobody to share
        return _sqlite(Path(parsed.database), me)
    if parsed.get_backend_name() == "postgresql":
        return _postgres(url, me)
    raise LeaseHeldError(f"no writer's lease for a {parsed.get_backend_name()} database")


def _refusal(where: str, holder: Holder | None) -> LeaseHeldError:
    who = holder.describe() if holder else "another process (it has not named itself yet)"
    return LeaseHeldError(
        f"the database {where} is in use by another Hamlet server: {who}. One server writes "
        "to a database; stop that one first (or point this one at another database)"
    )


def _sqlite(database: Path, me: Holder) -> Lease:
    path = database.with_name(database.name + ".leader")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise LeaseHeldError(f"cannot take the writer's lease {path}: {exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        text = os.pread(fd, 256, 0).decode("utf-8", "replace")
        os.close(fd)
        if isinstance(exc, BlockingIOError):
            raise _refusal(str(database), Holder.decode(text)) from None
        raise LeaseHeldError(f"cannot take the writer's lease {path}: {exc}") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, (me.encode() + "\n").encode(), 0)
    return Lease(str(database), me, lambda: os.close(fd))


class _PgSession:
    """The lease's own connection, and taking the lock again after losing it (a database
    restart ends every session, and the lock with it)."""

    def __init__(self, dsn: str, me: Holder, conn: Any) -> None:
        self.dsn, self.me, self.conn = dsn, me, conn

    def close(self) -> None:
        self.conn.close()

    def renew(self) -> bool | None:
        import psycopg

        try:
            self.conn.execute("SELECT 1")
            return True
        except psycopg.Error:
            self.conn.close()
        try:
            self.conn = psycopg.connect(
                self.dsn, autocommit=True, application_name=self.me.encode()
            )
            row = self.conn.execute("SELECT pg_try_advisory_lock(%s)", (ADVISORY_KEY,)).fetchone()
        except psycopg.Error:
            return None  # not reachable yet: the next pass tries again
        return bool(row is not None and row[0])


def _postgres(url: str, me: Holder) -> Lease:
    import psycopg

    parsed = make_url(url)
    where = f"{parsed.database} on {parsed.host or 'localhost'}:{parsed.port or 5432}"
    dsn = parsed.set(drivername="postgresql").render_as_string(hide_password=False)
    try:
        # Autocommit: the lock belongs to the session, and no transaction stays open for life.
        conn = psycopg.connect(dsn, autocommit=True, application_name=me.encode())
    except psycopg.Error as exc:
        raise LeaseHeldError(f"cannot reach the database {where}: {exc}".strip()) from None
    try:
        row = conn.execute("SELECT pg_try_advisory_lock(%s)", (ADVISORY_KEY,)).fetchone()
        if row is not None and row[0]:
            session = _PgSession(dsn, me, conn)
            return Lease(where, me, session.close, session.renew)
        holder = conn.execute(
            "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a "
            "ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted "
            "AND l.classid = %s AND l.objid = %s AND a.datname = current_database()",
            ((ADVISORY_KEY >> 32) & 0xFFFFFFFF, ADVISORY_KEY & 0xFFFFFFFF),
        ).fetchone()
    except psycopg.Error as exc:
        conn.close()
        raise LeaseHeldError(f"cannot take the writer's lease on {where}: {exc}") from None
    conn.close()
    raise _refusal(where, Holder.decode(str(holder[0])) if holder else None)
