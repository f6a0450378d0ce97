"""One server interceptor authenticates every call and enforces the policy's method table.

The caller's :class:`Principal` is put in a context variable for the duration of the call;
servicers read it with :func:`current_principal` when they need to check ownership.

It also applies the rate limits of :mod:`server.auth.ratelimit` (writes and expensive reads,
per token id, or per client address for anonymous callers) and the size rule of
:mod:`server.auth.size` (64 KiB before authentication; a large request is parsed only after
its caller is authenticated).
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import grpc

from server.auth import policy, size
from server.auth.identity import ANONYMOUS, Principal, Scope
from server.auth.ratelimit import EXPENSIVE_READS, WRITES, RateKind, RateLimiter, client_host
from server.interceptors import Undecodable, rewrap, undecodable_message
from server.peers import COOLDOWN_KEY, call_peer
from server.services.caller import Caller
from server.services.errors import (
    CoolDownError,
    PermissionDeniedError,
    ResourceExhaustedError,
    UnauthenticatedError,
)

if TYPE_CHECKING:
    _Interceptor = grpc.ServerInterceptor[Any, Any]
    _Handler = grpc.RpcMethodHandler[Any, Any]
else:
    _Interceptor = grpc.ServerInterceptor
    _Handler = grpc.RpcMethodHandler

_CURRENT: contextvars.ContextVar[Principal] = contextvars.ContextVar(
    "hamlet_principal", default=ANONYMOUS
)

#: Turns a bearer token (and the caller's address) into a principal, or raises
#: UnauthenticatedError (or ResourceExhaustedError during a cool-down).
Authenticator = Callable[[str, str], Principal]


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

    def __init__(
        self, authenticate: Authenticator, public_reads: bool, limiter: RateLimiter | None = None
    ) -> None:
        self.authenticate = authenticate
        self.public_reads = public_reads
        self.limiter = limiter

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], _Handler | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> _Handler | None:
        handler = continuation(handler_call_details)
        method = handler_call_details.method
        if handler is None:
            return None
        if not method.strip("/").startswith(policy.GOVERNED):
            # health, reflection: small requests only, whoever calls
            replace = getattr(handler, "_replace", None)
            if replace is None:
                return handler
            return replace(  # type: ignore[no-any-return]
                request_deserializer=size.strict(handler.request_deserializer)
            )
        authorized = size.has_authorization(handler_call_details.invocation_metadata)
        if not authorized:
            refusal = self._anonymous_refusal(method, handler)
            if refusal is not None:
                return refusal
        if handler.request_streaming:
            # No client-streaming methods exist; refuse rather than pass one through unchecked.
            return grpc.unary_unary_rpc_method_handler(self._refuse)
        if authorized and method in size.LARGE_METHODS and handler.unary_unary is not None:
            return self._authenticate_then_read(method, handler)
        return rewrap(
            handler,
            lambda b: self._unary(method, b),
            lambda b: self._stream(method, b),
            size.limited(method, handler.request_deserializer, authorized),
        )

    def _authenticate_then_read(self, method: str, handler: _Handler) -> _Handler:
        """A large method's handler that authenticates the caller *before* receiving the
        request (a request-streaming handler reads its request only when iterated): a wrong
        token never makes the server take in 16 MiB."""
        behavior = handler.unary_unary
        assert behavior is not None

        def wrapped(requests: Iterator[Any], context: grpc.ServicerContext) -> Any:
            _CURRENT.set(self._principal(method, context))
            try:
                request = next(requests, None)
                if request is None:
                    request = Undecodable(ValueError("no request message"))
                if isinstance(request, Undecodable):
                    message = undecodable_message(method, request)
                    context.abort(grpc.StatusCode.INVALID_ARGUMENT, message)
                return behavior(self._request(request, context), context)
            finally:
                _CURRENT.set(ANONYMOUS)

        return grpc.stream_unary_rpc_method_handler(
            wrapped,
            request_deserializer=size.limited(method, handler.request_deserializer, True),
            response_serializer=handler.response_serializer,
        )

    def _anonymous_refusal(self, method: str, handler: _Handler) -> _Handler | None:
        """For a call without a token to a method that needs one: a handler that refuses it
        *without reading its request* (a request-streaming handler's request is read only
        when iterated), so a 16 MiB anonymous SubmitBot is never even received whole."""
        try:
            policy.check_method(method, ANONYMOUS, self.public_reads)
            return None
        except UnauthenticatedError as exc:
            code, message = grpc.StatusCode.UNAUTHENTICATED, str(exc)
        except PermissionDeniedError as exc:
            code, message = grpc.StatusCode.PERMISSION_DENIED, str(exc)

        def refuse(requests: Any, context: grpc.ServicerContext) -> Any:
            context.abort(code, message)

        def refuse_stream(requests: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            context.abort(code, message)
            yield  # pragma: no cover - abort raises

        if handler.response_streaming:
            return grpc.stream_stream_rpc_method_handler(
                refuse_stream, response_serializer=handler.response_serializer
            )
        return grpc.stream_unary_rpc_method_handler(
            refuse, response_serializer=handler.response_serializer
        )

    def _principal(self, method: str, context: grpc.ServicerContext) -> Principal:
        host = client_host(call_peer(context))
        try:
            token = bearer(context.invocation_metadata())
            who = ANONYMOUS if token is None else self.authenticate(token, host)
            policy.check_method(method, who, self.public_reads)
            self._limit(method, who, host)
        except UnauthenticatedError as exc:
            context.abort(grpc.StatusCode.UNAUTHENTICATED, str(exc))
        except PermissionDeniedError as exc:
            context.abort(grpc.StatusCode.PERMISSION_DENIED, str(exc))
        except ResourceExhaustedError as exc:
            if isinstance(exc, CoolDownError):  # the front refuses the same calls meanwhile
                context.set_trailing_metadata(
                    ((COOLDOWN_KEY, f"{exc.scope} {max(1, round(exc.seconds))}"),)
                )
            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc))
        return who

    def _limit(self, method: str, who: Principal, host: str) -> None:
        """Count a write or an expensive read against the caller's share."""
        if self.limiter is None or who.grants(Scope.ADMIN):
            return  # admins are exempt, as from quotas (the demo, operators' scripts)
        name = method.strip("/")
        kind = (
            RateKind.WRITE if name in WRITES else RateKind.READ if name in EXPENSIVE_READS else None
        )
        if kind is None:
            return
        key = f"addr:{host}" if who.anonymous else f"token:{who.token_id}"
        if not self.limiter.hit(kind, key):
            whose = "this address" if who.anonymous else f"token {who.token_id}"
            setting = "HAMLET_RATE_WRITES" if kind is RateKind.WRITE else "HAMLET_RATE_READS"
            rate = self.limiter.items[kind]
            raise ResourceExhaustedError(
                f"too many {'writes' if kind is RateKind.WRITE else 'listings and replays'} "
                f"from {whose}: the limit is {rate.amount} per {rate.get_expiry()} s "
                f"({setting}); wait a little and try again"
            )

    def _request(self, request: Any, context: grpc.ServicerContext) -> Any:
        """The parsed request: refuses one over the size limit, parses a deferred one (its
        caller is authenticated by now)."""
        if isinstance(request, size.TooLarge):
            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, request.message())
        if isinstance(request, size.Deferred):
            try:
                return request.parse(request.data)
            except Exception as exc:
                context.abort(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    f"the request bytes are not a valid message ({type(exc).__name__}); "
                    "send a message built from the hamlet.v1 protos",
                )
        return request

    def _unary(
        self, method: str, behavior: Callable[[Any, grpc.ServicerContext], Any]
    ) -> Callable[..., Any]:
        def wrapped(request: Any, context: grpc.ServicerContext) -> Any:
            if isinstance(request, size.TooLarge):
                self._request(request, context)
            _CURRENT.set(self._principal(method, context))
            try:
                return behavior(self._request(request, context), context)
            finally:
                # set, not reset: a stream may be closed from another context than it ran in
                _CURRENT.set(ANONYMOUS)

        return wrapped

    def _stream(
        self, method: str, behavior: Callable[[Any, grpc.ServicerContext], Iterator[Any]]
    ) -> Callable[..., Iterator[Any]]:
        def wrapped(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            if isinstance(request, size.TooLarge):
                self._request(request, context)
            who = self._principal(method, context)
            _CURRENT.set(who)
            try:
                yield from behavior(self._request(request, context), context)
            finally:
                _CURRENT.set(ANONYMOUS)

        return wrapped

    @staticmethod
    def _refuse(request: Any, context: grpc.ServicerContext) -> Any:
        context.abort(grpc.StatusCode.PERMISSION_DENIED, "this method is not open to any caller")
