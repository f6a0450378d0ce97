"""Storage outages: every call answers UNAVAILABLE with a retry hint, the log says it once.

A database that cannot be reached (PostgreSQL down or restarting, a lost connection, a pool
that cannot hand out a connection, an SQLite file that cannot be opened) is not a bug of
the server: the call may succeed later, so it answers UNAVAILABLE (which clients and workers
retry) with a hint of when, not INTERNAL with a traceback per call.

:class:`OutageInterceptor` sits inside the boundary and outside authentication (which reads
the store too), so it sees every storage error of a call. :class:`StorageOutage` keeps the
state: the first refused call of an outage logs one line; the first statement that runs
again (:func:`watch_engine`) ends the outage and logs one line with the number of calls
refused during it and how long it lasted.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import grpc
from sqlalchemy import Engine, event
from sqlalchemy.exc import DBAPIError, DisconnectionError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

from server.interceptors import rewrap

if TYPE_CHECKING:
    _Interceptor = grpc.ServerInterceptor[Any, Any]
    _Handler = grpc.RpcMethodHandler[Any, Any]
else:
    _Interceptor = grpc.ServerInterceptor
    _Handler = grpc.RpcMethodHandler

log = logging.getLogger(__name__)

#: Seconds a client is told to wait before trying again (message and trailing metadata).
RETRY_AFTER_S = 5
#: Trailing metadata key carrying :data:`RETRY_AFTER_S` (seconds, as text).
RETRY_AFTER_KEY = "retry-after"


def is_outage(exc: BaseException) -> bool:
    """Whether ``exc`` says the database cannot be reached, rather than that a statement is
    wrong: OperationalError (connection refused, server gone, disk I/O, database locked),
    InterfaceError (a closed connection), a disconnect, or no pooled connection in time."""
    if isinstance(exc, OperationalError) and _not_an_outage(exc):
        return False
    if isinstance(exc, OperationalError | InterfaceError | DisconnectionError | PoolTimeoutError):
        return True
    return isinstance(exc, DBAPIError) and bool(exc.connection_invalidated)


class StorageOutage:
    """Whether the store is out, and how many calls were refused since it went out."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._since: float | None = None
        self._refused = 0

    @property
    def out(self) -> bool:
        """True between the first refused call and the next statement that runs."""
        return self._since is not None

    def refused(self, exc: BaseException, call: bool = True) -> str:
        """Count a call refused by the outage (the first logs it); the caller's message.
        ``call=False``: a background task met the outage (logged if first, not counted)."""
        with self._lock:
            self._refused += int(call)
            first = self._since is None
            if first:
                self._since = self._clock()
        if first:
            log.warning(
                "storage unavailable (%s: %s): answering UNAVAILABLE until it is back",
                type(exc).__name__,
                _first_line(exc),
            )
        return f"the server's database is unavailable; retry in {RETRY_AFTER_S} s"

    def succeeded(self) -> None:
        """A statement ran: an ongoing outage is over (logged with its count)."""
        if self._since is None:  # the common case: no lock taken
            return
        with self._lock:
            if self._since is None:
                return
            lasted = self._clock() - self._since
            refused, self._since, self._refused = self._refused, None, 0
        log.warning(
            "storage back after %.1f s of outage: %d call(s) were refused with UNAVAILABLE",
            lasted,
            refused,
        )


#: OperationalErrors that are not outages: SQLite reports some bugs of ours so (a missing
#: table, bad SQL), and a full disk needs an operator, not a retry: these stay internal
#: errors, logged with their traceback under an id (``server/boundary.py``).
_NOT_OUTAGES = ("no such table", "no such column", "syntax error", "disk is full", "no space")


def _not_an_outage(exc: OperationalError) -> bool:
    text = str(exc.orig).lower()
    return any(bug in text for bug in _NOT_OUTAGES)


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0][:200] if text else ""


def watch_engine(engine: Engine, outage: StorageOutage) -> None:
    """End ``outage`` when ``engine`` runs a statement again."""

    @event.listens_for(engine, "after_cursor_execute")
    def _ran(*_: Any) -> None:
        outage.succeeded()


class OutageInterceptor(_Interceptor):
    """Answers a call that met a storage outage UNAVAILABLE with a retry hint."""

    def __init__(self, outage: StorageOutage) -> None:
        self.outage = outage

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], _Handler | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> _Handler | None:
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        return rewrap(handler, self._unary, self._stream)

    def _unary(self, behavior: Callable[[Any, grpc.ServicerContext], Any]) -> Callable[..., Any]:
        def wrapped(request: Any, context: grpc.ServicerContext) -> Any:
            try:
                return behavior(request, context)
            except Exception as exc:
                if not is_outage(exc):
                    raise
                self._abort(exc, context)

        return wrapped

    def _stream(
        self, behavior: Callable[[Any, grpc.ServicerContext], Iterator[Any]]
    ) -> Callable[..., Iterator[Any]]:
        def wrapped(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            try:
                yield from behavior(request, context)
            except Exception as exc:
                if not is_outage(exc):
                    raise
                self._abort(exc, context)

        return wrapped

    def _abort(self, exc: BaseException, context: grpc.ServicerContext) -> None:
        message = self.outage.refused(exc)
        context.set_trailing_metadata(((RETRY_AFTER_KEY, str(RETRY_AFTER_S)),))
        context.abort(grpc.StatusCode.UNAVAILABLE, message)
