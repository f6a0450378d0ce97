"""The ``Arena`` calls of ranked play beyond tournaments: head-to-head tests (SPRT) and the
ladder (translate, delegate).

A part of :class:`server.servicers.arena.ArenaServicer`, kept apart to keep each module to
one concern; the logic is in :mod:`server.services.headtohead` and
:mod:`server.services.ladder`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import grpc

from hamlet.v1 import arena_pb2
from server.auth import caller, current_principal, policy
from server.ratings import sprt
from server.servicers import convert
from server.servicers.errors import stream, unary
from server.servicers.gate import StreamClient, StreamGate
from server.services.bots import BotService
from server.services.errors import InvalidArgumentError
from server.services.headtohead import HeadToHeadService
from server.services.ladder import LadderService
from server.storage import BotRecord


class RankedRpcs:
    """``StartSprt``, ``GetSprt``, ``WatchSprt`` and the ladder's calls."""

    bots: BotService
    tests: HeadToHeadService
    ladder: LadderService
    streams: StreamGate

    @unary
    def StartSprt(
        self, request: arena_pb2.StartSprtRequest, context: grpc.ServicerContext
    ) -> arena_pb2.SprtStatus:
        names = [request.bot_a, request.bot_b, *(request.opponents or ["random"])]
        if len(set(names)) != len(names):
            raise InvalidArgumentError("A, B and the opponents must be different bots")
        try:
            bounds = sprt.Bounds(
                request.elo0, request.elo1, request.alpha or 0.05, request.beta or 0.05
            )
        except ValueError as exc:
            raise InvalidArgumentError(str(exc)) from None
        status = self.tests.start(
            request.game,
            [self.bots.resolve(n) for n in names],
            request.players_per_table,
            bounds,
            request.max_pairs,
            request.decision_time_ms,
            current_principal().user_id,
            caller(),
            client_request_id=request.client_request_id,
        )
        return convert.sprt_status(status)

    @unary
    def GetSprt(
        self, request: arena_pb2.SprtRef, context: grpc.ServicerContext
    ) -> arena_pb2.SprtStatus:
        return convert.sprt_status(self.tests.status(request.test_id))

    @stream
    def WatchSprt(
        self, request: arena_pb2.SprtRef, context: grpc.ServicerContext
    ) -> Iterator[arena_pb2.SprtStatus]:
        stop = threading.Event()
        context.add_callback(stop.set)
        with self.streams.hold(StreamClient.of_call(context), stop) as place:
            for status in self.tests.watch(request.test_id, stop):
                place.touch()
                yield convert.sprt_status(status)

    @unary
    def JoinLadder(
        self, request: arena_pb2.LadderRequest, context: grpc.ServicerContext
    ) -> arena_pb2.LadderStatus:
        bot, game = self._ladder_bot(request)
        return convert.ladder(self.ladder.join(bot, game, caller()))

    @unary
    def LeaveLadder(
        self, request: arena_pb2.LadderRequest, context: grpc.ServicerContext
    ) -> arena_pb2.LadderStatus:
        bot, game = self._ladder_bot(request)
        # Taking a bot off is its owner's (or an admin's) business, whoever put it on.
        policy.check_ladder(current_principal(), bot.name, bot.origin, bot.owner)
        return convert.ladder(self.ladder.leave(bot, game))

    @unary
    def GetLadder(
        self, request: arena_pb2.GetLadderRequest, context: grpc.ServicerContext
    ) -> arena_pb2.LadderStatus:
        return convert.ladder(self.ladder.status(request.game))

    @unary
    def EndLadderSeason(
        self, request: arena_pb2.GetLadderRequest, context: grpc.ServicerContext
    ) -> arena_pb2.LadderStatus:
        return convert.ladder(self.ladder.end_season(request.game))

    def _ladder_bot(self, request: arena_pb2.LadderRequest) -> tuple[BotRecord, str]:
        bot = self.bots.get(request.bot_name)
        game = request.game or (bot.games[0] if len(bot.games) == 1 else "")
        if not game:
            raise InvalidArgumentError(
                f"bot {bot.name!r} plays {', '.join(bot.games)}: name the game"
            )
        return bot, game
