"""One server interceptor authenticates every call and enforces the policy's method table.

The caller's :class:`Principal` is put in a context variable for the duration of the call;
servicers read it with :func:`current_principal` when they need to check ownership.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import grpc

from server.auth import policy
from server.auth.identity import ANONYMOUS, Principal, Scope
from server.interceptors import rewrap
from server.services.caller import Caller
from server.services.errors import PermissionDeniedError, UnauthenticatedError

if TYPE_CHECKING:
    _Interceptor = grpc.ServerInterceptor[Any, Any]
    _Handler = grpc.RpcMethodHandler[Any, Any]
else:
    _Interceptor = grpc.ServerInterceptor
    _Handler = grpc.RpcMethodHandler

_CURRENT: contextvars.ContextVar[Principal] = contextvars.ContextVar(
    "hamlet_principal", default=ANONYMOUS
)

#: Turns a bearer token into a principal or raises UnauthenticatedError.
Authenticator = Callable[[str], Principal]


def current_principal() -> Principal:
    """The caller of the method being served (anonymous outside a call)."""
    return _CURRENT.get()


def caller() -> Caller:
    """The caller of the method being served, as the services see it: admin only with a
    token that grants the admin scope."""
    who = _CURRENT.get()
    return Caller(user_id=who.user_id, name=who.name, admin=who.grants(Scope.ADMIN))


def bearer(metadata: Any) -> str | None:
    """The token of ``authorization: Bearer <token>`` metadata; None when there is none.

    Raises :class:`UnauthenticatedError` for an authorization header of another form.
    """
    for key, value in metadata or ():
        if key.lower() != "authorization":
            continue
        text = value.decode() if isinstance(value, bytes) else str(value)
        scheme, _, token = text.strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise UnauthenticatedError("authorization metadata must be 'Bearer <token>'")
        return token.strip()
    return None


class AuthInterceptor(_Interceptor):
    """Authenticates each call to a governed service and applies :data:`policy.METHODS`."""

    def __init__(self, authenticate: Authenticator, public_reads: bool) -> None:
        self.authenticate = authenticate
        self.public_reads = public_reads

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], _Handler | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> _Handler | None:
        handler = continuation(handler_call_details)
        method = handler_call_details.method
        if handler is None or not method.strip("/").startswith(policy.GOVERNED):
            return handler
        wrapped = rewrap(
            handler, lambda b: self._unary(method, b), lambda b: self._stream(method, b)
        )
        if wrapped is handler:
            # No client-streaming methods exist; refuse rather than pass one through unchecked.
            return grpc.unary_unary_rpc_method_handler(self._refuse)
        return wrapped

    def _principal(self, method: str, context: grpc.ServicerContext) -> Principal:
        try:
            token = bearer(context.invocation_metadata())
            who = ANONYMOUS if token is None else self.authenticate(token)
            policy.check_method(method, who, self.public_reads)
        except UnauthenticatedError as exc:
            context.abort(grpc.StatusCode.UNAUTHENTICATED, str(exc))
        except PermissionDeniedError as exc:
            context.abort(grpc.StatusCode.PERMISSION_DENIED, str(exc))
        return who

    def _unary(
        self, method: str, behavior: Callable[[Any, grpc.ServicerContext], Any]
    ) -> Callable[..., Any]:
        def wrapped(request: Any, context: grpc.ServicerContext) -> Any:
            _CURRENT.set(self._principal(method, context))
            try:
                return behavior(request, context)
            finally:
                # set, not reset: a stream may be closed from another context than it ran in
                _CURRENT.set(ANONYMOUS)

        return wrapped

    def _stream(
        self, method: str, behavior: Callable[[Any, grpc.ServicerContext], Iterator[Any]]
    ) -> Callable[..., Iterator[Any]]:
        def wrapped(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            who = self._principal(method, context)
            _CURRENT.set(who)
            try:
                yield from behavior(request, context)
            finally:
                _CURRENT.set(ANONYMOUS)

        return wrapped

    @staticmethod
    def _refuse(request: Any, context: grpc.ServicerContext) -> Any:
        context.abort(grpc.StatusCode.PERMISSION_DENIED, "this method is not open to any caller")
