"""The web app's only way to the data: reads through the ``Arena`` gRPC API.

Spectators' calls go over one anonymous channel (public reads), so a page shows exactly what
the server shows anyone; a logged-in visitor's token is forwarded as the bearer token on a
channel opened for that call and closed after it. Finished replays are immutable, so a few
public ones are kept in memory (read from the server a page of steps at a time); a seat's own
view is never kept: it is asked for again, with the visitor's own token, every time it is
shown.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import grpc

from hamlet import codec
from hamlet.channels import open_channel
from hamlet.paging import whole_replay
from hamlet.v1 import arena_pb2, arena_pb2_grpc, common_pb2

CALL_TIMEOUT = 15.0
REPLAY_CACHE = 16
#: Steps asked for per GetReplay call (the server's largest page).
REPLAY_PAGE = 2000
SEATS_CACHE = 256
#: The largest table or rotation number a page token can name (nine digits).
_KEY_MAX = 999_999_999


@dataclass(frozen=True)
class ReplayData:
    """A replay as the viewer needs it: the match, the public states and the steps."""

    replay: common_pb2.Replay
    states: tuple[dict[str, object], ...]  # the initial state, then one after each step

    @property
    def last(self) -> int:
        """The number of decisions (the last position of the scrubber)."""
        return len(self.states) - 1


class ArenaReader:
    """Typed reads of the Arena API with the web app's anonymous channel."""

    def __init__(self, target: str, ca_file: Path | None = None, token: str | None = None):
        self._target = target
        self._ca_file = ca_file
        self._channel = open_channel(target, token=token, ca_file=ca_file)
        self.stub = arena_pb2_grpc.ArenaStub(self._channel)  # type: ignore[no-untyped-call]
        self._replays: OrderedDict[str, ReplayData] = OrderedDict()
        self._seats: OrderedDict[str, tuple[common_pb2.Seat, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def close(self) -> None:
        """Close the channel."""
        self._channel.close()

    def games(self) -> list[common_pb2.Game]:
        """The registered games."""
        return list(self.stub.ListGames(arena_pb2.ListGamesRequest(), timeout=CALL_TIMEOUT).games)

    def bots(self, game: str = "", include_retired: bool = True) -> list[arena_pb2.BotInfo]:
        """Bots, of one game or all."""
        req = arena_pb2.ListBotsRequest(game=game, include_retired=include_retired)
        return list(self.stub.ListBots(req, timeout=CALL_TIMEOUT).bots)

    def bot(self, name: str) -> arena_pb2.BotInfo | None:
        """One bot by name, or None."""
        found = self.bot_with_versions(name)
        return None if found is None else found.bot

    def bot_with_versions(self, name: str) -> arena_pb2.ListBotVersionsResponse | None:
        """One bot by name with its versions (one call, however many bots there are), or
        None if there is no such bot (or no bot could have that name)."""
        try:
            return self.bot_versions(name)
        except grpc.RpcError as exc:
            code = exc.code()  # type: ignore[attr-defined]
            if code in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT):
                return None
            raise

    def leaderboard(self, game: str, rules_version: str = "") -> arena_pb2.Leaderboard:
        """A game's published rating and live Elo table."""
        req = arena_pb2.GetLeaderboardRequest(game=game, rules_version=rules_version)
        return self.stub.GetLeaderboard(req, timeout=CALL_TIMEOUT)

    def tournaments(self, limit: int = 100) -> list[arena_pb2.Tournament]:
        """The most recent tournaments."""
        req = arena_pb2.ListTournamentsRequest(limit=limit)
        return list(self.stub.ListTournaments(req, timeout=CALL_TIMEOUT).tournaments)

    def tournament(
        self, tournament_id: str, standings_token: str = "", standings_page_size: int = 0
    ) -> arena_pb2.Tournament:
        """One tournament with a page of its standings (the first unless a token is given;
        0 means the server's default size)."""
        ref = arena_pb2.TournamentRef(
            tournament_id=tournament_id,
            standings_page_size=standings_page_size,
            standings_page_token=standings_token,
        )
        return self.stub.GetTournament(ref, timeout=CALL_TIMEOUT)

    def match_page(
        self, tournament_id: str, token: str = "", page_size: int = 0
    ) -> arena_pb2.ListMatchesResponse:
        """One page of a tournament's matches in plan order (round, table, rotation)."""
        req = arena_pb2.ListMatchesRequest(
            tournament_id=tournament_id, page_size=page_size, page_token=token
        )
        return self.stub.ListMatches(req, timeout=CALL_TIMEOUT)

    def latest_rounds(
        self, tournament_id: str, rounds: int, count: int, page_size: int
    ) -> arena_pb2.ListMatchesResponse:
        """The matches of the last ``count`` of ``rounds`` rounds (plan order, at most
        ``page_size``): a ladder's latest blocks, whatever the season's length. The server's
        page token is the key (round, table, rotation) a page starts after, so the page
        after the end of round ``rounds - count - 1`` is asked for."""
        first = max(rounds - count, 0)
        token = f"{first - 1}.{_KEY_MAX}.{_KEY_MAX}" if first > 0 else ""
        return self.match_page(tournament_id, token, page_size)

    def ladder(self, game: str) -> arena_pb2.LadderStatus:
        """A game's ladder: its running season, the bots on it, its blocks."""
        req = arena_pb2.GetLadderRequest(game=game)
        return self.stub.GetLadder(req, timeout=CALL_TIMEOUT)

    def match(self, match_id: str) -> arena_pb2.MatchDetail:
        """A match with its decision log."""
        return self.stub.GetMatch(arena_pb2.MatchRef(match_id=match_id), timeout=CALL_TIMEOUT)

    def history(self, name: str, game: str = "") -> arena_pb2.BotHistory:
        """A bot's rating history and results by opponent."""
        req = arena_pb2.BotHistoryRequest(name=name, game=game)
        return self.stub.GetBotHistory(req, timeout=CALL_TIMEOUT)

    def replay(self, match_id: str) -> ReplayData:
        """A finished match's replay (kept in a small cache: finished matches never change)."""
        with self._lock:
            hit = self._replays.get(match_id)
            if hit is not None:
                self._replays.move_to_end(match_id)
                return hit
        rep = whole_replay(self.stub, match_id, max_steps=REPLAY_PAGE, timeout=60)
        states = (
            codec.struct_to_dict(rep.initial_state),
            *tuple(codec.struct_to_dict(s.public_state) for s in rep.steps),
        )
        data = ReplayData(rep, states)
        with self._lock:
            self._replays[match_id] = data
            while len(self._replays) > REPLAY_CACHE:
                self._replays.popitem(last=False)
        return data

    def bot_versions(self, name: str) -> arena_pb2.ListBotVersionsResponse:
        """A bot's versions, oldest first, each with its matches and published ratings."""
        req = arena_pb2.ListBotVersionsRequest(name=name)
        return self.stub.ListBotVersions(req, timeout=CALL_TIMEOUT)

    def final_seats(self, match_id: str) -> tuple[common_pb2.Seat, ...]:
        """The seats (bot, version, score) of a finished match; kept, since they never change."""
        with self._lock:
            hit = self._seats.get(match_id)
        if hit is not None:
            return hit
        m = self.match(match_id).match
        seats = tuple(m.seats)
        if m.status == common_pb2.MATCH_STATUS_FINISHED:
            with self._lock:
                self._seats[match_id] = seats
                while len(self._seats) > SEATS_CACHE:
                    self._seats.popitem(last=False)
        return seats

    @contextmanager
    def _as_visitor(self, token: str) -> Iterator[arena_pb2_grpc.ArenaStub]:
        """A stub on a channel of its own carrying ``token``, closed after the call: a
        visitor's token never rides on the shared channel, nor outlives the request."""
        channel = open_channel(self._target, token=token, ca_file=self._ca_file)
        try:
            yield arena_pb2_grpc.ArenaStub(channel)  # type: ignore[no-untyped-call]
        finally:
            channel.close()

    def seat_view(self, match_id: str, seat: int, token: str) -> common_pb2.SeatView:
        """``seat``'s own view of a finished match, asked for with the visitor's ``token``.

        The server decides who may see it (the seat's bot's owner or an admin) and raises the
        gRPC error otherwise. ``GetMatch`` carries the same view as ``GetReplay`` without the
        public states, which the viewer already has from the public replay.
        """
        with self._as_visitor(token) as stub:
            ref = arena_pb2.MatchRef(match_id=match_id, seat=seat)
            detail: arena_pb2.MatchDetail = stub.GetMatch(ref, timeout=60)
        return detail.seat_view

    def whoami(self, token: str) -> arena_pb2.WhoAmIResponse | None:
        """Who ``token`` belongs to (its own channel); None if the server refuses it."""
        try:
            with self._as_visitor(token) as stub:
                who: arena_pb2.WhoAmIResponse = stub.WhoAmI(
                    arena_pb2.WhoAmIRequest(), timeout=CALL_TIMEOUT
                )
        except grpc.RpcError as exc:
            if exc.code() in (  # type: ignore[attr-defined]
                grpc.StatusCode.UNAUTHENTICATED,
                grpc.StatusCode.PERMISSION_DENIED,
            ):
                return None
            raise
        return None if who.anonymous else who
