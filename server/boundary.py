"""The last line of defence at the gRPC boundary, as a server interceptor.

* Request bytes that do not decode as the method's message are answered INVALID_ARGUMENT
  (gRPC's own answer would be INTERNAL, "Exception deserializing request!").
* An exception no servicer mapped to a status code is logged here with its traceback under a
  short error id, and answered INTERNAL with that id and nothing else: no SQL text, no stack
  trace, no exception message reaches the caller. This is the only INTERNAL the server
  sends; a storage error (a full disk, a lost connection) is one of them, and workers retry
  their reports on INTERNAL.
* Every refused write (a status other than OK from a method that changes state) is logged
  with its code and reason; refused reads are logged at DEBUG.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, NoReturn

import grpc
from sqlalchemy.exc import SQLAlchemyError

from server.auth import policy
from server.interceptors import rewrap

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


class Undecodable:
    """Stands in for a request whose bytes did not decode; the handler refuses it."""

    def __init__(self, error: Exception) -> None:
        self.error = error


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


class BoundaryInterceptor(_Interceptor):
    """Decoding failures, unexpected exceptions and refused writes (see the module doc)."""

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
                _refuse_undecodable(label, request, context)
            try:
                return behavior(request, context)
            except Exception as exc:
                _handle(label, exc, context)

        return wrapped

    def _stream(
        self, label: str, behavior: Callable[[Any, grpc.ServicerContext], Iterator[Any]]
    ) -> Callable[..., Iterator[Any]]:
        def wrapped(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            if isinstance(request, Undecodable):
                _refuse_undecodable(label, request, context)
            try:
                yield from behavior(request, context)
            except Exception as exc:
                _handle(label, exc, context)

        return wrapped


def _refuse_undecodable(
    label: str, request: Undecodable, context: grpc.ServicerContext
) -> NoReturn:
    reason = type(request.error).__name__
    message = (
        f"the request bytes are not a valid message for {label} ({reason}); "
        "send a message built from the hamlet.v1 protos"
    )
    _log_refusal(label, grpc.StatusCode.INVALID_ARGUMENT, message)
    context.abort(grpc.StatusCode.INVALID_ARGUMENT, message)


def _handle(label: str, exc: Exception, context: grpc.ServicerContext) -> NoReturn:
    code = _code(context)
    if code is not None and code is not grpc.StatusCode.OK:
        # The servicer aborted with a status code: a refusal with a reason, not a fault.
        _log_refusal(label, code, _details(context))
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


def _log_refusal(label: str, code: grpc.StatusCode, message: str) -> None:
    level = logging.WARNING if label in WRITE_METHODS else logging.DEBUG
    log.log(level, "refused %s: %s: %s", label, code.name, message)


def _code(context: grpc.ServicerContext) -> grpc.StatusCode | None:
    code = getattr(context, "code", None)
    return code() if callable(code) else None


def _details(context: grpc.ServicerContext) -> str:
    details = getattr(context, "details", None)
    raw = details() if callable(details) else b""
    return raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw or "")
