"""The public ``Arena`` service: translate, delegate, translate back."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import grpc

import games
from hamlet.v1 import arena_pb2, arena_pb2_grpc, common_pb2
from server.servicers import convert
from server.servicers.errors import stream, unary
from server.services import validation as v
from server.services.bots import BotService
from server.services.errors import InvalidArgumentError
from server.services.matches import MatchService
from server.services.tournaments import ROUND_ROBIN, TournamentRequest, TournamentService
from server.storage import Store

_FORMATS = {
    common_pb2.TOURNAMENT_FORMAT_UNSPECIFIED: ROUND_ROBIN,
    common_pb2.TOURNAMENT_FORMAT_ROUND_ROBIN: ROUND_ROBIN,
}


class ArenaServicer(arena_pb2_grpc.ArenaServicer):
    """Games, bots, tournaments, matches, replays and leaderboards."""

    def __init__(
        self, store: Store, bots: BotService, tournaments: TournamentService, matches: MatchService
    ) -> None:
        self.store = store
        self.bots = bots
        self.tournaments = tournaments
        self.matches = matches

    @unary
    def ListGames(
        self, request: arena_pb2.ListGamesRequest, context: grpc.ServicerContext
    ) -> arena_pb2.ListGamesResponse:
        return arena_pb2.ListGamesResponse(
            games=[convert.game(games.get(n)) for n in games.names()]
        )

    @unary
    def ListBots(
        self, request: arena_pb2.ListBotsRequest, context: grpc.ServicerContext
    ) -> arena_pb2.ListBotsResponse:
        found = self.bots.find(request.game, request.include_retired)
        return arena_pb2.ListBotsResponse(bots=[convert.bot(b) for b in found])

    @unary
    def SubmitBot(
        self, request: arena_pb2.SubmitBotRequest, context: grpc.ServicerContext
    ) -> arena_pb2.SubmitBotResponse:
        done = self.bots.submit(
            request.name, request.game, request.source, request.description, request.archive
        )
        return arena_pb2.SubmitBotResponse(
            bot=convert.bot(done.bot),
            version=done.bot.latest_version,
            code_sha256=done.bot.code_sha256,
            created=done.created,
        )

    @unary
    def RetireBot(
        self, request: arena_pb2.RetireBotRequest, context: grpc.ServicerContext
    ) -> arena_pb2.BotInfo:
        return convert.bot(self.bots.retire(request.name))

    @unary
    def CreateTournament(
        self, request: arena_pb2.CreateTournamentRequest, context: grpc.ServicerContext
    ) -> arena_pb2.Tournament:
        fmt = _FORMATS.get(request.format)
        if fmt is None:
            raise InvalidArgumentError(f"unsupported tournament format {request.format}")
        created = self.tournaments.create(
            TournamentRequest(
                game=request.game,
                bots=tuple(request.bots),
                format=fmt,
                players_per_table=request.players_per_table,
                rounds=request.rounds,
                seed=request.seed,
                decision_time_ms=request.decision_time_ms,
                rated=request.rated,
            )
        )
        if request.start:
            created = self.tournaments.start(created.tournament_id)
        return convert.tournament(created)

    @unary
    def StartTournament(
        self, request: arena_pb2.TournamentRef, context: grpc.ServicerContext
    ) -> arena_pb2.Tournament:
        return self._with_standings(self.tournaments.start(request.tournament_id).tournament_id)

    @unary
    def CancelTournament(
        self, request: arena_pb2.TournamentRef, context: grpc.ServicerContext
    ) -> arena_pb2.Tournament:
        return self._with_standings(self.tournaments.cancel(request.tournament_id).tournament_id)

    @unary
    def GetTournament(
        self, request: arena_pb2.TournamentRef, context: grpc.ServicerContext
    ) -> arena_pb2.Tournament:
        return self._with_standings(request.tournament_id)

    @unary
    def ListTournaments(
        self, request: arena_pb2.ListTournamentsRequest, context: grpc.ServicerContext
    ) -> arena_pb2.ListTournamentsResponse:
        if request.limit < 0:
            raise InvalidArgumentError("limit must not be negative")
        found = self.tournaments.recent(request.limit)
        return arena_pb2.ListTournamentsResponse(tournaments=[convert.tournament(t) for t in found])

    @unary
    def ListMatches(
        self, request: arena_pb2.TournamentRef, context: grpc.ServicerContext
    ) -> arena_pb2.ListMatchesResponse:
        found = self.tournaments.matches(request.tournament_id)
        return arena_pb2.ListMatchesResponse(matches=[convert.match(m) for m in found])

    @stream
    def WatchTournament(
        self, request: arena_pb2.WatchTournamentRequest, context: grpc.ServicerContext
    ) -> Iterator[arena_pb2.TournamentEvent]:
        stop = threading.Event()
        context.add_callback(stop.set)
        events = self.tournaments.watch(request.tournament_id, request.include_finished, stop=stop)
        for record, match in events:
            event = arena_pb2.TournamentEvent(tournament=convert.tournament(record))
            if match is not None:
                event.match.CopyFrom(convert.match(match))
            yield event

    @unary
    def GetMatch(
        self, request: arena_pb2.MatchRef, context: grpc.ServicerContext
    ) -> arena_pb2.MatchDetail:
        match, decisions = self.matches.detail(request.match_id)
        return arena_pb2.MatchDetail(
            match=convert.match(match), decisions=[convert.decision(d) for d in decisions]
        )

    @unary
    def GetReplay(
        self, request: arena_pb2.MatchRef, context: grpc.ServicerContext
    ) -> common_pb2.Replay:
        return convert.replay(self.matches.replay(request.match_id))

    @unary
    def GetLeaderboard(
        self, request: arena_pb2.GetLeaderboardRequest, context: grpc.ServicerContext
    ) -> arena_pb2.Leaderboard:
        v.game_spec(request.game)
        return convert.leaderboard(request.game, self.store.leaderboard(request.game))

    def _with_standings(self, tournament_id: str) -> arena_pb2.Tournament:
        record = self.tournaments.get(tournament_id)
        return convert.tournament(record, self.tournaments.standings(tournament_id))
