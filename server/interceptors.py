"""Server interceptors' shared plumbing, and the one counting gRPC calls by method and status
code, and their latency."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import grpc

from server.metrics import ServerMetrics

if TYPE_CHECKING:
    _Interceptor = grpc.ServerInterceptor[Any, Any]
    _Handler = grpc.RpcMethodHandler[Any, Any]
else:
    _Interceptor = grpc.ServerInterceptor
    _Handler = grpc.RpcMethodHandler


Unary = Callable[[Any, grpc.ServicerContext], Any]
Stream = Callable[[Any, grpc.ServicerContext], Iterator[Any]]


class Undecodable:
    """Stands in for a request whose bytes did not decode (see :mod:`server.boundary`);
    the handler refuses it."""

    def __init__(self, error: Exception) -> None:
        self.error = error


def undecodable_message(method: str, request: Undecodable) -> str:
    """The refusal of a request whose bytes did not decode, for ``/package.Service/Method``."""
    service, _, name = method.strip("/").partition("/")
    return (
        f"the request bytes are not a valid message for {service.rsplit('.', 1)[-1]}/{name} "
        f"({type(request.error).__name__}); send a message built from the hamlet.v1 protos"
    )


def rewrap(
    handler: _Handler,
    unary: Callable[[Unary], Unary],
    stream: Callable[[Stream], Stream],
    request_deserializer: Callable[[bytes], Any] | None = None,
) -> _Handler:
    """``handler`` with its behaviour wrapped by ``unary`` or ``stream`` (and, if given, its
    request deserializer replaced), by what it answers: one response (``unary``) or a stream
    (``stream``). Hamlet's services have no client-streaming methods; the only
    request-streaming handlers are the authentication's refusals, which never read their
    request (and reflection's, which the wrappers pass through)."""
    parse = request_deserializer or handler.request_deserializer
    if handler.unary_unary is not None:
        return grpc.unary_unary_rpc_method_handler(
            unary(handler.unary_unary),
            request_deserializer=parse,
            response_serializer=handler.response_serializer,
        )
    if handler.unary_stream is not None:
        return grpc.unary_stream_rpc_method_handler(
            stream(handler.unary_stream),
            request_deserializer=parse,
            response_serializer=handler.response_serializer,
        )
    if handler.stream_unary is not None:
        return grpc.stream_unary_rpc_method_handler(
            unary(handler.stream_unary),
            request_deserializer=parse,
            response_serializer=handler.response_serializer,
        )
    if handler.stream_stream is not None:
        return grpc.stream_stream_rpc_method_handler(
            stream(handler.stream_stream),
            request_deserializer=parse,
            response_serializer=handler.response_serializer,
        )
    return handler


class MetricsInterceptor(_Interceptor):
    """Records ``hamlet_grpc_server_handled_total{method,code}`` and handling latency.

    Only methods the server implements are counted, so the ``method`` label stays bounded.
    """

    def __init__(self, metrics: ServerMetrics) -> None:
        self.metrics = metrics

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], _Handler | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> _Handler | None:
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        method = handler_call_details.method.rsplit("/", 1)[-1]
        service = handler_call_details.method.strip("/").split("/", 1)[0].rsplit(".", 1)[-1]
        label = f"{service}/{method}"
        return rewrap(handler, lambda b: self._unary(label, b), lambda b: self._stream(label, b))

    def _done(self, label: str, start: float, context: grpc.ServicerContext, failed: bool) -> None:
        code = context.code()  # type: ignore[attr-defined]
        if code is None:
            code = grpc.StatusCode.UNKNOWN if failed else grpc.StatusCode.OK
        self.metrics.grpc_calls.labels(label, code.name).inc()
        self.metrics.grpc_latency.labels(label).observe(time.perf_counter() - start)

    def _unary(
        self, label: str, behavior: Callable[[Any, grpc.ServicerContext], Any]
    ) -> Callable[..., Any]:
        def wrapped(request: Any, context: grpc.ServicerContext) -> Any:
            start = time.perf_counter()
            failed = True
            try:
                result = behavior(request, context)
                failed = False
                return result
            finally:
                self._done(label, start, context, failed)

        return wrapped

    def _stream(
        self, label: str, behavior: Callable[[Any, grpc.ServicerContext], Iterator[Any]]
    ) -> Callable[..., Iterator[Any]]:
        def wrapped(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            start = time.perf_counter()
            failed = True
            try:
                yield from behavior(request, context)
                failed = False
            finally:
                self._done(label, start, context, failed)

        return wrapped
