"""A remote bot for tests: a real gRPC ``hamlet.v1.Bot`` server in the test process, on an
ephemeral loopback port, answering with a function of the request (default: a random legal
index). It counts the requests it answered, so tests can see it was (or was not) called."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator
from concurrent import futures
from contextlib import contextmanager

import grpc

from hamlet.v1 import bot_pb2_grpc, common_pb2

Answer = Callable[[common_pb2.DecisionRequest], int]


class PythonBot(bot_pb2_grpc.BotServicer):
    """Answers each ``Decide`` with ``answer(request)``."""

    def __init__(self, answer: Answer | None = None) -> None:
        rng = random.Random(1)
        self.answer = answer or (lambda r: rng.randrange(len(r.legal_actions)))
        self.requests: list[common_pb2.DecisionRequest] = []
        self._lock = threading.Lock()

    def Decide(
        self, request: common_pb2.DecisionRequest, context: grpc.ServicerContext
    ) -> common_pb2.DecisionResponse:
        with self._lock:
            self.requests.append(request)
            return common_pb2.DecisionResponse(action_index=self.answer(request))


class Served:
    """A running remote bot: its ``port``, the servicer, and ``stop()``."""

    def __init__(self, server: grpc.Server, port: int, bot: PythonBot) -> None:
        self.server = server
        self.port = port
        self.bot = bot

    @property
    def endpoint(self) -> str:
        """``grpc://127.0.0.1:<port>``."""
        return f"grpc://127.0.0.1:{self.port}"

    def stop(self) -> None:
        """Stop serving now: later calls find the port closed."""
        self.server.stop(grace=None).wait()


@contextmanager
def serve_bot(
    answer: Answer | None = None, credentials: grpc.ServerCredentials | None = None
) -> Iterator[Served]:
    """A Bot server on ``127.0.0.1:<ephemeral>`` for the duration of the block."""
    bot = PythonBot(answer)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    bot_pb2_grpc.add_BotServicer_to_server(bot, server)
    if credentials is None:
        port = server.add_insecure_port("127.0.0.1:0")
    else:
        port = server.add_secure_port("127.0.0.1:0", credentials)
    server.start()
    served = Served(server, port, bot)
    try:
        yield served
    finally:
        served.stop()
