"""The last line of defence at the gRPC boundary, as a server interceptor.

* Request bytes that do not decode as the method's message are answered INVALID_ARGUMENT
  (gRPC's own answer would be INTERNAL, "Exception deserializing request!").
* An exception no servicer mapped to a status code is logged here with its traceback under a
  short error id, and answered INTERNAL with that id and nothing else: no SQL text, no stack
  trace, no exception message reaches the caller. This is the only INTERNAL the server
  sends; a storage error (a full disk, a lost connection) is one of them, and workers retry
  their reports on INTERNAL.
* Every refused write (a status other than OK from a method that changes state) is logged
  with its code, reason and client address (``context.peer()``); refused reads are logged at
  DEBUG. Refusals are logged at most at :class:`RefusalLog`'s rate per client address
  (``HAMLET_LOG_REFUSALS``); the ones over it are counted, and the count is logged with that
  client's next logged refusal, so a flood cannot fill the disk but leaves a trace.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, NoReturn

import grpc
from sqlalchemy.exc import SQLAlchemyError

from server.auth import policy
from server.auth.ratelimit import client_host, parse_limit
from server.interceptors import Undecodable, rewrap, undecodable_message
from server.peers import call_peer

if TYPE_CHECKING:
    _Interceptor = grpc.ServerInterceptor[Any, Any]
    _Handler = grpc.RpcMethodHandler[Any, Any]
else:
    _Interceptor = grpc.ServerInterceptor
    _Handler = grpc.RpcMethodHandler

log = logging.getLogger(__name__)


def label_of(method: str) -> str:
    """``/hamlet.v1.Arena/SubmitBot`` -> ``Arena/SubmitBot``."""
    service, _, name = method.strip("/").partition("/")
    return f"{service.rsplit('.', 1)[-1]}/{name}"


#: Methods that change what is stored ("Service/Method"): every method the policy does not
#: open to readers. Their refusals are logged.
WRITE_METHODS = frozenset(
    label_of(method)
    for method, access in policy.METHODS.items()
    if access not in (policy.Access.READ, policy.Access.OPEN)
)


def tolerant(deserializer: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    """``deserializer`` that returns :class:`Undecodable` instead of raising."""
    if deserializer is None:
        return None

    def parse(data: bytes) -> Any:
        try:
            return deserializer(data)
        except Exception as exc:  # DecodeError, invalid UTF-8, truncated input, ...
            return Undecodable(exc)

    return parse


def error_id() -> str:
    """A short id that ties a status message to its server log line."""
    return secrets.token_hex(4)


class RefusalLog:
    """Logs refusals, at most ``rate`` (e.g. ``"20/minute"``) per client address.

    A fixed window per address: the first ``amount`` refusals of a window are logged, the
    others counted; the count is logged with the address's next logged refusal. At most
    ``max_clients`` addresses are tracked (the oldest is forgotten), so memory stays bounded.
    """

    def __init__(
        self,
        rate: str = "20/minute",
        on_suppressed: Callable[[], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        max_clients: int = 10_000,
    ) -> None:
        item = parse_limit("HAMLET_LOG_REFUSALS", rate)
        self.amount = item.amount
        self.window = float(item.get_expiry())
        self.on_suppressed = on_suppressed
        self.clock = clock
        self.max_clients = max_clients
        # address -> (window start, logged in window, suppressed since the last logged line)
        self._clients: dict[str, tuple[float, int, int]] = {}
        self._lock = threading.Lock()

    def refused(self, label: str, code: grpc.StatusCode, message: str, peer: str) -> None:
        """Log one refusal of ``label`` to the client at ``peer`` (or count it)."""
        host = client_host(peer)
        now = self.clock()
        with self._lock:
            start, logged, suppressed = self._clients.pop(host, (now, 0, 0))
            if now - start >= self.window:
                start, logged = now, 0
            if logged >= self.amount:
                self._clients[host] = (start, logged, suppressed + 1)
                log_it = False
            else:
                self._clients[host] = (start, logged + 1, 0)
                log_it = True
            while len(self._clients) > self.max_clients:
                self._clients.pop(next(iter(self._clients)))
        if not log_it:
            if self.on_suppressed is not None:
                self.on_suppressed()
            return
        level = logging.WARNING if label in WRITE_METHODS else logging.DEBUG
        more = f" ({suppressed} more refusals to this client were not logged)" if suppressed else ""
        log.log(level, "refused %s: %s: %s [client %s]%s", label, code.name, message, peer, more)


class BoundaryInterceptor(_Interceptor):
    """Decoding failures, unexpected exceptions and refused writes (see the module doc)."""

    def __init__(self, refusals: RefusalLog | None = None) -> None:
        self.refusals = refusals if refusals is not None else RefusalLog()

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], _Handler | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> _Handler | None:
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        label = label_of(handler_call_details.method)
        return rewrap(
            handler,
            lambda b: self._unary(label, b),
            lambda b: self._stream(label, b),
            tolerant(handler.request_deserializer),
        )

    def _unary(
        self, label: str, behavior: Callable[[Any, grpc.ServicerContext], Any]
    ) -> Callable[..., Any]:
        def wrapped(request: Any, context: grpc.ServicerContext) -> Any:
            if isinstance(request, Undecodable):
                self._refuse_undecodable(label, request, context)
            try:
                return behavior(request, context)
            except Exception as exc:
                self._handle(label, exc, context)

        return wrapped

    def _stream(
        self, label: str, behavior: Callable[[Any, grpc.ServicerContext], Iterator[Any]]
    ) -> Callable[..., Iterator[Any]]:
        def wrapped(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            if isinstance(request, Undecodable):
                self._refuse_undecodable(label, request, context)
            try:
                yield from behavior(request, context)
            except Exception as exc:
                self._handle(label, exc, context)

        return wrapped

    def _refuse_undecodable(
        self, label: str, request: Undecodable, context: grpc.ServicerContext
    ) -> NoReturn:
        message = undecodable_message(label, request)
        self.refusals.refused(label, grpc.StatusCode.INVALID_ARGUMENT, message, _peer(context))
        context.abort(grpc.StatusCode.INVALID_ARGUMENT, message)

    def _handle(self, label: str, exc: Exception, context: grpc.ServicerContext) -> NoReturn:
        code = _code(context)
        if code is not None and code is not grpc.StatusCode.OK:
            # The servicer aborted with a status code: a refusal with a reason, not a fault.
            self.refusals.refused(label, code, _details(context), _peer(context))
            raise exc
        eid = error_id()
        if isinstance(exc, SQLAlchemyError):
            log.error("storage error %s in %s: %s", eid, label, type(exc).__name__, exc_info=exc)
        else:
            log.error("internal error %s in %s: %s", eid, label, type(exc).__name__, exc_info=exc)
        context.abort(
            grpc.StatusCode.INTERNAL,
            f"internal error {eid}: the server could not complete {label}; "
            f"its log has the details under this id",
        )


def _peer(context: grpc.ServicerContext) -> str:
    return call_peer(context)


def _code(context: grpc.ServicerContext) -> grpc.StatusCode | None:
    code = getattr(context, "code", None)
    return code() if callable(code) else None


def _details(context: grpc.ServicerContext) -> str:
    details = getattr(context, "details", None)
    raw = details() if callable(details) else b""
    return raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw or "")
