"""Plumbing shared by the SQL store's parts: engine set-up, transactions, small helpers."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from server.storage.base import MatchStatus

FINAL = [s.value for s in MatchStatus if s.final]
#: The statement kinds the store's latency is reported by (a closed set: a metric label).
OPERATIONS = ("select", "insert", "update", "delete", "other")
_STARTED = "hamlet_statement_started"


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite gets WAL, foreign keys and a busy timeout."""
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _pragmas(conn: Any, _record: Any) -> None:
            cur = conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()

        return engine
    return create_engine(url, pool_pre_ping=True)


class SqlBase:
    """An engine and a transaction helper; the store's parts derive from it."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._sessions = sessionmaker(engine, expire_on_commit=False)
        #: Serializes result recording in this process, so Elo updates apply in one order
        #: (the database's row locks still guard against a second server process).
        self._record_lock = threading.Lock()

    def time_statements(self, observe: Callable[[str, float], None]) -> None:
        """Call ``observe(operation, seconds)`` after every SQL statement this store runs."""

        @event.listens_for(self.engine, "before_cursor_execute")
        def _before(conn: Any, *_: Any) -> None:
            conn.info[_STARTED] = time.perf_counter()

        @event.listens_for(self.engine, "after_cursor_execute")
        def _after(conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
            started = conn.info.pop(_STARTED, None)
            if started is not None:
                observe(operation(statement), time.perf_counter() - started)

    def close(self) -> None:
        """Release the connection pool."""
        self.engine.dispose()

    @contextmanager
    def _tx(self) -> Iterator[Session]:
        with self._sessions.begin() as session:
            yield session


def rowcount(result: Any) -> int:
    """Rows changed by an UPDATE (0 when the driver does not say)."""
    return int(getattr(result, "rowcount", 0) or 0)


def operation(statement: str) -> str:
    """The kind of a SQL statement: one of :data:`OPERATIONS`."""
    word = statement.lstrip().split(None, 1)[0].lower() if statement.strip() else ""
    return word if word in OPERATIONS else "other"
