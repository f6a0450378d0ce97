"""Running one service's calls on a thread pool of its own.

The gRPC server's pool is shared by every call; an open ``WatchTournament`` stream holds
one of its threads for as long as it lasts. Workers' ``MatchHost`` calls run on a pool of
their own (grpc's per-method ``experimental_thread_pool`` hook), so no number of clients'
calls or streams can make workers' claims and reports wait.

With ``admit``, only the calls it admits go to that pool (the app admits calls whose bearer
token was verified before as a worker token: a dictionary look-up by a fast digest). A flood
of wrong secrets aimed at the worker token's id then runs, and is throttled, on the shared
pool, and never takes the threads real workers use.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent import futures
from typing import Any

import grpc

from server.interceptors import Stream, Unary, _Handler, _Interceptor, rewrap


class PoolInterceptor(_Interceptor):
    """Hands the calls of methods under ``prefix`` to ``pool``; must come first in the list
    of interceptors (the handler it returns is the one grpc runs)."""

    def __init__(
        self,
        prefix: str,
        pool: futures.ThreadPoolExecutor,
        admit: Callable[[grpc.HandlerCallDetails], bool] | None = None,
    ) -> None:
        self.prefix = prefix
        self.pool = pool
        self.admit = admit

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], _Handler | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> _Handler | None:
        handler = continuation(handler_call_details)
        if handler is None or not handler_call_details.method.startswith(self.prefix):
            return handler
        if self.admit is not None and not self.admit(handler_call_details):
            return handler
        return rewrap(handler, self._unary, self._stream)

    def _unary(self, behaviour: Unary) -> Unary:
        def on_pool(request: Any, context: grpc.ServicerContext) -> Any:
            return behaviour(request, context)

        on_pool.experimental_thread_pool = self.pool  # type: ignore[attr-defined]
        return on_pool

    def _stream(self, behaviour: Stream) -> Stream:
        def on_pool(request: Any, context: grpc.ServicerContext) -> Any:
            return behaviour(request, context)

        on_pool.experimental_thread_pool = self.pool  # type: ignore[attr-defined]
        return on_pool
