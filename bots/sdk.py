"""The SDK bot authors use: write ``decide(observation, legal) -> int`` and hand it over.

An uploaded bot is one Python file that ends with ``run(decide)``; the worker starts it in
a sandbox and talks to it over stdin/stdout. A remote bot calls ``serve_grpc(decide, port)``
on its own machine and registers ``host:port``. Either way ``decide`` receives:

- ``observation``: the game's observation for your seat, a JSON-like dict (see the rules
  in ``docs/rules/``);
- ``legal``: the legal actions as dicts, ``{"type": "ActionClass", field: value, ...}``;

and returns the index of the chosen action in ``legal``. Anything else is an illegal move.

Protocol (for authors who want another language): each ``hamlet.v1.DecisionRequest`` and
each ``hamlet.v1.DecisionResponse`` is framed by its length as 4 big-endian bytes, in protobuf
binary form, or in the protobuf JSON mapping when the archive's manifest says
``"framing": "json"`` (``run(decide, framing=codec.Framing.JSON)`` then).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from concurrent import futures
from typing import IO, Any

import grpc

from hamlet import codec
from hamlet.v1 import bot_pb2_grpc, common_pb2

#: ``decide(observation, legal) -> index into legal``.
Decide = Callable[[dict[str, Any], list[dict[str, Any]]], int]


def answer(decide: Decide, request: common_pb2.DecisionRequest) -> common_pb2.DecisionResponse:
    """Decode one request, ask ``decide``, encode its answer."""
    observation = codec.observation_from_request(request)
    legal = codec.legal_from_request(request)
    return common_pb2.DecisionResponse(action_index=int(decide(observation, legal)))


def run(
    decide: Decide,
    stdin: IO[bytes] | None = None,
    stdout: IO[bytes] | None = None,
    framing: codec.Framing = codec.Framing.PROTOBUF,
) -> None:
    """Answer framed requests on stdin until it closes (what an uploaded bot calls).

    ``print`` inside ``decide`` goes to stderr (the worker keeps its tail for you), so it
    cannot corrupt the answers on stdout. ``framing`` must be the manifest's (a single-file
    bot has no manifest: protobuf).
    """
    inp = stdin if stdin is not None else sys.stdin.buffer
    out = stdout if stdout is not None else sys.stdout.buffer
    if stdout is None:
        sys.stdout = sys.stderr
    while True:
        frame = codec.read_frame(inp)
        if frame is None:
            return
        request = codec.decode_message(frame, common_pb2.DecisionRequest, framing)
        codec.write_frame(out, codec.encode_message(answer(decide, request), framing))


class _BotService(bot_pb2_grpc.BotServicer):
    def __init__(self, decide: Decide) -> None:
        self._decide = decide

    def Decide(  # noqa: N802 (gRPC method name)
        self, request: common_pb2.DecisionRequest, context: grpc.ServicerContext
    ) -> common_pb2.DecisionResponse:
        return answer(self._decide, request)


def start_grpc(decide: Decide, port: int = 0, host: str = "[::]") -> tuple[grpc.Server, int]:
    """Start a ``hamlet.v1.Bot`` gRPC server for ``decide``; returns it and its bound port."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    bot_pb2_grpc.add_BotServicer_to_server(_BotService(decide), server)  # type: ignore[no-untyped-call]
    bound = server.add_insecure_port(f"{host}:{port}")
    server.start()
    return server, bound


def serve_grpc(decide: Decide, port: int) -> None:
    """Serve ``decide`` as a remote bot on ``port`` until interrupted."""
    server, bound = start_grpc(decide, port)
    print(f"hamlet bot listening on port {bound}", file=sys.stderr)
    try:
        server.wait_for_termination()
    except KeyboardInterrupt:
        server.stop(grace=1)
